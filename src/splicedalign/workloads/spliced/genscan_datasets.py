"""Candidate exons from GENSCAN for every base of a data set.

With a GENSCAN binary and parameter file configured (users hold GENSCAN under its own
licence), GENSCAN runs on each base; otherwise the reports the data set ships are used (an
optional manifest column ``genscan``, a path relative to the manifest). Either way the result
is a new data set whose exon tables hold GENSCAN's exons of both strands (optimal and, with
``subopt``, suboptimal ones). Each strand with exons is a case of its own (manifest column
``exon_strand``), solved on its own orientation (SPEC §1): case ``C`` uses the plus-strand
exons, ``C.minus`` the minus-strand ones on the reverse-complemented base, with forward-strand
coordinates in every output. Annotated exons stay with ``C`` (data sets orient each base so
the annotated gene lies on the forward strand).
"""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import read_single_fasta
from splicedalign.workloads.spliced.datasets import STRAND_COLUMN, manifest_row, read_manifest, write_manifest
from splicedalign.workloads.spliced.exons.genscan import read_genscan
from splicedalign.workloads.spliced.exons.tsv import write_exon_tsv

log = logging.getLogger("splicedalign")

MINUS_SUFFIX = ".minus"  # case id suffix of the minus-strand case of a base


def run_genscan(binary: str, parameters: str, fasta: str | Path, subopt: float | None = None) -> str:
    """GENSCAN's report on one FASTA file (``genscan PARAMS SEQ [-subopt CUTOFF]``)."""
    cmd = [binary, parameters, str(fasta)] + (["-subopt", str(subopt)] if subopt is not None else [])
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as exc:
        raise InputError(binary, f"cannot run GENSCAN: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise InputError(binary, f"GENSCAN failed on {fasta} (exit {proc.returncode}): {last}")
    return proc.stdout


def genscan_dataset(manifest: str | Path, out_dir: str | Path, binary: str | None = None,
                    parameters: str | None = None, subopt: float | None = None) -> Path:
    """The data set of ``manifest`` with GENSCAN candidate exons; returns the new manifest."""
    if (binary is None) != (parameters is None):
        raise InputError("genscan", "set both the GENSCAN binary and its parameter file, or neither")
    out_dir = Path(out_dir)
    (out_dir / "reports").mkdir(parents=True, exist_ok=True)
    (out_dir / "exons").mkdir(parents=True, exist_ok=True)
    entries = read_manifest(manifest)
    tables: dict[Path, tuple[str, tuple[str, ...]]] = {}  # base -> (exon table, strands with exons)
    rows = []
    for e in entries:
        if e.base not in tables:
            stem = e.base.stem
            if binary is not None:
                report = out_dir / "reports" / f"{stem}.genscan"
                report.write_text(run_genscan(binary, parameters, e.base, subopt))
            elif e.extra.get("genscan"):
                report = Path(manifest).parent / e.extra["genscan"]
            else:
                raise InputError(str(manifest), f"case {e.case}: no GENSCAN binary configured"
                                 " (genscan.binary, genscan.parameters) and the data set ships no"
                                 " report for this base (manifest column 'genscan')")
            m = len(read_single_fasta(e.base).seq)
            exons = read_genscan(report, m)
            strands = tuple(s for s in ("+", "-") if any(x.attrs["strand"] == s for x in exons))
            minus = sum(x.attrs["strand"] == "-" for x in exons)
            log.info("%s: %d GENSCAN exons, %d plus-strand, %d minus-strand (a case of its own)",
                     stem, len(exons), len(exons) - minus, minus)
            if not strands:
                raise InputError(str(report), f"no GENSCAN exon for base {stem}")
            table = out_dir / "exons" / f"{stem}.tsv"
            with open(table, "w") as handle:
                write_exon_tsv(exons, handle)
            tables[e.base] = (os.path.relpath(table, out_dir), strands)
        table, strands = tables[e.base]
        for strand in strands:
            # annotated exons describe the gene the data set put on the forward strand
            fields = {"exons": table, "exon_format": "tsv", STRAND_COLUMN: strand}
            if strand == "-":
                fields.update(case=f"{e.case}{MINUS_SUFFIX}", true_exons="")
            rows.append(manifest_row(e, out_dir, **fields))
    return write_manifest(out_dir / "cases.tsv", rows)
