"""Prompt assembly: layout and order, file modes and statuses, global chats, estimates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from bb7.files.fileid import file_id
from bb7.prompt import markers
from bb7.prompt.assemble import (
    ContextFile,
    HistoryEntry,
    HistoryEvent,
    HistoryMessage,
    HistoryTurn,
    PendingOutput,
    PromptInput,
    assemble_prompt,
    chat_request,
    check_context,
    choose_edit_format,
)
from bb7.prompt.instructions import Instructions, load_instructions
from bb7.prompt.titles import clean_title, title_request
from bb7.provider.config import ProviderConfig
from bb7.provider.presets import PRESETS
from bb7.provider.wire import ToolSpec, explicit_cache
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


def test_sections_come_in_order_history_latest_retry() -> None:
    text = user_text(full_input(retry_context="edit 1 failed: old_string not found"))
    order = [
        markers.SECTION_HISTORY,
        markers.SECTION_LATEST,
        markers.SECTION_RETRY,
    ]
    positions = [text.index(title + "\n") for title in order]
    assert positions == sorted(positions)
    assert "@retry_context\nedit 1 failed: old_string not found\n@end retry_context" in text


def test_each_file_is_listed_with_its_current_id_mode_and_status() -> None:
    prompt = assemble_prompt(full_input())
    blocks = [(b.path, b.mode, b.status, b.id) for b in prompt.files]
    assert blocks == [
        ("/etc/hosts", "ro", "original", file_id("/etc/hosts", "127.0.0.1 localhost\n")),
        ("docs/guide.md", "ro", "original", file_id("docs/guide.md", "# Guide\n")),
        # The pending output is the text the model edits: it stands in for the snapshot.
        ("src/a.py", "rw", "pending_output", file_id("src/a.py", "a = 2\n")),
        ("src/b.py", "rw", "original", file_id("src/b.py", "b = 1\n")),
        ("src/big.py", "ro", "original", file_id("src/big.py", "x = 10\ny = 20\n")),
        ("src/new.py", "rw", "added_output", file_id("src/new.py", "new = True")),
    ]
    text = user_text(full_input())
    a2 = file_id("src/a.py", "a = 2\n")
    assert f" id={a2} path=src/a.py\na = 2\n@end file\n" in text
    assert "path=src/big.py lines=10-11\nx = 10\n" in text
    assert "path=/etc/hosts external\n" in text
    assert "new = True\n@end file" in text  # a missing final newline does not glue the marker on


def test_latest_message_lists_every_file_before_the_user_text() -> None:
    text = user_text(full_input())
    latest = text[text.index("@latest\n") : text.index("@end latest")]
    a2 = file_id("src/a.py", "a = 2\n")
    assert f"- {a2} src/a.py rw pending_output\n" in latest
    assert "src/big.py ro original lines=10-11\n" in latest
    assert latest.count("\n- ") == 6
    assert latest.endswith("Now add a test.\n")


def test_history_is_numbered_with_messages_reasoning_and_events() -> None:
    text = user_text(full_input())
    a1 = file_id("src/a.py", "a = 1\n")
    assert f"@event n=1 action=user_added path=src/a.py file_id={a1}\n" in text
    assert "@msg n=2 role=user\nMake a two.\n@end msg\n" in text
    assert "@msg n=3 role=assistant kind=reasoning\nThinking about a.\n@end msg\n" in text
    assert "@event n=5 action=assistant_wrote path=src/a.py" in text
    assert "@file n=6 id=" in text  # the files follow the history they were sent after


BIG = "".join(f"line {i}\n" for i in range(1, 201))


def chat_turns(versions: list[str], **changes: Any) -> list[PromptInput]:
    """The prompt input of each turn of a chat about one file that has `versions[i]` at turn i."""
    inputs: list[PromptInput] = []
    history: list[HistoryEntry] = []
    for n, content in enumerate(versions, start=1):
        files = [ContextFile("app.py", content)]
        inputs.append(
            PromptInput(user_text=f"Question {n}.", files=files, history=list(history), **changes)
        )
        history += [
            HistoryTurn(files=files),
            HistoryMessage("user", f"Question {n}."),
            HistoryMessage("assistant", f"Answer {n}."),
        ]
    return inputs


def test_the_next_turn_starts_with_this_one_but_its_latest_message() -> None:
    edited = BIG.replace("line 50\n", "line fifty\n")
    first, second, third = (assemble_prompt(i) for i in chat_turns([BIG, BIG, edited]))
    assert [p.text for p in second.user[: len(first.user) - 1]] == [p.text for p in first.user[:-1]]
    assert second.messages()[1].content.startswith("".join(p.text for p in first.user[:-1]))
    assert third.messages()[1].content.startswith("".join(p.text for p in second.user[:-1]))
    assert third.messages()[0] == first.messages()[0]


def test_an_edited_file_follows_as_a_diff_with_the_new_id() -> None:
    edited = BIG.replace("line 50\n", "line fifty\n")
    text = user_text(chat_turns([BIG, edited])[1])
    old, new = file_id("app.py", BIG), file_id("app.py", edited)
    diff = text[text.index("@diff ") : text.index("@end diff")]
    assert diff.startswith(f"@diff n=4 path=app.py file_id={new} prev_file_id={old} by=user\n")
    assert "-line 50\n+line fifty\n" in diff and "line 10\n" not in diff
    assert text.count("@file ") == 1  # the whole file is not sent again
    assert f"- {new} app.py rw original\n" in text


def test_a_file_is_sent_whole_again_once_its_diffs_outgrow_a_quarter_of_it() -> None:
    versions = [BIG * 5]
    for i in range(1, 40):  # one more line changed each turn
        versions.append(versions[-1].replace(f"line {i * 5}\n", f"line {i * 5} changed\n", 1))
    text = user_text(chat_turns(versions)[-1])
    blocks, diffs = text.count("@file "), text.count("@diff ")
    assert 2 <= blocks <= 4 and diffs >= 30
    last_block = text[text.rindex("@file ") :]
    diff_bytes = sum(len(d) for d in last_block.split("@diff ")[1:])
    assert diff_bytes <= len(last_block.split("@end file")[0]) * 0.26


def test_follow_edits_full_sends_a_changed_file_whole() -> None:
    edited = BIG.replace("line 50\n", "line fifty\n")
    text = user_text(chat_turns([BIG, edited], follow_edits="full")[1])
    assert text.count("@file ") == 2 and "@diff" not in text


def test_the_models_own_change_follows_as_its_diff() -> None:
    changed = BIG.replace("line 7\n", "line seven\n")
    files = [ContextFile("app.py", BIG)]
    history: list[HistoryEntry] = [
        HistoryTurn(files=files),
        HistoryMessage("user", "Rename line 7."),
        HistoryMessage("assistant", "Done."),
        HistoryEvent("assistant_wrote", "app.py", file_id=file_id("app.py", changed)),
    ]
    text = user_text(
        PromptInput(
            user_text="Thanks.",
            files=files,
            outputs=[PendingOutput("app.py", changed)],
            history=history,
        )
    )
    assert "by=assistant\n" in text and "+line seven\n" in text
    assert f"- {file_id('app.py', changed)} app.py rw pending_output" in text


def test_system_message_holds_prompt_instructions_and_tool_prompt() -> None:
    prompt = assemble_prompt(full_input())
    assert prompt.system.startswith(markers.SYSTEM_PROMPT)
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
    assert markers.GLOBAL_CHAT_NOTE in prompt.system
    assert " rw " not in user_text(full_input(global_chat=True, outputs=[]))


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
    # The action first, in a line of its own; the figures after it.
    assert near.message is not None
    assert near.message.startswith("context nearly full: drop files or start a new chat\n")
    assert "120,000 tokens of the model's 128,000" in near.message
    assert over.message is not None and "130,000" in over.message and "128,000" in over.message
    assert check_context(10**9, None).level == "ok"


def test_cache_marks_sit_on_the_system_the_first_turn_and_the_last_two_turns() -> None:
    inputs = chat_turns([BIG] * 6, cache_marks=True)
    first = assemble_prompt(inputs[0])
    assert [p.cache_control is not None for p in first.user] == [True, False]
    sixth = assemble_prompt(inputs[5])
    marks = [p.cache_control is not None for p in sixth.user]
    assert marks == [True, False, False, False, True, True, False]
    system, user = sixth.messages()
    assert isinstance(system.content, list) and system.content[0].cache_control is not None
    assert isinstance(user.content, list)
    plain = assemble_prompt(chat_turns([BIG] * 6)[5]).messages()
    assert isinstance(plain[0].content, str) and isinstance(plain[1].content, str)
    assert plain[1].content == "".join(p.text for p in sixth.user)


def test_assembly_does_not_depend_on_the_order_files_were_given() -> None:
    forward = assemble_prompt(full_input())
    backward = assemble_prompt(full_input(files=FILES[::-1], outputs=OUTPUTS[::-1]))
    assert forward == backward


def test_every_marker_the_prompt_uses_is_explained_in_the_system_prompt() -> None:
    used = [
        v
        for k, v in vars(markers).items()
        if k.isupper() and isinstance(v, str) and (v.startswith("@") or v.startswith("# "))
    ]
    assert len(used) == 18  # three sections, fifteen markers
    for marker in used:
        assert marker in markers.SYSTEM_PROMPT, marker
    for action in markers.EVENT_MEANINGS:
        assert action in markers.SYSTEM_PROMPT


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


@pytest.mark.parametrize(
    ("preset", "model", "marked"),
    [
        ("openrouter", "anthropic/claude-sonnet-4.5", True),
        ("openrouter", "google/gemini-2.5-pro", True),
        ("openrouter", "openai/gpt-5", False),
        ("anthropic", "claude-sonnet-4-5", True),
        ("openai", "gpt-5", False),
        ("gemini", "gemini-2.5-pro", False),  # Gemini's own endpoint caches by itself
        ("deepseek", "deepseek-chat", False),
    ],
)
def test_cache_marks_go_only_where_the_provider_caches_what_is_marked(
    preset: str, model: str, marked: bool
) -> None:
    assert explicit_cache(ProviderConfig(PRESETS[preset].base_url, preset), model) is marked


def test_anthropic_s_own_api_anywhere_takes_cache_marks() -> None:
    proxy = ProviderConfig("http://127.0.0.1:9/v1", api="anthropic")
    assert explicit_cache(proxy, "claude-sonnet-4-5")
    assert not explicit_cache(ProviderConfig("http://127.0.0.1:9/v1"), "claude-sonnet-4-5")


def test_the_models_change_and_the_users_edit_after_it_are_two_diffs() -> None:
    written = BIG.replace("line 7\n", "line seven\n")
    edited = written.replace("line 90\n", "line ninety\n")
    history: list[HistoryEntry] = [
        HistoryTurn(files=[ContextFile("app.py", BIG)]),
        HistoryMessage("user", "Rename line 7."),
        HistoryMessage("assistant", "Done."),
        HistoryEvent(
            "assistant_wrote", "app.py", file_id=file_id("app.py", written), content=written
        ),
        HistoryEvent("user_updated", "app.py"),
    ]
    text = user_text(
        PromptInput(
            user_text="Thanks.",
            files=[ContextFile("app.py", BIG.replace("line 90\n", "line ninety\n"))],
            outputs=[PendingOutput("app.py", edited)],
            history=history,
        )
    )
    mine, theirs = text.split("@diff ")[1:]
    assert "by=assistant\n" in mine and "+line seven\n" in mine and "ninety" not in mine
    assert "by=user\n" in theirs and "+line ninety\n" in theirs and "seven" not in theirs
