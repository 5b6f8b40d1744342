"""core.timing.time_repeats: warm-up untimed, ``before`` before each timed run, and a run's
result let go before the next run (its freeing is not the next run's work)."""

from __future__ import annotations

import weakref

import pytest

from splicedalign.core.timing import time_repeats


class _Records:
    pass


def test_runs_before_hook_and_results_let_go_first():
    calls, alive = [], []
    previous = None

    def run():
        nonlocal previous
        alive.append(previous is not None and previous() is not None)
        calls.append("run")
        out = _Records()
        previous = weakref.ref(out)
        return out

    timing, last = time_repeats(run, 3, warmup=1, before=lambda: calls.append("before"))
    assert calls == ["run", "before", "run", "before", "run", "before", "run"]
    assert alive == [False] * 4  # no earlier result alive when a run starts
    assert len(timing.runs) == 3 and isinstance(last, _Records) and previous() is last


def test_at_least_one_run():
    with pytest.raises(ValueError):
        time_repeats(lambda: None, 0)
