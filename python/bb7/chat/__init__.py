"""The conversation: one send from the user's text to stored answer, pending outputs and events.

`send.start_send` is the entry point (the Neovim host and `bb7 chat` use it); `events` holds
what it reports, `stream` forwards the client's stream as send events, `failures` words the
failed edits of an answer, `title` names a new chat, `paste` records a pasted answer. The
request a send makes is built in `bb7.prompt`.
"""
