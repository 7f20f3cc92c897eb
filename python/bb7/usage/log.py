"""The usage log: one CSV line per request bb7 made, from every chat of every project, so
`bb7 usage` and the chat view can say what today cost.

The file is `stdpath('data')/bb7/usage.csv`: Lua passes Neovim's data directory to the host in
`BB7_DATA_DIR`; the command line finds the same directory by Neovim's own rule
(`$XDG_DATA_HOME/$NVIM_APPNAME`, else `~/.local/share/nvim`). Lines are appended in one write
each, so concurrent editors and terminals never interleave a line; a line that cannot be read
(a crash mid-write, a hand edit) is skipped and counted. What a provider says (its `model`)
is not trusted: a cell is cut to `MAX_CELL` characters, loses its control characters, and one
a spreadsheet would take for a formula (`=`, `+`, `-`, `@`) is quoted with `'`. A log that is
not a regular file (a directory, a FIFO, a link to a device) is neither read nor written,
said in one line. Not for a chat's totals: those are its messages'.
"""

from __future__ import annotations

import csv
import io
import logging
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping
from datetime import date, datetime
from pathlib import Path

import msgspec

from bb7.state.records import Usage

log = logging.getLogger(__name__)

FIELDS = (
    "time",
    "project",
    "chat",
    "model",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "cache_write_tokens",
    "cost",
    "saved",
)
# Longest text cell written (a model id is far shorter) and longest line read: anything
# longer was not written by bb7 and is skipped as damaged.
MAX_CELL = 200
MAX_LINE = 4096
# The part of a log read: its end (a log over this has years of requests; today's are last).
MAX_READ = 16 * 1024 * 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_FORMULA = ("=", "+", "-", "@")


class LoggedRequest(msgspec.Struct, frozen=True, kw_only=True):
    """One request as the log keeps it; `time` is local, with its UTC offset."""

    time: datetime
    project: str  # the project root, '' for a global chat
    chat: str
    model: str
    usage: Usage


class DaySpend(msgspec.Struct, frozen=True, kw_only=True):
    """What one day's requests cost, over every chat and project."""

    day: date
    requests: int = 0
    chats: int = 0
    projects: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost: float = 0.0
    saved: float = 0.0
    skipped: int = 0  # damaged lines of the log, left out
    problem: str = ""  # why the log could not be read at all, in one line


class LogRead(msgspec.Struct, frozen=True):
    """The log's requests, oldest first, the damaged lines skipped and why the log could not
    be read at all ('' when it could, or there is none yet)."""

    entries: list[LoggedRequest]
    skipped: int = 0
    problem: str = ""


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Neovim's `stdpath('data')`: as Lua passed it, else by Neovim's rule."""
    env = os.environ if environ is None else environ
    given = env.get("BB7_DATA_DIR")
    if given:
        return Path(given)
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / (env.get("NVIM_APPNAME") or "nvim")


def usage_log_path(environ: Mapping[str, str] | None = None) -> Path:
    return data_dir(environ) / "bb7" / "usage.csv"


def cell(text: str) -> str:
    """`text` as the log keeps it: control characters dropped, cut to `MAX_CELL` characters,
    and quoted (`'`) where a spreadsheet would read a formula."""
    text = _CONTROL.sub("", text)[:MAX_CELL]
    return "'" + text if text.startswith(_FORMULA) else text


def append(path: Path, entry: LoggedRequest) -> None:
    """Add `entry` to the log; a log that cannot be written only costs its line (logged)."""
    usage = entry.usage
    row = [
        entry.time.isoformat(timespec="seconds"),
        cell(entry.project),
        cell(entry.chat),
        cell(entry.model),
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.cached_tokens,
        usage.cache_write_tokens,
        f"{usage.cost:.6g}",
        f"{usage.saved:.6g}",
    ]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = _open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    except OSError as exc:
        log.warning("usage log %s not written: %s", path, exc.strerror or exc)
        return
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            out.write("\n")  # a line cut short (a crash mid-write) stays alone
        elif not size:
            writer.writerow(FIELDS)
        writer.writerow(row)
        # One write of the whole line, in append mode: lines of concurrent writers never mix.
        os.write(fd, out.getvalue().encode("utf-8"))
    except OSError as exc:
        log.warning("usage log %s not written: %s", path, exc.strerror or exc)
    finally:
        os.close(fd)


def _open(path: Path, flags: int) -> int:
    """An fd of the log, which must be a regular file: O_NONBLOCK, so a FIFO never hangs the
    open, then the type of what was opened is checked (OSError, with one line, if not)."""
    fd = os.open(path, flags | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o644)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        from bb7.files.fsio import kind_of  # only a broken log gets here

        raise OSError(f"{path} is {kind_of(mode)}, not a regular file; move it away")
    return fd


def read(path: Path) -> Iterator[LoggedRequest]:
    """The log's requests, oldest first; none when there is no log yet."""
    yield from read_log(path).entries


def read_log(path: Path) -> LogRead:
    """The log's requests, with the count of damaged lines and why it cannot be read."""
    try:
        fd = _open(path, os.O_RDONLY)
    except FileNotFoundError:
        return LogRead([])
    except OSError as exc:
        return LogRead([], problem=f"usage log not read: {exc.strerror or exc}")
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - MAX_READ)
        data = os.pread(fd, MAX_READ, start)
    except OSError as exc:
        return LogRead([], problem=f"usage log {path} not read: {exc.strerror or exc}")
    finally:
        os.close(fd)
    lines = data.decode("utf-8", errors="replace").split("\n")
    if start:
        lines = lines[1:]  # begun mid-line
    entries: list[LoggedRequest] = []
    skipped = 0
    for line in lines:
        if not line or line.startswith(FIELDS[0] + ","):
            continue
        entry = _entry(line)
        if entry is None:
            skipped += 1
        else:
            entries.append(entry)
    return LogRead(entries, skipped)


def _entry(line: str) -> LoggedRequest | None:
    if len(line) > MAX_LINE:
        return None
    try:
        row = next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return None
    if len(row) != len(FIELDS):
        return None
    try:
        return LoggedRequest(
            time=datetime.fromisoformat(row[0]),
            project=row[1],
            chat=row[2],
            model=row[3],
            usage=Usage(
                prompt_tokens=int(row[4]),
                completion_tokens=int(row[5]),
                cached_tokens=int(row[6]),
                cache_write_tokens=int(row[7]),
                cost=float(row[8]),
                saved=float(row[9]),
            ),
        )
    except ValueError:
        return None


def day_spend(
    path: Path, day: date | None = None, *, now: Callable[[], datetime] = datetime.now
) -> DaySpend:
    """What `day` (today, in local time) cost over every chat and project."""
    wanted = day or now().astimezone().date()
    found = read_log(path)
    rows = [e for e in found.entries if _day(e) == wanted]
    return DaySpend(
        day=wanted,
        requests=len(rows),
        chats=len({(e.project, e.chat) for e in rows}),
        projects=len({e.project for e in rows if e.project}),
        prompt_tokens=sum(e.usage.prompt_tokens for e in rows),
        completion_tokens=sum(e.usage.completion_tokens for e in rows),
        cached_tokens=sum(e.usage.cached_tokens for e in rows),
        cost=sum(e.usage.cost for e in rows),
        saved=sum(e.usage.saved for e in rows),
        skipped=found.skipped,
        problem=found.problem,
    )


def _day(entry: LoggedRequest) -> date | None:
    try:
        return entry.time.astimezone().date()
    except (ValueError, OverflowError):  # a time far out of range, from a hand edit
        return None
