"""The chat view talking to a real OpenAI-compatible server on 127.0.0.1, read from the
screen: the answer streams in, reasoning folds, an edit shows `M` and `p` applies it, `x`
discards, a failed edit leaves a retry banner that the next send repairs, a cancelled answer
shows as aborted, provider errors read as messages, and the model picker."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_state import Seeded
from chat_view_helpers import (
    answered,
    conversation,
    files_panel,
    focus,
    open_chat_list,
    open_view,
    send,
    wait_for_conversation,
    wait_for_screen,
    with_ui,
)
from editor import NEWEST_ONLY, notifications, press, type_command, wait_for, wait_for_status

from bb7.files.fileid import entry_file_id
from llm_server import (
    LLMServer,
    edits,
    error_response,
    finish,
    reasoning_chunk,
    stream,
    text_chunk,
    tool_call,
    usage_chunk,
)

A_TEXT = "one = 1\ntwo = 2\nthree = 3\n"
QUEUED = "vim.wo[require('bb7.chat.view').win('input')].winbar:find('queued', 1, true)"
A_ID = entry_file_id("a.py", A_TEXT)


@pytest.fixture
def view(launch: Callable[..., Any], project: Path, server: LLMServer) -> Any:
    """The chat view open on a chat with a.py, talking to the local server."""
    seeded = Seeded(project)
    seeded.add(seeded.chat("Work"), "a.py")
    seeded.store.close()
    nvim = with_ui(
        launch(),
        "{ provider = { base_url = ..., model = 'test/tools-model' } }",
        server.base_url,
    )
    open_view(nvim, "Context added: a.py")
    return nvim


def edit_a(old: str, new: str) -> dict[str, Any]:
    return edits(("a.py", A_ID, old, new))


def test_the_answer_streams_in_and_its_reasoning_ends_folded(view: Any, server: LLMServer) -> None:
    server.push(
        stream(
            reasoning_chunk("weigh the options"),
            text_chunk("First half, "),
            {"gate": "second"},
            text_chunk("second half."),
            finish(),
        )
    )
    send(view, "Tell me")
    rows = wait_for_screen(view, "First half,")
    assert any("● streaming" in row for row in rows)
    assert not any("second half." in row for row in rows)
    assert any(row.startswith("## You") for row in rows)
    assert any(row.startswith("## Assistant · test/tools-model") for row in rows)
    server.open_gate("second")
    answered(view, "second half.")
    rows = wait_for_screen(view, "First half, second half.")
    assert any(row.startswith("▸ Reasoning (1 line)") for row in rows)
    assert not any("weigh the options" in row for row in rows)
    assert not any("● streaming" in row for row in rows)
    assert view.current.buffer[:] == [""]  # the input is empty for the next message


def test_an_edit_shows_M_in_the_files_panel_and_p_applies_it(
    view: Any, server: LLMServer, project: Path
) -> None:
    server.push(stream(text_chunk("Done."), *tool_call("edit_file", edit_a("two = 2", "two = 22"))))
    send(view, "Make two 22")
    answered(view, "Assistant modified: a.py")
    assert files_panel(view) == ["M  a.py"]
    wait_for_status(view, project / "a.py", "M")  # the view's redraw brought the statuses
    focus(view, "files", 1)
    view.input("p")
    wait_for_conversation(view, "Applied: a.py")
    assert files_panel(view) == ["   a.py"]
    assert (project / "a.py").read_text() == A_TEXT.replace("two = 2", "two = 22")
    rows = wait_for_screen(view, "Applied: a.py")
    assert any(row.startswith("   a.py") for row in (r.split("│")[-1] for r in rows))


@NEWEST_ONLY
def test_x_discards_the_pending_change_after_a_confirm(
    view: Any, server: LLMServer, project: Path
) -> None:
    server.push(stream(*tool_call("edit_file", edit_a("one = 1", "one = 11"))))
    send(view, "Make one 11")
    answered(view, "Assistant modified: a.py")
    focus(view, "files", 1)
    view.input("x")
    view.input("2<CR>")  # No: not yet
    assert files_panel(view) == ["M  a.py"]
    view.input("x")
    view.input("1<CR>")  # Yes
    wait_for_conversation(view, "Discarded: a.py")
    assert files_panel(view) == ["   a.py"]
    assert (project / "a.py").read_text() == A_TEXT


def test_a_failed_edit_leaves_a_retry_banner_and_the_next_send_repairs_it(
    view: Any, server: LLMServer
) -> None:
    server.push(stream(text_chunk("Here."), *tool_call("edit_file", edit_a("two = 3", "x"))))
    send(view, "Make two 22")
    answered(view, "failed to apply")
    # Why, under the answer: the file, the edit and what went wrong, worded for a person.
    rows = wait_for_screen(view, "• a.py, edit 1: not found: the text to replace")
    # (wrapped under the note's text, after its mark: not at the left edge)
    assert any(row.startswith("  (1 problem); no file was changed.") for row in rows), rows
    rows = wait_for_screen(view, "⚠ The last answer's file changes failed to apply.")
    assert any("Your next message asks the model to repair them." in row for row in rows)
    assert any("⚠ next send repairs edits · gR drop" in row for row in rows)
    assert files_panel(view) == ["   a.py"]
    # Shown in the view, so no message besides (it would wait for Enter at 80 columns).
    assert not any("could not be applied" in n for n in notifications(view))
    server.push(
        stream(text_chunk("Fixed."), *tool_call("edit_file", edit_a("two = 2", "two = 22")))
    )
    view.input("i<C-s>")  # an empty send (the insert-mode key) offers the repair request
    wait_for(view, "vim.api.nvim_get_current_line():find('could not be applied; please fix')")
    view.input("<C-s>")
    answered(view, "Fixed.")
    assert "two = 3" in server.chat_requests()[-1]["body"]  # the errors went along
    rows = wait_for_screen(view, "Assistant modified: a.py")
    assert not any("failed to apply" in row for row in rows)
    assert not any("next send repairs" in row for row in rows)
    assert files_panel(view) == ["M  a.py"]


@NEWEST_ONLY
def test_many_failed_edits_fold_under_their_first_line(view: Any, server: LLMServer) -> None:
    bad = edits(*[("a.py", A_ID, f"no such line {i}", "x") for i in range(6)])
    server.push(stream(text_chunk("Here."), *tool_call("edit_file", bad), finish()))
    send(view, "Change a lot")
    answered(view, "failed to apply")
    rows = wait_for_screen(view, "more lines (za shows them)")  # each edit, its closest lines
    assert any("(6 problems); no file was changed." in row for row in rows), "\n".join(rows)
    assert not any("• a.py, edit" in row for row in rows)
    line = next(i for i, text in enumerate(conversation(view), 1) if text.startswith("• a.py"))
    focus(view, "conversation", line)
    view.input("za")
    wait_for_screen(view, "• a.py, edit 1: not found: the text to replace")


def test_a_cancelled_answer_shows_as_aborted(view: Any, server: LLMServer) -> None:
    server.push(stream(text_chunk("Let me think about"), {"stall": 30}))
    send(view, "Take your time")
    wait_for_screen(view, "Let me think about")
    view.input("iand another thing<Esc><CR>")  # queued behind the answer
    wait_for(view, f"{QUEUED} ~= nil")
    assert view.current.buffer[:] == [""]
    press(view, "<C-c>")  # in the input, it takes the queued text back first
    wait_for(view, f"{QUEUED} == nil")
    assert view.current.buffer[:] == ["and another thing"]
    view.input("<CR>")
    wait_for(view, f"{QUEUED} ~= nil")
    focus(view, "conversation")
    press(view, "<C-c>")
    answered(view, "cancelled")
    rows = wait_for_screen(view, "⚠ Response cancelled by the user")
    assert any(row.startswith("Let me think about") for row in rows)  # the partial answer kept
    assert server.wait_for_disconnect(5) is not None
    # A failed answer keeps the queue and says so; an empty send sends it.
    wait_for(view, "_G.notifications[#_G.notifications].msg:find('queued message waits')")
    assert view.exec_lua(f"return {QUEUED} ~= nil")
    server.push(stream(text_chunk("Now, another thing."), finish()))
    focus(view, "input")
    view.input("<CR>")
    answered(view, "Now, another thing.")
    assert "and another thing" in str(server.chat_requests()[-1]["json"]["messages"])


@pytest.mark.parametrize(
    ("responses", "shown"),
    [
        (
            [error_response(401, "invalid key")],
            "The provider refused the request (HTTP 401: invalid key). No API key was sent: "
            "set provider.api_key to",  # the setup option, not the CLI's flag
        ),
        (
            [error_response(429, "slow down", headers={"Retry-After": "0"})] * 2,
            "The provider is rate limiting (HTTP 429: slow down).",
        ),
    ],
    ids=["401", "429-after-retries"],
)
@NEWEST_ONLY
def test_provider_errors_read_as_messages_in_the_conversation(
    view: Any, server: LLMServer, responses: list[dict[str, Any]], shown: str
) -> None:
    server.push(*responses)
    send(view, "Hello?")
    answered(view, "The request failed")
    (line,) = [line for line in conversation(view) if line.startswith("⚠ The request failed")]
    assert shown in line
    if len(responses) > 1:
        # A server on this machine (the test's) is asked once more, not three times.
        assert "gave up after 2 attempts" in line
        assert len(server.chat_requests()) == 2
    wait_for_screen(view, "⚠ The request failed: " + shown[:30])


@NEWEST_ONLY
def test_the_model_picker_puts_favourites_first(view: Any, server: LLMServer) -> None:
    view.exec_lua(
        "require('bb7').setup({ favorite_models = { 'test/plain-model' },"
        " provider = { base_url = ..., model = 'test/tools-model' } })",
        server.base_url,
    )
    view.exec_lua(
        "vim.ui.select = function(items, opts, on_choice)"
        "  _G.picked = vim.tbl_map(opts.format_item, items)"
        "  on_choice(items[1])"
        " end"
    )
    focus(view, "conversation")
    view.input("gm")
    wait_for(view, "_G.picked ~= nil")
    picked = view.exec_lua("return _G.picked")
    assert picked[0].startswith("★ test/plain-model  (no tools: text edit blocks")
    assert picked[1].startswith("test/tools-model  (128k context")
    local = {
        "id": "qwen",
        "supports_tools": False,
        "capabilities_source": "Ollama /api/show",
        "pricing": {},
        "edits": "edits 3/4 at the first try, 1 repaired, 0 never",
    }
    assert view.exec_lua("return require('bb7.chat.models').describe(..., {})", local) == (
        "qwen  (no tools per Ollama /api/show: text edit blocks, edits 3/4 at the first try, "
        "1 repaired, 0 never)"
    )
    wait_for_screen(view, "· test/plain-model")  # the conversation's bar shows the new model


@NEWEST_ONLY
def test_each_answer_says_what_it_cost_and_the_bar_sums_the_chat(
    view: Any, server: LLMServer
) -> None:
    server.push(stream(text_chunk("Hi."), finish(), usage_chunk(1234, 56, cost=0.0031)))
    send(view, "Hello")
    answered(view, "↳ 1.2k in · 56 out · $0.0031")
    rows = wait_for_screen(view, "↳ 1.2k in · 56 out · $0.0031")
    # Too wide for the pane, the line breaks between its parts (never inside a number).
    timing = r"(↳ 1\.2k in · 56 out · \$0\.0031 · |^  )\d+\.\d s \(first token \d+\.\d s\) "
    assert any(re.search(timing, row) for row in rows), "\n".join(rows)
    assert any("· test/tools-model · 1.3k tokens · $0.0031" in row for row in rows)
    server.push(stream(text_chunk("Again."), finish(), usage_chunk(2000, 100, cost=0.01)))
    send(view, "Once more")
    answered(view, "↳ 2.0k in · 100 out · $0.01")
    wait_for_screen(view, "· 3.4k tokens · $0.013")


def streamed_seconds(rows: list[str]) -> int:
    """The seconds the conversation's bar says the answer has been streaming."""
    found = [m for m in (re.search(r"● streaming (\d+)s · ~\d+ tok", r) for r in rows) if m]
    assert found, "\n".join(rows)
    return int(found[0].group(1))


@NEWEST_ONLY
def test_while_streaming_the_bar_counts_seconds_and_tokens(view: Any, server: LLMServer) -> None:
    # The provider goes quiet after the text (until the test opens the gate): the bar ticks
    # on without it, from whatever second it showed first.
    server.push(stream(text_chunk("x" * 400), {"gate": "more"}, text_chunk("end."), finish()))
    send(view, "Count")
    first = streamed_seconds(wait_for_screen(view, "~100 tok"))
    wait_for_screen(view, f"● streaming {first + 1}s · ~100 tok")
    server.open_gate("more")
    answered(view, "end.")


@NEWEST_ONLY
def test_the_retry_wait_shows_while_the_provider_backs_off(view: Any, server: LLMServer) -> None:
    server.push(
        error_response(429, "slow down", headers={"Retry-After": "1"}),
        stream(text_chunk("Finally."), finish()),
    )
    send(view, "Hello?")
    rows = wait_for_screen(view, "⟳ retry in")
    assert any(re.search(r"⟳ retry in 1s", row) for row in rows), "\n".join(rows)
    # The conversation's status line leads with the action, then why (not "why.; retrying").
    assert any(row.startswith("⟳ retrying in 1.0 s: The provider") for row in rows), rows
    answered(view, "Finally.")


@NEWEST_ONLY
def test_resend_sends_the_last_message_again_after_an_error(view: Any, server: LLMServer) -> None:
    # A server on this machine (the test's) gets one retry: two attempts, two errors.
    server.push(error_response(500, "boom"), error_response(500, "boom"))
    send(view, "Are you there?")
    answered(view, "The request failed")
    wait_for_screen(view, " Message · gr resends · ")  # the input's bar names the key
    server.push(stream(text_chunk("Yes, now."), finish()))
    focus(view, "conversation")
    view.input("gr")
    answered(view, "Yes, now.")
    assert not any("gr resends" in row for row in wait_for_screen(view, "Yes, now."))
    lines = conversation(view)
    assert lines.count("Are you there?") == 1  # sent again, not twice in the chat
    assert not any("The request failed" in line for line in lines)
    assert server.chat_requests()[-1]["body"].count("Are you there?") == 1
    assert view.exec_lua("return require('bb7.chat').buf('input')") is not None
    assert view.exec_lua(
        "return vim.api.nvim_buf_get_lines(require('bb7.chat').buf('input'), 0, -1, false)"
    ) == [""]


@NEWEST_ONLY
def test_resend_after_a_cancel_replaces_the_partial_answer(view: Any, server: LLMServer) -> None:
    server.push(stream(text_chunk("Half an ans"), {"stall": 30}))
    send(view, "Tell me all")
    wait_for_screen(view, "Half an ans")
    # The command, not <C-c>: a <C-c> that reaches a busy Neovim (a loaded machine) is taken as
    # an interrupt, not as the key (the key is tested above).
    type_command(view, "BB7Cancel")
    answered(view, "cancelled")
    wait_for_screen(view, " Message · gr resends · ")
    server.push(stream(text_chunk("The whole answer."), finish()))
    focus(view, "conversation")
    view.input("gr")
    answered(view, "The whole answer.")
    rows = wait_for_screen(view, "The whole answer.")
    assert not any("Half an ans" in row or "cancelled" in row for row in rows)
    assert conversation(view).count("Tell me all") == 1


@NEWEST_ONLY
def test_a_new_chat_is_named_after_its_first_exchange(
    launch: Callable[..., Any], project: Path, server: LLMServer
) -> None:
    seeded = Seeded(project)
    seeded.chat("")  # the default name, as a new chat has
    seeded.store.close()
    nvim = with_ui(
        launch(),
        "{ provider = { base_url = ..., model = 'test/tools-model' } }",
        server.base_url,
    )
    open_view(nvim, "")
    server.push(
        stream(text_chunk("Hello there."), finish()),
        stream(text_chunk("Greeting the model"), finish()),  # the title request
    )
    send(nvim, "Say hello")
    answered(nvim, "Hello there.")
    rows = wait_for_screen(nvim, " Greeting the model · test/tools-model")
    assert rows
    title_request = server.chat_requests()[-1]["body"]
    assert "Say hello" in title_request and '"max_tokens":30' in title_request


def new_chat_view(launch: Callable[..., Any], project: Path, server: LLMServer, titles: str) -> Any:
    """The view on a new chat (its default name) with the `titles` options given."""
    seeded = Seeded(project)
    seeded.chat("")
    seeded.store.close()
    nvim = with_ui(
        launch(),
        "{ provider = { base_url = ..., model = 'test/tools-model' }, titles = " + titles + " }",
        server.base_url,
    )
    open_view(nvim, "")
    wait_for(nvim, "require('bb7.chat.view').state.chat ~= nil")
    return nvim


@NEWEST_ONLY
def test_the_titles_model_option_names_the_chat(
    launch: Callable[..., Any], project: Path, server: LLMServer
) -> None:
    nvim = new_chat_view(launch, project, server, "{ model = 'test/plain-model' }")
    server.push(
        stream(text_chunk("Hello there."), finish()),
        stream(text_chunk("Cheap title"), finish()),
    )
    send(nvim, "Say hello")
    answered(nvim, "Hello there.")
    wait_for_screen(nvim, " Cheap title · test/tools-model")  # the chat keeps its model
    assert '"model":"test/plain-model"' in server.chat_requests()[-1]["body"]


@NEWEST_ONLY
def test_with_titles_off_the_chat_keeps_its_name(
    launch: Callable[..., Any], project: Path, server: LLMServer
) -> None:
    nvim = new_chat_view(launch, project, server, "{ enabled = false }")
    name = nvim.exec_lua("return require('bb7.chat.view').state.chat.name")
    server.push(stream(text_chunk("Hello there."), finish()))
    send(nvim, "Say hello")
    answered(nvim, "Hello there.")
    # A title request would have come before the next answer's (and taken its response).
    server.push(stream(text_chunk("Again."), finish()))
    send(nvim, "Once more")
    answered(nvim, "Again.")
    assert len(server.chat_requests()) == 2
    wait_for_screen(nvim, f" {name} · test/tools-model")


@NEWEST_ONLY
def test_dismissing_the_retry_banner_drops_the_errors(
    view: Any, server: LLMServer, project: Path
) -> None:
    server.push(stream(text_chunk("Here."), *tool_call("edit_file", edit_a("two = 3", "x"))))
    send(view, "Make two 22")
    answered(view, "failed to apply")
    focus(view, "conversation")
    view.input("gR")
    wait_for(view, "not require('bb7.chat.view').state.retry")
    rows = wait_for_screen(view, "<CR> send · ? help")  # the input bar without the banner
    assert not any("failed to apply" in row for row in rows)
    server.push(stream(text_chunk("Fresh."), finish()))
    send(view, "Something else")
    answered(view, "Fresh.")
    assert "two = 3" not in server.chat_requests()[-1]["body"]  # the errors stayed behind


@NEWEST_ONLY
def test_r_in_the_chat_list_names_the_chat_again(view: Any, server: LLMServer) -> None:
    server.push(stream(text_chunk("Hi."), finish()))
    send(view, "Hello there")  # "Work" is the user's name: no title after this exchange
    answered(view, "Hi.")
    open_chat_list(view)
    server.push(stream(text_chunk("Second title"), finish()))
    view.input("R")
    wait_for_screen(view, "Second title")  # in the list, from the host's answer
    # The line comes with its own event, which may follow the list's redraw.
    wait_for(
        view,
        "vim.tbl_contains(vim.tbl_map(function(n) return n.msg end, _G.notifications),"
        " 'bb7: chat title: Second title')",
    )
    assert "bb7: chat title: Second title" in notifications(view)
    assert "Hello there" in server.chat_requests()[-1]["json"]["messages"][1]["content"]
