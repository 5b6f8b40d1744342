"""`gpu`'s wavefront kernel (workloads/nw/gpu/wfa.py, wfa.cu) on the device against the CPU
solvers on fresh seeded random pairs of every mode and WFA cost model, every CIGAR re-scored
over its region; the automatic choice (``gpu`` says ``wfa`` for similar pairs, falls back
exactly); skipped without a usable GPU (the reason is shown)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import fresh_rng
from test_nw_modes import late_start_pair

from splicedalign.gpu.device import unavailable_reason
from splicedalign.workloads.nw import Costs, Pair, cigar_cost, solve
from splicedalign.workloads.nw import wfa as cpu_wfa
from splicedalign.workloads.nw.records import MODES
from splicedalign.workloads.nw.synthetic import divergent_pair, random_batch

REASON = unavailable_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(REASON is not None, reason=f"no GPU: {REASON}")]

COSTS = [Costs(0, 1, 3), Costs(0, 4, 2, 6), Costs(0, 3, 2, 5), Costs(0, 2, 1), Costs(0, 5, 3, 1)]


def wfa_solver():
    from splicedalign.workloads.nw.gpu.wfa import WfaSolver

    return WfaSolver(poison=True)


@pytest.mark.parametrize("mode", MODES)
def test_wfa_kernel_equals_sequential_every_cost_model(mode):
    seed = 4200 + MODES.index(mode)
    print(f"seed {seed}")
    pairs = random_batch(np.random.default_rng(seed), 40, 900, flank=150)
    solver = wfa_solver()
    for costs in COSTS:
        want = [solve(p, costs, "sequential", False, mode).score for p in pairs]
        for traceback in (True, False):
            answered = 0
            for k, pair in enumerate(pairs):  # one pair a launch, threads as solve picks them
                got = solver.solve(pair, costs, traceback, mode, budget_ms=1e4)
                if mode == "infix" and got is None:
                    continue  # an infix pair past its memory share: the caller's other path
                answered += 1
                assert got is not None and got.score == want[k], (pair.name, costs, mode)
                if traceback:
                    assert cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2, got.end2) == want[k]
            assert answered, (costs, mode, traceback)  # not every infix pair handed on
            visits = np.full(len(pairs), 1 << 26, np.int64)
            many = solver.launch(pairs, costs, traceback, mode, 6000, visits, 64)  # a batch, 64 threads a pair
            for k, pair in enumerate(pairs):
                assert many.score[k] == want[k], (pair.name, costs, mode, traceback)
                if traceback:
                    assert cigar_cost(many.cigars[k], pair.a, pair.b, costs, many.start2[k], many.end2[k]) == want[k]


@pytest.mark.parametrize("mode", MODES)
def test_gpu_chooses_the_wfa_for_similar_pairs_and_stays_exact(mode):
    from splicedalign.workloads.nw.gpu.solver import GpuSolver

    gpu = GpuSolver(poison=True, use_segments=False)  # (the one-block WFA's choice; segments': test_nw_gpu_segments)
    rng = np.random.default_rng(4210)
    print("seed 4210")
    similar = divergent_pair(20_000, 1.0, index=3)
    unrelated = Pair("unrelated", "a", "b", rng.integers(0, 4, 3000).astype(np.uint8),
                     rng.integers(0, 4, 3100).astype(np.uint8))
    for costs in (Costs(0, 1, 3), Costs(0, 4, 2, 6)):
        for pair in (similar, unrelated):
            want = solve(pair, costs, "multicore", False, mode).score
            got = gpu.solve(pair, costs, traceback=True, mode=mode)
            assert got.score == want and cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2, got.end2) == want
            if pair is similar and mode != "infix":
                assert got.algorithm == "wfa"
        batch = gpu.solve_many([similar, unrelated, similar], costs, traceback=True, mode=mode)
        for pair, r in zip((similar, unrelated, similar), batch):
            want = solve(pair, costs, "multicore", False, mode).score
            assert r.score == want and cigar_cost(r.cigar, pair.a, pair.b, costs, r.start2, r.end2) == want


def test_wfa_kernel_infix_with_and_without_the_gap_start():
    """Infix mode with and without the gap start (``launch(gap_start=...)``) on fresh random pairs
    whose best start often lies inside a gap of a's letters (a's head cut off in b), one launch a
    batch: every score and end column the CPU WFA's, every CIGAR re-scored (under the gap start's
    rule with it); linear costs the same answers either way."""
    rng = fresh_rng()
    pairs = [late_start_pair(rng, 2000 if k % 3 else 40) for k in range(60)]
    solver = wfa_solver()
    from splicedalign.workloads.nw.gpu.wfa import score_bound

    visits = np.full(len(pairs), 1 << 28, np.int64)
    for costs in COSTS:
        g = cpu_wfa.reduced_costs(costs)[0]
        steps = max(score_bound(costs, p.n, p.m) for p in pairs) // g + 1  # (no pair gives up)
        for traceback in (True, False):
            got = {gap: solver.launch(pairs, costs, traceback, "infix", steps, visits, 64, gap_start=gap)
                   for gap in (False, True)}
            for gap, answers in got.items():
                for k, pair in enumerate(pairs):
                    want = cpu_wfa.wfa_align(pair.a, pair.b, costs, "infix", False, 1 << 40, gap_start=gap)
                    assert (answers.score[k], answers.end2[k]) == (want.score, want.end2), (k, costs, gap)
                    if traceback:
                        assert cigar_cost(answers.cigars[k], pair.a, pair.b, costs, answers.start2[k],
                                          answers.end2[k], gap_start=gap) == want.score, (k, costs, gap)
            if costs.gap_open == 0:
                assert got[True].score == got[False].score and got[True].cigars == got[False].cigars
            else:
                assert sum(g < p for g, p in zip(got[True].score, got[False].score)) >= 5, costs
