"""core.strmem: the letters of ASCII str objects read from their own memory, or None."""

from __future__ import annotations

import ctypes
import sys

import pytest

from splicedalign.core import strmem


@pytest.mark.parametrize("compact", (False, True))
def test_addresses_read_back_the_letters_and_refuse_other_strings(compact, monkeypatch):
    """With the sizes checked (CPython < 3.12) or not (ALL_COMPACT: every exact str compact)."""
    monkeypatch.setattr(strmem, "ALL_COMPACT", compact)
    if strmem.STR_OFFSET is None:
        pytest.skip("not CPython's layout: the callers fall back to Python")
    strings = ["".join(["AC", "gt"] * k) for k in range(1, 6)] + ["N" * 3000, "x"]
    at = strmem.str_addresses(strings)
    assert at is not None and [ctypes.string_at(a, len(s)).decode() for a, s in zip(at.tolist(), strings)] == strings

    class Text(str):
        pass

    for odd in ([*strings, Text("ACGT")], [*strings, "AC\u00e9"], []):  # a subclass, not ASCII, none
        assert strmem.str_addresses(odd) is None


def test_every_exact_ascii_str_is_compact_where_all_compact_says_so():
    """ALL_COMPACT's premise: the str objects a program makes (literals, joins, slices, decoded
    bytes, repeats) have their letters right after the header (sys.getsizeof says so)."""
    if strmem.STR_OFFSET is None or not strmem.ALL_COMPACT:
        pytest.skip("the sizes are checked on this interpreter")
    made = ["ACGT", "".join(["AC", "gt"] * 50), ("N" * 9000)[5:700], b"acgtn".decode("ascii"), "G" * 70_000,
            str(12345), "x".upper()]
    assert all(sys.getsizeof(s) == len(s) + strmem.STR_OFFSET + 1 for s in made)
