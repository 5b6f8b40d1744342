"""Data sets on disk: a manifest (``cases.tsv``) naming each case's files; the bundled set and
the synthetic sets as such folders.

Manifest columns (tab-separated, header first; paths relative to the manifest's folder):
``case  base  target  exons  exon_format  true_exons`` — ``base``/``target`` single-record
FASTA files, ``exons`` an exon table in ``exon_format`` (see ``exons.EXON_READERS``),
``true_exons`` an optional TSV (first, last) of the annotated exons, empty when unknown.
Every rule and script reads data sets through this module, whatever made them.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.records import Exon, TestCase
from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced.exons.tsv import read_exon_tsv, write_exon_tsv
from splicedalign.workloads.spliced.load import load_case

MANIFEST_COLUMNS = ("case", "base", "target", "exons", "exon_format", "true_exons")


@dataclass(frozen=True)
class CaseEntry:
    case: str
    base: Path
    target: Path
    exons: Path
    exon_format: str = "tsv"
    true_exons: Path | None = None
    extra: Mapping[str, str] = field(default_factory=dict, compare=False)  # other manifest columns

    def load(self) -> TestCase:
        case = load_case(self.base, self.exons, self.target, self.exon_format, name=self.case)
        if self.true_exons is None:
            return case
        true = tuple((e.first, e.last) for e in read_exon_tsv(self.true_exons, case.m))
        return TestCase(case.name, case.base, case.target, case.exons, case.base_id,
                        case.target_id, {**case.meta, "true_exons": true})


def read_manifest(path: str | Path) -> list[CaseEntry]:
    path = Path(path)
    root = path.parent
    try:
        with open(path, newline="") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
    except OSError as exc:
        raise InputError(str(path), f"cannot read manifest: {exc.strerror or exc}") from None
    entries, seen = [], set()
    for lineno, row in enumerate(rows, 2):
        missing = [c for c in ("case", "base", "target", "exons") if not (row.get(c) or "").strip()]
        if missing:
            raise InputError(str(path), f"missing {', '.join(missing)}", where=f"line {lineno}")
        if row["case"] in seen:
            raise InputError(str(path), f"duplicate case id {row['case']!r}", where=f"line {lineno}")
        seen.add(row["case"])
        true = (row.get("true_exons") or "").strip()
        entries.append(CaseEntry(
            row["case"], root / row["base"], root / row["target"], root / row["exons"],
            (row.get("exon_format") or "tsv").strip(), root / true if true else None,
            {k: v for k, v in row.items() if k not in MANIFEST_COLUMNS and k is not None},
        ))
    if not entries:
        raise InputError(str(path), "manifest lists no case")
    return entries


def write_manifest(path: str | Path, rows: Iterable[Mapping[str, Any]],
                   extra_columns: Iterable[str] = ()) -> Path:
    """Write a manifest: the standard columns, then ``extra_columns``, one row per case."""
    columns = (*MANIFEST_COLUMNS, *extra_columns)
    path = Path(path)
    with open(path, "w") as handle:
        handle.write("\t".join(columns) + "\n")
        handle.writelines("\t".join(str(r.get(c, "")) for c in columns) + "\n" for r in rows)
    return path


def manifest_row(entry: CaseEntry, root: str | Path, **fields: Any) -> dict[str, Any]:
    """The manifest fields of ``entry`` with paths relative to ``root`` (the folder of the
    manifest being written), overridden or extended by ``fields``."""
    rel = lambda p: "" if p is None else os.path.relpath(p, root)  # noqa: E731
    return {"case": entry.case, "base": rel(entry.base), "target": rel(entry.target),
            "exons": rel(entry.exons), "exon_format": entry.exon_format,
            "true_exons": rel(entry.true_exons), **fields}


def write_fasta(path: Path, rid: str, seq: str, width: int = 60) -> None:
    with open(path, "w") as handle:
        handle.write(f">{rid}\n")
        for i in range(0, len(seq), width):
            handle.write(seq[i : i + width] + "\n")


def write_dataset(cases: Iterable[TestCase], directory: str | Path) -> Path:
    """Write cases as a data set (one base FASTA and exon table per distinct base_id)."""
    directory = Path(directory)
    for sub in ("bases", "targets", "exons"):
        (directory / sub).mkdir(parents=True, exist_ok=True)
    written: set[str] = set()
    rows = []
    for c in cases:
        base_f, exon_f = f"bases/{c.base_id}.fa", f"exons/{c.base_id}.tsv"
        true_f = f"exons/{c.base_id}.true.tsv" if "true_exons" in c.meta else ""
        if c.base_id not in written:
            written.add(c.base_id)
            write_fasta(directory / base_f, c.base_id, c.base)
            with open(directory / exon_f, "w") as handle:
                write_exon_tsv(list(c.exons), handle)
            if true_f:
                with open(directory / true_f, "w") as handle:
                    write_exon_tsv([Exon(f, l) for f, l in c.meta["true_exons"]], handle)
        target_f = f"targets/{c.name}.fa"
        write_fasta(directory / target_f, c.target_id, c.target)
        entry = CaseEntry(c.name, directory / base_f, directory / target_f, directory / exon_f, "tsv",
                          directory / true_f if true_f else None)
        rows.append(manifest_row(entry, directory))
    return write_manifest(directory / "cases.tsv", rows)


# The bundled set lives in the source tree (resources/ beside src/), which the package reaches
# in an editable install or a checkout.
BUNDLED = Path(__file__).resolve().parents[4] / "resources" / "bundled" / "cases.tsv"

SYNTHETIC: dict[str, Callable[..., list[TestCase]]] = {
    "tiny": synthetic.tiny_set,
    "paper": synthetic.paper_set,
    "il1rapl1": lambda **kw: [synthetic.il1rapl1_case(**kw)],
}


def bundled_manifest() -> Path:
    if not BUNDLED.exists():
        raise InputError(str(BUNDLED), "bundled data set not found (needs a source checkout"
                         " or editable install: resources/ sits beside src/)")
    return BUNDLED


def write_synthetic(kind: str, directory: str | Path, seed: int | None = None) -> Path:
    """Write the synthetic set ``kind`` (tiny | paper | il1rapl1) as a data set; its manifest."""
    if kind not in SYNTHETIC:
        raise InputError("synthetic", f"unknown synthetic set {kind!r}; known: {', '.join(SYNTHETIC)}")
    cases = SYNTHETIC[kind](**({} if seed is None else {"seed": seed}))
    return write_dataset(cases, directory)
