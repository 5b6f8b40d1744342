"""Substitution matrices as data, the protein alphabet and its integer codes.

BLOSUM62 below is the NCBI matrix (Henikoff & Henikoff 1992, "matblas from blosum62.iij",
1/2-bit units), text as distributed by NCBI BLAST and Biopython
(``Bio/Align/substitution_matrices/data/BLOSUM62``); ``tests/test_sw_matrices.py`` cross-checks
it against Biopython's copy. Codes follow the matrix's own letter order (A=0 ... *=23).

Letters: the matrix's 24 (upper or lower case); ``U`` (selenocysteine), ``O`` (pyrrolysine) and
``J`` (Leu/Ile) are read as ``X``, the matrix's unknown residue, as BLAST does for U and O. Any
other letter is an input error naming the record and the position.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from splicedalign.core.errors import InputError

BLOSUM62_TEXT = """\
   A  R  N  D  C  Q  E  G  H  I  L  K  M  F  P  S  T  W  Y  V  B  Z  X  *
A  4 -1 -2 -2  0 -1 -1  0 -2 -1 -1 -1 -1 -2 -1  1  0 -3 -2  0 -2 -1  0 -4
R -1  5  0 -2 -3  1  0 -2  0 -3 -2  2 -1 -3 -2 -1 -1 -3 -2 -3 -1  0 -1 -4
N -2  0  6  1 -3  0  0  0  1 -3 -3  0 -2 -3 -2  1  0 -4 -2 -3  3  0 -1 -4
D -2 -2  1  6 -3  0  2 -1 -1 -3 -4 -1 -3 -3 -1  0 -1 -4 -3 -3  4  1 -1 -4
C  0 -3 -3 -3  9 -3 -4 -3 -3 -1 -1 -3 -1 -2 -3 -1 -1 -2 -2 -1 -3 -3 -2 -4
Q -1  1  0  0 -3  5  2 -2  0 -3 -2  1  0 -3 -1  0 -1 -2 -1 -2  0  3 -1 -4
E -1  0  0  2 -4  2  5 -2  0 -3 -3  1 -2 -3 -1  0 -1 -3 -2 -2  1  4 -1 -4
G  0 -2  0 -1 -3 -2 -2  6 -2 -4 -4 -2 -3 -3 -2  0 -2 -2 -3 -3 -1 -2 -1 -4
H -2  0  1 -1 -3  0  0 -2  8 -3 -3 -1 -2 -1 -2 -1 -2 -2  2 -3  0  0 -1 -4
I -1 -3 -3 -3 -1 -3 -3 -4 -3  4  2 -3  1  0 -3 -2 -1 -3 -1  3 -3 -3 -1 -4
L -1 -2 -3 -4 -1 -2 -3 -4 -3  2  4 -2  2  0 -3 -2 -1 -2 -1  1 -4 -3 -1 -4
K -1  2  0 -1 -3  1  1 -2 -1 -3 -2  5 -1 -3 -1  0 -1 -3 -2 -2  0  1 -1 -4
M -1 -1 -2 -3 -1  0 -2 -3 -2  1  2 -1  5  0 -2 -1 -1 -1 -1  1 -3 -1 -1 -4
F -2 -3 -3 -3 -2 -3 -3 -3 -1  0  0 -3  0  6 -4 -2 -2  1  3 -1 -3 -3 -1 -4
P -1 -2 -2 -1 -3 -1 -1 -2 -2 -3 -3 -1 -2 -4  7 -1 -1 -4 -3 -2 -2 -1 -2 -4
S  1 -1  1  0 -1  0  0  0 -1 -2 -2  0 -1 -2 -1  4  1 -3 -2 -2  0  0  0 -4
T  0 -1  0 -1 -1 -1 -1 -2 -2 -1 -1 -1 -1 -2 -1  1  5 -2 -2  0 -1 -1  0 -4
W -3 -3 -4 -4 -2 -2 -3 -2 -2 -3 -2 -3 -1  1 -4 -3 -2 11  2 -3 -4 -3 -2 -4
Y -2 -2 -2 -3 -2 -1 -2 -3  2 -1 -1 -2 -1  3 -3 -2 -2  2  7 -1 -3 -2 -1 -4
V  0 -3 -3 -3 -1 -2 -2 -3 -3  3  1 -2  1 -1 -2 -2  0 -3 -1  4 -3 -2 -1 -4
B -2 -1  3  4 -3  0  1 -1  0 -3 -4  0 -3 -3 -2  0 -1 -4 -3 -3  4  1 -1 -4
Z -1  0  0  1 -3  3  4 -2  0 -3 -3  1 -1 -3 -1  0 -1 -3 -2 -2  1  4 -1 -4
X  0 -1 -1 -1 -2 -1 -1 -1 -1 -1 -1 -1 -1 -1 -2  0  0 -2 -1 -1 -1 -1 -1 -4
* -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4  1
"""

MATRICES = {"blosum62": BLOSUM62_TEXT}
ALIASES = {"U": "X", "O": "X", "J": "X"}  # letters outside the matrix read as its unknown residue
PAD = 31  # code of padding (past a sequence's end): scores PAD_SCORE against everything
PAD_SCORE = -1024  # low enough that a cell on padding never beats the real cells it derives from
CODES = 32  # rows of a padded table: every code (letters, padding) is < CODES


def parse(text: str) -> tuple[str, np.ndarray]:
    """Letters and square score table of a matrix in NCBI text format."""
    lines = [line.split() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    letters = "".join(lines[0])
    table = np.array([[int(v) for v in row[1:]] for row in lines[1:]], dtype=np.int32)
    if "".join(row[0] for row in lines[1:]) != letters or table.shape != (len(letters),) * 2:
        raise ValueError("matrix text: row letters differ from the column letters")
    return letters, table


@lru_cache(maxsize=None)
def matrix(name: str) -> tuple[str, np.ndarray]:
    """(letters, table) of a named matrix; InputError for unknown names."""
    try:
        text = MATRICES[name.lower()]
    except KeyError:
        raise InputError("--matrix", f"unknown matrix {name!r}; known: {', '.join(MATRICES)}") from None
    letters, table = parse(text)
    table.setflags(write=False)
    return letters, table


@lru_cache(maxsize=None)
def padded_table(name: str) -> np.ndarray:
    """CODES x CODES int32 table: the matrix in its corner, PAD_SCORE everywhere else (codes
    that never occur in input and the padding code)."""
    _, table = matrix(name)
    out = np.full((CODES, CODES), PAD_SCORE, dtype=np.int32)
    out[: len(table), : len(table)] = table
    out.setflags(write=False)
    return out


@lru_cache(maxsize=None)
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
    """A core.seqio validator for protein records scored with matrix ``name``."""
    def check(seq: str, source: str, record: str) -> None:
        encode(seq, name, source, record)
    return check


def max_score(name: str) -> int:
    """The largest entry of the matrix: no cell of a local alignment grows by more per step."""
    return int(matrix(name)[1].max())
