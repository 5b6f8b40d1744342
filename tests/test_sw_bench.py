"""sw benchmark timing: a solver that cannot run here is a row saying why, with or without
warm-up, and the other solvers' rows stand."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.core.errors import SolverUnavailable
from splicedalign.workloads.sw import bench, synthetic
from splicedalign.workloads.sw.records import Scoring


class _Refuses:
    def scores(self, query, db, scoring):
        raise SolverUnavailable("not here")


@pytest.mark.parametrize("warmup", [0, 1])
def test_unavailable_solver_is_an_na_row_with_or_without_warmup(monkeypatch, warmup):
    query, db = synthetic.query(40, 5), synthetic.database(np.full(30, 50), 6)
    real = bench.SOLVERS.get
    monkeypatch.setattr(bench.SOLVERS, "get", lambda name: _Refuses() if name == "refuses" else real(name))
    rows, results = bench.measure_interleaved("c", query, db, ["reference", "refuses"], 2, warmup, Scoring())
    assert rows[0].seconds is not None and isinstance(results["reference"], np.ndarray)
    assert rows[1].seconds is None and rows[1].note == "n/a: not here" and results["refuses"] is None
