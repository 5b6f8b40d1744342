"""core.strmem: the letters of ASCII str objects read from their own memory, or None."""

from __future__ import annotations

import ctypes

import pytest

from splicedalign.core import strmem


def test_addresses_read_back_the_letters_and_refuse_other_strings():
    if strmem.STR_OFFSET is None:
        pytest.skip("not CPython's layout: the callers fall back to Python")
    strings = ["".join(["AC", "gt"] * k) for k in range(1, 6)] + ["N" * 3000, "x"]
    at = strmem.str_addresses(strings)
    assert at is not None and [ctypes.string_at(a, len(s)).decode() for a, s in zip(at.tolist(), strings)] == strings

    class Text(str):
        pass

    for odd in ([*strings, Text("ACGT")], [*strings, "AC\u00e9"], []):  # a subclass, not ASCII, none
        assert strmem.str_addresses(odd) is None
