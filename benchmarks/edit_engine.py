"""Edit-engine latency on generated files of 1k, 10k and 100k lines (prints a table).

Every edit is applied to a fresh copy of the content with no index reused, so each figure
includes building the line index: the cost of the first edit of a response. Targets (p95, one
core, every kind, judged on the CPU time of the calling thread): <= 2 ms at 1k lines, <= 5 ms
at 10k, <= 50 ms at 100k, and the worst case (CPU) under twice that (< 100 ms at 100k). A long
`old` (240 lines, a quarter of a 1k-line file) has targets at 10k and 100k lines only.

The shapes include those slowest at 100k lines: an `old` whose every line is common (`}`,
`return 0;`, blanks), a long `old` with one damaged line, an identifier renamed near the end.
Wall-clock p50/p95 are printed too, and beside them a plain
`str.find` over the same content timed in the same run: how fast the machine was at that
moment (a loaded machine slows both).

Run: .venv/bin/python benchmarks/edit_engine.py [--sizes 1000,10000,100000] [--quick]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Callable

from bb7.edits import Applied, replace

TARGET_MS = {1_000: 2.0, 10_000: 5.0, 100_000: 50.0}
LONG_TARGET_MS = {10_000: 5.0, 100_000: 50.0}


def generate(lines: int, seed: int = 7) -> list[str]:
    """C-like code: many functions, `}` on thousands of lines, blank lines, nested blocks."""
    rng = random.Random(seed)
    out: list[str] = []
    n = 0
    while len(out) < lines:
        n += 1
        name = f"handle_{rng.choice(['read', 'write', 'open', 'close', 'seek'])}_{n}"
        out.append(f"static int {name}(struct ctx *c, int flags_{n})")
        out.append("{")
        for k in range(rng.randint(3, 9)):
            var = f"v{n}_{k}"
            out.append(f"    int {var} = compute(c, {rng.randint(0, 999)}, flags_{n});")
            if rng.random() < 0.4:
                out.append(f"    if ({var} < 0) {{")
                out.append(f'        log_error(c, "{name}: step {k} failed", {var});')
                out.append(f"        return {var};")
                out.append("    }")
        out.append("    return 0;")
        out.append("}")
        out.append("")
    out = out[:lines]
    # One function whose body is nothing but lines found everywhere (`{`, `}`, `return 0;`,
    # blanks): unique only as a sequence.
    at = out.index("{", len(out) * 3 // 5) + 1
    out[at:at] = COMMON_BODY
    return out[:lines]


COMMON_BODY = ["", "    {", "    }", "", "    return 0;", "", "}", "", "{"]


def block_at(lines: list[str], middle: int, size: int) -> tuple[int, list[str]]:
    """A block of `size` lines starting at a function header near `middle`."""
    start = middle
    while not lines[start].startswith("static int"):
        start += 1
    return start, lines[start : start + size]


def cases(lines: list[str]) -> list[tuple[str, str, str, bool]]:
    mid = len(lines) // 2
    start, block = block_at(lines, mid, 6)
    old = "\n".join(block)
    changed = [*block[:2], "    int added = 1;", *block[2:]]
    out: list[tuple[str, str, str, bool]] = [("exact", old, "\n".join(changed), True)]

    drift = list(block)
    typo = next(i for i in range(1, len(block) - 1) if "compute" in block[i])
    drift[typo] = drift[typo].replace("compute", "compte")
    out.append(("fuzzy: middle drift", "\n".join(drift), "\n".join(changed), True))

    dedented = [ln[4:] if ln.startswith("    ") else ln for ln in block]
    shifted = ["  " + ln if ln else ln for ln in block]
    out.append(
        ("fuzzy: re-indent", "\n".join(shifted), "\n".join(["  " + x for x in changed]), True)
    )
    damaged = [ln.lstrip() if i % 2 else ln for i, ln in enumerate(block)]
    out.append(("fuzzy: damaged indent", "\n".join(damaged), "\n".join(changed), True))
    del dedented

    invented = [block[0]] + [f"    made_up_call_{i}(c);" for i in range(4)] + [block[-1]]
    out.append(("refused: invented middle", "\n".join(invented), "\n".join(block), False))

    # Stress 1: first line `}` (thousands of occurrences), the rest a unique region.
    close = start - 2  # the `}` closing the previous function
    region = lines[close : close + 8]
    assert region[0] == "}"
    out.append(("stress: first line '}'", "\n".join(region), "\n".join([*region, "// x"]), True))

    # Stress 2: a 32-line old, exact and with one drifted line.
    big = lines[start : start + 32]
    out.append(("stress: 32-line old", "\n".join(big), "\n".join(big[:-1]), True))
    big_drift = list(big)
    typos = [i for i in range(1, 31) if "compute" in big[i]][:2]
    for i in typos:
        big_drift[i] = big_drift[i].replace("compute", "compte")
    out.append(("stress: 32-line drifted", "\n".join(big_drift), "\n".join(big[:-1]), True))

    # Stress 3: a block found in thousands of places (refused as ambiguous), and one whose only
    # word is on thousands of lines while the block is nowhere.
    out.append(("refused: everywhere", "    return 0;\n}", "    return 1;\n}", False))
    out.append(("refused: common words", "}\n\n  static", "}\n  static", False))

    # Stress 4: an edit in the file's last lines whose `old` carries a renamed identifier (the
    # model's copy is out of date): in a middle line it is drift; in every line, nowhere.
    _, tail = block_at(lines, len(lines) - 40, 8)
    renamed = list(tail)
    line = next(i for i in range(1, 7) if " = compute(" in tail[i])
    var = tail[line].split()[1]
    renamed[line] = renamed[line].replace(var, var + "_old")
    out.append(("last lines: renamed in middle", "\n".join(renamed), "\n".join(tail[:-1]), True))
    name = tail[0].split()[2].split("(")[0]
    everywhere = [ln.replace(name, name + "_v2").replace(var, "value") for ln in tail]
    out.append(("last lines: renamed everywhere", "\n".join(everywhere), "\n".join(tail), False))
    out.append(
        (
            "last lines: renamed in first",
            "\n".join([everywhere[0], *tail[1:]]),
            "\n".join(tail[:-1]),
            False,
        )
    )
    # Stress 5: `old` whose words are all common (`i`, `0`): found by its lines, not its words.
    out.append(("common words only", "    int i = 0;\n    i = 0;", "    int i = 1;", False))
    # Stress 6: `old` whose every line is common everywhere (`}`, `return 0;`, blanks), unique
    # only as a sequence: as the file has it, re-indented, and with a blank line missing.
    common = ["{", *COMMON_BODY[:-1]]
    grown = [*common[:4], "        int unused = 0;", *common[4:]]
    out.append(("common lines: exact", "\n".join(common), "\n".join(grown), True))
    shifted_common = ["  " + ln if ln else ln for ln in common]
    out.append(
        (
            "common lines: re-indented",
            "\n".join(shifted_common),
            "\n".join(shifted_common[:-1]),
            True,
        )
    )
    squeezed = [ln for k, ln in enumerate(common) if k != 6]
    out.append(("common lines: blank missing", "\n".join(squeezed), "\n".join(squeezed[:-2]), True))
    # Stress 7: a long `old` (240 lines) with one damaged line: a typo, or its indentation lost.
    _, long_block = block_at(lines, len(lines) // 3, 240)
    typo_at = next(i for i in range(120, 239) if " = compute(" in long_block[i])
    long_typo = list(long_block)
    long_typo[typo_at] = long_typo[typo_at].replace("compute", "compte")
    long_new = "\n".join([*long_block[:10], "    int added = 1;", *long_block[10:]])
    out.append(("long old: one line drifted", "\n".join(long_typo), long_new, True))
    long_trim = list(long_block)
    long_trim[typo_at] = long_trim[typo_at].lstrip()
    out.append(("long old: one line dedented", "\n".join(long_trim), long_new, True))
    return out


def measure(fn: Callable[[], object], reps: int) -> tuple[list[float], list[float]]:
    """(wall-clock ms, CPU ms of this thread) per call. The targets are for one core: CPU time
    is what the engine costs, wall-clock what a loaded machine made of it."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(reps):
        # The garbage of earlier calls is collected outside the timing: a collection it would
        # trigger is the cost of those calls (and of this script's 100k-line lists), not this one.
        gc.collect()
        w0, c0 = time.perf_counter(), time.thread_time()
        fn()
        cpu.append((time.thread_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    return wall, cpu


def p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    failures = 0
    print(
        f"{'lines':>7}  {'edit':30} {'result':10} {'p50 ms':>7} {'p95 ms':>7} {'cpu p95':>8}"
        f" {'worst':>7} {'target':>7} {'str.find p95':>13}"
    )
    for size in sizes:
        lines = generate(size)
        content = "\n".join(lines) + "\n"
        reps = max(5, (20 if args.quick else 60) * 1000 // max(size, 1000))
        reps = max(reps, 5 if args.quick else 30)
        for kind, old, new, should_apply in cases(lines):
            outcome = replace(content, old, new)
            applied = isinstance(outcome, Applied)
            label = outcome.strategy if isinstance(outcome, Applied) else outcome.kind
            wall, cpu = measure(lambda c=content, o=old, n=new: replace(c, o, n), reps)
            first = old.split("\n", 1)[0]
            baseline = p95(measure(lambda c=content, f=first: c.find(f + "\x00"), reps)[0])
            targets = LONG_TARGET_MS if kind.startswith("long old") else TARGET_MS
            target = targets.get(size, float("inf"))
            # The worst case (CPU) may be up to twice the p95 target (< 100 ms at 100k lines).
            ok = applied == should_apply and p95(cpu) <= target and max(cpu) < 2 * target
            failures += not ok
            mark = "" if ok else "  <-- MISSED"
            print(
                f"{size:>7}  {kind:30} {label[:10]:10} {statistics.median(wall):7.2f} "
                f"{p95(wall):7.2f} {p95(cpu):8.2f} {max(cpu):7.2f} "
                f"{target:7.0f} {baseline:13.2f}{mark}".replace("    inf", "      -")
            )
    print("all targets met" if not failures else f"{failures} target(s) missed")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
