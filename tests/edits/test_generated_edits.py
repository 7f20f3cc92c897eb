"""A sampled part of the 10-seed generated run (`../shared/tools/gen_edits.py`, seeds 1-10):
zero wrong applies on edits the engine has never seen. It runs where the shared folder sits
beside the repository, as in CI (tests/shared_folder.py); the full run is `gen_edits.py --seed
N --per-category 200` scored with `bb7 eval-edits`."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

from bb7.edits import Applied, replace
from shared_folder import need_shared

SEEDS = range(1, 11)
PER_CATEGORY = 1  # 22 cases a seed
SOURCE_STRIDE = 3


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_edits", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # A source file's line states are computed when a case first draws from it (the generator
    # computes them for every file up front: most of its start-up time), and the file list is
    # read once for every seed.
    states = module.line_states

    class _Lazy:
        def __init__(self, rel: str, lang: str, lines: list[str]) -> None:
            self.rel, self.lang, self.lines = rel, lang, lines
            self.has_tab_indent = any(line.startswith("\t") for line in lines)

        def __getattr__(self, name: str) -> Any:
            if name not in ("mask", "open_after"):
                raise AttributeError(name)
            self.mask, self.open_after = states(self.lines, self.lang)
            return getattr(self, name)

    module.Source = _Lazy
    # The sample: every third source file of each language (the seeds' cases are drawn from
    # those), which keeps the run to about a second.
    sources = module.collect_sources()[::SOURCE_STRIDE]
    module.collect_sources = lambda: sources
    return module


def _cases() -> list[dict[str, Any]]:
    gen = _load(need_shared("tools", "gen_edits.py"))
    cases: list[dict[str, Any]] = []
    for seed in SEEDS:
        cases += gen.Gen("public", seed, PER_CATEGORY).run(gen.CATEGORY_ALIASES["base"])
    return cases


def test_generated_edits_from_ten_seeds_are_never_applied_wrongly() -> None:
    cases = _cases()
    verdicts: Counter[str] = Counter()
    wrong: list[str] = []
    for case in cases:
        outcome = replace(
            case["file"],
            case["old"],
            case["new"],
            replace_all=case["replace_all"],
            start_line=case["start_line"],
        )
        if isinstance(outcome, Applied):
            ok = case["expect"] is not None and outcome.content == case["expect"]
            verdicts["correct" if ok else "wrong"] += 1
            if not ok:
                wrong.append(case["id"])
        else:
            verdicts["correct" if case["expect_error"] else "missed"] += 1
    assert len(cases) >= 200
    assert wrong == []
    assert verdicts["correct"] >= 0.97 * len(cases), verdicts
