"""The CUDA driver started ahead of CuPy, for a short process (the CLI) that will run a GPU
solver: ``cuInit`` and the device's primary context, the one CuPy's runtime calls use, made on
a daemon thread through ctypes while the process reads its input.

On the H100 host these took 0.23-0.24 s of a fresh ``align --solver gpu`` (cuInit 0.11 s, the
primary context 0.12 s), and ctypes lets the interpreter go during each foreign call: a
pure-Python loop beside that thread ran at its speed alone (0.19 s against 0.20 s), where CuPy
doing the same (its import and first runtime calls on a thread) took the interpreter from the
reading beside it. Once the context exists, CuPy's first runtime calls take under 1 ms.
Stdlib only: it runs before NumPy or CuPy is imported.

The same thread then loads the CUDA libraries CuPy's import loads with the interpreter held
(cuBLAS and cuBLASLt from the pip wheels, WHEEL_LIBRARIES): 0.05 s of dlopen of a fresh
``align --solver gpu`` on the GPU host, in cuda.pathfinder's ``ctypes.CDLL``, which keeps the
interpreter. Loaded here through libc's ``dlopen`` called as a foreign function (ctypes lets
the interpreter go), the work beside the thread goes on, and pathfinder then finds them loaded
(its "already loaded" check comes first). Not before the caller says ``main_loaded()``: every
dlopen of a process takes the dynamic loader's one lock for its whole load, so loading them at
the thread's start made numba's own library (llvmlite's, loaded by its import) wait for them:
0.006 -> 0.054 s on the H200 host, a third of the gain gone. After numba's import the main
thread loads no library until CuPy's import (the solver's modules, waiting for the cases)."""

from __future__ import annotations

import ctypes
import glob
import importlib.util
import json
import os
import sys
import threading

from splicedalign.core import jit

# The libraries a CuPy pip wheel's import loads (cupy_backends, for cuBLAS handles), in load
# order (cuBLASLt first: cuBLAS needs it), and the folders of site-packages where cuda.pathfinder
# looks for them first (its descriptor catalog: the CUDA toolkit wheels); {major} is the CUDA
# major version the CuPy wheel was built for (its cupy/.data/_wheel.json).
WHEEL_LIBRARIES = ("libcublasLt.so.{major}", "libcublas.so.{major}")
WHEEL_DIRS = ("nvidia/cu{major}/lib", "nvidia/cublas/lib")
# Loaded after them where the wheels have them: NVRTC, which CuPy loads at its first kernel
# lookup (the version is part of its kernel cache's key; 5.5 ms of the first kernel of a fresh
# gpu align on the H200 host), its builtins first (NVRTC loads them by name).
NVRTC_LIBRARIES = ("libnvrtc-builtins.so.{major}.*", "libnvrtc.so.{major}")


def wheel_libraries() -> list[str]:
    """The paths of WHEEL_LIBRARIES that CuPy's import would load, then those of NVRTC_LIBRARIES
    that are there: for a CuPy pip wheel only (its _wheel.json names the CUDA version it was built
    for), each the first found in the folders cuda.pathfinder searches first, in the
    interpreter's site-packages; [] where any of WHEEL_LIBRARIES is missing (pathfinder then does
    its own search)."""
    spec = importlib.util.find_spec("cupy")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    try:
        with open(os.path.join(folders[0], ".data", "_wheel.json")) as f:
            config = json.load(f)
        major = str(config["cuda"]).split(".")[0]
    except (IndexError, OSError, ValueError, KeyError, TypeError):
        return []
    if config.get("packaging") != "pip" or not major.isdigit():
        return []
    root = os.path.dirname(folders[0])  # the site-packages of this CuPy
    paths = []
    for name in WHEEL_LIBRARIES + NVRTC_LIBRARIES:
        found = sorted(path for folder in WHEEL_DIRS
                       for path in glob.glob(os.path.join(glob.escape(os.path.join(root, folder.format(major=major))),
                                                          name.format(major=major)))
                       if os.path.isfile(path))
        if found:
            paths.append(found[0])
        elif name in WHEEL_LIBRARIES:
            return []
    return paths


def _load_libraries(paths: list[str]) -> None:
    """Each library loaded (RTLD_NOW | RTLD_GLOBAL, as cuda.pathfinder loads them) through libc's
    dlopen, a foreign call during which the interpreter runs other threads; quiet on failure."""
    try:
        dlopen = ctypes.CDLL(None).dlopen
    except (OSError, AttributeError):
        return
    dlopen.restype, dlopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_int]
    for path in paths:
        if not dlopen(os.fsencode(path), os.RTLD_NOW | os.RTLD_GLOBAL):
            return  # pathfinder's own load then says why


_MAIN_LOADED = threading.Event()
LIBRARIES_WAIT_S = 10.0  # the thread's wait for main_loaded; then it leaves the libraries to CuPy

# A page-locked host block the thread allocates once the context exists (cuMemHostAlloc, the
# interpreter let go), for the first staging buffer of 1-32 MB (gpu.device.empty_pinned):
# a fresh process's first pinned allocation is otherwise made in the solve, on the main thread
# (32 MB: 10-15 ms on the H200 host, page locking under the sandbox). 32 MB holds the paper-shaped
# set's inputs (its staging buffer is 16 or 32 MB); a larger request allocates its own as before.
PINNED_BYTES = 1 << 25
PINNED_LEAST = 1 << 20
_PORTABLE = 0x01  # CU_MEMHOSTALLOC_PORTABLE: pinned for every context
_pinned: list[int] = []  # the block's address, once allocated and until taken
_pinned_lock = threading.Lock()


def main_loaded() -> None:
    """Say that the main thread has loaded its own libraries (numba's import done): the driver's
    thread may load WHEEL_LIBRARIES now (see the module's docstring)."""
    _MAIN_LOADED.set()


def start_numba() -> None:
    """A fresh CLI process's numba, imported lean (core.jit.start: cache loads without the
    registries), then ``main_loaded()``: the driver's thread may load CuPy's libraries. A failure
    here is left for the solve to meet again and report (one line)."""
    try:
        jit.start()
    except Exception:  # noqa: BLE001 - the solve meets it again and says why
        pass
    finally:
        main_loaded()


def take_pinned(nbytes: int) -> int | None:
    """The address of the thread's page-locked block (PINNED_BYTES, held to the process's end)
    for a buffer of ``nbytes``, once: None where it does not fit, is not there (yet), was taken,
    or the buffer is small (under PINNED_LEAST: cheap to allocate, the block kept for a staging
    buffer)."""
    if not PINNED_LEAST <= nbytes <= PINNED_BYTES:
        return None
    with _pinned_lock:
        return _pinned.pop() if _pinned else None


def _allocate_pinned(lib: ctypes.CDLL, context: ctypes.c_void_p) -> None:
    """PINNED_BYTES of page-locked memory in ``context`` (made current on this thread), kept
    for ``take_pinned``; quiet on failure (the solver then allocates its own)."""
    address = ctypes.c_void_p()
    if (lib.cuCtxSetCurrent(context) == 0
            and lib.cuMemHostAlloc(ctypes.byref(address), ctypes.c_size_t(PINNED_BYTES), _PORTABLE) == 0
            and address.value):
        with _pinned_lock:
            _pinned.append(address.value)


def _start(ordinal: int) -> None:
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        device, context = ctypes.c_int(), ctypes.c_void_p()
        if lib.cuInit(0) == 0 and lib.cuDeviceGet(ctypes.byref(device), ordinal) == 0:
            if lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0:  # held to the process's end
                _allocate_pinned(lib, context)
    except (OSError, AttributeError):  # no driver here: CuPy's own calls say why (device.cupy)
        return
    if _MAIN_LOADED.wait(LIBRARIES_WAIT_S):
        _load_libraries(wheel_libraries())


def start(ordinal: int = 0) -> threading.Thread | None:
    """Start the driver and device ``ordinal``'s primary context (CUDA_VISIBLE_DEVICES applies,
    as for CuPy) on a daemon thread, which allocates a page-locked block (``take_pinned``) and
    then loads WHEEL_LIBRARIES once ``main_loaded()`` is said; None where there is no such driver
    library (not Linux). Nothing is said on failure: the solver's CuPy calls meet it again and
    report it."""
    if not sys.platform.startswith("linux"):
        return None
    thread = threading.Thread(target=_start, args=(ordinal,), name="cuda driver start", daemon=True)
    thread.start()
    return thread
