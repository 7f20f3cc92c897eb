"""One request of a chat: built from its stored state, assembled, fitted, shown and priced.

Modules: `turn` (the request of a chat's next send, from its stored state), `history` (stored
messages as the prompt's history entries), `assemble` (the pure assembly), `markers` (the
prompt's markers and system text), `instructions` (the user's and the project's standing
instructions), `fit` (whether it fits the context window), `titles` (the chat title request),
`config` (a send's settings), `parts` (what `:BB7Prompt` lists), `estimate` (the next
request's size and price), `pricing` (what a request costs).

`DEFAULT_MODEL` lives here, with no imports around it, so the Neovim host can name the model a
chat uses without loading prompt assembly.
"""

# The model of a chat that names none (OpenRouter's id).
DEFAULT_MODEL = "anthropic/claude-sonnet-4.5"
