"""The settings one send uses: provider, model, key spec, diff_mode, reasoning, repair, titles.

A plain msgspec Struct so the Neovim host can build it from the Lua options table with
`msgspec.convert(opts, SendConfig)` (which also validates every field) and the command line
from its flags. Holds a key *spec* (where the key lives), never a key.
"""

from __future__ import annotations

from typing import Any

import msgspec

from bb7.formats.modes import DEFAULT_MODE, DiffMode
from bb7.prompt import DEFAULT_MODEL
from bb7.prompt.assemble import FollowEdits
from bb7.prompt.instructions import MODEL_FILES
from bb7.provider.config import ProviderConfig
from bb7.provider.wire import ReasoningEffort


class SendConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a send needs besides the chat and the text.

    - `model`: the provider's model id.
    - `provider`: base URL (OpenRouter by default), timeouts, retries, extra headers.
    - `api_key`: a key spec (`OPENROUTER_API_KEY`, `env:NAME`, `cmd:...`, `file:...`, see
      `bb7.provider.keys`); None means the provider's usual variable, or no key for a local server.
    - `diff_mode`: how the model changes files (`bb7.formats.modes`); a model the models list
      marks as without tool support gets text blocks whatever the mode.
    - `reasoning_effort`: None leaves the model's default.
    - `auto_repair`: after failed edits, ask the model once more, at once, with the retry
      context (off: the retry context waits for the user's next send).
    - `title_model`: names a chat after its first exchange; None: no automatic titles.
    - `models_cache`: directory of the models-list cache (capabilities, context length,
      prices); None: the list is not consulted.
    - `provider_preferences`: OpenRouter's `provider` routing object, sent as is.
    - `usage_log`: the file each request's usage is added to (`bb7.usage.log`); None: none.
    - `prompt_log`: the file each request and its answer are added to, raw
      (`bb7.usage.prompts`); None (the default): none.
    - `cache`: mark cache breakpoints where the provider caches only what is marked
      (`bb7.provider.wire.explicit_cache`: Anthropic models, Gemini through OpenRouter); False
      sends no marks. Providers that cache by themselves need no marks.
    - `follow_edits`: how a context file the user changed reaches the model at the next send
      ('diff': its changes; 'full': the whole file again; 'off': not at all until updated).
    - `instruction_files`: files the project keeps for models, read as project instructions.
    """

    model: str = DEFAULT_MODEL
    provider: ProviderConfig = ProviderConfig()
    api_key: str | None = None
    diff_mode: DiffMode = DEFAULT_MODE
    reasoning_effort: ReasoningEffort | None = None
    auto_repair: bool = False
    title_model: str | None = None
    models_cache: str | None = None
    provider_preferences: dict[str, Any] | None = None
    cache: bool = True
    follow_edits: FollowEdits = "diff"
    usage_log: str | None = None
    prompt_log: str | None = None
    instruction_files: tuple[str, ...] = MODEL_FILES
