"""Database-search solvers: every one answers ``scores(query, db, scoring) -> int64 array``
(one Smith-Waterman score per database sequence, database order); looked up in ``SOLVERS``."""

from __future__ import annotations

import time
from typing import Protocol

import numpy as np

from splicedalign.core.logs import Progress
from splicedalign.core.registry import SolverRegistry
from splicedalign.workloads.sw.records import Database, Hit, Query, Scoring, SearchResult, cells


class Solver(Protocol):
    name: str

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray: ...


SOLVERS = SolverRegistry("sw")
SOLVERS.register("reference", "splicedalign.workloads.sw.reference:ReferenceSolver",
                 summary="NumPy, one row at a time (the paper's formulas); for tests")
SOLVERS.register("sequential", "splicedalign.workloads.sw.cpu:SequentialSolver",
                 summary="numba, one core, query profile: the baseline of every speedup")
SOLVERS.register("multicore", "splicedalign.workloads.sw.cpu:MulticoreSolver",
                 summary="numba, all cores: 64 (16-bit) or 32 (32-bit) database sequences per SIMD batch")
SOLVERS.register("sw-scan", "splicedalign.workloads.sw.gpu.paper:SwScanSolver", gpu=True,
                 summary="paper 003: one block per sequence, row max + prefix-max scan, 512-column slices")
SOLVERS.register("gpu", "splicedalign.workloads.sw.gpu.solver:GpuSolver", gpu=True,
                 summary="ours: thread groups per sequence (pair), rows in registers, 16-bit DPX where safe")
SOLVERS.register("pyopal", "splicedalign.workloads.sw.peers:PyopalSolver",
                 summary="peer: pyopal (Opal, SIMD inter-sequence), all cores")
SOLVERS.register("parasail", "splicedalign.workloads.sw.peers:ParasailSolver",
                 summary="peer: parasail sw_scan_profile_sat, one core")
PEERS = ("pyopal", "parasail")
CHUNK_CELLS = 2_000_000_000  # a chunk of the database per progress report (timing: one chunk)


def search(query: Query, db: Database, scoring: Scoring = Scoring(), solver: str = "sequential",
           chunk_cells: int = CHUNK_CELLS) -> SearchResult:
    """Scores of ``query`` against every sequence of ``db`` with the named solver, timed; the
    database goes in chunks of about ``chunk_cells`` cells with progress reported between them."""
    impl = SOLVERS.get(solver)
    total = cells(query, db)
    progress = Progress(f"sw {query.id}", total)
    parts, done = [], 0
    t0 = time.perf_counter()
    for a, b in db.chunks(max(1, chunk_cells // max(1, query.length))):
        part = db.subset(a, b)
        parts.append(impl.scores(query, part, scoring))
        done += cells(query, part)
        progress.update(done, f"{b} of {len(db)} sequences")
    seconds = time.perf_counter() - t0
    scores = np.concatenate(parts).tolist() if parts else []
    hits = tuple(Hit(i, n, int(s)) for i, n, s in zip(db.ids, db.lengths.tolist(), scores))
    return SearchResult(query.id, query.length, hits, total, solver, seconds)
