"""The nw workload in the pipeline: data -> cases -> one timed record per case x solver ->
tables (per case cells, seconds, GCUPS, speedup vs sequential, peers side by side, n/a when
not installed), paper 002's Table 1 beside the published values, and a time-vs-size plot.
Aggregation fails naming the case when two solvers disagree on a score."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from splicedalign.core.errors import InputError, SolverUnavailable
from splicedalign.core.logs import log, log_to
from splicedalign.core.seqio import read_fasta
from splicedalign.core.timing import gcups, time_repeats
from splicedalign.workloads.nw.records import Costs, Pair, cigar_cost
from splicedalign.workloads.nw.solvers import SOLVERS
from splicedalign.workloads.nw.synthetic import make_pair, pair_name, to_fasta

# paper 002, Table 1: n -> (serial s, CUDA s or None = "failed", table space)
PAPER_TABLE1 = {48: (0.000018, 0.000043, "2 kB"), 9_024: (1.392797, 0.005645, "81 MB"),
                15_184: (8.435221, 0.813134, "231 MB"), 19_456: (20.276045, 2.487627, "379 MB"),
                30_368: (96.541793, None, "922 MB")}


@dataclass(frozen=True)
class Case:
    name: str
    fasta: str  # one FASTA file of two records: seq1, seq2


def bundled_cases(manifest: str | Path) -> list[Case]:
    """Cases of a manifest TSV (columns case, fasta; paths relative to the manifest)."""
    path = Path(manifest)
    table = pd.read_csv(path, sep="\t", dtype=str)
    missing = {"case", "fasta"} - set(table.columns)
    if missing:
        raise InputError(str(path), f"manifest lacks column(s) {', '.join(sorted(missing))}")
    return [Case(row.case, str(path.parent / row.fasta)) for row in table.itertuples()]


def paper_case_names(sizes: list[int], kinds: list[str]) -> list[str]:
    return [pair_name(n, kind) for n in sizes for kind in kinds]


def write_paper_case(name: str, seed: int, out: str | Path) -> None:
    kind, n = name.rsplit("-", 1)
    Path(out).write_text(to_fasta(make_pair(int(n), kind, seed)))


def load_pair(name: str, fasta: str | Path) -> Pair:
    records = read_fasta(fasta)
    if len(records) != 2:
        raise InputError(str(fasta), f"{len(records)} FASTA records, expected two (seq1, seq2)")
    return Pair.from_strings(records[0].seq, records[1].seq, name, records[0].id, records[1].id)


def solve_job(fasta: str, case: str, solver: str, costs: dict, repeats: int, traceback: bool,
              reference_max_cells: int, out: str, log_path: str) -> None:
    """Time one solver on one case; write its record (JSON). A solver that cannot run here
    (peer not installed, no GPU, reference above its size limit) gets a record saying why."""
    log_to(log_path)
    pair = load_pair(case, fasta)
    cost = Costs(**costs)
    record: dict = {"case": case, "solver": solver, "n": pair.n, "m": pair.m, "cells": pair.cells}
    if solver == "reference" and pair.cells > reference_max_cells:
        record["unavailable"] = f"skipped: {pair.cells:,} cells > reference_max_cells"
    else:
        try:
            instance = SOLVERS.get(solver)
            timing, result = time_repeats(lambda: instance.solve(pair, cost, traceback=traceback), repeats, 1)
        except SolverUnavailable as exc:
            record["unavailable"] = str(exc)
        else:
            if result.cigar is not None and cigar_cost(result.cigar, pair.a, pair.b, cost) != result.score:
                raise ValueError(f"{case}: {solver}'s CIGAR does not cost its score {result.score}")
            record.update(score=result.score, identity=result.identity, gcups=gcups(pair.cells, timing.median),
                          kernel_ms=getattr(instance, "kernel_ms", None), **timing.as_dict())
    log.info("%s %s: %s", case, solver, {k: v for k, v in record.items() if k != "seconds_runs"})
    Path(out).write_text(json.dumps(record, indent=1) + "\n")


def aggregate(records: list[dict], solvers: list[str]) -> pd.DataFrame:
    """One row per case: cells, then per solver seconds / GCUPS / speedup vs sequential
    ("n/a: why" when it could not run). Raises ValueError naming every case whose solvers
    disagree on the score."""
    by_case: dict[str, dict[str, dict]] = {}
    for r in records:
        by_case.setdefault(r["case"], {})[r["solver"]] = r
    disagree = []
    rows = []
    for case, runs in by_case.items():
        scores = {s: r["score"] for s, r in runs.items() if "score" in r}
        if len(set(scores.values())) > 1:
            disagree.append(f"{case} ({', '.join(f'{s}={v}' for s, v in scores.items())})")
        first = next(iter(runs.values()))
        base = runs.get("sequential", {}).get("seconds")
        row = {"case": case, "n": first["n"], "m": first["m"], "cells": first["cells"],
               "score": next(iter(scores.values()), None)}
        for s in solvers:
            r = runs.get(s, {"unavailable": "not run"})
            if "seconds" in r:
                row[f"{s}_seconds"] = r["seconds"]
                row[f"{s}_gcups"] = r["gcups"]
                row[f"{s}_speedup"] = base / r["seconds"] if base and r["seconds"] > 0 else math.nan
            else:
                reason = r["unavailable"]
                na = "n/a: not installed" if "not installed" in reason else f"n/a: {reason}"
                row[f"{s}_seconds"] = row[f"{s}_gcups"] = row[f"{s}_speedup"] = na
        rows.append(row)
    if disagree:
        raise ValueError("nw: solvers disagree on the score of: " + "; ".join(disagree))
    return pd.DataFrame(rows).sort_values(["cells", "case"]).reset_index(drop=True)


def table1(results: pd.DataFrame, solvers: list[str]) -> pd.DataFrame:
    """Paper 002 Table 1 (published serial / CUDA seconds, table space) beside ours, measured
    on the 10%-mutated n x n pair of each size ("not in this data set" otherwise)."""
    rows = []
    for n, (serial, cuda, space) in PAPER_TABLE1.items():
        row = {"n": n, "paper_serial_s": serial, "paper_cuda_s": "failed" if cuda is None else cuda,
               "paper_space": space}
        match = results[results["case"] == pair_name(n, "mutated")]
        for s in solvers:
            row[f"{s}_s"] = match.iloc[0][f"{s}_seconds"] if len(match) else "not in this data set"
        rows.append(row)
    return pd.DataFrame(rows)


def plot_times(results: pd.DataFrame, solvers: list[str], out: str | Path) -> None:
    """Time vs cells per solver (log-log), one marker per case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for s in solvers:
        seconds = pd.to_numeric(results[f"{s}_seconds"], errors="coerce")
        ok = seconds.notna() & (seconds > 0)
        if ok.any():
            order = np.argsort(results["cells"][ok].to_numpy())
            ax.plot(results["cells"][ok].to_numpy()[order], seconds[ok].to_numpy()[order], "o-", label=s)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cells (|seq1| x |seq2|)")
    ax.set_ylabel("seconds (median)")
    ax.set_title("nw: time vs size per solver")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
