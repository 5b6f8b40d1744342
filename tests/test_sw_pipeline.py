"""sw in the pipeline: records per case x solver, tables with "n/a" rows, Table III, and the
aggregation failing (naming the case) when two solvers disagree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from splicedalign.workloads.sw.bench import Disagreement
from splicedalign.workloads.sw.pipeline import aggregate, case_files, solve_job, write_tables
from splicedalign.workloads.sw.solvers import SOLVERS

REPO = Path(__file__).resolve().parents[1]


def test_bundled_records_tables(tmp_path):
    cases = case_files("bundled", REPO / "resources" / "sw" / "cases.tsv", "unused")
    query, db = cases["bundled"]
    paths = []
    for solver in ("sequential", "multicore", "reference"):
        out = tmp_path / f"{solver}.json"
        solve_job(query, db, "bundled", solver, "blosum62", 4, 1, 1000, str(out), str(tmp_path / "log"))
        paths.append(str(out))
    table = aggregate(paths)
    assert set(table["case"]) == {"bundled:X07797.1", "bundled:roa1_drome"}
    ref = table[table.solver == "reference"]
    assert ref["seconds"].isna().all() and ref["note"].str.startswith("n/a").all()  # over the cell limit
    assert (table[table.solver == "sequential"]["speedup"] == 1.0).all()
    write_tables(paths, str(tmp_path / "r.tsv"), str(tmp_path / "t3.md"))
    assert "paper" in (tmp_path / "t3.md").read_text()


def test_disagreement_names_the_case(tmp_path):
    rec = {"row": {"case": "len128", "solver": "sequential", "sequences": 2, "cells": 10, "seconds": 1.0},
           "scores": [5, 7]}
    bad = {"row": dict(rec["row"], solver="gpu"), "scores": [5, 8]}
    for name, r in (("a", rec), ("b", bad)):
        (tmp_path / f"{name}.json").write_text(json.dumps([r]))
    with pytest.raises(Disagreement, match="len128.*gpu.*sequence 1"):
        aggregate([str(tmp_path / "a.json"), str(tmp_path / "b.json")])


def test_synthetic_case_files_and_solvers():
    files = case_files("paper", "unused", "d")
    assert list(files)[0] == "len128" and files["len8192"] == ("d/len8192.query.fa", "d/len8192.db.fa")
    run, missing = SOLVERS.resolve("auto", "no GPU here")
    assert {"sequential", "multicore", "pyopal", "parasail"} <= set(run) and "gpu" not in run
    assert missing == {"gpu": "no GPU here", "sw-scan": "no GPU here"}
    assert SOLVERS.resolve("auto", None)[0] == SOLVERS.names()
    assert SOLVERS.resolve(["gpu"], "no GPU here") == (["gpu"], {})
