"""`align --devices` / solve_many(devices=...) without a GPU: a stand-in GPU solver (the
sequential one registered as a GPU solver) on two fake devices gives the same results in the
same order as one call; --devices with a CPU solver or a GPU this machine lacks is one line."""

from __future__ import annotations

import random

import pytest
from helpers import fake_gpu_devices

from splicedalign.cli import main
from splicedalign.core.errors import EXIT_INPUT
from splicedalign.workloads.spliced import solvers
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.synthetic import tiny_set


@pytest.fixture
def fake_gpus(monkeypatch):
    """Two fake GPUs, and 'fakegpu': the sequential solver registered as a GPU solver."""
    yield from fake_gpu_devices(monkeypatch, solvers.SOLVERS, "splicedalign.workloads.spliced.cpu:SequentialSolver")


def test_cases_split_across_two_devices_give_one_calls_results_in_order(fake_gpus):
    seed = random.randrange(1 << 20)
    print(f"seed {seed}")
    cases = tiny_set(seed, bases=6)
    scoring = Scoring()
    one = solvers.solve_many(cases, scoring, "sequential")
    split = solvers.solve_many(cases, scoring, "fakegpu", devices="all")
    assert [r.score for r in split] == [r.score for r in one]
    assert [r.chain for r in split] == [r.chain for r in one]
    assert sorted(set(fake_gpus)) == [0, 1]


def test_case_cost_counts_cells_and_a_handoff_per_exon():
    for case in tiny_set(3, bases=2):
        cost = solvers.case_cost(case)
        assert cost.cells == case.cells > 0 and cost.path == case.K * solvers.HANDOFF_CELLS


@pytest.mark.parametrize("argv, problem", [
    (["--solver", "sequential", "--devices", "0"],
     "--devices: splits GPU solvers' work; solver sequential runs on the CPU"),
    (["--solver", "fakegpu", "--devices", "0,2"], "--devices: no GPU 2: this machine shows 2 GPU(s)"),
])
def test_devices_errors_are_one_line(fake_gpus, tmp_path, capsys, argv, problem):
    (tmp_path / "b.fa").write_text(">b\nACCGTATGT\n")
    (tmp_path / "t.fa").write_text(">t\nCCGGT\n")
    (tmp_path / "e.tsv").write_text("first\tlast\n1\t2\n3\t4\n6\t8\n")
    code = main(["align", "--base", str(tmp_path / "b.fa"), "--exons", str(tmp_path / "e.tsv"),
                 "--target", str(tmp_path / "t.fa"), "-q", *argv])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT and problem in err and len(err.strip().splitlines()) == 1
