"""Talking to a model provider: the HTTP client and everything about a server's protocol.

The rest of bb7 hands in a `wire.ChatRequest` and gets `events` back (deltas, then one `Done` or
`StreamError`) through a `handle.Handle`; nothing here knows prompts, edit formats, chats or the
editor (of bb7 it may import only `files/` and `text/`). What varies by provider, and
where bb7 answers it:

- **request**: the body and where it goes. `wire.request_body` writes the Chat Completions
  body in the preset's dialect (reasoning effort as OpenRouter's `reasoning`, OpenAI's
  `reasoning_effort` or Anthropic's `thinking` budget; `stream_options`; OpenRouter's
  `provider`), `wire.explicit_cache` says where cache marks go; `client` posts it to
  `chat/completions` with the key (`keys`) in the headers.
- **response**: the stream read back. `sse` splits the bytes into payloads, `wire`'s chunk
  types and `lenient` decode each one, `deltas` turns chunks into `events` (where reasoning,
  tool-call fragments and usage arrive), `attempt` reads llama.cpp's `error:` lines, and
  `failures` words HTTP statuses and error objects.
- **tools**: `wire.ToolSpec` and its `openai()` shape in the request; `deltas` joins a call's
  fragments into one `events.ToolCall`. The schemas and the parsing of arguments are the
  formats layer's (`bb7.formats.schemas`, `bb7.formats.calls`).
- **lifecycle**: `presets` (the providers by name, and their quirks as fields), `provider`
  and `config` (time limits and retries, longer for a server on this machine), `attempt`
  (retries, the watchdog, cancel), `models` and `capabilities` (what a model can do: tools,
  context, prices), `probe` (the health check).

A second wire protocol (another request body and stream) is a `wire` and a `deltas` of its own,
chosen by the preset in `client`; `events`, `handle`, `attempt` and `failures` stay shared, so
the send loop and the prompt do not change.
"""
