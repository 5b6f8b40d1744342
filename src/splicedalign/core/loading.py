"""Seconds spent loading or compiling kernels, per thread, so that a solver's reported seconds
can leave them out: a process's first solve loads its compiled kernels (numba's on-disk
cache, a GPU module) and the imports that come with them, which is not the solve's time.

numba: the time a thread spends in numba's compiler lock (cache loading, compilation and the
first call's lazy imports, waiting for the lock included), from numba's event API
(``numba:compiler_lock`` events; ``watch_numba`` installs the listener once). Anything else
that loads kernels (a GPU module build) wraps itself in ``loading()``. A solve reads
``seconds()`` before and after and subtracts the difference.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_local = threading.local()
_watching = False


def seconds() -> float:
    """Seconds this thread has spent loading kernels so far (a running total)."""
    return getattr(_local, "total", 0.0)


def _enter() -> None:
    depth = getattr(_local, "depth", 0)
    if depth == 0:
        _local.since = time.perf_counter()
    _local.depth = depth + 1


def _leave() -> None:
    if not getattr(_local, "depth", 0):  # entered before the listener was installed
        return
    _local.depth -= 1
    if _local.depth == 0:
        _local.total = seconds() + time.perf_counter() - _local.since


@contextmanager
def loading() -> Iterator[None]:
    """Count the block as kernel loading (nested blocks count once)."""
    _enter()
    try:
        yield
    finally:
        _leave()


def watch_numba() -> None:
    """Count numba's compiler-lock time as kernel loading, from now on (idempotent)."""
    global _watching
    if _watching:
        return
    from numba.core import event

    class _CompilerLock(event.Listener):
        def on_start(self, evt: Any) -> None:
            _enter()

        def on_end(self, evt: Any) -> None:
            _leave()

    event.register("numba:compiler_lock", _CompilerLock())
    _watching = True
