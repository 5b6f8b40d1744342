"""Primer pipeline pieces: records -> tables; aggregation fails naming the case on disagreement."""

from __future__ import annotations

import json

import pytest

from splicedalign.workloads.primer.pipeline import aggregate, paper_tables, solve_job


def _record(tmp_path, solver):
    alpha, beta = tmp_path / "a.fa", tmp_path / "b.fa"
    alpha.write_text(">a\nACTGACCTTAGGA\n")
    beta.write_text(">b\nAGCAAGTTACCA\n")
    out = tmp_path / f"{solver}.json"
    solve_job(str(alpha), str(beta), 3, "tiny", solver, 1, 10**6, str(out), str(tmp_path / "log"))
    return json.loads(out.read_text())


def test_tables_from_records(tmp_path):
    records = [_record(tmp_path, s) for s in ("reference", "sequential", "alternative")]
    table = aggregate(records, ["reference", "sequential", "alternative"])
    row = table.iloc[0]
    assert (row["case"], row["m"], row["k"]) == ("tiny", 13, 3)
    assert row["sequential_speedup"] == 1.0
    assert row["cells"] == records[0]["cells"]
    paper = paper_tables(table)
    assert set(paper["table"]) == {"Table 1", "Table 2", "Table 3", "Table 5", "ours"}
    assert paper.loc[paper["our_solver"] == "alternative", "our_case"].iloc[0] == "tiny"


def test_disagreement_names_the_case(tmp_path):
    good = _record(tmp_path, "sequential")
    bad = dict(good, solver="conventional", solutions=good["solutions"][:-1])
    with pytest.raises(ValueError, match="tiny"):
        aggregate([good, bad], ["sequential", "conventional"])


def test_unavailable_solver_is_na(tmp_path):
    rec = _record(tmp_path, "gpu")
    if "unavailable" in rec:
        table = aggregate([rec, _record(tmp_path, "sequential")], ["sequential", "gpu"])
        assert str(table.iloc[0]["gpu_seconds"]).startswith("n/a")
