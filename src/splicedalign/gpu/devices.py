"""Several GPUs of one node: which devices a call uses (``--devices all|0,1,...``, the config
key ``devices``), the call's work items split across them by estimated cost, one host thread
per device, and the results merged back in input order.

No workload is imported here: a workload hands ``run_split`` its items, each item's ``Cost``
and a ``solve(items) -> results`` of its own (a fresh solver per call, so no two devices share
a solver's buffers). Without ``--devices`` the call is exactly today's single-GPU call; with
one device it is that call inside ``cupy.cuda.Device(i)``.

Device numbers are CUDA's: 0 .. count-1 of the devices this process sees, i.e. positions in
``CUDA_VISIBLE_DEVICES`` when it is set.
"""

from __future__ import annotations

import argparse
import os
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

from splicedalign.core.errors import InputError, SolverUnavailable

ALL = "all"
# What the user asked for: None (not asked: today's single-GPU path), ALL, or device numbers.
DeviceSpec = str | tuple[int, ...] | None

Item = TypeVar("Item")
Out = TypeVar("Out")


def parse_devices(value: Any) -> DeviceSpec:
    """``--devices``/config ``devices``: 'all', '0,1,3', an int or a list of ints (None stays
    None). ValueError with a one-line reason on anything else (negative, repeated, not a number)."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text == ALL:
            return ALL
        parts = [p.strip() for p in text.split(",")]
    elif isinstance(value, int) and not isinstance(value, bool):
        parts = [str(value)]
    elif isinstance(value, (list, tuple)):
        parts = [str(p).strip() for p in value]
    else:
        raise ValueError(f"devices must be 'all' or GPU numbers such as 0,1; got {value!r}")
    if not parts or any(not p.isdigit() for p in parts):
        raise ValueError(f"devices must be 'all' or GPU numbers such as 0,1 (>= 0); got {value!r}")
    numbers = tuple(int(p) for p in parts)
    repeated = sorted({d for d in numbers if numbers.count(d) > 1})
    if repeated:
        raise ValueError(f"GPU {repeated[0]} is named twice in devices {value!r}")
    return numbers


def devices_argument(text: str) -> DeviceSpec:
    """argparse type of ``--devices``."""
    try:
        return parse_devices(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_devices_argument(p: argparse.ArgumentParser) -> None:
    """``--devices``: the GPUs a GPU solver's batch is split across."""
    p.add_argument("--devices", type=devices_argument, default=None, metavar="all|0,1,...",
                   help="GPU solvers: split the work across these GPUs (numbers as CUDA numbers the "
                        "visible devices, CUDA_VISIBLE_DEVICES order), or all of them; answers "
                        "identical to one GPU's, in input order (default: the current GPU only)")


def visible_count() -> int:
    """How many CUDA devices this process sees (SolverUnavailable when none or no CuPy)."""
    from splicedalign.gpu.device import cupy

    return int(cupy().cuda.runtime.getDeviceCount())


def resolve_devices(spec: DeviceSpec, count: int | None = None,
                    flag: str = "--devices") -> tuple[int, ...] | None:
    """The device numbers of ``spec`` on this machine (``count`` visible devices, asked of CUDA
    when None); None for None (today's path). A number this machine does not have is bad input
    naming what it has."""
    if spec is None:
        return None
    count = visible_count() if count is None else count
    if isinstance(spec, str):  # ALL (parse_devices makes no other string)
        if count < 1:
            raise SolverUnavailable("GPU solvers need a CUDA GPU: none found")
        return tuple(range(count))
    missing = [d for d in spec if d >= count]
    if missing:
        env = os.environ.get("CUDA_VISIBLE_DEVICES")
        seen = f" (CUDA_VISIBLE_DEVICES={env})" if env is not None else ""
        raise InputError(flag, f"no GPU {missing[0]}: this machine shows {count} GPU(s){seen}, "
                               f"numbered 0-{count - 1}" if count else f"no GPU {missing[0]}: none visible{seen}")
    return tuple(spec)


@dataclass(frozen=True)
class Cost:
    """A work item's estimated device time, in DP cells. ``cells``: its work, which the device's
    SMs share with the other items of its launch; ``path``: what its critical path costs in
    cell-equivalents (its dependent steps × the cells a busy device computes per step): the
    item takes at least that long however idle the device."""

    cells: int
    path: int = 0

    @property
    def alone(self) -> int:
        return max(self.cells, self.path)


def device_load(costs: Sequence[Cost]) -> int:
    """A device's estimated time for these items together: their cells, and never less than
    the longest critical path among them."""
    return max(sum(c.cells for c in costs), max((c.path for c in costs), default=0))


def split(costs: Sequence[Cost], devices: int) -> list[list[int]]:
    """Item indices per device: greedy longest-processing-time (largest item first, each to the
    device it leaves least loaded, load as ``device_load``: cells with the critical path as
    floor; ties to the lower item index and lower device), each device's share in input order.
    Deterministic: the same costs give the same split."""
    if devices < 1:
        raise ValueError("split needs at least one device")
    shares: list[list[int]] = [[] for _ in range(devices)]
    cells = [0] * devices
    path = [0] * devices
    for i in sorted(range(len(costs)), key=lambda i: (-costs[i].alone, -costs[i].cells, i)):
        c = costs[i]
        d = min(range(devices), key=lambda d: (max(cells[d] + c.cells, path[d], c.path), len(shares[d]), d))
        shares[d].append(i)
        cells[d] += c.cells
        path[d] = max(path[d], c.path)
    return [sorted(s) for s in shares]


def merge(n: int, shares: Sequence[Sequence[int]], outs: Sequence[Sequence[Out]]) -> list[Out]:
    """The devices' results back in input order (``outs[d][k]`` answers item ``shares[d][k]``)."""
    merged: list[Any] = [None] * n
    placed = 0
    for d, (share, out) in enumerate(zip(shares, outs)):
        if len(out) != len(share):
            raise RuntimeError(f"GPU share {d}: {len(out)} result(s) for {len(share)} item(s)")
        for i, result in zip(share, out):
            merged[i] = result
            placed += 1
    if placed != n:
        raise RuntimeError(f"{placed} result(s) for {n} item(s)")
    return merged


def cuda_device(number: int) -> AbstractContextManager:
    """The CUDA device ``number`` made current for the calling thread while inside."""
    from splicedalign.gpu.device import cupy

    return cupy().cuda.Device(number)


def device_error(device: int, exc: BaseException) -> BaseException:
    """What a user sees when device ``device``'s worker failed: bad input as it is; a solver
    that cannot run, or a CUDA error (CuPy's), as one line naming the GPU (exit 3); anything
    else (a bug) unchanged, traceback and all."""
    if isinstance(exc, InputError):
        return exc
    if isinstance(exc, SolverUnavailable):
        return type(exc)(f"GPU {device}: {exc}")
    if type(exc).__module__.split(".")[0] in ("cupy", "cupy_backends"):
        first = (str(exc).strip().splitlines() or [""])[0]  # a compiler's log runs to many lines
        return SolverUnavailable(f"GPU {device}: {type(exc).__name__}: {first}")
    return exc


def solve_across(spec: DeviceSpec, gpu: bool, items: Sequence[Item], cost: Callable[[Item], Cost],
                 solve: Callable[[list[Item]], Sequence[Out]], solver: str = "") -> list[Out]:
    """A workload's batch call with ``--devices``: ``solve(items)`` unchanged when ``spec`` is
    None, else split across the devices it names (``run_split``; ``spec`` as parsed by
    ``devices_argument`` or as ``parse_devices`` takes it, e.g. a config value). ``solve``
    makes its own solver each call. ``--devices`` with a CPU solver (``gpu`` false) is bad
    input."""
    if spec is None:
        return list(solve(list(items)))
    if not gpu:
        raise InputError("--devices", f"splits GPU solvers' work; solver {solver or '(given)'} runs on the CPU")
    devices = resolve_devices(parse_devices(spec))
    # one device splits nothing: no costs (a case's is several us of Python: 4 paper sets, ~40 ms)
    costs = [cost(x) for x in items] if devices is None or len(devices) > 1 else [Cost(0)] * len(items)
    return run_split(items, costs, devices, solve)


def run_split(items: Sequence[Item], costs: Sequence[Cost], devices: Sequence[int] | None,
              solve: Callable[[list[Item]], Sequence[Out]],
              enter: Callable[[int], AbstractContextManager] | None = None) -> list[Out]:
    """``solve(items)``'s results, the items split across ``devices`` (``split``), one host
    thread per device that has a share, each inside ``enter(device)``; results in input order.
    ``devices`` None: ``solve(items)`` as it is (today's path); one device: the same call inside
    ``enter`` (default ``cuda_device``). When a device's worker fails, the call waits for the
    others and raises the first failure in device order, as ``device_error`` words it."""
    items = list(items)
    enter = enter or cuda_device
    if len(costs) != len(items):
        raise ValueError(f"{len(costs)} cost(s) for {len(items)} item(s)")
    if devices is None:
        return list(solve(items))
    if len(devices) == 1:
        with enter(devices[0]):
            return list(solve(items))
    shares = split(costs, len(devices))
    outs: list[Sequence[Out]] = [[] for _ in devices]
    errors: dict[int, BaseException] = {}

    def work(d: int) -> None:
        try:
            with enter(devices[d]):
                outs[d] = solve([items[i] for i in shares[d]])
        except BaseException as exc:  # reported by the calling thread
            errors[d] = exc

    # Daemon threads joined with a timeout: Ctrl-C reaches the calling thread at once, and the
    # process may exit while a device still works.
    threads = [threading.Thread(target=work, args=(d,), name=f"gpu{devices[d]}", daemon=True)
               for d in range(len(devices)) if shares[d]]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.1)
    if errors:
        d = min(errors)
        raise device_error(devices[d], errors[d]) from None
    return merge(len(items), shares, outs)
