"""Peers registered as solvers: ``pywfa`` (WFA2-lib, gap-linear end-to-end = section B exactly).

WFA2 needs match 0 and positive mismatch and indel costs; it returns minus the cost. Letters
are handed over as the codes' letters with a wildcard of a written 'N' and one of b written 'R',
so a wildcard never matches there either (as in ``records``). edlib computes unit-cost edit
distance only, so it is not a solver for these costs; the tests use it as a unit-cost oracle.
"""

from __future__ import annotations

import time

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.registry import import_peer
from splicedalign.workloads.nw.records import (OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Costs, Pair, Result,
                                               cigar_string)

A_LETTERS = np.frombuffer(b"ACGTN", dtype=np.uint8)
B_LETTERS = np.frombuffer(b"ACGTNR", dtype=np.uint8)
# pywfa's cigartuples use the pysam codes (0 M for a match there, 7 =, 8 X, 1 I, 2 D); its
# pattern is a and its text b, so its D is a letter of a against a gap, as ours.
_PYSAM_TO_OP = {0: OP_MATCH, 7: OP_MATCH, 8: OP_MISMATCH, 2: OP_DEL, 1: OP_INS}


def letters(codes: np.ndarray, alphabet: np.ndarray) -> str:
    return alphabet[codes].tobytes().decode("ascii")


class PywfaSolver:
    name = "pywfa"

    def __init__(self) -> None:
        self._aligner = import_peer("pywfa").WavefrontAligner

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True) -> Result:
        if costs.match != 0 or costs.mismatch <= 0 or costs.indel <= 0:
            raise SolverUnavailable("pywfa needs match cost 0 and positive mismatch and indel costs")
        t0 = time.perf_counter()
        aligner = self._aligner(letters(pair.a, A_LETTERS), distance="linear", match=0,
                                mismatch=costs.mismatch, gap_extension=costs.indel,
                                span="end-to-end", scope="full" if traceback else "score")
        status = aligner.wavefront_align(letters(pair.b, B_LETTERS))
        seconds = time.perf_counter() - t0
        if aligner.status != 0:
            raise RuntimeError(f"pywfa failed on {pair.name}: status {aligner.status} ({status})")
        cigar = None
        if traceback:
            ops = [np.full(length, _PYSAM_TO_OP[code], dtype=np.int8) for code, length in aligner.cigartuples]
            cigar = cigar_string(np.concatenate(ops) if ops else np.zeros(0, dtype=np.int8))
        return Result(-int(aligner.score), pair.cells, self.name, seconds, cigar)
