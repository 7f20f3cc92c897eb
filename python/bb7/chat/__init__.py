"""The conversation: one send from the user's text to stored answer, pending outputs and events.

`send.start_send` is the entry point (the Neovim host and `bb7 chat` use it); `config` holds
its settings, `events` what it reports, `turn` builds a request from a chat's stored state,
`history` maps stored messages onto the prompt's history entries.
"""
