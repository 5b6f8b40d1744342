"""Minus-strand handling (SPEC §1): a minus-strand exon is used by reverse-complementing the
base and mapping its coordinates, so every solver sees forward-strand intervals only.

``strand_cases`` makes one test case per strand that has candidate exons (each solved on its
own orientation); ``best_per_strand_set`` picks, for each case name, the strand whose model
scores best. Exons without a strand attribute, or with '.', count as '+'.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.records import Exon, Exons, Result, TestCase

# --strand choices -> strands solved, in the order ties are broken ('+' wins a tie)
STRAND_CHOICES = {"both": ("+", "-"), "plus": ("+",), "minus": ("-",)}

_COMPLEMENT = str.maketrans("ACGTURYSWKMBDHVNacgturyswkmbdhvn", "TGCAAYRSWMKVHDBNtgcaayrswmkvhdbn")
_FLIP = {"+": "-", "-": "+"}


def reverse_complement(seq: str) -> str:
    """Reverse complement (IUPAC-aware, case kept)."""
    return seq.translate(_COMPLEMENT)[::-1]


def flip_interval(first: int, last: int, m: int) -> tuple[int, int]:
    """[first, last] of a base of length m, as seen on the reverse complement."""
    return m - last + 1, m - first + 1


def flip_bounds(bounds: np.ndarray, m: int) -> np.ndarray:
    """``flip_interval`` of each (first, last) row of ``bounds`` (K, 2), as a new contiguous array."""
    return np.ascontiguousarray(m + 1 - bounds[:, ::-1])


def flip_exon(exon: Exon, m: int) -> Exon:
    """The exon on the reverse complement of the base (its strand attribute flipped too)."""
    first, last = flip_interval(exon.first, exon.last, m)
    attrs = dict(exon.attrs)
    if attrs.get("strand") in _FLIP:
        attrs["strand"] = _FLIP[attrs["strand"]]
    return replace(exon, first=first, last=last, attrs=attrs)


def _flipped(exons: Exons, m: int) -> Exons:
    """``flip_exon`` of each of ``exons`` (a base of length m), as columns."""
    columns = [[_FLIP.get(v, v) if isinstance(v, str) else v for v in c] if name == "strand" else c
               for name, c in zip(exons.names, exons.columns)]
    return Exons(flip_bounds(exons.bounds, m), exons.names, columns)


def exon_strand(exon: Exon) -> str:
    return "-" if exon.attrs.get("strand") == "-" else "+"


def on_strand(base: str, exons: Iterable[Exon], strand: str) -> tuple[str, list[Exon]]:
    """The base read on ``strand`` and the exons predicted on that strand, in its coordinates.

    Exons of the other strand are left out on purpose (they code on the other strand, so the
    target cannot align to them); callers that want both strands call this twice.
    Exons without a strand attribute count as '+'.
    """
    if strand not in _FLIP:
        raise ValueError(f"strand must be '+' or '-', got {strand!r}")
    chosen = [e for e in exons if exon_strand(e) == strand]
    if strand == "+":
        return base, chosen
    m = len(base)
    return reverse_complement(base), sorted((flip_exon(e, m) for e in chosen),
                                            key=lambda e: (e.first, e.last))


def strand_index(exons: Sequence[Exon]) -> dict[str, list[int]]:
    """The input indices of the exons on each strand ('+' and '-'), in input order."""
    index: dict[str, list[int]] = {"+": [], "-": []}
    strands = exons.column("strand") if isinstance(exons, Exons) else [e.attrs.get("strand") for e in exons]
    if strands is None:  # columns without a strand: all '+'
        index["+"] = list(range(len(exons)))
        return index
    for i, strand in enumerate(strands):
        index["-" if strand == "-" else "+"].append(i)
    return index


@dataclass(frozen=True)
class StrandView:
    """A base's candidate exons on one strand, as the cases of every target of that base hold
    them: the base read on the strand, the exons mapped to it, their (first, last) as one array
    (``TestCase.exon_bounds``; None: made by the case when needed) and their rows in the exon file."""

    seq: str
    exons: tuple[Exon, ...] | Exons
    bounds: np.ndarray | None
    index: tuple[int, ...]


def strand_view(base: str, exons: Sequence[Exon], strand: str, index: Sequence[int],
                bounds: np.ndarray | None = None) -> StrandView | None:
    """The exons ``index`` (those on ``strand``) of ``base`` on that strand; None without any.
    ``bounds``: (K, 2) int64 (first, last) of ``exons``, when the caller has it."""
    if not index:
        return None
    if isinstance(exons, Exons):  # columns stay columns: the view's bounds are its exons'
        on = exons.take(index)
        if strand == "-":
            on = _flipped(on, len(base))
        return StrandView(base if strand == "+" else reverse_complement(base), on, on.bounds, tuple(index))
    if strand == "+":
        return StrandView(base, tuple(exons[i] for i in index), None if bounds is None else bounds[list(index)],
                          tuple(index))
    m = len(base)
    flipped = None if bounds is None else flip_bounds(bounds[list(index)], m)
    return StrandView(reverse_complement(base), tuple(flip_exon(exons[i], m) for i in index), flipped, tuple(index))


def strand_cases(name: str, base: str, exons: Sequence[Exon], target: str, strands: Sequence[str],
                 base_id: str = "base", target_id: str = "target", meta: Mapping[str, Any] | None = None,
                 source: str = "exons", views: Mapping[str, StrandView | None] | None = None) -> list[TestCase]:
    """One case per strand in ``strands`` that has candidate exons: the base read on that
    strand, its exons mapped to it (``meta`` strand and input_index record the way back).
    No exon on any of ``strands`` is bad input (``source`` names the exon file).
    ``views``: each strand's ``strand_view`` when the caller has them (targets sharing a base
    and its exons share them: one reverse complement and one bounds array per base and strand)."""
    if views is None:
        by_strand = strand_index(exons)
        views = {strand: strand_view(base, exons, strand, by_strand[strand]) for strand in strands}
    cases = []
    for strand in strands:
        view = views[strand]
        if view is None:
            continue
        cases.append(TestCase(name, view.seq, target, view.exons, base_id, target_id,
                              {**(meta or {}), "strand": strand, "input_index": view.index},
                              exon_bounds=view.bounds))
    if not cases:
        on = " or ".join(f"'{s}'" for s in strands)
        raise InputError(source, f"no candidate exon on the {on} strand (of {len(exons)} exons);"
                         " see --strand")
    return cases


def best_per_strand_set(cases: Sequence[TestCase], results: Sequence[Result]
                        ) -> list[tuple[TestCase, Result, dict[str, int]]]:
    """For each case name (in first-seen order): the case and result of its best-scoring strand
    (the earlier strand on a tie) and every solved strand's score."""
    best: dict[str, tuple[TestCase, Result, dict[str, int]]] = {}
    for case, result in zip(cases, results):
        if case.name not in best:
            best[case.name] = (case, result, {case.strand: result.score})
            continue
        held, held_result, scores = best[case.name]
        scores[case.strand] = result.score
        if result.score > held_result.score:
            best[case.name] = (case, result, scores)
    return list(best.values())
