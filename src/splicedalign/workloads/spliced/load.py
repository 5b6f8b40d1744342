"""Spliced-alignment test cases from their three files: base FASTA, candidate exons, target
FASTA. Each strand with candidate exons makes a case of its own (``exons.strand``), solved
on its own orientation; a target FASTA may hold many records (one case per record).

``CaseFiles`` reads each file once however many cases name it: a data set's cases share
their base and exon table (the paper-shaped set: 1,010 cases, 240 bases), so a manifest
reads each base once and says each exon table's warnings once. A load's cases go to the solver
with their columns (records.CaseSetMaker, taken as the cases are made): its split of the set
reads no case object (gpu.flat.FlatCases.of)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import FastaRecord, no_record, read_fasta, read_single_fasta
from splicedalign.workloads.spliced.exons import read_exons
from splicedalign.workloads.spliced.exons.merged import ShiftParams, richer_candidates
from splicedalign.workloads.spliced.exons.strand import (
    StrandView,
    strand_cases,
    strand_index,
    strand_view,
)
from splicedalign.workloads.spliced.records import CaseSet, CaseSetMaker, Exon, TestCase, exon_bounds

log = logging.getLogger("splicedalign")


class ExonTable(NamedTuple):
    """A list of candidate exons with what its cases' strand views need, made once per list."""
    exons: list[Exon]
    bounds: np.ndarray  # (K, 2) int64: each exon's (first, last)
    index: dict[str, list[int]]  # the exons' rows on each strand (strand_index)

    @classmethod
    def of(cls, ex: list[Exon]) -> ExonTable:
        return cls(ex, exon_bounds(ex), strand_index(ex))


def _one_stdin(*paths: str | Path) -> None:
    if [str(p) for p in paths].count("-") > 1:
        raise InputError("-", "standard input can feed only one of --base, --exons, --target")


def _name(name: str | None, base: FastaRecord, target: FastaRecord, targets: int) -> str:
    if name is None:
        return f"{base.id}~{target.id}"
    return name if targets == 1 else f"{name}~{target.id}"


class CaseFiles:
    """Bases and exon tables read once each (by path), for the cases of one load."""

    def __init__(self) -> None:
        self._bases: dict[str, FastaRecord] = {}
        # (path, base length, format[, base id, shift]) -> its exon table
        self._exons: dict[tuple, ExonTable] = {}
        # the last (base, exon list) cases were made of and its strand views, shared by its targets' cases
        self._views: tuple[str | None, list[Exon] | None, dict[str, StrandView | None]] = (None, None, {})

    def base(self, path: str | Path) -> FastaRecord:
        key = str(path)
        if key not in self._bases:
            self._bases[key] = read_single_fasta(path)
        return self._bases[key]

    def _exon_table(self, path: str | Path, base: FastaRecord, exon_format: str = "tsv",
                    shift: int = 0) -> ExonTable:
        """The candidate exons of ``base`` and their table (ExonTable), read and made once; a
        file's duplicate intervals are counted in one warning, however many cases use it.
        ``shift`` > 0 adds the exons' splice boundaries moved to signals within that many bases
        (``exons.merged``; their rows follow the file's in the exon numbering)."""
        key = (str(path), len(base.seq), exon_format)
        if key not in self._exons:
            ex = read_exons(path, len(base.seq), exon_format)
            table = self._exons[key] = ExonTable.of(ex)
            strands = ["+"] * len(ex)
            for i in table.index["-"]:
                strands[i] = "-"
            dups = len(ex) - len(set(zip(*table.bounds.T.tolist(), strands)))
            if dups:
                log.warning("%s: %d duplicate exon interval(s) kept (they cannot change the score)", path, dups)
        if not shift:
            return self._exons[key]
        richer = (*key, base.id, shift)
        if richer not in self._exons:
            self._exons[richer] = ExonTable.of(richer_candidates(base.seq, self._exons[key].exons,
                                                                 ShiftParams(window=shift)))
        return self._exons[richer]

    def cases(self, base: str | Path, exons: str | Path, target: str | Path, exon_format: str = "tsv",
              name: str | None = None, strands: Sequence[str] = ("+", "-"), shift: int = 0) -> list[TestCase]:
        """Every (target record, strand) case: the target FASTA may hold many records; each of
        ``strands`` that has candidate exons gives a case. Case names: ``name`` (default
        BASE_ID~TARGET_ID; with several targets, NAME~TARGET_ID), shared by a case's strands.
        ``shift``: as in ``_exon_table``."""
        _one_stdin(base, exons, target)
        b = self.base(base)
        targets = read_fasta(target)
        if not targets:
            raise no_record(target)
        ids = [t.id for t in targets]
        if len(set(ids)) < len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise InputError(str(target), f"target id {dup!r} occurs {ids.count(dup)} times; ids name the results")
        table = self._exon_table(exons, b, exon_format, shift)
        ex, views = table.exons, self._strand_views(b.seq, table, strands)
        cases = []
        for t in targets:
            case_name = _name(name, b, t, len(targets))
            cases += strand_cases(case_name, b.seq, ex, t.seq, strands, b.id, t.id, source=str(exons), views=views)
        return cases

    def _strand_views(self, seq: str, table: ExonTable, strands: Sequence[str]) -> dict[str, StrandView | None]:
        """``strand_view`` of each of ``strands`` for ``seq`` and its exon table (``_exon_table``):
        made once while consecutive cases share them (a manifest's targets of one base), so a
        base is reverse-complemented and its exons checked once per strand, not once per target."""
        ex, bounds, index = table
        held_seq, held_ex, views = self._views
        if held_seq is not seq or held_ex is not ex:
            views = {}
            self._views = (seq, ex, views)
        for strand in strands:
            if strand not in views:
                views[strand] = strand_view(seq, ex, strand, index[strand], bounds)
        return views

    def case(self, base: str | Path, exons: str | Path, target: str | Path, exon_format: str = "tsv",
             name: str | None = None, strand: str = "+") -> TestCase:
        """The test case of one target record (single-record FASTA) on one strand."""
        _one_stdin(base, exons, target)
        b = self.base(base)
        t = read_single_fasta(target)
        table = self._exon_table(exons, b, exon_format)
        ex = table.exons
        (case,) = strand_cases(_name(name, b, t, 1), b.seq, ex, t.seq, (strand,), b.id, t.id, source=str(exons),
                               views=self._strand_views(b.seq, table, (strand,)))
        other = len(ex) - case.K
        if other:
            log.info("%s: %d candidate exon(s) on the other strand left out of the %s-strand case",
                     exons, other, strand)
        return case


def load_cases(base: str | Path, exons: str | Path, target: str | Path, exon_format: str = "tsv",
               name: str | None = None, strands: Sequence[str] = ("+", "-"), shift: int = 0) -> CaseSet:
    """``CaseFiles.cases`` of one set of files, with their columns (records.CaseSetMaker)."""
    return CaseSetMaker(CaseFiles().cases(base, exons, target, exon_format, name, strands, shift)).made()

