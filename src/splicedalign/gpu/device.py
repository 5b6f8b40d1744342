"""The shared GPU layer: CuPy access (imported here only, on first use), the cheap "is there a
device" probe, kernels from a workload's ``.cu`` file (its shipped binary when one matches, else
NVRTC; see gpu.kernels), error checks, device facts."""

from __future__ import annotations

import ctypes
import os
import struct
import threading
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from splicedalign.core.errors import GpuMemoryError, SolverUnavailable
from splicedalign.core.loading import loading
from splicedalign.gpu import driver
from splicedalign.gpu.kernels import CXX_STD, INCLUDE_DIR, normal_name, shipped_binary

NVRTC_OPTIONS = (CXX_STD, f"-I{INCLUDE_DIR}")
POISON = -987_654_321  # what unwritten device rows hold in checked runs


@cache
def cupy() -> Any:
    """The cupy module, or SolverUnavailable with one line saying why not."""
    try:
        with loading():  # a process's one-time set-up, not any solve's time
            import cupy as cp
    except ImportError:
        raise SolverUnavailable(
            "GPU solvers need CuPy and a CUDA GPU: pip install 'splicedalign[gpu]'"
        ) from None
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDA driver missing or broken
        raise SolverUnavailable(f"GPU solvers need a CUDA GPU: {exc}") from None
    if count == 0:
        raise SolverUnavailable("GPU solvers need a CUDA GPU: none found")
    return cp


def unavailable_reason() -> str | None:
    """None when GPU solvers can run here (CuPy imports and sees a device), else why not.
    Cheap: compiles and runs nothing."""
    try:
        cupy()
    except SolverUnavailable as exc:
        return str(exc)
    return None


@cache
def _module(source: Path, names: tuple[str, ...], defines: tuple[tuple[str, int], ...]) -> Any:
    cp = cupy()
    # the kernel file's own folder too: a workload's kernel files share device code there (kernels.local_headers)
    options = NVRTC_OPTIONS + (f"-I{source.parent}",) + tuple(f"-D{k}={v}" for k, v in defines)
    code = f'#line 1 "{source}"\n{source.read_text()}'  # NVRTC's messages name the file and line
    return cp.RawModule(code=code, options=options, name_expressions=names)


@cache
def _shipped_module(path: Path) -> Any:
    """The shipped binary loaded (the driver picks its SASS or JIT-compiles its PTX), or None
    where this GPU can run neither."""
    cp = cupy()
    try:
        module = cp.RawModule(path=str(path))
        module.compile()  # CuPy loads lazily: load now, so that a failure falls back to NVRTC
    except cp.cuda.driver.CUDADriverError:
        return None
    return module


def function(source: Path, name: str, all_names: tuple[str, ...],
             defines: Mapping[str, int] | None = None) -> Any:
    """Kernel ``name`` (a template instance listed in ``all_names``) of the CUDA file ``source``
    with ``defines`` (constants the host also uses): from the shipped binary built with exactly
    these, else compiled once per process by NVRTC with them as -D macros. Looked up once per
    process (callers need no cache of their own); loading or compiling it counts as kernel
    loading (``core.loading``), not as a solve's time."""
    return _function(source, name, all_names, tuple(sorted((defines or {}).items())))


@cache
def _function(source: Path, name: str, all_names: tuple[str, ...], defines: tuple[tuple[str, int], ...]) -> Any:
    with loading():
        binary = shipped_binary(source, dict(defines))
        if binary is not None and (symbol := binary.symbols.get(normal_name(name))):
            module = _shipped_module(binary.path)
            if module is not None:
                return module.get_function(symbol)
        return _module(source, all_names, defines).get_function(name)


# Dynamic shared memory a launch may take without asking (CUDA's static limit per block); a
# launch that takes more must first raise its kernel's cudaFuncAttributeMaxDynamicSharedMemorySize.
SHARED_MEMORY_DEFAULT = 48 * 1024


# The dynamic shared memory each kernel was allowed (kernels are process-wide, `function`'s
# cache), by id, the kernel held so that its id stays its own: a limit is only ever raised, so
# that no caller lowers it below another's launch. _STATIC: each kernel's static shared memory.
_ALLOWED: dict[int, tuple[Any, int]] = {}
_STATIC: dict[int, tuple[Any, int]] = {}


def allow_shared_memory(kernel: Any, nbytes: int) -> None:
    """Let ``kernel`` (a CuPy RawKernel) launch with ``nbytes`` of dynamic shared memory: its
    limit raised to that where it passes what a launch may take without asking
    (SHARED_MEMORY_DEFAULT less the kernel's static shared memory: nw_wfa's 49,096 bytes, under 48
    KB but not beside its static variables, failed with an invalid argument) and what it was
    allowed before (up to the device's opt-in maximum, ``device_info()["smem_optin"]``; a launch
    beyond that fails). Never lowered: solvers of any workload share the process's kernels."""
    if nbytes <= _ALLOWED.get(id(kernel), (None, 0))[1]:
        return
    static = _STATIC.get(id(kernel))
    if static is None:  # (a kernel's attribute query, once)
        static = _STATIC[id(kernel)] = (kernel, int(getattr(kernel, "shared_size_bytes", 0)))
    if nbytes > SHARED_MEMORY_DEFAULT - static[1]:
        kernel.max_dynamic_shared_size_bytes = nbytes
        _ALLOWED[id(kernel)] = (kernel, nbytes)


class ArgumentSlots:
    """A kernel's arguments by value from one host buffer, as the driver's kernelParams (``params``: each slot's
    address, made once; ``params_at``: that array's), for ``launch`` (CuPy's launch converted each NumPy scalar into
    one of its own first: nw_wfa_round's 31 arguments, 20 of them scalars, took ~0.03 ms of the H100 host's launch
    call). Each argument has an 8-byte slot: a device pointer or int64 whole, an int32 in its low 4 bytes (the driver
    reads a parameter's own size from its address; little-endian). ``__call__`` rewrites the slots: the driver has
    copied them by the time a launch call returns, so one set of slots serves every launch of its owner's thread."""

    def __init__(self, count: int) -> None:
        self.slots = (ctypes.c_int64 * count)()
        self.layout = struct.Struct(f"<{count}q")
        at = ctypes.addressof(self.slots)
        self.params = (ctypes.c_void_p * count)(*(at + 8 * k for k in range(count)))
        self.params_at = ctypes.addressof(self.params)

    def __call__(self, *values: int) -> ArgumentSlots:
        """The launch's arguments: ``values`` (ints, device addresses among them) in their slots."""
        self.layout.pack_into(self.slots, 0, *values)
        return self


def launch(kernel: Any, blocks: int, threads: int, arguments: ArgumentSlots, shared_mem: int, stream: Any) -> None:
    """``kernel`` (a CuPy RawKernel or driver Function) on ``blocks`` x ``threads`` with ``shared_mem`` bytes of
    dynamic shared memory and ``arguments``' slots, queued on ``stream`` by the driver's cuLaunchKernel (CuPy's own
    binding of it, which raises CUDADriverError): no CuPy kernel call (its argument list built anew from each
    argument's type, the current device and stream looked up) and no ``with stream:`` (the current stream set and
    restored) on the host's path to the launch."""
    function = getattr(kernel, "kernel", kernel)  # (a RawKernel's driver function)
    cupy().cuda.driver.launchKernel(function.ptr, blocks, 1, 1, threads, 1, 1, shared_mem, stream.ptr,
                                    arguments.params_at, 0)


# Thread-block clusters (sm_90): the most blocks a cluster every such GPU schedules; more (an H100 up to 16)
# only once a kernel has the driver's CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED (14).
PORTABLE_CLUSTER = 8
NON_PORTABLE_CLUSTER_ATTRIBUTE = 14
_CLUSTERED: dict[int, Any] = {}  # the kernels allowed them, by id (held, as _ALLOWED's)


def allow_cluster_size(kernel: Any, blocks: int) -> None:
    """Let ``kernel`` (a CuPy RawKernel compiled with ``blocks`` a cluster) launch clusters past
    PORTABLE_CLUSTER blocks: the non-portable attribute set, once per kernel."""
    if blocks > PORTABLE_CLUSTER and id(kernel) not in _CLUSTERED:
        function = getattr(kernel, "kernel", kernel)  # (a RawKernel's driver function)
        cupy().cuda.driver.funcSetAttribute(function.ptr, NON_PORTABLE_CLUSTER_ATTRIBUTE, 1)
        _CLUSTERED[id(kernel)] = kernel


# Left free of every budget: CuPy's and the driver's own allocations, a kernel's local memory.
MEMORY_HEADROOM = 256 << 20


# The cap of a process that gives none: the pipeline sets it from its config's gpu_memory, and
# the solver processes of its jobs inherit it.
MEMORY_CAP_ENV = "SPLICEDALIGN_GPU_MEMORY"


def default_memory_cap() -> int | None:
    """The cap (bytes) that MEMORY_CAP_ENV names ('12G', ...), else None."""
    text = os.environ.get(MEMORY_CAP_ENV)
    if not text:
        return None
    from splicedalign.core.commandline import memory_size

    return memory_size(text)


def free_memory() -> int:
    """Bytes of device memory this process can still allocate: what the device has free at this
    moment (cudaMemGetInfo: other processes' allocations count), plus what CuPy's pool holds but
    does not use (freed arrays of earlier solves)."""
    cp = cupy()
    free, _total = cp.cuda.runtime.memGetInfo()
    pool = cp.get_default_memory_pool()
    return int(free) + int(pool.total_bytes() - pool.used_bytes())


def settle_pool(needed: int) -> bool:
    """Free the free blocks of CuPy's pool now where ``needed`` bytes of new allocations would not
    fit in what the device has free outside it: a call's start, while its kernels have not begun.
    ``free_memory`` counts those blocks as free, but a block serves only requests no larger than
    itself; an allocation that finds none and no device memory makes CuPy free them itself, in
    the middle of a call, where cudaFree waits for the running kernels (a 10-set traced call's
    third launch queued 116 ms after the second's kernel ended, H100). Whether it freed them."""
    cp = cupy()
    free, _total = cp.cuda.runtime.memGetInfo()
    freed = needed > free
    if freed:
        cp.get_default_memory_pool().free_all_blocks()
    return freed


def memory_budget(cap: int | None = None) -> int:
    """Bytes of device memory one solve may take now: ``free_memory`` less MEMORY_HEADROOM, and
    at most ``cap`` (``--gpu-memory``; default: the process's, default_memory_cap). Callers size
    their batches from it; a case that cannot fit raises GpuMemoryError through
    ``require_memory``."""
    if cap is None:
        cap = default_memory_cap()
    budget = free_memory() - MEMORY_HEADROOM
    return max(0, min(budget, cap) if cap is not None else budget)


def require_memory(needed: int, budget: int, what: str) -> None:
    """GpuMemoryError (one line, exit 3) when ``what`` needs more than ``budget`` bytes."""
    if needed > budget:
        raise GpuMemoryError(f"{what} needs {needed / 2**30:.2f} GiB of GPU memory; "
                             f"{budget / 2**30:.2f} GiB is available to it "
                             "(free on the device, within --gpu-memory)")


CUDA_ERROR_OUT_OF_MEMORY = 2  # (the driver's status: an allocation, or a launch's local memory it could not reserve)


def out_of_memory(error: Exception) -> bool:
    """Whether ``error`` is the GPU's memory running out: CuPy's OutOfMemoryError (an allocation) or the driver's
    CUDA_ERROR_OUT_OF_MEMORY (e.g. a launch whose local memory it could not reserve, another process holding the
    rest)."""
    cp = cupy()
    return isinstance(error, cp.cuda.memory.OutOfMemoryError) or (
        isinstance(error, cp.cuda.driver.CUDADriverError) and error.status == CUDA_ERROR_OUT_OF_MEMORY)


def fill_bytes(array: Any, byte: int, stream: Any) -> None:
    """Set every byte of the contiguous device ``array`` to ``byte``, queued on ``stream``
    (cudaMemsetAsync: several times the bandwidth of an element-wise fill kernel)."""
    cupy().cuda.runtime.memsetAsync(array.data.ptr, byte, array.nbytes, stream.ptr)


def write_word(array: Any, index: int, value: int, stream: Any) -> None:
    """Set the int32 word ``array[index]`` (device) to ``value`` on ``stream``, after every earlier
    operation of the stream is done and its writes are visible to kernels already running
    (cuStreamWriteValue32 fences before it writes; a plain copy's writes are not ordered for a
    running kernel's reads, so a flag copied after data could be seen before the data)."""
    status = _stream_write_value32()(ctypes.c_void_p(stream.ptr), ctypes.c_uint64(array.data.ptr + 4 * index),
                                     ctypes.c_uint32(value), ctypes.c_uint(0))
    if status:
        raise RuntimeError(f"cuStreamWriteValue32: CUDA driver error {status}")


def can_write_words() -> bool:
    """Whether the driver has cuStreamWriteValue32 (write_word)."""
    try:
        _stream_write_value32()
    except (OSError, AttributeError):
        return False
    return True


@cache
def _stream_write_value32() -> Any:
    """The driver's cuStreamWriteValue32 (the _v2 entry point since CUDA 11.7, the plain name before)."""
    lib = ctypes.CDLL("libcuda.so.1")
    fn = getattr(lib, "cuStreamWriteValue32_v2", None) or lib.cuStreamWriteValue32
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
    return fn


def check(cp: Any) -> None:
    """Raise on any CUDA error of the work queued so far: CuPy checks every launch's return
    code, and a kernel's asynchronous fault surfaces here as CUDARuntimeError."""
    cp.cuda.runtime.deviceSynchronize()


@cache
def device_info() -> dict[str, Any]:
    cp = cupy()
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    return {
        "name": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
        "sms": props["multiProcessorCount"],
        "smem_optin": props["sharedMemPerBlockOptin"],
        "cc": f"{props['major']}.{props['minor']}",
        "driver": cp.cuda.runtime.driverGetVersion(),
    }


def empty_pinned(shape: int | tuple[int, ...], dtype: Any) -> np.ndarray:
    """An uninitialised NumPy array in page-locked host memory (CuPy's pinned memory pool): what
    ``cupyx.empty_pinned`` makes, without importing ``cupyx``, whose package import pulls in
    SciPy's sparse module (0.15 s on the 2-core machine; the first upload of a fresh
    ``align --solver gpu`` spent 0.32-0.34 s on the H100 host)."""
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    address = driver.take_pinned(nbytes)  # the CLI's driver thread allocated one beforehand (gpu.driver)
    if address is not None:
        return np.ndarray(shape, dtype=dtype, buffer=(ctypes.c_uint8 * nbytes).from_address(address))
    return np.ndarray(shape, dtype=dtype, buffer=cupy().cuda.alloc_pinned_memory(nbytes))


class Packed(NamedTuple):
    """Where arrays go in a role's pinned buffer (PinnedBuffers.layout): packed there in parts
    (``pack_part``, any thread: NumPy copies that let go of the GIL), each part then sent
    (PinnedBuffers.send) by its user."""
    buffer: np.ndarray  # the role's buffer, as long as the packed arrays
    offsets: list[int]  # where each array starts in it, then its end
    arrays: list[np.ndarray]  # the arrays (their bytes, shapes and types)


class PinnedBuffers:
    """Reusable page-locked host buffers, one per role: a copy from the device into one runs at
    full PCIe speed, where a pageable copy is staged through a driver buffer at a fraction of
    it. A role's buffer is reused by the next copy into it: callers copy out what they keep.
    ``upload`` may be called from several threads at once (one solver per GPU shares a module's
    staging buffer): packing a role's buffer waits for its last copy under a lock, else a second
    thread overwrites it while the first one's copy is still reading it."""

    def __init__(self) -> None:
        self._buffers: dict[Any, Any] = {}
        self._uploaded: dict[Any, Any] = {}  # per role: the event after its last upload
        self._lock = threading.Lock()

    def copy(self, role: Any, array: Any, stream: Any, blocking: bool = True) -> Any:
        """``array`` (on the device) into the role's buffer on ``stream`` (waited for unless not
        ``blocking``); a NumPy view of it, valid once the stream is synchronized and until the
        role's next copy."""
        buffer = self._buffers.get(role)
        if buffer is None or buffer.size < array.size or buffer.dtype != array.dtype:
            buffer = empty_pinned(array.size, array.dtype)
            self._buffers[role] = buffer
        out = buffer[: array.size].reshape(array.shape)
        array.get(stream=stream, out=out, blocking=blocking)
        return np.asarray(out)

    def upload(self, role: Any, arrays: list[np.ndarray], stream: Any) -> list[Any]:
        """``arrays`` on the device in one copy on ``stream``: packed into the role's buffer
        (256-byte aligned; it waits for the role's previous copy first), copied as one block
        into one device allocation; the device arrays are views of it, in order."""
        with self._lock:
            packed = self._layout(role, arrays)
            pack_part(packed, 0, len(arrays))
            return self.send(role, packed, 0, len(arrays), stream)

    def layout(self, role: Any, arrays: list[np.ndarray], room: int = 0) -> Packed:
        """Where ``arrays`` go in the role's buffer, as ``upload`` packs them (once its last copy is
        done), for a caller that packs them later (pack_part, on any thread) and sends them in
        parts (``send``): the role's user's, who packs it again only once they are sent. ``room``:
        bytes the buffer holds after them, for arrays laid out there later (``extend``)."""
        with self._lock:
            return self._layout(role, arrays, room)

    def extend(self, role: Any, packed: Packed, arrays: list[np.ndarray]) -> Packed:
        """``packed`` (the role's last ``layout``) with ``arrays`` laid out after its own, in the
        room that layout left: packed (pack_part) and sent (``send``) with them or apart."""
        offsets, end = _packed([a.nbytes for a in arrays])
        at, buffer = packed.offsets[-1], self._buffers[role]
        assert buffer.ctypes.data == packed.buffer.ctypes.data and at + end <= buffer.size, "extend: no room left"
        return Packed(buffer[:at + end], packed.offsets[:-1] + [at + o for o in offsets] + [at + end],
                      packed.arrays + arrays)

    def send(self, role: Any, packed: Packed, lo: int, hi: int, stream: Any) -> list[Any]:
        """Arrays [lo, hi) of ``packed`` (packed into the role's buffer) in one copy on ``stream``
        into one device allocation; the device arrays are views of it, in order."""
        a, b = packed.offsets[lo], packed.offsets[hi]
        block = self._send(role, packed.buffer[a:b], stream)
        return [block[at - a:at - a + x.nbytes].view(x.dtype).reshape(x.shape)
                for x, at in zip(packed.arrays[lo:hi], packed.offsets[lo:hi])]

    def fill(self, role: Any, nbytes: int, write: Callable[[np.ndarray], None], stream: Any, into: Any = None) -> Any:
        """``nbytes`` of the role's buffer, written by ``write(view)`` (a uint8 view of them: e.g. many
        arrays concatenated straight into it, one pass over their bytes, where ``upload`` packs
        each one into its own slot), copied as one block on ``stream`` into ``into`` (a device
        array of that size) or a new device array, which it returns."""
        with self._lock:
            view = self._staging(role, nbytes)[:nbytes]
            write(view)
            return self._send(role, view, stream, into)

    def hold(self, role: Any, sizes: list[int]) -> list[np.ndarray]:
        """Uint8 views of the role's pinned buffer, one of each of ``sizes`` bytes (256-byte
        aligned, as ``upload`` packs), once its last copy is done, for a caller that queues its
        own copies from them (then ``sent``)."""
        offsets, end = _packed(sizes)
        with self._lock:
            buffer = self._staging(role, end)
        return [buffer[at:at + size] for at, size in zip(offsets, sizes)]

    def reserve(self, role: Any, sizes: list[int]) -> None:
        """The role's buffer grown now (once its last copy is done) to hold one upload of blocks
        of ``sizes`` bytes, for a caller that uploads them in several copies: its buffer then
        grows as one copy of them all would grow it, at most once for a process's largest call
        (growing it by cudaHostAlloc mid-call took 20-30 ms of the H100 host for a 64 MiB buffer)."""
        with self._lock:
            self._staging(role, _packed(sizes)[1])

    def sent(self, role: Any, event: Any) -> None:
        """The role's copies are done once ``event`` is: its next ``hold`` waits for them."""
        self._uploaded[role] = event

    def _staging(self, role: Any, nbytes: int) -> Any:
        """The role's pinned uint8 buffer of at least ``nbytes``, once its last upload is done."""
        buffer = self._buffers.get(role)
        if buffer is None or buffer.size < nbytes:  # grown by powers of two: a few sizes in a process
            buffer = empty_pinned(1 << max(24, (nbytes - 1).bit_length()), np.uint8)
            self._buffers[role] = buffer
        done = self._uploaded.get(role)
        if done is not None:
            done.synchronize()
        return buffer

    def _send(self, role: Any, packed: np.ndarray, stream: Any, into: Any = None) -> Any:
        """The role's ``packed`` (a view of its buffer) copied into ``into`` or a new device array
        on ``stream``, as one block; the role's next packing waits for the copy (_staging)."""
        with stream:
            block = cupy().empty(packed.size, dtype=packed.dtype) if into is None else into
            if packed.size:
                block.set(packed, stream=stream)
        self._uploaded[role] = stream.record()
        return block

    def _layout(self, role: Any, arrays: list[np.ndarray], room: int = 0) -> Packed:
        offsets, end = _packed([a.nbytes for a in arrays])
        return Packed(self._staging(role, end + room)[:end], offsets + [end], arrays)


def pack_part(packed: Packed, lo: int, hi: int) -> None:
    """Arrays [lo, hi) of ``packed`` copied into their places in its buffer (``pack``)."""
    pack(packed.buffer, [np.ascontiguousarray(a).reshape(-1).view(np.uint8) for a in packed.arrays[lo:hi]],
         packed.offsets[lo:hi])


# Packing a launch's inputs into pinned memory is a memcpy of tens of MB (a 10-paper-set call's
# launches ~120 MB: ~20 ms of one core on the device hosts, ~2 us a case); in pieces on a few
# threads (NumPy's copies release the GIL) it runs closer to the memory's speed. Only where the
# bytes are many (2 pieces a thread): many small blocks on the threads cost their hand-overs (an
# nw batch's 10 blocks of ~0.3 MB together took ~0.65 ms on the 16-CPU H100 host).
PACK_THREADS = max(1, min(4, (os.cpu_count() or 1) // 4))
PACK_PIECE = 2 << 20  # bytes a thread copies at a time


def pack(buffer: np.ndarray, blocks: list[np.ndarray], offsets: list[int]) -> None:
    """The uint8 ``blocks`` copied into ``buffer`` at ``offsets``: on PACK_THREADS threads where
    they are large, piece by piece."""
    pieces = [(at + i, block[i:i + PACK_PIECE]) for block, at in zip(blocks, offsets)
              for i in range(0, block.size, PACK_PIECE)]
    if PACK_THREADS == 1 or sum(block.size for block in blocks) < 2 * PACK_THREADS * PACK_PIECE:
        for at, piece in pieces:
            buffer[at:at + piece.size] = piece
        return
    for _ in _packers().map(lambda p: buffer.__setitem__(slice(p[0], p[0] + p[1].size), p[1]), pieces):
        pass


@cache
def _packers() -> Any:
    """The threads' pool, made on the first large packing."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(PACK_THREADS, thread_name_prefix="pack")


def empty_packed(shapes: list[tuple[tuple[int, ...], Any]], power_of_two: bool = False) -> list[Any]:
    """Uninitialised device arrays of these (shape, dtype)s, views of one allocation on the
    current stream, each 256-byte aligned (as PinnedBuffers.upload packs): one cudaMalloc where
    CuPy's pool of a fresh stream has none to reuse, not one an array. ``power_of_two``: the allocation
    rounded up to a power of two, so that a block freed by an earlier call's (of its stream's
    arena) serves the next one of about its size whole, not only where that one is no larger."""
    sizes = [int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype in shapes]
    offsets, end = _packed(sizes)
    block = cupy().empty(1 << max(0, (end - 1).bit_length()) if power_of_two else end, dtype=np.uint8)
    # (each view as few CuPy calls as it takes: ~5-20 us each on the H100 host, before a fed kernel starts)
    views = [block[at:at + size] for at, size in zip(offsets, sizes)]
    views = [v if np.dtype(dtype) == np.uint8 else v.view(dtype) for v, (_, dtype) in zip(views, shapes)]
    return [v if len(shape) == 1 else v.reshape(shape) for v, (shape, _) in zip(views, shapes)]


def _block(nbytes: int) -> int:
    """Bytes of the block CuPy's pool gives a request of ``nbytes`` (a multiple of 512)."""
    return -(-max(1, nbytes) // 512) * 512


def _packed(sizes: list[int]) -> tuple[list[int], int]:
    """Where blocks of ``sizes`` bytes start when packed one after another, each 256-byte
    aligned, and their packed size."""
    offsets, end = [], 0
    for size in sizes:
        offsets.append(end)
        end += -(-size // 256) * 256
    return offsets, end


class FilledBuffers:
    """Device buffers handed out with (at least) their first ``nbytes`` all ``byte``, kept for
    reuse. A buffer given back waits, unfilled, until ``refill`` (called when the device is
    idle: a fill that arrives while a persistent kernel holds every SM gets a sliver of them and
    slows that kernel for its whole length: the 10 sets' kernels 67.3 -> 73.8 ms); a buffer is only ever filled
    where a user may have written (its dirty prefix). ``take`` hands out the buffer that fits
    with the least to fill now (the smallest of those), else a new one. At most ``keep`` are
    kept (the smallest go); they stay allocated until ``clear`` or ``drop_below``. ``byte`` None:
    buffers handed out as they are, never filled (storage its user writes before it reads it).

    The buffers let go (``give`` beyond ``keep``, ``drop_below``, ``clear``) become free blocks of
    CuPy's pool in their stream's arena (one stream an object), loose: only buffers of this
    object take them again. Their sizes are remembered as the pool keeps them (a buffer made from
    part of a larger one splits it; the part merges back when it goes). A new buffer larger than
    every loose block, where the device has no room for it, frees that arena's free blocks
    first, where CuPy's fallback would free every arena's: spliced_cold's sequence, seed 1613000
    (pool model), freed a row block with the loose ones for a 10-set traced call's fourth 17 GB
    move buffer, and the call made its row storage again."""

    def __init__(self, byte: int | None, keep: int) -> None:
        self.byte, self.keep = byte, keep
        # [uint8 buffer, dirty prefix (bytes that may not hold `byte`), event: its last fill
        # is done, order: when it was first taken since its last refill]
        self._kept: list[list] = []
        self._dirty: dict[int, tuple] = {}  # buffers handed out: (dirty prefix, order, event)
        self._taken = 0
        self._loose: list[int] = []  # blocks (bytes) of the buffers let go: free in the pool, as far as known
        self._parts: dict[int, int] = {}  # a buffer made from part of a loose block: that block's bytes

    def take(self, nbytes: int, stream: Any) -> tuple[Any, Any]:
        """(a uint8 buffer of at least ``nbytes`` whose first ``nbytes`` are ``byte``, the event
        after which they are)."""
        fits = [i for i, k in enumerate(self._kept) if k[0].size >= nbytes]
        if fits:
            buffer, dirty, filled, order = self._kept.pop(
                min(fits, key=lambda i: (min(self._kept[i][1], nbytes), self._kept[i][0].size)))
        else:
            buffer = self._made(nbytes, stream)
            dirty, order, filled = buffer.size if self.byte is not None else 0, None, None
        if self.byte is not None and min(dirty, nbytes):
            fill_bytes(buffer[:min(dirty, nbytes)], self.byte, stream)
            filled = stream.record()
        elif filled is None:  # a new buffer that is not filled: ready once made
            filled = stream.record()
        self._dirty[id(buffer)] = (0 if dirty <= nbytes else dirty, self._taken if order is None else order, filled)
        self._taken += 1
        return buffer, filled

    def reserve(self, count: int, nbytes: int, stream: Any) -> None:
        """``count`` buffers of at least ``nbytes`` kept (``keep`` raised to ``count`` where lower),
        for a caller that takes them in turn later: those kept that fit, the others made now on
        ``stream``."""
        self.keep = max(self.keep, count)
        for buffer in [self.take(nbytes, stream)[0] for _ in range(count)]:
            self.give(buffer, 0)

    def give(self, buffer: Any, used: int) -> None:
        """Take ``buffer`` back once no queued work uses it any more; its user may have written
        its first ``used`` bytes."""
        dirty, order, filled = self._dirty.pop(id(buffer))
        self._kept.append([buffer, max(dirty, used) if self.byte is not None else 0, filled, order])
        while len(self._kept) > self.keep:
            self._loosen([self._kept.pop(min(range(len(self._kept)), key=lambda i: self._kept[i][0].size))[0]])

    def _made(self, nbytes: int, stream: Any) -> Any:
        """A new buffer of ``nbytes`` on ``stream``: from the smallest loose block that holds it
        (as CuPy's pool takes it), else from the device, where, with no room there, the arena's
        free blocks (all smaller) go first."""
        cp = cupy()
        size = _block(nbytes)
        fits = [b for b in self._loose if b >= size]
        if not fits and self._loose and cp.cuda.runtime.memGetInfo()[0] < size:
            cp.get_default_memory_pool().free_all_blocks(stream=stream)
            self._loose.clear()
        with stream:
            buffer = cp.empty(max(1, nbytes), dtype=cp.uint8)
        if fits:
            block = min(fits)
            self._loose.remove(block)
            if block > size:
                self._loose.append(block - size)
                self._parts[id(buffer)] = block
        return buffer

    def _loosen(self, buffers: list) -> None:
        """``buffers`` given back to CuPy's pool (their last reference here): their blocks loose."""
        for buffer in buffers:
            size = _block(buffer.size)
            block = self._parts.pop(id(buffer), 0)  # (0: a block of its own)
            if block and block - size in self._loose:  # merged with the rest of its block
                self._loose.remove(block - size)
                size = block
            self._loose.append(size)

    def loose_serves(self, sizes: list[int]) -> int:
        """Bytes of the buffers of ``sizes`` bytes, taken in turn (none given back), that the loose
        blocks hold, not a kept buffer: made from CuPy's pool as ``_made`` takes them, not from the
        device (device.settle_pool need not find room for them)."""
        kept, loose, served = [k[0].size for k in self._kept], list(self._loose), 0
        for nbytes in sizes:
            if fits := [b for b in kept if b >= nbytes]:
                kept.remove(min(fits))
            elif fits := [b for b in loose if b >= _block(nbytes)]:
                loose.remove(block := min(fits))
                loose.append(block - _block(nbytes))
                served += _block(nbytes)
        return served

    def forget_loose(self) -> None:
        """The loose blocks freed (CuPy's free_all_blocks: device.settle_pool)."""
        self._loose.clear()
        self._parts.clear()

    def refill(self, stream: Any) -> None:
        """Fill every given-back buffer's dirty prefix on ``stream``, those taken first first
        (the next calls likely take them in the same order)."""
        for kept in sorted((k for k in self._kept if k[1]), key=lambda k: k[3]):
            assert self.byte is not None  # (``give`` keeps unfilled buffers clean)
            fill_bytes(kept[0][:kept[1]], self.byte, stream)
            kept[1:] = [0, stream.record(), None]
        self._taken = 0

    def held_bytes(self) -> int:
        """Bytes of the buffers kept (given back, not handed out): what ``clear`` frees."""
        return sum(k[0].size for k in self._kept)

    def largest(self) -> int:
        """Bytes of the largest buffer kept (0: none)."""
        return max((k[0].size for k in self._kept), default=0)

    def drop_below(self, nbytes: int) -> None:
        """Let go of the kept buffers smaller than ``nbytes`` (requests of that size cannot use them)."""
        self._loosen([k[0] for k in self._kept if k[0].size < nbytes])
        self._kept = [k for k in self._kept if k[0].size >= nbytes]

    def clear(self) -> None:
        self._loosen([k[0] for k in self._kept])
        self._kept.clear()
        self._dirty.clear()
