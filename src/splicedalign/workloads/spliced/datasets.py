"""Data sets on disk: a manifest (``cases.tsv``) naming each case's files; the bundled set and
the synthetic sets as such folders.

Manifest columns (tab-separated, header first; paths relative to the manifest's folder):
``case  base  target  exons  exon_format  true_exons`` — ``base``/``target`` single-record
FASTA files, ``exons`` an exon table in ``exon_format`` (see ``exons.EXON_READERS``),
``true_exons`` an optional TSV (first, last) of the annotated exons, empty when unknown.
Optional ``exon_strand`` (+ default, or -): the strand whose candidate exons the case uses
(a minus-strand case is solved on the reverse-complemented base, SPEC §1). Other columns are
kept as ``CaseEntry.extra``. Case ids name result folders: no '/', '\\' or white space.
Every rule and script reads data sets through this module, whatever made them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.exons import EXON_READERS
from splicedalign.workloads.spliced.exons.tsv import Table, read_exon_tsv, read_table, shown, write_exon_tsv
from splicedalign.workloads.spliced.load import CaseFiles
from splicedalign.workloads.spliced.records import Exon, TestCase

MANIFEST_COLUMNS = ("case", "base", "target", "exons", "exon_format", "true_exons")
REQUIRED_COLUMNS = MANIFEST_COLUMNS[:4]  # a row without any of them is refused
FILE_COLUMNS = ("base", "target", "exons", "true_exons")  # the columns that name files, in the checks' order
STRAND_COLUMN = "exon_strand"  # optional: + (default) or -
STRAND_VALUES = (None, "+", "-")  # its values (None: empty, not stated)


@dataclass(frozen=True)
class CaseEntry:
    case: str
    base: Path
    target: Path
    exons: Path
    exon_format: str = "tsv"
    true_exons: Path | None = None
    extra: Mapping[str, str] = field(default_factory=dict, compare=False)  # other manifest columns
    strand: str | None = None  # whose candidate exons the case uses (column exon_strand; None: not stated)

    def load(self, files: CaseFiles | None = None) -> TestCase:
        """The case on its ``exon_strand``, '+' when not stated (true exons, if any, in ``meta``,
        forward strand). ``files``: a reader shared by the cases of one load (each base and exon
        table read once)."""
        case = (files or CaseFiles()).case(self.base, self.exons, self.target, self.exon_format, self.case,
                                           self.strand or "+")
        if self.true_exons is None:
            return case
        true = tuple((e.first, e.last) for e in read_exon_tsv(self.true_exons, case.m))
        return TestCase(case.name, case.base, case.target, case.exons, case.base_id,
                        case.target_id, {**case.meta, "true_exons": true})


_UNSAFE = re.compile(r"[/\\\s]")  # a case id's letters that cannot name a folder (re's \s: str.isspace)
_DOTS = (".", "..")


def case_id_problem(case: str) -> str | None:
    """Why ``case`` cannot be a case id (ids name result folders and Snakemake wildcards), or None."""
    if not case:
        return "empty case id"
    if case in _DOTS or _UNSAFE.search(case):
        return (f"case id {shown(case)} cannot be a file name: no '/', '\\' or white space,"
                " and not '.' or '..'")
    return None


def case_ids_ok(cases: list[str]) -> bool:
    """Whether ``case_id_problem`` finds no problem in any of ``cases``, by one pass over them
    joined ('|' is no letter ``_UNSAFE`` takes) rather than a call per id."""
    return all(cases) and _UNSAFE.search("|".join(cases)) is None and not any(d in cases for d in _DOTS)


class ManifestRows(NamedTuple):
    """A manifest's cases as columns, checked as ``read_manifest`` checks them, each file as the
    text of its path (``str(root / name)``): what a reader of every case's files needs, without
    a ``Path`` or a ``CaseEntry`` per row (the paper-shaped set's 1,010 rows and 1,730 files)."""
    cases: list[str]
    base: list[str]
    target: list[str]
    exons: list[str]
    true_exons: list[str | None]
    formats: list[str]
    strands: list[str | None]
    extra: dict[str, list[str]]  # other columns, by name, in the header's order


def manifest_rows(path: str | Path) -> ManifestRows:
    """The cases of a manifest, checked: required columns, unique and path-safe case ids,
    every named file present, ``exon_strand`` (optional column) + or -. Whole columns are
    checked at once; where any check fails, the row loop (``_first_bad_row``) names the first
    bad row and its problem."""
    path = Path(path)
    root = path.parent
    if not path.is_file():
        raise InputError(str(path), "manifest not found" if not path.exists() else "manifest is not a file")
    table = read_table(path, "manifest", REQUIRED_COLUMNS)
    if not table.lines:
        raise InputError(str(path), "manifest lists no case")
    column = dict(zip(table.header, table.columns))  # a repeated name: its last column, as a row's dict
    nothing: list[str] = [""] * len(table.lines)
    cases = column["case"]
    formats = [f or "tsv" for f in column.get("exon_format", nothing)]
    strands = [s or None for s in column.get(STRAND_COLUMN, nothing)]
    good = (all(all(column[c]) for c in REQUIRED_COLUMNS) and case_ids_ok(cases)
            and len(set(cases)) == len(cases) and set(formats) <= EXON_READERS.keys()
            and set(strands) <= set(STRAND_VALUES))
    texts: dict[str, str] = {}  # each distinct file named: the text of its path, checked once
    is_file = _FileCheck()
    root_text = str(root)
    for name in dict.fromkeys(n for c in FILE_COLUMNS for n in column.get(c, ()) if n) if good else ():
        text = _path_text(root, root_text, name)
        if not is_file(text):
            good = False
            break
        texts[name] = text
    if not good:
        _first_bad_row(path, root, table)
    named = lambda c: [texts[n] for n in column[c]]  # noqa: E731
    extra = {c: column[c] for c in dict.fromkeys(table.header) if c not in (*MANIFEST_COLUMNS, STRAND_COLUMN)}
    return ManifestRows(cases, named("base"), named("target"), named("exons"),
                        [texts[n] if n else None for n in column.get("true_exons", nothing)],
                        formats, strands, extra)


def _path_text(root: Path, root_text: str, name: str) -> str:
    """``str(root / name)`` (``root_text`` is ``str(root)``): joined as text where ``name`` is
    a plain relative path (no empty or '.' part, which pathlib would drop), else by pathlib."""
    if os.sep == "/" and "//" not in (wrapped := f"/{name}/") and "/./" not in wrapped:
        return name if root_text == "." else f"/{name}" if root_text == "/" else f"{root_text}/{name}"
    return str(root / name)


def _first_bad_row(path: Path, root: Path, table: Table) -> None:
    """Raise the error of a manifest's first bad row (row order, and within a row the order of
    its checks: what a row loop says)."""
    seen: set[str] = set()
    found: set[str] = set()  # each distinct file named, checked once (cases share bases)
    is_file = _FileCheck()
    for lineno, row in table.records():
        where = f"line {lineno}"
        missing = [c for c in REQUIRED_COLUMNS if not row[c]]
        if missing:
            raise InputError(str(path), f"missing {', '.join(missing)}", where=where)
        case = row["case"]
        problem = case_id_problem(case)
        if problem:
            raise InputError(str(path), problem, where=where)
        if case in seen:
            raise InputError(str(path), f"duplicate case id {shown(case)}", where=where)
        seen.add(case)
        exon_format = row.get("exon_format") or "tsv"
        if exon_format not in EXON_READERS:
            raise InputError(str(path), f"case {case}: unknown exon_format {shown(exon_format)};"
                             f" known: {', '.join(EXON_READERS)}", where=where)
        strand = row.get(STRAND_COLUMN) or None
        if strand not in STRAND_VALUES:
            raise InputError(str(path), f"case {case}: exon_strand must be + or -, got {shown(strand)}", where=where)
        for column in FILE_COLUMNS:
            name = row.get(column)
            if name and name not in found:
                file = root / name
                if not is_file(str(file)):
                    raise InputError(str(path), f"case {case}: {column} file {name} not found"
                                     f" (looked for {file})", where=where)
                found.add(name)
    raise AssertionError("a manifest's rows were found bad and then good")


def read_manifest(path: str | Path) -> list[CaseEntry]:
    """The cases of a manifest, checked (``manifest_rows``), as records."""
    rows = manifest_rows(path)
    paths: dict[str, Path] = {}
    as_path = lambda text: paths.get(text) or paths.setdefault(text, Path(text))  # noqa: E731
    return [CaseEntry(case, as_path(base), as_path(target), as_path(exons), exon_format,
                      None if true is None else as_path(true), {c: v[i] for c, v in rows.extra.items()}, strand)
            for i, (case, base, target, exons, exon_format, true, strand) in enumerate(zip(
                rows.cases, rows.base, rows.target, rows.exons, rows.formats, rows.true_exons, rows.strands))]


class _FileCheck:
    """``os.path.isfile`` for many names in few folders (a manifest's ~1,700 files in 3): a
    folder asked about often is listed once (``os.scandir``), and its listing answers for the
    names it holds; other names (not there, or spelled otherwise on a case-insensitive file
    system) and unlistable folders ask the file system itself."""

    LIST_AFTER = 16  # names asked in a folder before it is listed (a huge folder named once is not)

    def __init__(self) -> None:
        self._asked: dict[str, int] = {}
        self._listed: dict[str, dict[str, os.DirEntry]] = {}

    def __call__(self, file: str) -> bool:
        folder, name = os.path.split(file)
        listing = self._listed.get(folder)
        if listing is None:
            self._asked[folder] = asked = self._asked.get(folder, 0) + 1
            if asked < self.LIST_AFTER:
                return os.path.isfile(file)
            try:
                with os.scandir(folder or ".") as entries:
                    listing = {entry.name: entry for entry in entries}
            except OSError:
                listing = {}
            self._listed[folder] = listing
        entry = listing.get(name)
        return entry.is_file() if entry is not None else os.path.isfile(file)


def write_manifest(path: str | Path, rows: Iterable[Mapping[str, Any]],
                   extra_columns: Iterable[str] = ()) -> Path:
    """Write a manifest: the standard columns (``exon_strand`` too when a row has it), then
    ``extra_columns``, one row per case."""
    rows = list(rows)
    stranded = (STRAND_COLUMN,) if any(r.get(STRAND_COLUMN) for r in rows) else ()
    columns = tuple(dict.fromkeys((*MANIFEST_COLUMNS, *stranded, *extra_columns)))
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
            "true_exons": rel(entry.true_exons),
            **({STRAND_COLUMN: entry.strand} if entry.strand else {}), **fields}


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
    if seed is not None and seed < 0:
        raise InputError("synthetic", f"seed must be >= 0, got {seed}")
    cases = SYNTHETIC[kind](**({} if seed is None else {"seed": seed}))
    try:
        return write_dataset(cases, directory)
    except OSError as exc:
        raise InputError(str(directory), f"cannot write the data set: {exc.strerror or exc}"
                         + (f" ({exc.filename})" if exc.filename else "")) from None
