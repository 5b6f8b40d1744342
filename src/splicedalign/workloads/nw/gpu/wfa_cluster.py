"""The WFA of one long pair on a thread-block cluster (wfa_cluster.cu, sm_90): BiWFA with linear costs
(both directions a step, half the forward's steps), the forward WFA with gap-affine costs, global mode,
pairs whose letters do not fit one block's shared memory (10^6 x 10^6), where nw_wfa's
one block takes ~5 diagonals a thread a step, each an L2 round trip for its letters. Here
``CLUSTER`` blocks share each step's diagonals (32 at a time, round robin) and step together, a
cluster barrier every ``per`` steps (``configure``); each block's share of the ring lives in its own
shared memory, the diagonals at a share's edges written into the neighbours' through distributed
shared memory.

``WfaSolver.launch_one(cluster=True)`` launches it (the same upload and pack kernel as nw_wfa; the
CIGAR's text made on the host from the walk's runs, ``cigar.runs_cigar``); ``WfaSolver.solve`` tries
it where ``applies`` says so, before nw_wfa, up to the scores whose ring fits (``fitting_steps``); where the
driver will not run the cluster (``Refused``) it says so and runs nw_wfa.
"""

from __future__ import annotations

import bisect
import ctypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from splicedalign.gpu import device
from splicedalign.workloads.nw.gpu.common import PAD_A, PAD_B, WALK_DIAGS, WALK_STEPS
from splicedalign.workloads.nw.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH
from splicedalign.workloads.nw.wfa_kernels import NULL

KERNEL_FILE = Path(__file__).with_name("wfa_cluster.cu")
# blocks a cluster: 16, an H100's most (device.allow_cluster_size sets the non-portable attribute; 8 is
# the portable most): 10^6 1% kernel 24.8 / 29.7 ms score / CIGAR against 27.2 / 33.2 with 8 (H100)
CLUSTER = 16
MAX_THREADS = 1024
GROUP_INTS = 34  # a group's ring row: its 32 diagonals and a halo diagonal on either side
CONTROL_INTS = 4  # before the ring: the end's flag by the interval's parity (2 ints), the walk's anchor (3 ints:
# wfa_common.cuh's walk_windows) from the second on, written only once the steps are over (an even count: the walk's
# 8-byte window bases lie in the ring's room)
TAIL_INTS = 4  # BiWFA, after the hints: the breakpoint's diagonal and forward score, both walks' runs
COMPUTE_CAPABILITY = 90  # thread-block clusters and distributed shared memory
# steps between two cluster barriers at most (gap extend e caps it: a step reads its neighbours' diagonals e
# steps back); each costs a ring row more (ring_size >= e + per). 10^6 1% (e = 3; H100, 8 blocks): 1 / 2
# / 3 steps a barrier 38.8 / 33.9 / 27.2 ms score, i.e. a barrier ~1.2 us and a step's own chain ~1.5 us
PER_BARRIER = 3
# its cost model (H100, the kernel alone, 10^6 1% linear): a step's own chain STEP_US (the path's probe and
# extension, the stores), a cluster barrier BARRIER_US every per steps, and each diagonal nw_wfa's cost with the
# letters in global memory shared by the CLUSTER blocks: 14,191 steps of ~4,700 diagonals in 24.5 ms (1.73 us a
# step) against 1.3 + 1.2 / 3 + 0.41 = 2.1 us predicted; gap-affine 10^6 1% (4, 6, 2), ~23,000 diagonals a step
# and a barrier a step: 24,317 steps in 93.6 ms (3.85 us a step) against ~6.7 us predicted (the model is high:
# the budget cuts a gap-affine cap sooner than it needs)
# BiWFA (linear costs: a direction's steps, both directions' diagonals): 2.5 us a step predicted at 10^6 1%, 2.04
# measured (~7,100 steps in 14.46 ms, H100)
STEP_US = 1.3
BARRIER_US = 1.2
SWEEP = "nw_wfa_cluster<{affine}, {keep}>"
NAMES = tuple(SWEEP.format(affine=a, keep=k) for a in ("false", "true") for k in ("false", "true"))
# wfa_cluster.defines.h (the names and values nw_wfa's wfa.DEFINES gives the same facts)
DEFINES = {"WFA_NULL": NULL, "WFA_MAX_THREADS": MAX_THREADS, "WFA_OP_M": OP_MATCH, "WFA_OP_X": OP_MISMATCH,
           "WFA_OP_D": OP_DEL, "WFA_OP_I": OP_INS, "WFA_CLUSTER": CLUSTER, "WFA_GROUP_INTS": GROUP_INTS,
           "WFA_CONTROL_INTS": CONTROL_INTS, "WFA_WALK_DIAGS": WALK_DIAGS, "WFA_TAIL_INTS": TAIL_INTS,
           "WFA_PAD_A": PAD_A, "WFA_PAD_B": PAD_B}


class Refused(RuntimeError):
    """The driver will not run nw_wfa_cluster here (the non-portable cluster size refused, no
    multiprocessors free for a cluster of CLUSTER blocks: an MIG slice, a smaller GPU)."""


def applies(mode: str, seqs_shared: bool, capability: int) -> bool:
    """Global mode (linear or gap-affine costs), the letters too long for one block's shared memory
    (shorter pairs run nw_biwfa / nw_wfa with them there), a GPU with clusters."""
    return mode == "global" and not seqs_shared and capability >= COMPUTE_CAPABILITY


@dataclass(frozen=True)
class ClusterLaunch:
    """One nw_wfa_cluster launch's configuration (decided in ``configure`` alone)."""

    threads: int  # a block's
    ring: int  # M's rows (BiWFA: each direction's): scores s - max(x, o + e + per - 1) .. s
    gap_ring: int  # I's and D's rows each: scores s - (e + per - 1) .. s (none with linear costs)
    stride: int  # ints a ring row: GROUP_INTS a block's group
    koff: int  # group G holds diagonals 32 G - koff .. + 31
    per: int  # steps between two cluster barriers
    bi: bool  # linear costs: BiWFA (the reverse's rows, each direction's running maximum, a hint a direction)

    @property
    def rows(self) -> int:
        """Rows of ``stride`` ints a block: M's (BiWFA: and the reverse's, and the two running maxima), I's, D's."""
        return 2 * self.ring + 2 if self.bi else self.ring + 2 * self.gap_ring

    @property
    def smem(self) -> int:
        """Dynamic shared memory a block: the control ints, the rings, an int a local group and direction (its
        hint) and (BiWFA) the tail's ints."""
        local = self.stride // GROUP_INTS
        return 4 * (CONTROL_INTS + self.rows * self.stride + (2 * local + TAIL_INTS if self.bi else local))


def barrier_steps(e: int) -> int:
    """Steps between two cluster barriers: min(e, PER_BARRIER), at least one (a step reads its
    neighbours' diagonals e steps back)."""
    return max(1, min(e, PER_BARRIER))


def bidirectional(o: int) -> bool:
    """Whether the cluster runs BiWFA: linear costs (gap-open 0)."""
    return o == 0


def direction_steps(steps: int, x: int, o: int, e: int) -> int:
    """A direction's scores that cover the forward WFA's first ``steps``: BiWFA's (steps + W) // 2 + 2 with
    W = max(x, e) + 1 (nw_biwfa's rule: the optimum's split has |f - r| <= max(x, e)); the forward's own."""
    return (steps + max(x, e) + 1) // 2 + 2 if bidirectional(o) else steps


def exact_caps(steps: int, x: int, o: int, e: int) -> tuple[int, int]:
    """A direction's fewest scores that find an alignment of ``steps`` (its score over the costs' gcd) and the
    most that give up on it: BiWFA's (c + d) // 2 and (c + d - 1) // 2 - 1 with d = max(x, e) (the optimum's
    split has |f - r| <= d, found by step max(f, r); past a direction's cap B the least overlap is proven
    optimal where it is at most 2 B + 2 - d); the forward's c and c - 1."""
    if not bidirectional(o):
        return steps, steps - 1
    d = max(x, e)
    return (steps + d) // 2, (steps + d - 1) // 2 - 1


def diagonal_span(reach_max: int, n: int, m: int, bi: bool) -> tuple[int, int]:
    """The lowest and highest forward diagonal of wavefronts reaching |k| <= reach_max: BiWFA's reverse
    wavefronts' too (reverse diagonal k' is forward m - n - k')."""
    lo, hi = max(-reach_max, -n), min(reach_max, m)
    if bi:
        lo, hi = min(lo, max(m - n - reach_max, -n)), max(hi, min(m - n + reach_max, m))
    return lo, hi


def configure(reach_max: int, n: int, m: int, x: int, o: int, e: int) -> ClusterLaunch:
    """Diagonals ``diagonal_span`` in groups of 32 dealt round robin over the cluster's blocks, one group more
    (the last group's right halo has a place); a warp a local group up to MAX_THREADS a block (then warps take
    several); min(e, PER_BARRIER) steps a barrier (a thread up to per - 1 steps ahead of its neighbours: M's
    rows past o + e of them, I's and D's past e; BiWFA's check reads its own max(x, e) back)."""
    bi = bidirectional(o)
    lo, hi = diagonal_span(reach_max, n, m, bi)
    groups = -(-(hi - lo + 1) // 32) + 1
    local = -(-groups // CLUSTER)
    per = barrier_steps(e)
    return ClusterLaunch(threads=min(MAX_THREADS, 32 * local), ring=max(x + 1, o + e + per),
                         gap_ring=e + per if o > 0 else 0, stride=GROUP_INTS * local, koff=-lo, per=per, bi=bi)


def steps_ms(steps: Any, diagonals: Any, diag_ns: float, e: int) -> Any:
    """The cost model's time of ``steps`` steps of ``diagonals`` diagonals in all (both directions' with
    BiWFA; element-wise): each step its chain and its share of a barrier, each diagonal ``diag_ns`` on one
    block (nw_wfa's, its letters in global memory) over the CLUSTER blocks."""
    per = barrier_steps(e)
    return (steps * (STEP_US + BARRIER_US / per) + diag_ns * 1e-3 * diagonals / CLUSTER) * 1e-3


def budget_steps(diagonals: np.ndarray, budget_ms: float, diag_ns: float, e: int) -> int:
    """The most steps of a prefix within ``budget_ms`` by ``steps_ms`` (``diagonals``: the running sum
    of the prefix's widths, both directions' with BiWFA): a binary search, not numpy passes over the cap's
    scores (up to 4 times the guess: ~0.6 ms at 10^6 1% on the CPU host, ~1.7 ms in the H100 host's
    side-by-side process)."""
    return bisect.bisect_right(range(diagonals.size), budget_ms,
                               key=lambda i: steps_ms(i + 1, int(diagonals[i]), diag_ns, e))


def fitting_steps(top: np.ndarray, n: int, m: int, x: int, o: int, e: int, shared_bytes: int) -> int:
    """The most scores (a prefix of ``top``, the widest |k| up to each score, non-decreasing) whose
    launch's rings fit in a block's ``shared_bytes``: 10^6 1% gap-affine (4, 6, 2) needs ~4 times
    linear's diagonals a score (I and D reach one diagonal further every e = 1 reduced score) and 9
    ring rows, so a cap of 4 times its guess would not fit; about twice it does."""
    def too_wide(reach_max: int) -> bool:
        return configure(int(reach_max), n, m, x, o, e).smem > shared_bytes

    if not top.size or not too_wide(top[-1]):
        return int(top.size)
    return bisect.bisect_left(top, True, key=too_wide)  # (the need grows with the reach)


def kernel(affine: bool, traceback: bool) -> Any:
    """The nw_wfa_cluster instance (loaded once per process by ``device.function``), allowed its
    CLUSTER blocks a cluster; ``Refused`` where the driver will not allow them."""
    name = SWEEP.format(affine="true" if affine else "false", keep="true" if traceback else "false")
    got = device.function(KERNEL_FILE, name, (name,), DEFINES)
    try:
        device.allow_cluster_size(got, CLUSTER)
    except device.cupy().cuda.driver.CUDADriverError as error:
        raise Refused(f"{CLUSTER} blocks a cluster refused ({error})") from error
    return got


def launch(kernel: Any, config: ClusterLaunch, smem: int, arguments: tuple[Any, ...]) -> None:
    """One cluster of CLUSTER blocks on the current stream; ``Refused`` where the driver will not launch
    it (an error it returns at once: nothing ran)."""
    try:
        kernel((CLUSTER,), (config.threads,), arguments, shared_mem=smem)
    except device.cupy().cuda.driver.CUDADriverError as error:
        raise Refused(f"a cluster of {CLUSTER} blocks not launched ({error})") from error


class _LaunchConfig(ctypes.Structure):
    """The driver's CUlaunchConfig (cuda.h), for cuOccupancyMaxActiveClusters."""

    _fields_ = [("grid_x", ctypes.c_uint), ("grid_y", ctypes.c_uint), ("grid_z", ctypes.c_uint),
                ("block_x", ctypes.c_uint), ("block_y", ctypes.c_uint), ("block_z", ctypes.c_uint),
                ("shared_bytes", ctypes.c_uint), ("stream", ctypes.c_void_p), ("attrs", ctypes.c_void_p),
                ("attr_count", ctypes.c_uint)]


def max_active_clusters(kernel: Any, threads: int, smem: int) -> int | None:
    """cuOccupancyMaxActiveClusters of ``kernel`` (compiled with CLUSTER blocks a cluster, allowed them and
    its dynamic shared memory) at ``threads`` a block and ``smem`` bytes: how many of its clusters the
    device runs at once; None where the driver cannot say (no libcuda, an older driver, an error)."""
    try:
        query = ctypes.CDLL("libcuda.so.1").cuOccupancyMaxActiveClusters
    except (OSError, AttributeError):
        return None
    query.restype = ctypes.c_int
    query.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_void_p, ctypes.POINTER(_LaunchConfig)]
    config = _LaunchConfig(CLUSTER, 1, 1, threads, 1, 1, smem, None, None, 0)
    got = ctypes.c_int(-1)
    function = getattr(kernel, "kernel", kernel)  # (a RawKernel's driver function)
    status = query(ctypes.byref(got), function.ptr, ctypes.byref(config))
    return got.value if status == 0 else None


_CLUSTERS: dict[tuple[int, int, int], int | None] = {}  # max_active_clusters by (kernel's id, threads, smem)


def check_fits(kernel: Any, config: ClusterLaunch) -> None:
    """``Refused`` where no cluster of CLUSTER blocks of the launch's size fits on the device at once
    (cudaOccupancyMaxActiveClusters 0: an MIG slice, multiprocessors taken); asked once a launch size."""
    key = (id(kernel), config.threads, config.smem)
    if key not in _CLUSTERS:
        _CLUSTERS[key] = max_active_clusters(kernel, config.threads, config.smem)
    clusters = _CLUSTERS[key]
    if clusters is not None and clusters < 1:
        raise Refused(f"no cluster of {CLUSTER} blocks of {config.threads} threads and {config.smem:,} bytes fits")


def args(packed: Any, desc: Any, reach: Any, x: int, o: int, e: int, max_steps: int, config: ClusterLaunch,
         keep: Any, pool_ints: int, bases: Any, runs: Any, out: Any) -> tuple[Any, ...]:
    """nw_wfa_cluster's arguments (an array the score alone does not use, None: ``out``, never read)."""
    return (packed, desc, reach, np.int32(x), np.int32(o), np.int32(e), np.int32(max_steps), np.int32(config.ring),
            np.int32(config.gap_ring), np.int32(config.stride), np.int32(config.koff), np.int32(config.per),
            np.int32(WALK_STEPS), out if keep is None else keep, np.int64(pool_ints),
            out if bases is None else bases, out if runs is None else runs, out)
