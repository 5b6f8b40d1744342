"""Spliced-alignment test cases from their three files: base FASTA, candidate exons, target
FASTA. Each strand with candidate exons makes a case of its own (``exons.strand``), solved
on its own orientation; a target FASTA may hold many records (one case per record)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Sequence

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import FastaRecord, no_record, read_fasta, read_single_fasta
from splicedalign.workloads.spliced.exons import read_exons
from splicedalign.workloads.spliced.exons.merged import ShiftParams, richer_candidates
from splicedalign.workloads.spliced.exons.strand import exon_strand, strand_cases
from splicedalign.workloads.spliced.records import Exon, TestCase

log = logging.getLogger("splicedalign")


def _one_stdin(*paths: str | Path) -> None:
    if sum(str(p) == "-" for p in paths) > 1:
        raise InputError("-", "standard input can feed only one of --base, --exons, --target")


def _exons(path: str | Path, m: int, exon_format: str) -> list[Exon]:
    ex = read_exons(path, m, exon_format)
    dups = len(ex) - len({(e.first, e.last, exon_strand(e)) for e in ex})
    if dups:
        log.warning("%s: %d duplicate exon interval(s) kept (they cannot change the score)", path, dups)
    return ex


def load_cases(base: str | Path, exons: str | Path, target: str | Path, exon_format: str = "tsv",
               name: str | None = None, strands: Sequence[str] = ("+", "-"), shift: int = 0) -> list[TestCase]:
    """Every (target record, strand) case: the target FASTA may hold many records; each of
    ``strands`` that has candidate exons gives a case. Case names: ``name`` (default
    BASE_ID~TARGET_ID; with several targets, NAME~TARGET_ID), shared by a case's strands.
    ``shift`` > 0 adds the exons' splice boundaries moved to signals within that many bases
    (``exons.merged``; their rows follow the file's in the exon numbering)."""
    _one_stdin(base, exons, target)
    b = read_single_fasta(base)
    targets = read_fasta(target)
    if not targets:
        raise no_record(target)
    ids = [t.id for t in targets]
    dup = next((i for i in ids if ids.count(i) > 1), None)
    if dup is not None:
        raise InputError(str(target), f"target id {dup!r} occurs {ids.count(dup)} times; ids name the results")
    ex = _exons(exons, len(b.seq), exon_format)
    if shift:
        ex = richer_candidates(b.seq, ex, ShiftParams(window=shift))
    cases = []
    for t in targets:
        case_name = _name(name, b, t, len(targets))
        cases += strand_cases(case_name, b.seq, ex, t.seq, strands, b.id, t.id, source=str(exons))
    return cases


def _name(name: str | None, base: FastaRecord, target: FastaRecord, targets: int) -> str:
    if name is None:
        return f"{base.id}~{target.id}"
    return name if targets == 1 else f"{name}~{target.id}"


def load_case(base: str | Path, exons: str | Path, target: str | Path,
              exon_format: str = "tsv", name: str | None = None, strand: str = "+") -> TestCase:
    """The test case of one target record (single-record FASTA) on one strand."""
    _one_stdin(base, exons, target)
    b = read_single_fasta(base)
    t = read_single_fasta(target)
    ex = _exons(exons, len(b.seq), exon_format)
    (case,) = strand_cases(_name(name, b, t, 1), b.seq, ex, t.seq, (strand,), b.id, t.id, source=str(exons))
    other = len(ex) - case.K
    if other:
        log.info("%s: %d candidate exon(s) on the other strand left out of the %s-strand case",
                 exons, other, strand)
    return case
