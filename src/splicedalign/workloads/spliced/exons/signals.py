"""Candidate exons from splice signals alone (Gelfand's original way; no gene finder needed).

A fallback for bases without a gene-finder report. On the forward strand of the base:
internal exons run from just after an acceptor (``[CT]AG``) to just before a donor
(``GT[AG]AG``); first exons from a start codon (ATG) to a donor; last exons from an acceptor
to a stop codon (included); single exons from ATG to the first in-frame stop. Filters: length
within [min_length, max_length], and an open reading frame (internal exons: no stop codon in
at least one of the three frames; first/single: in the ATG's frame). More candidates than
``max_exons`` is an error rather than a silent cut: tighten the filters. For the minus strand,
run it on the reverse complement (``strand.on_strand``).

As a reader (format ``signals``) the "exon file" is the base FASTA itself.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from pathlib import Path

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import read_single_fasta
from splicedalign.workloads.spliced.records import Exon

STOPS = ("TAA", "TAG", "TGA")


@dataclass(frozen=True)
class SignalParams:
    acceptor: str = "[CT]AG"  # regex; the exon starts after the match
    donor: str = "GT[AG]AG"  # regex; the exon ends before the match
    min_length: int = 10
    max_length: int = 400
    max_exons: int = 5000


def _matches(pattern: str, seq: str) -> list[re.Match]:
    """All matches, overlapping ones included (group 1 is the match)."""
    return list(re.finditer(f"(?=({pattern}))", seq))


def _starts(pattern: str, seq: str) -> list[int]:
    """1-based start positions of (overlapping) matches."""
    return [m.start(1) + 1 for m in _matches(pattern, seq)]


class _Stops:
    """Positions of stop codons by position mod 3, for "is this frame open?" queries."""

    def __init__(self, seq: str):
        self.by_class: list[list[int]] = [[], [], []]
        for p in _starts("|".join(STOPS), seq):
            self.by_class[p % 3].append(p)

    def first_from(self, p: int) -> int | None:
        """First stop codon start >= p in p's frame."""
        lst = self.by_class[p % 3]
        i = bisect_left(lst, p)
        return lst[i] if i < len(lst) else None

    def open(self, first: int, last: int, offset: int) -> bool:
        """No stop codon among the codons of [first, last] read from first + offset."""
        stop = self.first_from(first + offset)
        return stop is None or stop > last - 2


def signal_exons(seq: str, params: SignalParams = SignalParams(), source: str = "<base>") -> list[Exon]:
    """Candidate exons of ``seq`` (forward strand) from splice signals, sorted by (first, last)."""
    seq = seq.upper()
    lo, hi = params.min_length, params.max_length
    stops = _Stops(seq)
    # exons start just after an acceptor match and end just before a donor match
    acceptors = [m.end(1) + 1 for m in _matches(params.acceptor, seq)]
    donors = [m.start(1) for m in _matches(params.donor, seq)]
    atgs = _starts("ATG", seq)
    found: dict[tuple[int, int], str] = {}

    def add(first: int, last: int, kind: str) -> None:
        if lo <= last - first + 1 <= hi:
            found.setdefault((first, last), kind)

    for f in acceptors:
        for last in donors[bisect_left(donors, f + lo - 1):bisect_left(donors, f + hi)]:
            if any(stops.open(f, last, r) for r in range(3)):
                add(f, last, "internal")
        for r in range(3):
            stop = stops.first_from(f + r)
            if stop is not None:
                add(f, stop + 2, "last")
    for a in atgs:
        for last in donors[bisect_left(donors, a + lo - 1):bisect_left(donors, a + hi)]:
            if stops.open(a, last, 0):
                add(a, last, "first")
        stop = stops.first_from(a)
        if stop is not None:
            add(a, stop + 2, "single")
    if len(found) > params.max_exons:
        raise InputError(source, f"{len(found)} signal-based candidate exons, more than max_exons"
                         f"={params.max_exons}; tighten the motifs or length limits")
    return [Exon(f, l, {"strand": "+", "source": "signals", "type": kind})
            for (f, l), kind in sorted(found.items())]


def read_signals(path: str | Path, m: int) -> list[Exon]:
    record = read_single_fasta(path)
    if len(record.seq) != m:
        raise InputError(str(path), f"signals format reads the base FASTA itself; this one has"
                         f" {len(record.seq)} bp, the base {m}")
    return signal_exons(record.seq, source=str(path))
