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
import importlib.util
import json
import os
import sys
import threading

# The libraries a CuPy pip wheel's import loads (cupy_backends, for cuBLAS handles), in load
# order (cuBLASLt first: cuBLAS needs it), and the folders of site-packages where cuda.pathfinder
# looks for them first (its descriptor catalog: the CUDA toolkit wheels); {major} is the CUDA
# major version the CuPy wheel was built for (its cupy/.data/_wheel.json).
WHEEL_LIBRARIES = ("libcublasLt.so.{major}", "libcublas.so.{major}")
WHEEL_DIRS = ("nvidia/cu{major}/lib", "nvidia/cublas/lib")


def wheel_libraries() -> list[str]:
    """The paths of WHEEL_LIBRARIES that CuPy's import would load: for a CuPy pip wheel only (its
    _wheel.json names the CUDA version it was built for), each the first found in the folders
    cuda.pathfinder searches first, in the interpreter's site-packages; [] where any is missing
    (pathfinder then does its own search)."""
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
    for name in WHEEL_LIBRARIES:
        found = [path for folder in WHEEL_DIRS
                 if os.path.isfile(path := os.path.join(root, folder.format(major=major), name.format(major=major)))]
        if not found:
            return []
        paths.append(found[0])
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


def main_loaded() -> None:
    """Say that the main thread has loaded its own libraries (numba's import done): the driver's
    thread may load WHEEL_LIBRARIES now (see the module's docstring)."""
    _MAIN_LOADED.set()


def _start(ordinal: int) -> None:
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        device, context = ctypes.c_int(), ctypes.c_void_p()
        if lib.cuInit(0) == 0 and lib.cuDeviceGet(ctypes.byref(device), ordinal) == 0:
            lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)  # held to the process's end
    except (OSError, AttributeError):  # no driver here: CuPy's own calls say why (device.cupy)
        return
    if _MAIN_LOADED.wait(LIBRARIES_WAIT_S):
        _load_libraries(wheel_libraries())


def start(ordinal: int = 0) -> threading.Thread | None:
    """Start the driver and device ``ordinal``'s primary context (CUDA_VISIBLE_DEVICES applies,
    as for CuPy) on a daemon thread, which then loads WHEEL_LIBRARIES once ``main_loaded()`` is
    said; None where there is no such driver library (not Linux). Nothing is said on failure:
    the solver's CuPy calls meet it again and report it."""
    if not sys.platform.startswith("linux"):
        return None
    thread = threading.Thread(target=_start, args=(ordinal,), name="cuda driver start", daemon=True)
    thread.start()
    return thread
