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


def test_settle_moves_what_the_call_made_to_the_oldest_generation():
    """``settle`` (run while a call waits) passes over the young generations once a collection
    is due: what the call made so far leaves them, and no young pass is due when the pause
    ends; unreachable cycles are still found; nothing happens if the caller turned the
    collector off or no collection is due."""
    with collection_paused() as settle:
        made = [[] for _ in range(2 * gc.get_threshold()[0])]
        cycle = [None]
        cycle[0] = cycle
        settle()
        assert gc.get_count()[0] < gc.get_threshold()[0] and _in_generation(made + [cycle], 2)
    del cycle
    assert gc.collect() >= 1
    with collection_paused() as settle:
        few = [[] for _ in range(3)]
        settle()
        assert not _in_generation(few, 2)
    gc.disable()
    try:
        with collection_paused() as settle:
            kept = [[] for _ in range(2 * gc.get_threshold()[0])]
            settle()
            assert gc.get_count()[0] > gc.get_threshold()[0] and not _in_generation(kept, 2)
    finally:
        gc.enable()
