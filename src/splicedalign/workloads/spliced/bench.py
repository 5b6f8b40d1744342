"""Benchmark timing for the pipeline, and which cases each solver runs on.

Times are the median of ``repeats`` runs after one untimed warm-up run, so one-time costs
(numba/CUDA compilation, caches, first-touch allocation) never count; min, max and every
run are kept beside it (``core.timing.Timing``) so the tables can flag unsteady timings.
A solver that cannot run here (a GPU solver without a GPU) yields an "n/a" record instead
of an error, so the tables say n/a rather than the pipeline failing. Which solvers run at
all is ``SOLVERS.resolve`` (core.registry).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.timing import Timing
from splicedalign.workloads.spliced.output import result_record
from splicedalign.workloads.spliced.records import Result, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import SOLVERS, Solver, get_solver

log = logging.getLogger("splicedalign")

# The pure-Python oracle runs at a few MCUPS; under ``solvers: auto`` it only gets cases up to
# this many cells (about a second per run), where it still cross-checks the compiled solvers.
REFERENCE_MAX_CELLS = 2_000_000

def gpu_solvers() -> list[str]:
    """Registered solvers that need CuPy and a device."""
    return SOLVERS.gpu_names()


def solver_applies(solver: str, cells: int, auto: bool, reference_max_cells: int = REFERENCE_MAX_CELLS) -> bool:
    """Whether ``solver`` is run on a case of ``cells`` cells (auto keeps the oracle to small cases)."""
    return not (auto and solver == "reference" and cells > reference_max_cells)


def na_record(case: TestCase, solver: str, reason: str) -> dict[str, Any]:
    """The record of a solver that cannot run here."""
    return {"case": case.name, "solver": solver, "available": False, "reason": reason,
            "m": case.m, "n": case.n, "cells": case.cells}


def _check_repeat_scores(name: str, solver: str, scores: Iterable[int]) -> None:
    distinct = sorted(set(scores))
    if len(distinct) > 1:
        raise RuntimeError(f"{solver} gave different scores on repeated runs of {name}: {distinct}")


def timed_solve(solver: Solver, case: TestCase, scoring: Scoring, repeats: int,
                traceback: bool = False) -> Result:
    """Warm-up, then ``repeats`` timed runs; seconds = their median, with min/max/runs and the
    warm-up's own time in ``extra`` (the spread flags unreliable timings). Progress goes to the log.

    The untimed warm-up always traces back, so the result carries the chain and alignment
    (gene-prediction accuracy needs them) whether or not the timed runs include traceback,
    and it runs every compiled kernel a timed run can reach (JIT and caches are warm).
    """
    log.info("%s / %s: m=%d n=%d K=%d cells=%d", case.name, solver.name, case.m, case.n, case.K, case.cells)
    t0 = time.perf_counter()
    warm = solver.solve(case, scoring, True)
    warmup = time.perf_counter() - t0
    log.info("warm-up (with traceback): %.4f s (score %d)", warmup, warm.score)
    runs = []
    for r in range(repeats):
        runs.append(solver.solve(case, scoring, traceback))
        log.info("run %d/%d: %.4f s, %.1f MCUPS", r + 1, repeats, runs[-1].seconds, runs[-1].mcups)
    _check_repeat_scores(case.name, solver.name, [warm.score] + [x.score for x in runs])
    timing = Timing(tuple(r.seconds for r in runs))
    extra = dict(runs[-1].extra)
    for key in ("seconds_score", "seconds_traceback"):
        if all(key in r.extra for r in runs):
            extra[key] = float(np.median([r.extra[key] for r in runs]))
    extra.update(timing.as_dict(), seconds_warmup=warmup)
    del extra["seconds"]
    return dataclasses.replace(runs[-1], seconds=timing.median, extra=extra, chain=warm.chain,
                               alignment=warm.alignment)


def case_record(solver_name: str, case: TestCase, scoring: Scoring, repeats: int,
                traceback: bool = False) -> dict[str, Any]:
    """The JSON record of one case × solver: result_record with median timing, or n/a."""
    try:
        solver = get_solver(solver_name)
        result = timed_solve(solver, case, scoring, repeats, traceback)
    except SolverUnavailable as exc:
        log.warning("%s unavailable: %s", solver_name, exc)
        return na_record(case, solver_name, str(exc))
    return {**result_record(case, result, scoring), "available": True, "repeats": repeats,
            "timed_traceback": traceback}


def timed_batch(solver_name: str, cases: Sequence[TestCase], scoring: Scoring, repeats: int,
                traceback: bool = False, progress_chunks: int = 10) -> dict[str, Any]:
    """Data-set throughput through ``solve_many``: the whole set in one call per timed run.

    The warm-up pass goes through ``solve_many`` in ``progress_chunks`` slices so the log
    shows progress per slice of cases; the timed runs are whole-set calls.
    """
    cells = sum(c.cells for c in cases)
    base = {"solver": solver_name, "cases": len(cases), "cells": cells, "repeats": repeats}
    try:
        solver = get_solver(solver_name)
        size = max(1, -(-len(cases) // progress_chunks))
        scores: dict[str, int] = {}
        t0 = time.perf_counter()
        for i in range(0, len(cases), size):
            part = solver.solve_many(cases[i : i + size], scoring, traceback)
            scores.update({r.case: r.score for r in part})
            log.info("warm-up: %d/%d cases, %.2f s", min(i + size, len(cases)), len(cases),
                     time.perf_counter() - t0)
        warmup = time.perf_counter() - t0
    except SolverUnavailable as exc:
        log.warning("%s unavailable: %s", solver_name, exc)
        return {**base, "available": False, "reason": str(exc)}
    seconds = []
    for r in range(repeats):
        t = time.perf_counter()
        results = solver.solve_many(cases, scoring, traceback)
        seconds.append(time.perf_counter() - t)
        for res in results:
            _check_repeat_scores(res.case, solver_name, (scores[res.case], res.score))
        log.info("run %d/%d: %.3f s, %.1f MCUPS", r + 1, repeats, seconds[-1], cells / seconds[-1] / 1e6)
    timing = Timing(tuple(seconds))
    return {**base, "available": True, **timing.as_dict(), "seconds_warmup": warmup,
            "mcups": cells / timing.median / 1e6, "scores": scores}
