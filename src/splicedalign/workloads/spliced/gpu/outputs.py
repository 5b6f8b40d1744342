"""A `gpu` launch's outputs turned into `Result`s: the exons' final scores, and with traceback
the chains and alignments, walked on the device (``device_traceback``: from trace_chains'
paths) or on the host (``host_traceback``: ``trace_chain`` from the exons' last rows)."""

from __future__ import annotations

import dataclasses
import operator
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from splicedalign.core.arraycopy import copy_into
from splicedalign.workloads.spliced.backtrack import Chains, chain_exons, chain_layout, trace_chain, traced_records
from splicedalign.workloads.spliced.cpu_kernels import score_dtype
from splicedalign.workloads.spliced.gpu.flat import few_threads
from splicedalign.workloads.spliced.gpu.plan import Plan, TraceInputs
from splicedalign.workloads.spliced.records import ExonAlignment, Result, Scoring, TestCase

TRACE_THREADS = os.cpu_count() or 1  # the host traceback's thread pool
_NAME = operator.attrgetter("name")
_RESULT_FIELDS = dict.fromkeys(f.name for f in dataclasses.fields(Result))  # (pending's template: every field)


class Exons(NamedTuple):
    """What a launch's results read of its plan (plan.Plan's fields of these names)."""
    exon_start: np.ndarray   # (C+1,) first exon of each case
    input_index: np.ndarray  # (E,) batch-wide index of each exon in its case's input order
    cells: np.ndarray        # (C,) cells of each case

    @classmethod
    def of(cls, plan: Plan) -> Exons:
        return cls(plan.exon_start, plan.input_index, plan.cells)


class Walked(NamedTuple):
    """A launch's traced cases (those of one part): each one's chain, alignments and seconds."""
    chains: Sequence[tuple[int, ...]]
    alignments: Sequence[Sequence[ExonAlignment]]
    seconds: Sequence[float]


def host_traceback(batch: Sequence[TestCase], exons: Exons, host: np.ndarray, dst: np.ndarray,
                   scoring: Scoring) -> Walked:
    """Each case's chain, alignment and seconds: ``trace_chain`` on a thread pool (its compiled
    kernels release the GIL), each case from its exons' last rows (case c's exons' rows at
    ``host[dst[a]:dst[b]]``)."""
    def one(c: int) -> tuple:
        t0 = time.perf_counter()
        case = batch[c]
        dtype = score_dtype(case.m, case.n, scoring)
        a, b = exons.exon_start[c], exons.exon_start[c + 1]
        last = host[dst[a]:dst[b]].reshape(b - a, case.n + 1).astype(dtype, copy=False)
        chain, alignment = trace_chain(case, scoring, last)
        return chain, alignment, time.perf_counter() - t0
    with ThreadPoolExecutor(max_workers=TRACE_THREADS) as pool:
        done = list(pool.map(one, range(len(batch))))
    return Walked(*map(list, zip(*done))) if done else Walked([], [], [])


def device_traceback(info: TraceInputs, rows: tuple[int, int], out_case: np.ndarray, out_exon: np.ndarray,
                     ops: np.ndarray, first_op: int, *, leading: bool = True) -> Walked:
    """Chain, alignment and seconds of each case of the trace table's ``rows`` (cases
    info.order[rows]) from trace_chains' output (a case's chain exons in trace order at its
    first exon slots, its ops forward at the end of its region; ``ops`` from op ``first_op``
    on), built for those cases at once; their seconds apportioned by ops. ``leading`` False:
    free target ends (no leading target letters against gaps)."""
    t0 = time.perf_counter()
    lengths, totals = out_case.reshape(-1, 2).T
    with few_threads(int(totals.sum())):  # its compiled pass: mostly a copy of the cases' ops
        traced = chain_alignments_many(info.records, info.exon0()[rows[0]:rows[1]], lengths, totals,
                                       out_exon.reshape(-1, 4), info.ops_end()[rows[0]:rows[1]] - first_op, ops,
                                       leading)
    share = (time.perf_counter() - t0) / max(1, int(totals.sum()))
    return Walked(*traced, (totals * share).tolist())


def chain_alignments_many(exons: np.ndarray, heads: np.ndarray, lengths: np.ndarray, totals: np.ndarray,
                          slots: np.ndarray, ends: np.ndarray, ops: np.ndarray, leading: bool = True) -> Chains:
    """Chain and alignments of each case from a batch's device traceback (wavefront.cu,
    ``trace_chains``), with one pass of array work for the whole batch.

    ``exons`` is the batch's ``exon_records``. Case c's ``lengths[c]`` chain exons are in trace
    order (last exon first) at rows ``heads[c]..`` of ``slots`` ((E, 4) int32, as the kernel
    writes them: exon row in ``exons``, j entered, j end, op count); its ``totals[c]`` ops lie
    forward in ``ops`` (uint8) ending at ``ends[c]``. The results keep a compact copy of the used
    ops, not ``ops`` itself, which may be reused. ``leading`` False: free target ends
    (backtrack.chains_and_alignments). The array work is one compiled pass (``walked_exons``), in
    parallel over the cases: hold flat.PARALLEL (``device_traceback`` does).
    """
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    assert (lengths > 0).all(), "every traced case has a chain"
    fields, bounds, used, firsts, bad = walked_exons(
        np.ascontiguousarray(exons, dtype=np.int64), np.ascontiguousarray(heads, dtype=np.int64), lengths,
        np.ascontiguousarray(totals, dtype=np.int64), np.ascontiguousarray(slots, dtype=np.int32),
        np.ascontiguousarray(ends, dtype=np.int64), np.ascontiguousarray(ops, dtype=np.uint8), leading)
    assert bad == 0, f"{bad} traced cases' ops and per-exon counts disagree (or lie outside the outputs)"
    return traced_records(fields, bounds, used.tobytes(), firsts)


@njit(cache=True, parallel=True, nogil=True)
def walked_exons(exons, heads, lengths, totals, slots, ends, ops, leading):  # pragma: no cover - compiled
    """chain_alignments_many's array work, one pass over a batch's cases (in parallel):
    each case's chain exons in chain order (its ``lengths[c]`` rows of ``slots`` from ``heads[c]``
    in trace order, reversed) as rows of (input index, first, last, target start, target end) from
    ``exons``, the bounds of each exon's ops in ``used`` (the cases' paths, each case's
    ``totals[c]`` ops ending at ``ends[c]`` in ``ops``, gathered back to back) and each case's
    first row (then the total). ``leading``: the first exon starts at target column 1, its path's
    leading 'I's included. Each case's exons are backtrack.chain_exons' (the CPU solvers' records
    too) on its walk reversed. Returns (fields, bounds, used, firsts, bad): ``bad`` counts the cases
    whose exons' op counts do not add up to their totals, or whose slots, exon rows or path lie
    outside ``slots``, ``exons`` or ``ops`` (their rows left unfilled). As NumPy passes over the
    batch and a join of each case's ops, this work took ~12-23 CPU ms of a 10-set traced call's
    10,100 cases (2-core machine; ~5-6 now, on one thread), ~5 more for the records."""
    C = heads.shape[0]
    firsts, starts, fields, bounds = chain_layout(lengths, totals)
    used = np.empty(starts[C], np.uint8)
    bad = np.zeros(C, np.int64)
    for c in prange(C):
        if heads[c] < 0 or heads[c] + lengths[c] > slots.shape[0]:
            bad[c] = 1
            continue
        walk = slots[heads[c]:heads[c] + lengths[c]][::-1]  # in chain order
        a, b = firsts[c], firsts[c + 1]
        end = chain_exons(exons, walk[:, 0], walk[:, 1], walk[:, 2], walk[:, 3], leading, fields[a:b], bounds[a:b],
                          starts[c])
        src = ends[c] - totals[c]
        if end < 0 or end != starts[c + 1] or src < 0 or ends[c] > ops.shape[0]:
            bad[c] = 1
        else:
            copy_into(used[starts[c]:starts[c + 1]], ops[src:ends[c]])
    return fields, bounds, used, firsts, bad.sum()


class Pending(NamedTuple):
    """A launch's results made ready while the GPU runs (``pending``): its Results, whose score,
    seconds, chain and alignment ``results`` fills in once its scores (and chains) are known."""
    by_input: np.ndarray      # the exons' final scores in input order, filled by ``scores``
    results: list[Result]     # each case's, last_row_scores a view of by_input


def pending(solver: str, batch: Sequence[TestCase], exons: Exons) -> Pending:
    """A launch's Pending, made before waiting for its kernels (~1,000 cases cost the host 1-2 ms).
    Each Result is made whole here, its extra too (with the keys ``results`` fills): on the
    development machine a paper set's 1,010 Results made after the kernel took 0.54 ms, against
    0.08-0.10 ms to fill them in (0.52 ms to make them before). Each one's fields are a copy of
    one template with four set (1.12 against 1.49 ms for ``Result(...)``'s fields as keywords,
    development machine, 1,010 cases): a fed launch's host makes them after its last window, in
    the ~2 ms its kernel runs on."""
    by_input = np.empty(exons.input_index.size, dtype=np.int64)
    heads, ends, count = exons.exon_start[:-1].tolist(), exons.exon_start[1:].tolist(), len(batch)
    template = _RESULT_FIELDS | {"solver": solver, "score": 0, "seconds": 0.0}  # (the others set below or None)
    extra = {"seconds_score": 0.0, "seconds_traceback": 0.0, "batch_cases": count, "batch_seconds_score": 0.0}
    results = []
    for name, cells, a, b in zip(map(_NAME, batch), exons.cells.tolist(), heads, ends):
        fields = template.copy()
        fields["case"], fields["cells"] = name, cells
        fields["last_row_scores"], fields["extra"] = by_input[a:b], extra.copy()
        results.append(Result.of_fields(fields))
    return Pending(by_input, results)


def scores(exons: Exons, made: Pending, finals: np.ndarray, t_score: float,
           free_ends: bool = False) -> tuple[list[int], list[float]]:
    """Once per launch, from its exons' final scores in input order (free ends: in the plan's
    order, GpuSolver._row_maxima) (into ``made.by_input``): each case's score (its exons are
    consecutive in either order) and its share of the launch's time (by cells)."""
    if free_ends:
        made.by_input[exons.input_index] = finals
    else:
        made.by_input[:] = finals
    return (np.maximum.reduceat(made.by_input, exons.exon_start[:-1]).tolist(),
            (exons.cells * (t_score / max(1, int(exons.cells.sum())))).tolist())


def results(made: Pending, scored: tuple[list[int], list[float]], t_score: float, traced: Walked | None,
            which: Sequence[int]) -> None:
    """The Results of the cases ``which`` of one launch (``traced`` in that order) filled in from
    its ``scores`` (and chains): before this, no one else holds them (Result is frozen for its
    users)."""
    best, shares = scored
    every = made.results
    if traced is not None:
        for c, chain, alignment, t_trace in zip(which, *traced):
            d = every[c].__dict__
            extra, share = d["extra"], shares[c]
            d["score"], d["seconds"], d["chain"], d["alignment"] = best[c], share + t_trace, chain, alignment
            extra["seconds_score"], extra["seconds_traceback"], extra["batch_seconds_score"] = share, t_trace, t_score
    else:
        for c in which:
            d = every[c].__dict__
            d["score"] = best[c]
            d["seconds"] = share = shares[c]
            extra = d["extra"]
            extra["seconds_score"], extra["batch_seconds_score"] = share, t_score
