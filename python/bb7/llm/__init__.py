"""The model side of bb7: provider client, streaming events, models list, keys, prompt assembly.

Modules: `openai_compat` (HTTP client, streaming in a worker thread), `events` (what a stream
reports), `wire` (request and chunk formats), `sse` and `deltas` (stream decoding), `keys`
(API key sources), `models` (models list and its cache), `prompt` / `prompt_format` /
`instructions` / `tokens` (what the model reads), `titles` (chat title request).
"""
