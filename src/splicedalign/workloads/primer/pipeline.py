"""The primer workload in the pipeline: data -> cases -> one timed record per case x solver ->
tables (per case m, n, k, solutions, cells; per solver comparisons, seconds, GCUPS,
comparisons/s, speedup vs sequential), the paper's Tables 1-3 and 5 beside ours, and plots.
Aggregation fails naming the case when two solvers' answers (solutions or cells) differ."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from splicedalign.core.errors import InputError, SolverUnavailable
from splicedalign.core.logs import log, log_to
from splicedalign.core.seqio import read_single_fasta
from splicedalign.core.timing import gcups, time_repeats
from splicedalign.report.figures import pyplot, save
from splicedalign.workloads.primer.records import PrimerProblem
from splicedalign.workloads.primer.solvers import SOLVERS
from splicedalign.workloads.primer.synthetic import SHAPES, shaped

# The paper's published figures (papers/001): (table, its solution, seconds, comparisons,
# comparisons/s, our solver standing for it). Tables 1-3: |α| = 43,606, |β| = 241,494, k = 100;
# Table 5: |α| = 107,280, |β| = 1,088,386, k = 100. None = not given.
PAPER = (
    ("Table 1", "Conventional", None, 22960e10, None, None),
    ("Table 1", "Conventional+1", 12216.1, 243e10, None, "conventional"),
    ("Table 1", "Alternative", 8376.7, 137e10, None, None),
    ("Table 1", "Alternative+2", 8230.9, 137e10, None, "alternative"),
    ("Table 2", "OpenMP conventional coarse+1 (4 cores)", 2067.2, None, None, None),
    ("Table 2", "OpenMP alternative coarse+2 (4 cores)", 1481.1, None, None, "multicore"),
    ("Table 2", "OpenMP alternative fine+2+3 (4 cores)", 1544.1, None, None, None),
    ("Table 3", "CUDA conventional 1+3+4+5", None, 274e10, 98.5e8, None),
    ("Table 3", "CUDA alternative 3+4+5+6", 116.0, 137e10, 118.0e8, "primer-paper"),
    ("Table 5", "Sequential alternative+2", None, None, 1.6e8, "alternative"),
    ("Table 5", "OpenMP", None, None, 9.4e8, "multicore"),
    ("Table 5", "CUDA", None, None, 118.5e8, "primer-paper"),
    ("ours", "bit-parallel, one core", None, None, None, "sequential"),
    ("ours", "bit-parallel GPU", None, None, None, "gpu"),
)
PAPER_CASE = {"Table 1": "table1", "Table 2": "table1", "Table 3": "table1", "Table 5": "table5", "ours": "table1"}


@dataclass(frozen=True)
class Case:
    name: str
    alpha: str  # FASTA paths
    beta: str
    k: int


def bundled_cases(manifest: str | Path) -> list[Case]:
    """Cases of a manifest TSV (columns case, alpha, beta, k; paths relative to it)."""
    path = Path(manifest)
    table = pd.read_csv(path, sep="\t", dtype=str)
    missing = {"case", "alpha", "beta", "k"} - set(table.columns)
    if missing:
        raise InputError(str(path), f"manifest lacks column(s) {', '.join(sorted(missing))}")
    return [Case(r.case, str(path.parent / r.alpha), str(path.parent / r.beta), int(r.k)) for r in table.itertuples()]


def synthetic_name(shape: str, scale: int) -> str:
    return shape if scale == 1 else f"{shape}-s{scale}"


def synthetic_k(name: str) -> int:
    return SHAPES[name.split("-s")[0]].k


def write_synthetic(name: str, seed: int, alpha_out: str | Path, beta_out: str | Path) -> None:
    shape, _, scale = name.partition("-s")
    problem = shaped(shape, int(scale or 1), seed)
    for path, rid, seq in ((alpha_out, problem.alpha_name, problem.alpha), (beta_out, problem.beta_name, problem.beta)):
        Path(path).write_text(f">{rid}\n" + "".join(seq[i:i + 80] + "\n" for i in range(0, len(seq), 80)))


def solve_job(alpha: str, beta: str, k: int, case: str, solver: str, repeats: int, reference_max_cells: int,
              out: str, log_path: str) -> None:
    """Time one solver on one case and write its record (JSON); a solver that cannot run here
    (peer not installed, no GPU, reference above its limit) gets a record saying why."""
    log_to(log_path)
    a, b = read_single_fasta(alpha), read_single_fasta(beta)
    problem = PrimerProblem(a.seq, b.seq, int(k), a.id, b.id)
    record: dict = {"case": case, "solver": solver, "m": problem.m, "n": problem.n, "k": problem.k}
    # the reference's cost is cells; bound it by its worst case before running
    if solver == "reference" and problem.m * problem.n * problem.k > reference_max_cells:
        record["unavailable"] = f"skipped: m*n*k = {problem.m * problem.n * problem.k:,} > reference_max_cells"
    else:
        try:
            instance = SOLVERS.get(solver)
            timing, result = time_repeats(lambda: instance.solve(problem), repeats, 1)
        except SolverUnavailable as exc:
            record["unavailable"] = str(exc)
        else:
            record.update(solutions=[list(s) for s in result.solutions], cells=result.cells,
                          comparisons=result.comparisons, gcups=gcups(result.cells, timing.median),
                          comparisons_per_s=result.comparisons / timing.median, **timing.as_dict())
    log.info("%s %s: %s", case, solver, {k: v for k, v in record.items() if k not in ("solutions", "seconds_runs")})
    Path(out).write_text(json.dumps(record) + "\n")


def aggregate(records: list[dict], solvers: list[str]) -> pd.DataFrame:
    """One row per case: m, n, k, solutions, cells, then per solver comparisons, seconds, GCUPS,
    comparisons/s, speedup vs sequential ("n/a: why" when it could not run). Raises ValueError
    naming every case whose solvers disagree (solutions or cells)."""
    by_case: dict[str, dict[str, dict]] = {}
    for r in records:
        by_case.setdefault(r["case"], {})[r["solver"]] = r
    disagree, rows = [], []
    for case, runs in by_case.items():
        answers = {s: (tuple(map(tuple, r["solutions"])), r["cells"]) for s, r in runs.items() if "solutions" in r}
        if len(set(answers.values())) > 1:
            counts = ", ".join(f"{s}: {len(v[0])} solutions/{v[1]} cells" for s, v in answers.items())
            disagree.append(f"{case} ({counts})")
        first = next(iter(runs.values()))
        answer = next(iter(answers.values()), ((), None))
        base = runs.get("sequential", {}).get("seconds")
        row = {"case": case, "m": first["m"], "n": first["n"], "k": first["k"],
               "solutions": len(answer[0]) if answer[1] is not None else None, "cells": answer[1]}
        for s in solvers:
            r = runs.get(s, {"unavailable": "not run"})
            if "seconds" in r:
                row[f"{s}_comparisons"] = r["comparisons"]
                row[f"{s}_seconds"] = r["seconds"]
                row[f"{s}_gcups"] = r["gcups"]
                row[f"{s}_comparisons_per_s"] = r["comparisons_per_s"]
                row[f"{s}_speedup"] = base / r["seconds"] if base and r["seconds"] > 0 else math.nan
            else:
                row[f"{s}_seconds"] = f"n/a: {r['unavailable']}"
        rows.append(row)
    if disagree:
        raise ValueError("primer solvers disagree on case(s): " + "; ".join(disagree))
    return pd.DataFrame(rows)


def paper_tables(results: pd.DataFrame) -> pd.DataFrame:
    """The paper's Tables 1-3 and 5 (published values) beside ours: for each row, our solver
    standing for it on the case shaped like the paper's (table1 / table5, or a scaled variant
    such as table1-s16; the largest case when none is), measured in this run."""
    rows = []
    for table, solution, seconds, comps, cps, ours in PAPER:
        want = PAPER_CASE[table]
        shaped_like = results[results["case"].str.split("-s").str[0] == want]
        pool = shaped_like if len(shaped_like) else results
        case = pool.loc[pool["cells"].astype(float).idxmax()] if len(pool) else None
        row = {"table": table, "paper_solution": solution, "paper_seconds": seconds,
               "paper_comparisons": comps, "paper_comparisons_per_s": cps, "our_solver": ours}
        if ours is not None and case is not None and isinstance(case.get(f"{ours}_seconds"), float):
            row.update(our_case=case["case"], our_m=case["m"], our_n=case["n"], our_k=case["k"],
                       our_seconds=case[f"{ours}_seconds"], our_comparisons=case[f"{ours}_comparisons"],
                       our_comparisons_per_s=case[f"{ours}_comparisons_per_s"], our_gcups=case[f"{ours}_gcups"])
        rows.append(row)
    table = pd.DataFrame(rows)
    for col in ("our_m", "our_n", "our_k", "our_comparisons"):
        if col in table:
            table[col] = table[col].astype("Int64")
    return table


def plot_time_vs_size(results: pd.DataFrame, solvers: list[str], out: str | Path) -> None:
    """Seconds against cells per solver (log-log, the paper's Fig. 10 style) and speedup vs
    sequential per solver and case, side by side."""
    fig, (ax, bx) = pyplot().subplots(1, 2, figsize=(11, 4.2))
    ordered = results.sort_values("cells")
    for s in solvers:
        col = f"{s}_seconds"
        if col not in ordered:
            continue
        ok = ordered[pd.to_numeric(ordered[col], errors="coerce").notna()]
        if len(ok):
            ax.plot(ok["cells"].astype(float), ok[col].astype(float), "o-", label=s)
    ax.set(xscale="log", yscale="log", xlabel="cells (conventional method, Opt 1)", ylabel="seconds (median)",
           title="primer: time vs problem size")
    ax.legend(fontsize=8)
    width = 0.8 / max(1, len(solvers))
    for i, s in enumerate(solvers):
        col = f"{s}_speedup"
        if col in ordered:
            vals = pd.to_numeric(ordered[col], errors="coerce")
            bx.bar([x + i * width for x in range(len(ordered))], vals, width, label=s)
    bx.set_xticks([x + 0.4 for x in range(len(ordered))], ordered["case"], rotation=30, ha="right", fontsize=8)
    bx.set(yscale="log", ylabel="speedup vs sequential", title="primer: speedup per solver")
    bx.axhline(1, color="grey", lw=0.5)
    bx.legend(fontsize=8)
    fig.tight_layout()
    save(fig, out)
