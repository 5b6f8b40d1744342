"""Candidate exons from GENSCAN for every base of a data set.

With a GENSCAN binary and parameter file configured (users hold GENSCAN under its own
licence), GENSCAN runs on each base; otherwise the reports the data set ships are used (an
optional manifest column ``genscan``, a path relative to the manifest). Either way the result
is a new data set whose exon tables hold GENSCAN's plus-strand exons (optimal and, with
``subopt``, suboptimal ones): bases are oriented so the gene lies on the plus strand (SPEC §1),
and the minus-strand exons left out are counted in the log, not dropped silently.
"""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

from splicedalign.workloads.spliced.datasets import manifest_row, read_manifest, write_manifest
from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.exons.genscan import read_genscan
from splicedalign.core.seqio import read_single_fasta
from splicedalign.workloads.spliced.exons.tsv import write_exon_tsv

log = logging.getLogger("splicedalign")


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
    exon_tables: dict[Path, str] = {}
    rows = []
    for e in entries:
        if e.base not in exon_tables:
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
            plus = [x for x in exons if x.attrs["strand"] == "+"]
            log.info("%s: %d GENSCAN exons, %d plus-strand kept, %d minus-strand left out",
                     stem, len(exons), len(plus), len(exons) - len(plus))
            if not plus:
                raise InputError(str(report), f"no plus-strand GENSCAN exon for base {stem}")
            table = out_dir / "exons" / f"{stem}.tsv"
            with open(table, "w") as handle:
                write_exon_tsv(plus, handle)
            exon_tables[e.base] = os.path.relpath(table, out_dir)
        rows.append(manifest_row(e, out_dir, exons=exon_tables[e.base], exon_format="tsv"))
    return write_manifest(out_dir / "cases.tsv", rows)
