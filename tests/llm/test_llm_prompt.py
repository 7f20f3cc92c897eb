"""Prompt assembly: layout and order, file modes and statuses, global chats, estimates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from bb7.fileid import file_id
from bb7.llm import prompt_format
from bb7.llm.instructions import Instructions, load_instructions
from bb7.llm.prompt import (
    ContextFile,
    HistoryEvent,
    HistoryMessage,
    PendingOutput,
    PromptInput,
    assemble_prompt,
    chat_request,
    check_context,
    choose_edit_format,
)
from bb7.llm.titles import clean_title, title_request
from bb7.llm.wire import ToolSpec
from bb7.text.tokens import estimate_tokens

TOOL = ToolSpec("write_file", "Write a whole file.", {"type": "object"})
FILES = [
    ContextFile("src/b.py", "b = 1\n"),
    ContextFile("src/a.py", "a = 1\n"),
    ContextFile("docs/guide.md", "# Guide\n", readonly=True),
    ContextFile("src/big.py", "x = 10\ny = 20\n", start_line=10, end_line=11),
    ContextFile("/etc/hosts", "127.0.0.1 localhost\n", external=True),
]
OUTPUTS = [PendingOutput("src/a.py", "a = 2\n"), PendingOutput("src/new.py", "new = True")]
HISTORY = [
    HistoryEvent("user_added", "src/a.py", file_id=file_id("src/a.py", "a = 1\n")),
    HistoryMessage("user", "Make a two."),
    HistoryMessage("assistant", "Thinking about a.", kind="reasoning"),
    HistoryMessage("assistant", "Done."),
    HistoryEvent("assistant_wrote", "src/a.py", file_id=file_id("src/a.py", "a = 2\n")),
]


def full_input(**changes: Any) -> PromptInput:
    base = PromptInput(
        user_text="Now add a test.",
        files=FILES,
        outputs=OUTPUTS,
        history=HISTORY,
        tool_prompt="Use edit_file to change files.",
        tools=[TOOL],
        instructions=Instructions(user="Prefer tabs.", project="Python 3.10 only."),
    )
    return msgspec.structs.replace(base, **changes)


def user_text(inp: PromptInput) -> str:
    return "".join(part.text for part in assemble_prompt(inp).user)


def test_sections_come_in_cache_friendly_order() -> None:
    text = user_text(full_input(retry_context="edit 1 failed: old_string not found"))
    order = [
        prompt_format.SECTION_READONLY,
        prompt_format.SECTION_HISTORY,
        prompt_format.SECTION_LATEST,
        prompt_format.SECTION_RETRY,
        prompt_format.SECTION_WRITABLE,
    ]
    positions = [text.index(title + "\n") for title in order]
    assert positions == sorted(positions)
    assert "@retry_context\nedit 1 failed: old_string not found\n@end retry_context" in text


def test_file_blocks_say_id_path_mode_and_status() -> None:
    prompt = assemble_prompt(full_input())
    blocks = [(b.path, b.mode, b.status, b.id) for b in prompt.files]
    assert blocks == [
        ("/etc/hosts", "ro", "original", file_id("/etc/hosts", "127.0.0.1 localhost\n")),
        ("docs/guide.md", "ro", "original", file_id("docs/guide.md", "# Guide\n")),
        ("src/a.py", "ro", "original", file_id("src/a.py", "a = 1\n")),
        ("src/big.py", "ro", "original", file_id("src/big.py", "x = 10\ny = 20\n")),
        ("src/a.py", "rw", "pending_output", file_id("src/a.py", "a = 2\n")),
        ("src/b.py", "rw", "original", file_id("src/b.py", "b = 1\n")),
        ("src/new.py", "rw", "added_output", file_id("src/new.py", "new = True")),
    ]
    text = user_text(full_input())
    a2 = file_id("src/a.py", "a = 2\n")
    assert f"@file id={a2} path=src/a.py mode=rw status=pending_output\na = 2\n@end file\n" in text
    assert "path=src/big.py mode=ro status=original lines=10-11\n" in text
    assert "path=/etc/hosts mode=ro status=original external\n" in text
    assert "new = True\n@end file" in text  # a missing final newline does not glue the marker on


def test_latest_message_lists_every_file_block_before_the_user_text() -> None:
    text = user_text(full_input())
    latest = text[text.index("@latest\n") : text.index("@end latest")]
    a2 = file_id("src/a.py", "a = 2\n")
    assert f"- {a2} src/a.py rw pending_output\n" in latest
    assert "src/big.py ro original lines=10-11\n" in latest
    assert latest.count("\n- ") == 7
    assert latest.endswith("Now add a test.\n")


def test_history_is_numbered_with_messages_reasoning_and_events() -> None:
    text = user_text(full_input())
    a1 = file_id("src/a.py", "a = 1\n")
    assert f"@event n=1 action=user_added path=src/a.py file_id={a1}\n" in text
    assert "@msg n=2 role=user\nMake a two.\n@end msg\n" in text
    assert "@msg n=3 role=assistant kind=reasoning\nThinking about a.\n@end msg\n" in text
    assert "@event n=5 action=assistant_wrote path=src/a.py" in text


def test_system_message_holds_prompt_instructions_and_tool_prompt() -> None:
    prompt = assemble_prompt(full_input())
    assert prompt.system.startswith(prompt_format.SYSTEM_PROMPT)
    user_block = '<user-instructions source="~/.config/bb7/instructions.md">\nPrefer tabs.\n'
    assert user_block + "</user-instructions>" in prompt.system
    assert '<project-instructions source=".bb7/instructions">\nPython 3.10 only.\n' in prompt.system
    assert prompt.system.rstrip().endswith("Use edit_file to change files.")
    assert prompt.tools == [TOOL]


def test_global_chats_get_no_tools_no_project_instructions_and_only_read_only_files() -> None:
    prompt = assemble_prompt(full_input(global_chat=True, outputs=[]))
    assert prompt.edit_format == "none" and prompt.tools == []
    assert {b.mode for b in prompt.files} == {"ro"}
    assert "Use edit_file" not in prompt.system and "Python 3.10 only." not in prompt.system
    assert "Prefer tabs." in prompt.system
    assert prompt_format.GLOBAL_CHAT_NOTE in prompt.system
    assert prompt_format.SECTION_WRITABLE not in user_text(full_input(global_chat=True, outputs=[]))


def test_edit_format_follows_diff_mode_and_model_capability() -> None:
    assert choose_edit_format("search_replace_multi", True) == "tools"
    assert choose_edit_format("search_replace_multi", None) == "tools"  # unknown: try tools
    assert choose_edit_format("search_replace_multi", False) == "text_blocks"
    assert choose_edit_format("edit_blocks", True) == "text_blocks"
    assert choose_edit_format("search_replace", True, global_chat=True) == "none"


def test_text_block_mode_sends_the_block_prompt_and_no_tools() -> None:
    prompt = assemble_prompt(
        full_input(edit_format="text_blocks", tool_prompt="Write EDIT blocks.")
    )
    request = chat_request(prompt, "plain/model")
    assert request.tools == [] and prompt.tools == []
    assert "Write EDIT blocks." in prompt.system


def test_token_estimate_per_part_adds_up() -> None:
    prompt = assemble_prompt(full_input(retry_context="failed"))
    names = [part.name for part in prompt.parts]
    assert names[:4] == ["system_prompt", "instructions", "tool_prompt", "tools"]
    assert {"history", "latest", "retry"} <= set(names)
    file_parts = [part.path for part in prompt.parts if part.name == "file"]
    assert sorted(file_parts) == sorted(b.path for b in prompt.files)
    assert prompt.total_tokens == sum(part.tokens for part in prompt.parts)
    assert all(part.tokens > 0 for part in prompt.parts)


def test_context_warning_above_the_models_window() -> None:
    assert check_context(5_000, 128_000, 8_192).level == "ok"
    near = check_context(120_000, 128_000, 8_192)
    over = check_context(130_000, 128_000, 8_192)
    assert near.level == "near" and over.level == "over"
    assert over.message is not None and "130,000" in over.message and "128,000" in over.message
    assert check_context(10**9, None).level == "ok"


def test_the_stable_prefix_survives_the_next_turn_and_can_carry_a_cache_breakpoint() -> None:
    first = assemble_prompt(full_input(cache_breakpoint=True))
    later = assemble_prompt(
        full_input(
            cache_breakpoint=True, history=[*HISTORY, HistoryMessage("user", "Now add a test.")]
        )
    )
    stable, changing = first.user
    assert stable.cache_control is not None and changing.cache_control is None
    assert stable.text.startswith(prompt_format.SECTION_READONLY)
    assert later.user[0].text.startswith(stable.text.removesuffix("\n"))
    plain = assemble_prompt(full_input()).messages()
    assert isinstance(plain[1].content, str)
    assert plain[1].content == stable.text + changing.text


def test_assembly_does_not_depend_on_the_order_files_were_given() -> None:
    forward = assemble_prompt(full_input())
    backward = assemble_prompt(full_input(files=FILES[::-1], outputs=OUTPUTS[::-1]))
    assert forward == backward


def test_every_marker_the_prompt_uses_is_explained_in_the_system_prompt() -> None:
    markers = [
        v
        for k, v in vars(prompt_format).items()
        if k.isupper() and isinstance(v, str) and (v.startswith("@") or v.startswith("# "))
    ]
    assert len(markers) == 14
    for marker in markers:
        assert marker in prompt_format.SYSTEM_PROMPT, marker
    for action in prompt_format.EVENT_MEANINGS:
        assert action in prompt_format.SYSTEM_PROMPT


def test_instructions_load_from_xdg_config_and_the_project(tmp_path: Path) -> None:
    config = tmp_path / "config"
    (config / "bb7").mkdir(parents=True)
    (config / "bb7" / "instructions.md").write_text("Always explain.\n")
    project = tmp_path / "proj"
    (project / ".bb7").mkdir(parents=True)
    (project / ".bb7" / "instructions").write_text("Use pytest.\n")
    loaded = load_instructions(project, {"XDG_CONFIG_HOME": str(config)})
    assert (loaded.user, loaded.project, loaded.problems) == (
        "Always explain.\n",
        "Use pytest.\n",
        (),
    )
    assert loaded.user_source == str(config / "bb7" / "instructions.md")
    assert load_instructions(None, {"XDG_CONFIG_HOME": str(config)}).project is None
    absent = load_instructions(tmp_path / "none", {"XDG_CONFIG_HOME": str(tmp_path / "nope")})
    assert (absent.user, absent.project, absent.problems) == (None, None, ())


def test_unreadable_instructions_are_reported_not_ignored(tmp_path: Path) -> None:
    (tmp_path / ".bb7").mkdir()
    (tmp_path / ".bb7" / "instructions").write_bytes(b"\x00binary")
    loaded = load_instructions(tmp_path, {"XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    assert loaded.project is None
    assert len(loaded.problems) == 1 and "binary" in loaded.problems[0]


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("def f(x):\n    return x + 1\n" * 50, 280, 420),
        ("这是一个测试句子。" * 40, 250, 450),
        ("", 0, 0),
    ],
)
def test_token_estimate_is_in_the_measured_range(text: str, low: int, high: int) -> None:
    # Ranges from cl100k_base counts of the same texts: 350 for the code, 330 for the Chinese.
    assert low <= estimate_tokens(text) <= high


def test_title_request_and_cleanup() -> None:
    request = title_request("small/model", "How do I add a retry to the client?", ["src/client.py"])
    assert request.model == "small/model" and request.tools == []
    assert "src/client.py" in request.messages[1].content
    assert clean_title('Title: "Retry for the HTTP client."\nextra') == "Retry for the HTTP client"
    assert clean_title("  \n ") is None
    long = clean_title("word " * 40)
    assert long is not None and len(long) <= 60 and long.endswith("…")
