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


def _in_generation(objects: list, generation: int) -> bool:
    held = {id(o) for o in gc.get_objects(generation=generation)}
    return all(id(o) in held for o in objects)


def test_the_calls_objects_leave_paused_in_the_oldest_generation():
    """What a paused call made joins the oldest generation on the way out (no young pass over
    it); unreachable cycles among it are still found by a full collection; objects a caller
    froze stay frozen."""
    with collection_paused():
        made = [[] for _ in range(1_000)]
        cycle = [None]
        cycle[0] = cycle
    assert _in_generation(made + [cycle], 2) and gc.get_count()[0] < 1_000
    del cycle
    assert gc.collect() >= 1
    kept = [[] for _ in range(10)]
    gc.freeze()
    try:
        with collection_paused():
            young = [[] for _ in range(10)]
        assert gc.get_freeze_count() > 0 and not _in_generation(kept, 2) and not _in_generation(young, 2)
    finally:
        gc.unfreeze()
