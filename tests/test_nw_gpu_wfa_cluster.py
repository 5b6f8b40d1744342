"""`gpu`'s cluster WFA kernel (workloads/nw/gpu/wfa_cluster.cu) on the device: single pairs of
every size (tiny to 10^5 letters, similar, unrelated, wildcards, lengths far apart), linear and
gap-affine costs,
against `sequential` (short pairs) or the CPU WFA and pywfa where installed (long ones), score and
CIGAR re-scored, caps (a direction's scores: BiWFA's with linear costs) just enough and short by one (gave
up); skipped without a GPU with clusters."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.gpu.device import unavailable_reason
from splicedalign.workloads.nw import Costs, cigar_cost, solve
from splicedalign.workloads.nw import wfa as cpu_wfa
from splicedalign.workloads.nw.synthetic import divergent_pair, random_batch

REASON = unavailable_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(REASON is not None, reason=f"no GPU: {REASON}")]

COSTS = [Costs(0, 1, 3), Costs(0, 2, 1), Costs(0, 3, 2), Costs(0, 4, 2, 6), Costs(0, 3, 2, 1)]


@pytest.fixture(scope="module")
def solver():
    from splicedalign.workloads.nw.gpu import wfa_cluster
    from splicedalign.workloads.nw.gpu.wfa import WfaSolver

    got = WfaSolver(poison=True)
    if got.capability < wfa_cluster.COMPUTE_CAPABILITY:
        pytest.skip(f"no thread-block clusters on this GPU (compute capability {got.capability})")
    return got


def _launch(solver, pair, costs, traceback, cap):
    from splicedalign.workloads.nw.gpu import wfa, wfa_cluster

    _, x, o, e = cpu_wfa.reduced_costs(costs)
    ways = 2 if wfa_cluster.bidirectional(o) else 1  # (BiWFA keeps both directions' wavefronts)
    visits = ways * wfa.visits_upto(solver.reach(x, o, e, cap + 1), pair.n, pair.m, "global",
                                    wfa.wavefront_arrays(o), cap + 1)
    got = solver.launch_one(pair, costs, traceback, "global", cap, visits, 32, cluster=True)
    assert solver.stats["cluster"]
    return got


def _fitting_cap(solver, pair, costs, cap):
    """``cap``, or less where its rings would not fit (gap-affine: ~twice its guess at 10^5 10%)."""
    from splicedalign.workloads.nw.gpu import wfa_cluster

    _, x, o, e = cpu_wfa.reduced_costs(costs)
    top = np.maximum.accumulate(solver.reach(x, o, e, cap + 1))
    return wfa_cluster.fitting_steps(top, pair.n, pair.m, x, o, e, solver.shared_bytes) - 1


@pytest.mark.parametrize("costs", COSTS, ids=["c013", "c021", "c032", "a426", "a321"])
def test_cluster_equals_sequential(solver, costs):
    seed = 4260 + int(costs.mismatch) + 10 * int(costs.gap_open)
    print(f"seed {seed}")
    from splicedalign.workloads.nw.gpu import wfa_cluster

    pairs = random_batch(np.random.default_rng(seed), 30, 3000, flank=150)
    g, x, o, e = cpu_wfa.reduced_costs(costs)
    for pair in pairs:
        want = solve(pair, costs, "sequential", False, "global").score
        enough, short = wfa_cluster.exact_caps(want // g, x, o, e)
        for traceback in (False, True):
            for cap in (enough, enough + 40):
                got = _launch(solver, pair, costs, traceback, cap)
                assert got.score[0] == want, (pair.name, costs, traceback, cap)
                if traceback:
                    assert cigar_cost(got.cigar(0), pair.a, pair.b, costs) == want, pair.name
        if short >= 0:
            assert _launch(solver, pair, costs, True, short).score[0] is None, pair.name


@pytest.mark.parametrize("costs", (Costs(0, 1, 3), Costs(0, 4, 2, 6)), ids=["linear", "affine"])
def test_cluster_long_pairs_equal_the_cpu_wfa_and_pywfa(solver, costs):
    from splicedalign.workloads.nw.gpu import wfa_cluster

    g, x, o, e = cpu_wfa.reduced_costs(costs)
    try:
        from splicedalign.workloads.nw.peers import PywfaSolver

        peer = PywfaSolver()
    except Exception:  # (pywfa not installed: the CPU WFA alone)
        peer = None
    for n, percent in ((20_000, 1), (20_000, 5), (100_000, 1), (50_000, 10)):
        pair = divergent_pair(n, percent, seed=4270)
        want = cpu_wfa.wfa_align(pair.a, pair.b, costs, "global", False, 1 << 40).score
        if peer is not None:
            assert peer.solve(pair, costs, traceback=False).score == want, pair.name
        for traceback in (False, True):
            cap = wfa_cluster.direction_steps(4 * want // g + 64, x, o, e)
            got = _launch(solver, pair, costs, traceback, _fitting_cap(solver, pair, costs, cap))
            assert got.score[0] == want, (pair.name, traceback)
            if traceback:
                assert cigar_cost(got.cigar(0), pair.a, pair.b, costs) == want, pair.name
