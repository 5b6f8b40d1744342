"""core.machine's host facts: the CPU ticks the device probes read around a timed call."""

from __future__ import annotations

import io
import os

import pytest

from splicedalign.core import machine


def test_cpu_ticks_reads_the_cpu_line_by_kind(monkeypatch):
    stat = "cpu  10 20 30 40 50 60 70 80 90 100\ncpu0 1 2 3 4 5 6 7 8 9 10\n"
    monkeypatch.setattr(machine, "open", lambda path: io.StringIO(stat), raising=False)
    assert machine.cpu_ticks() == dict(zip(machine.CPU_TICKS, range(10, 90, 10)))
    assert machine.cpu_ticks()["steal"] == 80


def test_cpu_ticks_without_proc_stat_is_empty(monkeypatch):
    def unreadable(path):
        raise FileNotFoundError(path)
    monkeypatch.setattr(machine, "open", unreadable, raising=False)
    assert machine.cpu_ticks() == {}


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="no /proc/stat (not Linux)")
def test_cpu_ticks_of_this_host_only_grow():
    before = machine.cpu_ticks()
    after = machine.cpu_ticks()
    assert list(before) == list(machine.CPU_TICKS)
    assert all(after[k] >= v >= 0 for k, v in before.items())
