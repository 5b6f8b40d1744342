"""Cyclic garbage collection: paused around batch calls that make many records at once, and
tuned for short processes (the CLI)."""

from __future__ import annotations

import atexit
import gc
from contextlib import contextmanager
from typing import Iterator

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
def collection_paused() -> Iterator[None]:
    """Pause the cyclic collector while a batch call makes thousands of acyclic records (a
    data set's ``Result``s). Their allocations would trigger full collections inside the call,
    each a pass over the caller's whole heap (about 120 ms beside ten loaded data sets:
    docs/gpu.md, device run G). Reference counting frees everything as usual.

    On the way out the call's new objects join the oldest generation at once (``promote_young``):
    records live as long as the caller keeps them, and left young, the first allocation after the
    pause would pass over all of them (2.4 ms at the end of a 10-set GPU call: docs/gpu.md, run AL),
    and the next older collection again. The next full collection finds what the skipped young
    ones would have found."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            promote_young()
            gc.enable()


def promote_young() -> None:
    """Move every object the collector tracks in its young generations to the oldest one, without
    a pass over them: ``gc.freeze`` and ``gc.unfreeze`` each move whole generation lists. Skipped
    while the caller keeps objects frozen (unfreezing would release theirs)."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
