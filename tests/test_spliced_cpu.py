"""The multicore solver's two kinds of parallelism against the sequential baseline: cases of a
batch on separate threads, and the exons of one case's large groups in one parallel region."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from helpers import random_spliced_case
from splicedalign.workloads.spliced import cpu, synthetic
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import get_solver

SEED = 20261122


@pytest.fixture(scope="module")
def paper():
    """Paper-shaped cases with multi-exon groups, smallest first (to keep the tests fast)."""
    cases = sorted(synthetic.paper_set(), key=lambda c: c.cells)
    return [c for c in cases if cpu.parallel_groups(c, 0)][:40]


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
def test_parallel_groups_match_sequential(paper, index):
    case = paper[index * 10]
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    # every group of two or more exons takes the parallel path
    _same(get_solver("sequential").solve(case), cpu.MulticoreSolver(min_parallel_cells=0).solve(case))


def test_parallel_groups_are_the_large_multi_exon_groups(paper):
    case = paper[-1]
    ranges = cpu.parallel_groups(case, 1)
    lengths = case.last_sorted - case.first_sorted + 1
    assert all(b - a > 1 for a, b in ranges)
    big = cpu.parallel_groups(case, 10**12)
    assert big == [] and len(ranges) > 0
    threshold = int(np.median([lengths[a:b].sum() * case.n for a, b in ranges]))
    kept = cpu.parallel_groups(case, threshold)
    assert kept and all(lengths[a:b].sum() * case.n >= threshold for a, b in kept)
