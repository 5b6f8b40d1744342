"""One optimal chain and its alignment from the exons' last rows (any solver's).

Memory stays linear-ish: besides the K last rows the solvers keep anyway, only the exons of
the chosen chain are recomputed, one at a time, with their full matrix. The `gpu` solver's
device traceback (wavefront.cu, ``trace_chains``) makes the same choices; its batch's outcome
(gpu.outputs.chain_alignments_many) and the CPU solvers' (``chains_and_alignments``) are made
records by ``traced_records``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

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
    """Chain and alignments of each traced path of a batch: the one place their records are made.

    ``exons`` is the batch's ``exon_records``. Case c's chain has ``lengths[c]`` exons; the
    arrays hold the batch's chain exons case by case, each case's in chain order: exon i is
    row ``slots[i]`` of ``exons``, its path enters its entry row at target column
    ``entered[i]`` and ends at column ``ends[i]`` with ``counts[i]`` ops. ``ops`` holds the
    paths forward, case after case (``totals[c]`` ops each): each begins with ``entered`` of
    its first exon leading target letters against gaps (the first exon's leading 'I's, so that
    exon starts at target column 1), then its exons' ops in turn. With ``leading`` False (free
    target ends) there are no leading 'I's: the first exon starts at target column entered + 1.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    C = len(lengths)
    assert (lengths > 0).all(), "every traced case has a chain"
    heads = np.zeros(C, dtype=np.int64)  # each case's first chain exon
    np.cumsum(lengths[:-1], out=heads[1:])
    g = np.asarray(slots, dtype=np.int64)
    entered = np.asarray(entered, dtype=np.int64)
    fields = np.empty((g.size, 5), dtype=np.int64)
    fields[:, :3] = exons[g]  # input index, first, last
    fields[:, 3] = entered + 1
    fields[:, 4] = ends
    sizes = np.asarray(counts, dtype=np.int64).copy()
    if leading:
        fields[heads, 3] = 1
        sizes[heads] += entered[heads]
    bounds = np.zeros(g.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=bounds[1:])
    assert bounds[-1] == len(ops) and (np.add.reduceat(sizes, heads) == totals).all(), \
        "ops and per-exon counts disagree"
    return list(zip(*traced_records(fields, bounds, ops, np.append(heads, g.size))))


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
