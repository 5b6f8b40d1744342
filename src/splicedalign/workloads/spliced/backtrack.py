"""One optimal chain and its alignment from the exons' last rows (any solver's).

Memory stays linear-ish: besides the K last rows the solvers keep anyway, only the exons of
the chosen chain are recomputed, one at a time, with their full matrix. The `gpu` solver's
device traceback (wavefront.cu, ``trace_chains``) makes the same choices and hands its
outcome to ``chain_alignment`` too.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from splicedalign.workloads.spliced.records import OP_INS, ExonAlignment, Scoring, TestCase
from splicedalign.workloads.spliced.cpu_kernels import entry_row, fold_checkpoints, trace_exon


def chain_alignment(case: TestCase, positions: Sequence[int], entered: Sequence[int], ends: Sequence[int],
                    counts: Sequence[int], ops: bytes) -> tuple[tuple[int, ...], tuple[ExonAlignment, ...]]:
    """Chain (input exon indices) and per-exon alignments from a traced path, in chain order.

    ``positions``: the chain's exons in (first, last) order positions; exon i's path enters
    its entry row at target column ``entered[i]`` and ends at ``ends[i]``, with ``counts[i]``
    ops. ``ops`` is the whole path forward: ``entered[0]`` leading target letters against gaps
    (they become the first exon's leading 'I's), then each exon's ops in turn.
    """
    # one conversion per case, not per exon: batches build thousands of these
    index = case.order[positions].tolist()
    first = case.first_sorted[positions].tolist()
    last = case.last_sorted[positions].tolist()
    alignment = []
    at = 0
    for i in range(len(index)):
        # The first exon takes the leading I's and starts at target column 1.
        stop = at + int(counts[i]) + (int(entered[0]) if i == 0 else 0)
        alignment.append(ExonAlignment(index[i], first[i], last[i], 1 if i == 0 else int(entered[i]) + 1,
                                       int(ends[i]), ops[at:stop]))
        at = stop
    assert at == len(ops), "ops and per-exon counts disagree"
    return tuple(index), tuple(alignment)


def trace_chain(
    case: TestCase, scoring: Scoring, last_rows: np.ndarray, prof: np.ndarray
) -> tuple[tuple[int, ...], tuple[ExonAlignment, ...]]:
    """Chain (input exon indices, in order) and per-exon alignment reaching max_k S(last(k), n, k).

    ``last_rows`` are in (first, last) order, as every solver computes them; ``prof`` is the
    match profile the rows were computed with (its dtype is the score type). The chain ends
    at the first exon (by position) reaching the best score; each predecessor is the exon with
    the largest ``last`` (then the lowest position) whose last row reaches the entry row where
    the path enters it.
    """
    first, last, base, target = case.first_sorted, case.last_sorted, case.base_codes, case.target_codes
    n = case.n
    gap = last_rows.dtype.type(scoring.gap)
    k = int(np.argmax(last_rows[:, n]))
    j = n
    by_last = case.by_last
    last_by_last = last[by_last]
    stride = max(1, int(np.sqrt(case.K)))
    checkpoints = fold_checkpoints(by_last, gap, last_rows, stride)
    P = np.empty(n + 1, dtype=last_rows.dtype)
    picked: list[tuple[int, np.ndarray, int, int]] = []  # (position, ops reversed, j entered, j end)
    while True:
        folded = int(np.searchsorted(last_by_last, first[k], side="left"))  # exons with last < first(k)
        entry_row(by_last, folded, last_rows, checkpoints, stride, P)
        ops_rev, j0 = trace_exon(base, target, prof, first[k], last[k], gap, P, j)
        picked.append((k, ops_rev, j0, j))
        preds = np.flatnonzero((last < first[k]) & (last_rows[:, j0] == P[j0]))
        if preds.size == 0:
            # P[j0] is the chain-start term: t_1..t_j0 align to gaps before this exon.
            assert P[j0] == -scoring.gap * j0
            break
        k = int(preds[np.argmax(last[preds])])  # the nearest predecessor reaching the value
        j = j0
    picked.reverse()
    lead = np.full(picked[0][2], OP_INS, dtype=np.uint8)
    ops = np.concatenate([lead] + [p[1][::-1] for p in picked]).tobytes()
    return chain_alignment(case, [p[0] for p in picked], [p[2] for p in picked], [p[3] for p in picked],
                           [p[1].size for p in picked], ops)
