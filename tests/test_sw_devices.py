"""`sw --devices` without a GPU: a stand-in GPU solver (the sequential one registered as a GPU
solver) on two fake devices searches a set of queries as one call does (scores, hits, E-values,
alignments, order); --devices with a CPU solver is one line (exit 2)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import fake_gpu_devices

from splicedalign.cli import main
from splicedalign.core.errors import EXIT_INPUT
from splicedalign.workloads.sw import solvers, synthetic
from splicedalign.workloads.sw.records import Scoring


@pytest.fixture
def fake_gpus(monkeypatch):
    yield from fake_gpu_devices(monkeypatch, solvers.SOLVERS, "splicedalign.workloads.sw.cpu:SequentialSolver")


def test_queries_split_across_two_devices_search_as_one_call(fake_gpus):
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    queries = [synthetic.query(int(rng.integers(20, 120)), seed + k) for k in range(5)]
    db = synthetic.database(rng.integers(1, 200, 60), seed, queries[0], homologs=4)
    scoring = Scoring.blast()
    one = solvers.search_many(queries, db, scoring, "sequential", top=5)
    split = solvers.search_many_on("all", "fakegpu", queries, db, scoring, top=5)
    assert [r.query for r in split] == [r.query for r in one]
    for a, b in zip(split, one):
        assert np.array_equal(a.scores, b.scores)
        assert a.hits == b.hits
    assert sorted(set(fake_gpus)) == [0, 1]


def test_devices_with_a_cpu_solver_is_one_line(tmp_path, capsys):
    (tmp_path / "q.fa").write_text(">q\nMKVLAAGIVALLA\n")
    (tmp_path / "db.fa").write_text(">d1\nMKVLAAGIVGLLA\n>d2\nWWWWPPPP\n")
    code = main(["sw", "-q", "--query", str(tmp_path / "q.fa"), "--db", str(tmp_path / "db.fa"),
                 "--solver", "multicore", "--devices", "0"])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT and len(err.strip().splitlines()) == 1
    assert "--devices: splits GPU solvers' work; solver multicore runs on the CPU" in err
