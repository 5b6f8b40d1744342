"""Gene-prediction accuracy of a predicted exon chain against the annotated (true) exons.

Measures of Burset & Guigó (1996), as gene-finder papers report them:
- exon level, exact boundaries: sensitivity = exact matches / true exons,
  specificity = exact matches / predicted exons;
- nucleotide level: sensitivity = shared bases / true exonic bases,
  specificity = shared bases / predicted exonic bases.
A data set's row pools the counts of its cases (not a mean of per-case ratios), so large
genes weigh by their size. Cases without true exons get no row; the data-set row counts them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from splicedalign.workloads.spliced.records import Result, TestCase

Interval = tuple[int, int]
COLUMNS = ("scope", "solver", "case", "cases", "cases_without_truth", "true_exons",
           "predicted_exons", "exact_exons", "exon_sensitivity", "exon_specificity",
           "true_nt", "predicted_nt", "shared_nt", "nt_sensitivity", "nt_specificity")


@dataclass(frozen=True)
class Counts:
    true_exons: int
    predicted_exons: int
    exact_exons: int
    true_nt: int
    predicted_nt: int
    shared_nt: int

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(a + b for a, b in zip(asdict(self).values(), asdict(other).values())))


def _ratio(num: int, den: int) -> float:
    return num / den if den else float("nan")


def _covered(intervals: Sequence[Interval]) -> set[int]:
    return {p for f, l in intervals for p in range(f, l + 1)}


def compare(predicted: Sequence[Interval], true: Sequence[Interval],
            other_strand: Sequence[Interval] = ()) -> Counts:
    """Counts of one case; intervals are 1-based inclusive on the base, the true exons and
    ``predicted`` on the same strand; ``other_strand`` predictions (on the opposite strand)
    count as predicted exons and bases that match nothing."""
    pred, truth = set(map(tuple, predicted)), set(map(tuple, true))
    pred_nt, true_nt = _covered(predicted), _covered(true)
    other = set(map(tuple, other_strand))
    return Counts(len(truth), len(pred) + len(other), len(pred & truth), len(true_nt),
                  len(pred_nt) + len(_covered(other_strand)), len(pred_nt & true_nt))


def _row(scope: str, solver: str, case: str, counts: Counts, cases: int, without: int) -> dict:
    return {
        "scope": scope, "solver": solver, "case": case, "cases": cases, "cases_without_truth": without,
        **asdict(counts),
        "exon_sensitivity": _ratio(counts.exact_exons, counts.true_exons),
        "exon_specificity": _ratio(counts.exact_exons, counts.predicted_exons),
        "nt_sensitivity": _ratio(counts.shared_nt, counts.true_nt),
        "nt_specificity": _ratio(counts.shared_nt, counts.predicted_nt),
    }


def accuracy_table(records: Iterable[Mapping]) -> pd.DataFrame:
    """Per-case rows and one pooled ``dataset`` row per solver.

    Each record: ``case`` (id), ``solver``, ``predicted`` (the chain's exons as (first, last)),
    ``true`` (annotated exons, or None/empty when unknown), optionally ``other_strand``
    (predicted exons on the strand opposite the annotation).
    """
    rows, pooled = [], {}
    for r in records:
        solver = r["solver"]
        total, n, without = pooled.get(solver, (Counts(0, 0, 0, 0, 0, 0), 0, 0))
        if not r.get("true"):
            pooled[solver] = (total, n, without + 1)
            continue
        counts = compare(r["predicted"] or (), r["true"], r.get("other_strand") or ())
        rows.append(_row("case", solver, r["case"], counts, 1, 0))
        pooled[solver] = (total + counts, n + 1, without)
    for solver, (total, n, without) in pooled.items():
        rows.append(_row("dataset", solver, "", total, n, without))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def chain_intervals(case: TestCase, result: Result) -> list[Interval]:
    """The (first, last) of the exons of a solver's chain, in chain order, on the forward
    strand of the base as given (where true exons are)."""
    return [case.forward_interval(case.exons[i].first, case.exons[i].last) for i in (result.chain or ())]


def record(case: TestCase, result: Result) -> dict:
    """The accuracy record of one solved case (true exons from ``case.meta``)."""
    return {"case": case.name, "solver": result.solver, "predicted": chain_intervals(case, result),
            "true": list(case.meta.get("true_exons") or ())}


def format_table(table: pd.DataFrame) -> pd.DataFrame:
    """Ratios rounded to 4 decimals for the TSV (counts stay exact)."""
    ratios = [c for c in table.columns if c.endswith(("sensitivity", "specificity"))]
    return table.assign(**{c: np.round(table[c].astype(float), 4) for c in ratios})
