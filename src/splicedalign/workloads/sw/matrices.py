"""Substitution matrices as data, the protein alphabet and its integer codes.

Matrices are data generated from Biopython's ``Bio.Align.substitution_matrices`` (the NCBI
files) into ``matrix_data.py`` by ``scripts/build_sw_matrices.py``; ``tests/test_sw_scoring.py``
checks them against Biopython. Every one has the same 24 letters in the same order, so the codes
(A=0 ... *=23) and a prepared database do not depend on the matrix.

Letters: the matrix's 24 (upper or lower case); ``U`` (selenocysteine), ``O`` (pyrrolysine) and
``J`` (Leu/Ile) are read as ``X``, the matrix's unknown residue, as BLAST does for U and O. Any
other letter is an input error naming the record and the position.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from splicedalign.core.errors import InputError
from splicedalign.workloads.sw.matrix_data import MATRIX_DATA

ALPHABET = "ARNDCQEGHILKMFPSTWYVBZX*"  # every matrix's letters, in code order
MATRICES = tuple(MATRIX_DATA)

ALIASES = {"U": "X", "O": "X", "J": "X"}  # letters outside the matrix read as its unknown residue
PAD = 31  # code of padding (past a sequence's end): scores PAD_SCORE against everything
PAD_SCORE = -1024  # low enough that a cell on padding never beats the real cells it derives from
CODES = 32  # rows of a padded table: every code (letters, padding) is < CODES


@cache
def matrix(name: str) -> tuple[str, np.ndarray]:
    """(letters, table) of a named matrix; InputError for unknown names."""
    try:
        letters, rows = MATRIX_DATA[name.lower()]
    except KeyError:
        raise InputError("--matrix", f"unknown matrix {name!r}; known: {', '.join(MATRICES)}") from None
    if letters != ALPHABET:
        raise ValueError(f"matrix {name}: letters {letters} differ from the shared alphabet")
    table = np.array(rows, dtype=np.int32)
    table.setflags(write=False)
    return letters, table


@cache
def padded_table(name: str) -> np.ndarray:
    """CODES x CODES int32 table: the matrix in its corner, PAD_SCORE everywhere else (codes
    that never occur in input and the padding code)."""
    _, table = matrix(name)
    out = np.full((CODES, CODES), PAD_SCORE, dtype=np.int32)
    out[: len(table), : len(table)] = table
    out.setflags(write=False)
    return out


@cache
def _lut(name: str) -> np.ndarray:
    letters, _ = matrix(name)
    lut = np.full(256, 255, dtype=np.uint8)
    for code, letter in enumerate(letters):
        lut[ord(letter)] = lut[ord(letter.lower())] = code
    for alias, target in ALIASES.items():
        lut[ord(alias)] = lut[ord(alias.lower())] = letters.index(target)
    return lut


def encode(seq: str, name: str = "blosum62", source: str = "<sequence>", record: str = "sequence") -> np.ndarray:
    """Codes (uint8) of a protein sequence; InputError naming record and 1-based position of
    the first letter outside the matrix's alphabet."""
    raw = np.frombuffer(seq.encode("latin-1", errors="replace"), dtype=np.uint8)
    codes = _lut(name)[raw]
    bad = np.flatnonzero(codes == 255)
    if bad.size:
        pos = int(bad[0])
        letters, _ = matrix(name)
        raise InputError(
            source,
            f"letter {seq[pos]!r} at position {pos + 1} of record {record!r} is not in {name.upper()}'s alphabet"
            f" ({letters}; U, O, J read as X) ({bad.size} such letter(s))",
        )
    return codes


def validator(name: str = "blosum62"):
    """A core.seqio validator for protein records scored with matrix ``name``: a deletion of
    the alphabet's bytes (bytes.translate, no arrays) answers the common case; a record with
    anything left over goes through ``encode`` for the error naming the letter and position."""
    letters, _ = matrix(name)
    allowed = (letters + letters.lower() + "".join(ALIASES) + "".join(ALIASES).lower()).encode()

    def check(seq: str, source: str, record: str) -> None:
        if seq.encode("latin-1", errors="replace").translate(None, allowed):
            encode(seq, name, source, record)
    return check


def max_score(name: str) -> int:
    """The largest entry of the matrix: no cell of a local alignment grows by more per step."""
    return int(matrix(name)[1].max())
