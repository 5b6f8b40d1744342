"""One optimal chain and its alignment from the exons' last rows (any solver's).

Memory stays linear-ish: besides the K last rows the solvers keep anyway, only the exons of
the chosen chain are recomputed, one at a time, with their full matrix. The `gpu` solver's
device traceback (wavefront.cu, ``trace_chains``) makes the same choices; its batch's outcome
(gpu.outputs.chain_alignments_many) and the CPU solvers' (``chains_and_alignments``) are made
records by ``traced_records``, each chain exon's fields by ``chain_exons`` (both compiled passes').
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba import njit

from splicedalign.workloads.spliced import cpu_kernels as kernels
from splicedalign.workloads.spliced.records import ExonAlignments, Scoring, TestCase

Traced = tuple[tuple[int, ...], ExonAlignments]  # (chain: input exon indices, its alignments)


class Chains(NamedTuple):
    """A batch's traced cases as columns: each case's chain (input exon indices) and alignments."""
    chains: list[tuple[int, ...]]
    alignments: list[ExonAlignments]


def exon_records(cases: Sequence[TestCase]) -> np.ndarray:
    """(E, 3) int64: every exon of a batch, case after case in (first, last) order, as an
    ``ExonAlignment`` names it: its input index in its case, first, last."""
    columns = zip(*[(c.order, c.first_sorted, c.last_sorted) for c in cases])
    return np.stack([np.concatenate(column) for column in columns], axis=1).astype(np.int64, copy=False)


def chains_and_alignments(exons: np.ndarray, lengths: np.ndarray, totals: np.ndarray, slots: np.ndarray,
                          entered: np.ndarray, ends: np.ndarray, counts: np.ndarray, ops: bytes,
                          leading: bool = True) -> list[Traced]:
    """Chain and alignments of each traced path of a CPU solvers' batch (or of one case:
    ``chain_alignment``), their array work one compiled pass (``chain_fields``).

    ``exons`` is the batch's ``exon_records``. Case c's chain has ``lengths[c]`` exons; the
    arrays hold the batch's chain exons case by case, each case's in chain order: exon i is
    row ``slots[i]`` of ``exons``, its path enters its entry row at target column
    ``entered[i]`` and ends at column ``ends[i]`` with ``counts[i]`` ops. ``ops`` holds the
    paths forward, case after case (``totals[c]`` ops each): each begins with ``entered`` of
    its first exon leading target letters against gaps (the first exon's leading 'I's, so that
    exon starts at target column 1), then its exons' ops in turn. With ``leading`` False (free
    target ends) there are no leading 'I's: the first exon starts at target column entered + 1.
    """
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    assert (lengths > 0).all(), "every traced case has a chain"
    columns = [np.ascontiguousarray(a, dtype=np.int64) for a in (totals, slots, entered, ends, counts)]
    assert all(len(a) == len(columns[1]) for a in columns[2:]) and lengths.sum() == len(columns[1]), \
        "chain exons and chain lengths disagree"
    fields, bounds, firsts, bad = chain_fields(np.ascontiguousarray(exons, dtype=np.int64), lengths, *columns,
                                               leading)
    assert bad == 0 and bounds[-1] == len(ops), "ops and per-exon counts disagree"
    return list(zip(*traced_records(fields, bounds, ops, firsts)))


@njit(cache=True, nogil=True)
def chain_fields(exons, lengths, totals, slots, entered, ends, counts, leading):  # pragma: no cover - compiled
    """chains_and_alignments' array work, case after case (``chain_exons``): (fields, bounds,
    firsts, bad) as ``traced_records`` reads them, with ``bad`` the cases whose exons' ops do
    not add up to their totals or whose exon rows lie outside ``exons``."""
    firsts, starts, fields, bounds = chain_layout(lengths, totals)
    bad = 0
    for c in range(lengths.shape[0]):
        a, b = firsts[c], firsts[c + 1]
        end = chain_exons(exons, slots[a:b], entered[a:b], ends[a:b], counts[a:b], leading, fields[a:b], bounds[a:b],
                          starts[c])
        if end < 0 or end != starts[c + 1]:
            bad += 1
    return fields, bounds, firsts, bad


# chain_layout and chain_exons are inlined into their callers (chain_fields, gpu.outputs.walked_exons),
# not compiled as functions of their own: a fresh clone compiles the CPU solvers' pass in 0.65-0.68
# CPU s against 0.86-1.09 (5 fresh caches each, dev machine).
@njit(inline='always')
def chain_layout(lengths, totals):  # pragma: no cover - compiled
    """Where a batch's chain exons and ops go: each case's first chain exon (``firsts``, then
    the total), each case's first op (``starts``, then the total), and the arrays to fill:
    fields (G, 5) and bounds (G + 1, its last the ops' total) for the batch's G chain exons.
    Plain loops, not np.cumsum: see cpu_kernels.trace_path on the modules a cached kernel loads."""
    C = lengths.shape[0]
    firsts = np.empty(C + 1, np.int64)
    starts = np.empty(C + 1, np.int64)
    firsts[0] = starts[0] = 0
    for c in range(C):
        firsts[c + 1] = firsts[c] + lengths[c]
        starts[c + 1] = starts[c] + totals[c]
    bounds = np.empty(firsts[C] + 1, np.int64)
    bounds[firsts[C]] = starts[C]
    return firsts, starts, np.empty((firsts[C], 5), np.int64), bounds


@njit(inline='always')
def chain_exons(exons, slots, entered, ends, counts, leading, fields, bounds, at):  # pragma: no cover - compiled
    """One case's chain exons, in chain order, as records: exon i (row ``slots[i]`` of ``exons``,
    its path entering at target column ``entered[i]`` and ending at ``ends[i]`` with ``counts[i]``
    ops) as row i of ``fields`` (input index, first, last, target start, target end) and the
    start of its ops, the case's from op ``at`` on, as ``bounds[i]``. ``leading``: the first
    exon starts at target column 1, its path's leading 'I's (``entered[0]``) its ops too.
    Returns the op after the case's last, or -1 where an exon row lies outside ``exons`` (the
    rows from it on left unfilled). The one definition of these fields: every solver's records
    (chain_fields; gpu.outputs.walked_exons, from the device's walks)."""
    for i in range(slots.shape[0]):
        g, j = slots[i], entered[i]
        if g < 0 or g >= exons.shape[0]:
            return -1
        fields[i, 0], fields[i, 1], fields[i, 2] = exons[g, 0], exons[g, 1], exons[g, 2]
        fields[i, 3], fields[i, 4] = j + 1, ends[i]
        size = counts[i]
        if i == 0 and leading:
            fields[i, 3] = 1
            size += j
        bounds[i] = at
        at += size
    return at


def traced_records(fields: np.ndarray, bounds: np.ndarray, ops: bytes, firsts: np.ndarray) -> Chains:
    """Each case's chain and ``ExonAlignments`` (one object each, windows on the batch's arrays):
    case c's chain exons are rows ``firsts[c]..firsts[c + 1]`` of ``fields`` (index, first, last,
    target start, target end), exon i's ops ``ops[bounds[i]:bounds[i + 1]]``."""
    index = fields[:, 0].tolist()
    cuts = firsts.tolist()
    return Chains([tuple(index[a:b]) for a, b in zip(cuts, cuts[1:])],
                  [ExonAlignments(fields, bounds, ops, a, b) for a, b in zip(cuts, cuts[1:])])


def chain_alignment(case: TestCase, positions: Sequence[int], entered: Sequence[int], ends: Sequence[int],
                    counts: Sequence[int], ops: bytes, leading: bool = True) -> Traced:
    """Chain (input exon indices) and per-exon alignments of one traced path, as
    ``chains_and_alignments`` for a batch of one (``positions`` in (first, last) order)."""
    return chains_and_alignments(exon_records([case]), [len(positions)], [len(ops)], positions, entered, ends, counts,
                                 ops, leading)[0]


def final_scores(rows: np.ndarray, scoring: Scoring) -> np.ndarray:
    """Each exon's final score from its last row (cpu_kernels.final_scores)."""
    out = np.empty(rows.shape[0], dtype=rows.dtype)
    kernels.final_scores(rows, scoring.free_ends, out)
    return out


def trace_chain(case: TestCase, scoring: Scoring, last_rows: np.ndarray, finals: np.ndarray | None = None) -> Traced:
    """Chain (input exon indices, in order) and per-exon alignment reaching the best score
    (SPEC §2; cpu_kernels.trace_start says where it ends).

    ``last_rows`` are in (first, last) order, as every solver computes them, in the score type
    (cpu_kernels.score_dtype); ``finals``: their final_scores where the caller has them. The
    walk is cpu_kernels.trace_path's.
    """
    if finals is None:
        finals = final_scores(last_rows, scoring)
    k, j = kernels.trace_start(last_rows, finals, scoring.free_ends)
    dtype = last_rows.dtype.type
    positions, entered, ends, counts, ops = kernels.trace_path(
        case.base_codes, case.target_codes, kernels.lane_scores(case.target_codes, scoring, dtype), case.first_sorted,
        case.last_sorted, case.by_last, last_rows, dtype(scoring.lead), k, j, not scoring.free_ends)
    return chain_alignment(case, positions, entered, ends, counts, ops.tobytes(), leading=not scoring.free_ends)
