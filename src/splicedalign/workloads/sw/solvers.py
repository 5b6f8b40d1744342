"""Database-search solvers: every one answers ``scores(query, db, scoring) -> int64 array``
(one Smith-Waterman score per database sequence, database order); looked up in ``SOLVERS``.
``search_many`` adds the reported hits: E-values, bit scores and one alignment each."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from splicedalign.core.logs import Progress
from splicedalign.core.registry import SolverRegistry
from splicedalign.gpu.devices import Cost, DeviceSpec, solve_across
from splicedalign.workloads.sw.records import Alignment, Database, Hit, Query, Scoring, SearchResult, cells, ranked


class Solver(Protocol):
    name: str

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray: ...


SOLVERS = SolverRegistry("sw")
SOLVERS.register("reference", "splicedalign.workloads.sw.reference:ReferenceSolver",
                 summary="NumPy, one row at a time (the paper's formulas); for tests")
SOLVERS.register("sequential", "splicedalign.workloads.sw.cpu:SequentialSolver",
                 summary="numba, one core, query profile: the baseline of every speedup")
SOLVERS.register("multicore", "splicedalign.workloads.sw.cpu:MulticoreSolver",
                 summary="numba, all cores: 128 database sequences per saturating 8-bit SIMD batch"
                         " (16 bits where 8 overflow)")
SOLVERS.register("sw-scan", "splicedalign.workloads.sw.gpu.paper:SwScanSolver", gpu=True,
                 summary="paper 003: one block per sequence, row max + prefix-max scan, 512-column slices")
SOLVERS.register("gpu", "splicedalign.workloads.sw.gpu.solver:GpuSolver", gpu=True,
                 summary="ours: thread groups per sequence (pair), rows in registers, 16-bit DPX where safe")
SOLVERS.register("pyopal", "splicedalign.workloads.sw.peers:PyopalSolver",
                 summary="peer: pyopal.align (Opal, SIMD inter-sequence), all cores (its threads)")
SOLVERS.register("parasail", "splicedalign.workloads.sw.peers:ParasailSolver",
                 summary="peer: parasail sw_scan_profile_16 (32 bits where 16 could overflow), one core")
PEERS = ("pyopal", "parasail")
CHUNK_CELLS = 2_000_000_000  # a chunk of the database per progress report (timing: one chunk)
DEFAULT_TOP = 50  # hits reported per query
DEFAULT_EVALUE = 10.0  # BLAST's default


def scores_of(query: Query, db: Database, scoring: Scoring, solver: str | Solver,
              chunk_cells: int = CHUNK_CELLS) -> tuple[np.ndarray, float]:
    """Scores of ``query`` against every sequence of ``db`` (database order) and the seconds
    taken; the database goes in chunks of about ``chunk_cells`` cells with progress between."""
    impl = SOLVERS.get(solver) if isinstance(solver, str) else solver
    progress = Progress(f"sw {query.id}", cells(query, db))
    parts, done = [], 0
    t0 = time.perf_counter()
    for a, b in db.chunks(max(1, chunk_cells // max(1, query.length))):
        part = db.subset(a, b)
        parts.append(impl.scores(query, part, scoring))
        done += cells(query, part)
        progress.update(done, f"{b} of {len(db)} sequences")
    seconds = time.perf_counter() - t0
    return (np.concatenate(parts) if parts else np.zeros(0, np.int64)).astype(np.int64), seconds


def select(query: Query, db: Database, scores: np.ndarray, scoring: Scoring, top: int | None = DEFAULT_TOP,
           evalue: float = DEFAULT_EVALUE) -> list[tuple[int, int, float]]:
    """(index, score, E-value) of the best ``top`` hits with E-value <= ``evalue`` and a
    positive score, best first, ties in database order."""
    stats = scoring.karlin
    chosen = []
    for k in ranked(scores, top).tolist():
        s = int(scores[k])
        ev = stats.evalue(s, query.length, db.residues)
        if s <= 0 or ev > evalue:
            break  # ranked: every later hit scores no more
        chosen.append((k, s, ev))
    return chosen


def hits_of(query: Query, db: Database, chosen: list[tuple[int, int, float]], scoring: Scoring,
            alignments: list[Alignment] | None) -> tuple[Hit, ...]:
    """Hits of the chosen sequences with their alignments; raises if an alignment's score
    differs from the solver's (a solver fault)."""
    stats = scoring.karlin
    hits = []
    for n, (k, s, ev) in enumerate(chosen):
        aln = alignments[n] if alignments is not None else None
        if aln is not None and aln.score != s:
            raise RuntimeError(f"sw: {db.ids[k]}: the alignment scores {aln.score}, the search {s} (solver fault)")
        hits.append(Hit(k, db.ids[k], int(db.lengths[k]), s, ev, stats.bitscore(s), aln))
    return tuple(hits)


def report(query: Query, db: Database, scores: np.ndarray, scoring: Scoring, top: int | None = DEFAULT_TOP,
           evalue: float = DEFAULT_EVALUE, alignments: bool = True) -> tuple[Hit, ...]:
    """The reported hits of one query (select), each with one optimal alignment."""
    from splicedalign.workloads.sw.traceback import align_many  # numba: not imported while a pipeline plans

    chosen = select(query, db, scores, scoring, top, evalue)
    found = align_many([(query.codes, db.seq(k)) for k, _, _ in chosen], scoring) if alignments else None
    return hits_of(query, db, chosen, scoring, found)


def search_many(queries: Sequence[Query], db: Database, scoring: Scoring = Scoring(),
                solver: str | Solver = "sequential", top: int | None = DEFAULT_TOP, evalue: float = DEFAULT_EVALUE,
                alignments: bool = True, chunk_cells: int = CHUNK_CELLS) -> list[SearchResult]:
    """Every query against ``db`` in one call: solvers with ``scores_many`` (the GPU) take all
    queries in one pass over the database and hand each query's scores over as soon as they
    are final, so its hits' alignments run on the CPU's cores while the GPU searches the later
    queries (only the last query's are left after the search); the others one query at a
    time, the alignments after. ``solver``: a name or a solver object (e.g. a GpuSolver with a
    memory cap). ``align_seconds`` (each result's extra): the alignments' time after the search."""
    from splicedalign.workloads.sw.traceback import align_later, workers  # numba: not imported while a pipeline plans

    impl = SOLVERS.get(solver) if isinstance(solver, str) else solver
    chosen: list[list[tuple[int, int, float]]] = [[] for _ in queries]
    found: list[list] = [[] for _ in queries]
    with workers() as pool:
        def ready(k: int, scores: np.ndarray) -> None:
            chosen[k] = select(queries[k], db, scores, scoring, top, evalue)
            if alignments:
                found[k] = align_later(pool, [(queries[k].codes, db.seq(i)) for i, _, _ in chosen[k]], scoring)

        if hasattr(impl, "scores_many"):
            t0 = time.perf_counter()
            all_scores = impl.scores_many(queries, db, scoring, ready=ready)
            per = (time.perf_counter() - t0) / max(1, len(queries))
            timed = [(np.asarray(s, dtype=np.int64), per) for s in all_scores]
        else:
            timed = [scores_of(q, db, scoring, impl, chunk_cells) for q in queries]
            for k, (scores, _) in enumerate(timed):
                ready(k, scores)
        t0 = time.perf_counter()
        alns = [[f.result() for f in fs] for fs in found] if alignments else None
        align_seconds = time.perf_counter() - t0
    results = []
    for k, (q, (scores, seconds), c) in enumerate(zip(queries, timed, chosen)):
        hits = hits_of(q, db, c, scoring, alns[k] if alns is not None else None)
        results.append(SearchResult(q.id, q.length, scores, hits, cells(q, db), impl.name, seconds,
                                    {"align_seconds": align_seconds}))
    return results


def search(query: Query, db: Database, scoring: Scoring = Scoring(), solver: str | Solver = "sequential",
           chunk_cells: int = CHUNK_CELLS, top: int | None = DEFAULT_TOP, evalue: float = DEFAULT_EVALUE,
           alignments: bool = True) -> SearchResult:
    """One query (search_many)."""
    return search_many([query], db, scoring, solver, top, evalue, alignments, chunk_cells)[0]


def search_many_on(devices: DeviceSpec, solver: str, queries: Sequence[Query], db: Database,
                   scoring: Scoring = Scoring(), top: int | None = DEFAULT_TOP, evalue: float = DEFAULT_EVALUE,
                   memory_cap: int | None = None) -> list[SearchResult]:
    """``search_many`` with a GPU solver's queries split across ``devices`` (``--devices``) by
    their cells (query length x database residues; the database is the parallel dimension, so
    no query has a critical path of note), the whole database searched on each GPU by a fresh
    solver (``memory_cap`` each): hits, E-values and order as one GPU's."""
    def search_part(part: list[Query]) -> list[SearchResult]:
        impl = SOLVERS.get(solver)
        if memory_cap is not None and hasattr(impl, "memory_cap"):
            impl.memory_cap = memory_cap
        return search_many(part, db, scoring, impl, top, evalue)

    return solve_across(devices, SOLVERS.entry(solver).gpu, queries, lambda q: Cost(q.length * db.residues),
                        search_part, solver)
