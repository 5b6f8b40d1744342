"""Aggregation of per-case × solver records into the benchmark tables (SPEC §3).

Inputs are plain records (the JSON the solve step writes) and the data set's cases, so the
functions work the same from Snakemake, from ``python -m splicedalign.workloads.spliced.pipeline report`` and in tests.
A solver that could not run (``available: false``) appears with n/a values, never an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from splicedalign.report.stats import linear_fit, spearman, theil_sen
from splicedalign.workloads.spliced.estimate import (
    INTRA_BIN,
    average_histogram,
    case_stats_of,
    inter_histogram,
    intra_histogram,
)
from splicedalign.workloads.spliced.records import TestCase

BASELINE = "sequential"
# The model units each solver's time should follow (SPEC §4): one cell at a time for the CPU
# solvers (multicore's few cores do not change the shape), Eq. 4 for the intra-exon accelerator,
# Eq. 5 for those exploiting inter-exon parallelism too.
MODEL_OF = {"reference": "est_seq", "sequential": "est_seq", "multicore": "est_seq",
            "accel1": "est_intra", "accel2": "est_intra_inter", "gpu": "est_intra_inter"}
UNITS = ("est_seq", "est_intra", "est_intra_inter")
# The accelerator each one is compared with in the paper's "slower than the previous" count.
PREVIOUS = {"accel2": "accel1", "gpu": "accel2"}
# Unreliable timings (flagged in cases.tsv and summary.tsv, never silently averaged in):
# repeats whose max/min exceeds SPREAD_LIMIT, or a case more than TREND_FACTOR off the
# solver's own trend over the data set (robust log-log line of time against the model units
# of its design; needs TREND_MIN_CASES cases).
SPREAD_LIMIT = 1.5
TREND_FACTOR = 4.0
TREND_MIN_CASES = 5
ID_COLUMNS = ("case", "base_id", "target_id", "m", "n", "K", "exon_length_sum", "cells", "groups",
              "mean_group_size", *UNITS)


class ScoreDisagreement(RuntimeError):
    """Two solvers (or a solver's batch and single-case runs) disagree on a case's score."""


def case_frame(cases: Iterable[TestCase]) -> pd.DataFrame:
    """One row per case: ids, sizes and the model's numbers (SPEC §3-4)."""
    rows = []
    for c in cases:
        stats = case_stats_of(c)
        rows.append({"case": c.name, "base_id": c.base_id, "target_id": c.target_id, "m": c.m, "n": c.n,
                     **{k: stats[k] for k in ID_COLUMNS[5:]}})
    return pd.DataFrame(rows, columns=list(ID_COLUMNS))


MEASURED = ["case", "solver", "score", "seconds", "seconds_score", "mcups", "seconds_min", "seconds_max"]


def measurements(records: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Long table (case, solver, score, seconds, seconds_score, mcups, seconds_min, seconds_max)
    of the available records (min/max NaN for a record that does not carry them)."""
    rows = [{"case": r["case"], "solver": r["solver"], "score": int(r["score"]), "seconds": r["seconds"],
             "seconds_score": r.get("seconds_score", np.nan), "mcups": r["mcups"],
             "seconds_min": r.get("seconds_min", np.nan), "seconds_max": r.get("seconds_max", np.nan)}
            for r in records if r.get("available", True)]
    return pd.DataFrame(rows, columns=MEASURED)


def check_scores(records: Iterable[Mapping[str, Any]], batches: Iterable[Mapping[str, Any]] = ()) -> None:
    """Raise ScoreDisagreement naming every case whose scores differ between solvers or runs."""
    seen: dict[str, dict[str, int]] = {}
    for r in records:
        if r.get("available", True):
            seen.setdefault(r["case"], {})[r["solver"]] = int(r["score"])
    for b in batches:
        for case, score in (b.get("scores") or {}).items():
            seen.setdefault(case, {})[f"{b['solver']} (batch)"] = int(score)
    bad = {case: s for case, s in seen.items() if len(set(s.values())) > 1}
    if bad:
        lines = [f"  {case}: " + ", ".join(f"{k}={v}" for k, v in sorted(s.items())) for case, s in sorted(bad.items())]
        raise ScoreDisagreement(f"solvers disagree on the score of {len(bad)} case(s):\n" + "\n".join(lines))


def cases_table(frame: pd.DataFrame, meas: pd.DataFrame, solvers: Sequence[str]) -> pd.DataFrame:
    """``frame`` plus per solver score, seconds, MCUPS and speedup vs sequential (NaN = n/a),
    then per solver the spread of its repeats (max/min) and its unreliable-timing flag."""
    out = frame.copy()
    by = {s: meas[meas.solver == s].set_index("case") for s in solvers}
    base = by.get(BASELINE)
    for s in solvers:
        m = by[s]
        out[f"{s}_score"] = out.case.map(m.score).astype("Int64")
        out[f"{s}_seconds"] = out.case.map(m.seconds)
        out[f"{s}_seconds_score"] = out.case.map(m.seconds_score)
        out[f"{s}_mcups"] = out.case.map(m.mcups)
        out[f"{s}_speedup"] = out.case.map(base.seconds) / out[f"{s}_seconds"] if base is not None else np.nan
    for s in solvers:
        m = by[s]
        out[f"{s}_spread"] = out.case.map(m.seconds_max / m.seconds_min)
        out[f"{s}_flag"] = timing_flags(out, s)
    return out


def timing_flags(cases: pd.DataFrame, solver: str) -> pd.Series:
    """Per case, why ``solver``'s timing is unreliable: "spread" (its repeats differ by more
    than SPREAD_LIMIT), "trend" (more than TREND_FACTOR off the solver's robust trend over
    the data set), both, or "" (reliable; also where the solver did not run)."""
    spread = cases[f"{solver}_spread"] > SPREAD_LIMIT
    measured = cases[f"{solver}_seconds_score"].fillna(cases[f"{solver}_seconds"])
    units = cases[MODEL_OF.get(solver, "est_seq")].astype(float)
    ok = measured.notna() & (measured > 0) & (units > 0)
    trend = pd.Series(False, index=cases.index)
    if ok.sum() >= TREND_MIN_CASES:
        x, y = np.log(units[ok]), np.log(measured[ok])
        slope, intercept = theil_sen(x, y)
        trend[ok] = np.abs(y - (slope * x + intercept)) > np.log(TREND_FACTOR)
    flags = [", ".join(name for name, hit in (("spread", a), ("trend", b)) if hit) for a, b in zip(spread, trend)]
    return pd.Series(flags, index=cases.index, dtype=object)


def _pct(mask: pd.Series) -> float:
    return float(100.0 * mask.mean()) if len(mask) else np.nan


def summary_table(cases: pd.DataFrame, solvers: Sequence[str], batches: Sequence[Mapping[str, Any]] = (),
                  unavailable: Mapping[str, str] | None = None,
                  devices: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Per solver: the device its timings come from (``devices``, "" where unknown),
    Table III (avg/max MCUPS), Fig. 14 (avg/max speedup), slower-than shares,
    the data set's total time and the batch (``solve_many``) throughput; then the timings'
    trust: median and max spread of the repeats, the unreliable cases (see timing_flags;
    their count and names) and the spread of the batch runs."""
    unavailable = dict(unavailable or {})
    batch = {b["solver"]: b for b in batches}
    rows = []
    for s in [*solvers, *[u for u in unavailable if u not in solvers]]:
        done = cases[cases[f"{s}_seconds"].notna()] if f"{s}_seconds" in cases else cases.iloc[:0]
        b = batch.get(s, {})
        reason = unavailable.get(s) or (b.get("reason") if b.get("available") is False else None)
        if done.empty and reason is None:
            reason = "no case solved"
        prev = PREVIOUS.get(s)
        both = done[done[f"{prev}_seconds"].notna()] if prev and f"{prev}_seconds" in done else done.iloc[:0]
        has_base = f"{BASELINE}_seconds" in done
        rows.append({
            "solver": s,
            "status": "ok" if reason is None else f"n/a: {reason}",
            "device": (devices or {}).get(s, ""),
            "cases": len(done),
            "avg_mcups": done[f"{s}_mcups"].mean() if len(done) else np.nan,
            "max_mcups": done[f"{s}_mcups"].max() if len(done) else np.nan,
            "avg_speedup": done[f"{s}_speedup"].mean() if len(done) else np.nan,
            "max_speedup": done[f"{s}_speedup"].max() if len(done) else np.nan,
            "pct_slower_than_sequential": _pct(done[f"{s}_seconds"] > done[f"{BASELINE}_seconds"])
            if has_base and len(done) else np.nan,
            "previous": prev or "",
            "pct_slower_than_previous": _pct(both[f"{s}_seconds"] > both[f"{prev}_seconds"]) if len(both) else np.nan,
            "total_seconds": done[f"{s}_seconds"].sum() if len(done) else np.nan,
            "batch_cases": b.get("cases", np.nan) if b.get("available") else np.nan,
            "batch_seconds": b.get("seconds", np.nan),
            "batch_mcups": b.get("mcups", np.nan),
            **_trust(done, s, b),
        })
    return pd.DataFrame(rows)


def _trust(done: pd.DataFrame, solver: str, batch: Mapping[str, Any]) -> dict[str, Any]:
    spread = done[f"{solver}_spread"] if f"{solver}_spread" in done else pd.Series(dtype=float)
    flags = done[f"{solver}_flag"] if f"{solver}_flag" in done else pd.Series(dtype=object)
    flagged = flags[flags != ""]
    b_min, b_max = batch.get("seconds_min"), batch.get("seconds_max")
    return {
        "median_spread": spread.median() if spread.notna().any() else np.nan,
        "max_spread": spread.max() if spread.notna().any() else np.nan,
        "unreliable": len(flagged) if len(done) else np.nan,
        "unreliable_cases": " ".join(f"{c}({f})" for c, f in zip(done.case[flagged.index], flagged)),
        "batch_spread": b_max / b_min if b_min and b_max else np.nan,
    }


def estimation_accuracy(cases: pd.DataFrame, solvers: Sequence[str]) -> pd.DataFrame:
    """Model units vs measured time, per solver and each of Eq. 3-5; ``designated`` marks the
    equation the solver's design follows. Measured = the score (fill) time, which the model
    estimates; the total (with traceback) only where a solver does not report the split."""
    rows = []
    for s in solvers:
        col = f"{s}_seconds_score"
        if col not in cases or cases[col].isna().all():
            col = f"{s}_seconds"
        done = cases[cases[col].notna()] if col in cases else cases.iloc[:0]
        for units in UNITS:
            rows.append({"solver": s, "units": units, "designated": "yes" if MODEL_OF.get(s) == units else "no",
                         "measured": col.removeprefix(f"{s}_"), "cases": len(done),
                         "spearman": spearman(done[units], done[col]),
                         **linear_fit(done[units], done[col])})
    return pd.DataFrame(rows)


def parallelism_table(cases: Iterable[TestCase]) -> pd.DataFrame:
    """The "average test case" histograms (SPEC §5): intra (Fig. 7) and inter (Fig. 9), with
    every bin from the first to the last (empty ones at 0 %) so the x axis is to scale."""
    intra, inter = [], []
    for c in cases:
        intra.append(intra_histogram(c.first_sorted, c.last_sorted))
        inter.append(inter_histogram(c.first_sorted, c.last_sorted))
    rows = []
    for kind, hists, label in (("intra", intra, lambda b: f"{INTRA_BIN * (b - 1) + 1}-{INTRA_BIN * b}"),
                               ("inter", inter, str)):
        avg = average_histogram(hists) if hists else {}
        rows += [{"kind": kind, "bin": b, "label": label(b), "percent": avg.get(b, 0.0)}
                 for b in range(1, max(avg, default=0) + 1)]
    return pd.DataFrame(rows, columns=["kind", "bin", "label", "percent"])


def scalability_table(cases: pd.DataFrame, solvers: Sequence[str]) -> pd.DataFrame:
    """Time vs m×n per solver (Fig. 15), ordered by m×n."""
    parts = []
    for s in solvers:
        d = cases[cases[f"{s}_seconds"].notna()]
        parts.append(pd.DataFrame({"solver": s, "case": d.case, "m": d.m, "n": d.n, "mn": d.m * d.n,
                                   "cells": d.cells, "seconds": d[f"{s}_seconds"]}))
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=["solver", "case", "m", "n", "mn", "cells", "seconds"])
    return out.sort_values(["solver", "mn", "case"], kind="stable").reset_index(drop=True)
