"""Batches of pairs for ``nw --pairs FILE``: a FASTA file of consecutive pairs (records 1 and 2
are the first pair's seq1 and seq2, 3 and 4 the second's, ...) or a TSV file with one pair a
line, either ``seq1<TAB>seq2`` or ``id1<TAB>seq1<TAB>id2<TAB>seq2`` ('#' lines and blank lines
are skipped). Errors name the file and the record or line (InputError)."""

from __future__ import annotations

import mmap
import os
import stat
from collections.abc import Callable

import numpy as np

from splicedalign.core import forked
from splicedalign.core.alphabet import LetterError, validate
from splicedalign.core.errors import InputError
from splicedalign.core.seqio import FastaRecord, parse_fasta, read_bytes
from splicedalign.workloads.nw.batches import Allocate, PairBatch


def read_pairs(path: str) -> list[tuple[FastaRecord, FastaRecord]]:
    """The file's pairs in order. Read as bytes once and parsed by ``core.seqio.parse_fasta``
    (2,000 pairs of 10 kb, 40 MB: 0.33 s on the 2-core machine, where decoding the text, going
    through its lines and joining them again took 0.67 s)."""
    data = read_bytes(path)
    first = _first_line(data)
    if not first:
        raise InputError(path, "no pairs (empty file?)")
    if first.startswith(b">"):
        records = parse_fasta(data, path)
        if len(records) % 2:
            raise InputError(path, f"{len(records)} FASTA records: pairs need an even number (the last, "
                                   f"{records[-1].id!r}, has no partner)")
        return [(records[k], records[k + 1]) for k in range(0, len(records), 2)]
    return _tsv_pairs(data.decode("utf-8", errors="replace"), path)


def _first_line(data: bytes) -> bytes:
    """The first line that is neither blank nor a '#' comment, without its leading white space
    (b"" when there is none)."""
    at = 0
    while at < len(data):
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        line = data[at:end]
        if line.strip() and not line.startswith(b"#"):
            return line.lstrip()
        at = end + 1
    return b""


def _tsv_pairs(text: str, path: str) -> list[tuple[FastaRecord, FastaRecord]]:
    pairs = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.rstrip("\n").split("\t")]
        if len(fields) == 2:
            k = len(pairs) + 1
            ids, seqs = (f"pair{k}_1", f"pair{k}_2"), fields
        elif len(fields) == 4:
            ids, seqs = (fields[0], fields[2]), (fields[1], fields[3])
        else:
            raise InputError(path, f"{len(fields)} tab-separated fields, expected 2 (seq1, seq2) or 4 "
                                   "(id1, seq1, id2, seq2)", where=f"line {lineno}")
        records = []
        for rid, seq in zip(ids, seqs):
            if not seq:
                raise InputError(path, f"empty sequence for {rid!r}", where=f"line {lineno}")
            try:
                validate(seq, f"{path}:line {lineno}", rid)
            except LetterError as exc:
                raise InputError(path, exc.problem, where=f"line {lineno}") from None
            records.append(FastaRecord(rid, rid, seq))
        pairs.append((records[0], records[1]))
    return pairs


def pair_name(id1: str, id2: str) -> str:
    """A pair's name from its sequences' ids: id1~id2."""
    return f"{id1}~{id2}"


def read_batch(path: str, allocate: Allocate | None = None) -> PairBatch:
    """The file's pairs as a ``PairBatch`` (named by ``pair_name``), its buffer from ``allocate``
    (``PairBatch.from_strings``)."""
    records = read_pairs(path)
    ids1, ids2 = _ids(records)
    return PairBatch.from_strings([first.seq for first, _ in records], [second.seq for _, second in records],
                                  list(map(pair_name, ids1, ids2)), ids1, ids2, allocate)


def _ids(records: list[tuple[FastaRecord, FastaRecord]]) -> tuple[list[str], list[str]]:
    """(seq1's ids, seq2's ids) of the pairs."""
    return [first.id for first, _ in records], [second.id for _, second in records]


def batch_beside(path: str) -> tuple[Callable[[Allocate | None], PairBatch], bool]:
    """``read_batch`` of a regular file, in a forked child process (core.forked) while this one
    sets up its solver (numba's and CuPy's imports, the CUDA context: a fresh ``nw --pairs`` of
    2,000 pairs of 10 kb, 40 MB, spent ~0.1 s of the 2-core machine reading them): the child
    writes every sequence's letters, in order, into memory it shares with this process (an
    anonymous shared mapping as large as the file: letters never outnumber its bytes) and sends
    back the ids and sizes alone. Returns the function that gives the batch (its buffer then that
    mapping; ``allocate`` is for a file read here: standard input, .gz, or where no child runs)
    and whether a child reads it."""
    def here(allocate: Allocate | None) -> PairBatch:
        return read_batch(path, allocate)

    try:
        status = os.stat(path)
    except OSError:
        status = None
    if status is None or not stat.S_ISREG(status.st_mode) or path.endswith(".gz") or not forked.ENABLED:
        return here, False
    shared = mmap.mmap(-1, max(1, status.st_size))

    def read() -> tuple[list[str], list[str], np.ndarray]:
        records = read_pairs(path)
        sizes, at = np.empty(2 * len(records), np.int64), 0
        for q, record in enumerate(r for pair in records for r in pair):
            letters = record.seq.encode("latin-1", errors="replace")  # (past latin-1: '?', refused later)
            shared[at:at + len(letters)] = letters
            sizes[q], at = len(letters), at + len(letters)
        return *_ids(records), sizes

    wait = forked.start(read)
    if wait is read:  # (no child could start: read here)
        return here, False

    def batch(allocate: Allocate | None) -> PairBatch:
        ids1, ids2, sizes = wait()
        letters = np.frombuffer(shared, np.uint8)[:int(sizes.sum())]
        return PairBatch(letters, sizes, list(map(pair_name, ids1, ids2)), ids1, ids2)

    return batch, True
