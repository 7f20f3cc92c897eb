"""The chat view's host requests (`bb7.host.handlers`) through the real handler table, on a real
project in a temp dir; no Neovim (the view itself is tested in tests/nvim/)."""

from __future__ import annotations

import re
from pathlib import Path

from host_harness import Host

from bb7.prompt import DEFAULT_MODEL
from bb7.state import chats, context
from bb7.state.records import Message, TextPart
from bb7.state.responses import edit_bases, record_outputs
from bb7.state.store import Store
from bb7.state.workspace import Workspace


def active_chat(store: Store, root: Path, name: str = "First") -> str:
    chat = chats.new_chat(store, name=name)
    Workspace(root, store).set_active(store, chat.id)
    return chat.id


def exchange(store: Store, chat_id: str, question: str, answer: str) -> int:
    asked = chats.append_user_message(store, chat_id, question)
    chats.append_message(store, chat_id, Message(role="assistant", parts=[TextPart(answer)]))
    return asked.id


def test_a_project_without_bb7_state_says_to_run_init(tmp_path: Path) -> None:
    host = Host(tmp_path)
    error = host.refused("chat_view")
    assert error["kind"] == "not_initialized"
    assert ":BB7Init" in error["message"]


def test_bb7chat_in_a_project_without_chats_shows_the_chat_it_starts(
    host: Host, store: Store
) -> None:
    assert host.refused("chat_view")["kind"] == "no_chat"
    view = host.call("chat_view", create=True)  # what :BB7Chat asks
    assert view["chat"]["active"] is True
    # Only its first line, BB-7's header: when it started, with no files.
    (header,) = view["conversation"]["lines"]
    assert header.startswith("Chat started ") and header.endswith(", no files in its context yet")
    assert view["files"]["rows"] == []
    assert [c.id for c in store.chats()] == [view["chat"]["id"]]


def test_the_view_of_the_active_chat_has_conversation_files_and_draft(
    host: Host, root: Path, store: Store
) -> None:
    chat_id = active_chat(store, root)
    context.add(store, chat_id, context.Target("a.py"))
    exchange(store, chat_id, "hello", "hi")
    chats.save_draft(store, chat_id, "next question")
    view = host.call("chat_view", buffers=[])
    assert view["chat"]["id"] == chat_id and view["chat"]["name"] == "First"
    assert view["chat"]["model"] == DEFAULT_MODEL  # what its next send uses
    assert view["draft"] == "next question"
    assert view["retry"] is False
    header, *lines = view["conversation"]["lines"]
    # The first line says when the chat started, and with which files (its first message's).
    assert re.fullmatch(r"Chat started \d{4}-\d\d-\d\d \d\d:\d\d with 1 file: a\.py", header)
    assert lines == [
        "",
        "Context added: a.py",
        "",
        "## You",
        "",
        "hello",
        "",
        "## Assistant",
        "",
        "hi",
    ]
    assert [row["text"] for row in view["files"]["rows"]] == ["   a.py"]
    assert view["files"]["rows"][0]["abs"] == str(root / "a.py")


def test_unsaved_buffer_text_counts_in_the_files_panel(
    host: Host, root: Path, store: Store
) -> None:
    chat_id = active_chat(store, root)
    context.add(store, chat_id, context.Target("a.py"))
    unsaved = {"path": str(root / "a.py"), "changedtick": 7, "lines": ["one = 111"]}
    panel = host.call("file_list", buffers=[unsaved])
    assert panel["rows"][0]["text"] == "~  a.py"


def test_the_chat_list_puts_pinned_first_and_marks_the_active(
    host: Host, root: Path, store: Store
) -> None:
    older = active_chat(store, root, "Older")
    active_chat(store, root, "Newer")
    host.call("pin_chat", chat_id=older, pinned=True)
    listed = host.call("chat_list")
    assert [(c["name"], c["pinned"], c["active"]) for c in listed] == [
        ("Older", True, False),
        ("Newer", False, True),
    ]


def test_switching_chats_shows_the_other_chats_files_statuses(
    host: Host, root: Path, store: Store
) -> None:
    with_file = active_chat(store, root, "With a file")
    context.add(store, with_file, context.Target("a.py"))
    active_chat(store, root, "Empty")
    host.events.clear()
    assert host.call("switch_chat", chat_id=with_file)["active"] is True
    assert host.call("chat_view")["chat"]["id"] == with_file
    assert host.events == [
        [
            "status_changed",
            {
                "files": {
                    str(root / "a.py"): {
                        "status": "",
                        "lines": [],
                        "user_lines": [],
                        "choose": 0,
                        "check": "",  # no checks declared: no verdict
                        "check_mark": "",
                        "agent": False,
                    }
                },
                "removed": [],
                "full": True,
            },
        ]
    ]


def test_rename_refuses_an_empty_name(host: Host, root: Path, store: Store) -> None:
    chat_id = active_chat(store, root)
    assert host.call("rename_chat", chat_id=chat_id, name="Parser work")["name"] == "Parser work"
    assert host.refused("rename_chat", chat_id=chat_id, name="  ")["kind"] == "invalid_name"


def test_deleting_the_active_chat_activates_the_most_recent_other(
    host: Host, root: Path, store: Store
) -> None:
    other = active_chat(store, root, "Other")
    doomed = active_chat(store, root, "Doomed")
    following = host.call("delete_chat", chat_id=doomed)
    assert following["id"] == other and following["active"] is True
    assert host.call("delete_chat", chat_id=other) is None
    assert host.call("chat_list") == []


def test_search_finds_chats_by_message_text(host: Host, root: Path, store: Store) -> None:
    chat_id = active_chat(store, root, "Misc")
    exchange(store, chat_id, "how do tokenizers work", "like this")
    active_chat(store, root, "Unrelated")
    hits = host.call("search_chats", query="tokenizer")
    assert [(h["chat"]["id"], h["match"]) for h in hits] == [(chat_id, "message")]
    assert "tokenizers" in hits[0]["excerpt"]


def test_a_fork_keeps_the_history_before_the_message_and_drafts_it(
    host: Host, root: Path, store: Store
) -> None:
    chat_id = active_chat(store, root)
    exchange(store, chat_id, "first question", "first answer")
    second = exchange(store, chat_id, "second question", "second answer")
    forked = host.call("fork_chat", message_id=second, buffers=[])
    assert forked["draft"] == "second question" and forked["chat_id"] != chat_id
    view = host.call("chat_view")
    assert view["chat"]["id"] == forked["chat_id"]
    assert view["chat"]["name"] == "Fork of First"
    lines = view["conversation"]["lines"]
    assert "first answer" in lines and "second question" not in lines
    assert view["draft"] == "second question"


def test_editing_a_message_cuts_the_chat_before_it(host: Host, root: Path, store: Store) -> None:
    chat_id = active_chat(store, root)
    exchange(store, chat_id, "first", "one")
    second = exchange(store, chat_id, "second", "two")
    edited = host.call("edit_message", message_id=second)
    assert edited == {"chat_id": chat_id, "draft": "second", "warnings": []}
    assert "two" not in host.call("chat_view")["conversation"]["lines"]
    answer = store.messages(chat_id)[1]
    assert host.refused("edit_message", message_id=answer.id)["kind"] == "no_message"


def test_a_draft_is_kept_per_chat(host: Host, root: Path, store: Store) -> None:
    chat_id = active_chat(store, root)
    host.call("save_draft", chat_id=chat_id, draft="half a thought")
    assert store.chat(chat_id) is not None
    assert store.chat(chat_id).draft == "half a thought"  # type: ignore[union-attr]


def test_update_read_only_and_diff_act_on_the_file(host: Host, root: Path, store: Store) -> None:
    chat_id = active_chat(store, root)
    context.add(store, chat_id, context.Target("a.py"))
    unsaved = {"path": str(root / "a.py"), "changedtick": 3, "lines": ["one = 11"]}
    assert host.call("update_file", path=str(root / "a.py"), buffers=[unsaved]) == "a.py"
    assert store.blob(store.entries(chat_id)[0].blob) == "one = 11\n"
    assert host.call("set_readonly", path=str(root / "a.py"), readonly=True) == "a.py"
    assert store.entries(chat_id)[0].kind == "readonly"
    host.call("set_readonly", path=str(root / "a.py"), readonly=False)
    bases = edit_bases(store, chat_id)
    record_outputs(store, chat_id, {"a.py": "one = 12\n"}, bases=bases)
    diff = host.call("file_diff", path=str(root / "a.py"), buffers=[unsaved])
    assert "-one = 11\n+one = 12\n" in diff
    assert host.refused("set_readonly", path=str(root / "a.py"), readonly=True)["kind"] == (
        "pending_output"
    )


def test_update_all_reports_what_it_did(host: Host, root: Path, store: Store) -> None:
    chat_id = active_chat(store, root)
    context.add(store, chat_id, context.Target("a.py"))
    (root / "a.py").write_text("one = 2\n")
    assert host.call("update_all") == {"updated": ["a.py"], "problems": []}


def test_apply_refused_by_the_disk_says_the_editor_s_way_out(
    host: Host, root: Path, store: Store
) -> None:
    chat_id = active_chat(store, root)
    context.add(store, chat_id, context.Target("a.py"))
    record_outputs(store, chat_id, {"a.py": "one = 12\n"}, bases=edit_bases(store, chat_id))
    (root / "a.py").chmod(0o444)
    refused = host.refused("apply", path=str(root / "a.py"))
    assert refused["kind"] == "read_only_file"
    assert refused["message"].startswith("a.py is read-only on disk; :BB7Apply! overwrites it\n")
    assert "--force" not in refused["message"]


def test_the_views_redraw_after_a_send_brings_the_statuses_of_its_panel(
    host: Host, root: Path, store: Store
) -> None:
    chat_id = active_chat(store, root)
    context.add(store, chat_id, context.Target("a.py"))
    record_outputs(store, chat_id, {"a.py": "one = 12\n"}, bases=edit_bases(store, chat_id))
    unsaved = {"path": str(root / "a.py"), "changedtick": 4, "lines": ["one = 1", "two = 2"]}
    host.events.clear()
    view = host.call("chat_view", buffers=[unsaved], statuses=True)
    assert host.events == []  # one request, no second computation for the status cache
    host.call("statuses", buffers=[unsaved], all=True)
    assert host.events == [["status_changed", view["statuses"]]]
    assert view["statuses"]["files"][str(root / "a.py")]["status"] == "~M"
    assert [row["text"][:2] for row in view["files"]["rows"]] == ["~M"]
    assert "statuses" not in host.call("chat_view", buffers=[unsaved])
