"""Talking to a model provider: the HTTP client and everything about a server's protocol.

Modules: `client` (HTTP client, streaming in a worker thread, time limits), `handle` (the
cancel/wait handle of a stream and of a send), `events` (what a stream reports), `wire`
(request and chunk formats), `sse`, `lenient` and `deltas` (stream decoding), `presets` (the
providers bb7 knows by name), `config` and `provider` (settings to client configuration),
`probe` (the health check's provider check), `keys` (API key sources), `models` (models list
and its cache), `capabilities` (what a local server's models can do).
"""
