"""`nw --pairs --devices` without a GPU: a stand-in GPU solver (the sequential one registered as
a GPU solver) on two fake devices answers a batch of pairs as one call does, in input order;
--devices with a CPU solver is one line (exit 2)."""

from __future__ import annotations

import random

import pytest
from helpers import fake_gpu_devices

from splicedalign.cli import main
from splicedalign.core.errors import EXIT_INPUT
from splicedalign.workloads.nw import solvers
from splicedalign.workloads.nw.records import Costs, Pair


@pytest.fixture
def fake_gpus(monkeypatch):
    yield from fake_gpu_devices(monkeypatch, solvers.SOLVERS, "splicedalign.workloads.nw.cpu:SequentialSolver")


def random_pairs(rng: random.Random, count: int) -> list[Pair]:
    pairs = []
    for i in range(count):
        a = "".join(rng.choice("ACGT") for _ in range(rng.randint(1, 60)))
        b = "".join(rng.choice("ACGT") for _ in range(rng.randint(1, 60)))
        pairs.append(Pair.from_strings(a, b, f"p{i}", f"a{i}", f"b{i}"))
    return pairs


@pytest.mark.parametrize("mode", ["global", "infix"])
def test_pairs_split_across_two_devices_answer_as_one_call(fake_gpus, mode):
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    pairs = random_pairs(random.Random(seed), 30)
    costs = Costs()
    one = solvers.solve_pairs(solvers.SOLVERS.get("sequential"), pairs, costs, True, mode)
    split = solvers.solve_pairs_on("all", "fakegpu", pairs, costs, True, mode)
    assert [(r.score, r.cigar) for r in split] == [(r.score, r.cigar) for r in one]
    assert sorted(set(fake_gpus)) == [0, 1]


def test_pair_cost_is_cells_and_strip_steps():
    pair = Pair.from_strings("ACGT" * 50, "ACG" * 30, "p", "a", "b")
    cost = solvers.pair_cost(pair)
    assert cost.cells == pair.cells and cost.path == 100 * solvers.STEP_CELLS


def test_devices_with_a_cpu_solver_is_one_line(tmp_path, capsys):
    (tmp_path / "p.fa").write_text(">a\nACGT\n>b\nACGA\n")
    code = main(["nw", "-q", "--pairs", str(tmp_path / "p.fa"), "--solver", "sequential", "--devices", "0"])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT and len(err.strip().splitlines()) == 1
    assert "--devices: splits GPU solvers' work; solver sequential runs on the CPU" in err
