"""Public peers computing the same scores (optional extras), as solvers and test oracles.

Both charge a gap of length L ``open + (L-1) * extend`` (SPEC-workloads, shared conventions),
so our BLAST-convention costs (o + L e) go in as open = o + e, extend = e (a linear gap g as
open = extend = g). parasail runs its ``scan`` kernels (the striped ones give wrong scores when
open = extend) with the 16-bit profile where every score provably fits (records.fits_int16),
else 32 bits, one core; pyopal searches the whole database with ``pyopal.align`` on all cores
(its threaded entry point; ``Aligner.align`` runs one thread).
"""

from __future__ import annotations

import os

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.registry import import_peer
from splicedalign.workloads.sw.matrices import matrix
from splicedalign.workloads.sw.records import Database, Query, Scoring, fits_int16


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

    def __init__(self, threads: int = 0) -> None:
        self.pyopal = import_peer("pyopal")
        self.threads = threads or os.cpu_count() or 1

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        q, seqs = text(query, scoring), texts(db, scoring)
        if b"*" in q or any(b"*" in t for t in seqs):
            raise SolverUnavailable("pyopal cannot encode '*' (its alphabet check rejects it): input has stops")
        out = np.zeros(len(seqs), dtype=np.int64)
        for r in self.pyopal.align(q, seqs, scoring.matrix.upper(), gap_open=scoring.first_gap,
                                   gap_extend=scoring.gap_extend, threads=self.threads):
            out[r.target_index] = r.score
        return out


class ParasailSolver:
    name = "parasail"

    def __init__(self) -> None:
        self.parasail = import_peer("parasail")

    def scores(self, query: Query, db: Database, scoring: Scoring) -> np.ndarray:
        ps = self.parasail
        qtext = text(query, scoring).decode()
        mat = getattr(ps, scoring.matrix.lower())
        narrow = fits_int16(scoring, query.length, db.lengths)
        profiles = {True: ps.profile_create_16(qtext, mat), False: ps.profile_create_32(qtext, mat)}
        kernels = {True: ps.sw_scan_profile_16, False: ps.sw_scan_profile_32}
        o, e = scoring.first_gap, scoring.gap_extend
        return np.array([kernels[bool(f)](profiles[bool(f)], t.decode(), o, e).score
                         for t, f in zip(texts(db, scoring), narrow.tolist())], dtype=np.int64)
