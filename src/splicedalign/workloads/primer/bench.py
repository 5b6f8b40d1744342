"""Measuring primer solvers: one row per (case, solver) with the median of timed repeats after
warm-up (core.timing), GCUPS (cells/s, comparable across solvers), comparisons/s (the paper's
unit) and the speedup against ``sequential`` on the same case. Shared by benchmarks/primer.py,
the device script and the pipeline."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from splicedalign.core.timing import gcups, time_repeats
from splicedalign.workloads.primer.records import PrimerProblem, PrimerResult
from splicedalign.workloads.primer.solvers import get_solver


@dataclass
class BenchRow:
    case: str
    m: int
    n: int
    k: int
    solver: str
    solutions: int
    cells: int
    comparisons: int
    seconds: float
    seconds_min: float
    seconds_max: float
    gcups: float
    comparisons_per_s: float
    speedup: float = float("nan")  # sequential seconds / these seconds, same case
    extrapolated: bool = False  # seconds scaled from a smaller shape by cells

    def as_dict(self) -> dict:
        return asdict(self)


def measure(case: str, problem: PrimerProblem, solver: str, repeats: int = 3,
            warmup: int = 1) -> tuple[BenchRow, PrimerResult]:
    instance = get_solver(solver)
    timing, result = time_repeats(lambda: instance.solve(problem), repeats, warmup)
    row = BenchRow(case, problem.m, problem.n, problem.k, solver, len(result.solutions), result.cells,
                   result.comparisons, timing.median, timing.min, timing.max, gcups(result.cells, timing.median),
                   result.comparisons / timing.median if timing.median > 0 else float("inf"))
    return row, result


def check_agreement(case: str, results: dict[str, PrimerResult]) -> None:
    """Raise ValueError naming the case and the solvers whose solutions or cells differ."""
    if not results:
        return
    first_name, first = next(iter(results.items()))
    bad = [name for name, r in results.items() if (r.solutions, r.cells) != (first.solutions, first.cells)]
    if bad:
        raise ValueError(f"case {case}: solvers {', '.join(bad)} disagree with {first_name} "
                         f"({len(first.solutions)} solutions, {first.cells} cells)")


def add_speedups(rows: list[BenchRow], baseline: str = "sequential") -> None:
    base = {r.case: r.seconds for r in rows if r.solver == baseline}
    for r in rows:
        if r.case in base and r.seconds > 0:
            r.speedup = base[r.case] / r.seconds


COLUMNS = ("case", "m", "n", "k", "solver", "solutions", "cells", "comparisons", "seconds", "gcups",
           "comparisons_per_s", "speedup")


def format_table(rows: list[BenchRow]) -> str:
    def cell(row: BenchRow, col: str) -> str:
        v = getattr(row, col)
        if col == "seconds":
            return f"{v:.4g}" + (" (extrap.)" if row.extrapolated else "")
        if col in ("gcups", "speedup"):
            return f"{v:.3g}"
        if col == "comparisons_per_s":
            return f"{v:.3g}"
        return f"{v:,}" if isinstance(v, int) else str(v)
    table = [list(COLUMNS)] + [[cell(r, c) for c in COLUMNS] for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(v.rjust(w) for v, w in zip(line, widths)) for line in table)
