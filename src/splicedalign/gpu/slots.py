"""GPU slots for pipeline jobs: Snakemake's ``--resources gpu=N`` caps how many GPU jobs run at
once but does not say which device each takes (snakemake issue #281), so a GPU job's body
holds a slot: an exclusive lock file per device, taken for the job's duration, the lowest free
one first; a job that finds every device taken waits. Two jobs never share a device, whether
they run in threads of one Snakemake process, in separate processes, or in two pipelines on
one node (the locks are ``flock``s, per open file, named by host and device).

A device is named by its entry in ``CUDA_VISIBLE_DEVICES`` when set (so two pipelines that see
different subsets still collide on the same card) and by its CUDA number otherwise; the job
gets its CUDA number (position among the visible devices) to run under ``cupy.cuda.Device``.
Inside a SLURM allocation the devices are the allocation's own, so locks are scoped to it.

Each slot taken is logged in ``ledger.tsv`` beside the locks (host, device, job, start, end),
from which ``jobs_per_device`` counts how the run spread its GPU jobs.
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LEDGER = "ledger.tsv"
POLL_SECONDS = 0.2


@dataclass(frozen=True)
class Slot:
    number: int  # the device's CUDA number in this process (cupy.cuda.Device(number))
    name: str  # the device as the locks and the ledger name it


def visible_names(count: int, env: str | None = None) -> list[str]:
    """The names of this process's ``count`` CUDA devices: ``CUDA_VISIBLE_DEVICES``'s entries
    (ids or UUIDs) when set, else 0 .. count-1."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES") if env is None else env
    if env is not None and env.strip():
        names = [e.strip() for e in env.split(",") if e.strip()]
        return names[:count]
    return [str(d) for d in range(count)]


def _scope() -> str:
    job = os.environ.get("SLURM_JOB_ID")
    return f"{socket.gethostname()}-slurm{job}" if job else socket.gethostname()


def _lock_name(name: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
    return f"gpu-{_scope()}-{safe}.lock"


def _try_lock(path: Path) -> int | None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _take(folder: Path, names: Sequence[str]) -> tuple[Slot, int] | None:
    """The lowest-numbered free device's slot and its locked file, or None when all are held."""
    for number, name in enumerate(names):
        fd = _try_lock(folder / _lock_name(name))
        if fd is not None:
            return Slot(number, name), fd
    return None


@contextmanager
def gpu_slot(lock_dir: str | Path, names: Sequence[str], job: str = "",
             poll: float = POLL_SECONDS) -> Iterator[Slot]:
    """Hold one device's slot for the block: the lowest-numbered device of ``names`` (the
    visible devices, ``visible_names``) that no other job holds, waiting while all are held."""
    if not names:
        raise ValueError("no GPU to take a slot on")
    folder = Path(lock_dir)
    folder.mkdir(parents=True, exist_ok=True)
    taken = _take(folder, names)
    while taken is None:
        time.sleep(poll)
        taken = _take(folder, names)
    slot, fd = taken
    name = slot.name
    start = time.time()
    try:
        yield slot
    finally:
        end = time.time()
        with open(folder / LEDGER, "a") as ledger:  # one short append: whole lines
            ledger.write(f"{socket.gethostname()}\t{name}\t{job}\t{start:.3f}\t{end:.3f}\n")
        os.close(fd)  # releases the lock


def on_slot(lock_dir: str | Path, names: Sequence[str], name: str, job: Callable[..., Any],
            args: Sequence[Any], named: bool = False, enter: Callable[[int], Any] | None = None) -> Any:
    """``job(*args)`` holding a device's slot (``gpu_slot``): the device made current in this
    thread for the call (``enter``, default ``cupy.cuda.Device``), or with ``named`` its name
    passed as ``job(..., device=name)`` for a job that solves in a process of its own per device."""
    with gpu_slot(lock_dir, names, name) as slot:
        if named:
            return job(*args, device=slot.name)
        if enter is None:
            from splicedalign.gpu.devices import cuda_device

            enter = cuda_device
        with enter(slot.number):
            return job(*args)


def ledger_rows(lock_dir: str | Path) -> list[tuple[str, str, str, float, float]]:
    path = Path(lock_dir) / LEDGER
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        host, name, job, start, end = line.split("\t")
        rows.append((host, name, job, float(start), float(end)))
    return rows


def jobs_per_device(lock_dir: str | Path, since: float = 0.0) -> dict[str, int]:
    """GPU jobs run per device ("host:device" when the run used several hosts), of the jobs
    that took their slot at ``since`` (a time.time()) or later."""
    rows = [r for r in ledger_rows(lock_dir) if r[3] >= since]
    several_hosts = len({r[0] for r in rows}) > 1
    counts: dict[str, int] = {}
    for host, name, *_ in rows:
        key = f"{host}:{name}" if several_hosts else name
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))
