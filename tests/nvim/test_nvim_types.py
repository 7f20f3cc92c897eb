"""lua/bb7/types.lua describes what the host sends: every class there has exactly the fields of
the msgspec Struct it mirrors (plus its tag field), so a changed message shows up here."""

from __future__ import annotations

import importlib
import re

import msgspec
from editor import ROOT

# Lua class -> the Struct it mirrors.
MIRRORS = {
    "bb7.Problem": "bb7.state.records:Problem",
    "bb7.Reply": "bb7.host.protocol.calls:Reply",
    "bb7.Pong": "bb7.host.protocol.calls:Pong",
    "bb7.Said": "bb7.host.protocol.calls:Said",
    "bb7.Opened": "bb7.host.protocol.calls:Opened",
    "bb7.Estimate": "bb7.host.protocol.calls:Estimate",
    "bb7.DiffView": "bb7.host.protocol.calls:DiffView",
    "bb7.Pricing": "bb7.host.protocol.events:Pricing",
    "bb7.ModelInfo": "bb7.host.protocol.events:ModelInfo",
    "bb7.Models": "bb7.host.protocol.events:Models",
    "bb7.ChatSummary": "bb7.host.protocol.calls:ChatSummary",
    "bb7.Anchor": "bb7.chatview.conversation:Anchor",
    "bb7.Rendered": "bb7.chatview.conversation:Rendered",
    "bb7.Row": "bb7.chatview.files:Row",
    "bb7.Panel": "bb7.chatview.files:Panel",
    "bb7.ChatView": "bb7.host.protocol.calls:ChatView",
    "bb7.ChatSearchHit": "bb7.host.protocol.calls:ChatSearchHit",
    "bb7.ChatRestored": "bb7.host.protocol.calls:ChatRestored",
    "bb7.Updated": "bb7.host.protocol.calls:Updated",
    "bb7.Ready": "bb7.host.protocol.events:Ready",
    "bb7.Notify": "bb7.host.protocol.events:Notify",
    "bb7.StatusItem": "bb7.host.protocol.events:StatusItem",
    "bb7.StatusChanged": "bb7.host.protocol.events:StatusChanged",
    "bb7.RequestStarted": "bb7.host.protocol.events:RequestStarted",
    "bb7.SendDone": "bb7.host.protocol.events:SendDone",
    "bb7.Candidate": "bb7.host.protocol.events:Candidate",
    "bb7.ApplyError": "bb7.host.protocol.events:ApplyError",
    "bb7.DiffError": "bb7.host.protocol.events:DiffError",
    "bb7.Streamed": "bb7.host.protocol.events:Streamed",
    "bb7.event.Chunk": "bb7.host.protocol.events:Chunk",
    "bb7.event.Reasoning": "bb7.host.protocol.events:Reasoning",
    "bb7.event.ToolProgress": "bb7.host.protocol.events:ToolProgress",
    "bb7.event.BlockStatus": "bb7.host.protocol.events:BlockStatus",
    "bb7.event.Notice": "bb7.host.protocol.events:Notice",
    "bb7.event.Retrying": "bb7.host.protocol.events:Retrying",
    "bb7.event.Repairing": "bb7.host.protocol.events:Repairing",
    "bb7.event.TitleChanged": "bb7.host.protocol.events:TitleChanged",
}
LUA_ONLY = {"bb7.Problem": {"reported"}}  # set by Lua once the user was told


def lua_classes() -> dict[str, set[str]]:
    """Each `---@class` of types.lua with the names of its `---@field`s."""
    classes: dict[str, set[str]] = {}
    current: set[str] | None = None
    for line in (ROOT / "lua" / "bb7" / "types.lua").read_text().splitlines():
        if match := re.match(r"---@class (\S+)", line):
            current = classes.setdefault(match[1], set())
        elif (match := re.match(r"---@field (\S+)", line)) and current is not None:
            current.add(match[1].rstrip("?"))
        elif not line.startswith("---"):
            current = None
    return classes


def struct_fields(spec: str) -> set[str]:
    module, name = spec.split(":")
    struct = getattr(importlib.import_module(module), name)
    config = struct.__struct_config__
    if config.array_like:  # encoded as a list: Lua indexes it
        return {f"[{i}]" for i in range(1, len(msgspec.structs.fields(struct)) + 1)}
    names = {f.encode_name for f in msgspec.structs.fields(struct)}
    return names | ({config.tag_field} if config.tag_field else set())


def test_every_payload_class_has_the_fields_of_the_struct_it_mirrors() -> None:
    classes = lua_classes()
    assert set(classes) == set(MIRRORS)
    for lua_name, spec in MIRRORS.items():
        expected = struct_fields(spec) | LUA_ONLY.get(lua_name, set())
        assert classes[lua_name] == expected, f"{lua_name} (mirrors {spec})"
