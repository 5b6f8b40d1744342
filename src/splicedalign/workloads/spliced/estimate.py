"""The paper's performance-estimation model and potential-parallelism statistics (SPEC §3-5).

Pure functions over exon intervals; the unit of every estimate is the time of one cell.
Intervals are given as parallel sequences ``first``/``last`` (1-based, inclusive); they are
sorted by (first, last) here, as the solvers sort them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from splicedalign.workloads.spliced.records import TestCase

INTRA_BIN = 32  # exon-length bin width of the intra-exon histogram (paper Fig. 7)


def _sorted(first: Sequence[int], last: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    f = np.asarray(first, dtype=np.int64)
    l = np.asarray(last, dtype=np.int64)
    order = np.lexsort((l, f))
    return f[order], l[order]


def groups(first: Sequence[int], last: Sequence[int]) -> list[list[int]]:
    """The paper's greedy grouping (thesis Fig. 6.6), as positions in (first, last) order.

    An exon joins the open group while it starts before every member ends, so no member can
    precede another in a chain: the group's matrices are independent.
    """
    f, l = (a.tolist() for a in _sorted(first, last))  # Python ints: the loop below runs 3x faster
    out: list[list[int]] = []
    i, K = 0, len(f)
    while i < K:
        group = [i]
        bound = l[i]
        i += 1
        while i < K and f[i] < bound:
            group.append(i)
            bound = min(bound, l[i])
            i += 1
        out.append(group)
    return out


def exon_lengths(first: Sequence[int], last: Sequence[int]) -> np.ndarray:
    return np.asarray(last, dtype=np.int64) - np.asarray(first, dtype=np.int64) + 1


def cells(n: int, first: Sequence[int], last: Sequence[int]) -> int:
    """n * Σ|b_k|."""
    return int(n * exon_lengths(first, last).sum())


def est_seq(n: int, first: Sequence[int], last: Sequence[int]) -> int:
    """Eq. 3: one cell at a time."""
    return cells(n, first, last)


def est_intra(n: int, first: Sequence[int], last: Sequence[int]) -> int:
    """Eq. 4: each exon's anti-diagonals one at a time, exons one after another."""
    return int((exon_lengths(first, last) + n - 1).sum())


def est_intra_inter(n: int, first: Sequence[int], last: Sequence[int],
                    grp: list[list[int]] | None = None) -> int:
    """Eq. 5: groups one after another, the exons of a group side by side (``grp``: the
    groups of ``first``/``last`` when the caller has them)."""
    f, l = _sorted(first, last)
    lengths = (l - f + 1).tolist()
    return sum(max(lengths[i] for i in g) + n - 1 for g in (groups(f, l) if grp is None else grp))


def intra_histogram(first: Sequence[int], last: Sequence[int]) -> dict[int, float]:
    """% of exons per length bin of 32 (key b: lengths 32*(b-1)+1 .. 32*b)."""
    lengths = exon_lengths(first, last)
    counts = Counter(((lengths - 1) // INTRA_BIN + 1).tolist())
    return {b: 100.0 * c / len(lengths) for b, c in sorted(counts.items())}


def inter_histogram(first: Sequence[int], last: Sequence[int]) -> dict[int, float]:
    """% of groups with g exons, g = 1, 2, ..."""
    sizes = Counter(len(g) for g in groups(first, last))
    total = sum(sizes.values())
    return {g: 100.0 * c / total for g, c in sorted(sizes.items())}


def average_histogram(histograms: Sequence[dict[int, float]]) -> dict[int, float]:
    """The paper's "average test case": the mean over cases, a missing bin counting 0 %."""
    keys = sorted({k for h in histograms for k in h})
    return {k: sum(h.get(k, 0.0) for h in histograms) / len(histograms) for k in keys}


@lru_cache(maxsize=1024)
def _exon_set(key: bytes) -> tuple[int, int, int, int, int]:
    """(K, Σ|b_k|, groups, largest group, Σ over groups of the longest member) of the exon set
    whose first and last positions ``key`` holds (int64, first then last, in any order): what
    the model's numbers need of the exons, whatever n (a base's cases share their exons)."""
    f, l = _sorted(*np.frombuffer(key, dtype=np.int64).reshape(2, -1))
    lengths = (l - f + 1).tolist()
    grp = groups(f, l)
    return (len(lengths), sum(lengths), len(grp), max(len(g) for g in grp),
            sum(max(lengths[i] for i in g) for g in grp))


def case_stats(n: int, first: Sequence[int], last: Sequence[int]) -> dict[str, float]:
    """The model's per-case numbers, as tables and JSON output report them (est_intra: Σ(|b_k| +
    n - 1); est_intra_inter: Σ over groups of (the longest member + n - 1)). The exons in any
    order: a set given again in the same order (a base's cases share their exon table) is
    neither sorted nor grouped again."""
    f, l = np.asarray(first, dtype=np.int64), np.asarray(last, dtype=np.int64)
    K, length_sum, G, largest, longest_sum = _exon_set(f.tobytes() + l.tobytes())
    return {
        "K": K,
        "exon_length_sum": length_sum,
        "cells": n * length_sum,
        "groups": G,
        "mean_group_size": K / G,
        "max_group_size": largest,
        "est_seq": n * length_sum,
        "est_intra": length_sum + K * (n - 1),
        "est_intra_inter": longest_sum + G * (n - 1),
    }


def case_stats_of(case: TestCase) -> dict[str, float]:
    """``case_stats`` of a case, from its exons' bounds as given (input order): a base's cases
    share one exon table, so its numbers are worked out once, and no case sorts its exons."""
    bounds = case.bounds
    return case_stats(case.n, bounds[:, 0], bounds[:, 1])
