"""The spliced benchmark's tables and figures from per-case × solver records (SPEC §3-4).

``aggregate`` writes ``cases.tsv``, ``summary.tsv``, ``estimation_accuracy.tsv``,
``parallelism.tsv``, ``scalability.tsv`` and ``accuracy.tsv`` (gene-prediction accuracy of
each solver's chain against the true exons, where the data set has them); it raises ScoreDisagreement, naming the cases,
before writing anything if two solvers disagree on a score.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from splicedalign.report.tables import write_table
from splicedalign.workloads.spliced.accuracy import accuracy_table, format_table
from splicedalign.workloads.spliced.records import TestCase
from splicedalign.workloads.spliced.report.tables import (
    ScoreDisagreement,
    case_frame,
    cases_table,
    check_scores,
    estimation_accuracy,
    measurements,
    parallelism_table,
    scalability_table,
    summary_table,
)

__all__ = ["ScoreDisagreement", "aggregate", "gene_accuracy", "unreliable_lines", "TABLES"]

log = logging.getLogger("splicedalign")

TABLES = ("cases", "summary", "estimation_accuracy", "parallelism", "scalability", "accuracy")


def gene_accuracy(cases: Sequence[TestCase], records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """accuracy.tsv: each available record's chain against its case's true exons (a record
    without a chain, e.g. one written by hand or by an older run, is left out)."""
    true = {c.name: list(c.meta.get("true_exons") or ()) for c in cases}
    return format_table(accuracy_table(
        {"case": r["case"], "solver": r["solver"], "predicted": [tuple(e) for e in r["chain"]],
         "true": true.get(r["case"])}
        for r in records if r.get("available", True) and r.get("chain") is not None))


def aggregate(cases: Sequence[TestCase], records: Sequence[Mapping[str, Any]], solvers: Sequence[str],
              out: str | Path, batches: Sequence[Mapping[str, Any]] = (),
              unavailable: Mapping[str, str] | None = None) -> dict[str, pd.DataFrame]:
    """Check scores, build every table and write them as ``out/{name}.tsv``; returns them."""
    check_scores(records, batches)
    table = cases_table(case_frame(cases), measurements(records), solvers)
    devices = {r["solver"]: r["device"] for r in [*records, *batches] if r.get("device")}
    tables = {
        "cases": table,
        "summary": summary_table(table, solvers, batches, unavailable, devices),
        "estimation_accuracy": estimation_accuracy(table, solvers),
        "parallelism": parallelism_table(cases),
        "scalability": scalability_table(table, solvers),
        "accuracy": gene_accuracy(cases, records),
    }
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, df in tables.items():
        write_table(df, out / f"{name}.tsv")
    for line in unreliable_lines(tables["summary"]):
        log.warning("%s", line)
    return tables


def unreliable_lines(summary: pd.DataFrame) -> list[str]:
    """One line per solver with unreliable timings (see tables.timing_flags), for logs and
    the pipeline's closing message."""
    flagged = summary[summary.unreliable.fillna(0) > 0]
    return [f"{r.solver}: {int(r.unreliable)} of {int(r.cases)} case timings unreliable: {r.unreliable_cases}"
            for r in flagged.itertuples()]
