"""The Neovim host: a msgpack-RPC process (`python -m bb7.host`, or the classic remote plugin)
that turns Lua's requests into calls of the core and sends the outcome back as replies and
events.

- `__main__`: the front door (logging, attach, run); `rpc`: pynvim <-> the registry;
- `registry`: decoding, dispatch, `Abort` -> a Problem reply; `events`: batching for Lua;
- `protocol`: the contract with Lua (calls, events, vocabulary, core -> wire,
  the generator of its Lua side);
  `handlers`: the one route table and the handlers;
- `needs`: what a route needs (project, a chat to read, the held chat), resolved per call;
- `session`: project, lease, settings, running sends; `editor`: editor <-> project (paths,
  buffers, lines); `rplugin`: the classic remote plugin.

Importing this package imports nothing else: `bb7.host.protocol` stays cheap for its users.
"""
