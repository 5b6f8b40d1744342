"""The cluster WFA kernel (wfa_cluster.cu) and its host path (``WfaSolver.launch_one(cluster=True)``,
``solve``'s choice) without a GPU: the kernel built for the host with g++ (tests/nw_emu/
wfa_cluster_host.cpp: the cluster's blocks as one set of fibers, each block's own shared memory
poisoned first, stores into another block's landing there), CuPy replaced by NumPy, against the
reference on random pairs (similar, unrelated, tiny, lengths far apart, wildcards), every CIGAR
re-scored."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest
from helpers import kernel_host_build
from test_nw_gpu_batch_model import fake_gpu_host, fake_kernel
from test_nw_gpu_wfa_model import EMU, EmuKernel, _pairs, _pointer

from splicedalign.gpu import device
from splicedalign.workloads.nw import wfa as cpu_wfa
from splicedalign.workloads.nw.gpu import batch, wfa, wfa_cluster
from splicedalign.workloads.nw.records import Costs, Pair, cigar_cost
from splicedalign.workloads.nw.reference import ReferenceSolver

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

    def __call__(self, grid, block, args, shared_mem=0):
        assert grid == (wfa_cluster.CLUSTER,) and block[0] % 32 == 0 and block[0] <= wfa_cluster.MAX_THREADS
        assert shared_mem <= max(device.SHARED_MEMORY_DEFAULT, self.max_dynamic_shared_size_bytes)
        seqs, desc, reach, *ints, keep, pool_ints, bases, runs, out = args
        assert len(ints) == 7
        self.launches += 1
        status = self.lib.emu_nw_wfa_cluster(
            ctypes.c_int("true" in self.name), ctypes.c_int(block[0]), ctypes.c_int(shared_mem), ctypes.c_int(POISON),
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


@pytest.mark.parametrize("costs", (Costs(0, 1, 3), Costs(0, 2, 1), Costs(0, 3, 2)), ids=["c013", "c021", "c032"])
def test_cluster_single_pairs(solver, costs, monkeypatch):
    """Every score the reference's, every CIGAR re-scored, up to the cap and past it (gave up);
    with a warp a group and with warps taking several groups (MAX_THREADS 32), 1 to e steps between
    two cluster barriers."""
    seed = 2690 + int(costs.mismatch) * 10 + int(costs.indel)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    pairs = _more_pairs(_pairs(rng, 12, 200))
    _, x, o, e = cpu_wfa.reduced_costs(costs)
    reach = wfa.reach_table(x, o, e, 3000)
    for k, pair in enumerate(pairs):
        want = reference.solve(pair, costs, traceback=False, mode="global").score
        # caps: just enough (the narrowest ring), then a wide one (more groups than warps with 32 threads)
        for cap, threads, per in ((want, wfa_cluster.MAX_THREADS, 3), (want + 300, 32 if k % 2 else 64, 1 + k % 3)):
            monkeypatch.setattr(wfa_cluster, "MAX_THREADS", threads)
            monkeypatch.setattr(wfa_cluster, "PER_BARRIER", per)
            for traceback in (False, True):
                visits = wfa.visits_upto(reach, pair.n, pair.m, "global", 1, cap + 1)
                got = solver.launch_one(pair, costs, traceback, "global", cap, visits, 32, cluster=True)
                assert solver.stats["cluster"] and got.score[0] == want, (pair.name, costs, cap, traceback)
                assert got.end2[0] == pair.m and got.start2[0] == 0
                if traceback:
                    assert cigar_cost(got.cigar(0), pair.a, pair.b, costs) == want, (pair.name, got.cigar(0))
        if want > 0:  # one score short: gave up
            visits = wfa.visits_upto(reach, pair.n, pair.m, "global", 1, want)
            got = solver.launch_one(pair, costs, True, "global", want - 1, visits, 32, cluster=True)
            assert got.score[0] is None and got.cigar(0) is None


def test_solve_takes_the_cluster_for_long_linear_global_pairs(solver, monkeypatch):
    """``solve`` runs nw_wfa_cluster where the letters do not fit one block's shared memory (here
    never: seqs_fit patched), for linear costs in global mode on a GPU with clusters; nw_wfa
    otherwise; the answer exact either way."""
    rng = np.random.default_rng(2699)
    print("seed 2699")
    reference = ReferenceSolver()
    pair = _pairs(rng, 2, 300)[1]
    monkeypatch.setattr(wfa, "seqs_fit", lambda n, m, shared_bytes=0: False)
    cluster = wfa_cluster.kernel(True)
    for costs, mode, capability, clustered in ((Costs(0, 1, 3), "global", 90, True),
                                               (Costs(0, 4, 2, 6), "global", 90, False),
                                               (Costs(0, 1, 3), "prefix", 90, False),
                                               (Costs(0, 1, 3), "global", 80, False)):
        solver.capability = capability
        before = cluster.launches
        answer = solver.solve(pair, costs, True, mode, budget_ms=1e4)
        want = reference.solve(pair, costs, traceback=False, mode=mode)
        assert answer.score == want.score, (costs, mode)
        assert cigar_cost(answer.cigar, pair.a, pair.b, costs, answer.start2, answer.end2) == want.score
        assert (cluster.launches > before) == clustered == solver.stats["cluster"], (costs, mode, capability)
    assert ("nw_wfa_cluster<true>", wfa_cluster.CLUSTER) in solver.allowed


def test_configure():
    # 10^6 at 1% (linear 0/1/3, ~14,200 scores) capped at 4x: |k| <= 18,933, 1,184 groups and one, 75 a block
    # of 16; 3 steps a barrier: rows s - 3 .. s + 2
    assert wfa_cluster.CLUSTER == 16
    config = wfa_cluster.configure(18_933, 1_000_000, 999_900, 1, 3)
    assert config.koff == 18_933 and config.ring == 6 and config.threads == wfa_cluster.MAX_THREADS
    assert config.per == 3 and config.stride == wfa_cluster.GROUP_INTS * 75
    assert config.smem == 4 * (4 + 6 * 34 * 75 + 75)
    small = wfa_cluster.configure(10, 5, 300, 2, 1)  # e = 1: a barrier a step
    assert small.koff == 5 and small.ring == 3 and small.per == 1 and small.threads == 32 and small.stride == 34
