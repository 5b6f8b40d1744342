"""A database on the device: codes, offsets and the length order (longest first) that the
`gpu` launches take their sequences in, computed once per database (a search service keeps
it resident between queries)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from splicedalign.gpu.device import empty_pinned
from splicedalign.workloads.sw.records import Database

# Staging chunk for uploads: a copy from pageable memory runs at a fraction of the bus rate, so
# the codes go through two pinned buffers: the host fills one while the DMA engine drains the
# other. Smaller arrays take the plain copy (the pipeline's set-up would cost more than it saves).
STAGE_BYTES = 4 << 20


@cache
def _staging(itemsize: int, device: int) -> tuple[Any, Any, Any]:
    """Two reusable pinned buffers of STAGE_BYTES and the stream that drains them, per device
    (with --devices each GPU's thread uploads at the same time, on its own device's stream)."""
    import cupy

    return (empty_pinned(STAGE_BYTES // itemsize, np.dtype(f"u{itemsize}")),
            empty_pinned(STAGE_BYTES // itemsize, np.dtype(f"u{itemsize}")),
            cupy.cuda.Stream(non_blocking=True))


def to_device(cp: Any, host: np.ndarray) -> Any:
    """A contiguous 1-D host array on the device, through the pinned double buffer when large."""
    if host.nbytes < 2 * STAGE_BYTES:
        return cp.asarray(host)
    out = cp.empty(host.shape, host.dtype)
    raw_in = host.view(np.dtype(f"u{host.itemsize}"))
    raw_out = out.view(np.dtype(f"u{host.itemsize}"))
    *buffers, stream = _staging(host.itemsize, cp.cuda.Device().id)
    done: list[Any] = [None, None]  # event after the last copy out of each buffer
    per = buffers[0].size
    for k, start in enumerate(range(0, raw_in.size, per)):
        buf, stop = buffers[k % 2], min(start + per, raw_in.size)
        if done[k % 2] is not None:
            done[k % 2].synchronize()  # the DMA engine has finished reading this buffer
        np.copyto(buf[: stop - start], raw_in[start:stop])
        raw_out[start:stop].set(buf[: stop - start], stream=stream)
        done[k % 2] = stream.record()
    stream.synchronize()
    return out


@dataclass(frozen=True)
class DeviceDatabase:
    codes: Any
    offsets: Any
    count: int
    order: Any  # device int32: sequence indices, longest first
    sorted_lengths: np.ndarray  # host: lengths in that order
    # the pass-to-pass scratch bases of that order per lane kind (sequences per group), made
    # once: (device bases, rows)
    scratch: dict = field(default_factory=dict, compare=False)

    @classmethod
    def upload(cls, cp: Any, db: Database) -> DeviceDatabase:
        codes = db.codes if db.codes.size else np.zeros(1, np.uint8)
        lengths = db.lengths
        order = db.longest_first()
        return cls(to_device(cp, np.ascontiguousarray(codes)), cp.asarray(db.offsets.astype(np.int64)), len(db),
                   cp.asarray(order.astype(np.int32)), lengths[order])
