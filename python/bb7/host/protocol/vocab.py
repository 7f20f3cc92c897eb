"""The closed sets Lua needs before any host runs, declared once here and generated into
`lua/bb7/vocab.lua` (`python -m bb7.host.protocol.lua`): the file statuses with the facts the
core decides about each, the context entry kinds with theirs, the provider presets and wire
protocols, the diff modes, the reasoning efforts, the token estimate's ratio, the agents known
by name and the protocol number.

Each set is taken from the module that owns it (statuses and their facts from
`bb7.state.status`, entry kinds from `bb7.state.records`, presets from `bb7.provider.presets`,
...). Not imported by the host's start: only the generator and the tests read it.
"""

from __future__ import annotations

from typing import get_args

import msgspec

from bb7.agent.agents import DEFAULT_AGENTS, PERMISSIONS
from bb7.formats.modes import DEFAULT_MODE, DIFF_MODES
from bb7.host.protocol import PROTOCOL
from bb7.provider.presets import APIS, PRESETS
from bb7.provider.wire import ReasoningEffort
from bb7.state import status as st
from bb7.state.records import ENTRY_KINDS, EntryKind, KindFacts
from bb7.text.tokens import CHARS_PER_TOKEN

# The statuses and their facts are declared where they are decided (`bb7.state.status`).
StatusFacts = st.StatusFacts
STATUSES = st.STATUSES

PRESET_NAMES: tuple[str, ...] = tuple(PRESETS)
EFFORTS: tuple[str, ...] = get_args(ReasoningEffort)


class Vocab(msgspec.Struct, frozen=True):
    """Everything `lua/bb7/vocab.lua` holds, as it is written there."""

    protocol: int
    statuses: tuple[StatusFacts, ...]
    entry_kinds: dict[EntryKind, KindFacts]
    presets: tuple[str, ...]
    apis: tuple[str, ...]
    diff_modes: tuple[str, ...]
    default_diff_mode: str
    efforts: tuple[str, ...]
    chars_per_token: int
    agents: dict[str, tuple[str, ...]]
    permissions: tuple[str, ...]


VOCAB = Vocab(
    protocol=PROTOCOL,
    statuses=STATUSES,
    entry_kinds=ENTRY_KINDS,
    presets=PRESET_NAMES,
    apis=APIS,
    diff_modes=DIFF_MODES,
    default_diff_mode=DEFAULT_MODE,
    efforts=EFFORTS,
    chars_per_token=CHARS_PER_TOKEN,
    agents=DEFAULT_AGENTS,
    permissions=PERMISSIONS,
)
