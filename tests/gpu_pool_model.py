"""A host-side model of a GPU's memory as CuPy's default pool hands it out (no kernels, no data):
the device's capacity, cudaMalloc failing when it has no room, and the pool's rules
(cupy/cuda/memory.pyx, SingleDeviceMemoryPool): sizes rounded up to 512 bytes; free blocks kept
per stream (an arena each); a request served by the smallest free block of its stream's arena at
least its size, split (the rest stays free), else a new cudaMalloc; a block freed merges with its
free neighbours of the same allocation; free_all_blocks gives back whole free allocations only
(of one stream's arena, or of all); an allocation that finds no room frees all blocks and tries
again (then collects garbage and tries once more) before OutOfMemoryError. Device arrays are
views of no memory (``DeviceArray``): what a solver allocates is counted at its real size, and
its last view's death frees its block.

``model_gpu`` puts it under the GPU layer (gpu.device) of the `gpu` spliced solver, its kernels
queued as nothing, its outputs not read: a call runs its whole sequence of allocations at the
real sizes of its cases."""

from __future__ import annotations

import gc
import itertools
from types import SimpleNamespace
from typing import Any

import numpy as np

UNIT = 512  # CuPy's pool rounds every request up to this
PAGE = 2 << 20  # the device's granularity of a cudaMalloc
H100_TOTAL = 85_520_809_984  # an H100 80GB HBM3's memory (cudaMemGetInfo's total)
# the rest: a solver's process on an H100 could allocate ~84.42e9 bytes (its pool held
# 84,415,931,392 with no room for 6.5 MB more)
CONTEXT = 1_100_000_000


class OutOfMemoryError(MemoryError):
    """CuPy's, as its pool raises it."""

    def __init__(self, size: int, total: int) -> None:
        super().__init__(f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes).")
        self.size, self.total = size, total


class _Chunk:
    __slots__ = ("alloc", "offset", "size", "free", "stream", "prev", "next")

    def __init__(self, alloc: int, offset: int, size: int, stream: int) -> None:
        self.alloc, self.offset, self.size, self.stream = alloc, offset, size, stream
        self.free = False
        self.prev: _Chunk | None = None
        self.next: _Chunk | None = None


class Pool:
    """CuPy's default memory pool on one device of ``capacity`` bytes (see the module doc)."""

    def __init__(self, capacity: int, total: int = H100_TOTAL) -> None:
        self.capacity, self.total = capacity, total
        self.device_used = 0  # bytes the device has given to cudaMalloc (pages)
        self.allocs: dict[int, int] = {}  # allocation id: its size
        self.arenas: dict[int, list[_Chunk]] = {}  # stream: its free chunks
        self._ids = itertools.count(1)
        self.streams: list[Any] = []  # the current stream's stack (``with stream``)
        self.mallocs: list[tuple[int, int]] = []  # (bytes, stream) of each cudaMalloc, in order
        self.fallbacks = 0  # free_all_blocks made by an allocation that found no room
        self.most_used = 0

    # the device
    def mem_get_info(self) -> tuple[int, int]:
        return self.capacity - self.device_used, self.total

    def _cuda_malloc(self, size: int, stream: int) -> _Chunk | None:
        pages = -(-size // PAGE) * PAGE
        if self.device_used + pages > self.capacity:
            return None
        self.device_used += pages
        alloc = next(self._ids)
        self.allocs[alloc] = size
        self.mallocs.append((size, stream))
        return _Chunk(alloc, 0, size, stream)

    # the pool
    def total_bytes(self) -> int:
        return sum(self.allocs.values())

    def free_bytes(self) -> int:
        return sum(c.size for arena in self.arenas.values() for c in arena)

    def used_bytes(self) -> int:
        return self.total_bytes() - self.free_bytes()

    def stream(self) -> int:
        return id(self.streams[-1]) if self.streams else 0

    def malloc(self, nbytes: int) -> _Chunk:
        size = max(UNIT, -(-nbytes // UNIT) * UNIT)
        stream = self.stream()
        arena = self.arenas.setdefault(stream, [])
        fits = [c for c in arena if c.size >= size]
        if fits:
            chunk = min(fits, key=lambda c: c.size)
            arena.remove(chunk)
            if chunk.size > size:  # split: the rest stays free
                rest = _Chunk(chunk.alloc, chunk.offset + size, chunk.size - size, stream)
                rest.free, rest.prev, rest.next = True, chunk, chunk.next
                if chunk.next is not None:
                    chunk.next.prev = rest
                chunk.next, chunk.size = rest, size
                arena.append(rest)
            chunk.free = False
        else:
            chunk = self._cuda_malloc(size, stream)
            if chunk is None:
                self.fallbacks += 1
                self.free_all_blocks()
                chunk = self._cuda_malloc(size, stream)
            if chunk is None:
                gc.collect()
                self.free_all_blocks()
                chunk = self._cuda_malloc(size, stream)
            if chunk is None:
                raise OutOfMemoryError(nbytes, self.total_bytes())
        self.most_used = max(self.most_used, self.used_bytes())
        return chunk

    def free(self, chunk: _Chunk) -> None:
        arena = self.arenas.setdefault(chunk.stream, [])
        chunk.free = True
        for other in (chunk.next, chunk.prev):  # merged with its free neighbours
            if other is not None and other.free:
                arena.remove(other)
                first, second = (chunk, other) if other is chunk.next else (other, chunk)
                first.size += second.size
                first.next = second.next
                if second.next is not None:
                    second.next.prev = first
                chunk = first
        arena.append(chunk)

    def free_all_blocks(self, stream: Any = None) -> None:
        for arena in self.arenas.values() if stream is None else [self.arenas.get(id(stream), [])]:
            for chunk in [c for c in arena if c.prev is None and c.next is None]:  # a whole allocation
                arena.remove(chunk)
                self.device_used -= -(-self.allocs.pop(chunk.alloc) // PAGE) * PAGE


class _Memory:
    """A pool block held by device arrays: freed to the pool when the last one goes."""

    __slots__ = ("pool", "chunk", "__weakref__")

    def __init__(self, pool: Pool, nbytes: int) -> None:
        self.chunk = pool.malloc(nbytes)
        self.pool = pool

    def __del__(self) -> None:
        if hasattr(self, "pool"):  # (not where its malloc raised)
            self.pool.free(self.chunk)


class DeviceArray:
    """A C-contiguous device array of no data: its shape, dtype and block (``_Memory``)."""

    def __init__(self, memory: _Memory, offset: int, shape: tuple[int, ...], dtype: Any) -> None:
        self.memory, self.offset, self.shape, self.dtype = memory, offset, tuple(shape), np.dtype(dtype)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def data(self) -> Any:
        return SimpleNamespace(ptr=self.memory.chunk.offset + self.offset)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key: Any) -> DeviceArray:
        assert isinstance(key, slice) and key.step in (None, 1), key  # (the solver slices rows only)
        start, stop, _ = key.indices(self.shape[0])
        stop = max(start, stop)
        row = self.nbytes // max(1, self.shape[0])
        return DeviceArray(self.memory, self.offset + start * row, (stop - start,) + self.shape[1:], self.dtype)

    def view(self, dtype: Any) -> DeviceArray:
        dtype = np.dtype(dtype)
        last = self.shape[-1] * self.dtype.itemsize
        assert last % dtype.itemsize == 0
        return DeviceArray(self.memory, self.offset, self.shape[:-1] + (last // dtype.itemsize,), dtype)

    def reshape(self, *shape: Any) -> DeviceArray:
        shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], tuple | list) else tuple(shape)
        if -1 in shape:
            known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
            shape = tuple(self.size // max(1, known) if s == -1 else s for s in shape)
        assert int(np.prod(shape, dtype=np.int64)) == self.size
        return DeviceArray(self.memory, self.offset, shape, self.dtype)

    def fill(self, value: Any) -> None:
        pass

    def set(self, host: np.ndarray, stream: Any = None) -> None:
        assert host.nbytes == self.nbytes

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.zeros(self.shape, dtype=dtype or self.dtype)  # (outputs: none computed)


def cupy_of(pool: Pool) -> Any:
    """A CuPy module whose device memory is ``pool``'s."""

    def empty(shape: Any, dtype: Any = np.float64) -> DeviceArray:
        shape = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
        shape = tuple(int(s) for s in shape)
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        return DeviceArray(_Memory(pool, nbytes), 0, shape, dtype)

    class Stream:
        def __init__(self, non_blocking: bool = False, priority: int = 0) -> None:
            self.ptr = id(self)

        def __enter__(self) -> Stream:
            pool.streams.append(self)
            return self

        def __exit__(self, *exc: Any) -> bool:
            pool.streams.pop()
            return False

        def record(self) -> Any:  # an event the device has reached (no kernel runs)
            return SimpleNamespace(synchronize=lambda: None, done=True)

        def wait_event(self, event: Any) -> None:
            pass

        def synchronize(self) -> None:
            pass

    runtime = SimpleNamespace(memGetInfo=pool.mem_get_info, deviceSynchronize=lambda: None, getDevice=lambda: 0)
    return SimpleNamespace(
        int32=np.int32, uint8=np.uint8, uint32=np.uint32, empty=empty,
        zeros=lambda shape, dtype=np.float64: empty(shape, dtype),
        asarray=lambda a: empty(np.shape(a), np.asarray(a).dtype),
        asnumpy=lambda a, stream=None: np.asarray(a),
        cuda=SimpleNamespace(Stream=Stream, runtime=runtime, get_elapsed_time=lambda a, b: 0.0),
        get_default_memory_pool=lambda: pool)


def model_gpu(monkeypatch: Any, pool: Pool) -> None:
    """The `gpu` spliced solver's GPU layer on ``pool`` (its own sizing, gpu.device's memory_budget,
    free_memory and settle_pool, run as they are): kernels queued as nothing, outputs unread."""
    from splicedalign.gpu import device
    from splicedalign.workloads.spliced.gpu import outputs

    cp = cupy_of(pool)
    monkeypatch.setattr(device, "cupy", lambda: cp)
    monkeypatch.setattr(device, "function", lambda *a, **k: (lambda grid, block, args: None))
    monkeypatch.setattr(device, "device_info", lambda: {"sms": 132})
    monkeypatch.setattr(device, "fill_bytes", lambda array, byte, stream: None)
    monkeypatch.setattr(device, "empty_pinned", lambda shape, dtype: np.empty(shape, dtype))
    monkeypatch.setattr(device.PinnedBuffers, "copy",
                        lambda self, role, array, stream, blocking=True: np.asarray(array))
    monkeypatch.setattr(device, "can_write_words", lambda: False)  # (no launch fed: every one planned whole)
    monkeypatch.setattr(device, "default_memory_cap", lambda: None)
    monkeypatch.setattr(outputs, "pending", lambda solver, batch, exons: SimpleNamespace(results=[None] * len(batch)))
    monkeypatch.setattr(outputs, "scores", lambda *a, **k: None)
    monkeypatch.setattr(outputs, "device_traceback", lambda *a, **k: None)
    monkeypatch.setattr(outputs, "host_traceback", lambda *a, **k: None)
    monkeypatch.setattr(outputs, "results", lambda *a, **k: None)
