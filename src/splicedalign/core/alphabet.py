"""Nucleotide alphabet: validation and the integer codes the solvers compare.

A, C, G, T (U read as T) get codes 0-3 in both sequences. Any IUPAC ambiguity code
(N, R, Y, ...) is accepted but never matches anything, itself included: it is coded 4 in
the base and 5 in the target, so ``base == target`` is false for it whatever the other is.
"""

from __future__ import annotations

import numpy as np

from splicedalign.core.errors import InputError

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


def _encode(seq: str, lut: np.ndarray, source: str, record: str) -> np.ndarray:
    raw = np.frombuffer(seq.encode("latin-1", errors="replace"), dtype=np.uint8)
    codes = lut[raw]
    bad = np.flatnonzero(codes == 255)
    if bad.size:
        pos = int(bad[0])
        raise InputError(
            source,
            f"non-nucleotide letter {seq[pos]!r} at position {pos + 1} of record {record!r}"
            f" ({bad.size} such letter(s); IUPAC codes are accepted)",
        )
    return codes


def encode_base(seq: str, source: str = "<base>", record: str = "base") -> np.ndarray:
    """Codes of a base sequence (uint8), raising InputError on non-IUPAC letters."""
    return _encode(seq, _lut_base, source, record)


def encode_target(seq: str, source: str = "<target>", record: str = "target") -> np.ndarray:
    """Codes of a target sequence (uint8), raising InputError on non-IUPAC letters."""
    return _encode(seq, _lut_target, source, record)


def validate(seq: str, source: str, record: str) -> None:
    """Raise InputError unless every letter of ``seq`` is an IUPAC nucleotide code."""
    _encode(seq, _lut_base, source, record)
