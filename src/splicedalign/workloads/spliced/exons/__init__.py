"""Candidate-exon sources: format name -> reader. Every reader takes (path, base length m)
and returns ``Exon`` records, 1-based inclusive on the forward strand of the base, with the
source's ``strand``/``source``/``score`` attributes kept; ``strand.on_strand`` turns a
minus-strand prediction into forward coordinates."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.exons.bed12 import read_bed12, read_bed12_cds
from splicedalign.workloads.spliced.exons.genscan import read_genscan
from splicedalign.workloads.spliced.exons.gff import read_gff
from splicedalign.workloads.spliced.exons.signals import read_signals
from splicedalign.workloads.spliced.exons.tsv import read_exon_tsv, write_exon_tsv
from splicedalign.workloads.spliced.records import Exon

ExonReader = Callable[[str | Path, int], list[Exon]]

EXON_READERS: dict[str, ExonReader] = {
    "tsv": read_exon_tsv,
    "genscan": read_genscan,
    "gff": read_gff,
    "gff3": read_gff,
    "gtf": read_gff,
    "augustus": read_gff,
    "bed12": read_bed12,
    "bed12-cds": read_bed12_cds,
    "signals": read_signals,
}


def exon_formats() -> list[str]:
    return list(EXON_READERS)


def read_exons(path: str | Path, m: int, fmt: str = "tsv") -> list[Exon]:
    if fmt not in EXON_READERS:
        raise InputError(str(path), f"unknown exon format {fmt!r}; known: {', '.join(EXON_READERS)}")
    return EXON_READERS[fmt](path, m)


__all__ = ["EXON_READERS", "ExonReader", "exon_formats", "read_exons", "read_exon_tsv", "write_exon_tsv"]
