"""The built-in exon table: tab-separated, a header naming at least ``first`` and ``last``
(1-based, inclusive); other columns become attributes. An optional ``strand`` column (``+``,
``-``, or ``.``/empty for "+") says which strand of the base the exon codes on.

``read_table`` is the one tab-separated reader of the package (exon tables, manifests): plain
tab splitting, no quoting rules and no field-size limit (the csv module stops at 131,072
characters per field with an exception that names neither file nor line)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import TextIO

import numpy as np

from splicedalign.core.errors import InputError
from splicedalign.core.seqio import read_text
from splicedalign.workloads.spliced.records import Exon, Exons, exon_problem


def shown(value: str, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters so an error stays one readable line."""
    return repr(value) if len(value) <= limit else f"{value[:limit]!r}... ({len(value):,} characters)"


def _int_field(value: str, name: str, source: str, line: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(source, f"{name} must be an integer, got {shown(value)}", where=f"line {line}") from None


STRANDS = {"+": "+", "-": "-", ".": "+", "": "+"}  # strand column value -> strand used
# White space that str.strip() would take off a field (re's \s is str.isspace), other than the
# tab and newline the table is split at: a text without any needs no per-field strip.
_PADDING = re.compile(r"[^\S\t\n]")


@dataclass(frozen=True)
class Table:
    """A tab-separated table: header and rows (their fields, stripped) held as columns, with
    the rows' line numbers."""

    source: str
    header_line: int
    header: tuple[str, ...]
    lines: Sequence[int]  # each row's line number
    columns: tuple[list[str], ...]  # each column's fields, one per row

    @property
    def rows(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        """(line number, fields) of each row."""
        return zip(self.lines, zip(*self.columns))

    def records(self) -> Iterator[tuple[int, dict[str, str]]]:
        """(line number, {column: value}) of each row."""
        for lineno, fields in self.rows:
            yield lineno, dict(zip(self.header, fields))


def read_table(path: str | Path, what: str, required: tuple[str, ...]) -> Table:
    """A tab-separated table (blank lines and ``#`` lines skipped) whose header has the
    ``required`` columns; every row has the header's number of fields. ``what`` names the
    table in errors."""
    source = str(path)
    text = read_text(path)  # newlines as the lines' iteration gives them; one split, not a loop
    padded = _PADDING.search(text) is not None  # else every field is stripped already
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    plain = not (padded or text.startswith(("\t", "#", "\n")) or "\n\t" in text or "\n\n" in text or "\n#" in text)
    if not plain or not lines:  # lines to skip: blank (white space only, when padded) and '#' lines
        kept = [(i, line) for i, line in enumerate(lines, 1)
                if (line.strip() if padded or line[:1] == "\t" else line) and line[0] != "#"]
        lines, numbers = [line for _, line in kept], [i for i, _ in kept]
    else:  # the common table: no line to skip, none to strip: whole-text splits below
        numbers = range(1, len(lines) + 1)
    if not lines:
        raise InputError(source, f"empty {what} (no header)")
    header_line, body, numbers = numbers[0], lines[1:], numbers[1:]
    header = tuple(h.strip() for h in lines[0].split("\t"))
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(source, f"header lacks column(s) {', '.join(missing)}; it has {list(header)}",
                         where=f"line {header_line}")
    width = len(header)
    if set(map(str.count, body, repeat("\t"))) - {width - 1}:  # a row of other width: the first named
        lineno, fields = next((i, n + 1) for i, n in zip(numbers, map(str.count, body, repeat("\t"))) if n != width - 1)
        raise InputError(source, f"{fields} columns, header has {width}", where=f"line {lineno}")
    fields = "\t".join(body).split("\t") if body else []
    if padded:
        fields = [f.strip() for f in fields]
    return Table(source, header_line, header, numbers, tuple(fields[j::width] for j in range(width)))


def read_exon_tsv(path: str | Path, m: int) -> Exons:
    """Exons from a tab-separated table whose header names at least ``first`` and ``last``.

    Other columns become attributes. Every row is checked against the base length m. The
    exons come as columns (``records.Exons``: their records are made when asked for).
    """
    table = read_table(path, "exon table", ("first", "last"))
    source, header = table.source, table.header
    at_first, at_last = header.index("first"), header.index("last")
    others = [(j, name) for j, name in enumerate(header) if j not in (at_first, at_last)]
    at_strand = header.index("strand") if "strand" in header else None
    if not table.lines:
        raise InputError(source, "no exons (the table has a header only)")
    columns = list(table.columns)  # whole columns: C loops, not one per row
    try:
        first, last = list(map(int, columns[at_first])), list(map(int, columns[at_last]))
        bounds = np.array((first, last), dtype=np.int64)
        good = bool(((1 <= bounds[0]) & (bounds[0] <= bounds[1]) & (bounds[1] <= m)).all())
    except (ValueError, OverflowError):  # a bad field: the row loop below names its line
        good = False
    if at_strand is not None:
        strands = columns[at_strand]
        good = good and set(strands) <= STRANDS.keys()
    if not good:
        _first_bad_row(table, m, at_first, at_last, at_strand)
    if at_strand is not None:
        columns[at_strand] = [STRANDS[s] for s in strands]
    return Exons(bounds.T.copy(), [name for _, name in others], [columns[j] for j, _ in others])


def _first_bad_row(table: Table, m: int, at_first: int, at_last: int, at_strand: int | None) -> None:
    """Raise the error of the first bad row of an exon table (row order: what a row loop says)."""
    for lineno, fields in table.rows:
        first = _int_field(fields[at_first], "first", table.source, lineno)
        last = _int_field(fields[at_last], "last", table.source, lineno)
        if not 1 <= first <= last <= m:
            raise InputError(table.source, exon_problem(first, last, m), where=f"line {lineno}")
        if at_strand is not None and fields[at_strand] not in STRANDS:
            raise InputError(table.source, f"strand must be +, - or . (or empty), got {shown(fields[at_strand])}",
                             where=f"line {lineno}")
    raise AssertionError("an exon table's rows were found bad and then good")


def write_exon_tsv(exons: list[Exon], handle: TextIO) -> None:
    """The TSV that read_exon_tsv reads back (attribute columns in first-seen order)."""
    extra: list[str] = []
    for e in exons:
        extra += [k for k in e.attrs if k not in extra]
    handle.write("\t".join(["first", "last", *extra]) + "\n")
    for e in exons:
        handle.write("\t".join([str(e.first), str(e.last), *(str(e.attrs.get(k, "")) for k in extra)]) + "\n")
