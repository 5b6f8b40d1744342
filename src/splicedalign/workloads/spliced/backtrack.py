"""One optimal chain and its alignment from the exons' last rows (any solver's).

Memory stays linear-ish: besides the K last rows the solvers keep anyway, only the exons of
the chosen chain are recomputed, one at a time, with their full matrix.
"""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.spliced.records import ExonAlignment, Scoring, TestCase
from splicedalign.workloads.spliced.cpu_kernels import (
    OP_DEL,
    OP_INS,
    OP_MATCH,
    OP_MISMATCH,
    entry_row,
    fold_checkpoints,
    trace_exon,
)

_OP_LETTER = {OP_MATCH: "=", OP_MISMATCH: "X", OP_DEL: "D", OP_INS: "I"}


def cigar(ops: np.ndarray) -> str:
    """Run-length CIGAR of forward-order op codes, e.g. '3=1X2D'."""
    if ops.size == 0:
        return ""
    change = np.flatnonzero(np.diff(ops)) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [ops.size]))
    return "".join(f"{e - s}{_OP_LETTER[int(ops[s])]}" for s, e in zip(starts, ends))


def trace_chain(
    case: TestCase, scoring: Scoring, last_rows: np.ndarray, prof: np.ndarray
) -> tuple[tuple[int, ...], tuple[ExonAlignment, ...]]:
    """Chain (input exon indices, in order) and per-exon alignment reaching max_k S(last(k), n, k).

    ``last_rows`` are in (first, last) order, as every solver computes them; ``prof`` is the
    match profile the rows were computed with (its dtype is the score type).
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
    picked: list[tuple[int, np.ndarray, int, int]] = []  # (position, forward ops, t_start, t_end)
    while True:
        folded = int(np.searchsorted(last_by_last, first[k], side="left"))  # exons with last < first(k)
        entry_row(by_last, folded, last_rows, checkpoints, stride, P)
        ops_rev, j0 = trace_exon(base, target, prof, first[k], last[k], gap, P, j)
        picked.append((k, ops_rev[::-1], j0 + 1, j))
        preds = np.flatnonzero((last < first[k]) & (last_rows[:, j0] == P[j0]))
        if preds.size == 0:
            # P[j0] is the chain-start term: t_1..t_j0 align to gaps before this exon.
            assert P[j0] == -scoring.gap * j0
            break
        k = int(preds[np.argmax(last[preds])])  # the nearest predecessor reaching the value
        j = j0
    picked.reverse()
    lead = picked[0][2] - 1
    alignment = []
    for idx, (pos, ops, t_start, t_end) in enumerate(picked):
        if idx == 0 and lead:
            ops = np.concatenate((np.full(lead, OP_INS, dtype=np.uint8), ops))
            t_start = 1
        inp = int(case.order[pos])
        alignment.append(
            ExonAlignment(inp, int(first[pos]), int(last[pos]), int(t_start), int(t_end), cigar(ops))
        )
    return tuple(a.index for a in alignment), tuple(alignment)
