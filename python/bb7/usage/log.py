"""The usage log: one CSV line per request bb7 made, from every chat of every project, so
`bb7 usage` and the chat view can say what today cost.

The file is `stdpath('data')/bb7/usage.csv`: Lua passes Neovim's data directory to the host in
`BB7_DATA_DIR`; the command line finds the same directory by Neovim's own rule
(`$XDG_DATA_HOME/$NVIM_APPNAME`, else `~/.local/share/nvim`). Lines are appended in one write
each, so concurrent editors and terminals never interleave a line; a line that cannot be read
(a crash mid-write, a hand edit) is skipped. Not for a chat's totals: those are its messages'.
"""

from __future__ import annotations

import csv
import io
import logging
import os
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


def append(path: Path, entry: LoggedRequest) -> None:
    """Add `entry` to the log; a log that cannot be written only costs its line (logged)."""
    usage = entry.usage
    row = [
        entry.time.isoformat(timespec="seconds"),
        entry.project,
        entry.chat,
        entry.model,
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
        if _ends_open(path):  # a line cut short (a crash mid-write) stays alone
            out.write("\n")
        elif not path.exists() or path.stat().st_size == 0:
            writer.writerow(FIELDS)
        writer.writerow(row)
        # One write of the whole line, in append mode: lines of concurrent writers never mix.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, out.getvalue().encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("usage log %s not written: %s", path, exc)


def _ends_open(path: Path) -> bool:
    """The log ends without a line break."""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() == 0:
                return False
            f.seek(-1, os.SEEK_END)
            return f.read(1) != b"\n"
    except FileNotFoundError:
        return False


def read(path: Path) -> Iterator[LoggedRequest]:
    """The log's requests, oldest first; none when there is no log yet."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    for row in csv.reader(io.StringIO(text)):
        entry = _entry(row)
        if entry is not None:
            yield entry


def _entry(row: list[str]) -> LoggedRequest | None:
    if len(row) != len(FIELDS) or row[0] == FIELDS[0]:
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
    rows = [e for e in read(path) if e.time.astimezone().date() == wanted]
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
    )
