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
        # the whole table's traces (without the wavefront kernel, which takes these similar pairs)
        for solver in (GpuSolver(trace="host", whole_codes=False, use_wfa=False),
                       GpuSolver(rows_per_lane=4, cols_every=8, poison=True, whole_codes=False, use_wfa=False)):
            got = solver.solve(pair, Costs())
            assert got.score == want and cigar_cost(got.cigar, pair.a, pair.b, Costs()) == want


def test_tiles_refuse_affine_costs_and_other_modes():
    from splicedalign.core.errors import SolverUnavailable

    pair = Pair.from_strings("ACGTACGT", "ACGTTACGT")
    with pytest.raises(SolverUnavailable, match="linear costs in global mode only"):
        solve(pair, Costs(0, 4, 2, 6), "nw-tiles")
    with pytest.raises(SolverUnavailable, match="linear costs in global mode only"):
        solve(pair, Costs(), "nw-tiles", mode="infix")


def test_gpu_every_mode_and_cost_model_against_the_reference():
    """nw_band (bands, gap-affine, prefix, infix) and nw_strips against the reference, every
    CIGAR re-scored over its region; tiny and empty-ish inputs included; bands on every size
    (band_min_cells=0, no wavefront kernel) and the default choice (often the wavefront kernel)."""
    from splicedalign.workloads.nw.gpu.solver import GpuSolver
    from splicedalign.workloads.nw.records import MODES

    rng = np.random.default_rng(2627)
    print("seed 2627")
    for k, pair in enumerate(pairs(2627, 60, 700)):
        mode = MODES[k % 3]
        costs = (Costs(0, int(rng.integers(1, 5)), int(rng.integers(1, 5))) if k % 4 == 0 else
                 Costs(0, 4, 2, 6) if k % 4 == 1 else
                 Costs(0, int(rng.integers(0, 7)), int(rng.integers(1, 4)), int(rng.integers(0, 9))) if k % 4 == 2 else
                 Costs(int(rng.integers(-2, 1)), int(rng.integers(0, 5)), int(rng.integers(0, 4)),
                       int(rng.integers(0, 6))))
        if k % 10 == 0:
            pair = Pair("tiny", "a", "b", pair.a[:int(rng.integers(0, 3))], pair.b[:int(rng.integers(0, 3))])
        want = solve(pair, costs, "reference", traceback=False, mode=mode).score
        for solver in (GpuSolver(), GpuSolver(band_min_cells=0, poison=True, use_wfa=False),
                       GpuSolver(band_min_cells=0, band_rows=4, use_wfa=False)):
            got = solver.solve(pair, costs, mode=mode)
            assert got.score == want, (k, mode, costs)
            assert cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2, got.end2) == want, (k, mode, costs)
            assert solver.solve(pair, costs, traceback=False, mode=mode).score == want


def test_gpu_bands_certify_similar_pairs():
    """A long similar pair goes through certified bands (algorithm 'band'), equal to multicore."""
    from splicedalign.workloads.nw.gpu.solver import GpuSolver
    from splicedalign.workloads.nw.synthetic import divergent_pair

    pair = divergent_pair(20_000, 1.0)
    for costs, mode in ((Costs(), "global"), (Costs(0, 4, 2, 6), "global"), (Costs(0, 4, 2, 6), "prefix")):
        want = solve(pair, costs, "multicore", traceback=False, mode=mode).score
        solver = GpuSolver(poison=True, band_min_cells=0, use_wfa=False)  # (with it: the wavefront kernel)
        got = solver.solve(pair, costs, mode=mode)
        assert got.algorithm == "band" and not solver.band.full
        assert got.score == want
        assert cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2, got.end2) == want
