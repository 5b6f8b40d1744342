"""GPU slots of pipeline jobs, without a GPU: concurrent fake jobs (threads of one process, and
separate processes) never hold the same device at once, every device is used, and the ledger
counts jobs per device."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections import Counter, defaultdict

import pytest

from splicedalign.gpu import slots
from splicedalign.gpu.slots import gpu_slot, jobs_per_device, ledger_rows, visible_names


def overlapping(intervals: list[tuple[str, float, float]]) -> list:
    """Pairs of intervals held on the same device at the same time."""
    by_device = defaultdict(list)
    for name, start, end in intervals:
        by_device[name].append((start, end))
    clashes = []
    for name, spans in by_device.items():
        spans.sort()
        clashes += [(name, a, b) for a, b in zip(spans, spans[1:]) if b[0] < a[1]]
    return clashes


def test_visible_names_follow_cuda_visible_devices():
    assert visible_names(2, env="") == ["0", "1"]
    assert visible_names(2, env="3,1") == ["3", "1"]
    assert visible_names(1, env="GPU-8a1b,GPU-77c0") == ["GPU-8a1b"]


def test_threads_of_one_process_never_share_a_device(tmp_path):
    held: list[tuple[str, float, float]] = []
    numbers = set()
    lock = threading.Lock()
    pair = threading.Barrier(2)  # two holders at a time wait for each other: two slots held at once

    def job(i: int) -> None:
        with gpu_slot(tmp_path, ["0", "1"], job=f"job{i}", poll=0.005) as slot:
            start = time.monotonic()
            pair.wait(timeout=20)
            with lock:
                held.append((slot.name, start, time.monotonic()))
                numbers.add((slot.number, slot.name))

    threads = [threading.Thread(target=job, args=(i,)) for i in range(8)]  # 8 jobs, 2 devices
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(held) == 8 and not overlapping(held)
    assert numbers == {(0, "0"), (1, "1")}  # both devices used; the number is the CUDA one
    counts = jobs_per_device(tmp_path)
    assert set(counts) == {"0", "1"} and sum(counts.values()) == 8
    assert sorted(r[2] for r in ledger_rows(tmp_path)) == sorted(f"job{i}" for i in range(8))


def _process_job(folder: str, names: list[str], i: int, trio) -> None:
    with gpu_slot(folder, names, job=f"p{i}", poll=0.005):
        trio.wait(timeout=20)  # three holders at once: every device held
        time.sleep(0.01)


def test_separate_processes_never_share_a_device(tmp_path):
    ctx = multiprocessing.get_context("fork")
    trio = ctx.Barrier(3)
    procs = [ctx.Process(target=_process_job, args=(str(tmp_path), ["4", "6", "7"], i, trio)) for i in range(9)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    assert [p.exitcode for p in procs] == [0] * 9
    rows = ledger_rows(tmp_path)
    assert len(rows) == 9
    assert not overlapping([(name, start, end) for _, name, _, start, end in rows])
    assert set(jobs_per_device(tmp_path)) == {"4", "6", "7"}
    since = sorted(r[3] for r in rows)[4]  # a later run's start: only its jobs count
    assert jobs_per_device(tmp_path, since) == dict(sorted(Counter(r[1] for r in rows if r[3] >= since).items()))


def test_a_job_waits_while_every_device_is_held(tmp_path):
    order = []
    with gpu_slot(tmp_path, ["0"], job="first"):
        t = threading.Thread(target=lambda: _waiting(tmp_path, order))
        t.start()
        time.sleep(0.1)
        order.append("first done")
    t.join(5)
    assert order == ["first done", "second"]


def _waiting(folder, order):
    with gpu_slot(folder, ["0"], job="second", poll=0.005):
        order.append("second")


def test_slurm_allocations_lock_their_own_devices(tmp_path, monkeypatch):
    # Two SLURM jobs on one node each see their own card as CUDA device 0: no shared lock.
    monkeypatch.setenv("SLURM_JOB_ID", "101")
    with gpu_slot(tmp_path, ["0"]):
        monkeypatch.setenv("SLURM_JOB_ID", "102")
        with gpu_slot(tmp_path, ["0"], poll=0.005) as slot:  # would wait forever if shared
            assert slot.number == 0


def test_jobs_through_on_slot_each_run_on_their_own_device(tmp_path):
    # The pipeline's GPU jobs (workflow/rules/common.smk: on_gpu) on a fake 3-GPU node: a
    # fake cupy.cuda.Device per thread; 9 concurrent jobs, never two on one device at once.
    local = threading.local()
    held: list[tuple[str, float, float]] = []
    lock = threading.Lock()

    class FakeDevice:
        def __init__(self, number):
            self.number = number

        def __enter__(self):
            local.device = self.number

        def __exit__(self, *exc):
            local.device = None

    def job(i):
        start = time.monotonic()
        time.sleep(0.03)
        with lock:
            held.append((str(local.device), start, time.monotonic()))
        return i * i

    out = {}
    threads = [threading.Thread(target=lambda i=i: out.__setitem__(
        i, slots.on_slot(tmp_path, ["0", "1", "2"], f"job{i}", job, (i,), enter=FakeDevice)))
        for i in range(9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == {i: i * i for i in range(9)}
    assert not overlapping(held) and {d for d, _, _ in held} <= {"0", "1", "2"}
    # a job that solves in a process per device gets the device's name instead
    assert slots.on_slot(tmp_path, ["5", "7"], "named", lambda device: device, (), named=True) == "5"


def test_no_device_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no GPU"):
        with gpu_slot(tmp_path, []):
            pass
    assert slots.jobs_per_device(tmp_path / "none") == {}
