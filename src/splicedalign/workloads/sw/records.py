"""Typed records of a database search: scoring, the encoded database, hits and results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import FastaRecord
from splicedalign.workloads.sw.matrices import encode, matrix, max_score, padded_table

DEFAULT_GAP = 4  # paper 003: subtracted per gap letter


@dataclass(frozen=True)
class Scoring:
    """A substitution matrix and a linear gap ``gap`` (> 0), subtracted per gap letter."""

    matrix: str = "blosum62"
    gap: int = DEFAULT_GAP

    def __post_init__(self) -> None:
        matrix(self.matrix)  # unknown names are bad input
        if self.gap <= 0:
            raise InputError("--gap", f"gap must be a positive integer, got {self.gap}")

    @property
    def table(self) -> np.ndarray:
        """CODES x CODES int32 scores (matrices.padded_table)."""
        return padded_table(self.matrix)

    @property
    def max_score(self) -> int:
        return max_score(self.matrix)


@dataclass(frozen=True)
class Query:
    id: str
    codes: np.ndarray  # uint8 codes (matrices.encode)

    @property
    def length(self) -> int:
        return int(self.codes.size)


@dataclass(frozen=True)
class Database:
    """Sequences concatenated: sequence k is ``codes[offsets[k]:offsets[k + 1]]``."""

    ids: tuple[str, ...]
    codes: np.ndarray  # uint8
    offsets: np.ndarray  # int64, len(ids) + 1, offsets[0] == 0

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def residues(self) -> int:
        return int(self.offsets[-1])

    def __len__(self) -> int:
        return len(self.ids)

    def seq(self, k: int) -> np.ndarray:
        return self.codes[self.offsets[k]: self.offsets[k + 1]]

    def subset(self, a: int, b: int) -> "Database":
        """Sequences a..b-1 (views of the codes)."""
        return Database(self.ids[a:b], self.codes[self.offsets[a]: self.offsets[b]],
                        self.offsets[a: b + 1] - self.offsets[a])

    def chunks(self, residues: int) -> list[tuple[int, int]]:
        """Consecutive ranges [a, b) of sequence indices of about ``residues`` residues each."""
        cuts = np.searchsorted(self.offsets, np.arange(residues, self.residues, residues))
        bounds = np.unique(np.concatenate([[0], cuts, [len(self)]]))
        return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))

    @classmethod
    def from_codes(cls, ids: Sequence[str], seqs: Sequence[np.ndarray]) -> "Database":
        if len(ids) != len(seqs):
            raise ValueError("one id per sequence")
        lengths = np.fromiter((s.size for s in seqs), dtype=np.int64, count=len(seqs))
        offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        codes = np.concatenate(seqs).astype(np.uint8) if seqs else np.zeros(0, np.uint8)
        return cls(tuple(ids), codes, offsets)

    @classmethod
    def from_records(cls, records: Sequence[FastaRecord], matrix_name: str = "blosum62",
                     source: str = "<db>") -> "Database":
        return cls.from_codes([r.id for r in records],
                              [encode(r.seq, matrix_name, source, r.id) for r in records])


def query_from_record(record: FastaRecord, matrix_name: str = "blosum62", source: str = "<query>") -> Query:
    return Query(record.id, encode(record.seq, matrix_name, source, record.id))


@dataclass(frozen=True)
class Hit:
    id: str
    length: int
    score: int


@dataclass(frozen=True)
class SearchResult:
    """Scores of one query against every database sequence (database order)."""

    query: str
    query_length: int
    hits: tuple[Hit, ...]
    cells: int
    solver: str
    seconds: float
    extra: dict = field(default_factory=dict)

    def ranked(self, top: int | None = None) -> list[Hit]:
        """Hits by score, best first (ties in database order), cut to ``top``."""
        order = sorted(range(len(self.hits)), key=lambda k: -self.hits[k].score)
        return [self.hits[k] for k in order[:top]]


INT16_MAX = 32767


def fits_int16(scoring: Scoring, m: int, lengths: np.ndarray) -> np.ndarray:
    """Pairs whose every H provably fits 16 bits: a local alignment gains at most max_sbt per
    letter pair, so H <= max_sbt * min(m, n); the lowest intermediate, PAD_SCORE - gap, fits
    as well."""
    return scoring.max_score * np.minimum(m, np.asarray(lengths)) <= INT16_MAX


def cells(query: Query, db: Database) -> int:
    return query.length * db.residues
