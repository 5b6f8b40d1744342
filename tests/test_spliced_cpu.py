"""The multicore solver's parallelism against the sequential baseline: cases of a batch on
separate threads; one large case as a pipeline of column strips (any strip width, tile
height, chunking and thread count give sequential's last rows exactly). The CPU solvers'
lane kernels (a tile's rows in vector lanes; the exon traceback) against the recurrence."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from helpers import random_spliced_case
from hypothesis import given, settings
from hypothesis import strategies as st

from splicedalign.core import simd
from splicedalign.workloads.spliced import cpu, synthetic
from splicedalign.workloads.spliced.cpu_kernels import lane_scores, score_dtype, sweep_tile, trace_exon
from splicedalign.workloads.spliced.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Scoring
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


@pytest.mark.parametrize("scoring", [Scoring(2, -1, 1), Scoring(1, -1, 2, "free"),
                                     Scoring(10**7, -1, 10**6)])  # the last: int32 and int64 cases mixed
@pytest.mark.parametrize("traceback", [True, False])
def test_batch_runs_cases_in_parallel_in_input_order(paper, two_threads, scoring, traceback):
    """multicore's compiled batch (cpu.solve_batch: packed cases, threads drawing the next case)
    gives sequential's scores, last-row scores, chains and alignments, in input order, in both
    target-end modes, with and without traceback, a batch split by score type."""
    rng = np.random.default_rng(SEED)
    print("seed", SEED)
    cases = [random_spliced_case(rng, f"r{i}") for i in range(40)] + paper[200:206]
    assert len({score_dtype(c.m, c.n, scoring) for c in cases}) == (2 if scoring.match == 10**7 else 1)
    want = get_solver("sequential").solve_many(cases, scoring, traceback=traceback)
    got = get_solver("multicore").solve_many(cases, scoring, traceback=traceback)
    assert [r.case for r in got] == [c.name for c in cases]
    for w, g in zip(want, got):
        _same(w, g)
        assert g.seconds == pytest.approx(g.extra["seconds_score"] + g.extra["seconds_traceback"])
        assert (g.extra["seconds_traceback"] > 0) == traceback and g.extra["seconds_score"] > 0


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
    dtype = score_dtype(case.m, case.n, scoring)
    want = cpu.SequentialSolver().last_rows(case, scoring, dtype)
    width, tile = int(rng.integers(1, case.n + 1)), int(rng.integers(1, 9))
    chunk = int(rng.integers(1, case.cells + 2))
    got = cpu.strip_pipeline_last_rows(case, scoring, dtype, width, tile, chunk_cells=chunk)
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


def _tile_model(base, target, i0, i1, lo, hi, scoring, H, corner, left_in):
    """The recurrence cell by cell (SPEC §2) over a tile: (last row, right column, every cell)."""
    rows = i1 - i0 + 1
    S = np.zeros((rows + 1, hi - lo + 2), dtype=np.int64)  # column 0: lo-1
    S[0, 0], S[0, 1:] = corner, H[lo:hi + 1]
    S[1:, 0] = left_in[:rows]
    for r in range(1, rows + 1):
        b = base[i0 + r - 2]
        for c in range(1, hi - lo + 2):
            w = scoring.match if b == target[lo + c - 2] else scoring.mismatch
            S[r, c] = max(S[r - 1, c - 1] + w, S[r - 1, c] - scoring.gap, S[r, c - 1] - scoring.gap)
    return S[rows, 1:], S[1:, -1], S


def _random_rows(rng, lanes):
    """(m, n, base, target, scoring, i0, i1): a random base and target (wildcards in both) of a
    few blocks of ``lanes`` rows at most, a scoring, and rows i0..i1 of the base."""
    m, n = int(rng.integers(1, 3 * lanes + 5)), int(rng.integers(1, 2 * lanes + 9))
    base = rng.choice([0, 1, 2, 3, 4], m).astype(np.uint8)
    target = rng.choice([0, 1, 2, 3, 5], n).astype(np.uint8)
    scoring = Scoring(int(rng.integers(1, 4)), int(rng.integers(-3, 1)), int(rng.integers(0, 4)))
    i0 = int(rng.integers(1, m + 1))
    return m, n, base, target, scoring, i0, int(rng.integers(i0, m + 1))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_lane_tile_matches_the_recurrence(dtype):
    """cpu_kernels.sweep_tile (one vector lane per row, rows in blocks of the lane count) on
    random tiles: heights across several blocks and below one, widths below and above the lane
    count, any lo..hi, wildcards in both sequences."""
    rng = np.random.default_rng(SEED + 1)
    print("seed", SEED + 1)
    lanes = simd.lanes(dtype)
    for _ in range(60):
        m, n, base, target, scoring, i0, i1 = _random_rows(rng, lanes)
        lo = 1 if rng.random() < 0.5 else int(rng.integers(1, n + 1))  # half of them whole rows
        hi = n if rng.random() < 0.5 else int(rng.integers(lo, n + 1))
        H = rng.integers(-200, 200, n + 1).astype(dtype)
        corner = dtype(rng.integers(-200, 200))
        left_in = rng.integers(-200, 200, i1 - i0 + 1).astype(dtype)
        want_row, want_right, _ = _tile_model(base, target, i0, i1, lo, hi, scoring, H, corner, left_in)
        got, right = H.copy(), np.zeros_like(left_in)
        sweep_tile(base, lane_scores(target, scoring, dtype), i0, i1, lo, hi, got, corner, left_in, right)
        assert got[lo:hi + 1].tolist() == want_row.tolist(), (m, n, i0, i1, lo, hi)
        assert right.tolist() == want_right.tolist(), (m, n, i0, i1, lo, hi)
        assert np.array_equal(got[:lo], H[:lo]) and np.array_equal(got[hi + 1:], H[hi + 1:])


def test_trace_exon_walks_the_recurrence():
    """cpu_kernels.trace_exon (blocks swept again from the last up, the path walked on the
    scores) against a walk over the whole matrix with the same tie order: diagonal, base letter
    against a gap, target letter against a gap; column 0 straight up."""
    rng = np.random.default_rng(SEED + 2)
    print("seed", SEED + 2)
    lanes = simd.lanes(np.int32)
    for _ in range(40):
        m, n, base, target, scoring, first, last = _random_rows(rng, lanes)
        P = rng.integers(-100, 100, n + 1).astype(np.int32)
        j_end = int(rng.integers(0, n + 1))
        left = P[0] - scoring.gap * np.arange(1, last - first + 2)
        _, _, S = _tile_model(base, target, first, last, 1, max(j_end, 1), scoring, P, P[0], left)
        want, r, j = [], last - first + 1, j_end
        while r > 0:
            if j == 0:
                want.append(OP_DEL)
                r -= 1
                continue
            same = base[first + r - 2] == target[j - 1]
            if S[r - 1, j - 1] + (scoring.match if same else scoring.mismatch) == S[r, j]:
                want.append(OP_MATCH if same else OP_MISMATCH)
                r, j = r - 1, j - 1
            elif S[r - 1, j] - scoring.gap == S[r, j]:
                want.append(OP_DEL)
                r -= 1
            else:
                want.append(OP_INS)
                j -= 1
        ops, j0 = trace_exon(base, target, lane_scores(target, scoring, np.int32), first, last, P, j_end)
        assert (ops.tolist(), j0) == (want, j), (m, n, first, last, j_end)
