"""core.timing.time_repeats: warm-up untimed, ``before`` before each timed run, and a run's
result let go before the next run (its freeing is not the next run's work)."""

from __future__ import annotations

import weakref

import pytest

from splicedalign.core import timing as timing_module
from splicedalign.core.timing import Timing, repeats_for, time_repeats


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


def test_timing_is_the_median_of_the_runs_and_keeps_their_spread():
    """One slow outlier among steady runs moves the mean but not the median (the figure the
    tables report), and stays visible in min, max and spread."""
    timing = Timing((1.0, 1.0, 10.0))
    assert timing.median == 1.0  # the mean would be 4.0
    assert (timing.min, timing.max, timing.spread) == (1.0, 10.0, 10.0)
    assert timing.as_dict() == {"seconds": 1.0, "seconds_min": 1.0, "seconds_max": 10.0,
                                "seconds_runs": [1.0, 1.0, 10.0]}
    assert Timing((3.0, 1.0, 2.0, 10.0)).median == 2.5  # even count: the middle two's mean


def test_repeats_for_fills_the_seconds_within_the_bounds():
    """The benchmarks' repeat count: enough calls of the first call's time for the seconds asked
    (rounded up), never fewer than least nor more than most; a call timed at 0 s takes most."""
    assert repeats_for(0.2, 0.01, 15, 400) == 20
    assert repeats_for(0.2, 0.03, 15, 400) == 15  # 7 would fill the seconds: least
    assert repeats_for(0.05, 0.003, 5, 500) == 17  # 16.7 rounded up
    assert repeats_for(0.2, 1e-5, 15, 400) == repeats_for(0.2, 0.0, 15, 400) == 400


def test_time_repeats_reports_the_median_run():
    """Through time_repeats with a fake clock: runs of 1, 1 and 10 s give 1 s, not the mean."""
    ticks = iter([0.0, 1.0, 1.0, 2.0, 2.0, 12.0])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(timing_module.time, "perf_counter", lambda: next(ticks))
        timing, _ = time_repeats(lambda: None, 3, warmup=0)
    assert timing.runs == (1.0, 1.0, 10.0) and timing.median == 1.0


def test_interleaved_rounds_wall_and_cpu():
    calls = []
    out = timing_module.time_interleaved({"a": lambda: calls.append("a") or 1, "b": lambda: calls.append("b") or 2},
                                         3, warmup=1)
    assert calls == ["a", "b"] * 4  # one warm-up round, then the rounds alternate
    for name, want in (("a", 1), ("b", 2)):
        wall, cpu, last = out[name]
        assert len(wall.runs) == len(cpu.runs) == 3 and last == want
        assert min(wall.runs) >= 0 and min(cpu.runs) >= 0
    with pytest.raises(ValueError):
        timing_module.time_interleaved({"a": lambda: None}, 0)
