"""Peers registered as solvers: ``pywfa`` (WFA2-lib: gap-linear or gap-affine, end-to-end for
global mode, ends-free with the text's (b's) ends free for prefix and infix).

WFA2 needs match 0 and positive mismatch and gap-extend costs; it returns minus the cost. In
ends-free mode its CIGAR covers the free letters of b as insertions: they are cut off here and
give the region. Letters
are handed over as the codes' letters with a wildcard of a written 'N' and one of b written 'R',
so a wildcard never matches there either (as in ``records``). edlib computes unit-cost edit
distance only, so it is not a solver for these costs; the tests use it as a unit-cost oracle.
"""

from __future__ import annotations

import time

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.registry import import_peer
from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Costs, Pair, Result, check_mode

A_LETTERS = np.frombuffer(b"ACGTN", dtype=np.uint8)
B_LETTERS = np.frombuffer(b"ACGTNR", dtype=np.uint8)
# pywfa's cigartuples use the pysam codes (0 M for a match there, 7 =, 8 X, 1 I, 2 D); its
# pattern is a and its text b, so its D is a letter of a against a gap, as ours.
_PYSAM_TO_OP = {0: OP_MATCH, 7: OP_MATCH, 8: OP_MISMATCH, 2: OP_DEL, 1: OP_INS}


def letters(codes: np.ndarray, alphabet: np.ndarray) -> str:
    return alphabet[codes].tobytes().decode("ascii")


def pywfa_model(costs: Costs) -> dict:
    """pywfa's cost arguments (match 0 is passed apart)."""
    if costs.affine:
        return dict(distance="affine", mismatch=costs.mismatch, gap_opening=costs.gap_open,
                    gap_extension=costs.indel)
    return dict(distance="linear", mismatch=costs.mismatch, gap_extension=costs.indel)


def pywfa_aligned(a: str, b: str, model: dict, traceback: bool):
    """A new pywfa aligner of ``a`` (its pattern) with the costs ``model`` (``pywfa_model``),
    end to end, after its wavefront_align of ``b`` (its text), as a user of pywfa meets it: its
    score is minus the cost; ``traceback`` has WFA2 make the CIGAR (scope full), else the score
    only. The benchmarks' pywfa peer (single pairs and batches)."""
    import pywfa

    aligner = pywfa.WavefrontAligner(a, match=0, span="end-to-end", scope="full" if traceback else "score", **model)
    aligner.wavefront_align(b)
    return aligner


def pywfa_score(job: tuple[str, str, dict, bool]) -> int:
    """One pair (a's letters, b's, ``pywfa_model``, traceback) by ``pywfa_aligned``: its score.
    A module-level function, so a process pool's workers take it by name (the batch peer on
    all cores in benchmarks/nw.py and scripts/device_nw_batch.py)."""
    return -int(pywfa_aligned(*job).score)


class PywfaSolver:
    name = "pywfa"

    def __init__(self) -> None:
        self._aligner = import_peer("pywfa").WavefrontAligner

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True, mode: str = "global") -> Result:
        check_mode(mode)
        if costs.match != 0 or costs.mismatch <= 0 or costs.indel <= 0:
            raise SolverUnavailable("pywfa needs match cost 0 and positive mismatch and gap-extend costs")
        t0 = time.perf_counter()
        if mode == "global":
            span = dict(span="end-to-end")
        else:
            span = dict(span="ends-free", pattern_begin_free=0, pattern_end_free=0,
                        text_begin_free=pair.m if mode == "infix" else 0, text_end_free=pair.m)
        aligner = self._aligner(letters(pair.a, A_LETTERS), match=0,
                                scope="full" if traceback or mode != "global" else "score", **pywfa_model(costs),
                                **span)
        status = aligner.wavefront_align(letters(pair.b, B_LETTERS))
        tuples = aligner.cigartuples if traceback or mode != "global" else None
        failed, score = aligner.status, -int(aligner.score)
        del aligner  # (its teardown, WFA2 freeing its wavefronts, is pywfa's work a pair: 0.4-9.6 ms at 10^5)
        # Result.seconds: pywfa's own work, its CIGAR as it gives it; the operations below are this
        # adapter's (as np.full arrays a run they were 25-47% of the whole call at 10^5 on the CPU host)
        seconds = time.perf_counter() - t0
        if failed != 0:
            raise RuntimeError(f"pywfa failed on {pair.name}: status {failed} ({status})")
        start, end, cigar = 0, pair.m, None
        if tuples is not None:
            codes = np.array([_PYSAM_TO_OP[code] for code, _ in tuples], dtype=np.int8)
            joined = np.repeat(codes, np.array([length for _, length in tuples], dtype=np.int64))
            if mode != "global":
                kept = np.flatnonzero(joined != OP_INS)
                first, last = (kept[0], kept[-1] + 1) if kept.size else (0, 0)
                lead = first if mode == "infix" else 0
                start, end = int(lead), int(pair.m - (joined.size - last))
                joined = joined[lead:last]
            cigar = cigar_string(joined) if traceback else None
        return Result(score, pair.cells, self.name, seconds, cigar, start, end, algorithm="wfa")
