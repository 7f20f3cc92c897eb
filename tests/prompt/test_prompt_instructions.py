"""The instruction files: the user's, the project's `.bb7/instructions` and the files a project
keeps for models (`AGENTS.md`), read in that order and each named in `applied`."""

from __future__ import annotations

from pathlib import Path

from bb7.prompt.instructions import load_instructions


def test_agents_md_is_read_as_project_instructions_after_bb7_instructions(
    tmp_path: Path,
) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    (tmp_path / "AGENTS.md").write_text("Run make test.\n")
    alone = load_instructions(tmp_path, env)
    assert (alone.project, alone.project_source, alone.applied) == (
        "Run make test.\n",
        "AGENTS.md",
        ("AGENTS.md",),
    )
    (tmp_path / ".bb7").mkdir()
    (tmp_path / ".bb7" / "instructions").write_text("Use pytest.\n")
    (tmp_path / "CLAUDE.md").write_text("Be brief.\n")
    both = load_instructions(tmp_path, env, ["AGENTS.md", "CLAUDE.md", "AGENTS.md"])
    assert both.project == (
        "# .bb7/instructions\n\nUse pytest.\n\n"
        "# AGENTS.md\n\nRun make test.\n\n"
        "# CLAUDE.md\n\nBe brief.\n"
    )
    assert both.applied == (".bb7/instructions", "AGENTS.md", "CLAUDE.md")


def test_no_model_files_reads_only_bb7_instructions_and_the_user_file_comes_first(
    tmp_path: Path,
) -> None:
    (tmp_path / "cfg" / "bb7").mkdir(parents=True)
    (tmp_path / "cfg" / "bb7" / "instructions.md").write_text("Explain.\n")
    (tmp_path / "AGENTS.md").write_text("Run make test.\n")
    loaded = load_instructions(tmp_path, {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}, [])
    assert loaded.project is None
    assert loaded.applied == (str(tmp_path / "cfg" / "bb7" / "instructions.md"),)


def test_an_include_brings_in_another_project_file_read_by_the_same_rule(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    (tmp_path / ".bb7").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "style.md").write_text("Short names.\n@include docs/tests.md\n")
    (tmp_path / "docs" / "tests.md").write_text("Use pytest.")  # no newline at its end
    (tmp_path / "docs" / "loop.md").write_text("@include docs/loop.md\n")
    (tmp_path / ".env").write_text("TOKEN=abc\n")
    (tmp_path / ".bb7" / "instructions").write_text(
        "Be brief.\n@include docs/style.md\n@include ../outside.md\n@include docs/loop.md\n"
        "@include .env\n@include docs/missing.md\nThe end.\n"
    )
    (tmp_path.parent / "outside.md").write_text("never read\n")
    got = load_instructions(tmp_path, env, [])
    assert got.project == "Be brief.\nShort names.\nUse pytest.\nThe end.\n"
    problems = [p.splitlines()[0] for p in got.problems]
    assert problems == [
        ".bb7/instructions line 3: @include ../outside.md not used: it leads out of the project",
        "docs/loop.md line 1: @include docs/loop.md not used: it includes itself",
        ".bb7/instructions line 5: @include .env not used: it looks like a secret",
        ".bb7/instructions line 6: @include docs/missing.md not used: "
        + got.problems[-1].split("not used: ", 1)[1],
    ]
