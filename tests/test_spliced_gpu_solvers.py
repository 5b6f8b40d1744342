"""GPU solvers against the sequential solver (device machine; skipped without CuPy/GPU)."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from conftest import golden_case
from helpers import random_spliced_case

from splicedalign.core.errors import SolverUnavailable
from splicedalign.workloads.spliced.oracle import alignment_problems
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced.synthetic import tiny_set

# Fresh cases on every run; the seed is printed (shown by pytest on failure) and can be fixed
# with SPLICEDALIGN_TEST_SEED to reproduce one.
SEED = int(os.environ.get("SPLICEDALIGN_TEST_SEED", time.time_ns() % 2**32))

GPU_SOLVERS = ("accel1", "accel2", "gpu")


def _gpu_reason() -> str | None:
    try:
        from splicedalign.gpu import device

        device.cupy()
    except SolverUnavailable as exc:
        return str(exc)
    return None


REASON = _gpu_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(REASON is not None, reason=REASON or ""),
              pytest.mark.usefixtures("gpu_host_code")]  # conftest: the warm-up's planning code


@pytest.mark.parametrize("name", GPU_SOLVERS)
def test_golden(name, golden):
    solver = get_solver(name)
    for g in golden:
        case, scoring = golden_case(g)
        r = solver.solve(case, scoring)
        assert r.score == g["score"], g["name"]
        assert r.last_row_scores.tolist() == g["last_row_scores"], g["name"]
        assert alignment_problems(case, r, scoring) == [], g["name"]


def _solver(name: str):
    if name.startswith("gpu-"):  # the kernel's two profile paths on the same scoring
        from splicedalign.workloads.spliced.gpu.solver import GpuSolver

        return GpuSolver(byte_profile=name == "gpu-byte")
    return get_solver(name)


@pytest.mark.parametrize("name", GPU_SOLVERS + ("gpu-byte", "gpu-compare"))
@pytest.mark.parametrize("scoring", [Scoring(), Scoring(3, -2, 4), Scoring(100, -50, 70),
                                     Scoring(target_ends="free"), Scoring(100, -50, 70, "free")], ids=str)
def test_random_against_sequential(name, scoring):
    print(f"seed {SEED} (SPLICEDALIGN_TEST_SEED={SEED} reproduces it)")
    rng = np.random.default_rng(SEED)
    cases = [random_spliced_case(rng, f"r{i}") for i in range(40)] + tiny_set(bases=2)
    want = get_solver("sequential").solve_many(cases, scoring, traceback=False)
    got = _solver(name).solve_many(cases, scoring, traceback=True)
    for c, w, g in zip(cases, want, got):
        assert g.score == w.score, (c.name, SEED)
        np.testing.assert_array_equal(g.last_row_scores, w.last_row_scores, err_msg=c.name)
        assert alignment_problems(c, g, scoring) == [], c.name


def test_gpu_writes_every_row():
    from splicedalign.gpu.device import POISON
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver

    cases = tiny_set(bases=3)
    results = GpuSolver(poison=True).solve_many(cases, Scoring(), traceback=False)
    for r in results:
        assert (r.last_row_scores != POISON).all()


@pytest.mark.parametrize("byte_profile", [True, False], ids=["byte", "compare"])
def test_device_trace_equals_host_trace(byte_profile):
    """trace_chains makes the host traceback's choices: identical chains and ops, valid; in a
    chain-bound launch (a follower records every move) and in throughput launches whose walks
    recompute moves (launch.Tuning.recompute) or read the recording kernel's."""
    from splicedalign.workloads.spliced.gpu import launch
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver

    print(f"seed {SEED} (SPLICEDALIGN_TEST_SEED={SEED} reproduces it)")
    rng = np.random.default_rng([SEED, 1])
    cases = [random_spliced_case(rng, f"t{i}") for i in range(40)] + tiny_set(bases=2)
    tunings = (launch.TUNING, launch.Tuning(throughput_cases=8), launch.Tuning(throughput_cases=8, recompute=False))
    for scoring in (Scoring(), Scoring(2, -3, 1), Scoring(target_ends="free"), Scoring(2, -3, 1, "free")):
        host = GpuSolver(byte_profile=byte_profile, device_trace=False).solve_many(cases, scoring)
        for tuning in tunings:
            dev = GpuSolver(byte_profile=byte_profile, device_trace=True, poison=True, tuning=tuning).solve_many(
                cases, scoring)
            for c, h, d in zip(cases, host, dev):
                assert (d.score, d.chain, d.alignment) == (h.score, h.chain, h.alignment), (c.name, SEED, tuning)
                assert alignment_problems(c, d, scoring) == [], c.name


@pytest.mark.parametrize("device_trace", [True, False], ids=["device-trace", "host-trace"])
def test_free_ends_equal_sequential(device_trace, golden):
    """Free target ends (the FREE kernels, last_row_max, trace_chains' start and chain start):
    scores, every exon's final score, chains and alignments identical to `sequential`'s, on the
    golden cases (in free mode) and fresh random ones, in a chain-bound launch (few cases) and
    a throughput one (many)."""
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver

    print(f"seed {SEED} (SPLICEDALIGN_TEST_SEED={SEED} reproduces it)")
    rng = np.random.default_rng([SEED, 2])
    pairs = [golden_case(g) for g in golden]
    random = [random_spliced_case(rng, f"f{i}") for i in range(80)] + tiny_set(bases=2)
    batches = [([c], Scoring(s.match, s.mismatch, s.gap, "free")) for c, s in pairs]
    batches += [(random[:6], Scoring(target_ends="free")), (random, Scoring(target_ends="free")),
                (random, Scoring(2, -3, 1, "free"))]
    solver = GpuSolver(device_trace=device_trace, poison=True)
    for cases, scoring in batches:
        want = get_solver("sequential").solve_many(cases, scoring, traceback=True)
        got = solver.solve_many(cases, scoring, traceback=True)
        for c, w, g in zip(cases, want, got):
            assert (g.score, g.chain, g.alignment) == (w.score, w.chain, w.alignment), (c.name, scoring, SEED)
            np.testing.assert_array_equal(g.last_row_scores, w.last_row_scores, err_msg=c.name)
            assert alignment_problems(c, g, scoring) == [], c.name


def test_a_running_launchs_row_storage_is_not_reused():
    """Two launches of one call, each an IL1RAPL1-shaped chain (~8 ms) needing the same row
    storage: the second is queued while the first's kernel runs and must get storage of its
    own. (Storage let go to CuPy's pool when its launch was queued went to the next launch's
    fill on the fill stream while the kernel still ran on another: the wait ran out.)"""
    from splicedalign.workloads.spliced.gpu import launch
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver
    from splicedalign.workloads.spliced.synthetic import il1rapl1_case

    cases = [il1rapl1_case(), il1rapl1_case()]
    want = GpuSolver().solve(cases[0], Scoring(), traceback=False).score
    solver = GpuSolver(tuning=launch.Tuning(row_budget=1))  # a launch per case
    for _ in range(2):
        assert [r.score for r in solver.solve_many(cases, Scoring(), traceback=False)] == [want, want]
        assert len(solver.kernel_ms) == 2
