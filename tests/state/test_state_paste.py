"""A pasted model response becomes pending outputs of the chat, all or nothing."""

from __future__ import annotations

import json

from state_helpers import Project

from bb7.chat.paste import Pasted, paste_response
from bb7.refusal import Problem
from bb7.state import context
from bb7.state.context import Target
from bb7.state.local import LocalText

SEARCH_REPLACE = """Rename the constant:

greet.py
<<<<<<< SEARCH
NAME = "world"
=======
NAME = "bb7"
>>>>>>> REPLACE
"""


def _pasted(value: Pasted | Problem) -> Pasted:
    assert isinstance(value, Pasted), value
    return value


def test_search_replace_blocks_become_a_pending_output(project: Project) -> None:
    project.write("greet.py", 'NAME = "world"\n')
    assert not isinstance(context.add(project.store, project.chat_id, Target("greet.py")), Problem)
    pasted = _pasted(paste_response(project.store, project.chat_id, SEARCH_REPLACE))
    assert [o.path for o in pasted.recorded.outputs] == ["greet.py"]
    assert pasted.added == []
    assert project.status("greet.py") == "M"
    assert project.read("greet.py") == 'NAME = "world"\n'  # the file is untouched
    message = pasted.recorded.message
    assert message is not None and message.role == "assistant"
    assert message.text() == SEARCH_REPLACE


def test_a_file_on_disk_not_in_the_chat_is_added_for_the_paste(project: Project) -> None:
    project.write("greet.py", 'NAME = "world"\n')
    pasted = _pasted(paste_response(project.store, project.chat_id, SEARCH_REPLACE))
    assert pasted.added == ["greet.py"]
    assert project.status("greet.py") == "M"


def test_a_file_added_for_the_paste_is_snapshotted_from_the_editors_buffer(
    project: Project,
) -> None:
    project.write("greet.py", "# old\n")  # on disk; the buffer has the text the user copied
    buffers = {"greet.py": LocalText('NAME = "world"\n', 4)}
    pasted = paste_response(project.store, project.chat_id, SEARCH_REPLACE, buffers=buffers)
    assert _pasted(pasted).added == ["greet.py"]
    assert project.status("greet.py", buffers) == "M"


def test_tool_call_json_creates_a_new_file(project: Project) -> None:
    call = {
        "tool_calls": [
            {
                "type": "function",
                "function": {
                    "name": "write_file",
                    "arguments": json.dumps({"path": "new.py", "content": "print(1)\n"}),
                },
            }
        ]
    }
    pasted = _pasted(paste_response(project.store, project.chat_id, json.dumps(call)))
    assert [o.path for o in pasted.recorded.outputs] == ["new.py"]
    assert project.status("new.py") == "A"


def test_a_failed_edit_changes_nothing_and_says_where(project: Project) -> None:
    project.write("greet.py", 'NAME = "someone"\n')
    got = paste_response(project.store, project.chat_id, SEARCH_REPLACE)
    assert isinstance(got, Problem) and got.kind == "edits_failed"
    assert got.message.startswith("nothing pasted, greet.py, change 1: not found")
    assert "the pasted response was not applied, nothing changed (1 error)" in got.message
    assert "block 1" in got.message and "greet.py [not_found]" in got.message
    # The file it would have added for the paste is not in the chat either.
    assert project.store.entries(project.chat_id) == []
    assert project.store.messages(project.chat_id) == []


def test_text_without_edits_says_what_to_copy(project: Project) -> None:
    got = paste_response(project.store, project.chat_id, "Sure, happy to help!")
    assert isinstance(got, Problem) and got.kind == "no_edits"
    assert "copy the model's whole answer" in got.message


def test_an_edit_on_a_chat_copy_older_than_the_file_is_made_on_the_file(project: Project) -> None:
    # The chat took the model's change (its copy says "bb7"); the user undid it and saved.
    project.write("greet.py", 'NAME = "bb7"\n')
    assert not isinstance(context.add(project.store, project.chat_id, Target("greet.py")), Problem)
    project.write("greet.py", 'NAME = "world"\n')
    assert project.status("greet.py") == "~"
    pasted = _pasted(paste_response(project.store, project.chat_id, SEARCH_REPLACE))
    assert pasted.refreshed == ["greet.py"]
    assert project.status("greet.py") == "M"
    (entry,) = project.store.entries(project.chat_id)
    assert project.store.blob(entry.blob) == 'NAME = "world"\n'  # what the edit was made on
    # An edit that fails on the file too changes nothing, the older copy included.
    project.write("greet.py", 'NAME = "someone"\n')
    before = project.store.entries(project.chat_id)
    got = paste_response(project.store, project.chat_id, SEARCH_REPLACE.replace("world", "x"))
    assert isinstance(got, Problem) and got.kind == "edits_failed"
    assert project.store.entries(project.chat_id) == before
