"""Typed records of the global-alignment workload (SPEC-workloads section B).

``a`` (seq1) indexes the rows and ``b`` (seq2) the columns of the cost table
``D[i][j] = min(D[i-1][j-1] + sub(a_i, b_j), D[i-1][j] + indel, D[i][j-1] + indel)`` with
``D[0][j] = indel * j`` and ``D[i][0] = indel * i``; the score is ``D[|a|][|b|]`` (a cost: lower is
better). Sequences are stored as the nucleotide codes of ``core.alphabet``: ``a`` with base codes
and ``b`` with target codes, so an IUPAC ambiguity letter never matches anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from splicedalign.core.alphabet import encode_base, encode_target
from splicedalign.core.errors import InputError

# CIGAR operations (SAM letters): '=' match, 'X' mismatch, 'D' a letter of a (seq1) against a
# gap, 'I' a letter of b (seq2) against a gap. Solvers emit them as these small integer codes.
OP_MATCH, OP_MISMATCH, OP_DEL, OP_INS = 0, 1, 2, 3
OP_LETTERS = "=XDI"
COST_LIMIT = 1_000_000  # |cost| bound: keeps every score of a 10^6 x 10^6 pair far inside int64


@dataclass(frozen=True)
class Costs:
    """Costs of the minimum-cost global alignment (the paper's code: 0, 1, 3)."""

    match: int = 0
    mismatch: int = 1
    indel: int = 3

    def __post_init__(self) -> None:
        for name in ("match", "mismatch", "indel"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise InputError(f"--{name}", f"cost must be an integer, got {value!r}")
            if abs(int(value)) > COST_LIMIT:
                raise InputError(f"--{name}", f"cost {value} is outside -{COST_LIMIT}..{COST_LIMIT}")

    def as_tuple(self) -> tuple[int, int, int]:
        return int(self.match), int(self.mismatch), int(self.indel)

    def bound(self, n: int, m: int) -> int:
        """An upper bound on |D[i][j]| over the whole table of an n x m pair."""
        return max(abs(self.match), abs(self.mismatch), abs(self.indel)) * (n + m)


@dataclass(frozen=True)
class Pair:
    """Two sequences to align: ``a`` = seq1 (rows), ``b`` = seq2 (columns), as codes."""

    name: str
    id1: str
    id2: str
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)

    @property
    def n(self) -> int:
        return int(self.a.size)

    @property
    def m(self) -> int:
        return int(self.b.size)

    @property
    def cells(self) -> int:
        return self.n * self.m

    @classmethod
    def from_strings(cls, seq1: str, seq2: str, name: str = "pair", id1: str = "seq1",
                     id2: str = "seq2") -> "Pair":
        """Encode two nucleotide strings (InputError naming the record on a bad letter)."""
        return cls(name, id1, id2, encode_base(seq1, id1, id1), encode_target(seq2, id2, id2))


@dataclass(frozen=True)
class Result:
    """One solve: the minimum cost and, unless score-only, an optimal CIGAR."""

    score: int
    cells: int
    solver: str
    seconds: float
    cigar: str | None = None

    @property
    def identity(self) -> float | None:
        """Matches over alignment columns (None without an alignment)."""
        if self.cigar is None:
            return None
        counts = cigar_counts(self.cigar)
        columns = sum(counts.values())
        return counts["="] / columns if columns else 1.0


def ops_cost(ops: np.ndarray, costs: Costs) -> int:
    """Cost of an alignment given as operation codes (the solvers' own form: the
    letters of '='/'X' steps are not checked; ``cigar_cost`` checks a CIGAR fully)."""
    counts = np.bincount(np.asarray(ops, dtype=np.int64), minlength=4)
    return int(counts[OP_MATCH] * costs.match + counts[OP_MISMATCH] * costs.mismatch
               + (counts[OP_DEL] + counts[OP_INS]) * costs.indel)


def cigar_string(ops: np.ndarray) -> str:
    """Run-length CIGAR of an array of operation codes (OP_*), in alignment order."""
    ops = np.asarray(ops, dtype=np.int64)
    if ops.size == 0:
        return ""
    starts = np.flatnonzero(np.r_[True, ops[1:] != ops[:-1]])
    lengths = np.diff(np.r_[starts, ops.size])
    return "".join(f"{n}{OP_LETTERS[ops[s]]}" for s, n in zip(starts, lengths))


def parse_cigar(cigar: str) -> list[tuple[int, str]]:
    """(length, letter) runs of a CIGAR over '=XDI'; ValueError on anything else."""
    runs: list[tuple[int, str]] = []
    number = ""
    for ch in cigar:
        if ch.isdigit():
            number += ch
        elif ch in OP_LETTERS and number:
            runs.append((int(number), ch))
            number = ""
        else:
            raise ValueError(f"bad CIGAR {cigar!r} at {ch!r}")
    if number:
        raise ValueError(f"bad CIGAR {cigar!r}: trailing number")
    return runs


def cigar_counts(cigar: str) -> dict[str, int]:
    counts = dict.fromkeys(OP_LETTERS, 0)
    for length, letter in parse_cigar(cigar):
        counts[letter] += length
    return counts


def cigar_cost(cigar: str, a: np.ndarray, b: np.ndarray, costs: Costs) -> int:
    """Re-score a CIGAR against the two code arrays. Raises ValueError when the CIGAR does not
    consume both sequences exactly or calls a pair '=' that is not a match (or 'X' one that is)."""
    i = j = 0
    total = 0
    for length, letter in parse_cigar(cigar):
        if letter in "=X":
            if i + length > a.size or j + length > b.size:
                raise ValueError("CIGAR runs past the end of a sequence")
            equal = a[i:i + length] == b[j:j + length]
            if (letter == "=") != bool(equal.all()) or (letter == "X" and equal.any()):
                raise ValueError(f"CIGAR {letter} run at ({i}, {j}) disagrees with the letters")
            total += length * (costs.match if letter == "=" else costs.mismatch)
            i += length
            j += length
        elif letter == "D":
            i += length
            total += length * costs.indel
        else:
            j += length
            total += length * costs.indel
    if i != a.size or j != b.size:
        raise ValueError(f"CIGAR consumes {i} x {j} letters of a {a.size} x {b.size} pair")
    return total
