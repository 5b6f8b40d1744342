"""Public peers computing the same scores (optional extras), as solvers and test oracles.

Both take a linear gap g as gap open = gap extend = g (a gap of length L costs
open + (L-1)*extend; SPEC-workloads, shared conventions). parasail runs its ``scan`` kernels
(the striped ones give wrong scores when open = extend), with the saturation-checked profile
(8, then 16, then 32 bits); pyopal searches the whole database in one call.
"""

from __future__ import annotations

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.registry import import_peer
from splicedalign.workloads.sw.matrices import matrix
from splicedalign.workloads.sw.records import Database, Query, Scoring


def _letters(scoring: Scoring) -> np.ndarray:
    return np.frombuffer(matrix(scoring.matrix)[0].encode(), dtype=np.uint8)


def texts(db: Database, scoring: Scoring) -> list[bytes]:
    """The database as letter strings of the matrix's alphabet."""
    raw = _letters(scoring)[db.codes].tobytes()
    offsets = db.offsets.tolist()
    return [raw[a:b] for a, b in zip(offsets[:-1], offsets[1:])]


def text(query: Query, scoring: Scoring) -> bytes:
    return _letters(scoring)[query.codes].tobytes()


class PyopalSolver:
    name = "pyopal"

    def __init__(self) -> None:
        self.pyopal = import_peer("pyopal")

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        q, seqs = text(query, scoring), texts(db, scoring)
        if b"*" in q or any(b"*" in t for t in seqs):
            raise SolverUnavailable("pyopal cannot encode '*' (its alphabet check rejects it): input has stops")
        aligner = self.pyopal.Aligner(scoring.matrix.upper(), gap_open=scoring.gap, gap_extend=scoring.gap)
        results = aligner.align(q, self.pyopal.Database(seqs, alphabet=aligner.alphabet))
        return np.array([r.score for r in results], dtype=np.int64)


class ParasailSolver:
    name = "parasail"

    def __init__(self) -> None:
        self.parasail = import_peer("parasail")

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        ps = self.parasail
        profile = ps.profile_create_sat(text(query, scoring).decode(), getattr(ps, scoring.matrix.lower()))
        g = scoring.gap
        return np.array([ps.sw_scan_profile_sat(profile, t.decode(), g, g).score for t in texts(db, scoring)],
                        dtype=np.int64)
