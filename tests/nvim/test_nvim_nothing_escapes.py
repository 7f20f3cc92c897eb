"""Nothing reaches the provider that the user did not choose (issue 38, items 1, 2 and 4), in
one sitting of the editor: an AGENTS.md that links out of the project, a context file a
checkout swapped for a link, `.bb7/ignore` reached through a link and asked for by the model.
The scripted server records every request: none holds a byte of those files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chat_view_helpers import focus, send, view_on_server, wait_for_screen
from editor import VERSIONS, notifications, run

from llm_server import LLMServer, finish, stream, text_chunk

OUTSIDE = "OUTSIDE-THE-PROJECT-7f3a"
PRIVATE = "PRIVATE-7f3a"
ASKS = "I need more.\n««« FILES\nwhy: to see them\nprivate/p.md\npub/p.md\nb.py\n»»» FILES END\n"


@pytest.mark.parametrize("nvim_binary", VERSIONS[-1:], indirect=True)
def test_links_out_and_ignored_files_reach_no_request(
    launch: Callable[..., Any], project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "credentials").write_text(f"aws = '{OUTSIDE}'\n")
    (project / "AGENTS.md").symlink_to(elsewhere / "credentials")
    (project / ".bb7").mkdir()
    (project / ".bb7" / "ignore").write_text("private/\n")
    (project / "private").mkdir()
    (project / "private" / "p.md").write_text(f"{PRIVATE}\n")
    (project / "pub").symlink_to("private")
    (project / "notes.py").write_text("notes as the user added them\n")
    with LLMServer() as server:
        nvim = view_on_server(launch(), project, server.base_url, "a.py", "notes.py")
        # A pull replaces notes.py with a link to a key outside the project.
        (project / "notes.py").unlink()
        (project / "notes.py").symlink_to(elsewhere / "credentials")
        server.push(stream(text_chunk(ASKS), finish()))
        send(nvim, "Hi")
        rows = wait_for_screen(nvim, "The model asks for files: to see them")
        assert any("private/p.md  not available: in .bb7/ignore" in r for r in rows), rows
        assert any("pub/p.md  not available: in .bb7/ignore" in r for r in rows), rows
        said = "\n".join(notifications(nvim))
        # Each the point in one line, why in the log.
        assert "bb7: notes.py leads out of the project now: not sent (:BB7Log)" in said, said
        assert "bb7: AGENTS.md not used: it leads out of the project (:BB7Log)" in said
        assert "pub names no text file to add" in run(nvim, "BB7Add pub")
        server.push(stream(text_chunk("Thanks."), finish()))
        focus(nvim, "conversation")
        nvim.input("gA")  # adds what is available (b.py) and sends again
        wait_for_screen(nvim, "Thanks.")
        first, second = server.chat_requests()
    sent = first["body"] + second["body"]
    assert "notes as the user added them" in first["body"]  # the snapshot is kept
    assert "print('b')" in second["body"]
    assert OUTSIDE not in sent and PRIVATE not in sent
