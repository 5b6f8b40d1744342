"""The CUDA driver started ahead of CuPy, for a short process (the CLI) that will run a GPU
solver: ``cuInit`` and the device's primary context, the one CuPy's runtime calls use, made on
a daemon thread through ctypes while the process reads its input.

On the H100 host these took 0.23-0.24 s of a fresh ``align --solver gpu`` (cuInit 0.11 s, the
primary context 0.12 s), and ctypes lets the interpreter go during each foreign call: a
pure-Python loop beside that thread ran at its speed alone (0.19 s against 0.20 s), where CuPy
doing the same (its import and first runtime calls on a thread) took the interpreter from the
reading beside it. Once the context exists, CuPy's first runtime calls take under 1 ms.
Stdlib only: it runs before NumPy or CuPy is imported."""

from __future__ import annotations

import ctypes
import sys
import threading


def _start(ordinal: int) -> None:
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        device, context = ctypes.c_int(), ctypes.c_void_p()
        if lib.cuInit(0) == 0 and lib.cuDeviceGet(ctypes.byref(device), ordinal) == 0:
            lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)  # held to the process's end
    except (OSError, AttributeError):  # no driver here: CuPy's own calls say why (device.cupy)
        pass


def start(ordinal: int = 0) -> threading.Thread | None:
    """Start the driver and device ``ordinal``'s primary context (CUDA_VISIBLE_DEVICES applies,
    as for CuPy) on a daemon thread; None where there is no such driver library (not Linux).
    Nothing is said on failure: the solver's CuPy calls meet it again and report it."""
    if not sys.platform.startswith("linux"):
        return None
    thread = threading.Thread(target=_start, args=(ordinal,), name="cuda driver start", daemon=True)
    thread.start()
    return thread
