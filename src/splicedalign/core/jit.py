"""numba's one-time set-up in a command-line process, done on purpose: ``start()`` imports numba
and loads its implementations (what a process's first compiled call or cache load does
otherwise), leaving out what numba looks for on the way that splicedalign's compiled code never
uses. Each was a cost of every fresh ``align`` process:

- SciPy: numba's import checks its version, and its array-maths module asks once whether
  SciPy's BLAS is there (``ensure_blas`` imports ``scipy.linalg``: 0.13-0.17 s of the 0.25-0.3 s
  first call on the 2-core machine), only to pick BLAS or a plain loop for ``np.polyval``-style
  inner products. splicedalign's compiled code does no linear algebra; ``np.dot`` and
  ``np.linalg`` in code compiled later still find SciPy (numba asks again when it compiles them).
- PyYAML: numba reads a ``.numba_config.yaml`` of the working folder with it; imported only
  when there is one (0.18 s under ``-X importtime`` on the H100 host).
- coverage: numba's line reports to a coverage run; imported only when coverage already is
  (a coverage run imports it first).
- numba extensions (the ``numba_extensions`` entry points of every installed distribution, read
  through importlib.metadata at the first compile or cache load): on a host with hundreds of
  distributions a scan of all their metadata, and an extension's own import; the compiled code
  here uses numba's own types only.
- numba's "numba:llvm_lock" events: two event objects around each of the ~3,500 LLVM calls of a
  fresh GPU solve's cache loads (for compile-time reports): ~15% of that first-call CPU time
  (0.067 -> 0.057 s, one thread, 2-core machine).
"""

from __future__ import annotations

import os
import sys

NUMBA_CONFIG_FILE = ".numba_config.yaml"  # numba.core.config._config_fname, read from the working folder


def _no_blas() -> None:
    raise ImportError("not asked at start-up (splicedalign.core.jit)")


def _import_numba() -> None:
    """numba imported, with the optional modules it probes for (and splicedalign never uses)
    answering "not installed" while it is: a ``None`` entry in sys.modules makes their import
    raise ImportError, which numba takes as absent. The entries go afterwards, so later imports
    of those modules work as usual."""
    if "numba" in sys.modules:
        return
    skipped = ["scipy", "coverage"] + ([] if os.path.isfile(NUMBA_CONFIG_FILE) else ["yaml"])
    skipped = [name for name in skipped if name not in sys.modules]
    for name in skipped:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import numba  # noqa: F401
    finally:
        for name in skipped:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


def _no_lock_events() -> None:
    """llvmlite's lock callbacks that numba.core.base registered (its llvm_lock events) removed."""
    import llvmlite.binding.ffi as ffi

    lock = getattr(ffi.lib, "_lock", None)
    callbacks = getattr(lock, "_cblist", None)
    if isinstance(callbacks, list):
        callbacks[:] = [cb for cb in callbacks if getattr(cb[0], "__module__", None) != "numba.core.base"]


def start() -> None:
    """numba imported and its implementation registries loaded for a command-line process
    (idempotent; thread-safe: under numba's compiler lock, which every compile and cache load
    takes). Third-party numba extensions are not loaded in this process, and compile-time
    reports have no LLVM lock times."""
    _import_numba()
    import numba.core.base  # noqa: F401 - registers the lock events that _no_lock_events removes
    import numba.core.entrypoints as entrypoints
    import numba.np.linalg as linalg
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import cpu_target

    with global_compiler_lock:
        _no_lock_events()
        entrypoints._already_initialized = True  # init_all(): no scan of every distribution's entry points
        asked, linalg.ensure_blas = linalg.ensure_blas, _no_blas  # read once, by numba.np.arraymath's import
        try:
            cpu_target.target_context.refresh()
            cpu_target.typing_context.refresh()
        finally:
            linalg.ensure_blas = asked
