"""The forward WFA of one long pair on a thread-block cluster (wfa_cluster.cu, sm_90): linear costs,
global mode, pairs whose letters do not fit one block's shared memory (10^6 x 10^6), where nw_wfa's
one block takes ~5 diagonals a thread a step, each an L2 round trip for its letters. Here
``CLUSTER`` blocks share each step's diagonals (32 at a time, round robin) and step together, a
cluster barrier every ``per`` steps (``configure``); each block's share of the ring lives in its own
shared memory, the diagonals at a share's edges written into the neighbours' through distributed
shared memory.

``WfaSolver.launch_one(cluster=True)`` launches it (the same upload and pack kernel as nw_wfa; the
CIGAR's text made on the host from the walk's runs, ``cigar.runs_cigar``); ``WfaSolver.solve`` tries
it where ``applies`` says so, before nw_wfa.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from splicedalign.gpu import device
from splicedalign.workloads.nw.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Costs
from splicedalign.workloads.nw.wfa_kernels import NULL

KERNEL_FILE = Path(__file__).with_name("wfa_cluster.cu")
# blocks a cluster: 16, an H100's most (device.allow_cluster_size sets the non-portable attribute; 8 is
# the portable most): 10^6 1% kernel 24.8 / 29.7 ms score / CIGAR against 27.2 / 33.2 with 8 (H100)
CLUSTER = 16
MAX_THREADS = 1024
GROUP_INTS = 34  # a group's ring row: its 32 diagonals and a halo diagonal on either side
CONTROL_INTS = 4  # before the ring: the end's flag (and padding)
COMPUTE_CAPABILITY = 90  # thread-block clusters and distributed shared memory
# steps between two cluster barriers at most (gap extend e caps it: a step reads its neighbours' diagonals e
# steps back); each costs a ring row more (ring_size >= e + per). 10^6 1% (e = 3; H100, 8 blocks): 1 / 2
# / 3 steps a barrier 38.8 / 33.9 / 27.2 ms score, i.e. a barrier ~1.2 us and a step's own chain ~1.5 us
PER_BARRIER = 3
SWEEP = "nw_wfa_cluster<{keep}>"
NAMES = tuple(SWEEP.format(keep=k) for k in ("false", "true"))
# wfa_cluster.defines.h (the names and values nw_wfa's wfa.DEFINES gives the same facts)
DEFINES = {"WFA_NULL": NULL, "WFA_MAX_THREADS": MAX_THREADS, "WFA_OP_M": OP_MATCH, "WFA_OP_X": OP_MISMATCH,
           "WFA_OP_D": OP_DEL, "WFA_OP_I": OP_INS, "WFA_CLUSTER": CLUSTER, "WFA_GROUP_INTS": GROUP_INTS,
           "WFA_CONTROL_INTS": CONTROL_INTS}


def applies(costs: Costs, mode: str, seqs_shared: bool, capability: int) -> bool:
    """Linear costs, global mode, the letters too long for one block's shared memory (shorter pairs
    run nw_biwfa / nw_wfa with them there), a GPU with clusters."""
    return costs.gap_open == 0 and mode == "global" and not seqs_shared and capability >= COMPUTE_CAPABILITY


@dataclass(frozen=True)
class ClusterLaunch:
    """One nw_wfa_cluster launch's configuration (decided in ``configure`` alone)."""

    threads: int  # a block's
    ring: int  # rows: scores s - max(x, e) .. s
    stride: int  # ints a ring row: GROUP_INTS a block's group
    koff: int  # group G holds diagonals 32 G - koff .. + 31
    per: int  # steps between two cluster barriers

    @property
    def smem(self) -> int:
        """Dynamic shared memory a block: the control ints, the ring and an int a local group (its hint)."""
        return 4 * (CONTROL_INTS + self.ring * self.stride + self.stride // GROUP_INTS)


def configure(reach_max: int, n: int, m: int, x: int, e: int) -> ClusterLaunch:
    """Diagonals -min(reach_max, n) .. min(reach_max, m) in groups of 32 dealt round robin over the
    cluster's blocks, one group more (the last group's right halo has a place); a warp a local group
    up to MAX_THREADS a block (then warps take several); min(e, PER_BARRIER) steps a barrier."""
    koff = min(reach_max, n)
    groups = -(-(koff + min(reach_max, m) + 1) // 32) + 1
    local = -(-groups // CLUSTER)
    per = max(1, min(e, PER_BARRIER))
    return ClusterLaunch(threads=min(MAX_THREADS, 32 * local), ring=max(x + 1, e + per), stride=GROUP_INTS * local,
                         koff=koff, per=per)


def kernel(traceback: bool) -> Any:
    """The nw_wfa_cluster instance (loaded once per process by ``device.function``), allowed its
    CLUSTER blocks a cluster."""
    name = SWEEP.format(keep="true" if traceback else "false")
    got = device.function(KERNEL_FILE, name, (name,), DEFINES)
    device.allow_cluster_size(got, CLUSTER)
    return got


def args(packed: Any, desc: Any, reach: Any, x: int, e: int, max_steps: int, config: ClusterLaunch, keep: Any,
         pool_ints: int, bases: Any, runs: Any, out: Any) -> tuple[Any, ...]:
    """nw_wfa_cluster's arguments (an array the score alone does not use, None: ``out``, never read)."""
    return (packed, desc, reach, np.int32(x), np.int32(e), np.int32(max_steps), np.int32(config.ring),
            np.int32(config.stride), np.int32(config.koff), np.int32(config.per), out if keep is None else keep,
            np.int64(pool_ints),
            out if bases is None else bases, out if runs is None else runs, out)
