"""What the chat view shows, computed without Neovim: the conversation's lines, highlights,
reasoning folds and anchors, and the files panel's tree rows."""

from __future__ import annotations

from bb7.chatview.conversation import (
    RETRY_BANNER,
    Anchor,
    event_line,
    format_cost,
    render,
    usage_line,
    usage_lines,
)
from bb7.chatview.files import panel
from bb7.state.records import (
    Event,
    EventPart,
    Message,
    ReasoningPart,
    SummaryPart,
    TextPart,
    Usage,
)
from bb7.state.status import StatusRow


def user(text: str, id: int = 1) -> Message:
    return Message(role="user", parts=[TextPart(text)], id=id)


def test_a_conversation_is_markdown_with_a_heading_per_message() -> None:
    shown = render(
        [
            user("Rename parse\nplease", 1),
            Message(role="assistant", model="m/x", parts=[TextPart("Done.\n")], id=2),
        ]
    )
    assert shown.lines == [
        "## You",
        "",
        "Rename parse",
        "please",
        "",
        "## Assistant · m/x",
        "",
        "Done.",
    ]
    assert shown.highlights == [(0, "BB7ChatUser"), (5, "BB7ChatAssistant")]
    assert shown.anchors == [Anchor(1, 1, "user"), Anchor(6, 2, "assistant")]
    assert shown.folds == []


def test_a_summary_is_drawn_where_the_messages_it_stands_in_for_are() -> None:
    summary = SummaryPart(text="Files: a.py. Rejected: regexes.", covers=[1, 2])
    messages = [
        Message(role="user", parts=[TextPart("q0")], id=1, excluded=True),
        Message(role="assistant", parts=[TextPart("a0")], id=2, excluded=True),
        user("q1", 3),
        Message(role="assistant", parts=[TextPart("a1")], id=4),
        Message(role="summary", parts=[summary], id=5),
    ]
    lines = render(messages).lines
    heading = lines.index("## Summary of 2 messages (gX brings them back)")
    assert heading == 0 and lines[2] == "Files: a.py. Rejected: regexes."
    assert lines.index("q0") < lines.index("q1") and lines[-1] == "a1"
    # Its messages gone (an edit dropped them): it stays at its own place.
    alone = render([user("q1", 3), messages[4]]).lines
    assert alone[0] == "## You" and alone[-1] == "Files: a.py. Rejected: regexes."


def test_reasoning_is_a_quoted_block_with_a_fold_over_it() -> None:
    shown = render(
        [Message(role="assistant", parts=[ReasoningPart("a\nb"), TextPart("answer")], id=3)]
    )
    assert shown.lines == ["## Assistant", "", "> **Reasoning**", "> a", "> b", "", "answer"]
    assert shown.folds == [(3, 5)]
    assert [h for h in shown.highlights if h[1] == "BB7ChatReasoning"] == [
        (2, "BB7ChatReasoning"),
        (3, "BB7ChatReasoning"),
        (4, "BB7ChatReasoning"),
    ]


def test_file_events_are_one_line_each() -> None:
    wrote = Event(action="assistant_wrote", path="src/x.py")
    created = Event(action="assistant_wrote", path="new.py", added=True)
    shown = render(
        [
            Message(role="assistant", parts=[TextPart("ok"), EventPart(wrote), EventPart(created)]),
            Message(role="event", parts=[EventPart(Event(action="user_applied", path="src/x.py"))]),
        ]
    )
    assert shown.lines == [
        "## Assistant",
        "",
        "ok",
        "",
        "Assistant modified: src/x.py",
        "Assistant added: new.py",
        "",
        "Applied: src/x.py",
    ]
    assert [h for h in shown.highlights if h[1] == "BB7ChatEvent"] == [
        (4, "BB7ChatEvent"),
        (5, "BB7ChatEvent"),
        (7, "BB7ChatEvent"),
    ]


def test_event_lines_name_sections_and_read_only_adds() -> None:
    section = Event(action="user_added", path="a.py", start_line=3, end_line=9, readonly=True)
    assert event_line(section) == "Context added (read-only): a.py:3-9"
    assert event_line(Event(action="user_set_readonly", path="a.py")) == "Set writable: a.py"
    assert event_line(Event(action="user_discarded", path="a.py")) == "Discarded: a.py"
    followed = Event(action="user_updated", path="a.py", followed=True)
    assert event_line(followed) == "Your edits sent to the model: a.py"
    assert event_line(Event(action="user_updated", path="a.py")) == "Context updated: a.py"


def test_system_messages_and_fork_warnings_are_marked() -> None:
    shown = render(
        [
            Message(role="system", parts=[TextPart("The request failed: 401")]),
            Message(
                role="system",
                parts=[EventPart(Event(action="fork_warning_deleted", path="gone.py"))],
            ),
        ]
    )
    assert shown.lines == [
        "⚠ The request failed: 401",
        "",
        "⚠ Deleted since this message was sent: gone.py",
    ]
    assert shown.highlights == [(0, "BB7ChatError"), (2, "BB7ChatWarning")]


def test_the_retry_banner_closes_the_conversation() -> None:
    shown = render([user("fix it")], retry=True)
    assert shown.lines[-len(RETRY_BANNER) :] == RETRY_BANNER
    assert (len(shown.lines) - 1, "BB7RetryBanner") in shown.highlights


def test_an_empty_chat_renders_no_lines() -> None:
    assert render([]).lines == []


def status(path: str, code: str = "", tokens: int = 10, **kw: object) -> StatusRow:
    return StatusRow(path=path, status=code, readonly=False, tokens=tokens, kind="writable", **kw)  # type: ignore[arg-type]


def locate(path: str) -> str:
    return path if path.startswith("/") else "/p/" + path


def test_the_files_panel_is_a_tree_with_statuses_and_tokens() -> None:
    shown = panel(
        [
            status("src/bb7/x.py", "M", 1500, has_output=True),
            status("src/bb7/y.py", "", 20),
            status("README.md", "R", 5),
        ],
        locate,
    )
    assert [r.text for r in shown.rows] == ["   src/bb7/", "M    x.py", "     y.py", "R  README.md"]
    assert [r.tokens for r in shown.rows] == ["1.5k", "1.5k", "20", "5"]
    x = shown.rows[1]
    assert (x.path, x.abs, x.status, x.has_output) == ("src/bb7/x.py", "/p/src/bb7/x.py", "M", True)
    assert shown.rows[0].path == ""  # a directory row
    assert (shown.total_tokens, shown.total_tokens_text) == (1525, "1.5k")


def test_a_file_with_an_edit_waiting_for_a_choice_of_place_says_choose() -> None:
    shown = panel(
        [status("a.py", "M", 9, has_output=True, choose=1), status("b.py", "M", 9)], locate
    )
    assert [r.text for r in shown.rows] == ["M  a.py  choose", "M  b.py"]


def test_sections_and_outside_files_get_their_own_rows() -> None:
    shown = panel(
        [
            status("a.py", "S", 3, start_line=2, end_line=4),
            status("/home/u/notes/n.md", "R", 4),
            status("/opt/lib/z.py", "R", 4),
        ],
        locate,
        home="/home/u",
    )
    assert [r.text for r in shown.rows] == [
        "   /opt/lib/",
        "R    z.py",
        "   ~/notes/",
        "R    n.md",
        "S  a.py:2-4",
    ]
    assert shown.rows[3].abs == "/home/u/notes/n.md"


def test_an_answer_ends_with_a_quiet_usage_line_and_the_chat_has_totals() -> None:
    usage = Usage(prompt_tokens=1234, completion_tokens=56, cost=0.0031, duration=4.25)
    shown = render(
        [
            user("hi"),
            Message(role="assistant", parts=[TextPart("hello")], usage=usage, id=2),
            Message(role="assistant", parts=[TextPart("again")], usage=Usage(duration=1.0), id=3),
        ]
    )
    assert "↳ 1.2k in · 56 out · $0.0031 · 4.2 s" in shown.lines
    quiet = "↳ 1.0 s · no token counts from the provider"
    assert quiet in shown.lines
    assert (shown.lines.index(quiet), "BB7ChatStatus") in shown.highlights
    assert shown.usage == "1.3k tokens · $0.0031"
    assert render([user("hi")]).usage == ""


def test_costs_and_tokens_read_at_a_glance() -> None:
    assert format_cost(0.000064) == "$0.000064"  # written out, never 6.4e-05
    assert [format_cost(c) for c in (0.0031, 0.123, 2.5, 0.0)] == [
        "$0.0031",
        "$0.12",
        "$2.50",
        "$0",
    ]
    assert usage_line(Usage()) == ""


def test_a_long_note_shows_its_first_line_and_folds_the_rest() -> None:
    details = [f"• a.py, edit {i}: not found" for i in range(1, 9)]
    note = Message(role="system", parts=[TextPart("\n".join(["It failed.", *details]))])
    shown = render([note])
    assert shown.lines[0] == "⚠ It failed."
    assert shown.folds == [(2, 9)]
    short = render([Message(role="system", parts=[TextPart("It failed.\n" + details[0])])])
    assert short.folds == []
    assert short.lines == ["⚠ It failed.", "• a.py, edit 1: not found"]


def test_a_usage_line_too_wide_for_its_pane_breaks_between_its_parts() -> None:
    usage = Usage(
        prompt_tokens=12000, completion_tokens=350, cost=0.012, duration=4.1, first_token=0.4
    )
    assert usage_lines(usage) == [usage_line(usage)]
    narrow = usage_lines(usage, 36)
    assert narrow == ["↳ 12k in · 350 out · $0.012", "  4.1 s (first token 0.4 s)"]
    assert all(len(line) <= 36 for line in narrow)
