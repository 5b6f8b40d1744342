"""The compiled CPU solvers: ``sequential`` (the baseline of every speedup) and ``multicore``."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numba
import numpy as np

from splicedalign.core.logs import Progress
from splicedalign.workloads.spliced.backtrack import chains_and_alignments, exon_records
from splicedalign.workloads.spliced.base import LastRowSolver, make_result
from splicedalign.workloads.spliced.cpu_kernels import (
    COUNTER_STRIDE,
    lane_scores,
    score_dtype,
    sequential_last_rows,
    solve_cases,
    start_row,
    sweep_case_strips,
)
from splicedalign.workloads.spliced.records import Result, Scoring, TestCase

CHUNK_CELLS = 200_000_000  # about 0.2 s of work between progress checks
# Below this a case runs on one thread and gets its parallelism across a batch (solve_many).
# One parallel region per chunk costs microseconds on idle cores, but a strip that loses its
# core to another process holds up every strip to its right (measured on a shared 2-core
# machine; docs/pipeline.md).
MIN_CASE_CELLS = 100_000_000
# Narrowest strip: on one core, strips of 74 columns ran as fast as whole rows, 37 slower.
MIN_STRIP_WIDTH = 64
# Rows per pipeline step: strip s starts a tile once strip s-1 has finished its rows, so the
# pipeline fills in strips x TILE_ROWS rows; a tile of 148 columns is a few microseconds.
TILE_ROWS = 32
PROGRESS_POLL_S = 0.2  # how often solve_batch's calling thread reads a running batch's progress


def chunks(case: TestCase, chunk_cells: int = CHUNK_CELLS) -> list[tuple[int, int, int]]:
    """(k0, k1, cells done after exon k1-1): runs of exons of about ``chunk_cells`` cells (at
    least one exon each), so progress reports keep flowing on long cases."""
    cells = case.cells
    if cells <= chunk_cells:  # one chunk (most cases): no arrays made
        return [(0, case.K, cells)]
    done = np.cumsum((case.last_sorted - case.first_sorted + 1) * case.n)
    out, k0 = [], 0
    while k0 < case.K:
        k1 = int(np.searchsorted(done, done[k0] + chunk_cells, side="right"))
        k1 = min(max(k1, k0 + 1), case.K)
        out.append((k0, k1, int(done[k1 - 1])))
        k0 = k1
    return out


class SequentialSolver(LastRowSolver):
    """One core, exons in order, O(n) predecessor fold, only last rows kept."""

    name = "sequential"

    def last_rows(self, case: TestCase, scoring: Scoring, dtype: type) -> np.ndarray:
        rows = np.empty((case.K, case.n + 1), dtype=dtype)
        scores = lane_scores(case.target_codes, scoring, dtype)
        R = np.empty(case.n + 1, dtype=dtype)
        start_row(case.n, dtype(scoring.lead), R)
        by_last = case.by_last
        progress = Progress(f"{case.name} [{self.name}]", case.cells)
        p = 0
        for k0, k1, done in chunks(case):
            p = sequential_last_rows(case.base_codes, scores, case.first_sorted, case.last_sorted,
                                     by_last, rows, R, p, k0, k1)
            progress.update(done, f"exon {k1}/{case.K}")
        return rows


def strip_pipeline_last_rows(case: TestCase, scoring: Scoring, dtype: type, width: int, tile_rows: int,
                             label: str = "", chunk_cells: int = CHUNK_CELLS) -> np.ndarray:
    """As SequentialSolver.last_rows, with the columns cut into strips of ``width`` and the
    strips run as a pipeline on the threads (cpu_kernels.sweep_case_strips), one parallel
    region per chunk of exons; each strip's fold (F[s], p[s]) carries over between chunks."""
    n = case.n
    strips = -(-n // width)
    R = np.empty(n + 1, dtype=dtype)
    start_row(n, dtype(scoring.lead), R)
    # strip s's fold (columns lo-1..hi) in F[s]; rows padded to whole cache lines (no sharing)
    F = np.empty((strips, -(-(width + 1) // 32) * 32), dtype=dtype)
    for s in range(strips):
        part = R[s * width: (s + 1) * width + 1]
        F[s, :len(part)] = part
    p = np.zeros(strips, dtype=np.int64)
    parts = chunks(case, chunk_cells)
    heights = case.last_sorted - case.first_sorted + 1
    L = np.empty((strips + 1, max(int(heights[k0:k1].sum()) for k0, k1, _ in parts)), dtype=dtype)
    H = np.empty((strips, n + 1), dtype=dtype)
    rows = np.empty((case.K, n + 1), dtype=dtype)
    scores = lane_scores(case.target_codes, scoring, dtype)
    progress = Progress(label or case.name, case.cells)
    for k0, k1, done in parts:
        sweep_case_strips(case.base_codes, scores, case.first_sorted, case.last_sorted, case.by_last,
                          rows, k0, k1, width, tile_rows, F, p, H, L,
                          np.zeros(strips * COUNTER_STRIDE, dtype=np.int64))
        progress.update(done, f"exon {k1}/{case.K}")
    return rows


class MulticoreSolver(LastRowSolver):
    """All cores (numba's thread count): a batch runs its cases in parallel, each on one
    core, largest first; a single case of at least ``min_case_cells`` cells cuts the target's
    columns into one strip per thread and runs the strips as a pipeline over all its exons'
    rows (cpu_kernels.sweep_case_strips), the GPU wavefront's scheme on CPU threads."""

    name = "multicore"

    def __init__(self, min_case_cells: int = MIN_CASE_CELLS, min_strip_width: int = MIN_STRIP_WIDTH,
                 tile_rows: int = TILE_ROWS) -> None:
        self.min_case_cells, self.min_strip_width, self.tile_rows = min_case_cells, min_strip_width, tile_rows
        self._serial = SequentialSolver()

    def strip_width(self, case: TestCase, threads: int) -> int:
        """Columns per strip: the columns shared by the threads, at least min_strip_width."""
        return max(self.min_strip_width, -(-case.n // threads))

    def last_rows(self, case: TestCase, scoring: Scoring, dtype: type) -> np.ndarray:
        width = self.strip_width(case, numba.get_num_threads())
        if case.cells < self.min_case_cells or width >= case.n:
            return self._serial.last_rows(case, scoring, dtype)
        return strip_pipeline_last_rows(case, scoring, dtype, width, self.tile_rows, f"{case.name} [{self.name}]")

    def solve_many(
        self, cases: Sequence[TestCase], scoring: Scoring = Scoring(), traceback: bool = True
    ) -> list[Result]:
        """Cases are independent: a compiled batch per score type (``solve_batch``), each case
        on one thread, largest first, every thread drawing the next case as it finishes one."""
        cases = list(cases)
        if min(numba.get_num_threads(), len(cases)) <= 1:  # one case after another, with progress
            return super().solve_many(cases, scoring, traceback)
        results: list[Result | None] = [None] * len(cases)
        groups: dict[type, list[int]] = {}
        for i, c in enumerate(cases):
            groups.setdefault(score_dtype(c.m, c.n, scoring), []).append(i)
        for dtype, index in groups.items():
            for i, r in zip(index, solve_batch([cases[i] for i in index], scoring, traceback, dtype, self.name)):
                results[i] = r
        return results  # type: ignore[return-value]


def solve_batch(cases: Sequence[TestCase], scoring: Scoring, traceback: bool, dtype: type, solver: str) -> list[Result]:
    """The cases packed into flat arrays (each distinct base and target once) and solved by
    numba.get_num_threads() threads at once, each running the compiled cpu_kernels.solve_cases
    with the GIL released, progress reported from here while they run; then the chains and
    alignments of the whole batch in one pass (backtrack.chains_and_alignments) and a Result
    per case. Each case's seconds are its own
    (a clock inside the compiled call), kernel loading left out."""
    C = len(cases)

    def packed(sequences, codes_of):
        spans, parts, seen, at = np.empty((C, 2), dtype=np.int64), [], {}, 0
        for c, (key, case) in enumerate(zip(sequences, cases)):
            if id(key) not in seen:  # cases of one base (or target) share its string: coded once
                codes = codes_of(case)
                seen[id(key)] = (at, at + len(codes))
                parts.append(codes)
                at += len(codes)
            spans[c] = seen[id(key)]
        return np.concatenate(parts), spans

    bases, base_at = packed([c.base for c in cases], lambda c: c.base_codes)
    targets, target_at = packed([c.target for c in cases], lambda c: c.target_codes)
    K = np.array([c.K for c in cases], dtype=np.int64)
    exon_at = np.zeros(C + 1, dtype=np.int64)
    np.cumsum(K, out=exon_at[1:])
    E = int(exon_at[-1])
    firsts = np.concatenate([c.first_sorted for c in cases]).astype(np.int64, copy=False)
    lasts = np.concatenate([c.last_sorted for c in cases]).astype(np.int64, copy=False)
    by_lasts = np.concatenate([c.by_last for c in cases]).astype(np.int64, copy=False)
    cells = np.array([c.cells for c in cases], dtype=np.int64)
    ops_at = np.zeros(C + 1, dtype=np.int64)  # room for a path: every exon's rows, 2n columns
    np.cumsum([c.exon_length_sum + 2 * c.n for c in cases] if traceback else np.zeros(C, np.int64), out=ops_at[1:])
    finals = np.empty(E, dtype=dtype)
    chain_length, ops_count = np.zeros(C, dtype=np.int64), np.zeros(C, dtype=np.int64)
    positions, entered, ends, counts = (np.empty(E if traceback else 0, dtype=np.int64) for _ in range(4))
    ops = np.empty(int(ops_at[-1]), dtype=np.uint8)
    seconds = np.zeros((C, 2), dtype=np.float64)
    claimed, done = np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.int64)
    failed: list[BaseException] = []
    order = np.argsort(-cells, kind="stable")

    def run() -> None:
        try:
            solve_cases(order, claimed, done, cells, bases, base_at, targets, target_at, firsts, lasts, by_lasts,
                        exon_at, dtype(scoring.match), dtype(scoring.mismatch), dtype(scoring.gap), dtype(scoring.lead),
                        scoring.free_ends, traceback, finals, chain_length, positions, entered, ends, counts, ops,
                        ops_at, ops_count, seconds)
        except BaseException as exc:  # noqa: BLE001 - raised again in the calling thread
            failed.append(exc)

    progress = Progress(f"align [{solver}]", int(cells.sum()), C)
    workers = [threading.Thread(target=run, name=f"spliced-multicore-{t}")
               for t in range(min(numba.get_num_threads(), C))]
    for worker in workers:
        worker.start()
    while True:  # from the start: a run that turns out long reports from its first seconds on
        cells_done = int(done[0])  # before the cases (solve_cases counts a case, then its cells)
        progress.update(cells_done, done_items=int(done[1]))
        alive = [worker for worker in workers if worker.is_alive()]
        if not alive:
            break
        alive[0].join(PROGRESS_POLL_S)
    if failed:
        raise failed[0]
    progress.finish()
    traced: list = [(None, None)] * C
    if traceback:
        heads = np.repeat(exon_at[:-1], chain_length)  # each chain exon's case's first row
        rank = np.arange(int(chain_length.sum())) - np.repeat(np.cumsum(chain_length) - chain_length, chain_length)
        rows = heads + rank
        view = memoryview(ops).cast("B")
        used = b"".join([view[a:a + k] for a, k in zip(ops_at[:-1].tolist(), ops_count.tolist())])
        traced = chains_and_alignments(exon_records(cases), chain_length, ops_count, heads + positions[rows],
                                       entered[rows], ends[rows], counts[rows], used, leading=not scoring.free_ends)
    return [make_result(case, solver, finals[exon_at[c]:exon_at[c + 1]], float(seconds[c].sum()), *traced[c],
                        {"seconds_score": float(seconds[c, 0]), "seconds_traceback": float(seconds[c, 1]),
                         "seconds_loading": 0.0})
            for c, case in enumerate(cases)]
