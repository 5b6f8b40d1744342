"""Typed records of the global-alignment workload (SPEC-workloads sections B and B2).

``a`` (seq1) indexes the rows and ``b`` (seq2) the columns. Costs are gap-affine in WFA2's
convention: a gap of length L costs ``gap_open + L * indel`` (``indel`` is the gap-extend cost;
``gap_open = 0`` is section B's linear cost, the paper's). Gotoh's recurrences with
``H = min(M, I, D)``: ``D[i][j] = min(H[i-1][j] + o + e, D[i-1][j] + e)``,
``I[i][j] = min(H[i][j-1] + o + e, I[i][j-1] + e)``, ``H[i][j] = min(H[i-1][j-1] + sub, D, I)``.
Modes (MODES): ``global`` (both whole), ``prefix`` (all of a against a prefix of b: trailing
letters of b free; edlib's SHW), ``infix`` (all of a against any substring of b; edlib's HW).
The score is a cost: lower is better. Sequences are stored as the nucleotide codes of
``core.alphabet``: ``a`` with base codes and ``b`` with target codes, so an IUPAC ambiguity
letter never matches anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from splicedalign.core.alphabet import encode_base, encode_target
from splicedalign.core.errors import InputError

# CIGAR operations (SAM letters): '=' match, 'X' mismatch, 'D' a letter of a (seq1) against a
# gap, 'I' a letter of b (seq2) against a gap. Solvers emit them as these small integer codes.
OP_MATCH, OP_MISMATCH, OP_DEL, OP_INS = 0, 1, 2, 3
OP_LETTERS = "=XDI"
MODES = ("global", "prefix", "infix")
COST_LIMIT = 1_000_000  # |cost| bound: keeps every score of a 10^6 x 10^6 pair far inside int64


@dataclass(frozen=True)
class Costs:
    """Costs of the minimum-cost alignment (the paper's code: 0, 1, 3 and no gap-open cost).
    A gap of length L costs ``gap_open + L * indel`` (WFA2's convention; ``indel`` = gap extend)."""

    match: int = 0
    mismatch: int = 1
    indel: int = 3
    gap_open: int = 0

    def __post_init__(self) -> None:
        for name in ("match", "mismatch", "indel", "gap_open"):
            value = getattr(self, name)
            flag = "--" + name.replace("_", "-")
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise InputError(flag, f"cost must be an integer, got {value!r}")
            if abs(int(value)) > COST_LIMIT:
                raise InputError(flag, f"cost {value} is outside -{COST_LIMIT}..{COST_LIMIT}")
        if self.gap_open < 0:
            raise InputError("--gap-open", f"gap-open cost {self.gap_open} is negative (Gotoh needs >= 0)")

    @property
    def affine(self) -> bool:
        return self.gap_open != 0

    def as_tuple(self) -> tuple[int, int, int]:
        """(match, mismatch, indel) of the linear kernels (valid when not ``affine``)."""
        return int(self.match), int(self.mismatch), int(self.indel)

    def as_affine(self) -> tuple[int, int, int, int]:
        """(match, mismatch, gap_open, gap_extend)."""
        return int(self.match), int(self.mismatch), int(self.gap_open), int(self.indel)

    @cached_property
    def reduced(self) -> tuple[int, int, int, int]:
        """(g, x, o, e): the mismatch, gap-open and gap-extend costs divided by their gcd g (the WFA's costs; made
        once a Costs: a single pair's guessed round asked for them ~6 times, ~0.35 us each of the development host)."""
        _, x, o, e = self.as_affine()
        g = math.gcd(math.gcd(x, o), e)
        return g, x // g, o // g, e // g

    def gap(self, length: int) -> int:
        """Cost of one gap of ``length`` letters (0 for none)."""
        return int(self.gap_open) + length * int(self.indel) if length else 0

    def as_dict(self) -> dict[str, int]:
        return {"match": int(self.match), "mismatch": int(self.mismatch), "gap_open": int(self.gap_open),
                "gap_extend": int(self.indel)}

    def bound(self, n: int, m: int) -> int:
        """An upper bound on |D[i][j]| over the whole table of an n x m pair."""
        return max(abs(self.match), abs(self.mismatch), abs(self.indel)) * (n + m) + 2 * abs(self.gap_open) * (n + m)


def check_mode(mode: str, gap_start: bool = False) -> str:
    """``mode``, one of MODES; ``gap_start`` (a start on row 0 inside a gap of a's letters: a
    leading D run costs no gap-open) is an option of infix mode alone (ValueError)."""
    if mode not in MODES:
        raise InputError("--mode", f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
    if gap_start and mode != "infix":
        raise ValueError(f"the gap start is an option of infix mode, not of {mode!r}")
    return mode


@dataclass(frozen=True)
class Pair:
    """Two sequences to align: ``a`` = seq1 (rows), ``b`` = seq2 (columns), as codes."""

    name: str
    id1: str
    id2: str
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)

    # (kept once read: the GPU solver's single-pair path read n and m ~34 times a solve, a property call ~0.1 us
    # each on the 2-core development host, a kept value ~0.015; the arrays of a frozen Pair keep their sizes)
    @cached_property
    def n(self) -> int:
        return int(self.a.size)

    @cached_property
    def m(self) -> int:
        return int(self.b.size)

    @cached_property
    def cells(self) -> int:
        return self.n * self.m

    @classmethod
    def from_strings(cls, seq1: str, seq2: str, name: str = "pair", id1: str = "seq1",
                     id2: str = "seq2") -> Pair:
        """Encode two nucleotide strings (InputError naming the record on a bad letter)."""
        return cls(name, id1, id2, encode_base(seq1, id1, id1), encode_target(seq2, id2, id2))


@dataclass(frozen=True)
class Result:
    """One solve: the minimum cost and, unless score-only, an optimal CIGAR over ``a`` (whole,
    in every mode) and ``b[start2:end2]`` (0-based, half-open; the whole of b in global mode).
    ``algorithm`` says which exact algorithm produced it (e.g. ``dp``, ``wfa``)."""

    score: int
    cells: int
    solver: str
    seconds: float
    cigar: str | None = None
    start2: int = 0
    end2: int | None = None
    algorithm: str = "dp"

    @property
    def identity(self) -> float | None:
        """Matches over alignment columns (None without an alignment)."""
        return None if self.cigar is None else identity_of(cigar_counts(self.cigar))


def identity_of(counts: dict[str, int]) -> float:
    """Matches over alignment columns of a CIGAR's letters per operation (``cigar_counts``; 1.0
    for an empty alignment)."""
    columns = sum(counts.values())
    return counts["="] / columns if columns else 1.0


def ops_cost(ops: np.ndarray, costs: Costs) -> int:
    """Cost of an alignment given as operation codes (the solvers' own form: the
    letters of '='/'X' steps are not checked; ``cigar_cost`` checks a CIGAR fully)."""
    ops = np.asarray(ops, dtype=np.int64)
    counts = np.bincount(ops, minlength=4)
    gap = (ops == OP_DEL) | (ops == OP_INS)
    # a gap run starts where a gap op follows a different op (D then I are two gaps)
    opens = int(np.count_nonzero(gap & np.r_[True, ops[1:] != ops[:-1]])) if ops.size else 0
    return int(counts[OP_MATCH] * costs.match + counts[OP_MISMATCH] * costs.mismatch
               + (counts[OP_DEL] + counts[OP_INS]) * costs.indel + opens * costs.gap_open)


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


def cigar_cost(cigar: str, a: np.ndarray, b: np.ndarray, costs: Costs, start2: int = 0,
               end2: int | None = None, gap_start: bool = False) -> int:
    """Re-score a CIGAR of ``a`` against ``b[start2:end2]`` (default: all of b). Raises ValueError
    when the CIGAR does not consume both exactly or calls a pair '=' that is not a match (or 'X'
    one that is). Each run of D or I letters is one gap (gap_open + length * indel); two runs
    of the same letter next to each other would be one gap, so a CIGAR never has them.
    ``gap_start``: the alignment started inside a gap of a's letters (infix mode's gap start), so
    a leading D run costs length * indel alone."""
    end2 = b.size if end2 is None else end2
    if not 0 <= start2 <= end2 <= b.size:
        raise ValueError(f"region {start2}..{end2} is outside seq2 (length {b.size})")
    b = b[start2:end2]
    i = j = 0
    total = 0
    runs = parse_cigar(cigar)
    for (_, before), (_, after) in zip(runs, runs[1:]):
        if before == after:
            raise ValueError(f"CIGAR {cigar!r} has two {before} runs in a row")
    for length, letter in runs:
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
            total += length * int(costs.indel) if gap_start and i == j == 0 else costs.gap(length)
            i += length
        else:
            j += length
            total += costs.gap(length)
    if i != a.size or j != b.size:
        raise ValueError(f"CIGAR consumes {i} x {j} letters of a {a.size} x {b.size} pair")
    return total
