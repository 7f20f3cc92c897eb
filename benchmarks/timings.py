"""The table the editor benchmarks print: per measure, min / median / p99 / max in ms and the
target."""

from __future__ import annotations

import statistics
from collections.abc import Callable

Row = tuple[str, list[float], str]  # (measure, values in ms, target)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def print_table(rows: list[Row], width: int = 38) -> None:
    measures: list[tuple[str, Callable[[list[float]], float]]] = [
        ("min", min),
        ("median", statistics.median),
        ("p99", lambda v: percentile(v, 0.99)),
        ("max", max),
    ]
    header = " ".join(f"{m:>8}" for m, _ in measures)
    print(f"{'measure (ms)':{width}} {'n':>4} {header}  target")
    for name, values, target in rows:
        cells = " ".join(f"{fn(values):8.2f}" for _, fn in measures)
        print(f"{name:{width}} {len(values):4} {cells}  {target}")
