"""Host-side plan of one `gpu` launch: tasks, their order, row storage and progress flags.

Pure NumPy over a whole batch of test cases at once (no per-exon Python loop), so planning a
1,010-case data set costs a few milliseconds. Vocabulary as in kernels/wavefront.cu:

* strip: up to ``32 * rows_per_lane`` consecutive rows of one exon; an exon of L rows has
  ceil(L / strip_rows) strips, the first one holding the remainder.
* fold q of a case: M_q = max(M_{q-1}, last row of its q-th exon by ``last``), M_{-1} being the
  chain-start row. The entry row of exon k is M_{p_k - 1}, p_k = #exons with last < first(k).
* every task writes one row (a strip its bottom row, a fold its M_q) and owns the progress flag
  with its task index.

Tasks are listed in an order consistent with every case's dependencies (a producer before its
consumers); interleaving cases by relative position keeps many independent tasks in flight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from splicedalign.case import Scoring, TestCase

KIND_STRIP, KIND_FOLD = 0, 1
TASK_FIELDS = 12  # ints per task, matching struct Task in wavefront.cu
WARP = 32
ALIGN = 4  # row offsets and target offsets are multiples of this (16-byte vector access)


def round_up(x, a: int = ALIGN):
    return (x + a - 1) // a * a


def shifted_bound(m: int, n: int, scoring: Scoring, strip_rows: int) -> int:
    """Largest magnitude a shifted score h + gap*(c + j) inside a strip can take."""
    unit = max(abs(scoring.match), abs(scoring.mismatch), abs(scoring.gap))
    return (m + n) * unit + scoring.gap * (strip_rows + n)


def score_ctype(m: int, n: int, scoring: Scoring, strip_rows: int) -> str:
    """'int' when shifted scores stay far from the kernel's -2^29 sentinel, else 'long long'."""
    return "int" if shifted_bound(m, n, scoring, strip_rows) < 2**28 else "long long"


def byte_profile_ok(scoring: Scoring) -> bool:
    """The kernel's PRMT profile holds match+2gap and mismatch+2gap as signed bytes."""
    return all(-128 <= v <= 127 for v in (scoring.match + 2 * scoring.gap, scoring.mismatch + 2 * scoring.gap))


@dataclass(frozen=True)
class Plan:
    tasks: np.ndarray        # (T, TASK_FIELDS) int32, in launch order
    base: np.ndarray         # uint8: the distinct base sequences' codes, concatenated
    target: np.ndarray       # uint8: per case, code of t_j at [target_offset + j] (j = 1..n)
    rows_size: int           # elements of row storage
    exon_case: np.ndarray    # (E,) case of each exon, exons case-major in (first, last) order
    exon_start: np.ndarray   # (C+1,) first exon of each case
    last_row: np.ndarray     # (E,) offset of each exon's last row in row storage
    n: np.ndarray            # (C,) target lengths


def _segments(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(segment id, index within segment) for every element of consecutive segments."""
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    seg = np.repeat(np.arange(counts.size), counts)
    return seg, np.arange(int(counts.sum())) - starts[seg]


def _pack_sequences(cases: Sequence[TestCase]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct bases concatenated (cases of one base share it) and aligned target codes."""
    base_parts, base_at, base_off = [], {}, np.empty(len(cases), dtype=np.int64)
    total = 0
    for i, c in enumerate(cases):
        key = id(c.base)
        if key not in base_at:
            base_at[key] = total
            base_parts.append(c.base_codes)
            total += c.m
        base_off[i] = base_at[key]
    n = np.array([c.n for c in cases], dtype=np.int64)
    stride = round_up(n + 1)
    tgt_off = np.concatenate(([0], np.cumsum(stride)[:-1]))
    target = np.zeros(int(stride.sum()), dtype=np.uint8)
    seg, j = _segments(n)
    target[tgt_off[seg] + 1 + j] = np.concatenate([c.target_codes for c in cases])
    return np.concatenate(base_parts), base_off, target, tgt_off


def build_plan(cases: Sequence[TestCase], rows_per_lane: int) -> Plan:
    P = WARP * rows_per_lane
    C = len(cases)
    K = np.array([c.K for c in cases], dtype=np.int64)
    exon_start = np.concatenate(([0], np.cumsum(K)))
    ce = np.repeat(np.arange(C), K)                      # case of each exon
    first = np.concatenate([c.first_sorted for c in cases])
    last = np.concatenate([c.last_sorted for c in cases])
    E = first.size
    base, base_off, target, tgt_off = _pack_sequences(cases)
    n = np.array([c.n for c in cases], dtype=np.int64)
    stride = round_up(n + 1)

    # Predecessors: p_k = exons of the case with last < first(k); folds in (case, last) order.
    big = int(max(c.m for c in cases)) + 2
    by_last = np.lexsort((np.arange(E), last, ce))
    key_last = ce[by_last] * big + last[by_last]
    p = np.searchsorted(key_last, ce * big + first, side="left") - exon_start[ce]
    folds = p[exon_start[1:] - 1]                      # folds a case needs: p of its last exon
    fc, fq = _segments(folds)                           # case and q of every fold
    fold_exon = by_last[exon_start[fc] + fq]            # exon whose last row fold q adds

    # Strips.
    L = last - first + 1
    S = (L + P - 1) // P
    se, ss = _segments(S)                               # exon and index of every strip
    head_rows = L - (S - 1) * P
    strip_rows = np.where(ss == 0, head_rows[se], P)
    strip_first_row = np.where(ss == 0, 0, head_rows[se] + (ss - 1) * P)  # within the exon

    # Position of every task in its case's topological order: before exon k come the folds
    # q < p_k and the strips of exons < k.
    cum_s = np.cumsum(S) - S                            # strips before each exon (batch-wide)
    strips_before = cum_s - cum_s[exon_start[ce]]       # ... within its case
    strip_pos = p[se] + strips_before[se] + ss
    key_p = ce * big + p
    k_star = np.searchsorted(key_p, fc * big + fq, side="right")  # first exon needing fold q
    fold_pos = fq + strips_before[k_star]
    tasks_in_case = folds + np.bincount(ce[se], minlength=C)

    ns, nf = se.size, fc.size
    case = np.concatenate((ce[se], fc))
    pos = np.concatenate((strip_pos, fold_pos))
    order = np.argsort((pos + 0.5) / tasks_in_case[case], kind="stable")  # launch order
    T = order.size
    task_id = np.empty(T, dtype=np.int64)
    task_id[order] = np.arange(T)                       # launch index of strips, then folds
    sid, fid = task_id[:ns], task_id[ns:]
    row_at = np.concatenate(([0], np.cumsum(stride[case[order]])))  # row storage by launch index
    last_strip = cum_s + S - 1                           # each exon's last strip
    exon_last_task = sid[last_strip]
    fold_base = np.concatenate(([0], np.cumsum(folds)))  # folds of each case, in q order
    has = p[se] > 0
    strip_entry = np.full(ns, -1, dtype=np.int64)        # launch index of the entry row's producer
    strip_entry[has] = fid[fold_base[ce[se[has]]] + p[se[has]] - 1]
    strip_in = np.where(ss == 0, strip_entry, np.roll(sid, 1))
    fold_in = np.where(fq == 0, -1, np.roll(fid, 1))
    producer = np.concatenate((strip_in, fold_in))
    lt = exon_last_task[fold_exon]

    # Columns of struct Task, by pre-sort index (strips then folds), gathered in launch order.
    cols = (
        np.concatenate((np.full(ns, KIND_STRIP), np.full(nf, KIND_FOLD))),
        n[case],
        np.concatenate((tgt_off[ce[se]], np.zeros(nf, dtype=np.int64))),
        np.concatenate((base_off[ce[se]] + first[se] - 1 + strip_first_row, lt)),
        np.where(producer >= 0, row_at[np.maximum(producer, 0)], -1),
        np.maximum(producer, 0),
        row_at[task_id],
        task_id,
        np.concatenate((strip_rows, row_at[lt])),
    )
    t = np.zeros((T, TASK_FIELDS), dtype=np.int32)
    for f, col in enumerate(cols):
        t[:, f] = col[order]
    if row_at[-1] >= 2**31 or base.size >= 2**31:
        raise ValueError("batch too large for 32-bit offsets; split it (see launch.batches)")
    return Plan(t, base, target, int(row_at[-1]), ce, exon_start,
                row_at[exon_last_task], n)
