"""Several GPUs without a GPU: --devices parsing and resolving, the cost split (balance, order,
determinism), the merge in input order, one host thread per fake device, and a failing
device's one-line error."""

from __future__ import annotations

import argparse
import random
import threading
import time
from contextlib import contextmanager

import pytest

from splicedalign.core.errors import GpuMemoryError, InputError, SolverUnavailable
from splicedalign.gpu import devices
from splicedalign.gpu.devices import Cost, device_load, merge, parse_devices, resolve_devices, run_split, split


@pytest.mark.parametrize("value, expected", [
    ("all", "all"), (" ALL ", "all"), ("0", (0,)), ("1,0,3", (1, 0, 3)), (" 2 , 5", (2, 5)),
    (1, (1,)), ([0, 1], (0, 1)), (None, None),
])
def test_parse_devices(value, expected):
    assert parse_devices(value) == expected


@pytest.mark.parametrize("value, problem", [
    ("", "GPU numbers"), ("-1", "GPU numbers"), ("0,,1", "GPU numbers"), ("gpu0", "GPU numbers"),
    ("1,1", "GPU 1 is named twice"), (True, "GPU numbers"), (1.5, "GPU numbers"),
])
def test_parse_devices_refuses(value, problem):
    with pytest.raises(ValueError, match=problem):
        parse_devices(value)


def test_devices_flag_is_one_usage_line():
    p = argparse.ArgumentParser()
    devices.add_devices_argument(p)
    assert p.parse_args(["--devices", "0,2"]).devices == (0, 2)
    assert p.parse_args([]).devices is None
    with pytest.raises(SystemExit):
        p.parse_args(["--devices", "1,1"])


def test_resolve_against_the_visible_count(monkeypatch):
    assert resolve_devices(None, 4) is None
    assert resolve_devices("all", 3) == (0, 1, 2)
    assert resolve_devices((2, 0), 3) == (2, 0)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,5")
    with pytest.raises(InputError, match=r"^--devices: no GPU 2: this machine shows 2 GPU\(s\) "
                                         r"\(CUDA_VISIBLE_DEVICES=4,5\), numbered 0-1$"):
        resolve_devices((0, 2), 2)
    with pytest.raises(SolverUnavailable, match="none found"):
        resolve_devices("all", 0)
    monkeypatch.setattr(devices, "visible_count", lambda: 2)  # count asked of CUDA when not given
    assert resolve_devices("all") == (0, 1)


def test_split_puts_each_of_a_few_large_items_on_its_own_device():
    costs = [Cost(10), Cost(1000), Cost(5), Cost(990), Cost(7)]
    shares = split(costs, 2)
    assert sorted(i for s in shares for i in s) == list(range(5))
    assert {1, 3} not in [set(s) & {1, 3} for s in shares]  # the two large ones apart
    assert all(s == sorted(s) for s in shares)  # each share in input order


def test_split_balances_random_costs_within_the_largest_item():
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    rng = random.Random(seed)
    for _ in range(50):
        n, k = rng.randint(1, 300), rng.randint(1, 8)
        costs = [Cost(rng.randint(1, 10**6)) for _ in range(n)]
        shares = split(costs, k)
        assert sorted(i for s in shares for i in s) == list(range(n))
        loads = [device_load([costs[i] for i in s]) for s in shares]
        # LPT: the busiest device is above the ideal by at most one item
        assert max(loads) <= sum(c.cells for c in costs) / k + max(c.cells for c in costs)
        assert shares == split(costs, k)  # deterministic


def test_split_takes_the_critical_path_as_a_floor():
    # A long thin item (few cells, a critical path of 100) keeps its device busy for 100
    # however few its cells: the other items go to the other device while it has less to do.
    costs = [Cost(30), Cost(1, path=100), Cost(30), Cost(30)]
    shares = split(costs, 2)
    assert sorted(shares) == [[0, 2, 3], [1]]
    assert sorted(device_load([costs[i] for i in s]) for s in shares) == [90, 100]
    # beside it, cells are free up to its path: a fourth 30 joins it rather than make 120
    costs.append(Cost(30))
    assert sorted(device_load([costs[i] for i in s]) for s in split(costs, 2)) == [90, 100]


def test_split_of_random_costs_with_paths_stays_within_the_lpt_bound():
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    rng = random.Random(seed)
    for _ in range(50):
        k = rng.randint(1, 6)
        costs = [Cost(rng.randint(1, 1000), rng.choice([0, 0, rng.randint(1, 5000)]))
                 for _ in range(rng.randint(1, 100))]
        loads = [device_load([costs[i] for i in s]) for s in split(costs, k)]
        ideal = max(max(c.path for c in costs), sum(c.cells for c in costs) / k)
        assert ideal <= max(loads) <= ideal + max(c.cells for c in costs)


def test_more_devices_than_items_leaves_devices_idle():
    shares = split([Cost(3), Cost(1)], 4)
    assert sorted(map(len, shares)) == [0, 0, 1, 1]


def test_merge_restores_input_order_and_counts():
    shares = [[0, 3], [1, 2, 4]]
    assert merge(5, shares, [["a", "d"], ["b", "c", "e"]]) == list("abcde")
    with pytest.raises(RuntimeError, match="share 1: 2 result"):
        merge(5, shares, [["a", "d"], ["b", "c"]])


class FakeDevices:
    """A runner per fake device: ``enter(d)`` makes d the calling thread's device (as
    cupy.cuda.Device does), and records which host thread ran on which device."""

    def __init__(self) -> None:
        self.local = threading.local()
        # the threads themselves: an ident may be reused once its thread has ended (a loaded
        # host ran one device's share to its end before the other's thread started)
        self.threads: dict[int, set[threading.Thread]] = {}
        self.lock = threading.Lock()

    @contextmanager
    def enter(self, d: int):
        before = getattr(self.local, "device", None)
        self.local.device = d
        with self.lock:
            self.threads.setdefault(d, set()).add(threading.current_thread())
        try:
            yield
        finally:
            self.local.device = before

    def current(self):
        return getattr(self.local, "device", None)


def square_on(fake: FakeDevices, seen: list | None = None):
    def solve(part):
        time.sleep(0.01)  # both workers are alive at once
        if seen is not None:
            seen.append((fake.current(), list(part)))
        return [(x * x, fake.current()) for x in part]
    return solve


def test_run_split_is_one_solve_per_device_merged_in_input_order():
    fake = FakeDevices()
    items = list(range(40))
    costs = [Cost(1 + (7 * i) % 13) for i in items]
    seen: list = []
    out = run_split(items, costs, (3, 1), square_on(fake, seen), enter=fake.enter)
    assert [r for r, _ in out] == [x * x for x in items]
    assert {d for _, d in out} == {3, 1}
    assert sorted(d for d, _ in seen) == [1, 3]  # one call per device
    for d, part in seen:  # each device solved its share, in input order
        assert part == [items[i] for i in split(costs, 2)[(3, 1).index(d)]]
    assert len(fake.threads[3] | fake.threads[1]) == 2  # one host thread each
    assert threading.current_thread() not in fake.threads[3] | fake.threads[1]


def test_no_devices_is_todays_call_and_one_device_runs_in_the_calling_thread():
    fake = FakeDevices()
    calls = []

    def solve(part):
        calls.append(fake.current())
        return [x + 1 for x in part]

    assert run_split([1, 2], [Cost(1)] * 2, None, solve, enter=fake.enter) == [2, 3]
    assert run_split([1, 2], [Cost(1)] * 2, (1,), solve, enter=fake.enter) == [2, 3]
    assert calls == [None, 1]
    assert fake.threads == {1: {threading.current_thread()}}


class CUDARuntimeError(RuntimeError):
    """Stands for CuPy's: what CUDA raises inside a worker."""


CUDARuntimeError.__module__ = "cupy_backends.cuda.api.runtime"


@pytest.mark.parametrize("raised, expected, message", [
    (GpuMemoryError("case x needs 9.00 GiB of GPU memory; 1.00 GiB is available to it"), GpuMemoryError,
     "GPU 1: case x needs 9.00 GiB"),
    (CUDARuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered"), SolverUnavailable,
     "GPU 1: CUDARuntimeError: cudaErrorIllegalAddress"),
    (CUDARuntimeError("compile failed\nline 2 of the log\nline 3"), SolverUnavailable,
     "GPU 1: CUDARuntimeError: compile failed"),
    (InputError("cases.tsv", "bad row", "3"), InputError, "cases.tsv:3: bad row"),
    (ZeroDivisionError("a bug"), ZeroDivisionError, "a bug"),
])
def test_a_failing_device_gives_the_users_one_line_error(raised, expected, message):
    fake = FakeDevices()
    finished = []

    def solve(part):
        if fake.current() == 1:
            raise raised
        time.sleep(0.05)
        finished.append(fake.current())  # the other device's work is waited for
        return part

    with pytest.raises(expected) as err:
        run_split(list(range(6)), [Cost(1)] * 6, (0, 1), solve, enter=fake.enter)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)
    assert finished == [0]


def test_a_short_result_is_an_error_not_a_silent_gap():
    fake = FakeDevices()
    with pytest.raises(RuntimeError, match="result"):
        run_split(list(range(4)), [Cost(1)] * 4, (0, 1), lambda part: part[:-1], enter=fake.enter)


def test_solve_across_leaves_todays_call_alone_and_refuses_a_cpu_solver(monkeypatch):
    fake = FakeDevices()
    monkeypatch.setattr(devices, "cuda_device", fake.enter)
    monkeypatch.setattr(devices, "visible_count", lambda: 2)
    calls = []

    def solve(part):
        calls.append((fake.current(), list(part)))
        return [x * 10 for x in part]

    assert devices.solve_across(None, True, [1, 2, 3], lambda x: Cost(x), solve) == [10, 20, 30]
    assert calls == [(None, [1, 2, 3])]
    calls.clear()
    assert devices.solve_across("all", True, [1, 2, 3], lambda x: Cost(x), solve) == [10, 20, 30]
    assert sorted(calls) == [(0, [3]), (1, [1, 2])]
    calls.clear()  # a raw value (a config's) is parsed too
    assert devices.solve_across("1", True, [1, 2], lambda x: Cost(x), solve) == [10, 20]
    assert calls == [(1, [1, 2])]
    asked = []  # one device splits nothing: no item's cost asked for (a case's costs several us)
    assert devices.solve_across("0", True, [1, 2], lambda x: asked.append(x) or Cost(x), solve) == [10, 20]
    assert not asked and calls[-1] == (0, [1, 2])
    with pytest.raises(InputError, match="^--devices: splits GPU solvers' work; solver multicore runs on the CPU$"):
        devices.solve_across("all", False, [1], lambda x: Cost(x), solve, "multicore")
