"""`gpu` batches (workloads/nw/gpu/batch.py, batch.cu) against `sequential` on fresh seeded random
pairs of every mode and cost model, every CIGAR re-scored over its region, answers in input
order; skipped without a usable GPU (the reason is shown)."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.gpu.device import unavailable_reason
from splicedalign.workloads.nw import Costs, Pair, cigar_cost, solve
from splicedalign.workloads.nw.records import MODES
from splicedalign.workloads.nw.synthetic import random_batch

REASON = unavailable_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(REASON is not None, reason=f"no GPU: {REASON}")]

COSTS = [Costs(), Costs(0, 4, 2, 6), Costs(-1, 2, 3), Costs(-2, 3, 1, 4), Costs(0, 2, 5, 1)]


def random_pairs(seed: int, count: int, most: int) -> list[Pair]:
    """Mutated copies (substitutions, indels, flanks, wildcards), unrelated pairs, tiny ones."""
    print(f"seed {seed}")
    return random_batch(np.random.default_rng(seed), count, most, flank=200)


def batch_solver(**options):
    from splicedalign.workloads.nw.gpu.batch import BatchSolver

    return BatchSolver(lambda p, c, t, m: solve(p, c, "sequential", t, m), **options)


@pytest.mark.parametrize("mode", MODES)
def test_batch_equals_sequential_every_cost_model(mode):
    pairs = random_pairs(4100 + MODES.index(mode), 60, 1200)
    solver = batch_solver(poison=True)
    for costs in COSTS:
        got = solver.solve_many(pairs, costs, traceback=True, mode=mode)
        assert solver.stats["main"], "no pair took a band"
        scores = solver.solve_many(pairs, costs, traceback=False, mode=mode)
        for pair, r, s in zip(pairs, got, scores):
            want = solve(pair, costs, "sequential", traceback=False, mode=mode).score
            assert r.score == want == s.score, (pair.name, costs, mode)
            assert cigar_cost(r.cigar, pair.a, pair.b, costs, r.start2, r.end2) == want, (pair.name, costs, mode)


def test_chunks_under_a_small_memory_cap_and_input_order():
    pairs = random_pairs(4200, 40, 3000)
    whole = batch_solver().solve_many(pairs, Costs(0, 4, 2, 6))
    small = batch_solver(memory_cap=8 << 20)
    chunked = small.solve_many(pairs, Costs(0, 4, 2, 6))
    assert [(r.score, r.cigar) for r in whole] == [(r.score, r.cigar) for r in chunked]
    assert {r.algorithm for r in chunked} >= {"band"}


def test_gpu_solver_batches_and_hands_on_what_no_band_takes():
    from splicedalign.workloads.nw.gpu.solver import GpuSolver
    from splicedalign.workloads.nw.solvers import solve_pairs

    rng = np.random.default_rng(4300)
    print("seed 4300")
    similar = rng.integers(0, 4, 3000).astype(np.uint8)
    pairs = [Pair("similar", "a", "b", similar, similar[5:]),
             Pair("unrelated", "a", "b", rng.integers(0, 4, 12_000).astype(np.uint8),
                  rng.integers(0, 4, 12_000).astype(np.uint8)),  # a score too high for any band
             Pair("far apart", "a", "b", similar[:100], similar)]  # 2,900 diagonals apart
    got = solve_pairs(GpuSolver(), pairs, Costs())
    # the similar pair: the wavefront kernel or a band (as the cost model predicts faster)
    assert got[0].algorithm in ("wfa", "band") and [r.algorithm for r in got[1:]] == ["dp", "dp"]
    for pair, r in zip(pairs, got):
        assert r.score == solve(pair, Costs(), "sequential", traceback=False).score
        assert cigar_cost(r.cigar, pair.a, pair.b, Costs()) == r.score
