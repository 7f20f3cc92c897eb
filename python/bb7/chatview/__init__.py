"""What the Neovim chat view shows, computed without Neovim: the conversation as markdown lines
(`conversation`) and the files panel as tree rows (`files`). Lua draws the results as they are."""
