"""The wavefront algorithm (wfa_kernels) as a function of a pair, costs and mode: exact, with a
time that grows with the score rather than the area. It applies to costs with match 0 and
positive mismatch and gap-extend costs (WFA2's); the costs are divided by their greatest common
divisor first (fewer, denser wavefronts) and the score multiplied back. The caller bounds the
work (diagonals visited) and the memory kept for the traceback: beyond either it gives up
(None) and the caller runs the DP instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from splicedalign.workloads.nw.records import Costs, check_mode
from splicedalign.workloads.nw.wfa_kernels import DONE, wfa_align_codes

KEPT_BYTES = 1 << 31  # the kept source bytes (one a diagonal) of one traceback, at most


@dataclass(frozen=True)
class WfaAnswer:
    score: int
    start2: int
    end2: int
    ops: np.ndarray | None
    visited: int  # diagonals visited (the work)


def applicable(costs: Costs) -> bool:
    return costs.match == 0 and costs.mismatch > 0 and costs.indel > 0


def reduced_costs(costs: Costs) -> tuple[int, int, int, int]:
    """(g, x, o, e): the mismatch, gap-open and gap-extend costs divided by their gcd g (``Costs.reduced``)."""
    return costs.reduced


def wfa_align(a: np.ndarray, b: np.ndarray, costs: Costs, mode: str, traceback: bool, work_cap: int,
              kept_bytes: int = KEPT_BYTES, gap_start: bool = False) -> WfaAnswer | None:
    """The optimal score (and alignment) of a and b in ``mode``, or None when the work or the
    memory would exceed the caps. ``gap_start`` (infix mode only): a start on row 0 may also lie
    inside a gap of a's letters, a leading D run then costing no gap-open (wfa_kernels' doc)."""
    check_mode(mode, gap_start)
    g, x, o, e = reduced_costs(costs)
    infix = mode == "infix"
    status, score, end_h, visited, ops, start = wfa_align_codes(
        a, b, x, o, e, infix, gap_start, mode != "global", traceback, work_cap, kept_bytes)
    if status != DONE:
        return None
    return WfaAnswer(int(score) * g, int(start), int(end_h), ops if traceback else None, int(visited))
