"""The CUDA driver started ahead of CuPy, for a short process (the CLI) that will run a GPU
solver: ``cuInit`` and the device's primary context, the one CuPy's runtime calls use, made on
a daemon thread through ctypes while the process reads its input.

On the H100 host these took 0.23-0.24 s of a fresh ``align --solver gpu`` (cuInit 0.11 s, the
primary context 0.12 s), and ctypes lets the interpreter go during each foreign call: a
pure-Python loop beside that thread ran at its speed alone (0.19 s against 0.20 s), where CuPy
doing the same (its import and first runtime calls on a thread) took the interpreter from the
reading beside it. Once the context exists, CuPy's first runtime calls take under 1 ms.
Stdlib only: it runs before NumPy or CuPy is imported.

Also for such a process, ``skip_unused_preloads``: CuPy's import without its preload of
cuTENSOR, which no solver here uses (see UNUSED_PRELOADS)."""

from __future__ import annotations

import ctypes
import importlib.util
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


# CuPy libraries that CuPy's import preloads (``cupy._environment._preload_library``) and no
# splicedalign solver calls. cuTENSOR (tensor contractions): CuPy's import loads it with its
# dependency cuBLASLt through cuda.pathfinder, 0.05 s of dlopen on the H100 host (of a fresh gpu
# align's ~1.0 s); the libraries CuPy does use (NVRTC, ...) load when first called, as before.
UNUSED_PRELOADS = ("cutensor",)


def skip_unused_preloads() -> bool:
    """CuPy's import made to skip the UNUSED_PRELOADS: its ``cupy._environment`` module (which
    imports no other CuPy module) loaded ahead of ``cupy`` with those marked as tried already
    (its own mark: a preload it attempted). For a process that will use CuPy for splicedalign's
    solvers only (the CLI): ``cupy.cutensor`` would then load the library without the preload's
    version pinning. False, changing nothing, where CuPy is imported already, is not installed,
    or keeps its preloads otherwise (another CuPy: then its import does as it does)."""
    name = "cupy._environment"
    if "cupy" in sys.modules or name in sys.modules:
        return False
    try:
        spec = importlib.util.find_spec("cupy")
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        env = importlib.util.spec_from_file_location(name, f"{locations[0]}/_environment.py") if locations else None
        if env is None or env.loader is None:
            return False
        module = importlib.util.module_from_spec(env)
        sys.modules[name] = module
        env.loader.exec_module(module)
        tried = getattr(module, "_preload_libs", None)
        if not isinstance(tried, dict) or not all(tried.get(lib, 0) is None for lib in UNUSED_PRELOADS):
            raise LookupError("another CuPy's preloads")
    except Exception:  # noqa: BLE001 - CuPy's own import then does all of it
        sys.modules.pop(name, None)
        return False
    for lib in UNUSED_PRELOADS:
        tried[lib] = {}  # "attempted, nothing kept": _can_attempt_preload says no
    return True
