"""nw GPU solvers (`gpu`, `nw-tiles`) against `sequential` on fresh seeded random pairs, every
CIGAR re-scored; skipped without a usable GPU (the reason is shown)."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.gpu.device import unavailable_reason
from splicedalign.workloads.nw import Costs, Pair, cigar_cost, solve

REASON = unavailable_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(REASON is not None, reason=f"no GPU: {REASON}")]


def pairs(seed: int, count: int, most: int):
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    for k in range(count):
        n, m = int(rng.integers(1, most)), int(rng.integers(1, most))
        a = rng.integers(0, 4, n).astype(np.uint8)
        b = a[:m].copy() if m <= n and k % 2 else rng.integers(0, 4, m).astype(np.uint8)
        b[rng.random(b.size) < 0.05] = 5  # wildcards of b never match
        yield Pair(f"r{k}", "a", "b", a, b)


@pytest.mark.parametrize("solver", ["gpu", "nw-tiles"])
def test_gpu_solvers_match_sequential(solver):
    for pair in pairs(31, 40, 1500):
        for costs in (Costs(), Costs(-1, 2, 3)):
            want = solve(pair, costs, "sequential", traceback=False).score
            got = solve(pair, costs, solver)
            assert got.score == want, pair.name
            assert cigar_cost(got.cigar, pair.a, pair.b, costs) == want, pair.name
            assert solve(pair, costs, solver, traceback=False).score == want


def test_gpu_host_trace_and_tiny_checkpoint_blocks():
    from splicedalign.workloads.nw.gpu.solver import GpuSolver

    for pair in pairs(32, 20, 900):
        want = solve(pair, Costs(), "sequential", traceback=False).score
        for solver in (GpuSolver(trace="host"), GpuSolver(rows_per_lane=4, cols_every=8, poison=True)):
            got = solver.solve(pair, Costs())
            assert got.score == want and cigar_cost(got.cigar, pair.a, pair.b, Costs()) == want


@pytest.mark.parametrize("solver", ["gpu", "nw-tiles"])
def test_gpu_solvers_refuse_affine_costs_and_other_modes(solver):
    from splicedalign.core.errors import SolverUnavailable

    pair = Pair.from_strings("ACGTACGT", "ACGTTACGT")
    with pytest.raises(SolverUnavailable, match="linear costs in global mode only"):
        solve(pair, Costs(0, 4, 2, 6), solver)
    with pytest.raises(SolverUnavailable, match="linear costs in global mode only"):
        solve(pair, Costs(), solver, mode="infix")
