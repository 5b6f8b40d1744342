"""A database on the device: codes and offsets uploaded once per solve (host to host)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from splicedalign.workloads.sw.records import Database


@dataclass(frozen=True)
class DeviceDatabase:
    codes: Any
    offsets: Any
    count: int

    @classmethod
    def upload(cls, cp: Any, db: Database) -> "DeviceDatabase":
        codes = db.codes if db.codes.size else np.zeros(1, np.uint8)
        return cls(cp.asarray(codes), cp.asarray(db.offsets.astype(np.int64)), len(db))
