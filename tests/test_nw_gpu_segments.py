"""segments.py's pieces on the device (``WfaSolver.solve_pieces``, ``GpuSolver.try_segments``) against the
CPU: each piece's infix score equals the CPU WFA's and its walk re-scores to it; whole pairs (fresh
seeded random pairs, linear and gap-affine costs, global and prefix modes) equal ``sequential`` with every CIGAR
re-scored, most of them answered by ``segments``; skipped without a usable GPU (the reason is shown)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import fresh_rng

from splicedalign.gpu.device import unavailable_reason
from splicedalign.workloads.nw import Costs, Pair, cigar_cost, solve
from splicedalign.workloads.nw import segments as seg
from splicedalign.workloads.nw.cigar import runs_cigar
from splicedalign.workloads.nw.wfa import reduced_costs

REASON = unavailable_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(REASON is not None, reason=f"no GPU: {REASON}")]

COSTS = [Costs(0, 1, 3), Costs(0, 2, 1), Costs(0, 3, 2), Costs(0, 4, 4), Costs(0, 4, 2, 6), Costs(0, 3, 1, 2)]


def similar_pair(rng: np.random.Generator, n: int, rate: float, name: str = "s") -> Pair:
    a = rng.integers(0, 4, n).astype(np.uint8)
    out = []
    for x in a.tolist():
        roll = rng.random()
        if roll < rate / 4:
            continue
        out.append(int(rng.integers(0, 4)) if roll < rate else x)
        if roll > 1 - rate / 4:
            out.append(int(rng.integers(0, 4)))
    return Pair(name, "a", "b", a, np.array(out, np.uint8))


def test_pieces_equal_the_cpu_wfa():
    from splicedalign.workloads.nw.gpu.wfa import WfaSolver

    rng = fresh_rng()
    solver = WfaSolver(poison=True)
    for costs in COSTS:
        pair = similar_pair(rng, int(rng.integers(2000, 12000)), float(rng.choice([0.01, 0.05, 0.1])))
        assert solver.stage(pair, costs)
        lo, hi = seg.limits(pair.n, pair.m, "global", int(rng.integers(0, 400)))
        cuts = seg.first_cuts(pair.n, int(rng.integers(1, 1500)))
        c0, c1 = seg.windows(cuts[:-1], cuts[1:], lo, hi, pair.m)
        got = solver.solve_pieces(pair, costs, cuts[:-1], cuts[1:], c0, c1, 2000, 2000)
        want = seg.cpu_pieces(pair, costs)(cuts[:-1], cuts[1:], c0, c1)
        assert got.score.tolist() == want.score.tolist(), costs
        for k in range(cuts.size - 1):
            cigar = runs_cigar(got.runs[got.first[k]:got.first[k] + got.used[k]])
            a = pair.a[cuts[k]:cuts[k + 1]]
            assert cigar_cost(cigar, a, pair.b, costs, got.start[k], got.end[k], costs.affine) == want.score[k]
        # caps: a piece past 3 scores gives up (-1), and so do pieces past a pool with room for 2 scores a piece
        # (every piece needing more); the rest exact
        g = reduced_costs(costs)[0]
        short = solver.solve_pieces(pair, costs, cuts[:-1], cuts[1:], c0, c1, 3, 2000)
        assert ((short.score >= 0) == (want.score <= 3 * g)).all()
        assert (short.score[short.score >= 0] == want.score[short.score >= 0]).all()
        fresh = WfaSolver(poison=True)  # (a solver's workspace keeps its largest pool: a new one's is the asked)
        assert fresh.stage(pair, costs)
        short = fresh.solve_pieces(pair, costs, cuts[:-1], cuts[1:], c0, c1, 2000, 1)
        assert (short.score[short.score >= 0] == want.score[short.score >= 0]).all()
        assert (short.score < 0).any() or want.score.min() <= 2 * g


@pytest.mark.parametrize("mode", seg.MODES)
def test_gpu_segments_equal_sequential(mode):
    from splicedalign.workloads.nw.gpu.solver import SEGMENTS_MIN, GpuSolver

    rng = fresh_rng()
    gpu = GpuSolver(poison=True)
    chosen = 0
    for k in range(12):
        costs = COSTS[k % len(COSTS)]
        pair = similar_pair(rng, int(rng.integers(SEGMENTS_MIN, 3 * SEGMENTS_MIN)),
                            float(rng.choice([0.002, 0.01, 0.03, 0.08])), f"p{k}")
        want = solve(pair, costs, "sequential", False, mode)
        for traceback in (True, False):
            got = gpu.solve(pair, costs, traceback, mode)
            assert got.score == want.score, (pair.name, costs, got.algorithm)
            assert got.end2 == want.end2  # (prefix: the first end column of an optimal alignment, docs/nw.md)
            if traceback:
                assert cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2, got.end2) == want.score
            chosen += got.algorithm == seg.ALGORITHM
            print(pair.name, pair.n, pair.m, costs, traceback, got.algorithm, gpu.stats_segments)
    assert chosen >= 12  # (most pairs are answered by the pieces: the test checks them)
