"""Reading sequences: text files ('-' is standard input) and FASTA records, with one-line
errors naming the file and line (InputError). Shared by every workload."""

from __future__ import annotations

import gzip
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from splicedalign.core.alphabet import PLAIN_LETTERS, LetterError, validate
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


# White space a FASTA line's letters may be padded with, dropped wherever it is.
_WHITESPACE = b" \t\r\v\f"
_SPACE = _WHITESPACE + b"\n"
_INDENTED = re.compile(rb"^[ \t\r\v\f]+(?=[>;])", re.MULTILINE)  # an indented header or comment
_COMMENT = re.compile(rb"^;[^\n]*", re.MULTILINE)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)  # os.open's are close-on-exec already


def read_bytes(path: str | Path) -> bytes:
    """The whole content of a file ('-' is standard input; a name ending in .gz is gunzipped).
    Errors name the file."""
    name = path if isinstance(path, str) else str(path)
    try:
        if name == "-":  # the descriptor itself, left open: nothing closes standard input
            return _read_all(sys.stdin.fileno())
        if name.endswith(".gz"):
            with gzip.open(name, "rb") as handle:
                return handle.read()
        fd = os.open(name, _READ_FLAGS)
        try:
            return _read_all(fd)
        finally:
            os.close(fd)
    except (OSError, EOFError) as exc:  # missing, unreadable, a damaged .gz
        raise InputError(name, f"cannot read file: {getattr(exc, 'strerror', None) or exc}") from None


def _read_all(fd: int) -> bytes:
    """Everything left to read from ``fd``. A regular file of known size takes four system calls
    in all (open, fstat, read, close; Python's file object makes seven): a data set is thousands of
    small files. Other files (pipes, standard input, and /proc's, whose size says 0) are read
    until they end; a regular file from where ``fd`` stands."""
    status = os.fstat(fd)
    size = status.st_size if stat.S_ISREG(status.st_mode) else 0
    if size:
        chunk = os.read(fd, size)
        if len(chunk) == size:  # the common file: one read
            return chunk
        chunks, got = [chunk], len(chunk)
        while chunk and got < size:  # short reads: past one read's limit, or a file cut short meanwhile
            chunk = os.read(fd, size - got)
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)
    return b"".join(iter(lambda: os.read(fd, 1 << 16), b""))


def read_text(path: str | Path) -> str:
    """The whole text of a file (UTF-8, bad bytes replaced; newlines as a text file's lines give
    them: \\r\\n and \\r read as \\n), as ``open_text(path).read()`` gives it, from ``read_bytes``."""
    text = read_bytes(path).decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def parse_fasta(data: bytes, source: str, check: Validator = validate) -> list[FastaRecord]:
    """The FASTA records of ``data``, each record's letters checked by ``check`` (default:
    IUPAC nucleotides). Lines starting with ';' are comments; white space anywhere in a
    sequence line is dropped. Whole-text byte operations (split at headers, the newlines of a
    record dropped and its letters checked on its bytes: C loops) rather than a Python loop over
    lines, which read 60 MB/s at best."""
    comments = b";" in data
    if not comments and data.find(b">", 1) < 0:  # no '>' past the first letter: one record (or none)
        parts, odd = [data], False  # what the split below gives, without its pass over the data
    else:
        parts = data.split(b"\n>")  # headers at line starts (the first part is before the first)
        # a '>' left in a part (past the first part's own) is not at a line start; memchr scans, no count
        odd = (comments or parts[0].find(b">", 1 if data.startswith(b">") else 0) >= 0
               or any(b">" in part for part in parts[1:]))
    if odd:
        # rare: a '>' elsewhere (an indented header?) or a ';' (a comment?): such lines found
        # by their first letter, comments emptied (lines kept, for numbering)
        data = _COMMENT.sub(b"", _INDENTED.sub(b"", data))
        parts = data.split(b"\n>")
    lead = data.startswith(b">")  # the first part still starts with its '>' (cut from its header line)
    if not lead:
        before = parts.pop(0)
        if before.translate(None, _SPACE):
            first = before.count(b"\n", 0, len(before) - len(before.lstrip())) + 1
            raise InputError(source, "sequence data before the first '>' header (not FASTA?)",
                             where=f"line {first}")
        if not parts:
            return []
    line = 1 if lead else before.count(b"\n") + 2
    records, last = [], len(parts) - 1
    for i, part in enumerate(parts):
        # the part's newlines dropped in one copy, header included (it has none past its end):
        # the letters are joined[at:], decoded from there, so the body is never cut out on its own
        # (a base's megabytes copied once less, and touched once less in fresh memory)
        at = part.find(b"\n")
        at = len(part) if at < 0 else at
        joined = part.replace(b"\n", b"")  # the common record's only white space (a copy ~3x faster than translate)
        head = joined[1:at] if lead else joined[:at]  # a header's '>' cut here, not from the whole part
        lead = False
        text = head.decode("utf-8", errors="replace").strip()
        rid = text.split(None, 1)[0] if text else ""  # stripped: a text has a first word
        # its letters checked on their bytes (no white space left either): the letters not plain
        # of the whole are the header's and the body's, in order
        plain = (check is validate and len(joined.translate(None, PLAIN_LETTERS))
                 == len(joined[:at].translate(None, PLAIN_LETTERS)))
        if plain:
            seq = str(memoryview(joined)[at:], "utf-8", "replace")  # decoded where the letters lie
        else:
            seq = joined[at:].translate(None, _SPACE).decode("utf-8", errors="replace")
        if not seq:
            raise InputError(source, f"record {rid!r} has no sequence", where=f"line {line}")
        if not plain:
            try:
                check(seq, f"{source}:line {line}", rid)
            except LetterError as exc:
                body = part[at + 1:]
                raise InputError(source, exc.problem, where=f"line {line + _line_of(body, exc.position)}") from None
        records.append(FastaRecord(rid, text, seq))
        if i < last:  # the next record's line (a single record's lines need no count)
            line += part.count(b"\n") + 1
    return records


def _line_of(body: bytes, position: int) -> int:
    """The line of ``body`` (1 = the first after its header) holding its ``position``-th letter."""
    done = 0
    for number, text in enumerate(body.split(b"\n"), 1):
        done += len(text.translate(None, _WHITESPACE).decode("utf-8", errors="replace"))
        if position <= done:
            return number
    return number


def iter_fasta(handle: Iterable[str], source: str, check: Validator = validate) -> Iterator[FastaRecord]:
    """FASTA records from text lines (a text handle, or lines with or without their newlines)."""
    text = "".join(line if line.endswith("\n") else line + "\n" for line in handle)
    yield from parse_fasta(text.encode("utf-8", errors="replace"), source, check)


def read_fasta(path: str | Path, check: Validator = validate) -> list[FastaRecord]:
    return parse_fasta(read_bytes(path), str(path), check)


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
