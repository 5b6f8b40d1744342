"""The cluster WFA kernel (wfa_cluster.cu) and its host path (``WfaSolver.launch_one(cluster=True)``,
``solve``'s choice) without a GPU: the kernel built for the host with g++ (tests/nw_emu/
wfa_cluster_host.cpp: the cluster's blocks as one set of fibers, each block's own shared memory
poisoned first, stores into another block's landing there), CuPy replaced by NumPy, against the
reference on random pairs (similar, unrelated, tiny, lengths far apart, wildcards), every CIGAR
re-scored."""

from __future__ import annotations

import ctypes
import logging
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import kernel_host_build
from test_nw_gpu_batch_model import fake_gpu_host, fake_kernel
from test_nw_gpu_wfa_model import EMU, EmuKernel, _pairs, _pointer

from splicedalign.gpu import device
from splicedalign.workloads.nw import wfa as cpu_wfa
from splicedalign.workloads.nw.gpu import batch, wfa, wfa_cluster
from splicedalign.workloads.nw.gpu.common import WALK_DIAGS
from splicedalign.workloads.nw.records import Costs, Pair, cigar_cost
from splicedalign.workloads.nw.reference import ReferenceSolver
from splicedalign.workloads.nw.synthetic import mutate, random_codes

ROOT = Path(__file__).resolve().parents[1]
EMU_CLUSTER = ROOT / "tests" / "nw_emu" / "wfa_cluster_host.cpp"
POISON = -123_456_789  # what each block's shared memory holds before the launch


@pytest.fixture(scope="module")
def emus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wfa_cluster")
    return (kernel_host_build(EMU, wfa.DEFINES, folder),
            kernel_host_build(EMU_CLUSTER, wfa_cluster.DEFINES, folder))


class EmuClusterKernel:
    """An nw_wfa_cluster launch on the host build, with wfa_cluster.args' arguments."""

    def __init__(self, lib, name):
        self.lib, self.name = lib, name
        self.max_dynamic_shared_size_bytes = 0
        self.launches = 0
        self.refuse = None  # called with no arguments at each launch (it may raise what the driver would)
        self.late = -1  # the launch's late block (wfa_cluster_host.cpp: -1 none)

    def __call__(self, grid, block, args, shared_mem=0):
        if self.refuse is not None:
            self.refuse()
        assert grid == (wfa_cluster.CLUSTER,) and block[0] % 32 == 0 and block[0] <= wfa_cluster.MAX_THREADS
        assert shared_mem <= max(device.SHARED_MEMORY_DEFAULT, self.max_dynamic_shared_size_bytes)
        seqs, desc, reach, *ints, keep, pool_ints, bases, runs, out = args
        assert len(ints) == 10
        self.launches += 1
        self.lib.emu_wfa_cluster_late(ctypes.c_int(self.late))
        affine, keep_on = (flag.strip() == "true" for flag in self.name.split("<")[1].rstrip(">").split(","))
        status = self.lib.emu_nw_wfa_cluster(
            ctypes.c_int(affine), ctypes.c_int(keep_on), ctypes.c_int(block[0]), ctypes.c_int(shared_mem),
            ctypes.c_int(POISON),
            _pointer(seqs), _pointer(desc), _pointer(reach), *(ctypes.c_int(int(v)) for v in ints), _pointer(keep),
            ctypes.c_longlong(int(pool_ints)), _pointer(bases), _pointer(runs), _pointer(out))
        assert status == 0


@pytest.fixture
def solver(emus, monkeypatch):
    fake_gpu_host(monkeypatch, 1 << 30)
    text = fake_kernel(batch.TEXT, [])
    kernels = {name: EmuClusterKernel(emus[1], name) for name in wfa_cluster.NAMES}

    def function(source, name, names, defines):
        if name == batch.TEXT:
            return text
        return kernels[name] if name in kernels else EmuKernel(emus[0], name)

    monkeypatch.setattr(device, "function", function)
    allowed = []  # (the non-portable attribute: no driver here)
    monkeypatch.setattr(device, "allow_cluster_size", lambda kernel, blocks: allowed.append((kernel.name, blocks)))
    monkeypatch.setattr(wfa_cluster, "max_active_clusters", lambda kernel, threads, smem: 1)  # (no driver here)
    monkeypatch.setattr(wfa_cluster, "_CLUSTERS", {})  # (its answers by kernel id: none from another test's kernels)
    got = wfa.WfaSolver(poison=True)
    got.allowed = allowed
    got.capability = wfa_cluster.COMPUTE_CAPABILITY
    return got


def _more_pairs(pairs):
    return pairs + [Pair("one", "a", "b", np.array([1], np.uint8), np.array([2], np.uint8)),
                    Pair("one same", "a", "b", np.array([3], np.uint8), np.array([3], np.uint8)),
                    Pair("same", "a", "b", pairs[0].a, pairs[0].a.copy()),
                    Pair("short a", "a", "b", pairs[1].a[:3], pairs[1].a),
                    Pair("short b", "a", "b", pairs[2].a, pairs[2].a[:2])]


@pytest.mark.parametrize("costs", (Costs(0, 1, 3), Costs(0, 2, 1), Costs(0, 3, 2), Costs(0, 4, 2, 6), Costs(0, 3, 2, 1),
                                   Costs(0, 1, 3, 2)), ids=["c013", "c021", "c032", "a426", "a321", "a132"])
def test_cluster_single_pairs(solver, costs, monkeypatch):
    """Every score the reference's, every CIGAR re-scored, up to the cap and past it (gave up);
    with a warp a group and with warps taking several groups (MAX_THREADS 32), 1 to e steps between
    two cluster barriers; linear costs (BiWFA: both directions, their halos, the breakpoint and both
    walks; caps in a direction's scores, just enough and one short by the stop rule) and gap-affine
    (M, I and D, their halos and rings)."""
    seed = 2690 + int(costs.mismatch) * 10 + int(costs.indel) + 100 * int(costs.gap_open)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    pairs = _more_pairs(_pairs(rng, 12, 200))
    g, x, o, e = cpu_wfa.reduced_costs(costs)  # (caps in scores divided by g)
    reach = wfa.reach_table(x, o, e, 3000)
    arrays = wfa.wavefront_arrays(o)
    bi = wfa_cluster.bidirectional(o)
    ways = 2 if bi else 1  # (BiWFA keeps both directions' wavefronts)
    for k, pair in enumerate(pairs):
        want = reference.solve(pair, costs, traceback=False, mode="global").score
        # a direction's caps: just enough (the narrowest ring) and one short (gave up)
        enough, short = wfa_cluster.exact_caps(want // g, x, o, e)
        # then a wide cap (more groups than warps with 32 threads)
        for cap, threads, per in ((enough, wfa_cluster.MAX_THREADS, 3), (enough + 300, 32 if k % 2 else 64, 1 + k % 3)):
            monkeypatch.setattr(wfa_cluster, "MAX_THREADS", threads)
            monkeypatch.setattr(wfa_cluster, "PER_BARRIER", per)
            for traceback in (False, True):
                visits = ways * wfa.visits_upto(reach, pair.n, pair.m, "global", arrays, cap + 1)
                got = solver.launch_one(pair, costs, traceback, "global", cap, visits, 32, cluster=True)
                assert solver.stats["cluster"] and got.score[0] == want, (pair.name, costs, cap, traceback)
                assert got.end2[0] == pair.m and got.start2[0] == 0
                if traceback:
                    assert cigar_cost(got.cigar(0), pair.a, pair.b, costs) == want, (pair.name, got.cigar(0))
        if short >= 0:
            visits = ways * wfa.visits_upto(reach, pair.n, pair.m, "global", arrays, short + 1)
            got = solver.launch_one(pair, costs, True, "global", short, visits, 32, cluster=True)
            assert got.score[0] is None and got.cigar(0) is None, (pair.name, costs, short)


@pytest.mark.parametrize("walk_steps", [wfa_cluster.WALK_STEPS, 9])
@pytest.mark.parametrize("costs", (Costs(0, 1, 3), Costs(0, 4, 2, 6)), ids=["c013", "a426"])
def test_cluster_walks_through_windows(solver, costs, walk_steps, monkeypatch):
    """Pairs wide enough that the walking blocks' rings (block 0's; BiWFA's blocks 0 and 1, both walks)
    leave room for windows of the kept values (checked: at least ring_size steps), so the walks back copy
    windows of WALK_STEPS scores (and of 9: a new window every few operations, and misses past their
    diagonals); every CIGAR re-scored to the reference's score."""
    seed = 7300 + walk_steps + int(costs.gap_open)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(wfa_cluster, "WALK_STEPS", walk_steps)
    reference = ReferenceSolver()
    g, x, o, e = cpu_wfa.reduced_costs(costs)
    reach = wfa.reach_table(x, o, e, 6000)
    arrays = wfa.wavefront_arrays(o)
    for k in range(2):
        a = random_codes(int(rng.integers(1500, 2500)), rng)
        b = mutate(a, rng, 0.08 + 0.08 * k)
        pair = Pair(f"w{k}", "a", "b", a, b)
        want = reference.solve(pair, costs, traceback=False, mode="global").score
        cap = max(want // g, int(np.argmax(reach >= 600)))  # (|k| up to 600: 38 groups, 3 a block)
        config = wfa_cluster.configure(int(reach[cap]), pair.n, pair.m, x, o, e)
        room = config.rows * config.stride + (1 + config.bi) * config.stride // wfa_cluster.GROUP_INTS
        assert min(walk_steps, room // (4 + arrays * (2 * WALK_DIAGS + 1))) >= config.ring  # (windows, not the pool)
        visits = (1 + config.bi) * wfa.visits_upto(reach, pair.n, pair.m, "global", arrays, cap + 1)
        got = solver.launch_one(pair, costs, True, "global", cap, visits, 32, cluster=True)
        assert solver.stats["cluster"] and got.score[0] == want, (pair.name, costs)
        assert cigar_cost(got.cigar(0), pair.a, pair.b, costs) == want, (pair.name, got.cigar(0))


def test_solve_takes_the_cluster_for_long_global_pairs(solver, monkeypatch):
    """``solve`` runs nw_wfa_cluster where the letters do not fit one block's shared memory (here
    never: seqs_fit patched), in global mode (linear or gap-affine costs) on a GPU with clusters;
    nw_wfa otherwise; the answer exact either way."""
    rng = np.random.default_rng(2699)
    print("seed 2699")
    reference = ReferenceSolver()
    pair = _pairs(rng, 2, 300)[1]
    monkeypatch.setattr(wfa, "seqs_fit", lambda n, m, shared_bytes=0: False)
    linear, affine = wfa_cluster.kernel(False, True), wfa_cluster.kernel(True, True)
    for costs, mode, capability, clustered in ((Costs(0, 1, 3), "global", 90, linear),
                                               (Costs(0, 4, 2, 6), "global", 90, affine),
                                               (Costs(0, 1, 3), "prefix", 90, None),
                                               (Costs(0, 4, 2, 6), "global", 80, None)):
        solver.capability = capability
        before = linear.launches + affine.launches
        answer = solver.solve(pair, costs, True, mode, budget_ms=1e4)
        want = reference.solve(pair, costs, traceback=False, mode=mode)
        assert answer.score == want.score, (costs, mode)
        assert cigar_cost(answer.cigar, pair.a, pair.b, costs, answer.start2, answer.end2) == want.score
        assert (clustered is not None) == solver.stats["cluster"], (costs, mode, capability)
        assert linear.launches + affine.launches == before + (clustered is not None)
        if clustered is not None:
            assert clustered.launches > 0
    assert ("nw_wfa_cluster<false, true>", wfa_cluster.CLUSTER) in solver.allowed
    assert ("nw_wfa_cluster<true, true>", wfa_cluster.CLUSTER) in solver.allowed


def test_solve_goes_on_with_nw_wfa_past_the_cluster_rings(solver, monkeypatch):
    """Where the rings of the pair's cap do not fit a block's shared memory (10^6 1% gap-affine),
    ``solve`` runs the cluster up to the scores whose rings fit (``fitting_steps``, patched: its own
    test below), then nw_wfa where it gave up; exact either way."""
    rng = np.random.default_rng(2700)
    print("seed 2700")
    reference = ReferenceSolver()
    monkeypatch.setattr(wfa, "seqs_fit", lambda n, m, shared_bytes=0: False)
    costs = Costs(0, 4, 2, 6)
    g, x, o, e = cpu_wfa.reduced_costs(costs)
    cluster = wfa_cluster.kernel(True, False)
    for pair in _pairs(rng, 4, 400):
        want = reference.solve(pair, costs, traceback=False, mode="global").score
        for fits in (want // g + 1, max(2, want // (2 * g))):  # enough; too few: nw_wfa after it
            monkeypatch.setattr(wfa_cluster, "fitting_steps", lambda top, *args, fits=fits: min(fits, top.size))
            before = cluster.launches
            answer = solver.solve(pair, costs, False, "global", budget_ms=1e4)
            assert answer.score == want, (pair.name, fits)
            assert cluster.launches == before + 1
            assert solver.stats["cluster"] == (fits > want // g), (pair.name, fits, want)


class FakeDriverError(RuntimeError):
    """CuPy's CUDADriverError on the fake device."""


@pytest.mark.parametrize("where", ("attribute", "occupancy", "launch"))
def test_solve_falls_back_to_nw_wfa_where_the_driver_refuses_the_cluster(solver, monkeypatch, caplog, where):
    """The driver refusing the non-portable cluster size, a cluster that fits nowhere (occupancy 0: an
    MIG slice) or a launch it refuses: ``solve`` says so once (a warning, the solver's stats) and
    answers exactly with nw_wfa, that solve and the next (which does not try the cluster again)."""
    rng = np.random.default_rng(2701)
    print("seed 2701")
    reference = ReferenceSolver()
    monkeypatch.setattr(wfa, "seqs_fit", lambda n, m, shared_bytes=0: False)
    monkeypatch.setattr(device.cupy().cuda, "driver", SimpleNamespace(CUDADriverError=FakeDriverError),
                        raising=False)
    cluster = wfa_cluster.kernel(False, True)
    tries = []

    def refuse(*args, **kwargs):
        tries.append(where)
        raise FakeDriverError("CUDA_ERROR_INVALID_VALUE")

    if where == "attribute":
        monkeypatch.setattr(device, "allow_cluster_size", refuse)
    elif where == "occupancy":
        monkeypatch.setattr(wfa_cluster, "max_active_clusters", lambda kernel, threads, smem: tries.append(0) or 0)
    else:
        cluster.refuse = refuse
    costs = Costs(0, 1, 3)
    for pair in _pairs(rng, 2, 300):
        with caplog.at_level(logging.WARNING, logger="splicedalign"):
            answer = solver.solve(pair, costs, True, "global", budget_ms=1e4)
        want = reference.solve(pair, costs, traceback=False, mode="global")
        assert answer.score == want.score
        assert cigar_cost(answer.cigar, pair.a, pair.b, costs) == want.score
        assert not solver.stats["cluster"] and solver.stats["cluster_refused"] == solver.cluster_refused
        assert cluster.launches == 0
    assert len(tries) == 1, tries  # tried once a solver
    warnings = [r.getMessage() for r in caplog.records if "nw_wfa instead" in r.getMessage()]
    assert len(warnings) == 1 and str(wfa_cluster.CLUSTER) in warnings[0], warnings


def test_configure():
    # 10^6 at 1% (linear 0/1/3, ~14,200 scores) capped at 4x: |k| <= 18,933, the reverse's diagonals (forward
    # -100 - k') too: -19,033 .. 18,933, 1,187 groups and one, 75 a block of 16; 3 steps a barrier: rows
    # s - 3 .. s + 2 a direction, and both running maxima; two hints a local group, the tail; before the ring the
    # stop's flag (two ints, by the interval's parity) and the walk's anchor (3) from the second int
    assert wfa_cluster.CLUSTER == 16
    config = wfa_cluster.configure(18_933, 1_000_000, 999_900, 1, 0, 3)
    assert config.koff == 19_033 and config.ring == 6 and config.gap_ring == 0 and config.threads == 1024
    assert config.per == 3 and config.stride == wfa_cluster.GROUP_INTS * 75 and config.bi and config.rows == 14
    assert config.smem == 4 * (4 + 14 * 34 * 75 + 2 * 75 + 4)
    assert wfa_cluster.direction_steps(14_191, 1, 0, 3) == 7_099  # ((14,191 + 4) // 2 + 2: nw_biwfa's)
    small = wfa_cluster.configure(10, 5, 300, 2, 0, 1)  # e = 1: a barrier a step; the reverse's k = 295 - k'
    assert small.koff == 5 and small.ring == 3 and small.per == 1 and small.stride == 34 * 1 and small.threads == 32
    assert wfa_cluster.diagonal_span(10, 5, 300, True) == (-5, 300)
    assert wfa_cluster.diagonal_span(10, 5, 300, False) == (-5, 10)
    # gap-affine 4/6/2 (2/3/1 reduced): a barrier a step; M read o + e = 4 back by the neighbours, I and D 1
    affine = wfa_cluster.configure(40_000, 1_000_000, 999_900, 2, 3, 1)
    assert affine.per == 1 and affine.ring == 5 and affine.gap_ring == 2 and not affine.bi and affine.koff == 40_000
    assert wfa_cluster.direction_steps(24_317, 2, 3, 1) == 24_317
    assert affine.smem == 4 * (4 + 9 * affine.stride + affine.stride // 34)


def test_fitting_steps():
    """The most scores whose rings fit: all, none, or the last prefix that fits (binary search)."""
    x, o, e = 2, 3, 1
    top = np.maximum.accumulate(wfa.reach_table(x, o, e, 100_000))
    n = m = 1_000_000
    room = 232_448 - 1024
    fits = wfa_cluster.fitting_steps(top, n, m, x, o, e, room)
    assert 1 < fits < top.size
    assert wfa_cluster.configure(int(top[fits - 1]), n, m, x, o, e).smem <= room
    assert wfa_cluster.configure(int(top[fits]), n, m, x, o, e).smem > room
    assert wfa_cluster.fitting_steps(top[:100], n, m, x, o, e, room) == 100
    assert wfa_cluster.fitting_steps(top, n, m, x, o, e, 100) == 0


def test_budget_steps_is_the_running_sum_of_the_model():
    """budget_steps (a binary search on the widths' running sum) gives the steps whose per-step
    model times, summed, stay within the budget, as a cumulative sum would; estimate_ms's total
    from the sums is the per-step times' sum."""
    rng = np.random.default_rng(26)
    for x, o, e in ((1, 0, 3), (2, 3, 1), (3, 2, 1)):
        width = wfa.widths(wfa.reach_table(x, o, e, 20_000), 1_000_000, 1_000_000, "global")
        diagonals = np.cumsum(width)
        each = wfa_cluster.steps_ms(1, width, 1.4, e)
        spent = np.cumsum(each)
        assert np.allclose(wfa_cluster.steps_ms(np.arange(1, width.size + 1), diagonals, 1.4, e), spent)
        for budget in (0.0, float(spent[0]), *rng.uniform(0, 1.2 * spent[-1], 30)):
            assert wfa_cluster.budget_steps(diagonals, budget, 1.4, e) == np.searchsorted(spent, budget, side="right")


@pytest.mark.parametrize("costs", (Costs(0, 1, 3), Costs(0, 2, 1)), ids=["c013", "c021"])
def test_cluster_biwfa_warps_take_several_groups_of_lengths_far_apart(solver, costs, monkeypatch):
    """BiWFA with a warp a block (MAX_THREADS 32) over several local groups, on pairs whose lengths lie ~650
    letters apart either way (m - n far from 0: BiWFA's reverse diagonals k' = m - n - k in other groups
    than the forward's, the groups between them skipped early on, diagonals in a block's second group): each
    warp's hints, running maxima, ring places and breakpoint candidates of several groups a step, 1 to e steps
    a barrier; the alignment with caps just enough and one short, every CIGAR re-scored
    (test_cluster_single_pairs' pairs span at most 13 groups: a group a block; the walks' test a warp a group)."""
    seed = 2750 + int(costs.mismatch) * 10 + int(costs.indel) + 100 * int(costs.gap_open)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    g, x, o, e = cpu_wfa.reduced_costs(costs)
    reach = wfa.reach_table(x, o, e, 6000)
    arrays = wfa.wavefront_arrays(o)
    ways = 2  # (BiWFA keeps both directions' wavefronts)
    monkeypatch.setattr(wfa_cluster, "MAX_THREADS", 32)
    for k in range(2):
        a = random_codes(int(rng.integers(100, 150)), rng)
        flanks = [random_codes(int(rng.integers(300, 350)), rng) for _ in range(2)]
        b = np.concatenate([flanks[0], mutate(a, rng, 0.05), flanks[1]])
        pair = Pair(f"far{k}", "a", "b", *((a, b) if k == 0 else (b, a)))
        want = reference.solve(pair, costs, traceback=False, mode="global").score
        enough, short = wfa_cluster.exact_caps(want // g, x, o, e)
        monkeypatch.setattr(wfa_cluster, "PER_BARRIER", 1 + (k + int(costs.indel)) % 3)
        config = wfa_cluster.configure(int(reach[enough]), pair.n, pair.m, x, o, e)
        assert config.threads == 32 and config.stride // wfa_cluster.GROUP_INTS >= 2, (pair.name, config)
        visits = ways * wfa.visits_upto(reach, pair.n, pair.m, "global", arrays, enough + 1)
        got = solver.launch_one(pair, costs, True, "global", enough, visits, 32, cluster=True)
        assert solver.stats["cluster"] and got.score[0] == want, (pair.name, costs)
        assert cigar_cost(got.cigar(0), pair.a, pair.b, costs) == want, (pair.name, got.cigar(0))
        visits = ways * wfa.visits_upto(reach, pair.n, pair.m, "global", arrays, short + 1)
        got = solver.launch_one(pair, costs, True, "global", short, visits, 32, cluster=True)
        assert got.score[0] is None and got.cigar(0) is None, (pair.name, costs, short)


@pytest.mark.parametrize("costs", (Costs(0, 1, 3), Costs(0, 4, 2, 6)), ids=["c013", "a426"])
def test_cluster_stops_at_one_barrier_with_a_late_block(solver, costs, monkeypatch):
    """One block late after every cluster barrier (wfa_cluster_host.cpp: its threads read the stop's flag only
    once every other block has run its next interval, reducing into every block's flag): every block still stops
    at the same barrier, the score the reference's, the CIGAR re-scored (a single flag fails this: the late
    block reads the next interval's overlap or end and stops a barrier early, and the emulator aborts on the
    barrier the others wait at, or the walk meets values never written)."""
    g, x, o, e = cpu_wfa.reduced_costs(costs)
    reach = wfa.reach_table(x, o, e, 3000)
    ways = 2 if wfa_cluster.bidirectional(o) else 1
    arrays = wfa.wavefront_arrays(o)
    seed = 2810 + int(costs.indel) + 100 * int(costs.gap_open)
    print(f"seed {seed}")
    pairs = _pairs(np.random.default_rng(seed), 6, 400)  # (one flag: linear p5 with block 0 late aborts)
    reference = ReferenceSolver()
    kernels = [device.function(None, name, None, None) for name in wfa_cluster.NAMES]
    for k, pair in enumerate(pairs):
        want = reference.solve(pair, costs, traceback=False, mode="global").score
        enough, _ = wfa_cluster.exact_caps(want // g, x, o, e)
        monkeypatch.setattr(wfa_cluster, "PER_BARRIER", 1 + k % 3)
        for late in (0, 1 + k, wfa_cluster.CLUSTER - 1):
            for kernel in kernels:
                kernel.late = late
            for traceback in (False, True):
                visits = ways * wfa.visits_upto(reach, pair.n, pair.m, "global", arrays, enough + 1)
                got = solver.launch_one(pair, costs, traceback, "global", enough, visits, 32, cluster=True)
                assert solver.stats["cluster"] and got.score[0] == want, (pair.name, costs, late, traceback)
                if traceback:
                    assert cigar_cost(got.cigar(0), pair.a, pair.b, costs) == want, (pair.name, late, got.cigar(0))
