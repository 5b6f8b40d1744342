"""numba's one-time set-up in a process, done on purpose: ``start()`` loads numba's
implementations (what a process's first compiled call or cache load does otherwise), so that a
command line can do it on a thread while it reads its input.

It also leaves out SciPy's import: numba's array-maths module asks, once, whether SciPy's BLAS
is there (its ``ensure_blas`` imports ``scipy.linalg``: 0.13-0.17 s of the 0.25-0.3 s first
call on the 2-core machine), only to pick BLAS or a plain loop for ``np.polyval``-style inner
products. splicedalign's compiled code does no linear algebra, so ``start`` answers that one
question "no" without importing SciPy; ``np.dot`` and ``np.linalg`` in compiled code still
find SciPy when they are compiled (they ask again then).
"""

from __future__ import annotations


def _no_blas() -> None:
    raise ImportError("not asked at start-up (splicedalign.core.jit)")


def start() -> None:
    """numba imported and its implementation registries loaded (idempotent; thread-safe:
    under numba's compiler lock, which every compile and cache load takes)."""
    import numba.np.linalg as linalg
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import cpu_target

    with global_compiler_lock:
        asked, linalg.ensure_blas = linalg.ensure_blas, _no_blas  # read once, by numba.np.arraymath's import
        try:
            cpu_target.target_context.refresh()
            cpu_target.typing_context.refresh()
        finally:
            linalg.ensure_blas = asked
