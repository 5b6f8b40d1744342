"""Host-side plan of one `gpu` launch: tasks, their order, row storage and progress flags.

One compiled (numba) pass over a whole batch of test cases, linear in the tasks, so planning a
1,010-case data set costs about a millisecond. Vocabulary as in kernels/wavefront.cu:

* strip: up to ``32 * rows_per_lane`` consecutive rows of one exon; an exon of L rows has
  ceil(L / strip_rows) strips, the first one holding the remainder.
* fold q of a case: M_q = max(M_{q-1}, last row of its q-th exon by ``last``), M_{-1} being the
  chain-start row. The entry row of exon k is M_{p_k - 1}, p_k = #exons with last < first(k).
* every task writes one row (a strip its bottom row, a fold its M_q) and owns the progress flag
  with its task index.
* ``fused_entry`` (the kernel's hand-off H = 2): an exon's first strip reads M_{p_k - 2} (or the
  chain-start row) and the last row of the (p_k - 1)-th exon by ``last`` and takes their max,
  which is M_{p_k - 1}, instead of waiting for fold p_k - 1.

Tasks are listed in an order consistent with every case's dependencies (a producer before its
consumers); interleaving cases by relative position keeps many independent tasks in flight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from numba import njit

from splicedalign.workloads.spliced.records import Scoring, TestCase

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
    n = np.fromiter((c.n for c in cases), dtype=np.int64, count=len(cases))
    stride = round_up(n + 1)
    tgt_off = np.concatenate(([0], np.cumsum(stride)[:-1]))
    target = np.zeros(int(stride.sum()), dtype=np.uint8)
    for c, o in zip(cases, tgt_off.tolist()):
        target[o + 1 : o + 1 + c.n] = c.target_codes
    return np.concatenate(base_parts), base_off, target, tgt_off


@njit(cache=True)
def _plan_tasks(K, first, last, n, stride, tgt_off, base_off, P, fused):  # pragma: no cover - compiled
    """Tasks in launch order plus each exon's last-row offset; O(tasks), see the module doc.

    Per case, position pos of its topological order holds exactly one task: before exon k come
    the folds q < p_k and the strips of exons < k. Cases are interleaved by relative position
    (pos + 1/2) / tasks_in_case with a stable counting sort on T buckets: two tasks of one case
    land in distinct buckets in their order, so every producer precedes its consumers.
    """
    C = K.size
    E = first.size
    exon_start = np.zeros(C + 1, np.int64)
    for c in range(C):
        exon_start[c + 1] = exon_start[c] + K[c]
    by_last = np.empty(E, np.int64)   # per case, exon indices (global) sorted by last, stable
    p = np.empty(E, np.int64)         # exons of the case with last < first(k)
    S = np.empty(E, np.int64)         # strips of each exon
    folds = np.empty(C, np.int64)
    case_tasks = np.zeros(C + 1, np.int64)  # first task (case-major, pos order) of each case
    for c in range(C):
        a, b = exon_start[c], exon_start[c + 1]
        by_last[a:b] = a + np.argsort(last[a:b], kind="mergesort")
        q = 0
        for k in range(a, b):  # first is non-decreasing in (first, last) order
            while q < b - a and last[by_last[a + q]] < first[k]:
                q += 1
            p[k] = q
            S[k] = (last[k] - first[k] + P) // P
        folds[c] = p[b - 1]
        case_tasks[c + 1] = case_tasks[c] + folds[c] + S[a:b].sum()
    T = case_tasks[C]
    strip_base = np.zeros(E + 1, np.int64)
    for k in range(E):
        strip_base[k + 1] = strip_base[k] + S[k]
    fold_base = np.zeros(C + 1, np.int64)
    for c in range(C):
        fold_base[c + 1] = fold_base[c] + folds[c]
    # Case-major (pos order) slot of every strip and fold.
    strip_slot = np.empty(strip_base[E], np.int64)
    fold_slot = np.empty(fold_base[C], np.int64)
    slot_case = np.empty(T, np.int64)
    for c in range(C):
        a, b = exon_start[c], exon_start[c + 1]
        pos = case_tasks[c]
        q = 0
        for k in range(a, b):
            while q < p[k]:
                fold_slot[fold_base[c] + q] = pos
                pos += 1
                q += 1
            for s in range(S[k]):
                strip_slot[strip_base[k] + s] = pos
                pos += 1
        slot_case[case_tasks[c]:case_tasks[c + 1]] = c
    # Launch index of every slot: stable counting sort on the relative-position bucket.
    bucket = np.empty(T, np.int64)
    count = np.zeros(T + 1, np.int64)
    for i in range(T):
        c = slot_case[i]
        tc = case_tasks[c + 1] - case_tasks[c]
        bucket[i] = ((2 * (i - case_tasks[c]) + 1) * T) // (2 * tc)
        count[bucket[i] + 1] += 1
    for v in range(T):
        count[v + 1] += count[v]
    launch = np.empty(T, np.int64)
    for i in range(T):
        launch[i] = count[bucket[i]]
        count[bucket[i]] += 1
    # Row storage in launch order: one row of the case's stride per task.
    row_stride = np.empty(T, np.int64)
    for i in range(T):
        row_stride[launch[i]] = stride[slot_case[i]]
    row_at = np.zeros(T + 1, np.int64)
    for t in range(T):
        row_at[t + 1] = row_at[t] + row_stride[t]

    tasks = np.zeros((T, TASK_FIELDS), np.int32)
    tasks[:, 9] = -1  # no second entry input
    last_row = np.empty(E, np.int64)
    for c in range(C):
        a, b = exon_start[c], exon_start[c + 1]
        for k in range(a, b):
            L = last[k] - first[k] + 1
            head = L - (S[k] - 1) * P
            for s in range(S[k]):
                t = launch[strip_slot[strip_base[k] + s]]
                second = -1
                if s > 0:
                    producer = launch[strip_slot[strip_base[k] + s - 1]]
                elif p[k] > 0 and fused:
                    e = by_last[a + p[k] - 1]
                    second = launch[strip_slot[strip_base[e] + S[e] - 1]]
                    producer = launch[fold_slot[fold_base[c] + p[k] - 2]] if p[k] > 1 else -1
                elif p[k] > 0:
                    producer = launch[fold_slot[fold_base[c] + p[k] - 1]]
                else:
                    producer = -1
                tasks[t, 0] = KIND_STRIP
                tasks[t, 1] = n[c]
                tasks[t, 2] = tgt_off[c]
                tasks[t, 3] = base_off[c] + first[k] - 1 + (0 if s == 0 else head + (s - 1) * P)
                tasks[t, 4] = row_at[producer] if producer >= 0 else -1
                tasks[t, 5] = max(producer, 0)
                tasks[t, 6] = row_at[t]
                tasks[t, 7] = t
                tasks[t, 8] = head if s == 0 else P
                if second >= 0:
                    tasks[t, 9] = row_at[second]
                    tasks[t, 10] = second
            last_row[k] = row_at[launch[strip_slot[strip_base[k] + S[k] - 1]]]
        for q in range(folds[c]):
            t = launch[fold_slot[fold_base[c] + q]]
            e = by_last[a + q]
            lt = launch[strip_slot[strip_base[e] + S[e] - 1]]  # the added exon's last strip
            producer = launch[fold_slot[fold_base[c] + q - 1]] if q > 0 else -1
            tasks[t, 0] = KIND_FOLD
            tasks[t, 1] = n[c]
            tasks[t, 3] = lt
            tasks[t, 4] = row_at[producer] if producer >= 0 else -1
            tasks[t, 5] = max(producer, 0)
            tasks[t, 6] = row_at[t]
            tasks[t, 7] = t
            tasks[t, 8] = row_at[lt]
    return tasks, last_row, exon_start, row_at[T]


def build_plan(cases: Sequence[TestCase], rows_per_lane: int, fused_entry: bool = False) -> Plan:
    C = len(cases)
    K = np.fromiter((c.K for c in cases), dtype=np.int64, count=C)
    first = np.concatenate([c.first_sorted for c in cases])
    last = np.concatenate([c.last_sorted for c in cases])
    base, base_off, target, tgt_off = _pack_sequences(cases)
    n = np.fromiter((c.n for c in cases), dtype=np.int64, count=C)
    tasks, last_row, exon_start, rows_size = _plan_tasks(
        K, first, last, n, round_up(n + 1), tgt_off, base_off, WARP * rows_per_lane, fused_entry)
    if rows_size >= 2**31 or base.size >= 2**31:
        raise ValueError("batch too large for 32-bit offsets; split it (see launch.batches)")
    return Plan(tasks, base, target, int(rows_size), np.repeat(np.arange(C), K), exon_start,
                last_row, n)
