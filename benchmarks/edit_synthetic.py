"""Synthetic edit cases in the corpus's categories, built from source files on this machine.

The public corpus is a sample; this script makes many more cases of the same kinds from other
files (by default the Python standard library and C headers) to catch rules that only fit the
sample. It prints correct / wrong / missed per category and, with --show, the failing cases.

Run: .venv/bin/python benchmarks/edit_synthetic.py [--files 60] [--seed 1] [--show wrong]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import sysconfig
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

from bb7.edits import Applied, replace

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")


class Case(dict[str, object]):
    pass


def sources(limit: int, rng: random.Random) -> list[Path]:
    roots = [Path(sysconfig.get_paths()["stdlib"]), Path("/usr/include")]
    found: list[Path] = []
    for root in roots:
        if root.is_dir():
            found += [p for p in root.glob("*.py")] + [p for p in root.glob("*.h")]
    rng.shuffle(found)
    out: list[Path] = []
    for path in found:
        try:
            text = path.read_text("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if 80 <= text.count("\n") <= 4000 and "\r" not in text and "\t" not in text[:0]:
            out.append(path)
        if len(out) >= limit:
            break
    return out


def comment(path: Path) -> str:
    return "#" if path.suffix == ".py" else "//"


def pick_region(lines: list[str], rng: random.Random, size: int) -> int | None:
    content = "\n".join(lines)
    for _ in range(60):
        start = rng.randrange(0, max(1, len(lines) - size))
        block = lines[start : start + size]
        if len(block) < size or sum(bool(IDENT.search(b)) for b in block) < min(2, size):
            continue
        if not block[0].strip() or not block[-1].strip():
            continue
        text = "\n".join(block)
        if content.count(text) == 1:
            return start
    return None


def modify(block: list[str], rng: random.Random) -> list[str] | None:
    """Rename one identifier on one line (what most corpus edits do)."""
    candidates = [i for i, line in enumerate(block) if IDENT.search(line)]
    if not candidates:
        return None
    i = rng.choice(candidates)
    words = IDENT.findall(block[i])
    word = rng.choice(words)
    out = list(block)
    out[i] = block[i].replace(word, word + "_new", 1)
    return out


def repeated_line_edit(
    lines: list[str], rng: random.Random, keep: Callable[[str, int], bool]
) -> tuple[str, str] | None:
    """A line occurring several times (`keep(line, count)` decides) and that line renamed."""
    counts = Counter(lines)
    repeated = [line for line, count in counts.items() if keep(line, count)]
    if not repeated:
        return None
    line = rng.choice(repeated)
    changed = modify([line], rng)
    return None if changed is None else (line, changed[0])


def lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def make(category: str, path: Path, text: str, rng: random.Random) -> dict[str, object] | None:
    lines = text.split("\n")
    size = rng.randint(3, 12)
    start = pick_region(lines, rng, size)
    if start is None:
        return None
    block = lines[start : start + size]
    changed = modify(block, rng)
    if changed is None:
        return None

    def expect_with(new_block: list[str]) -> str:
        return "\n".join(lines[:start] + new_block + lines[start + size :])

    old_lines, new_lines = list(block), list(changed)
    case: dict[str, object] = {"replace_all": False, "start_line": None, "expect_error": None}
    expect = expect_with(changed)
    file = text

    if category == "exact":
        pass
    elif category == "trailing_ws":
        old_lines = [b + rng.choice(["", " ", "  ", "\t"]) for b in block]
        if old_lines == block:
            old_lines[0] += " "
    elif category == "indent_shift":
        kind = rng.choice(["+2", "+4", "-2", "-4", "dedent"])
        indented = [b for b in block if b.strip()]
        if any("\t" in lead(b) for b in indented):
            return None
        if kind == "dedent":
            old_lines = [b.lstrip() for b in block]
            new_lines = [c.lstrip() for c in changed]
        elif kind.startswith("+"):
            k = int(kind[1:])
            old_lines = [" " * k + b if b.strip() else b for b in block]
            new_lines = [" " * k + c if c.strip() else c for c in changed]
        else:
            k = int(kind[1:])
            if any(len(lead(b)) < k for b in indented):
                return None
            old_lines = [b[k:] if b.strip() else b for b in block]
            new_lines = [c[k:] if c.strip() else c for c in changed]
        if old_lines == block:
            return None
    elif category == "tabs_spaces":
        if not any(lead(b) for b in block):
            return None
        if all(len(lead(b)) % 4 == 0 and "\t" not in lead(b) for b in block):

            def conv(s: str) -> str:
                return "\t" * (len(lead(s)) // 4) + s.lstrip() if s.strip() else s

            file = "\n".join(conv(x) for x in lines)
            expect = "\n".join(conv(x) for x in expect.split("\n"))
        else:
            return None
    elif category == "line_trim":
        idx = [i for i, b in enumerate(block) if lead(b) and i > 0]
        if not idx:
            return None
        for i in rng.sample(idx, min(len(idx), rng.randint(1, 2))):
            old_lines[i] = block[i].lstrip()
    elif category == "inner_ws":
        idx = [i for i, b in enumerate(block) if " " in b.strip()]
        if not idx:
            return None
        i = rng.choice(idx)
        body = block[i].strip()
        pos = [m.start() for m in re.finditer(" ", body)]
        p = rng.choice(pos)
        body = body[:p] + "  " + body[p + 1 :]
        old_lines[i] = lead(block[i]) + body
    elif category == "escape":
        old = json.dumps("\n".join(old_lines))[1:-1]
        case.update(old=old, new="\n".join(new_lines))
    elif category == "smart_quotes":
        if not any("'" in b or '"' in b for b in block):
            return None
        old_lines = [
            b.replace("'", "\u2019").replace('"', "\u201d") if rng.random() < 0.7 else b
            for b in block
        ]
        if old_lines == block:
            return None
    elif category == "line_numbers":
        style = rng.choice(["cat", "bar"])

        def gutter(ls: list[str]) -> list[str]:
            if style == "cat":
                return [f"{start + 1 + i:>6}\t{x}" for i, x in enumerate(ls)]
            return [f"{start + 1 + i} | {x}" for i, x in enumerate(ls)]

        old_lines, new_lines = gutter(block), gutter(changed)
    elif category == "crlf":
        file = text.replace("\n", "\r\n")
        expect = expect.replace("\n", "\r\n")
    elif category == "truncated_ends":
        which = rng.choice(["first", "last", "both"])
        for i in ([0] if which != "last" else []) + ([size - 1] if which != "first" else []):
            line = block[i]
            cut = max(8, int(len(line) * 0.6))
            if cut >= len(line.rstrip()):
                return None
            old_lines[i] = line[:cut].rstrip()
            if old_lines[i].strip() == "":
                return None
    elif category == "middle_drift":
        if size < 5:
            return None
        idx = [i for i in range(1, size - 1) if IDENT.search(block[i])]
        if not idx:
            return None
        for i in rng.sample(idx, min(len(idx), rng.randint(1, 2))):
            word = rng.choice(IDENT.findall(block[i]))
            k = rng.randrange(1, len(word) - 1)
            typo = word[:k] + word[k + 1] + word[k] + word[k + 2 :]
            if typo == word:
                return None
            old_lines[i] = block[i].replace(word, typo, 1)
    elif category == "blank_lines":
        blanks = [i for i, b in enumerate(block) if not b.strip() and 0 < i < size - 1]
        if blanks:
            old_lines = [b for i, b in enumerate(block) if i != blanks[0]]
        else:
            k = rng.randrange(1, size)
            old_lines = [*block[:k], "", *block[k:]]
    elif category == "elided":
        if size < 8:
            return None
        marker = lead(block[3]) + comment(path) + " ... existing code ..."
        changed_tail = modify(block[-2:], rng)
        if changed_tail is None:
            return None
        old_lines = [*block[:2], marker, *block[-2:]]
        new_lines = [*block[:2], marker, *changed_tail]
        expect = expect_with(block[:-2] + changed_tail)
    elif category == "hallucinated":
        if size < 5:
            return None
        others = [x for x in lines if x.strip() and x not in block]
        old_lines = [block[0], *rng.sample(others, size - 2), block[-1]]
        case.update(expect=None, expect_error="not_found")
    elif category == "stale_region":
        others = [x for x in lines if x.strip() and x not in block]
        old_lines = [block[0], *rng.sample(others, size - 1)]
        case.update(expect=None, expect_error="not_found")
    elif category == "insert_after_anchor":
        line = block[0]
        if text.count(line) != 1:
            return None
        extra = lead(line) + comment(path) + " TODO: document the error conditions."
        old_lines, new_lines = [line], [line, extra]
        expect = expect_with([line, extra, *block[1:]])
    elif category == "deletion":
        case.update(old="\n".join(block) + "\n", new="")
        expect = "\n".join(lines[:start] + lines[start + size :])
    elif category == "replace_all":
        picked = repeated_line_edit(
            lines, rng, lambda x, c: len(x.strip()) > 6 and 2 <= c <= 6 and text.count(x) == c
        )
        if picked is None:
            return None
        line, changed_line = picked
        case.update(old=line, new=changed_line, replace_all=True)
        expect = text.replace(line, changed_line)
    elif category == "ambiguous":
        picked = repeated_line_edit(lines, rng, lambda x, c: len(x.strip()) > 10 and c >= 2)
        if picked is None:
            return None
        case.update(old=picked[0], new=picked[1], expect=None, expect_error="ambiguous")
    elif category == "ambiguous_hinted":
        picked = repeated_line_edit(
            lines, rng, lambda x, c: len(x.strip()) > 10 and c == 2 and text.count(x) == 2
        )
        if picked is None:
            return None
        line, changed_line = picked
        at = [i for i, x in enumerate(lines) if x == line]
        if at[1] - at[0] < 8:
            return None
        target = rng.choice(at)
        exp = list(lines)
        exp[target] = changed_line
        hint = target + 1 + rng.randint(-2, 2)
        case.update(old=line, new=changed_line, start_line=hint, expect="\n".join(exp))
    else:
        raise ValueError(category)

    case.setdefault("old", "\n".join(old_lines))
    case.setdefault("new", "\n".join(new_lines))
    case.setdefault("expect", expect)
    case.update(category=category, file=file, id=f"{path.name}:{category}:{start}")
    return case


CATEGORIES = [
    "exact", "trailing_ws", "indent_shift", "tabs_spaces", "line_trim", "inner_ws", "escape",
    "smart_quotes", "line_numbers", "crlf", "truncated_ends", "middle_drift", "blank_lines",
    "elided", "ambiguous", "ambiguous_hinted", "hallucinated", "stale_region", "replace_all",
    "insert_after_anchor", "deletion",
]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", choices=["wrong", "missed", "all"])
    parser.add_argument("--dump", help="write the failing cases as JSON lines here")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    table: dict[str, Counter[str]] = defaultdict(Counter)
    failing: list[dict[str, object]] = []
    run: Callable[[dict[str, object]], object] = lambda c: replace(  # noqa: E731
        str(c["file"]), str(c["old"]), str(c["new"]),
        replace_all=bool(c["replace_all"]), start_line=c["start_line"],  # type: ignore[arg-type]
    )  # fmt: skip
    for path in sources(args.files, rng):
        text = path.read_text("utf-8")
        for category in CATEGORIES:
            case = make(category, path, text, rng)
            if case is None or case["old"] == case["new"]:
                continue
            outcome = run(case)
            if isinstance(outcome, Applied):
                verdict = "correct" if outcome.content == case["expect"] else "wrong"
            else:
                verdict = "correct" if case["expect_error"] else "missed"
            table[category][verdict] += 1
            if verdict != "correct":
                failing.append(case)
                if args.show in (verdict, "all"):
                    detail = outcome.strategy if isinstance(outcome, Applied) else outcome.kind
                    print(f"{verdict:8} {case['id']} [{detail}]", file=sys.stderr)
    total: Counter[str] = Counter()
    print(f"{'category':22} {'correct':>8} {'wrong':>6} {'missed':>7}")
    for name in CATEGORIES:
        row = table[name]
        total.update(row)
        print(f"{name:22} {row['correct']:8} {row['wrong']:6} {row['missed']:7}")
    n = sum(total.values())
    print(f"{'total':22} {total['correct']:8} {total['wrong']:6} {total['missed']:7}"
          f"   {100 * total['correct'] / max(n, 1):.1f}% correct of {n}")  # fmt: skip
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            for case in failing:
                out.write(json.dumps(case) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
