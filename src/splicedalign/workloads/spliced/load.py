"""A spliced-alignment test case from its three files: base FASTA, candidate exons, target FASTA."""

from __future__ import annotations

import logging
from pathlib import Path

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import read_single_fasta
from splicedalign.workloads.spliced.exons import read_exons
from splicedalign.workloads.spliced.records import TestCase

log = logging.getLogger("splicedalign")


def load_case(base: str | Path, exons: str | Path, target: str | Path,
              exon_format: str = "tsv", name: str | None = None) -> TestCase:
    """A test case from a base FASTA, an exon table and a target FASTA (one record each)."""
    if sum(str(p) == "-" for p in (base, exons, target)) > 1:
        raise InputError("-", "standard input can feed only one of --base, --exons, --target")
    b = read_single_fasta(base)
    t = read_single_fasta(target)
    ex = read_exons(exons, len(b.seq), exon_format)
    dups = len(ex) - len({(e.first, e.last) for e in ex})
    if dups:
        log.warning("%s: %d duplicate exon interval(s) kept (they cannot change the score)", exons, dups)
    return TestCase(name or f"{b.id}~{t.id}", b.seq, t.seq, tuple(ex), b.id, t.id)
