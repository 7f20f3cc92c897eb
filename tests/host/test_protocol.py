"""The wire contract: typed payloads made from core records at the edge, and `User` autocmd
data that is what `:help` says."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import msgspec

from bb7.chat import events as ev
from bb7.edits.types import Candidate
from bb7.formats.apply import ApplyError
from bb7.host.protocol import convert
from bb7.host.protocol import events as wire
from bb7.provider.models import ModelInfo, Pricing
from bb7.state.records import Usage

ROOT = Path(__file__).resolve().parents[2]


def _event_payloads() -> list[type[msgspec.Struct]]:
    return [
        v
        for v in vars(wire).values()
        if isinstance(v, type) and issubclass(v, msgspec.Struct) and v.__module__ == wire.__name__
    ]


def test_no_event_payload_has_an_untyped_field() -> None:
    for struct in _event_payloads():
        for name, hint in typing.get_type_hints(struct).items():
            assert "Any" not in str(hint), f"{struct.__name__}.{name}: {hint}"


def test_response_done_carries_exactly_the_fields_the_help_names() -> None:
    help_text = (ROOT / "doc" / "bb7.txt").read_text()
    paragraph = help_text.split("*BB7ResponseDone*")[1].split("*")[0]
    promised = set(re.findall(r"`data\.(\w+)`", paragraph))
    assert {f.name for f in msgspec.structs.fields(wire.SendDone)} == promised


def test_a_send_event_reaches_lua_with_its_tag_and_only_the_wire_fields() -> None:
    best = Candidate(start_line=3, end_line=4, similarity=0.8, text="x = 1")
    error = ApplyError(block=1, edit=2, path="a.py", kind="not_found", message="m", best=best)
    name, payload = convert.streamed("r1", ev.Repairing([error]))
    sent = msgspec.msgpack.decode(msgspec.msgpack.encode(payload))
    assert name == "repairing"
    assert sent == {
        "request_id": "r1",
        "event": {
            "type": "repairing",
            "errors": [
                {
                    "block": 1,
                    "edit": 2,
                    "path": "a.py",
                    "kind": "not_found",
                    "message": "m",
                    "best": {"start_line": 3, "end_line": 4, "similarity": 0.8, "text": "x = 1"},
                    "line": None,
                }
            ],
        },
    }


def test_every_streamed_send_event_has_a_wire_struct_with_the_same_tag() -> None:
    ends = (ev.Started, ev.Done, ev.Failed)
    streamed = [t for t in typing.get_args(ev.SendEvent) if t not in ends]
    for event_type in streamed:
        converted = convert.STREAMED[event_type]
        assert converted.__struct_config__.tag == event_type.__struct_config__.tag


def test_a_failed_send_ends_with_its_kind_and_the_way_on_without_a_key() -> None:
    done = convert.send_done("r1", ev.Failed("c1", "auth", "no API key"), str)
    assert (done.ok, done.kind) == (False, "auth")
    assert done.message.startswith("no API key") and ":BB7Paste" in done.message


def test_a_done_send_brings_its_usage_with_the_cache_and_its_cost() -> None:
    usage = Usage(prompt_tokens=12_500, cached_tokens=11_000, cost=0.0087, saved=0.0294)
    done = convert.send_done("r1", ev.Done("c1", True, 7, "Hi.", usage=usage), str)
    sent = msgspec.msgpack.decode(msgspec.msgpack.encode(done))
    assert sent["usage"] == {
        "prompt_tokens": 12_500,
        "completion_tokens": 0,
        "cached_tokens": 11_000,
        "cache_write_tokens": 0,
        "cost": 0.0087,
        "saved": 0.0294,
        "first_token": 0.0,
        "duration": 0.0,
    }


def test_models_reach_lua_as_wire_models() -> None:
    (model,) = convert.models([ModelInfo("m/1", "M", 8000, pricing=Pricing(prompt=1e-6))])
    assert model == wire.ModelInfo(
        "m/1", "M", 8000, pricing=wire.Pricing(prompt=1e-6), context="8.0k"
    )
