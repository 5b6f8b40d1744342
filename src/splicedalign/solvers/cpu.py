"""The compiled CPU solvers: ``sequential`` (the baseline of every speedup) and ``multicore``."""

from __future__ import annotations

import numpy as np

from splicedalign.case import Scoring, TestCase
from splicedalign.model import groups
from splicedalign.solvers.base import LastRowSolver
from splicedalign.solvers.kernels_cpu import grouped_last_rows, sequential_last_rows


def _by_last(case: TestCase) -> np.ndarray:
    return np.argsort(case.last_sorted, kind="stable")


class SequentialSolver(LastRowSolver):
    """One core, exons in order, O(n) predecessor fold, only last rows kept."""

    name = "sequential"

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        rows = np.empty((case.K, case.n + 1), dtype=prof.dtype)
        sequential_last_rows(
            case.base_codes, prof, case.first_sorted, case.last_sorted, _by_last(case),
            prof.dtype.type(scoring.gap), rows,
        )
        return rows


class MulticoreSolver(LastRowSolver):
    """The exons of each group (SPEC §3) on all cores (numba threads), groups in order."""

    name = "multicore"

    def last_rows(self, case: TestCase, scoring: Scoring, prof: np.ndarray) -> np.ndarray:
        sizes = [len(g) for g in groups(case.first_sorted, case.last_sorted)]
        group_start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        rows = np.empty((case.K, case.n + 1), dtype=prof.dtype)
        grouped_last_rows(
            case.base_codes, prof, case.first_sorted, case.last_sorted, _by_last(case),
            group_start, prof.dtype.type(scoring.gap), rows,
        )
        return rows
