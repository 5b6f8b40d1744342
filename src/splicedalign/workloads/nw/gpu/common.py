"""What the GPU solvers share: the int32 range check, the trivial empty-sequence answers and
a batch's lengths and sequences staged for the device."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.records import OP_DEL, OP_INS, Costs, Pair, Result, check_mode

INT32_SAFE = 1 << 30  # device scores are int32: every |D| and every sum of two must fit


def linear_global_only(costs: Costs, mode: str, solver: str) -> None:
    """Section B only: linear costs, global mode (the paper's nw-tiles)."""
    check_mode(mode)
    if costs.affine or mode != "global":
        raise SolverUnavailable(f"{solver} takes linear costs in global mode only "
                                f"(asked: gap-open {costs.gap_open}, mode {mode}); use gpu, multicore or sequential")


def check_range(pair: Pair, costs: Costs, solver: str) -> None:
    if costs.bound(pair.n, pair.m) >= INT32_SAFE:
        raise SolverUnavailable(f"{solver}: costs x lengths exceed the 32-bit device scores "
                                f"(bound {costs.bound(pair.n, pair.m):,}); use sequential")


def trivial(pair: Pair, costs: Costs, solver: str, traceback: bool, mode: str = "global") -> Result:
    """An empty sequence (the device kernels need both lengths >= 1): a empty costs nothing in
    prefix and infix modes and one gap of b in global mode; b empty is one gap of a."""
    if pair.n == 0 and mode != "global":
        return Result(0, 0, solver, 0.0, "" if traceback else None, 0, 0)
    ops = np.full(pair.n, OP_DEL, dtype=np.int8) if pair.n else np.full(pair.m, OP_INS, dtype=np.int8)
    return Result(costs.gap(pair.n + pair.m), pair.cells, solver, 0.0, cigar_string(ops) if traceback else None,
                  0, pair.m)


def screen(pair: Pair, costs: Costs, mode: str, solver: str, traceback: bool, affine_modes: bool = False
           ) -> Result | None:
    """What every GPU solve checks first, in this order: the mode (and, unless the solver takes
    ``affine_modes``, linear costs in global mode), then the answer to an empty sequence (None
    for a pair the device must solve), then the int32 range."""
    check_mode(mode)
    if not affine_modes:
        linear_global_only(costs, mode, solver)
    if pair.n == 0 or pair.m == 0:
        return trivial(pair, costs, solver, traceback, mode)
    check_range(pair, costs, solver)
    return None


def lengths(pairs: Sequence[Pair]) -> tuple[np.ndarray, np.ndarray]:
    """(n, m): the lengths of a and b of each pair (int64 arrays)."""
    n = np.fromiter((p.n for p in pairs), np.int64, len(pairs))
    m = np.fromiter((p.m for p in pairs), np.int64, len(pairs))
    return n, m


def stage_sequences(pinned: Any, role: str, pairs: Sequence[Pair], stream: Any) -> tuple[Any, np.ndarray, np.ndarray]:
    """(bytes, sizes, starts): a and b of each pair, in order, in one device array by one pinned
    copy (``device.PinnedBuffers.gather`` under ``role``); sizes n0, m0, n1, m1, ... and each
    sequence's start in it."""
    raw = pinned.gather(role, [np.asarray(s, np.uint8) for p in pairs for s in (p.a, p.b)], stream)
    n, m = lengths(pairs)
    sizes = np.stack([n, m], axis=1).reshape(-1)
    return raw, sizes, np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


def free_bytes(cp: Any) -> int:
    """Device memory this process can still allocate: the driver's free bytes plus the blocks
    CuPy's pool holds for reuse (freed arrays of earlier solves)."""
    return int(cp.cuda.runtime.memGetInfo()[0]) + int(cp.get_default_memory_pool().free_bytes())


def gib(n_bytes: int) -> str:
    return f"{n_bytes / 2**30:.1f} GiB"
