"""The model side of bb7: provider client, streaming events, models list, keys, prompt assembly.

Modules: `openai_compat` (HTTP client, streaming in a worker thread, time limits), `handle`
(the cancel/wait handle of a stream and of a send), `events` (what a stream reports), `wire`
(request and chunk formats), `sse`, `lenient` and `deltas` (stream decoding), `presets` (the
providers bb7 knows by name), `provider` (settings to client configuration), `probe` (the
health check's provider check), `keys` (API key sources), `models` (models list and its
cache), `prompt` / `prompt_format` / `instructions` / `tokens` (what the model reads), `titles`
(chat title request).
"""
