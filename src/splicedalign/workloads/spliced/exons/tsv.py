"""The built-in exon table: tab-separated, a header naming at least ``first`` and ``last``
(1-based, inclusive); other columns become attributes."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TextIO

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import open_text
from splicedalign.workloads.spliced.records import Exon, exon_problem


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


def write_exon_tsv(exons: list[Exon], handle: TextIO) -> None:
    """The TSV that read_exon_tsv reads back (attribute columns in first-seen order)."""
    extra: list[str] = []
    for e in exons:
        extra += [k for k in e.attrs if k not in extra]
    handle.write("\t".join(["first", "last", *extra]) + "\n")
    for e in exons:
        handle.write("\t".join([str(e.first), str(e.last), *(str(e.attrs.get(k, "")) for k in extra)]) + "\n")
