"""Cyclic garbage collection around batch calls that make many records at once."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collection_paused() -> Iterator[None]:
    """Pause the cyclic collector while a batch call makes thousands of acyclic records (a
    data set's ``Result``s). Their allocations would trigger full collections inside the call,
    each a pass over the caller's whole heap (about 120 ms beside ten loaded data sets:
    docs/gpu.md, device run G). Reference counting frees everything as usual; the collector
    resumes afterwards and its next pass finds what it would have found."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
