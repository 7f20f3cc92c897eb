"""What `:BB7Add` and `bb7 add` name, made into files (`bb7.adding`): directories and globs
skip what git ignores, hidden, binary and `.bb7/ignore`d files; sections merge; many files and
secrets make a question. Real files in a temp directory, real git."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bb7.adding import ask
from bb7.adding.expand import Expansion, expand
from bb7.adding.project_files import project_files
from bb7.files.ignore import parse_ignore
from bb7.files.images import image_tokens
from bb7.files.secrets import secret_reason
from bb7.refusal import Problem
from bb7.state.context import Target
from image_files import png


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, body in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            (root / name).write_bytes(body)
        else:
            (root / name).write_text(body)


def names(got: Expansion | Problem, root: Path) -> list[str]:
    assert isinstance(got, Expansion), got
    return [
        str(Path(f.target.path).relative_to(root))
        + (f":{f.target.start}-{f.target.end}" if f.target.start else "")
        for f in got.found
    ]


TREE: dict[str, str | bytes] = {
    "src/a.py": "a = 1\n",
    "src/pkg/b.py": "b = 2\n",
    "src/pkg/notes.txt": "notes\n",
    "src/.hidden/c.py": "c = 3\n",
    "src/logo.png": png(4, 4),
    "src/shot.gif": b"GIF89a\x01\x01\x01\x01...",  # no NUL in it: not binary by its bytes
    "src/build.log": "log\n",
    "src/gen/out.py": "generated\n",
    ".gitignore": "*.log\n",
    ".bb7/ignore": "# kept from the model\ngen/\n",
}


def test_a_directory_adds_its_text_files_but_not_ignored_hidden_or_binary_ones(
    tmp_path: Path,
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, TREE)
    got = expand(["src"], tmp_path, tmp_path)
    assert names(got, tmp_path) == ["src/a.py", "src/pkg/b.py", "src/pkg/notes.txt"]
    assert isinstance(got, Expansion) and got.wide and got.tokens == 2 + 2 + 2


def test_a_glob_matches_below_its_directory_and_double_star_spans_directories(
    tmp_path: Path,
) -> None:
    write(tmp_path, TREE)  # no git: the tree is walked
    assert names(expand(["src/**/*.py"], tmp_path, tmp_path), tmp_path) == [
        "src/a.py",
        "src/pkg/b.py",
    ]
    assert names(expand(["src/*.py"], tmp_path, tmp_path), tmp_path) == ["src/a.py"]
    nothing = expand(["src/**/*.rs"], tmp_path, tmp_path)
    assert nothing == Problem("no_match", "src/**/*.rs names no text file to add")


def test_named_paths_and_sections_are_taken_as_given_and_overlapping_sections_merge(
    tmp_path: Path,
) -> None:
    write(tmp_path, {"a.py": "1\n2\n3\n4\n5\n6\n7\n8\n", "src/gen/out.py": "x\n"})
    specs = ["a.py:2-3", "a.py:3-5", "a.py:7-7", "src/gen/out.py", "missing.py"]
    got = expand(specs, tmp_path, tmp_path)
    assert names(got, tmp_path) == ["a.py:2-5", "a.py:7-7", "src/gen/out.py", "missing.py"]
    assert isinstance(got, Expansion) and not got.wide
    assert [f.tokens for f in got.found] == [2, 1, 1, 0]  # 4 lines of "n\n"; a missing file: 0


def test_an_image_is_added_only_when_named_and_counted_as_an_image(tmp_path: Path) -> None:
    write(tmp_path, TREE)
    assert "src/logo.png" not in names(expand(["src"], tmp_path, tmp_path), tmp_path)
    assert names(expand(["src/*"], tmp_path, tmp_path), tmp_path) == [
        "src/a.py",
        "src/build.log",
    ]
    named = expand(["src/logo.png"], tmp_path, tmp_path)
    assert names(named, tmp_path) == ["src/logo.png"]
    assert isinstance(named, Expansion) and named.found[0].tokens == image_tokens(4, 4)


def test_bb7_ignore_follows_gitignore_rules() -> None:
    rules = parse_ignore("*.secret\n/top.txt\nbuild/\n!keep.secret\ndocs/**/draft*\n")
    assert rules.ignores("a/b/x.secret") and not rules.ignores("keep.secret")
    assert rules.ignores("top.txt") and not rules.ignores("sub/top.txt")
    assert rules.ignores("build/out.js") and rules.ignores("a/build/out.js")
    assert not rules.ignores("build")  # a file named like the directory
    assert rules.ignores("docs/x/y/draft1.md") and not rules.ignores("docs/final.md")


def test_the_picker_list_leaves_out_what_bb7_ignore_names(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "", "gen/out.py": "", ".bb7/ignore": "gen/\n"})
    assert project_files(tmp_path) == ["a.py"]


def test_secrets_are_known_by_name_or_by_a_key_format_inside() -> None:
    assert secret_reason("/p/.env") == "an .env file"
    assert secret_reason("/p/.env.local") == "an .env file"
    assert secret_reason("certs/server.pem") == "a key file"
    assert secret_reason("/home/u/.ssh/id_rsa") == "an ssh key"
    key = "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n"
    assert secret_reason("conf.txt", key) == "it holds a private key"
    assert secret_reason("c.py", "KEY = 'AKIAIOSFODNN7EXAMPLE'") == "it holds an AWS access key"
    assert secret_reason("c.py", "key = 'sk-proj-abcdefghijklmnopqrstuvwx'") == (
        "it holds an API key (sk-…)"
    )
    assert secret_reason("environment.py", "task-list = 1 # sk-short") is None


def test_a_secret_or_many_files_make_a_question_with_the_count_and_tokens(
    tmp_path: Path,
) -> None:
    write(tmp_path, {f"d/f{i:02}.py": "x = 1\n" for i in range(25)})
    write(tmp_path, {"d/.env": "TOKEN=1\n", "ok.py": "", "prod.env": ""})
    many = expand(["d"], tmp_path, tmp_path)
    assert isinstance(many, Expansion)
    question = ask.question(many, lambda p: p)
    assert question == ask.Question(
        "Add 25 files, 50 tokens?", [("all", "Add 25 files, 50 tokens"), ("cancel", "Cancel")]
    )
    few = expand(["d/f01.py", "ok.py"], tmp_path, tmp_path)
    assert isinstance(few, Expansion) and ask.question(few, str) is None
    secret = expand(["d/.env", "ok.py"], tmp_path, tmp_path)
    assert isinstance(secret, Expansion)
    shown = lambda p: str(Path(p).relative_to(tmp_path))  # noqa: E731
    question = ask.question(secret, shown)
    assert question is not None
    assert question.text == "d/.env looks like a secret (an .env file): add anyway?"
    assert [a for a, _ in question.choices] == ["all", "no_secrets", "cancel"]
    assert [f.target for f in ask.without_secrets(secret).found] == [
        Target(str(tmp_path / "ok.py"))
    ]
    assert ask.secret_problem(secret, shown) == Problem(
        "secret", "d/.env looks like a secret (an .env file); nothing added"
    )
