"""GPU memory sizing without a GPU: the budget from a fake cudaMemGetInfo and pool, the cap,
the one-line error naming needed and free memory, and the --gpu-memory size parser."""

from __future__ import annotations

import argparse
from types import SimpleNamespace

import pytest

from splicedalign.core.commandline import memory_size
from splicedalign.core.errors import GpuMemoryError, SolverUnavailable
from splicedalign.gpu import device

GiB = 1 << 30


def fake_cupy(free: int, pool_total: int = 0, pool_used: int = 0):
    pool = SimpleNamespace(total_bytes=lambda: pool_total, used_bytes=lambda: pool_used)
    runtime = SimpleNamespace(memGetInfo=lambda: (free, 80 * GiB))
    return SimpleNamespace(cuda=SimpleNamespace(runtime=runtime), get_default_memory_pool=lambda: pool)


@pytest.mark.parametrize("free, pool_total, pool_used, cap, expected", [
    (10 * GiB, 0, 0, None, 10 * GiB - device.MEMORY_HEADROOM),
    (10 * GiB, 4 * GiB, 1 * GiB, None, 13 * GiB - device.MEMORY_HEADROOM),  # the pool's idle bytes count
    (10 * GiB, 0, 0, 2 * GiB, 2 * GiB),
    (100 << 20, 0, 0, None, 0),  # less free than the headroom: nothing
])
def test_budget_is_free_memory_within_the_cap(monkeypatch, free, pool_total, pool_used, cap, expected):
    monkeypatch.setattr(device, "cupy", lambda: fake_cupy(free, pool_total, pool_used))
    assert device.memory_budget(cap) == expected
    assert device.free_memory() == free + pool_total - pool_used  # without the headroom and the cap


def test_too_large_names_needed_and_available():
    device.require_memory(GiB, GiB, "case x")
    with pytest.raises(GpuMemoryError, match=r"^case x needs 2\.00 GiB of GPU memory; 1\.50 GiB is available") as err:
        device.require_memory(2 * GiB, 3 * GiB // 2, "case x")
    assert isinstance(err.value, SolverUnavailable) and "\n" not in str(err.value)


@pytest.mark.parametrize("text, expected", [("12G", 12 * GiB), ("512m", 512 << 20), ("1.5GiB", 3 * GiB // 2),
                                            ("1000", 1000), ("2KB", 2048)])
def test_memory_size(text, expected):
    assert memory_size(text) == expected


@pytest.mark.parametrize("text", ["x", "-1G", "0", "G", ""])
def test_bad_memory_size(text):
    with pytest.raises(argparse.ArgumentTypeError):
        memory_size(text)


def test_shared_memory_limit_raised_only_beyond_the_default():
    kernel = SimpleNamespace()
    device.allow_shared_memory(kernel, device.SHARED_MEMORY_DEFAULT)
    assert not hasattr(kernel, "max_dynamic_shared_size_bytes")  # within what every launch may take
    device.allow_shared_memory(kernel, device.SHARED_MEMORY_DEFAULT + 1)
    assert kernel.max_dynamic_shared_size_bytes == device.SHARED_MEMORY_DEFAULT + 1


def test_shared_memory_limit_counts_the_kernels_static_shared_memory():
    """What a launch may take without asking is 48 KB less the kernel's static shared memory:
    a launch between the two needs the limit raised (CUDA's invalid argument otherwise)."""
    kernel = SimpleNamespace(shared_size_bytes=200)
    device.allow_shared_memory(kernel, device.SHARED_MEMORY_DEFAULT - 200)
    assert not hasattr(kernel, "max_dynamic_shared_size_bytes")
    device.allow_shared_memory(kernel, device.SHARED_MEMORY_DEFAULT - 56)  # (nw_wfa's 49,096 bytes)
    assert kernel.max_dynamic_shared_size_bytes == device.SHARED_MEMORY_DEFAULT - 56


def test_shared_memory_limit_never_lowered():
    """Solvers share the process's kernels: a smaller launch's call must not undo a larger one's."""
    kernel = SimpleNamespace()
    device.allow_shared_memory(kernel, 100_000)
    device.allow_shared_memory(kernel, 60_000)
    assert kernel.max_dynamic_shared_size_bytes == 100_000
    device.allow_shared_memory(kernel, 120_000)
    assert kernel.max_dynamic_shared_size_bytes == 120_000
