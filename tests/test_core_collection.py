"""core.collection: the cyclic collector is paused inside and restored after, errors included."""

from __future__ import annotations

import gc

import pytest

from splicedalign.core.collection import collection_paused


def test_paused_inside_and_restored():
    assert gc.isenabled()
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with collection_paused():
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_caller_that_disabled_it_keeps_it_disabled():
    gc.disable()
    try:
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
