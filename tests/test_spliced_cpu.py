"""The multicore solver's parallelism against the sequential baseline: cases of a batch on
separate threads; in one case, the exons of large groups in one parallel region and large
lone exons cut into column strips; and the strip wavefront itself against a plain recurrence."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import random_spliced_case
from splicedalign.workloads.spliced import cpu, cpu_kernels, synthetic
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import get_solver

SEED = 20261122


@pytest.fixture(scope="module")
def paper():
    """Paper-shaped cases with multi-exon groups, smallest first (to keep the tests fast)."""
    cases = sorted(synthetic.paper_set(), key=lambda c: c.cells)
    return [c for c in cases if any(not strips for _, _, strips in cpu.parallel_plan(c, 2, 0, min_case_cells=0))][:40]


def _same(want, got):
    assert got.solver == "multicore"
    assert got.score == want.score, got.case
    assert np.array_equal(got.last_row_scores, want.last_row_scores), got.case
    assert got.chain == want.chain and got.alignment == want.alignment, got.case


def test_batch_runs_cases_in_parallel_in_input_order(paper):
    rng = np.random.default_rng(SEED)
    print("seed", SEED)
    cases = [random_spliced_case(rng, f"r{i}") for i in range(40)] + paper[-6:]
    scoring = Scoring(2, -1, 1)
    want = get_solver("sequential").solve_many(cases, scoring, traceback=True)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    got = get_solver("multicore").solve_many(cases, scoring, traceback=True)
    assert [r.case for r in got] == [c.name for c in cases]
    for w, g in zip(want, got):
        _same(w, g)


@pytest.mark.parametrize("index", range(4))
def test_parallel_groups_and_strips_match_sequential(paper, index):
    case = paper[index * 10]
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    # every multi-exon group takes the group path, every lone exon (n >= 256) the strips
    solver = cpu.MulticoreSolver(min_parallel_cells=0, strip_cells=1, min_case_cells=0)
    kinds = {strips > 0 for _, _, strips in cpu.parallel_plan(case, numba.get_num_threads(), 0, 1, 0)}
    assert kinds == {True, False} or numba.get_num_threads() == 1
    _same(get_solver("sequential").solve(case), solver.solve(case))


def test_parallel_plan_picks_large_groups_and_lone_exons(paper):
    case = paper[-1]
    lengths = case.last_sorted - case.first_sorted + 1
    plan = cpu.parallel_plan(case, 4, 1, 1, 0)
    assert plan and [a for a, _, _ in plan] == sorted(a for a, _, _ in plan)
    for a, b, strips in plan:
        assert (b - a > 1 and strips == 0) or (b - a == 1 and 1 < strips <= 4)
    assert cpu.parallel_plan(case, 4, 10**12, 10**12, 0) == []
    assert cpu.parallel_plan(case, 4, 1, 1, case.cells + 1) == []  # case under the size for any
    assert all(strips == 0 for _, _, strips in cpu.parallel_plan(case, 1, 1, 1, 0))  # one thread: no strips
    threshold = int(np.median([lengths[a:b].sum() * case.n for a, b, s in plan if not s]))
    kept = [(a, b) for a, b, s in cpu.parallel_plan(case, 4, threshold, 10**12, 0)]
    assert kept and all(lengths[a:b].sum() * case.n >= threshold for a, b in kept)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_strip_wavefront_matches_the_recurrence(seed):
    """sweep_exon_strips (any strip count and block height) equals SPEC §2 row by row."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 40)), int(rng.integers(1, 60))
    base = rng.integers(0, 5, m).astype(np.uint8)
    prof = rng.integers(-2, 3, (5, n + 1)).astype(np.int32)
    first = int(rng.integers(1, m + 1))
    last = int(rng.integers(first, m + 1))
    H = rng.integers(-20, 20, n + 1).astype(np.int32)
    gap = np.int32(rng.integers(0, 3))
    want = H.astype(np.int64)
    for i in range(first, last + 1):
        row = np.empty_like(want)
        row[0] = want[0] - gap
        for j in range(1, n + 1):
            row[j] = max(want[j - 1] + prof[base[i - 1], j], want[j] - gap, row[j - 1] - gap)
        want = row
    got = H.copy()
    cpu_kernels.sweep_exon(base, prof, first, last, gap, got)
    assert np.array_equal(got, want)
    strips, block = int(rng.integers(1, 6)), int(rng.integers(1, 9))
    got = H.copy()
    cpu_kernels.sweep_exon_strips(base, prof, first, last, gap, got, strips, block)
    assert np.array_equal(got, want), (strips, block)
