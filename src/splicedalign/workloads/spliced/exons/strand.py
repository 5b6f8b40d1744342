"""Minus-strand handling (SPEC §1): a minus-strand exon is used by reverse-complementing the
base and mapping its coordinates, so every solver sees forward-strand intervals only."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from splicedalign.workloads.spliced.records import Exon

_COMPLEMENT = str.maketrans("ACGTURYSWKMBDHVNacgturyswkmbdhvn", "TGCAAYRSWMKVHDBNtgcaayrswmkvhdbn")
_FLIP = {"+": "-", "-": "+"}


def reverse_complement(seq: str) -> str:
    """Reverse complement (IUPAC-aware, case kept)."""
    return seq.translate(_COMPLEMENT)[::-1]


def flip_interval(first: int, last: int, m: int) -> tuple[int, int]:
    """[first, last] of a base of length m, as seen on the reverse complement."""
    return m - last + 1, m - first + 1


def flip_exon(exon: Exon, m: int) -> Exon:
    """The exon on the reverse complement of the base (its strand attribute flipped too)."""
    first, last = flip_interval(exon.first, exon.last, m)
    attrs = dict(exon.attrs)
    if attrs.get("strand") in _FLIP:
        attrs["strand"] = _FLIP[attrs["strand"]]
    return replace(exon, first=first, last=last, attrs=attrs)


def on_strand(base: str, exons: Iterable[Exon], strand: str) -> tuple[str, list[Exon]]:
    """The base read on ``strand`` and the exons predicted on that strand, in its coordinates.

    Exons of the other strand are left out on purpose (they code on the other strand, so the
    target cannot align to them); callers that want both strands call this twice.
    Exons without a strand attribute count as '+'.
    """
    if strand not in _FLIP:
        raise ValueError(f"strand must be '+' or '-', got {strand!r}")
    chosen = [e for e in exons if e.attrs.get("strand", "+") == strand]
    if strand == "+":
        return base, chosen
    m = len(base)
    return reverse_complement(base), sorted((flip_exon(e, m) for e in chosen),
                                            key=lambda e: (e.first, e.last))
