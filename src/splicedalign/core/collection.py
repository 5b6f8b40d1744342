"""Cyclic garbage collection: paused around batch calls that make many records at once, and
tuned for short processes (the CLI)."""

from __future__ import annotations

import atexit
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# First collection threshold of a short process such as the CLI's (Python's default is 700):
# above the ~100 k container objects a one-case align creates, so its start-up runs no collection.
SHORT_PROCESS_THRESHOLD = 200_000


def tune_short_process() -> None:
    """Cyclic garbage collection for a short process. Its start-up (numpy, numba, and the
    implementation registries numba imports at its first compiled call) creates ~100 k container
    objects that live to the exit. At the default threshold the collector runs about 250 times
    during a first align (2 full passes over them), and the interpreter's last collections at exit
    traverse them again while tearing modules down: together a third of a one-case ``align``
    (docs/pipeline.md). The larger threshold still collects cycles later, in fewer passes;
    freezing at exit (atexit runs before the teardown) leaves those objects to reference
    counting, so only cyclic garbage still alive at exit goes with the process, whose finalizers
    Python does not promise to run then anyway. Idempotent: the CLI's ``main`` may run many times
    in one process (tests)."""
    gc.set_threshold(SHORT_PROCESS_THRESHOLD, *gc.get_threshold()[1:])
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)


@contextmanager
def collection_paused() -> Iterator[Callable[[], None]]:
    """Pause the cyclic collector while a batch call makes thousands of acyclic records (a
    data set's ``Result``s). Their allocations would trigger full collections inside the call,
    each a pass over the caller's whole heap (about 120 ms beside ten loaded data sets on the
    device host). Reference counting frees everything as usual.

    Yields ``settle``, for the call to run while it waits anyway (for a GPU), and last: if the
    caller's collector is on and a collection is due, one pass over the two young generations
    moves what the call made so far to the oldest one. Else the first allocation after the
    pause would make that pass (1-2.5 ms after a 10-set GPU call on the device host, and the
    next older collection again), or a full one when due (15 ms beside a loaded data set); the
    next full collection finds what it would have found."""
    was_enabled = gc.isenabled()
    gc.disable()

    def settle() -> None:
        if was_enabled and gc.get_count()[0] > gc.get_threshold()[0]:
            gc.collect(1)

    try:
        yield settle
    finally:
        if was_enabled:
            gc.enable()
