"""The usage log (one CSV line per request, every chat and project) and `bb7 usage`, which
reads today's spend from it and the OpenRouter key's credit from the scripted server."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from bb7.state.records import Usage
from bb7.usage.credit import Credit
from bb7.usage.log import (
    DaySpend,
    LoggedRequest,
    append,
    data_dir,
    day_spend,
    read,
    usage_log_path,
)
from bb7.usage.report import summary_line
from cli_runner import run_cli
from llm_server import LLMServer

NOW = datetime(2026, 3, 9, 15, 30, tzinfo=timezone.utc)


def request(
    when: datetime, chat: str, cost: float, *, project: str = "/p", saved: float = 0.0
) -> LoggedRequest:
    usage = Usage(
        prompt_tokens=1000, completion_tokens=50, cached_tokens=800, cost=cost, saved=saved
    )
    return LoggedRequest(time=when, project=project, chat=chat, model="m", usage=usage)


def test_the_log_is_under_neovims_data_dir_as_lua_names_it_or_by_neovims_rule() -> None:
    assert data_dir({"BB7_DATA_DIR": "/d/nvim"}) == Path("/d/nvim")
    assert data_dir({"XDG_DATA_HOME": "/x", "NVIM_APPNAME": "lazy"}) == Path("/x/lazy")
    assert usage_log_path({"XDG_DATA_HOME": "/x"}) == Path("/x/nvim/bb7/usage.csv")


def test_today_sums_every_chat_and_project_and_leaves_other_days_out(tmp_path: Path) -> None:
    path = tmp_path / "bb7" / "usage.csv"
    append(path, request(NOW, "c1", 0.01, saved=0.02))
    append(path, request(NOW, "c2", 0.03, project="/q"))
    append(path, request(NOW - timedelta(days=1), "c1", 5.0))
    spend = day_spend(path, now=lambda: NOW)
    assert spend.day == NOW.astimezone().date()
    assert (spend.requests, spend.chats, spend.projects) == (2, 2, 2)
    assert spend.cost == pytest.approx(0.04)
    assert spend.saved == pytest.approx(0.02)
    assert spend.cached_tokens == 1600
    assert path.read_text().splitlines()[0].startswith("time,project,chat,model,")


def test_a_torn_line_is_skipped_and_the_rest_still_counts(tmp_path: Path) -> None:
    path = tmp_path / "usage.csv"
    append(path, request(NOW, "c1", 0.01))
    with path.open("a") as f:
        f.write("2026-03-09T16:00:00+00:00,/p,c9,m,12")  # a crash mid-line
    append(path, request(NOW, "c2", 0.02))
    assert [e.chat for e in read(path)] == ["c1", "c2"]


def test_no_log_yet_is_a_day_without_spend(tmp_path: Path) -> None:
    assert day_spend(tmp_path / "none.csv", date(2026, 1, 1)).requests == 0


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no project here: no active chat to report
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("BB7_DATA_DIR", raising=False)
    monkeypatch.delenv("NVIM_APPNAME", raising=False)
    monkeypatch.setenv("TEST_OR_KEY", "sk-or-test-secret")
    return tmp_path


@pytest.fixture
def openrouter() -> Iterator[LLMServer]:
    key = {"limit": 20, "limit_remaining": 12.5, "limit_reset": "monthly", "usage_daily": 0.75}
    with LLMServer(native={"GET /v1/key": {"data": key}}) as server:
        yield server


def test_bb7_usage_prints_todays_spend_and_the_keys_credit(
    home: Path, openrouter: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    now = datetime.now().astimezone()
    log = home / "data" / "nvim" / "bb7" / "usage.csv"
    append(log, request(now, "c1", 0.25, saved=0.5))
    append(log, request(now, "c2", 0.5, project="/q"))
    done = run_cli(
        capsys, "usage", "--provider", "openrouter", "--base-url", openrouter.base_url,
        "--api-key", "TEST_OR_KEY",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "today: $0.75 in 2 requests (2 chats, 2 projects), 2.0k tokens in, 1.6k cached; "
        "the cache saved $0.50",
        "OpenRouter credit: $12.50 left of the key's $20.00 limit, resets monthly; "
        "$0.75 used today (UTC)",
    ]
    (asked,) = openrouter.requests
    assert (asked["method"], asked["path"]) == ("GET", "/v1/key")
    assert asked["headers"]["authorization"] == "Bearer sk-or-test-secret"


def test_bb7_usage_says_why_the_credit_is_unknown_in_one_line(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with LLMServer() as server:  # a key that may not read /key: 404 here
        done = run_cli(
            capsys, "usage", "--provider", "openrouter", "--base-url", server.base_url,
            "--api-key", "TEST_OR_KEY",
        )  # fmt: skip
    assert done.returncode == 0
    today, credit = done.stdout.splitlines()
    assert today == "today: $0 (no requests yet)"
    assert credit.startswith("OpenRouter credit: unknown (Not found (HTTP 404")
    assert "sk-or-test-secret" not in done.stdout


def test_bb7_usage_asks_no_provider_but_openrouter(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = run_cli(capsys, "usage", "--provider", "ollama")
    assert done.stdout.splitlines() == ["today: $0 (no requests yet)"]


def test_the_editors_summary_fits_one_short_line() -> None:
    spend = DaySpend(day=date(2026, 3, 9), requests=12, cost=0.75, saved=1.1)
    credit = Credit(limit=20, limit_remaining=12.5)
    line = summary_line(spend, credit, 0.031)
    assert line == "today $0.75 (12 req, saved $1.10) · chat $0.031 · $12.50 left"
    assert summary_line(spend, Credit(), None).endswith(" · key without limit")
