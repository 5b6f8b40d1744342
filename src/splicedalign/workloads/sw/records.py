"""Typed records of a database search: scoring, the encoded database, hits and results."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import FastaRecord
from splicedalign.workloads.sw.matrices import encode, matrix, max_score, padded_table
from splicedalign.workloads.sw.statistics import Karlin, default_gaps, karlin

DEFAULT_GAP = 4  # paper 003: subtracted per gap letter


@dataclass(frozen=True)
class Scoring:
    """A substitution matrix and affine gap costs in BLAST's convention: a gap of length L costs
    ``gap_open + L * gap_extend`` (SPEC-workloads C2). A linear gap g is open 0, extend g
    (``Scoring.linear``); the default is the paper's linear 4 with BLOSUM62, the command line's
    is the matrix's BLAST default (``Scoring.blast``, e.g. BLOSUM62 11/1)."""

    matrix: str = "blosum62"
    gap_open: int = 0
    gap_extend: int = DEFAULT_GAP

    def __post_init__(self) -> None:
        matrix(self.matrix)  # unknown names are bad input
        if self.gap_extend <= 0:
            raise InputError("--gap-extend", f"gap extension must be a positive integer, got {self.gap_extend}")
        if self.gap_open < 0:
            raise InputError("--gap-open", f"gap open must be >= 0, got {self.gap_open}")
        if self.gap_open + self.gap_extend > 1000:
            raise InputError("--gap-open", "gap costs above 1000 are not supported")

    @classmethod
    def linear(cls, gap: int = DEFAULT_GAP, matrix_name: str = "blosum62") -> Scoring:
        return cls(matrix_name, 0, gap)

    @classmethod
    def blast(cls, matrix_name: str = "blosum62") -> Scoring:
        """The matrix with BLAST's default gap costs for it."""
        matrix(matrix_name)  # unknown names are bad input
        return cls(matrix_name.lower(), *default_gaps(matrix_name))

    @property
    def affine(self) -> bool:
        return self.gap_open > 0

    @property
    def first_gap(self) -> int:
        """Cost of a gap's first letter, open + extend (the linear gap when open is 0)."""
        return self.gap_open + self.gap_extend

    @property
    def table(self) -> np.ndarray:
        """CODES x CODES int32 scores (matrices.padded_table)."""
        return padded_table(self.matrix)

    @property
    def max_score(self) -> int:
        return max_score(self.matrix)

    @property
    def karlin(self) -> Karlin:
        return karlin(self.matrix, self.gap_open, self.gap_extend)

    def describe(self) -> str:
        if self.affine:
            return f"{self.matrix.upper()}, gap {self.gap_open} + {self.gap_extend} per letter"
        return f"{self.matrix.upper()}, linear gap {self.gap_extend}"


@dataclass(frozen=True)
class Query:
    id: str
    codes: np.ndarray  # uint8 codes (matrices.encode)

    @property
    def length(self) -> int:
        return int(self.codes.size)


def longest_first(lengths: np.ndarray) -> np.ndarray:
    """Indices by decreasing length, ties in database order (radix sort on 16-bit keys when
    every length fits: ~20x faster than a comparison sort on 100,000 sequences)."""
    if lengths.size and lengths.max() < 2**16:
        return np.argsort((2**16 - 1 - lengths).astype(np.uint16), kind="stable")
    return np.argsort(-lengths, kind="stable")


@dataclass(frozen=True)
class Database:
    """Sequences concatenated: sequence k is ``codes[offsets[k]:offsets[k + 1]]``."""

    ids: tuple[str, ...]
    codes: np.ndarray  # uint8
    offsets: np.ndarray  # int64, len(ids) + 1, offsets[0] == 0
    order: np.ndarray | None = field(default=None, compare=False)  # longest first, when prepared

    def longest_first(self) -> np.ndarray:
        return self.order if self.order is not None else longest_first(self.lengths)

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

    def subset(self, a: int, b: int) -> Database:
        """Sequences a..b-1 (views of the codes)."""
        return Database(self.ids[a:b], self.codes[self.offsets[a]: self.offsets[b]],
                        self.offsets[a: b + 1] - self.offsets[a])

    def chunks(self, residues: int, first: int | None = None) -> list[tuple[int, int]]:
        """Consecutive ranges [a, b) of sequence indices of about ``residues`` residues each
        (the first of about ``first`` when given)."""
        first = residues if first is None else first
        cuts = np.searchsorted(self.offsets, np.arange(first, self.residues, residues))
        bounds = np.unique(np.concatenate([[0], cuts, [len(self)]]))
        return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))

    @classmethod
    def from_codes(cls, ids: Sequence[str], seqs: Sequence[np.ndarray]) -> Database:
        if len(ids) != len(seqs):
            raise ValueError("one id per sequence")
        lengths = np.fromiter((s.size for s in seqs), dtype=np.int64, count=len(seqs))
        offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        codes = np.concatenate(seqs).astype(np.uint8) if seqs else np.zeros(0, np.uint8)
        return cls(tuple(ids), codes, offsets)

    @classmethod
    def from_records(cls, records: Sequence[FastaRecord], matrix_name: str = "blosum62",
                     source: str = "<db>") -> Database:
        """All records encoded at once (one joined string through the letter table; the
        records were checked as they were read, matrices.validator)."""
        lengths = np.fromiter((len(r.seq) for r in records), dtype=np.int64, count=len(records))
        offsets = np.zeros(len(records) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        codes = encode("".join(r.seq for r in records), matrix_name, source, "the database")
        return cls(tuple(r.id for r in records), codes, offsets)


def query_from_record(record: FastaRecord, matrix_name: str = "blosum62", source: str = "<query>") -> Query:
    return Query(record.id, encode(record.seq, matrix_name, source, record.id))


@dataclass(frozen=True)
class Alignment:
    """One optimal local alignment of a hit: 1-based inclusive ranges and a CIGAR over ``=``,
    ``X``, ``D`` (a query letter against a gap) and ``I`` (a database letter against a gap)."""

    score: int
    qstart: int
    qend: int
    sstart: int
    send: int
    cigar: str

    def ops(self) -> list[tuple[int, str]]:
        return [(int(n), op) for n, op in re.findall(r"(\d+)([=XDI])", self.cigar)]

    @property
    def columns(self) -> int:
        return sum(n for n, _ in self.ops())

    def count(self, kind: str) -> int:
        return sum(n for n, op in self.ops() if op == kind)

    @property
    def gap_opens(self) -> int:
        return sum(1 for _, op in self.ops() if op in "DI")


@dataclass(frozen=True)
class Hit:
    """A reported database sequence: its score, statistics and one optimal alignment."""

    index: int  # in database order
    id: str
    length: int
    score: int
    evalue: float
    bitscore: float
    alignment: Alignment | None = None


@dataclass(frozen=True)
class SearchResult:
    """One query against the database: every score (database order) and the reported hits
    (best first, ties in database order, at most ``--top``, E-value at most ``--evalue``)."""

    query: str
    query_length: int
    scores: np.ndarray  # int64, one per database sequence
    hits: tuple[Hit, ...]
    cells: int
    solver: str
    seconds: float
    extra: dict = field(default_factory=dict)


def ranked(scores: np.ndarray, top: int | None = None) -> np.ndarray:
    """Indices of the ``top`` best scores, best first, ties in database order; O(n) selection
    then a sort of the selected."""
    n = scores.size
    if top is None or top >= n:
        return np.lexsort((np.arange(n), -scores))
    if top <= 0:
        return np.zeros(0, dtype=np.int64)
    cut = np.partition(scores, n - top)[n - top]  # the top-th largest score
    above = np.flatnonzero(scores > cut)
    tied = np.flatnonzero(scores == cut)[: top - above.size]
    chosen = np.concatenate([above, tied])
    return chosen[np.lexsort((chosen, -scores[chosen]))]


INT16_MAX = 32767


def fits_int16(scoring: Scoring, m: int, lengths: np.ndarray) -> np.ndarray:
    """Pairs whose every H provably fits 16 bits: a local alignment gains at most max_sbt per
    letter pair, so H <= max_sbt * min(m, n); the lowest intermediates, PAD_SCORE minus the gap
    costs (Scoring caps them at 1000), fit as well."""
    return scoring.max_score * np.minimum(m, np.asarray(lengths)) <= INT16_MAX


def cells(query: Query, db: Database) -> int:
    return query.length * db.residues
