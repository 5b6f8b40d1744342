"""Nucleotide alphabet: validation and the integer codes the solvers compare.

A, C, G, T (U read as T) get codes 0-3 in both sequences. Any IUPAC ambiguity code
(N, R, Y, ...) is accepted but never matches anything, itself included: it is coded 4 in
the base and 5 in the target, so ``base == target`` is false for it whatever the other is.
"""

from __future__ import annotations

import logging

import numpy as np

from splicedalign.core.errors import InputError

log = logging.getLogger("splicedalign")

IUPAC = frozenset("ACGTURYSWKMBDHVN")
BASE_WILDCARD = 4
TARGET_WILDCARD = 5

_lut_base = np.full(256, 255, dtype=np.uint8)
_lut_target = np.full(256, 255, dtype=np.uint8)
for _c in IUPAC:
    for _cc in (_c, _c.lower()):
        _lut_base[ord(_cc)] = BASE_WILDCARD
        _lut_target[ord(_cc)] = TARGET_WILDCARD
for _code, _letters in enumerate(("A", "C", "G", "TU")):
    for _c in _letters:
        for _cc in (_c, _c.lower()):
            _lut_base[ord(_cc)] = _code
            _lut_target[ord(_cc)] = _code


# Ambiguity codes that are also amino-acid letters; N is left out (long N runs are masked or
# unsequenced DNA, not protein).
_PROTEIN_LIKE = np.zeros(256, dtype=bool)
for _c in "RYSWKMBDHV":
    _PROTEIN_LIKE[ord(_c)] = _PROTEIN_LIKE[ord(_c.lower())] = True
PROTEIN_LIKE_FRACTION = 0.5  # above this share of such letters a "nucleotide" record is suspect


class LetterError(InputError):
    """A letter outside the alphabet; ``position`` (1-based in the record) lets a reader name
    the line that holds it."""

    def __init__(self, source: str, problem: str, position: int):
        super().__init__(source, problem)
        self.position = position


def _encode(seq: str, lut: np.ndarray, source: str, record: str) -> np.ndarray:
    raw = np.frombuffer(seq.encode("latin-1", errors="replace"), dtype=np.uint8)
    codes = lut[raw]
    bad = np.flatnonzero(codes == 255)
    if bad.size:
        pos = int(bad[0])
        raise LetterError(
            source,
            f"non-nucleotide letter {seq[pos]!r} at position {pos + 1} of record {record!r}"
            f" ({bad.size} such letter(s); IUPAC codes are accepted)",
            pos + 1,
        )
    return codes


def encode_base(seq: str, source: str = "<base>", record: str = "base") -> np.ndarray:
    """Codes of a base sequence (uint8), raising InputError on non-IUPAC letters."""
    return _encode(seq, _lut_base, source, record)


def encode_target(seq: str, source: str = "<target>", record: str = "target") -> np.ndarray:
    """Codes of a target sequence (uint8), raising InputError on non-IUPAC letters."""
    return _encode(seq, _lut_target, source, record)


# Bytes of the accepted letters and of the protein-like ones, for bytes.translate's deletion
# (a C loop over the record, no array made: half the time of counting with NumPy).
_ACCEPTED = bytes(np.flatnonzero(_lut_base != 255).tolist())
_PROTEIN_LIKE_BYTES = bytes(np.flatnonzero(_PROTEIN_LIKE).tolist())
# the letters ``validate`` passes without a word: accepted, not protein-like
PLAIN_LETTERS = bytes(np.flatnonzero((_lut_base != 255) & ~_PROTEIN_LIKE).tolist())


def plain_nucleotides(raw: bytes) -> bool:
    """Whether the letters ``raw`` (bytes, as read) pass ``validate`` without a word: IUPAC
    nucleotide codes, none protein-like. One C pass; a reader may ask it before decoding."""
    return not raw.translate(None, PLAIN_LETTERS)


def validate(seq: str, source: str, record: str) -> None:
    """Raise InputError unless every letter of ``seq`` is an IUPAC nucleotide code; warn when
    most letters are ambiguity codes (a protein such as MKVRSWHDBN passes the letter check,
    but its letters would never match)."""
    raw = seq.encode("latin-1", errors="replace")
    if plain_nucleotides(raw):  # the common record: one C pass answers both questions
        return
    if raw.translate(None, _ACCEPTED):
        _encode(seq, _lut_base, source, record)  # raises, naming the first such letter
    # share of letters that are IUPAC ambiguity codes other than N (and amino acids too)
    share = (len(raw) - len(raw.translate(None, _PROTEIN_LIKE_BYTES))) / len(raw) if raw else 0.0
    if share > PROTEIN_LIKE_FRACTION:
        log.warning("%s: record %r is %.0f%% IUPAC ambiguity codes (a protein?); they never match,"
                    " so the alignment will be meaningless: give a nucleotide sequence",
                    source, record, 100 * share)
