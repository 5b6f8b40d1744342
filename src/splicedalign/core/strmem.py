"""Where CPython keeps the letters of a str that is all ASCII: one byte a letter, right after
the object's fixed-size header (PEP 393's compact form), so that a compiled pass can read many
strings from their own memory (``id``) without a Python call a string. The header's size is what
sys.getsizeof('') - 1 measures, checked once on a string made at run time; None (and callers
fall back to Python) on other interpreters or layouts."""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Sequence

import numpy as np


def _str_offset() -> int | None:
    if sys.implementation.name != "cpython":
        return None
    probe = "".join(["ACGTN", "acgtn"] * 7)  # made at run time: no constant
    offset = sys.getsizeof("") - 1
    try:
        ok = ctypes.string_at(id(probe) + offset, len(probe)) == probe.encode("ascii")
    except Exception:  # pragma: no cover - an interpreter that moved its letters
        ok = False
    return offset if ok else None


STR_OFFSET = _str_offset()
# CPython 3.12 dropped the legacy (not compact) form of str (PEP 623): every exact str is compact
# there, so the sizes need no check (sys.getsizeof of 4,000 strings: 0.3 ms of a 0.6 ms call)
ALL_COMPACT = sys.implementation.name == "cpython" and sys.version_info >= (3, 12)


def str_addresses(strings: Sequence[str]) -> np.ndarray | None:
    """Each string's letters' address (int64), where every one is a plain str of ASCII letters
    held in the compact form (its sys.getsizeof is the header, its letters and a NUL), else None.
    The strings must stay alive while the addresses are read (the callers hold them)."""
    if STR_OFFSET is None or not strings or set(map(type, strings)) != {str} or not all(map(str.isascii, strings)):
        return None
    if not ALL_COMPACT:
        held = np.fromiter(map(sys.getsizeof, strings), np.int64, len(strings))
        sizes = np.fromiter(map(len, strings), np.int64, len(strings))
        if not np.array_equal(held, sizes + STR_OFFSET + 1):
            return None
    return np.fromiter(map(id, strings), np.int64, len(strings)) + STR_OFFSET
