"""The conversation: one send from the user's text to stored answer, pending outputs and events.

`send.start_send` is the entry point (the Neovim host and `bb7 chat` use it); `config` holds
its settings, `events` what it reports, `turn` builds a request from a chat's stored state,
`history` maps stored messages onto the prompt's history entries; `stream` forwards the
client's stream as send events, `pricing` prices what a send used, `title` names a new chat.

`DEFAULT_MODEL` lives here, with no imports around it, so the Neovim host can name the model a
chat uses without loading the send loop.
"""

# The model of a chat that names none (OpenRouter's id).
DEFAULT_MODEL = "anthropic/claude-sonnet-4.5"
