"""The multicore solver's parallelism against the sequential baseline: cases of a batch on
separate threads; one large case as a pipeline of column strips (any strip width, tile
height, chunking and thread count give sequential's last rows exactly)."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from helpers import random_spliced_case
from hypothesis import given, settings
from hypothesis import strategies as st

from splicedalign.workloads.spliced import cpu, synthetic
from splicedalign.workloads.spliced.cpu_kernels import profile, score_dtype
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import get_solver

SEED = 20261122


@pytest.fixture(scope="module")
def paper():
    """Paper-shaped cases, smallest first (to keep the tests fast)."""
    return sorted(synthetic.paper_set(), key=lambda c: c.cells)


@pytest.fixture
def two_threads():
    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    yield numba.get_num_threads()
    numba.set_num_threads(before)


def _same(want, got):
    assert got.solver == "multicore"
    assert got.score == want.score, got.case
    assert np.array_equal(got.last_row_scores, want.last_row_scores), got.case
    assert got.chain == want.chain and got.alignment == want.alignment, got.case


def test_batch_runs_cases_in_parallel_in_input_order(paper, two_threads):
    rng = np.random.default_rng(SEED)
    print("seed", SEED)
    cases = [random_spliced_case(rng, f"r{i}") for i in range(40)] + paper[200:206]
    scoring = Scoring(2, -1, 1)
    want = get_solver("sequential").solve_many(cases, scoring, traceback=True)
    got = get_solver("multicore").solve_many(cases, scoring, traceback=True)
    assert [r.case for r in got] == [c.name for c in cases]
    for w, g in zip(want, got):
        _same(w, g)


@pytest.mark.slow
def test_large_case_runs_the_strip_pipeline(paper, two_threads):
    """The smallest paper-shaped case the default solver cuts into strips, with traceback."""
    case = next(c for c in paper if c.cells >= cpu.MIN_CASE_CELLS)
    solver = get_solver("multicore")
    assert solver.strip_width(case, two_threads) < case.n or two_threads == 1
    _same(get_solver("sequential").solve(case), solver.solve(case))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_strip_pipeline_matches_sequential(seed):
    """Random cases, strip widths (1 column up to all), tile heights and chunk sizes (the
    strips' folds carry across chunks), strips beyond the thread count (run in order)."""
    rng = np.random.default_rng(seed)
    case = random_spliced_case(rng, "r")
    scoring = Scoring(int(rng.integers(1, 3)), int(rng.integers(-2, 1)), int(rng.integers(0, 3)),
                      ("global", "free")[int(rng.integers(0, 2))])
    prof = profile(case.target_codes, scoring, score_dtype(case.m, case.n, scoring))
    want = cpu.SequentialSolver().last_rows(case, scoring, prof)
    width, tile = int(rng.integers(1, case.n + 1)), int(rng.integers(1, 9))
    chunk = int(rng.integers(1, case.cells + 2))
    got = cpu.strip_pipeline_last_rows(case, prof, prof.dtype.type(scoring.gap), width, tile, chunk_cells=chunk,
                                       lead=prof.dtype.type(scoring.lead))
    assert np.array_equal(got, want), (width, tile, chunk)


def test_strip_width_and_small_cases_through_the_solver(paper):
    case = paper[-1]
    assert cpu.MulticoreSolver().strip_width(case, 16) == max(cpu.MIN_STRIP_WIDTH, -(-case.n // 16))
    assert cpu.MulticoreSolver(min_strip_width=case.n).strip_width(case, 16) == case.n  # one strip: serial
    rng = np.random.default_rng(SEED)
    small = [random_spliced_case(rng, f"s{i}") for i in range(20)]
    solver = cpu.MulticoreSolver(min_case_cells=0, min_strip_width=1, tile_rows=3)
    for c in small:
        _same(get_solver("sequential").solve(c), solver.solve(c))
