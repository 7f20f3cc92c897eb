"""Speed of the edit formats: parsing text blocks (whole and streamed) and applying responses.

Prints one table row per workload: what was done, how often, and the time per run. Synthetic
inputs, generated here, so the figures are comparable between machines and commits.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bb7.formats import FileState, TextParser, apply_response, parse_text

FILES = 20
LINES = 400
EDITS_PER_FILE = 10


def _files() -> dict[str, str]:
    return {
        f"src/mod{f}.py": "".join(
            f"def func_{f}_{i}(value):\n    return value + {i}\n\n" for i in range(LINES // 3)
        )
        for f in range(FILES)
    }


def _text_response(files: dict[str, str]) -> str:
    parts = ["Here are the edits.\n"]
    for n, path in enumerate(files):
        for e in range(EDITS_PER_FILE):
            i = e * 7 + 1
            if n % 2:
                parts.append(
                    f"{path}\n```python\n<<<<<<< SEARCH\ndef func_{n}_{i}(value):\n"
                    f"    return value + {i}\n=======\ndef func_{n}_{i}(value):\n"
                    f"    return value - {i}\n>>>>>>> REPLACE\n```\n"
                )
            else:
                parts.append(
                    f"{path}\n««« EDIT\ndef func_{n}_{i}(value):\n    return value + {i}\n"
                    f"═══════ REPL\ndef func_{n}_{i}(value):\n    return value * {i}\n"
                    "»»» EDIT END\n"
                )
    return "\n".join(parts)


def _tool_response(files: dict[str, str]) -> str:
    edits = [
        {
            "path": path,
            "old_string": f"    return value + {e * 7 + 1}\n",
            "new_string": f"    return value - {e * 7 + 1}\n",
        }
        for path in files
        for e in range(EDITS_PER_FILE)
    ]
    return json.dumps({"tool_calls": [{"name": "edit_file", "arguments": {"edits": edits}}]})


def _stream(text: str, size: int) -> int:
    parser = TextParser()
    count = 0
    for at in range(0, len(text), size):
        count += len(parser.feed(text[at : at + size]))
    return count + len(parser.close())


def _time(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    files = _files()
    states = {path: FileState(content=text) for path, text in files.items()}
    text, tools = _text_response(files), _tool_response(files)
    blocks = len(parse_text(text))
    chunks = len(text) // 16 + 1
    with tempfile.TemporaryDirectory() as root:
        rows = [
            (
                f"parse_text: {blocks} blocks, {len(text) // 1024} KiB",
                _time(lambda: parse_text(text), 5),
                "",
            ),
            (
                f"TextParser.feed: {chunks} chunks of 16 chars",
                (ms := _time(lambda: _stream(text, 16), 5)),
                f"{ms * 1000 / chunks:.2f} µs/chunk",
            ),
            (
                f"apply_response, text: {blocks} blocks over {FILES} files of {LINES} lines",
                _time(lambda: apply_response(states, text, root=Path(root)), 3),
                "",
            ),
            (
                f"apply_response, tool call: {FILES * EDITS_PER_FILE} edits",
                _time(lambda: apply_response(states, tools, root=Path(root)), 3),
                "",
            ),
        ]
    width = max(len(name) for name, _, _ in rows)
    print(f"{'workload':{width}}  {'best ms':>9}  note")
    for name, ms, note in rows:
        print(f"{name:{width}}  {ms:9.2f}  {note}")


if __name__ == "__main__":
    main()
