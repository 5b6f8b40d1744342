"""Reading test cases: FASTA records and candidate-exon tables, with one-line errors.

Exon sources plug in through ``EXON_READERS`` (format name -> reader); every reader returns
forward-strand ``Exon`` records, 1-based inclusive, with the source's extra fields kept in
``Exon.attrs``. The TSV reader is built in; GENSCAN, GFF and other readers register
themselves from their own modules (see ``register_exon_reader``).
"""

from __future__ import annotations

import csv
import io
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, TextIO

from splicedalign.alphabet import validate
from splicedalign.case import Exon, TestCase, exon_problem
from splicedalign.errors import InputError

log = logging.getLogger("splicedalign")


@dataclass(frozen=True)
class FastaRecord:
    id: str
    description: str
    seq: str


def open_text(path: str | Path) -> TextIO:
    """Open a text file for reading; '-' is standard input. Errors name the file."""
    if str(path) == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    try:
        return open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(str(path), f"cannot read file: {exc.strerror or exc}") from None


def iter_fasta(handle: TextIO, source: str) -> Iterator[FastaRecord]:
    """FASTA records; a record's letters are validated as IUPAC nucleotides."""
    header: str | None = None
    header_line = 0
    chunks: list[str] = []
    for lineno, line in enumerate(handle, 1):
        line = line.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith(">"):
            if header is not None:
                yield _record(header, chunks, source, header_line)
            header, header_line, chunks = line[1:].strip(), lineno, []
        elif header is None:
            raise InputError(source, "sequence data before the first '>' header (not FASTA?)",
                             where=f"line {lineno}")
        else:
            chunks.append(line.replace(" ", ""))
    if header is not None:
        yield _record(header, chunks, source, header_line)


def _record(header: str, chunks: list[str], source: str, line: int) -> FastaRecord:
    seq = "".join(chunks)
    rid = header.split()[0] if header.split() else ""
    if not seq:
        raise InputError(source, f"record {rid!r} has no sequence", where=f"line {line}")
    validate(seq, f"{source}:line {line}", rid)
    return FastaRecord(rid, header, seq)


def read_fasta(path: str | Path) -> list[FastaRecord]:
    with open_text(path) as handle:
        return list(iter_fasta(handle, str(path)))


def read_single_fasta(path: str | Path) -> FastaRecord:
    """The one record of a single-record FASTA file (base or target)."""
    records = read_fasta(path)
    if not records:
        raise InputError(str(path), "no FASTA record (empty file?)")
    if len(records) > 1:
        raise InputError(
            str(path),
            f"{len(records)} FASTA records, expected exactly one"
            f" ({', '.join(r.id for r in records[:3])}{', ...' if len(records) > 3 else ''})",
        )
    return records[0]


ExonReader = Callable[[str | Path, int], list[Exon]]


def _int_field(value: str, name: str, source: str, where: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(source, f"{name} must be an integer, got {value!r}", where=where) from None


def read_exon_tsv(path: str | Path, m: int) -> list[Exon]:
    """Exons from a tab-separated table whose header names at least ``first`` and ``last``.

    Other columns become attributes. Every row is checked against the base length m.
    """
    source = str(path)
    with open_text(path) as handle:
        rows = [r for r in csv.reader(handle, delimiter="\t")]
    body = [(i, r) for i, r in enumerate(rows, 1) if r and not r[0].startswith("#")]
    if not body:
        raise InputError(source, "empty exon table (no header)")
    (header_line, header), body = body[0], body[1:]
    header = [h.strip() for h in header]
    missing = [c for c in ("first", "last") if c not in header]
    if missing:
        raise InputError(source, f"header lacks column(s) {', '.join(missing)}; it has {header}",
                         where=f"line {header_line}")
    exons = []
    for lineno, row in body:
        where = f"line {lineno}"
        if len(row) != len(header):
            raise InputError(source, f"{len(row)} columns, header has {len(header)}", where=where)
        fields = dict(zip(header, (v.strip() for v in row)))
        first = _int_field(fields.pop("first"), "first", source, where)
        last = _int_field(fields.pop("last"), "last", source, where)
        problem = exon_problem(first, last, m)
        if problem:
            raise InputError(source, problem, where=where)
        exons.append(Exon(first, last, fields))
    if not exons:
        raise InputError(source, "no exons (the table has a header only)")
    return exons


EXON_READERS: dict[str, ExonReader] = {"tsv": read_exon_tsv}


def register_exon_reader(fmt: str, reader: ExonReader) -> None:
    EXON_READERS[fmt] = reader


def exon_formats() -> list[str]:
    """Every exon format known, the readers of ``splicedalign.exons`` included."""
    import splicedalign.exons  # noqa: F401  (its modules register their readers on import)

    return list(EXON_READERS)


def read_exons(path: str | Path, m: int, fmt: str = "tsv") -> list[Exon]:
    if fmt not in exon_formats():
        raise InputError(str(path), f"unknown exon format {fmt!r}; known: {', '.join(EXON_READERS)}")
    return EXON_READERS[fmt](path, m)


def write_exon_tsv(exons: list[Exon], handle: TextIO) -> None:
    """The TSV that read_exon_tsv reads back (attribute columns in first-seen order)."""
    extra: list[str] = []
    for e in exons:
        extra += [k for k in e.attrs if k not in extra]
    handle.write("\t".join(["first", "last", *extra]) + "\n")
    for e in exons:
        handle.write("\t".join([str(e.first), str(e.last), *(str(e.attrs.get(k, "")) for k in extra)]) + "\n")


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
