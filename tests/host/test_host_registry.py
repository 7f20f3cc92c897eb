"""The host's handler table and event batching, without Neovim (the editor side is tested in
tests/nvim/)."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from bb7.host.events import EventSink
from bb7.host.handlers import ROUTES, build_registry
from bb7.host.protocol import PathArgs, PingArgs
from bb7.host.registry import Context, Registry, handle_notification, handle_request
from bb7.refusal import Abort, Problem, unwrap

ROOT = Path(__file__).resolve().parents[2]


class ManualClock:
    """Time and a scheduler that only move when the test says so."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[tuple[float, Callable[[], None]]] = []

    def schedule(self, delay: float, fn: Callable[[], None]) -> None:
        self.timers.append((self.now + delay, fn))

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [t for t in self.timers if t[0] <= self.now]
        self.timers = [t for t in self.timers if t[0] > self.now]
        for _, fn in due:
            fn()


def make_sink(clock: ManualClock) -> tuple[EventSink, list[list[Any]]]:
    batches: list[list[Any]] = []
    sink = EventSink(batches.append, clock.schedule, clock=lambda: clock.now)
    return sink, batches


def test_the_first_event_goes_out_at_once_and_later_ones_are_batched() -> None:
    clock = ManualClock()
    sink, batches = make_sink(clock)
    sink.emit("ready", {"protocol": 1})
    clock.advance(0)
    assert batches == [[["ready", {"protocol": 1}]]]
    for i in range(100):  # 100 events over 0.5 s
        sink.emit("chunk", i)
        clock.advance(0.005)
    clock.advance(1)
    assert [event[1] for batch in batches[1:] for event in batch] == list(range(100))
    assert len(batches) - 1 <= 0.5 * 30 + 1


def test_flushes_are_at_least_a_thirtieth_of_a_second_apart() -> None:
    clock = ManualClock()
    times: list[float] = []
    sink = EventSink(lambda batch: times.append(clock.now), clock.schedule, clock=lambda: clock.now)
    for _ in range(400):
        sink.emit("chunk", "x")
        clock.advance(0.001)
    clock.advance(1)
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) >= 1 / 30 - 1e-9


def test_a_payload_is_captured_when_emitted() -> None:
    clock = ManualClock()
    sink, batches = make_sink(clock)
    payload = {"files": ["a.py"]}
    sink.emit("status_changed", payload)
    payload["files"].append("b.py")
    clock.advance(0)
    assert batches == [[["status_changed", {"files": ["a.py"]}]]]


class HandLoop:
    """A handler context whose loop is run by hand: `drain()` runs what was posted to it."""

    def __init__(self, lua: Callable[..., Any] | None = None) -> None:
        self.clock = ManualClock()
        sink, self.batches = make_sink(self.clock)
        self.posted: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
        self.ctx = Context(sink, lambda fn, *args: self.posted.append((fn, args)), lua)

    def drain(self) -> list[list[Any]]:
        for fn, args in self.posted:
            fn(*args)
        self.posted.clear()
        self.clock.advance(1)
        return self.batches


def echo(ctx: Context, args: PingArgs) -> object:
    return args.payload


def refuse(ctx: Context, args: PathArgs) -> None:
    raise Abort(Problem("no_output", f"{args.path} has no pending change"))


def test_a_request_reply_carries_the_value_or_the_refusal() -> None:
    ctx = HandLoop().ctx
    registry = Registry()
    registry.request("echo", PingArgs, echo)
    registry.request("apply", PathArgs, refuse)
    reply = handle_request(registry, ctx, "echo", [{"payload": [1, "a"]}])
    assert reply["ok"] is True and reply["value"] == [1, "a"]
    reply = handle_request(registry, ctx, "apply", [{"path": "a.py"}])
    assert reply == {
        "ok": False,
        "value": None,
        "error": {"kind": "no_output", "message": "a.py has no pending change"},
    }


def test_unwrap_passes_a_value_and_refuses_a_problem() -> None:
    assert unwrap("a.py") == "a.py"
    with pytest.raises(Abort) as refused:
        unwrap(Problem("readonly", "a.py is read-only in this chat"))
    assert refused.value.problem == Problem("readonly", "a.py is read-only in this chat")


def test_bad_arguments_unknown_methods_and_bugs_become_problems() -> None:
    ctx = HandLoop().ctx
    registry = Registry()

    def broken(ctx: Context, args: PathArgs) -> None:
        raise KeyError(args.path)

    registry.request("broken", PathArgs, broken)
    errors = [
        handle_request(registry, ctx, "broken", [{"path": 3}])["error"],
        handle_request(registry, ctx, "nope", [])["error"],
        handle_request(registry, ctx, "broken", [{"path": "x"}])["error"],
    ]
    assert [e["kind"] for e in errors] == ["invalid_args", "unknown_method", "bug"]
    assert (
        errors[0]["message"]
        == "bad arguments for `broken`: Expected `str`, got `int` - at `$.path`"
    )
    assert errors[1]["message"] == "the host has no request `nope`"
    assert errors[2]["message"] == "`broken` failed: KeyError('x') (details in :BB7Log)"


def test_an_empty_lua_table_decodes_as_no_arguments() -> None:
    ctx = HandLoop().ctx
    reply = handle_request(build_registry(), ctx, "ping", [[]])
    assert reply["ok"] is True and reply["value"]["payload"] is None


def test_a_refused_notification_tells_the_user_through_an_event() -> None:
    loop = HandLoop()
    registry = Registry()
    registry.notification("discard", PathArgs, refuse)
    handle_notification(registry, loop.ctx, "discard", [{"path": "a.py"}])
    assert loop.drain() == [
        [["notify", {"level": "error", "message": "a.py has no pending change"}]]
    ]


def test_a_method_is_registered_once() -> None:
    registry = Registry()
    registry.request("apply", PathArgs, refuse)
    with pytest.raises(ValueError, match="registered twice"):
        registry.request("apply", PathArgs, refuse)


def test_start_hooks_get_the_context_and_close_hooks_run_last_first_despite_errors() -> None:
    ctx = HandLoop().ctx
    registry = Registry()
    calls: list[str] = []
    registry.at_start(lambda c: calls.append("start" if c is ctx else "wrong context"))
    registry.at_close(lambda: calls.append("first added"))

    def failing() -> None:
        calls.append("failing")
        raise OSError("disk gone")

    registry.at_close(failing)
    registry.start(ctx)
    registry.close()
    assert calls == ["start", "failing", "first added"]


def test_lua_calls_are_only_for_the_loop_thread() -> None:
    ctx = HandLoop(lambda code, *args: (code, args)).ctx
    assert ctx.lua("return ...", 1) == ("return ...", (1,))
    errors: list[BaseException] = []

    def from_worker() -> None:
        try:
            ctx.lua("return 1")
        except RuntimeError as err:
            errors.append(err)

    thread = threading.Thread(target=from_worker)
    thread.start()
    thread.join()
    assert "ctx.post" in str(errors[0])


def lua_literals() -> tuple[set[str], set[str]]:
    """The method names of Lua's direct backend calls (`.request('x'`, `.notify('x'`,
    `.request_sync('x'`), and every single-quoted word in Lua (methods passed on by name)."""
    lua = "\n".join(p.read_text() for p in (ROOT / "lua" / "bb7").rglob("*.lua"))
    calls = set(re.findall(r"\.(?:request|notify|request_sync)\(\s*'(\w+)'", lua))
    return calls, set(re.findall(r"'(\w+)'", lua))


def test_the_route_table_is_the_one_registry_of_methods() -> None:
    names = [route.name for route in ROUTES]
    assert len(names) == len(set(names)), "a method has two routes"
    registry = build_registry()
    assert set(registry.requests) == {r.name for r in ROUTES if not r.notification}
    assert set(registry.notifications) == {r.name for r in ROUTES if r.notification}
    calls, words = lua_literals()
    assert len(calls) > 20  # the scan finds Lua's calls
    assert calls - set(names) == set(), "Lua sends a method without a route"
    tests_only = {"echo_events", "active_chat"}  # tests and benchmarks call them
    assert set(names) - words - tests_only == set(), "a route that Lua never names"


def test_events_from_another_thread_reenter_the_loop_first() -> None:
    loop = HandLoop()
    thread = threading.Thread(target=loop.ctx.emit, args=("chunk", {"text": "from a thread"}))
    thread.start()
    thread.join()
    assert len(loop.posted) == 1 and loop.batches == []  # handed over, the sink untouched
    assert loop.drain() == [[["chunk", {"text": "from a thread"}]]]


def test_every_struct_of_the_protocol_round_trips_through_msgpack() -> None:
    value = PingArgs(payload={"a": [1, 2]})
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(value), type=PingArgs) == value
    assert Problem("locked", "m") == msgspec.convert({"kind": "locked", "message": "m"}, Problem)


AGENT_IMPORT = """
import importlib.abc, sys, threading, time
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from host_harness import Host
from bb7.state.store import init_project

seen = []
class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "bb7.host.handlers.agent":
            seen.append(threading.current_thread() is threading.main_thread())
        return None
sys.meta_path.insert(0, Watch())
root = Path(sys.argv[1])
init_project(root).close()
host = Host(root)
host.call("agent_chat", name="opencode")
deadline = time.monotonic() + 60
while "bb7.host.handlers.agent" not in sys.modules and time.monotonic() < deadline:
    time.sleep(0.01)
host.close()
print(seen)
"""


def test_an_agent_chat_opens_without_importing_the_agent_on_the_loop(tmp_path: Path) -> None:
    # The agent client took the loop ~60 ms to import at the first :BB7Agent: it is imported
    # in the background as the chat opens, ready for its first turn.
    (tmp_path / "bin").mkdir()
    agent = tmp_path / "bin" / "opencode"  # a documented agent, found on the PATH
    agent.write_text("#!/bin/sh\n")
    agent.chmod(0o755)
    (tmp_path / "project").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", AGENT_IMPORT, str(tmp_path / "project"), str(ROOT / "tests/host")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[False]"
