"""nw pipeline pieces: bundled manifest, timed records, aggregation (fails naming the case when
solvers disagree; n/a for a missing peer), paper Table 1 beside ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from splicedalign.workloads.nw.pipeline import (
    PAPER_TABLE1,
    aggregate,
    bundled_cases,
    load_pair,
    solve_job,
    table1,
    write_paper_case,
)

REPO = Path(__file__).resolve().parents[1]


def record(case, solver, score=None, seconds=1.0, reason=None):
    r = {"case": case, "solver": solver, "n": 10, "m": 12, "cells": 120}
    if reason:
        r["unavailable"] = reason
    else:
        r.update(score=score, seconds=seconds, gcups=120 / seconds / 1e9)
    return r


def test_bundled_manifest_pairs_load():
    cases = bundled_cases(REPO / "resources" / "nw" / "pairs.tsv")
    assert len(cases) == 6
    for case in cases:
        pair = load_pair(case.name, case.fasta)
        assert pair.n > 500 and pair.m > 500


def test_solve_job_records_and_skips(tmp_path):
    write_paper_case("mutated-48", 2009, tmp_path / "p.fa")
    out = tmp_path / "r.json"
    solve_job(str(tmp_path / "p.fa"), "mutated-48", "sequential", {"match": 0, "mismatch": 1, "indel": 3}, 1, True,
              10**6, str(out), str(tmp_path / "log"))
    data = json.loads(out.read_text())
    assert data["score"] >= 0 and data["cells"] == data["n"] * data["m"] and data["seconds"] > 0
    solve_job(str(tmp_path / "p.fa"), "mutated-48", "reference", {"match": 0, "mismatch": 1, "indel": 3}, 1, True,
              10, str(out), str(tmp_path / "log"))
    assert "reference_max_cells" in json.loads(out.read_text())["unavailable"]


def test_aggregate_speedups_and_na():
    rows = aggregate([record("c1", "sequential", 5, 2.0), record("c1", "gpu", 5, 0.5),
                      record("c1", "pywfa", reason="pywfa is not installed: pip install ...")],
                     ["sequential", "gpu", "pywfa"])
    row = rows.iloc[0]
    assert row["score"] == 5 and row["gpu_speedup"] == pytest.approx(4.0)
    assert row["pywfa_seconds"] == "n/a: not installed"


def test_aggregate_fails_naming_the_case():
    with pytest.raises(ValueError, match="c2 .*sequential=7.*gpu=8"):
        aggregate([record("c1", "sequential", 5), record("c1", "gpu", 5),
                   record("c2", "sequential", 7), record("c2", "gpu", 8)], ["sequential", "gpu"])


def test_table1_beside_published():
    rows = aggregate([record("mutated-9024", "sequential", 5, 1.5)], ["sequential"])
    table = table1(rows, ["sequential"])
    assert list(table["n"]) == list(PAPER_TABLE1)
    by_n = table.set_index("n")
    assert by_n.loc[9024, "sequential_s"] == 1.5 and by_n.loc[30368, "paper_cuda_s"] == "failed"
    assert by_n.loc[48, "sequential_s"] == "not in this data set"
