"""Timing shared by every workload's benchmarks and pipeline: warm-up excluded, median of
repeats, with the spread kept so a table can flag unreliable timings."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Timing:
    """Seconds of ``repeats`` timed runs (warm-up runs excluded)."""

    runs: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def min(self) -> float:
        return min(self.runs)

    @property
    def max(self) -> float:
        return max(self.runs)

    @property
    def spread(self) -> float:
        """max / min of the runs (1.0 = perfectly steady)."""
        return self.max / self.min if self.min > 0 else float("inf")

    def as_dict(self) -> dict[str, float | list[float]]:
        return {"seconds": self.median, "seconds_min": self.min, "seconds_max": self.max,
                "seconds_runs": list(self.runs)}


def gcups(cells: int, seconds: float) -> float:
    """Giga cell updates per second."""
    return cells / seconds / 1e9 if seconds > 0 else float("inf")


def repeats_for(seconds: float, first: float, least: int, most: int) -> int:
    """Timed repeats of a call that took ``first`` seconds (a warm-up or sizing call): enough for
    ``seconds`` in all, at least ``least``, at most ``most``."""
    return max(least, min(most, math.ceil(seconds / max(first, 1e-9))))


def time_repeats(fn: Callable[[], T], repeats: int, warmup: int = 1,
                 before: Callable[[], object] | None = None) -> tuple[Timing, T]:
    """Call ``fn`` ``warmup`` times untimed (JIT compilation, caches, first-touch allocation),
    then ``repeats`` times timed, ``before`` (if given) untimed before each; returns the timing
    and the last result. A run's result is let go before the next run's clock starts: a caller
    keeps its results, and freeing thousands of records is not the next run's work (2.6-2.9 ms
    after a 10-set GPU call)."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    for _ in range(warmup):
        fn()
    runs = []
    last: list[T] = []
    for _ in range(repeats):
        if before is not None:
            before()
        last.clear()
        t0 = time.perf_counter()
        last.append(fn())
        runs.append(time.perf_counter() - t0)
    return Timing(tuple(runs)), last[0]


def time_interleaved(calls: dict[str, Callable[[], T]], repeats: int,
                     warmup: int = 1) -> dict[str, tuple[Timing, Timing, T]]:
    """Each call ``warmup`` times untimed, then ``repeats`` rounds in which every call runs once
    in turn, so load from other processes and drift weigh on all alike. Returns per call the
    wall-clock timing, the CPU-time timing (this process, all its threads) and the last result."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    for _ in range(warmup):
        for fn in calls.values():
            fn()
    wall: dict[str, list[float]] = {name: [] for name in calls}
    cpu: dict[str, list[float]] = {name: [] for name in calls}
    last: dict[str, T] = {}
    for _ in range(repeats):
        for name, fn in calls.items():
            last.pop(name, None)
            c0, t0 = time.process_time(), time.perf_counter()
            result = fn()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
            last[name] = result
    return {name: (Timing(tuple(wall[name])), Timing(tuple(cpu[name])), last[name]) for name in calls}
