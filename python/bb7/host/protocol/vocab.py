"""The closed sets Lua needs before any host runs, declared once here and generated into
`lua/bb7/vocab.lua` (`python -m bb7.host.protocol.lua`): the file statuses with the facts the
host owns about each, the provider presets, the diff modes, the reasoning efforts, the token
estimate's ratio and the protocol number.

Each set is taken from the module that owns it (statuses from `bb7.state.status`, presets from
`bb7.provider.presets`, ...); the facts per status are declared here. Not imported by the host's
start: only the generator and the tests read it.
"""

from __future__ import annotations

from typing import get_args

import msgspec

from bb7.formats.modes import DEFAULT_MODE, DIFF_MODES
from bb7.host.protocol import PROTOCOL
from bb7.provider.presets import PRESETS
from bb7.provider.wire import ReasoningEffort
from bb7.state import status as st
from bb7.text.tokens import CHARS_PER_TOKEN


class StatusFacts(msgspec.Struct, frozen=True):
    """What the host decides about a status, which Lua acts on: `pending` the model's change
    waits (apply, discard, review and merge offer the file; a review ends when it goes);
    `needs_force` apply refuses without `force` (the editor asks first); `meaning` for the
    help and the option docs."""

    status: st.Status
    pending: bool
    needs_force: bool
    meaning: str


# Every status a file can show (in sync, '', shows none), in documentation order.
STATUSES = (
    StatusFacts(st.MODIFIED, pending=True, needs_force=False, meaning="a pending change"),
    StatusFacts(st.ADDED, pending=True, needs_force=False, meaning="a pending new file"),
    StatusFacts(
        st.ADDED_EXISTS,
        pending=True,
        needs_force=True,
        meaning="pending new file, path now exists",
    ),
    StatusFacts(
        st.OUT_OF_SYNC,
        pending=False,
        needs_force=False,
        meaning="local file differs from the snapshot",
    ),
    StatusFacts(
        st.CONFLICT,
        pending=True,
        needs_force=True,
        meaning="local edits overlap a pending change",
    ),
    StatusFacts(st.READ_ONLY, pending=False, needs_force=False, meaning="read-only context file"),
    StatusFacts(
        st.SECTION_STATUS,
        pending=False,
        needs_force=False,
        meaning="a section of the file is in context",
    ),
)

PRESET_NAMES: tuple[str, ...] = tuple(PRESETS)
EFFORTS: tuple[str, ...] = get_args(ReasoningEffort)


class Vocab(msgspec.Struct, frozen=True):
    """Everything `lua/bb7/vocab.lua` holds, as it is written there."""

    protocol: int
    statuses: tuple[StatusFacts, ...]
    presets: tuple[str, ...]
    diff_modes: tuple[str, ...]
    default_diff_mode: str
    efforts: tuple[str, ...]
    chars_per_token: int


VOCAB = Vocab(
    protocol=PROTOCOL,
    statuses=STATUSES,
    presets=PRESET_NAMES,
    diff_modes=DIFF_MODES,
    default_diff_mode=DEFAULT_MODE,
    efforts=EFFORTS,
    chars_per_token=CHARS_PER_TOKEN,
)
