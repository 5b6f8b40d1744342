"""Aggregation and estimation math on hand-made records (issue 5, §3)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from splicedalign.report.stats import linear_fit, spearman
from splicedalign.workloads.spliced import estimate as model
from splicedalign.workloads.spliced.records import Exon, TestCase
from splicedalign.workloads.spliced.report import aggregate, gene_accuracy
from splicedalign.workloads.spliced.report.tables import (
    ScoreDisagreement,
    case_frame,
    cases_table,
    check_scores,
    estimation_accuracy,
    measurements,
    parallelism_table,
    summary_table,
)


def _case(name: str, exons: list[tuple[int, int]], n: int = 8, true=None) -> TestCase:
    meta = {"true_exons": tuple(true)} if true else {}
    return TestCase(name, "ACGT" * 25, "ACGTACGTAC"[:n], tuple(Exon(f, l) for f, l in exons), meta=meta)


CASES = [_case("a", [(1, 10), (5, 20), (30, 40)]), _case("b", [(1, 50), (60, 100)], n=4)]


def _rec(case: str, solver: str, score: int, seconds: float, cells: int, **kw) -> dict:
    return {"case": case, "solver": solver, "score": score, "seconds": seconds, "cells": cells,
            "mcups": cells / seconds / 1e6, "available": True, **kw}


def _records() -> list[dict]:
    a, b = (c.cells for c in CASES)
    return [_rec("a", "sequential", 5, 2.0, a), _rec("b", "sequential", 7, 4.0, b),
            _rec("a", "multicore", 5, 1.0, a), _rec("b", "multicore", 7, 8.0, b)]


def test_spearman_matches_hand_ranks():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ranks x: 1 2 3 4, y: 1 3 2 4 -> r = 1 - 6*2/(4*15) = 0.8 (no ties)
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    # ties share their mean rank: y ranks 1.5 1.5 3 4
    assert spearman([1, 2, 3, 4], [5, 5, 6, 7]) == pytest.approx(np.corrcoef([1, 2, 3, 4], [1.5, 1.5, 3, 4])[0, 1])
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


def test_linear_fit_exact_and_noisy():
    fit = linear_fit([1, 2, 3, 4], [3, 5, 7, 9])
    assert fit["a"] == pytest.approx(2) and fit["c"] == pytest.approx(1)
    assert fit["r2"] == pytest.approx(1) and fit["max_abs_pct_error"] == pytest.approx(0, abs=1e-9)
    # y = 1, 3, 2, 4 on x = 1..4: slope 0.8, intercept 0.5, predictions 1.3 2.1 2.9 3.7
    fit = linear_fit([1, 2, 3, 4], [1, 3, 2, 4])
    assert fit["a"] == pytest.approx(0.8) and fit["c"] == pytest.approx(0.5)
    assert fit["r2"] == pytest.approx(1 - (0.09 + 0.81 + 0.81 + 0.09) / 5)
    errors = [30.0, 30.0, 45.0, 7.5]
    assert fit["median_abs_pct_error"] == pytest.approx(np.median(errors))
    assert fit["max_abs_pct_error"] == pytest.approx(45.0)


def test_case_frame_uses_the_model():
    frame = case_frame(CASES).set_index("case")
    for c in CASES:
        f, l = c.first_sorted, c.last_sorted
        row = frame.loc[c.name]
        assert row.cells == c.n * sum(l - f + 1) == model.cells(c.n, f, l)
        assert row.est_seq == model.est_seq(c.n, f, l)
        assert row.est_intra == model.est_intra(c.n, f, l)
        assert row.est_intra_inter == model.est_intra_inter(c.n, f, l)
        assert row.groups == len(model.groups(f, l))
    assert frame.loc["a", "groups"] == 2  # (1,10) and (5,20) overlap; (30,40) alone


def test_speedups_and_summary():
    table = cases_table(case_frame(CASES), measurements(_records()), ["sequential", "multicore"])
    assert list(table.multicore_speedup) == [2.0, 0.5]
    assert list(table.sequential_speedup) == [1.0, 1.0]
    batch = [{"solver": "multicore", "available": True, "cases": 2, "seconds": 3.0, "mcups": 1.5}]
    summary = summary_table(table, ["sequential", "multicore"], batch, {"gpu": "no CUDA device"}).set_index("solver")
    mc = summary.loc["multicore"]
    assert mc.avg_speedup == pytest.approx(1.25) and mc.max_speedup == 2.0
    assert mc.pct_slower_than_sequential == 50.0
    assert mc.total_seconds == 9.0 and mc.batch_seconds == 3.0 and mc.batch_mcups == 1.5
    assert mc.avg_mcups == pytest.approx(np.mean([CASES[0].cells / 1e6, CASES[1].cells / 8e6]))
    assert summary.loc["sequential", "pct_slower_than_sequential"] == 0.0
    assert summary.loc["gpu", "status"] == "n/a: no CUDA device" and summary.loc["gpu", "cases"] == 0
    assert math.isnan(summary.loc["gpu", "avg_mcups"])


def test_slower_than_previous_accelerator():
    recs = [_rec(c, s, 1, t, 10) for c, s, t in
            [("a", "sequential", 5), ("b", "sequential", 5), ("a", "accel1", 2), ("b", "accel1", 1),
             ("a", "accel2", 1), ("b", "accel2", 3)]]
    table = cases_table(case_frame(CASES), measurements(recs), ["sequential", "accel1", "accel2"])
    s = summary_table(table, ["sequential", "accel1", "accel2"]).set_index("solver")
    assert s.loc["accel2", "previous"] == "accel1"
    assert s.loc["accel2", "pct_slower_than_previous"] == 50.0
    assert math.isnan(s.loc["accel1", "pct_slower_than_previous"])


def test_na_records_stay_na():
    recs = _records() + [{"case": c.name, "solver": "gpu", "available": False, "reason": "no GPU"} for c in CASES]
    table = cases_table(case_frame(CASES), measurements(recs), ["sequential", "gpu"])
    assert table.gpu_seconds.isna().all() and table.gpu_score.isna().all()
    summary = summary_table(table, ["sequential", "gpu"]).set_index("solver")
    assert summary.loc["gpu", "status"].startswith("n/a") and summary.loc["gpu", "cases"] == 0


def test_score_disagreement_names_the_cases():
    check_scores(_records())
    bad = _records()
    bad[3]["score"] = 8
    with pytest.raises(ScoreDisagreement, match=r"1 case\(s\).*\n  b: multicore=8, sequential=7"):
        check_scores(bad)
    with pytest.raises(ScoreDisagreement, match=r"a: multicore=5, multicore \(batch\)=4, sequential=5"):
        check_scores(_records(), [{"solver": "multicore", "scores": {"a": 4, "b": 7}}])
    # an unavailable solver's record carries no score and must not count
    check_scores(_records() + [{"case": "a", "solver": "gpu", "available": False}])


def test_estimation_accuracy_on_exact_model():
    # seconds exactly proportional to est_intra_inter: that model fits perfectly
    frame = case_frame(CASES)
    recs = [_rec(r.case, "accel2", 1, 1e-3 * r.est_intra_inter, r.cells, seconds_score=1e-3 * r.est_intra_inter)
            for r in frame.itertuples()]
    table = cases_table(frame, measurements(recs), ["accel2"])
    acc = estimation_accuracy(table, ["accel2"]).set_index("units")
    row = acc.loc["est_intra_inter"]
    assert row.designated == "yes" and row.measured == "seconds_score" and row.cases == 2
    assert row.a == pytest.approx(1e-3) and row.c == pytest.approx(0, abs=1e-12)
    assert row.median_abs_pct_error == pytest.approx(0, abs=1e-6)
    assert acc.loc["est_seq", "designated"] == "no"


def test_parallelism_is_the_average_histogram():
    par = parallelism_table(CASES)
    intra = par[par.kind == "intra"].set_index("bin").percent.to_dict()
    expected = model.average_histogram([model.intra_histogram(c.first_sorted, c.last_sorted) for c in CASES])
    assert intra == pytest.approx({b: expected.get(b, 0.0) for b in range(1, max(expected) + 1)})
    assert set(intra) == set(range(1, max(expected) + 1))  # empty bins kept at 0 %: x axis to scale
    assert par[par.kind == "intra"].label.iloc[0] == "1-32"
    inter = par[par.kind == "inter"].set_index("bin").percent
    # case a: groups of 2 and 1 -> 50 % each; case b: two groups of 1 -> 100 % size 1
    assert inter.to_dict() == pytest.approx({1: 75.0, 2: 25.0})
    assert abs(par.groupby("kind").percent.sum() - 100).max() < 1e-9


def test_gene_accuracy_against_true_exons():
    cases = [_case("a", [(1, 10), (12, 20), (30, 40)], true=[(1, 10), (30, 40)]), _case("b", [(1, 50)])]
    recs = [_rec("a", "sequential", 1, 1, 1, chain=[[1, 10], [12, 20]]),
            _rec("b", "sequential", 1, 1, 1, chain=[[1, 50]]), _rec("a", "multicore", 1, 1, 1, chain=None)]
    acc = gene_accuracy(cases, recs)
    row = acc[(acc.scope == "case") & (acc.case == "a")].iloc[0]
    assert (row.exact_exons, row.true_exons, row.predicted_exons) == (1, 2, 2)
    assert row.nt_sensitivity == pytest.approx(10 / 21, abs=1e-4)  # rounded for the TSV
    pooled = acc[acc.scope == "dataset"].iloc[0]
    assert pooled.cases == 1 and pooled.cases_without_truth == 1
    assert set(acc.solver) == {"sequential"}  # no chain (score-only): no accuracy row


def test_aggregate_writes_every_table(tmp_path):
    tables = aggregate(CASES, _records(), ["sequential", "multicore"], tmp_path)
    for name in tables:
        df = pd.read_csv(tmp_path / f"{name}.tsv", sep="\t")
        assert len(df.columns) == len(tables[name].columns)
    bad = _records()
    bad[0]["score"] = 99
    with pytest.raises(ScoreDisagreement, match="a: multicore=5, sequential=99"):
        aggregate(CASES, bad, ["sequential", "multicore"], tmp_path / "bad")
    assert not (tmp_path / "bad").exists()  # nothing written on disagreement


def test_summary_names_the_device_of_each_solver(tmp_path):
    """summary.tsv names the device each solver's timings come from (records' ``device``,
    else its batch's); a solver that did not run has none."""
    recs = [{**r, "device": "NVIDIA H100 80GB HBM3"} if r["solver"] == "multicore" else r for r in _records()]
    batch = {"solver": "sequential", "available": True, "cases": 2, "seconds": 6.0, "mcups": 1.0,
             "device": "Xeon (16 CPUs)"}
    aggregate(CASES, recs, ["sequential", "multicore"], tmp_path, [batch], {"gpu": "no CUDA device"})
    summary = pd.read_csv(tmp_path / "summary.tsv", sep="\t", keep_default_na=False).set_index("solver")
    assert summary.device.to_dict() == {"sequential": "Xeon (16 CPUs)", "multicore": "NVIDIA H100 80GB HBM3",
                                        "gpu": ""}



def test_unreliable_timings_are_flagged():
    """A case whose repeats spread too far, and one far off the solver's trend, are flagged in
    cases.tsv and counted and named in summary.tsv; steady on-trend cases are not."""
    cases = [_case(f"c{i}", [(1, 10 + 10 * i)]) for i in range(8)]
    recs = []
    for i, c in enumerate(cases):
        seconds = c.cells * 1e-6 * (10.0 if i == 5 else 1.0)  # c5: 10x off the trend
        low, high = (seconds / 2, seconds * 1.5) if i == 2 else (seconds * 0.95, seconds * 1.05)  # c2: spread 3
        recs.append(_rec(c.name, "sequential", 1, seconds, c.cells, seconds_min=low, seconds_max=high))
    table = cases_table(case_frame(cases), measurements(recs), ["sequential"])
    flags = dict(zip(table.case, table.sequential_flag))
    assert flags == {**{f"c{i}": "" for i in range(8)}, "c2": "spread", "c5": "trend"}
    assert table.sequential_spread[2] == pytest.approx(3.0)
    batch = {"solver": "sequential", "available": True, "cases": 8, "seconds": 1.0, "seconds_min": 1.0,
             "seconds_max": 1.2, "mcups": 1.0}
    row = summary_table(table, ["sequential"], [batch]).iloc[0]
    assert row.unreliable == 2 and row.unreliable_cases == "c2(spread) c5(trend)"
    assert row.max_spread == pytest.approx(3.0) and row.batch_spread == pytest.approx(1.2)


def test_no_trend_flags_below_the_minimum_case_count():
    cases = [_case(f"c{i}", [(1, 10 + 10 * i)]) for i in range(3)]
    recs = [_rec(c.name, "sequential", 1, (100.0 if i == 0 else 1.0) * c.cells, c.cells)
            for i, c in enumerate(cases)]
    table = cases_table(case_frame(cases), measurements(recs), ["sequential"])
    assert list(table.sequential_flag) == ["", "", ""]  # too few cases for a trend; no repeats data
