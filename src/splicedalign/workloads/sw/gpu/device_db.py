"""A database on the device: codes, offsets and the length order (longest first) that the
`gpu` launches take their sequences in, computed once per database (a search service keeps
it resident between queries)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from splicedalign.workloads.sw.records import Database


def longest_first(lengths: np.ndarray) -> np.ndarray:
    """Indices by decreasing length, ties in database order (radix sort on 16-bit keys when
    every length fits: ~20x faster than a comparison sort on 100,000 sequences)."""
    if lengths.size and lengths.max() < 2**16:
        return np.argsort((2**16 - 1 - lengths).astype(np.uint16), kind="stable")
    return np.argsort(-lengths, kind="stable")


@dataclass(frozen=True)
class DeviceDatabase:
    codes: Any
    offsets: Any
    count: int
    order: Any  # device int32: sequence indices, longest first
    sorted_lengths: np.ndarray  # host: lengths in that order

    @classmethod
    def upload(cls, cp: Any, db: Database) -> "DeviceDatabase":
        codes = db.codes if db.codes.size else np.zeros(1, np.uint8)
        lengths = db.lengths
        order = longest_first(lengths)
        return cls(cp.asarray(codes), cp.asarray(db.offsets.astype(np.int64)), len(db),
                   cp.asarray(order.astype(np.int32)), lengths[order])
