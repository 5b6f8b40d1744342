"""Reading sequences: text files ('-' is standard input) and FASTA records, with one-line
errors naming the file and line (InputError). Shared by every workload."""

from __future__ import annotations

import gzip
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, TextIO

from splicedalign.core.alphabet import LetterError, validate
from splicedalign.core.errors import InputError

# A validator checks a record's letters: (seq, source, record id) -> None or InputError.
Validator = Callable[[str, str, str], None]


@dataclass(frozen=True)
class FastaRecord:
    id: str
    description: str
    seq: str


def open_text(path: str | Path) -> TextIO:
    """Open a text file for reading ('-' is standard input; a name ending in .gz is
    gunzipped). Errors name the file."""
    if str(path) == "-":
        return open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False)
    try:
        if str(path).endswith(".gz"):
            return gzip.open(path, "rt", encoding="utf-8", errors="replace")
        return open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(str(path), f"cannot read file: {exc.strerror or exc}") from None


def iter_fasta(handle: TextIO, source: str, check: Validator = validate) -> Iterator[FastaRecord]:
    """FASTA records; a record's letters are checked by ``check`` (default: IUPAC nucleotides)."""
    header: str | None = None
    header_line = 0
    chunks: list[str] = []
    lines: list[int] = []  # line number of each chunk, to name the line of a bad letter
    try:
        for lineno, line in enumerate(handle, 1):
            line = line.strip()
            if not line or line.startswith(";"):
                continue
            if line.startswith(">"):
                if header is not None:
                    yield _record(header, chunks, lines, source, header_line, check)
                header, header_line, chunks, lines = line[1:].strip(), lineno, [], []
            elif header is None:
                raise InputError(source, "sequence data before the first '>' header (not FASTA?)",
                                 where=f"line {lineno}")
            else:
                chunks.append(line.replace(" ", ""))
                lines.append(lineno)
    except (OSError, EOFError) as exc:  # e.g. a damaged .gz
        raise InputError(source, f"cannot read file: {exc}") from None
    if header is not None:
        yield _record(header, chunks, lines, source, header_line, check)


def _record(header: str, chunks: list[str], lines: list[int], source: str, line: int,
            check: Validator) -> FastaRecord:
    seq = "".join(chunks)
    rid = header.split()[0] if header.split() else ""
    if not seq:
        raise InputError(source, f"record {rid!r} has no sequence", where=f"line {line}")
    try:
        check(seq, f"{source}:line {line}", rid)
    except LetterError as exc:
        end = 0
        for chunk, lineno in zip(chunks, lines):
            end += len(chunk)
            if exc.position <= end:
                raise InputError(source, exc.problem, where=f"line {lineno}") from None
        raise
    return FastaRecord(rid, header, seq)


def read_fasta(path: str | Path, check: Validator = validate) -> list[FastaRecord]:
    with open_text(path) as handle:
        return list(iter_fasta(handle, str(path), check))


def no_record(path: str | Path) -> InputError:
    """The error for a FASTA input without any record: an empty file, or nothing piped in."""
    return InputError(str(path), "no FASTA record (nothing piped in?)" if str(path) == "-"
                      else "no FASTA record (empty file?)")


def read_single_fasta(path: str | Path, check: Validator = validate) -> FastaRecord:
    """The one record of a single-record FASTA file."""
    records = read_fasta(path, check)
    if not records:
        raise no_record(path)
    if len(records) > 1:
        raise InputError(
            str(path),
            f"{len(records)} FASTA records, expected exactly one"
            f" ({', '.join(r.id for r in records[:3])}{', ...' if len(records) > 3 else ''})",
        )
    return records[0]
