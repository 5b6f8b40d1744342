"""Timing and solver selection of the pipeline (splicedalign.workloads.spliced.bench,
splicedalign.workloads.spliced.pipeline.plan)."""

from __future__ import annotations

import pytest

from splicedalign.core.errors import InputError, SolverUnavailable
from splicedalign.workloads.spliced import bench
from splicedalign.workloads.spliced.pipeline import plan
from splicedalign.workloads.spliced.records import Exon, Result, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import SOLVERS

CASE = TestCase("c", "ACGTACGTAC", "ACGT", (Exon(1, 4), Exon(6, 9)))


class FakeSolver:
    """Returns preset times (and scores), one per call: the first call is the warm-up."""

    name = "fake"

    def __init__(self, seconds, scores=None):
        self.seconds, self.scores, self.calls = list(seconds), scores, 0
        self.traceback_calls: list[bool] = []

    def solve(self, case, scoring, traceback=True):
        self.traceback_calls.append(traceback)
        i, self.calls = self.calls, self.calls + 1
        score = self.scores[i] if self.scores else 3
        return Result(case.name, self.name, score, case.cells, self.seconds[i],
                      extra={"seconds_score": self.seconds[i] / 2, "seconds_traceback": self.seconds[i] / 2})


def test_median_after_warm_up():
    solver = FakeSolver([100.0, 3.0, 1.0, 2.0])
    r = bench.timed_solve(solver, CASE, Scoring(), repeats=3)
    assert solver.calls == 4
    assert solver.traceback_calls == [True, False, False, False]  # chain from the warm-up only
    assert r.seconds == 2.0 and r.extra["seconds_runs"] == [3.0, 1.0, 2.0]  # warm-up excluded
    assert (r.extra["seconds_min"], r.extra["seconds_max"]) == (1.0, 3.0)
    assert r.extra["seconds_warmup"] > 0 and "seconds" not in r.extra
    assert r.extra["seconds_score"] == 1.0
    assert r.mcups == pytest.approx(CASE.cells / 2.0 / 1e6)


def test_unstable_score_fails():
    with pytest.raises(RuntimeError, match="different scores on repeated runs of c"):
        bench.timed_solve(FakeSolver([1, 1, 1], scores=[3, 3, 4]), CASE, Scoring(), repeats=2)


def test_unavailable_solver_gives_na_record(monkeypatch):
    def unavailable(name):
        raise SolverUnavailable("no CUDA device")

    monkeypatch.setattr(bench, "get_solver", unavailable)
    rec = bench.case_record("gpu", CASE, Scoring(), repeats=1)
    assert rec == {"case": "c", "solver": "gpu", "available": False, "reason": "no CUDA device",
                   "m": 10, "n": 4, "cells": CASE.cells}
    batch = bench.timed_batch("gpu", [CASE], Scoring(), repeats=1)
    assert batch["available"] is False and batch["reason"] == "no CUDA device"


def test_solver_selection():
    run, missing = SOLVERS.resolve("auto", "no CUDA device")
    assert run == ["reference", "sequential", "multicore"]
    assert missing == dict.fromkeys(bench.gpu_solvers(), "no CUDA device")
    assert SOLVERS.resolve("auto", None) == (SOLVERS.names(), {})
    assert SOLVERS.resolve(["sequential"], None) == (["sequential"], {})
    with pytest.raises(InputError, match="sequentail"):
        SOLVERS.resolve(["sequentail"], None)


def test_reference_only_on_small_cases_under_auto():
    rows = [{"case": "small", "cells": 10}, {"case": "big", "cells": 10**9}]
    assert plan(rows, ["reference", "sequential"], auto=True, reference_max_cells=100) == {
        "reference": ["small"], "sequential": ["small", "big"]}
    assert plan(rows, ["reference"], auto=False, reference_max_cells=100) == {"reference": ["small", "big"]}


def test_batch_keeps_the_spread_of_its_runs(monkeypatch):
    solver = FakeSolver([9.0, 1.0, 1.0, 1.0])
    solver.solve_many = lambda cases, scoring, traceback: [solver.solve(c, scoring, traceback) for c in cases]
    monkeypatch.setattr(bench, "get_solver", lambda name: solver)
    rec = bench.timed_batch("fake", [CASE], Scoring(), repeats=3)
    assert rec["available"] and len(rec["seconds_runs"]) == 3
    assert rec["seconds_min"] <= rec["seconds"] <= rec["seconds_max"]
    assert rec["seconds_warmup"] > 0 and rec["scores"] == {"c": 3}
