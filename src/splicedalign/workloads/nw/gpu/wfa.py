"""``gpu``'s wavefront algorithm (wfa.cu): exact, with a time that grows with the score, not
the area, for costs the WFA takes (match 0, positive mismatch and gap extend: ``wfa.applicable``),
in every mode. One thread block per pair, so one launch answers a single pair (``solve``) or a
whole batch (``solve_many``); each pair has a budget of diagonals visited (its cap), past which
the kernel gives it up and the caller runs the certified band or the whole table instead: the
answer stays exact, ``Result.algorithm`` says ``wfa`` or what ran.

Host side, per launch: the sequences go up once as bytes and are packed on the device (4 bits a
letter), the score ranges (``reach_table``, a function of the costs only) once per launch, one
descriptor per pair; back come (steps, end column, start column, runs) per pair and, with the
alignment, the CIGAR text (batch.cu's ``nw_band_text`` formats the runs the walk back wrote; a
single pair's runs come back with its answer and are formatted on the host, ``cigar.runs_cigar``).
A batch goes in chunks (``launch``); a single pair (``solve``) takes a lean path
(``launch_one``): one upload into buffers the solver keeps (``Workspace``), the reach table kept
on the device, one stream, nothing allocated but the kept wavefronts' pool (and a ring in global memory).
segments.py's pieces of a staged pair (``solve_pieces``) go the same way: one upload, one nw_wfa launch in infix
mode (a block a piece, which packs its letters from the staged bytes into shared memory; where they do not fit
there, a pack launch for all pieces before it), one copy back.
"""

from __future__ import annotations

import itertools
import logging
import math
import statistics
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from splicedalign.gpu import device
from splicedalign.workloads.nw import records
from splicedalign.workloads.nw import wfa as cpu_wfa
from splicedalign.workloads.nw.batches import PairBatch, letter_tables
from splicedalign.workloads.nw.cigar import runs_cigar
from splicedalign.workloads.nw.gpu import batch, wfa_cluster
from splicedalign.workloads.nw.gpu.common import (
    INT32_SAFE,
    PAD_A,
    PAD_B,
    WALK_DIAGS,
    WALK_STEPS,
    Columns,
    Staging,
    Text,
    cut_cigars,
    lengths,
    pair_sources,
)
from splicedalign.workloads.nw.records import MODES, OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Costs, Pair, Result
from splicedalign.workloads.nw.segments import ROWS, Pieces, Segmented, first_asks
from splicedalign.workloads.nw.wfa_kernels import DONE, NULL, wfa_align_codes

KERNEL_FILE = Path(__file__).with_name("wfa.cu")
MAX_THREADS = 1024
# a single pair whose sequences fit in shared memory and whose wavefront stays within 2 diagonals a
# thread: 16 warps (H200, 10^5 at 1% linear, ~450 diagonals a step: 0.65 us a step against 0.72
# with 32 warps, whose idle half still runs each step's set-up); wider ones MAX_THREADS (10^5 at 5%,
# ~2,250: 1.40 us a step against 1.58 with 16 warps; more loads in flight)
SHARED_THREADS = 512
# a block of segments.py's pieces (H100, 384 rows a piece: 10^5 at 1% / 5% and 30,368 at 10% 0.75 / 1.46 /
# 1.19 ms host to host at 512 threads, 0.78 / 1.69 / 1.44 at 256; 1,024 with 768 rows no faster than 512);
# MAX_THREADS where a round's pieces are no more than the multiprocessors (the merged pieces of a second
# round, twice as long: 768 rows at 5% and 10%, 0.45 / 0.67 ms on the device at 1,024, 0.54 / 0.73 at 512)
PIECE_THREADS = 512
PAD_WORDS = 4  # words of pad letters after each packed sequence


def letter_codes() -> np.ndarray:
    """The pack kernel's tables (a's row, b's row): a byte's code, whether the byte is a code
    already (0..15: itself) or an IUPAC letter as given (``batches.letter_tables``); BAD (255)
    for anything else."""
    table = np.frombuffer(b"".join(letter_tables()), np.uint8).reshape(2, 256).copy()
    table[:, :16] = np.arange(16, dtype=np.uint8)
    return table


LETTER_CODES = letter_codes()
# A pair's kept wavefronts take the pool's room a chunk at a time (one atomicAdd a chunk): a single
# pair its whole cap at once, a batch's pairs 1/POOL_CHUNKS of theirs (what a pair holds stays
# near what it uses)
POOL_CHUNKS = 8
DEFINES = {"WFA_NULL": NULL, "WFA_DESC": batch.DESCRIPTOR, "WFA_OUT": batch.OUT, "WFA_MAX_THREADS": MAX_THREADS,
           "MODE_GLOBAL": MODES.index("global"), "MODE_PREFIX": MODES.index("prefix"),
           "MODE_INFIX": MODES.index("infix"), "WFA_OP_M": OP_MATCH, "WFA_OP_X": OP_MISMATCH, "WFA_OP_D": OP_DEL,
           "WFA_OP_I": OP_INS, "WFA_PAD_WORDS": PAD_WORDS, "WFA_WALK_DIAGS": WALK_DIAGS, "WFA_PAD_A": PAD_A,
           "WFA_PAD_B": PAD_B, "WFA_POOL_CHUNKS": POOL_CHUNKS}  # wfa.defines.h
# shared: the ring and both sequences in shared memory; bytes: segments' pieces packed by their own blocks from the
# staged pair's bytes (queue_pieces, where the letters fit in shared memory: no pack launch; with the alignment only)
SWEEP = "nw_wfa<{affine}, {keep}, {shared}, {bytes}>"
PACK = "nw_wfa_pack"
# BiWFA (a single pair, linear costs, global mode, its rings and letters in shared memory): the
# forward and the reverse wavefronts at once, each on half the block, about half the steps
BIWFA = "nw_biwfa<{keep}>"
# segments.py's check of a first round of pieces on the device (queue_check): one block of SETTLE_THREADS, a thread
# a piece, for rounds of up to SETTLE_PIECES first pieces (its shared memory: 8 bytes a piece)
SETTLE = "nw_pieces_settle"
SETTLE_THREADS = 512
SETTLE_PIECES = 4096
# a guessed first round of segments in one launch (queue_round): its blocks make their own descriptors
# (segments.first_shape's pieces), pack their letters from the staged bytes (as SWEEP's bytes variant), and its last
# block checks the round (as SETTLE); shared: the ring in shared memory too
ROUND = "nw_wfa_round<{affine}, {shared}>"
ROUNDS = {(a, h): ROUND.format(affine=str(a).lower(), shared=str(h).lower()) for a in (False, True)
          for h in (False, True)}  # (each variant's name by (gap-affine, shared ring), formatted once)
ROUND_ARGUMENTS = 32  # its parameters (queue_round passes them by value: device.ArgumentSlots)
NAMES = (tuple(SWEEP.format(affine=a, keep=k, shared=h, bytes=b) for a in ("false", "true") for k in ("false", "true")
               for h in ("false", "true") for b in ("false", "true") if b == "false" or k == "true")
         + tuple(BIWFA.format(keep=k) for k in ("false", "true")) + (PACK, SETTLE)
         + tuple(ROUNDS.values()))
ALGORITHM = "wfa"
PACK_THREADS = 256
# a launch's chunks take these in turn (a stream a chunk: 6 for 40 MB copied by pieces, common.chunk_bounds;
# a chunk on a stream behind another waits for that one's kernels, ~0.6 ms for the 50 pairs of 10 kb of a first chunk)
LAUNCH_STREAMS = 8
# a batch's pairs of ~10 kb have wavefronts of a few hundred diagonals: 2,000 x 10 kb at 5% linear
# on an H200, the kernels' span 3.5 ms at 256 threads a block, 2.9 at 128, 3.4 at 64
BATCH_THREADS = 128
# dynamic shared memory a block may take (sm_80 allows 163 KiB a block, sm_90 227 KiB; a device's
# own limit, when CuPy can tell it, replaces it)
SHARED_BYTES = 160 * 1024
KEEP_SHARE = 0.5  # of the device memory budget the kept wavefronts may take
# The cost model (measured on an H100, the kernel alone):
# one block is one SM, so a score step costs STEP_US (its chain: plan, sources, the first
# extension probe, the barrier) plus DIAG_NS a diagonal of its wavefront (I, D and M of a
# diagonal together): linear 10^5 1% 1,348 steps of ~450 diagonals in 1.17 ms, 30,368 10%
# 4,218 of ~1,400 in 4.43, 10^5 5% 6,744 of ~2,250 in 9.75 (0.75 us + 0.3 ns a diagonal);
# affine (its ring in global memory beside the sequences) 10^5 1% 2,330 of ~2,330 in 5.27,
# 30,368 10% 7,323 of ~7,300 in 39.3 (0.62 ns); with the sequences in global memory (10^6)
# GLOBAL_SEQS times the diagonals' cost: 14,191 steps of ~4,700 in 104 ms. A batch's blocks share
# the GPU: DIAG_BATCH_NS a diagonal over all its pairs (2,000 x 10 kb at 5%, the previous kernel:
# linear 2.9 x 10^8 diagonals in 7.8 ms, affine 2.6 x 10^9 in 146).
STEP_US = 0.75
DIAG_NS = {False: 0.3, True: 0.62}  # keyed by gap-affine
GLOBAL_SEQS = 4.7  # the sequences in global memory
# nw_wfa_cluster's model takes a diagonal at one block's cost with the letters in global memory
CLUSTER_DIAG_NS = {affine: ns * GLOBAL_SEQS for affine, ns in DIAG_NS.items()}
DIAG_BATCH_NS = {False: 0.027, True: 0.056}
STEPS_MAX = 1 << 22  # the reach table's length at most (a cap beyond it is cut to it)
# batches (solve_many): pairs sampled for the batch's divergence, the slack of each pair's cap
# over the sample's prediction (diagonals; scores: their square root, about), at most this share
# of its cells, the band batch's time a cell (H100, 2,000 x 10 kb at 5%: 110 ms linear, 156 ms
# affine for 2 x 10^11 cells) and the share of it the WFA's prediction must beat
BATCH_SAMPLES, BATCH_SLACK, BATCH_STEP_SLACK, BATCH_CELL_SHARE, BATCH_SHARE = 8, 3.0, 1.6, 0.05, 0.5
BAND_BATCH_PS = {False: 0.55, True: 0.78}  # keyed by gap-affine
# the divergence sample (sampled_score): both ends of a, against b's with a margin
SAMPLE_LENGTH, SAMPLE_LONGEST, SAMPLE_MARGIN, SAMPLE_WORK = 512, 4096, 64, 200_000
SAMPLE_SLACK = 4.0  # a WFA guided by a sample gives up past this many times its guess
# a single pair's upload: its first SINGLE_META bytes hold its descriptor and the pool's counter (the
# head, HEAD_PARTS: uploaded by each launch, ``WfaSolver.launch_one``, once the host has chosen it) and
# the packing's table (TABLE_PARTS: uploaded with the letters after it as soon as the pair comes,
# ``WfaSolver.stage``), then a guessed round's pool counter and its blocks' tickets (``WfaSolver.queue_round``: zero,
# uploaded by the stage) (SINGLE_LAYOUT: byte offset, dtype, count)
SINGLE_META = 256
PIECE_PARTS = ("desc", "pool_top", "from", "size", "to", "words", "pad")  # solve_pieces' upload (piece_layout)
SINGLE_LAYOUT = {"desc": (0, np.int64, batch.DESCRIPTOR), "pool_top": (56, np.uint64, 1), "from": (64, np.int64, 2),
                 "size": (80, np.int64, 2), "to": (96, np.int64, 2), "words": (112, np.int64, 2),
                 "pad": (128, np.uint8, 2), "round": (136, np.uint64, 2)}
HEAD_PARTS = ("desc", "pool_top")
TABLE_PARTS = ("from", "size", "to", "words", "pad")


def single_struct(parts: tuple[str, ...]) -> struct.Struct:
    """SINGLE_LAYOUT's ``parts`` as one little-endian struct from the first one's byte (they lie back
    to back), so that the host writes them into its upload in one call (seven NumPy slice assignments
    took ~10 us)."""
    codes = {np.dtype(np.int64): "q", np.dtype(np.uint64): "Q", np.dtype(np.uint8): "B"}
    fmt, end = "<", SINGLE_LAYOUT[parts[0]][0]
    for name in parts:
        at, dtype, count = SINGLE_LAYOUT[name]
        assert at == end, "the parts lie back to back, in order"
        fmt += f"{count}{codes[np.dtype(dtype)]}"
        end += count * np.dtype(dtype).itemsize
    return struct.Struct(fmt)


HEAD_STRUCT, TABLE_STRUCT = single_struct(HEAD_PARTS), single_struct(TABLE_PARTS)
TABLE_AT = SINGLE_LAYOUT[TABLE_PARTS[0]][0]
WORKSPACE_MIN = 1 << 16  # bytes of the first upload buffer
BIWFA_LETTERS = 1 << 22  # n + m below it (nw_biwfa's breakpoint key)
BIWFA_RING_MAX = 1 << 17


def applies(costs: Costs) -> bool:
    return cpu_wfa.applicable(costs)


@njit(cache=True, nogil=True)
def reach_table(x: int, o: int, e: int, steps: int, gap_start: bool = False) -> np.ndarray:
    """reach[s]: the furthest diagonal |k| score s reaches from k = 0 (-1: no wavefront at s),
    the CPU WFA's ranges before the table's edges clamp them (wfa_kernels.wfa_forward): M from
    M[s-x] (same range), gaps from M[s-o-e] one diagonal out and, with gap-affine costs, from
    I and D at s-e (none at score 0, but for infix mode's gap start: D[0] is M[0])."""
    out = np.full(steps + 1, -1, np.int32)
    out[0] = 0
    first_gap = e if gap_start else e + 1  # the first score with I and D at s - e
    for s in range(1, steps + 1):
        r = -1
        if s >= x and out[s - x] >= 0:
            r = out[s - x]
        if s >= o + e and out[s - o - e] >= 0:
            r = max(r, out[s - o - e] + 1)
        if o > 0 and s >= first_gap and out[s - e] >= 0:
            r = max(r, out[s - e] + 1)
        out[s] = r
    return out


def span(r: Any, n: Any, m: Any, mode: str) -> Any:
    """Diagonals of a wavefront reaching |k| <= r (r >= 0) of an n x m pair: -min(r, n) ..
    min(r, m), or .. m in infix mode (wfa.cu span_of); element-wise over arrays."""
    return np.minimum(r, n) + (m if mode == "infix" else np.minimum(r, m)) + 1


def widths(reach: np.ndarray, n: int, m: int, mode: str) -> np.ndarray:
    """Diagonals of each score's wavefront for an n x m pair (0 where the score has none)."""
    r = reach.astype(np.int64)
    return np.where(r >= 0, span(r, n, m, mode), 0)


def score_bound(costs: Costs, n: int, m: int) -> int:
    """An upper bound of the optimal cost in every mode (match 0): the letters paired along the
    diagonal, the rest one gap; or a gap of each sequence."""
    return min(costs.mismatch * min(n, m) + costs.gap(abs(n - m)), costs.gap(n) + costs.gap(m))


def ring_size(x: int, o: int, e: int) -> int:
    """Scores a step reads back: s - x, s - o - e, s - e."""
    return max(x, o + e) + 1


def wavefront_arrays(o: int) -> int:
    """Wavefronts a score has: M, and I and D with gap-affine costs (o > 0)."""
    return 3 if o > 0 else 1


def gap_ring_size(o: int, e: int) -> int:
    """I's and D's ring rows each: scores s - e .. s (none with linear costs)."""
    return e + 1 if o > 0 else 0


class Launch(NamedTuple):
    """One nw_wfa launch's configuration (decided in ``configure`` alone; a NamedTuple: made in ~0.3 us of the
    2-core development host where the frozen dataclass took ~1.9, on a guessed round's path to its launch)."""

    threads: int
    ring: int  # M's ring rows (ring_size)
    gap_ring: int  # I's and D's ring rows each (e + 1; none with linear costs)
    stride: int  # ints a ring row
    reach_max: int  # the widest |k| of any score up to max_steps
    max_steps: int
    shared: bool  # ring in shared memory
    arrays: int  # M (and I, D)
    seq_bytes: int = 0  # both packed sequences of the largest pair
    seqs_shared: bool = False  # the sequences copied into shared memory

    @property
    def ring_bytes(self) -> int:
        return ring_bytes_of(self.ring, self.gap_ring, self.stride)

    @property
    def rows(self) -> int:
        return self.ring + 2 * self.gap_ring

    @property
    def smem(self) -> int:
        return launch_smem(self.ring_bytes, self.seq_bytes, self.shared, self.seqs_shared)


def ring_bytes_of(ring: int, gap_ring: int, stride: int) -> int:
    """Bytes of a ring of ``ring`` M rows and ``gap_ring`` I and D rows each, ``stride`` ints a row."""
    return 4 * (ring + 2 * gap_ring) * stride


def launch_smem(ring_bytes: int, seqs: int, shared: bool, seqs_shared: bool) -> int:
    """Dynamic shared memory a block: the ring (``ring_bytes``, if there), 8-byte aligned, the sequences (``seqs``
    bytes, if there)."""
    return (-(-ring_bytes // 8) * 8 if shared else 0) + (seqs if seqs_shared else 0)


def packed_words(length: np.ndarray) -> np.ndarray:
    """Words of a packed sequence: 16 letters a word, then PAD_WORDS of pad letters (a 32-letter
    window at any offset up to its end stays inside)."""
    return length // 16 + PAD_WORDS


def seq_bytes(n: Any, m: Any) -> Any:
    """Bytes of both packed sequences of an n x m pair (element-wise over arrays)."""
    return 8 * (packed_words(n) + packed_words(m))


def configure(reach: np.ndarray, n: np.ndarray, m: np.ndarray, mode: str, x: int, o: int, e: int,
              max_steps: int, threads: int, shared_bytes: int = SHARED_BYTES) -> Launch:
    """The launch's threads (up to one a ring column), ring and what goes into shared memory:
    the sequences first (the extension's loads), the ring too when both fit (``fit_launch``)."""
    reach_max = int(reach[:max_steps + 1].max())
    return fit_launch(reach_max, int(span(reach_max, n, m, mode).max()), int(seq_bytes(n, m).max()), x, o, e,
                      max_steps, threads, shared_bytes)


def fit_launch(reach_max: int, stride: int, seqs: int, x: int, o: int, e: int, max_steps: int, threads: int,
               shared_bytes: int = SHARED_BYTES) -> Launch:
    """``configure`` from the widest reach, the widest ring row (``stride``) and the largest pair's packed
    letters (``seqs`` bytes), in plain integers (a single pair's launch has them without a numpy pass)."""
    ring, gap_ring, arrays = ring_size(x, o, e), gap_ring_size(o, e), wavefront_arrays(o)
    threads = max(32, min(threads, -(-stride // 32) * 32))
    ring_bytes = ring_bytes_of(ring, gap_ring, stride)  # (only the choice that fits made a Launch)
    for shared, seqs_shared in ((True, True), (False, True), (True, False), (False, False)):
        if launch_smem(ring_bytes, seqs, shared, seqs_shared) <= shared_bytes:
            return Launch(threads, ring, gap_ring, stride, reach_max, max_steps, shared, arrays, seqs, seqs_shared)
    raise AssertionError("unreachable")


def steps_for(reach: np.ndarray, n: int, m: int, mode: str, arrays: int, visits: int) -> int:
    """The scores an n x m pair reaches within ``visits`` diagonals (the kernel's give-up point)."""
    total = np.cumsum(widths(reach, n, m, mode)) * arrays
    return int(np.searchsorted(total, visits, side="right"))


def shared_steps(reach: np.ndarray, n: int, m: int, mode: str, x: int, o: int, e: int,
                 shared_bytes: int = SHARED_BYTES) -> int:
    """The most scores (of ``reach``) whose ring fits in shared memory beside both sequences (or
    alone, when the sequences do not fit)."""
    stride = span(np.maximum.accumulate(reach.astype(np.int64)), n, m, mode)
    rows, room = ring_room(n, m, x, o, e, shared_bytes)
    return int(np.searchsorted(4 * rows * stride, room, side="right"))


def ring_room(n: int, m: int, x: int, o: int, e: int, shared_bytes: int = SHARED_BYTES) -> tuple[int, int]:
    """(rows, bytes): the ring's rows and the shared memory it may take, beside both sequences
    when a row fits there, else alone."""
    rows = ring_size(x, o, e) + 2 * gap_ring_size(o, e)
    seqs = int(seq_bytes(n, m))
    return rows, shared_bytes - seqs if seqs + 4 * rows <= shared_bytes else shared_bytes


def seqs_fit(n: int, m: int, shared_bytes: int = SHARED_BYTES) -> bool:
    """Whether both packed sequences fit in a block's shared memory (``configure``'s first choice)."""
    return int(seq_bytes(n, m)) <= shared_bytes


def biwfa_ring(x: int, e: int) -> int:
    """nw_biwfa's ring rows a direction: t - 1 - W .. t with W = max(x, e) + 1 (the other
    direction's rows its breakpoint check reads while this step's row is written)."""
    return ring_size(x, 0, e) + 2


def biwfa_smem(ring: int, stride: int, n: int, m: int, steps: int) -> int:
    """nw_biwfa's dynamic shared memory (bytes; ``steps``: a direction's): both directions' rings,
    the range ring (ring + 1 slots, lo and hi), 8-byte aligned, both sequences each after a pad
    word; at least the walk's table (32 bytes a step) and its two windows (WALK_STEPS x 2 WALK_DIAGS + 1
    ints each). Integers only (``launch_one``'s; ``biwfa_steps`` solves its terms for their limits)."""
    ints = 2 * ring * stride + 2 * (ring + 1)
    walk = 32 * (steps + 1) + 8 * WALK_STEPS * (2 * WALK_DIAGS + 1)  # the steps' table, two walkers' windows
    return max(4 * (ints + ints % 2) + 8 * (n // 16 + m // 16 + 2 * PAD_WORDS) + 16, walk)


def biwfa_applies(costs: Costs, mode: str, n: int, m: int) -> bool:
    """Whether nw_biwfa takes the pair: linear costs, global mode, its breakpoint key's fields
    (k + n below 2^22, f - r + W below 2^18) in range."""
    g, x, o, e = cpu_wfa.reduced_costs(costs)
    return mode == "global" and o == 0 and n + m < BIWFA_LETTERS and biwfa_ring(x, e) < BIWFA_RING_MAX


def biwfa_steps(top: np.ndarray, n: int, m: int, x: int, e: int, shared_bytes: int = SHARED_BYTES) -> int:
    """The most steps (of ``top``, the reach table's running maximum: ReachSums.top) whose nw_biwfa
    shared memory (``biwfa_smem``) fits: its two terms solved for their limits, the walk's table's on
    the steps, the rings' on the reach (a ring row's span grows with it), that one a binary search
    of ``top`` (a numpy pass over the table took ~0.1 ms of a 1 ms solve, a binary search calling
    biwfa_smem ~0.01)."""
    ring = biwfa_ring(x, e)
    walk_room = shared_bytes - 8 * WALK_STEPS * (2 * WALK_DIAGS + 1)  # (the walk's term: 32 bytes a step past it)
    by_walk = walk_room // 32  # steps 0 .. by_walk - 1 fit it
    # the rings' term: 4 ints (an even count) within the room the letters leave, ints = 2 ring stride + 2 (ring + 1)
    ints = (shared_bytes - 8 * (n // 16 + m // 16 + 2 * PAD_WORDS) - 16) // 4
    stride = (ints - 2 * (ring + 1)) // (2 * ring)  # the widest ring row that fits
    # the widest reach whose span (global mode: min(r, n) + min(r, m) + 1) is within it
    short = min(n, m)
    reach = (stride - 1) // 2 if stride <= 2 * short + 1 else stride - short - 1
    if stride > n + m:
        reach = int(top[-1]) if top.size else 0
    by_rings = int(np.searchsorted(top, reach, side="right")) if stride >= 1 else 0
    return max(0, min(int(top.size), by_walk, by_rings))


def step_ms(width: np.ndarray, affine: bool, seqs_shared: bool) -> np.ndarray:
    """The cost model's time of each score step of one block, from its wavefront's width."""
    return (STEP_US + DIAG_NS[affine] * 1e-3 * width * (1.0 if seqs_shared else GLOBAL_SEQS)) * 1e-3


def estimate_ms(pair: Pair, costs: Costs, mode: str, score: float, shared_bytes: int = SHARED_BYTES,
                reach: np.ndarray | None = None) -> float:
    """The cost model's time of the WFA of ``pair`` to ``score`` on one block (``reach``: the
    costs' reach table, at least to that score, when the caller keeps one)."""
    if score > score_bound(costs, pair.n, pair.m):
        return float("inf")
    g, x, o, e = cpu_wfa.reduced_costs(costs)
    steps = int(score / g) + 1
    if reach is None or reach.size <= steps:
        reach = reach_table(x, o, e, steps)
    width = widths(reach[:steps + 1], pair.n, pair.m, mode)
    return float(step_ms(width, o > 0, seqs_fit(pair.n, pair.m, shared_bytes)).sum())


def sampled_score(pair: Pair, costs: Costs) -> float:
    """The pair's optimal cost guessed from its two ends: the first L letters of a (L = n / 64,
    within SAMPLE_LENGTH .. SAMPLE_LONGEST: a 1% pair of 10^6 has ~40 differences in each, not
    ~5, whose count alone moved the guess by +-45%) against the start of b (with a margin), and
    the last ones reversed against b's end, by the CPU WFA in prefix mode; their cost a letter
    times the longer length. Only the choice of algorithm rests on it (~10-50 us for similar
    pairs; a window past SAMPLE_WORK diagonals, ~0.2 ms, says unrelated: infinite)."""
    a_head, b_head, a_tail, b_tail = sample_ends(pair)
    total = 0.0
    for a, b in ((a_head, b_head), (a_tail, b_tail)):
        total += end_score(a, b, costs, SAMPLE_WORK)
    return total / (2 * a_head.size) * max(pair.n, pair.m)


def end_score(a: np.ndarray, b: np.ndarray, costs: Costs, work: int) -> float:
    """The cost of all of ``a`` against a start of ``b`` (prefix mode) by the CPU WFA; inf past ``work``
    diagonals (``sampled_score``'s ends)."""
    g, x, o, e = cpu_wfa.reduced_costs(costs)
    # (the compiled WFA's score alone, as cpu_wfa.wfa_align in prefix mode without its answer's record)
    score = prefix_score(np.ascontiguousarray(a), np.ascontiguousarray(b), x, o, e, work, cpu_wfa.KEPT_BYTES)
    return float(score) * g if score >= 0 else float("inf")


def sample_lengths(n: int) -> tuple[int, int]:
    """(a's, b's): the letters ``sampled_score`` reads at each end of an n x m pair's a and b."""
    length = min(SAMPLE_LONGEST, max(SAMPLE_LENGTH, n // 64))
    return length, length + SAMPLE_MARGIN


def sample_ends(pair: Pair) -> list[np.ndarray]:
    """The codes ``sampled_score`` aligns of a pair: a's head, b's head, a's tail reversed, b's
    tail reversed (``sample_lengths``)."""
    length, wider = sample_lengths(pair.n)
    return [pair.a[:length], pair.b[:wider], pair.a[::-1][:length], pair.b[::-1][:wider]]


def sample_windows(pairs: Sequence[Pair], samples: list[int]) -> list[np.ndarray]:
    """``sample_ends`` of each of pairs ``samples``, one after another (a ``PairBatch``'s made
    from those letters alone: ``PairBatch.spans_codes``)."""
    if isinstance(pairs, PairBatch):
        spans = []
        for k in samples:
            n, m = int(pairs.n[k]), int(pairs.m[k])
            length, wider = sample_lengths(n)
            spans += [(2 * k, 0, length), (2 * k + 1, 0, wider), (2 * k, max(0, n - length), n),
                      (2 * k + 1, max(0, m - wider), m)]
        codes = pairs.spans_codes(spans)
        return [c if w % 4 < 2 else c[::-1] for w, c in enumerate(codes)]
    return [codes for k in samples for codes in sample_ends(pairs[k])]


def sampled_scores(pairs: Sequence[Pair], samples: list[int], costs: Costs) -> np.ndarray:
    """``sampled_score`` of each of pairs ``samples`` (equal), their two CPU WFAs each at once on
    numba's threads (``_prefix_scores``): 8 pairs' 16 took 0.4-0.7 ms of a batch one after another
    on the H100 host, each ~10 us of compiled work; on Python threads the GIL's hand-overs cost more)."""
    g, x, o, e = cpu_wfa.reduced_costs(costs)
    windows = sample_windows(pairs, samples)
    sizes = np.fromiter(map(len, windows), np.int64, len(windows))
    scores = _prefix_scores(np.concatenate(windows).astype(np.uint8, copy=False), sizes, x, o, e, SAMPLE_WORK,
                            cpu_wfa.KEPT_BYTES).reshape(-1, 2)
    lengths = sizes[0::4]  # (a's heads)
    longest = np.array([max(pairs.n[k], pairs.m[k]) if isinstance(pairs, PairBatch) else max(pairs[k].n, pairs[k].m)
                        for k in samples], np.float64)
    total = (scores.sum(axis=1) * g).astype(np.float64)
    return np.where((scores < 0).any(axis=1), np.inf, total / (2 * lengths) * longest)


@njit(cache=True, nogil=True)
def prefix_score(a, b, x, o, e, work_cap, memory_cap):
    """The CPU WFA's score (reduced costs x, o, e) of all of a against a start of b (prefix mode); -1 past
    ``work_cap`` diagonals. One compiled entry of 7 arguments returning an int: ``end_score``'s call of
    wfa_align_codes itself (11 arguments, a 6-tuple with an empty operations array boxed back) took ~3.5 us of the
    development host, this ~2.3 (the guessed round's head check is on the host's path to its launch)."""
    status, score, _, _, _, _ = wfa_align_codes(a, b, x, o, e, False, False, True, False, work_cap, memory_cap)
    return score if status == DONE else -1


@njit(cache=True, nogil=True, parallel=True)
def _prefix_scores(codes, sizes, x, o, e, work_cap, memory_cap):
    """The CPU WFA's score (reduced costs x, o, e) of a against b in prefix mode for each job j:
    a and b sequences 2 j and 2 j + 1 of ``codes`` (``sizes`` each, one after another); -1 past
    ``work_cap`` diagonals."""
    starts = np.zeros(sizes.size + 1, np.int64)
    starts[1:] = np.cumsum(sizes)
    out = np.empty(sizes.size // 2, np.int64)
    for j in prange(sizes.size // 2):
        a = codes[starts[2 * j]:starts[2 * j + 1]]
        b = codes[starts[2 * j + 1]:starts[2 * j + 2]]
        out[j] = prefix_score(a, b, x, o, e, work_cap, memory_cap)
    return out


def visits_upto(reach: np.ndarray, n: int, m: int, mode: str, arrays: int, steps: int) -> int:
    """Diagonals an n x m pair visits in its first ``steps`` scores."""
    return int(widths(reach[:steps], n, m, mode).sum()) * arrays


def budget_steps(reach: np.ndarray, n: int, m: int, mode: str, arrays: int, budget_ms: float,
                 shared_bytes: int = SHARED_BYTES) -> tuple[int, int]:
    """(steps, visits): the most scores, and their diagonals, one pair's WFA may take within
    ``budget_ms`` by the cost model."""
    width = widths(reach, n, m, mode)
    cost_ms = np.cumsum(step_ms(width, arrays > 1, seqs_fit(n, m, shared_bytes)))
    steps = int(np.searchsorted(cost_ms, budget_ms, side="right"))
    return steps, int(width[:steps].sum()) * arrays


class ReachSums:
    """A reach table's sums for the pairs it does not clamp (global or prefix mode, every reach
    up to a score within min(n, m): each wavefront then spans 2 r + 1 diagonals whatever the
    pair), so that a single pair's budget is a few binary searches, not numpy passes over the
    table up to 4x the guessed score (~0.1 ms at 10^5 1%, ~0.9 ms at 10^6 on the H200 host).
    Each method equals the module function it names on such pairs (budget_steps, steps_for,
    shared_steps, visits_upto; tests check it): the same widths, the same cumulative sums."""

    def __init__(self, reach: np.ndarray, arrays: int) -> None:
        self.top = np.maximum.accumulate(reach.astype(np.int64))  # top[s]: the widest reach up to s
        width = np.where(reach >= 0, 2 * reach.astype(np.int64) + 1, 0)
        self.widths = np.cumsum(width)  # diagonals of the scores up to s (each array's)
        self.arrays = arrays
        # the cost model's time up to s, keyed by the letters in shared memory (budget_steps' sums)
        self.cost_ms = {seqs: np.cumsum(step_ms(width, arrays > 1, seqs)) for seqs in (True, False)}

    def covers(self, steps: int, n: int, m: int, mode: str) -> bool:
        """Whether a pair's first ``steps`` + 1 scores are unclamped (the methods then hold)."""
        return mode != "infix" and steps < self.top.size and int(self.top[steps]) <= min(n, m)

    def budget_steps(self, steps: int, budget_ms: float, seqs_shared: bool) -> tuple[int, int]:
        """budget_steps over the first ``steps`` + 1 scores."""
        got = int(np.searchsorted(self.cost_ms[seqs_shared][:steps + 1], budget_ms, side="right"))
        return got, self.visits_upto(got)

    def steps_for(self, steps: int, visits: int) -> int:
        """steps_for over the first ``steps`` + 1 scores."""
        return int(np.searchsorted(self.widths[:steps + 1], visits // self.arrays, side="right"))

    def shared_steps(self, steps: int, rows: int, room: int) -> int:
        """shared_steps over the first ``steps`` scores: a ring of ``rows`` rows of 2 top + 1 ints
        within ``room`` bytes."""
        return int(np.searchsorted(self.top[:steps], (room // (4 * rows) - 1) // 2, side="right"))

    def visits_upto(self, steps: int) -> int:
        """visits_upto: the diagonals of the first ``steps`` scores."""
        return int(self.widths[steps - 1]) * self.arrays if steps > 0 else 0


def sweep_args(packed: Any, desc: Any, reach: Any, mode: str, x: int, o: int, e: int, max_steps: int,
               config: Launch, ring: Any, keep: Any, pool_top: Any, pool_ints: int, bases: Any, runs: Any,
               out: Any, walk_steps: int = 0, gap_start: bool = False) -> tuple[Any, ...]:
    """nw_wfa's arguments (wfa.cu), in one place for both launch paths; an array a launch does
    not use (``ring`` with the ring in shared memory; ``keep``, ``bases``, ``runs`` for the score
    alone: None) is passed as ``out`` (never read). ``walk_steps``: the walk back's windows in
    shared memory (WALK_STEPS; 0: straight from the pool; read by the alignment's variant alone).
    ``gap_start``: infix mode's gap start (``reach`` then the gap start's table: reach_table)."""
    return (packed, desc, reach, np.int32(MODES.index(mode)), np.int32(x), np.int32(o), np.int32(e),
            np.int32(max_steps), np.int32(config.ring), np.int32(config.stride), np.int32(config.reach_max),
            np.int32(config.shared), np.int32(config.seqs_shared), np.int32(walk_steps), out if ring is None else ring,
            out if keep is None else keep, pool_top, np.int64(pool_ints), out if bases is None else bases,
            out if runs is None else runs, out, np.int32(gap_start))


def sweep_name(config: Launch, affine: bool, traceback: bool, staged: bool = False) -> str:
    """The nw_wfa instance of a launch (NAMES); ``staged``: its blocks pack their letters from the staged bytes
    (segments' pieces whose letters fit in shared memory)."""
    assert not staged or (traceback and config.seqs_shared)
    return SWEEP.format(affine="true" if affine else "false", keep="true" if traceback else "false",
                        shared="true" if config.shared and config.seqs_shared else "false",
                        bytes="true" if staged else "false")


def item_at(array: Any, first: int) -> Any:
    """A pointer to item ``first`` of a contiguous device array (a kernel's argument, as a slice
    from it would pass: ``array.ravel()[first:]`` without CuPy's slicing)."""
    return np.uint64(array.data.ptr + first * array.itemsize)


def poison(*arrays: Any) -> None:
    """Nonsense in a launch's outputs and scratch (``None``: not used) on the current stream, so
    that a kernel reading what it never wrote shows: int32 arrays device.POISON, others 0xA5A5A5A5."""
    for array in arrays:
        if array is not None:
            array.fill(device.POISON if array.dtype == np.int32 else 0xA5A5A5A5)


def piece_layout(count: int) -> dict[str, int]:
    """``solve_pieces``' upload as int64 offsets (PIECE_PARTS): each piece's descriptor, the pool's counter,
    the packing's table (from, size, to, words of each sequence: a piece, its window) and its pad letters
    (bytes); "end": its length."""
    ints = list(itertools.accumulate((0, batch.DESCRIPTOR * count, 1, 2 * count, 2 * count, 2 * count, 2 * count,
                                      -(-2 * count // 8))))
    return {**dict(zip(PIECE_PARTS, ints[:-1])), "end": ints[-1]}


@njit(cache=True, nogil=True)
def fill_pieces(host, r0, r1, c0, c1, n_pair, max_steps, pool_steps, arrays, runs_each, at_desc, at_top, at_from,
                at_size, at_to, at_words, at_pad):
    """``solve_pieces``' upload written into ``host`` (int64, ``piece_layout``'s parts at those offsets): each
    piece's descriptor (its cap (max_steps + 1) (n + m + 1) diagonals of each of ``arrays`` wavefronts: no step
    is wider; its room in the pool taken in chunks of its share / POOL_CHUNKS), the pool's counter, the packing's
    table (a piece from row r0 of the staged bytes, its window from n_pair + c0) and pad letters. Returns (pool
    ints: every piece's share, (pool_steps + 1) (n + m + 1) arrays; packed words; the widest window; the longest
    piece; the most bytes of a piece's packed letters)."""
    count = r0.size
    pads = host[at_pad:].view(np.uint8)
    to = 0
    pool = 0
    widest, longest, seqs = 0, 0, 0
    for k in range(count):
        n, m = r1[k] - r0[k], c1[k] - c0[k]
        wa, wb = n // 16 + PAD_WORDS, m // 16 + PAD_WORDS
        cap, share = (max_steps + 1) * (n + m + 1) * arrays, (pool_steps + 1) * (n + m + 1) * arrays
        d = at_desc + 7 * k
        host[d], host[d + 1], host[d + 2], host[d + 3] = to, to + wa, n, m
        host[d + 4], host[d + 5], host[d + 6] = cap, max(1, share // POOL_CHUNKS), k * runs_each
        host[at_from + 2 * k], host[at_from + 2 * k + 1] = r0[k], n_pair + c0[k]
        host[at_size + 2 * k], host[at_size + 2 * k + 1] = n, m
        host[at_to + 2 * k], host[at_to + 2 * k + 1] = to, to + wa
        host[at_words + 2 * k], host[at_words + 2 * k + 1] = wa, wb
        pads[2 * k], pads[2 * k + 1] = PAD_A, PAD_B
        to += wa + wb
        pool += share
        widest, longest, seqs = max(widest, m), max(longest, n), max(seqs, 8 * (wa + wb))
    host[at_top] = 0
    return pool, to, widest, longest, seqs


@njit(cache=True, nogil=True)
def byte_sources(host, count, at_desc, at_from):
    """``fill_pieces``' descriptors pointed at the staged bytes (nw_wfa's BYTES variant): each piece's a and b at
    its pack table's sources (its rows' first byte, its window's), not at its packed words."""
    for k in range(count):
        host[at_desc + 7 * k] = host[at_from + 2 * k]
        host[at_desc + 7 * k + 1] = host[at_from + 2 * k + 1]


PIECE_OUT = batch.OUT  # (a module constant, for final_pieces' compiled code)
NO_ANSWERS = np.zeros(0, np.int32)  # final_pieces' answers where the round's runs were not asked for
NO_RUNS = np.zeros(0, np.uint32)


@njit(cache=True, nogil=True)
def final_pieces(checked, answers, runs_each):
    """A certified round's final pieces as ``Segmented`` takes them from the round's one solve, in one compiled call
    (its NumPy selections took ~6 us of the 2-core development host): from nw_pieces_settle's result ``checked``
    (from checked[4]: each first piece's round piece, -1 where merged into the one before), each final piece's solve
    (0), first run (its index times ``runs_each``) and runs used (its row of ``answers``, PIECE_OUT int32 a piece;
    none where ``answers`` is empty: the score only)."""
    count = 0
    for k in range(4, checked.size):
        count += checked[k] >= 0
    solve, first, used = np.zeros(count, np.int64), np.empty(count, np.int64), np.zeros(count, np.int64)
    j = 0
    for k in range(4, checked.size):
        q = checked[k]
        if q >= 0:
            first[j] = q * runs_each
            if answers.size:
                used[j] = answers[PIECE_OUT * q + 3]
            j += 1
    return solve, first, used


def grown_pinned(buffer: np.ndarray | None, count: int, dtype: Any) -> np.ndarray:
    """``buffer`` if it holds ``count`` items, else a page-locked one of at least twice its size (a buffer a
    solver keeps for its rounds' copies)."""
    if buffer is not None and buffer.size >= count:
        return buffer
    return device.empty_pinned(max(count, 2 * (0 if buffer is None else buffer.size)), dtype)


def _layout(buffer: Any) -> dict[str, Any]:
    """The views of a single pair's upload (its device bytes) that SINGLE_LAYOUT names."""
    return {name: buffer[at:at + count * np.dtype(dtype).itemsize].view(dtype)
            for name, (at, dtype, count) in SINGLE_LAYOUT.items()}


class QueuedPieces(NamedTuple):
    """A round of pieces queued on the pair's stream (``WfaSolver.queue_pieces``): what its copy back and check
    read (a NamedTuple: ~0.3 us to make on the 2-core development host, the frozen dataclass ~0.85, under a guessed
    round). ``back``: the answers (batch.OUT int32 a piece), then the runs (at ``runs``, ``runs_each`` a piece);
    ``table_from``: the pack table's sources (a window's at 2 k + 1: n + its first column); ``times``: the host's
    clock at the round's start, its plan's end, its allocations' end, its launches' end. ``c0``: each piece's
    window's first column; None for a round planned on the device (``queue_round``), whose ``band`` (n, m, lo, hi)
    gives them (segments.first_asks, where the host reads its answers)."""

    count: int
    runs_each: int
    g: int
    c0: np.ndarray | None
    back: Any
    runs: Any
    table_from: Any
    times: tuple[float, float, float, float]
    pool_top: Any  # the pool's counter on the device (its address: ``WfaSolver.abort`` writes it)
    uploaded: Any  # an event after the round's upload (of the descriptors and that counter; queue_round: its start)
    band: tuple[int, int, int, int] | None = None


class QueuedCheck(NamedTuple):
    """A first round and its check queued (``WfaSolver.queue_check``, ``queue_round``): the round, the pinned buffer
    the device writes the check's result into (``check_room``), and the one of the answers and runs (the alignment's:
    copied back after the round, or written by its pieces, ``queue_round``; else None)."""

    queued: QueuedPieces
    checked: np.ndarray
    got: np.ndarray | None


class Workspace:
    """A single pair's launch buffers (``WfaSolver.launch_one``), kept by the solver and grown on
    demand, so that a launch allocates little (its pool and a ring in global memory, from CuPy's
    pool): the upload (pinned on the host, its device copy ``blob`` with views of its parts,
    SINGLE_LAYOUT), the packed letters, the answer (``out``'s 4 int32) and, per name, the arrays
    whose size follows the pair (``array``)."""

    def __init__(self, cp: Any, nbytes: int) -> None:
        self.cp = cp
        self.size = max(WORKSPACE_MIN, 1 << (nbytes - 1).bit_length())
        self.host = device.empty_pinned(self.size, np.uint8)
        self.host_at = self.host.ctypes.data  # (its address, looked up once: NumPy's ctypes.data ~1 us a call)
        self.blob = cp.empty(self.size, cp.uint8)
        self.parts = _layout(self.blob)
        self.raw = self.blob[SINGLE_META:]
        self.out = cp.zeros((1, batch.OUT), cp.int32)  # (as a batch of one)
        self.parts["desc"] = self.parts["desc"].reshape(1, batch.DESCRIPTOR)
        self.answer_host = device.empty_pinned((1, batch.OUT), np.int32)
        at, _, count = SINGLE_LAYOUT["round"]
        self.host[at:at + 8 * count] = 0  # (a guessed round's counters: each stage uploads them zero)
        self.arrays: dict[str, Any] = {}

    def array(self, name: str, count: int, dtype: Any) -> Any:
        """The workspace's ``name`` array with at least ``count`` elements (grown by 1.5x)."""
        have = self.arrays.get(name)
        if have is None or have.size < count:
            have = self.cp.empty(max(count, int(1.5 * (0 if have is None else have.size))), dtype)
            self.arrays[name] = have
        return have

    def held(self) -> int:
        """Device bytes of the arrays kept for the next launch (a solve's memory budget counts them free)."""
        return sum(int(a.nbytes) for a in self.arrays.values())


@dataclass
class WfaAnswers:
    """Per pair of a launch: the score (None: gave up), end and start columns of b; with the
    alignment the CIGARs one after another (``text``) and where each starts (``offsets``)."""

    score: list[int | None]
    end2: list[int]
    start2: list[int]
    text: Text | None = None
    offsets: list[int] | None = None
    found: np.ndarray | None = None  # (a batch's) whether each pair's score was found: score[k] is not None

    def cigar(self, k: int) -> str | None:
        return None if self.score[k] is None else cut_cigars(self.text, self.offsets, [k])[0]

    @property
    def cigars(self) -> list[str | None]:
        return [self.cigar(k) for k in range(len(self.score))]

    def result(self, pair: Pair, seconds: float) -> Result | None:
        """A single pair's answer (``launch_one``'s) as a Result; None where it gave up."""
        if self.score[0] is None:
            return None
        return Result(self.score[0], pair.cells, "gpu", seconds, self.cigar(0), self.start2[0], self.end2[0],
                      ALGORITHM)


class WfaSolver:
    """The nw_wfa kernel over one pair or a batch (module docstring)."""

    def __init__(self, poison: bool = False, memory_cap: int | None = None) -> None:
        self.cp = device.cupy()
        self.poison = poison
        self.memory_cap = memory_cap
        self.pinned = device.PinnedBuffers()
        self.stats: dict[str, Any] = {}
        self._reach: dict[tuple[int, int, int, bool], np.ndarray] = {}
        self._reach_top: dict[tuple[int, int, int, bool], list[int]] = {}  # each table's running max (reach)
        self._sums: dict[tuple[int, int, int], ReachSums] = {}
        self._kernels: dict[str, Any] = {}
        self._streams: tuple[Any, list[Any], Any] | None = None
        self._workspace: Workspace | None = None  # a single pair's launch buffers (launch_one)
        self._reach_device: dict[tuple[int, int, int, bool], Any] = {}
        self._one: tuple[Any, Any, Any, Any, Any] | None = None
        self._staged_only = False  # a stage's copy and pack queued, no launch's wait after them yet
        self._unpacked = 0  # the staged pair's packed words, while its pack is not queued (pack_staged)
        self._round_counters = False  # the stage's round counters still zero (queue_round)
        self._letter_codes: Any = None
        self._piece_host: np.ndarray | None = None  # solve_pieces' upload (piece_meta)
        self._piece_got: np.ndarray | None = None  # solve_pieces' copy back (piece_back)
        self._piece_checked: np.ndarray | None = None  # a first round's check, written there by the device (check_room)
        self._pinned_at: dict[str, tuple[np.ndarray, int]] = {}  # those two buffers' addresses (pinned_at)
        self._aborts: tuple[Any, np.ndarray, Any] | None = None  # abort_parts
        self._round_args: device.ArgumentSlots | None = None  # queue_round's launch arguments, by value
        # the events that time the device for statistics alone (the stage's upload: launch_one's upload_ms and
        # idle_ms, the timeline's dev stage and dev idle; a round's kernel: round_stats' device ms, GpuSolver.kernel_ms
        # of segments) recorded only where asked (scripts/timeline_nw_segments.py, profile_nw_wfa.py): otherwise
        # three event records on a guessed round's path to its launch (round 19, H100 host: the round's launch call
        # with its two records ~0.010 ms) and a query after its wait
        self.timeline = False
        self.shared_bytes = SHARED_BYTES
        self.multiprocessors = 132  # (an H100's; the device's own below)
        try:  # the device's own limit a block (less the kernel's static 32 bytes)
            attributes = self.cp.cuda.Device().attributes
            self.shared_bytes = int(attributes["MaxSharedMemoryPerBlockOptin"]) - 1024
            self.multiprocessors = int(attributes["MultiProcessorCount"])
        except (AttributeError, KeyError, TypeError):
            pass
        self.capability = 0  # the GPU's compute capability (90: thread-block clusters, wfa_cluster)
        self.cluster_refused: str | None = None  # why the driver would not run nw_wfa_cluster (wfa_cluster.Refused)
        try:
            self.capability = int(self.cp.cuda.Device().compute_capability)
        except (AttributeError, TypeError, ValueError):
            pass

    def kernel(self, name: str) -> Any:
        assert name in NAMES, name
        if name not in self._kernels:
            self._kernels[name] = device.function(KERNEL_FILE, name, (name,), DEFINES)
        return self._kernels[name]

    def reach(self, x: int, o: int, e: int, steps: int, gap_start: bool = False) -> np.ndarray:
        """The reach table of (x, o, e) (and infix mode's gap start) for at least ``steps`` scores
        (kept per process)."""
        key = (x, o, e, gap_start)
        have = self._reach.get(key)
        if have is None or have.size <= steps:
            have = reach_table(x, o, e, max(steps, 1024), gap_start)
            self._reach[key] = have
            self._reach_top[key] = np.maximum.accumulate(have).tolist()  # (reach_max's, made with its table)
            if not gap_start:  # (the sums are the plain table's)
                self._sums.pop((x, o, e), None)
        return have[:steps + 1]

    def reach_max(self, x: int, o: int, e: int, steps: int, gap_start: bool = False) -> int:
        """The widest reach of ``reach``'s table up to score ``steps``: its running maximum, kept with the table
        (NumPy's max over the table took 1.2-3 us of the 2-core development host a round), as a list of ints (the
        table's slice and a NumPy item's int took ~0.4 us more)."""
        top = self._reach_top.get((x, o, e, gap_start))
        if top is None or len(top) <= steps:
            self.reach(x, o, e, steps, gap_start)  # (the table and its running maximum, grown where shorter)
            top = self._reach_top[(x, o, e, gap_start)]
        return top[steps]

    def sums(self, x: int, o: int, e: int, steps: int) -> ReachSums:
        """The ReachSums of (x, o, e)'s reach table, at least ``steps`` + 1 scores (kept with it)."""
        self.reach(x, o, e, steps)
        have = self._sums.get((x, o, e))
        if have is None:
            have = ReachSums(self._reach[(x, o, e, False)], wavefront_arrays(o))
            self._sums[(x, o, e)] = have
        return have

    def estimate_ms(self, pair: Pair, costs: Costs, mode: str, score: float) -> float:
        """``estimate_ms`` with the costs' ReachSums where they cover the pair (one lookup, not numpy
        passes over the reach table up to the score); nw_wfa_cluster's model where ``solve`` would
        run it (``wfa_cluster.steps_ms``)."""
        if score > score_bound(costs, pair.n, pair.m):
            return float("inf")
        g, x, o, e = cpu_wfa.reduced_costs(costs)
        steps = int(score / g) + 1
        seqs = seqs_fit(pair.n, pair.m, self.shared_bytes)
        if self.tries_cluster(mode, seqs):  # (BiWFA with linear costs: a direction's steps, both directions' diagonals)
            ways = 2 if wfa_cluster.bidirectional(o) else 1
            top, diagonals = self.cluster_sums(pair, mode, x, o, e, wfa_cluster.direction_steps(steps + 1, x, o, e))
            if wfa_cluster.fitting_steps(top, pair.n, pair.m, x, o, e,
                                         self.shared_bytes) == top.size:  # (solve's choice: the cluster)
                return float(wfa_cluster.steps_ms(top.size, ways * int(diagonals[-1]), CLUSTER_DIAG_NS[o > 0], e))
        sums = self.sums(x, o, e, steps)
        if sums.covers(steps, pair.n, pair.m, mode):
            return float(sums.cost_ms[seqs][steps])
        return estimate_ms(pair, costs, mode, score, self.shared_bytes, self.reach(x, o, e, steps))

    def tries_cluster(self, mode: str, seqs_shared: bool) -> bool:
        """Whether ``solve`` tries nw_wfa_cluster first (``wfa_cluster.applies``, and the driver has not
        refused it: ``cluster_refused``)."""
        return self.cluster_refused is None and wfa_cluster.applies(mode, seqs_shared, self.capability)

    def cluster_sums(self, pair: Pair, mode: str, x: int, o: int, e: int, steps: int) -> tuple[np.ndarray, np.ndarray]:
        """(the widest reach up to each score, the diagonals up to each score) of the first ``steps``
        scores of (x, o, e) for ``pair``: ReachSums' where they cover it (views, no pass over the
        table), else numpy passes."""
        sums = self.sums(x, o, e, steps)
        if sums.covers(steps - 1, pair.n, pair.m, mode):
            return sums.top[:steps], sums.widths[:steps]
        reach = self.reach(x, o, e, steps)[:steps]
        return np.maximum.accumulate(reach), np.cumsum(widths(reach, pair.n, pair.m, mode))

    def solve(self, pair: Pair, costs: Costs, traceback: bool, mode: str, budget_ms: float,
              expected: float | None = None, staged: bool = False, started: float | None = None) -> Result | None:
        """One pair within a time budget by the cost model and the device memory (None: the
        WFA would need more, or gave up there; the caller runs another exact algorithm). First
        with the scores whose ring fits in shared memory (its reads then cost ~30 cycles, not an
        L2 round trip of ~250 on every step's critical path), then, if the pair needs more,
        the rest of the budget with the ring in global memory. ``expected``: a guess of the
        score (``sampled_score``; infinite: None at once); the WFA then gives up past SAMPLE_SLACK
        times it. ``staged``: the caller staged the pair (``stage``: its letters uploaded and packed
        while it sampled). ``started``: the caller's clock (``time.perf_counter``) at its start, that
        the answer's seconds count from."""
        t0 = time.perf_counter()
        since = t0 if started is None else started
        g, x, o, e = cpu_wfa.reduced_costs(costs)
        arrays = wavefront_arrays(o)
        if expected is not None and not np.isfinite(expected):
            return None  # (the sample says unrelated: past any cap)
        if not (staged or self.stage(pair, costs)):
            return None  # (past the int32 bound)
        steps = min(STEPS_MAX, int(budget_ms * 1e3 / STEP_US), score_bound(costs, pair.n, pair.m) // g + 1)
        if expected is not None:
            steps = min(steps, int(SAMPLE_SLACK * expected / g) + 64)
        reach = self.reach(x, o, e, steps)
        cap = steps
        sums = self.sums(x, o, e, cap)
        fast = sums.covers(cap, pair.n, pair.m, mode)  # then the sums' binary searches, else numpy passes
        seqs = seqs_fit(pair.n, pair.m, self.shared_bytes)
        if self.tries_cluster(mode, seqs):
            # a long pair's letters in global memory: the cluster's blocks share each step (wfa_cluster.cu)
            # up to the scores whose rings fit; nw_wfa goes on only where they cut the cap (10^6 1% gap-affine)
            tried, answer = self.solve_cluster(pair, costs, traceback, mode, cap, budget_ms, expected, t0, since)
            if tried:
                return answer
        if fast:
            steps, visits = sums.budget_steps(cap, budget_ms, seqs)
        else:
            steps, visits = budget_steps(reach, pair.n, pair.m, mode, arrays, budget_ms, self.shared_bytes)
        budget = None
        if traceback:  # the kept wavefronts within their share of the memory (4 bytes a diagonal)
            budget = self.keep_budget()
            visits = min(visits, budget // 4 - 20 * steps)
            steps = sums.steps_for(cap, visits) if fast else steps_for(reach, pair.n, pair.m, mode, arrays, visits)
        if steps == 0:
            return None
        if fast:
            near = sums.shared_steps(steps, *ring_room(pair.n, pair.m, x, o, e, self.shared_bytes))
        else:
            near = shared_steps(reach[:steps], pair.n, pair.m, mode, x, o, e, self.shared_bytes)
        # the shared ring first unless the guess says it ends past it (10^5 1% affine: 10 ms of
        # 26 went to a first launch that gave up)
        first = 0 < near < steps and (expected is None or expected / g < near)
        guess = min(int(expected / g) if expected is not None else steps, reach.size - 1)
        # the wavefront's width by the guessed end, at most 2 diagonals a thread of SHARED_THREADS
        widest = int(sums.top[guess]) if fast else int(reach[:guess + 1].max())
        narrow = int(span(widest, pair.n, pair.m, mode)) <= 2 * SHARED_THREADS
        threads = SHARED_THREADS if narrow and seqs else MAX_THREADS
        self.stats = {"choice_ms": (time.perf_counter() - t0) * 1e3}
        if seqs and biwfa_applies(costs, mode, pair.n, pair.m):
            # BiWFA first: a direction's steps up to (the forward's cap + W) / 2 + 2 cover every
            # score the forward would find (wfa.cu nw_biwfa), as far as its rings fit
            w = ring_size(x, 0, e)
            want = (steps + w) // 2 + 2
            sums_bi = self.sums(x, o, e, want)
            last = min(want, biwfa_steps(sums_bi.top[:want], pair.n, pair.m, x, e, self.shared_bytes))
            if last > 1 and (expected is None or (expected / g + w) / 2 + 2 < last):
                visits = 2 * (sums_bi.visits_upto(last) if sums_bi.covers(last, pair.n, pair.m, mode) else
                              visits_upto(self.reach(x, o, e, want), pair.n, pair.m, mode, arrays, last))
                answer = self.launch_one(pair, costs, traceback, mode, last - 1, visits, threads, budget,
                                         bi=True, staged=True).result(pair, time.perf_counter() - since)
                if answer is not None:
                    return answer
        if self.cluster_refused is not None:
            self.stats["cluster_refused"] = self.cluster_refused
        for last in ((near, steps) if first else (steps,)):
            visits = sums.visits_upto(last) if fast else visits_upto(reach, pair.n, pair.m, mode, arrays, last)
            answer = self.launch_one(pair, costs, traceback, mode, last - 1, visits, threads, budget,
                                     staged=True).result(pair, time.perf_counter() - since)
            if answer is not None:
                return answer
        return None

    def solve_cluster(self, pair: Pair, costs: Costs, traceback: bool, mode: str, cap: int,
                      budget_ms: float, expected: float | None, t0: float,
                      since: float) -> tuple[bool, Result | None]:
        """``solve`` by nw_wfa_cluster: its scores those of the first ``cap`` whose rings fit
        (``wfa_cluster.fitting_steps``), within ``budget_ms`` by its cost model and, with the
        alignment, the kept wavefronts' memory. (True, the answer or None) where it answered or gave
        up where nw_wfa would too; (False, None) where nw_wfa should go on: the rings cut the cap, or
        the driver refused the cluster (``wfa_cluster.Refused``: said once, the solver remembers).
        ``t0``: ``solve``'s start (its choice's time), ``since``: the answer's seconds' start."""
        g, x, o, e = cpu_wfa.reduced_costs(costs)
        self.stats = {"choice_ms": (time.perf_counter() - t0) * 1e3}
        # kept ints a diagonal: M, I and D; BiWFA (linear costs) both directions' M, a direction's steps
        ways = 2 if wfa_cluster.bidirectional(o) else 1
        arrays = wavefront_arrays(o) * ways
        want = wfa_cluster.direction_steps(cap, x, o, e)
        top, diagonals = self.cluster_sums(pair, mode, x, o, e, want)
        fits = wfa_cluster.fitting_steps(top, pair.n, pair.m, x, o, e, self.shared_bytes)
        last = min(fits, wfa_cluster.budget_steps(diagonals[:fits] * ways, budget_ms, CLUSTER_DIAG_NS[o > 0], e))
        budget = None
        if traceback:  # the kept wavefronts within their share of the memory (4 bytes a diagonal)
            budget = self.keep_budget()
            last = min(last, int(np.searchsorted(diagonals[:last], (budget // 4 - 20 * want) // arrays,
                                                 side="right")))
        if last < 2 or (expected is not None and wfa_cluster.direction_steps(int(expected / g), x, o, e) >= last):
            return last == want, None  # (not even the cluster's cap: nw_wfa's is no further)
        try:
            answer = self.launch_one(pair, costs, traceback, mode, last - 1, arrays * int(diagonals[last - 1]),
                                     MAX_THREADS, budget, cluster=True, staged=True).result(
                pair, time.perf_counter() - since)
        except wfa_cluster.Refused as why:  # nw_wfa from here on
            self.cluster_refused = str(why)
            logging.getLogger("splicedalign").warning("gpu wfa: %s; nw_wfa instead", why)
            return False, None
        return answer is not None or last < fits or fits == want, answer

    def solve_many(self, pairs: Sequence[Pair], costs: Costs, traceback: bool, mode: str) -> Columns:
        """A batch in one launch (``BATCH_THREADS`` a block), in input order (``Columns``: a
        Result made when asked for); None for each pair the WFA does not take (empty, out of
        int32 range, past its cap or the pool): the batch's divergence is sampled on a few of its
        pairs (``sampled_score``), each pair may visit BATCH_SLACK times the diagonals that
        predicts (at most BATCH_CELL_SHARE of its cells), and the whole batch goes elsewhere when
        the sample says the WFA would not pay (None for all). A filled ``PairBatch`` whose every
        pair it takes starts on its way to the device before the sample (its copy does not wait
        for it)."""
        t0 = time.perf_counter()
        count = len(pairs)
        n, m, addresses = pair_sources(pairs)  # (a list's sequences' addresses, for the copying threads)
        g, x, o, e = cpu_wfa.reduced_costs(costs)
        arrays = wavefront_arrays(o)
        bound = costs.bound(n, m)  # element-wise
        ks = np.flatnonzero((n > 0) & (m > 0) & (bound < INT32_SAFE))
        if not ks.size:
            return Columns.none(count)
        staging = None
        complete = isinstance(pairs, PairBatch) and pairs.complete
        if complete and ks.size == count and mode != "infix":
            # its buffer filled already: on its way at once, one chunk (its copy, ~1 ms for 40 MB,
            # runs during the sample); others are copied in pieces on the copying threads once the
            # sample is done (started before it, their threads waited for the GIL the sample holds)
            staging = Staging(self.pinned, "wfa-bytes", pairs, n, m, self.streams()[0], addresses)
            staging.send(0)
        longest = np.maximum(n, m)
        nk, mk = n[ks], m[ks]  # the pairs taken's lengths
        cells_k = nk * mk
        samples = [k for k in ks[np.linspace(0, ks.size - 1, min(BATCH_SAMPLES, ks.size)).astype(int)].tolist()
                   if min(n[k], m[k]) >= 2 * SAMPLE_LENGTH]
        t1 = time.perf_counter()
        # (statistics' median: NumPy's first call imports numpy.ma, 11 ms of a fresh nw --pairs on the H100 host)
        rate = float(statistics.median((sampled_scores(pairs, samples, costs) / longest[samples]).tolist())) \
            if samples else None
        sample_ms = (time.perf_counter() - t1) * 1e3
        if rate is not None and not np.isfinite(rate):
            return self.declined(count, staging)
        typical = int(ks[np.argsort(longest[ks])[ks.size // 2]])
        if rate is None:  # pairs too short to sample: their score bound
            rate = score_bound(costs, int(n[typical]), int(m[typical])) / longest[typical]
        steps = int(BATCH_STEP_SLACK * rate * longest[ks].max() / g) + 16
        reach = self.reach(x, o, e, steps)
        typical_steps = int(rate * longest[typical] / g) + 1
        want = visits_upto(reach, int(n[typical]), int(m[typical]), mode, arrays, typical_steps)
        batch_ms = DIAG_BATCH_NS[o > 0] * 1e-6 * want / arrays * ks.size
        band_ms = BAND_BATCH_PS[o > 0] * 1e-9 * float(np.sum(cells_k))
        if mode == "infix" or batch_ms > BATCH_SHARE * band_ms:
            # infix: every score spans all of b (a few hundred times the diagonals of global mode)
            return self.declined(count, staging)  # the certified bands are predicted faster
        scale = (longest[ks] / longest[typical]).astype(np.float64) ** 2
        visits = np.minimum(BATCH_SLACK * want * scale, BATCH_CELL_SHARE * nk * mk).astype(np.int64)
        near = shared_steps(reach, int(nk.max()), int(mk.max()), mode, x, o, e, self.shared_bytes)
        steps = min(steps, max(near, 1)) - 1
        taken = pairs if ks.size == count else [pairs[k] for k in ks.tolist()]
        before_ms = (time.perf_counter() - t0) * 1e3
        got = self.launch(taken, costs, traceback, mode, steps, visits, BATCH_THREADS, nk, mk, staging,
                          addresses if ks.size == count else None)
        answered = got.found
        assert answered is not None  # launch says which pairs it answered
        rows = np.full(count, -1, np.int64)
        rows[ks[answered]] = np.flatnonzero(answered)
        cells = cells_k.tolist()
        share = (time.perf_counter() - t0) / max(1, sum(cells))
        self.stats.update(taken=int(answered.sum()), sample_ms=sample_ms, before_ms=before_ms,
                          batch_ms=(time.perf_counter() - t0) * 1e3)
        scores = got.score if answered.all() else [0 if s is None else s for s in got.score]
        return Columns(rows, scores, cells, share, "gpu", ALGORITHM,  # type: ignore[arg-type]  (no None left)
                       got.start2, got.end2, got.text, got.offsets)

    def declined(self, count: int, staging: Staging | None) -> Columns:
        """No answer for the batch; the copies of its sequences already sent are waited for (their
        device buffer is freed with ``staging``)."""
        if staging is not None:
            staging.finish()
            staging.stream.synchronize()
        return Columns.none(count)

    def keep_budget(self) -> int:
        """Device bytes the kept wavefronts may take: their share of the memory budget, the
        workspace's arrays (kept for the next launch) counted free."""
        held = self._workspace.held() if self._workspace is not None else 0
        return int(KEEP_SHARE * (device.memory_budget(self.memory_cap) + held))

    def workspace(self, nbytes: int) -> Workspace:
        """The single-pair launch's buffers, with an upload of at least ``nbytes``; the single pair's
        stream waited for first where a stage's copy or pack may still use them (a pair staged, then
        not launched: its caller chose another algorithm)."""
        if self._staged_only:
            self.one_stream()[0].synchronize()
            self._staged_only = False
        if self._workspace is None or self._workspace.size < nbytes:
            arrays = self._workspace.arrays if self._workspace is not None else {}
            self._workspace = Workspace(self.cp, nbytes)
            self._workspace.arrays = arrays
            self._round_counters = False  # (the new upload's counters are not on the device)
        return self._workspace

    def reach_device(self, x: int, o: int, e: int, steps: int, gap_start: bool = False) -> Any:
        """The reach table of (x, o, e) (and infix mode's gap start) on the device, at least ``steps`` + 1
        scores (kept per solver: a longer table's prefix is the shorter one)."""
        have = self._reach_device.get((x, o, e, gap_start))
        if have is None or have.size <= steps:
            have = self.cp.asarray(self.reach(x, o, e, steps, gap_start))
            self._reach_device[(x, o, e, gap_start)] = have
        return have

    def stage(self, pair: Pair, costs: Costs) -> bool:
        """A single pair's letters on their way (``launch_one``'s first half): the packing's table and both
        sequences in one upload into the solver's ``Workspace`` on the single pair's stream, so that the device
        uploads (and packs: ``pack_staged``) while the host chooses the launch (the divergence sample and the cost
        models: ~0.1 ms at 10^5 1% on the H100 host, the upload and pack ~0.05). segments' pieces pack their own
        letters from these bytes (``queue_pieces``); the launches of the pair's one-block WFA (``launch_one``;
        BiWFA, then nw_wfa where it gave up) read them packed. False (nothing queued): a pair the WFA does not
        take (``solve``'s int32 bound)."""
        n, m = pair.n, pair.m
        if costs.bound(n, m) >= INT32_SAFE:
            return False
        cp = self.cp
        wa, wb = int(packed_words(n)), int(packed_words(m))
        ws = self.workspace(SINGLE_META + n + m)
        TABLE_STRUCT.pack_into(ws.host, TABLE_AT, 0, n, n, m, 0, wa, wa, wb, PAD_A, PAD_B)  # from, size, to, words, pad
        ws.host[SINGLE_META:SINGLE_META + n] = pair.a
        ws.host[SINGLE_META + n:SINGLE_META + n + m] = pair.b
        stream, began, staged, _, _ = self.one_stream()
        if self.timeline:
            began.record(stream)
        # (the copies by the runtime's own call: CuPy's slice and set / get of an array took more host
        # time than the copy)
        cp.cuda.runtime.memcpyAsync(ws.blob.data.ptr + TABLE_AT, ws.host_at + TABLE_AT,
                                    SINGLE_META - TABLE_AT + n + m, cp.cuda.runtime.memcpyHostToDevice, stream.ptr)
        if self.timeline:
            staged.record(stream)  # (again after the pack, where it is queued)
        self._staged_only = True
        self._unpacked = wa + wb
        self._round_counters = True
        return True

    def pack_staged(self) -> None:
        """The staged pair's letters packed for its one-block WFA: the pack kernel queued behind the stage's upload
        on the single pair's stream, once a stage (the words it packs: ``_unpacked``, 0 once queued). A pair whose
        first round of segments is queued at once (``GpuSolver.guess_round``) packs only where that round does not
        answer: its launches then go right behind the upload (10^5 1%: the pack of its 2 x 10^5 letters by 2 blocks
        was ahead of the round on the stream, and its launch call on the host's path to the round's)."""
        if not self._unpacked:
            return
        cp = self.cp
        ws = self._workspace
        assert ws is not None  # (stage made it)
        stream, _, staged, _, _ = self.one_stream()
        parts = ws.parts
        with stream:
            self.kernel(PACK)((2,), (PACK_THREADS,), (ws.raw, parts["from"], parts["size"], parts["to"], parts["words"],
                                                       parts["pad"], ws.array("bad", 2, cp.int32), self.letter_codes(),
                                                       ws.array("packed", self._unpacked, cp.uint64)))
        if self.timeline:
            staged.record(stream)
        self._unpacked = 0

    def launch_one(self, pair: Pair, costs: Costs, traceback: bool, mode: str, max_steps: int, visits: int,
                   threads: int, budget: int | None = None, bi: bool = False, cluster: bool = False,
                   staged: bool = False) -> WfaAnswers:
        """``launch`` of one non-empty pair, lean: its letters staged (``stage``; here unless ``staged``
        says the caller did, for this pair), then its descriptor and the pool's counter in one small
        upload into the solver's ``Workspace`` (nothing allocated once it has grown), the nw_wfa
        kernel on the stream of the pack, then the answer and, with the alignment, the walk's runs back
        in one wait (the text made from them on the host). ``budget``: ``keep_budget()`` when the caller
        has it. ``bi``: nw_biwfa (``biwfa_applies``; ``max_steps`` a direction's), which answers None
        (as if it gave up) also for an alignment whose breakpoint it cannot walk from (wfa.cu).
        ``cluster``: nw_wfa_cluster (``wfa_cluster.applies``; its ring in the cluster's shared memory,
        ``threads`` its own; raises ``wfa_cluster.Refused`` where the driver will not run it)."""
        cp = self.cp
        t0 = time.perf_counter()
        if not (staged or self.stage(pair, costs)):
            raise ValueError(f"gpu wfa: a pair of {pair.n:,} x {pair.m:,} is past the kernel's int32 bound")
        self.pack_staged()
        g, x, o, e = cpu_wfa.reduced_costs(costs)
        n, m = pair.n, pair.m
        reach_max = self.reach_max(x, o, e, max_steps)  # (configure's, without its numpy passes)
        config = fit_launch(reach_max, int(span(reach_max, n, m, mode)), int(seq_bytes(n, m)), x, o, e, max_steps,
                            threads, self.shared_bytes)
        ways = 2 if bi or (cluster and wfa_cluster.bidirectional(o)) else 1  # directions
        smem = config.smem
        if bi:
            config = config._replace(ring=biwfa_ring(x, e), shared=True, seqs_shared=True,
                                      threads=max(64, -(-config.threads // 64) * 64))  # two halves of whole warps
            smem = biwfa_smem(config.ring, config.stride, n, m, max_steps)
        clustered = wfa_cluster.configure(config.reach_max, n, m, x, o, e) if cluster else None
        if clustered is not None:
            config = config._replace(shared=True)  # (no ring in global memory)
            smem = clustered.smem
        # no step is wider than the table
        visits = min(visits, ways * (n + m + 1) * config.arrays * (max_steps + 1))
        runs_each = 2 * max_steps + 4  # a direction's walk
        # the runs' room: BiWFA (nw_biwfa, the linear cluster) joins both directions' runs at runs[0..2 * runs_each),
        # each direction's own runs after them (wfa.cu, wfa_cluster.cu); nw_wfa's walk one direction's
        run_slots = (4 if ways == 2 else 1) * runs_each
        ring_ints = config.rows * config.stride
        pool_ints = 1
        if traceback or not config.shared:
            fixed = (8 * ways * (max_steps + 1) + 4 * run_slots if traceback else 0) + (
                0 if config.shared else 4 * ring_ints)
            budget = self.keep_budget() if budget is None else budget
            device.require_memory(fixed, budget, f"gpu wfa: a pair of {n:,} x {m:,} up to {max_steps:,} scores")
            if traceback:
                pool_ints = max(1, min(visits, (budget - fixed) // 4))
        ws = self._workspace
        assert ws is not None  # (stage made it)
        HEAD_STRUCT.pack_into(ws.host, 0, 0, int(packed_words(n)), n, m, visits, pool_ints if traceback else 0, 0,
                              0)  # desc (WfaDesc), pool_top
        packed = ws.arrays["packed"]
        # the kept wavefronts and a ring in global memory from CuPy's pool for this launch only (up
        # to GBs at 10^6: held by the workspace they would count as used in every later budget)
        keep = cp.empty(pool_ints, cp.int32) if traceback else None
        bases = ws.array("bases", ways * (max_steps + 1), cp.int64) if traceback else None
        runs = ws.array("runs", run_slots, cp.uint32) if traceback else None
        ring = None if config.shared else cp.empty(ring_ints, cp.int32)
        reach_dev = self.reach_device(x, o, e, max_steps)
        if clustered is not None:
            kernel = wfa_cluster.kernel(o > 0, traceback)
        else:
            name = BIWFA.format(keep="true" if traceback else "false") if bi else sweep_name(config, o > 0, traceback)
            kernel = self.kernel(name)
        device.allow_shared_memory(kernel, smem)  # (never lowered: both paths)
        if clustered is not None:
            wfa_cluster.check_fits(kernel, clustered)
        stream, began, staged_at, start, stop = self.one_stream()
        parts = ws.parts
        cp.cuda.runtime.memcpyAsync(ws.blob.data.ptr, ws.host_at, TABLE_AT, cp.cuda.runtime.memcpyHostToDevice,
                                    stream.ptr)
        with stream:
            if self.poison:
                poison(keep, runs, ring, ws.out)
            start.record(stream)
            if clustered is not None:
                wfa_cluster.launch(kernel, clustered, smem, wfa_cluster.args(
                    packed, parts["desc"], reach_dev, x, o, e, max_steps, clustered, keep, pool_ints, bases, runs,
                    ws.out))
            elif bi:
                kernel((1,), (config.threads,), (
                    packed, parts["desc"], reach_dev, np.int32(x), np.int32(e), np.int32(max_steps),
                    np.int32(config.ring), np.int32(config.stride), np.int32(config.reach_max), np.int32(WALK_STEPS),
                    ws.out if keep is None else keep, parts["pool_top"], np.int64(pool_ints),
                    ws.out if bases is None else bases, ws.out if runs is None else runs, ws.out), shared_mem=smem)
            else:
                kernel((1,), (config.threads,), sweep_args(
                    packed, parts["desc"], reach_dev, mode, x, o, e, max_steps, config, ring, keep, parts["pool_top"],
                    pool_ints, bases, runs, ws.out, WALK_STEPS), shared_mem=smem)
            stop.record(stream)
        host_ms = (time.perf_counter() - t0) * 1e3
        # the answer and, with the alignment, the runs' whole room (the walk's runs at its start: ~44 kB at
        # 10^5 1%) in one wait: the text is written here (cigar.runs_cigar), where the device's text kernel
        # (a count, then the text) and a second copy back took two launches and another round trip
        cp.cuda.runtime.memcpyAsync(ws.answer_host.ctypes.data, ws.out.data.ptr, ws.out.nbytes,
                                    cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
        got_runs = None
        if traceback:
            got_runs = self.pinned.copy("wfa-one-runs", runs[:ways * runs_each], stream, blocking=False)
        stream.synchronize()  # (raises a kernel's asynchronous fault: no device-wide synchronize after it)
        self._staged_only = False
        synced_ms = (time.perf_counter() - t0) * 1e3
        out = ws.answer_host[0]  # (wfa.cu: steps, end column, start column, runs)
        steps, end2 = int(out[0]), int(out[1])
        cigar = None
        if got_runs is not None and steps >= 0:
            cigar = runs_cigar(got_runs[:int(out[3])])
        self.stats.update({"pairs": 1, "threads": config.threads if clustered is None else clustered.threads,
                           "shared": config.shared, "max_steps": max_steps, "bi": bi, "cluster": cluster,
                           "kernel_ms": cp.cuda.get_elapsed_time(start, stop), "pool_ints": pool_ints, "chunks": 1,
                           "host_ms": host_ms, "steps": [steps], "ms": (time.perf_counter() - t0) * 1e3,
                           "synced_ms": synced_ms})
        if self.timeline:  # upload_ms: the stage's upload and pack on the device; idle_ms: the device's wait from
            # there to this kernel (the host's choice and submission past the pack, or an earlier launch of the pair)
            self.stats.update(upload_ms=cp.cuda.get_elapsed_time(began, staged_at),
                              idle_ms=cp.cuda.get_elapsed_time(staged_at, start))
        return WfaAnswers([steps * g if steps >= 0 else None], [end2],
                          [int(out[2]) if traceback and mode == "infix" else 0], cigar,
                          None if cigar is None else [0, len(cigar)])

    def solve_pieces(self, pair: Pair, costs: Costs, r0: np.ndarray, r1: np.ndarray, c0: np.ndarray,
                     c1: np.ndarray, max_steps: int, pool_steps: int, threads: int = PIECE_THREADS) -> Pieces:
        """segments.py's pieces of a staged pair (``stage``: its bytes on the device, a at 0, b after it)
        in infix mode (with its gap start for gap-affine costs: segments.py), one block a piece, each with its
        path (the walk's runs, last first): a[r0[k]:r1[k]]
        against b[c0[k]:c1[k]], each giving up past ``max_steps`` scores (its score -1) or when the kept
        wavefronts' pool is full (room for ``pool_steps`` scores of every piece, shared). On the pair's
        stream: one upload (the descriptors and the packing's table, ``piece_meta``), one nw_wfa launch whose
        blocks pack their letters from the staged bytes (a pack launch for all the pieces' letters before it,
        where they do not fit in shared memory), one copy back (the answers, then the runs), one wait; every
        buffer the workspace's, grown on demand."""
        return self.pieces_back(self.queue_pieces(pair, costs, r0, r1, c0, c1, max_steps, pool_steps, threads))

    def queue_check(self, pair: Pair, costs: Costs, mode: str, count: int, r0: np.ndarray, r1: np.ndarray,
                    c0: np.ndarray, c1: np.ndarray, max_steps: int, pool_steps: int, threads: int, bound: int,
                    traceback: bool) -> QueuedCheck:
        """``solve_pieces`` of a first round (``segments.first_asks``: the ``count`` pieces of the first cuts,
        then with speculation every two neighbours as one) with its check on the device behind it (``nw_pieces_settle``:
        segments.settle on the first cuts, then on the merged cuts where the round holds their pieces; ``bound``:
        the band's escape bound, band.NO_ESCAPE for none), its result written into pinned memory (``check_room``), and
        with the alignment the answers' and runs' copy back, all queued on the pair's stream, nothing waited for:
        ``checked`` reads it, ``abort`` ends it early."""
        queued = self.queue_pieces(pair, costs, r0, r1, c0, c1, max_steps, pool_steps, threads)
        stream = self.one_stream()[0]
        assert count <= SETTLE_PIECES
        checked = self.check_room(count)
        with stream:
            self.kernel(SETTLE)((1,), (SETTLE_THREADS,), (
                queued.back, queued.runs, np.int64(queued.runs_each), queued.table_from, np.int64(pair.n),
                np.int32(count), np.int32(r0.size - count), np.int32(queued.g), np.int32(costs.affine),
                np.int32(mode == "global"), np.int32(pair.m), np.int64(bound), np.uint64(checked.ctypes.data)),
                shared_mem=8 * count)
        return QueuedCheck(queued, checked, self.copy_back(queued) if traceback else None)

    def checked(self, queued_check: QueuedCheck) -> Segmented | Pieces:
        """A queued first round's result after one wait: where the device certified it, the answer (the final
        pieces' runs, with the alignment, taken from the answers and runs that came back in the same wait), else the
        round's Pieces for segments.segmented to go on from (their copy back, a second wait where the alignment
        did not bring them). The runs' view is made before the wait (nothing of it is read there)."""
        queued, checked, got = queued_check
        runs = NO_RUNS if got is None else got[queued.count * batch.OUT:].view(np.uint32)  # (score only: used 0)
        self.one_stream()[0].synchronize()  # (raises a kernel's asynchronous fault)
        if not checked[0]:
            return self.pieces_back(queued, got)
        self.round_stats(queued)
        score, end2, rounds = checked[1:4].tolist()
        return Segmented(score, end2, [runs], *final_pieces(checked, NO_ANSWERS if got is None else got,
                                                             queued.runs_each), rounds)

    def abort(self, queued_check: QueuedCheck) -> None:
        """Ends a queued round early, its answers unread: the pool's counter (on the device, uploaded with the
        round's descriptors) set past the pool by a copy on a stream of its own, after that upload, so that each
        piece gives up at its next chunk of the pool (a chunk is an eighth of its share: a few steps) and those
        not begun at their first step; then the wait for the round and that copy (a later round's upload and
        pinned buffers come after both)."""
        cp = self.cp
        side, spent, _ = self.abort_parts()
        side.wait_event(queued_check.queued.uploaded)
        cp.cuda.runtime.memcpyAsync(int(queued_check.queued.pool_top), spent.ctypes.data, spent.nbytes,
                                    cp.cuda.runtime.memcpyHostToDevice, side.ptr)
        side.synchronize()
        self.one_stream()[0].synchronize()
        self._staged_only = False

    def queue_pieces(self, pair: Pair, costs: Costs, r0: np.ndarray, r1: np.ndarray, c0: np.ndarray,
                     c1: np.ndarray, max_steps: int, pool_steps: int, threads: int) -> QueuedPieces:
        """``solve_pieces``' upload and launches, queued on the pair's stream (nothing waited for)."""
        cp = self.cp
        t0 = time.perf_counter()
        g, x, o, e = cpu_wfa.reduced_costs(costs)
        count = r0.size
        runs_each = 2 * max_steps + 4
        at = piece_layout(count)
        host, meta = self.piece_meta(at["end"])
        # the descriptors and the packing's table straight into the pinned upload (one compiled pass)
        gap_start = o > 0
        pool_ints, words, widest, longest, seqs = fill_pieces(host, r0, r1, c0, c1, pair.n, max_steps, pool_steps,
                                                              wavefront_arrays(o), runs_each,
                                                              *(at[k] for k in PIECE_PARTS))
        reach_max = self.reach_max(x, o, e, max_steps, gap_start)
        config = fit_launch(reach_max, widest + min(reach_max, longest) + 1,  # (span in infix mode)
                            seqs, x, o, e, max_steps, threads, self.shared_bytes)
        staged = config.seqs_shared  # (each block packs its piece's letters: no pack launch)
        if staged:
            byte_sources(host, count, at["desc"], at["from"])
        ws = self._workspace
        assert ws is not None  # (stage made it)
        pool = self.pieces_pool(pool_ints)
        pool_ints = int(pool.size)
        stream, _, _, start, stop = self.one_stream()
        uploaded = self.abort_parts()[2]
        t1 = time.perf_counter()
        cp.cuda.runtime.memcpyAsync(meta.data.ptr, host.ctypes.data, 8 * at["end"], cp.cuda.runtime.memcpyHostToDevice,
                                    stream.ptr)
        uploaded.record(stream)
        packed = ws.raw if staged else ws.array("pieces-packed", words, cp.uint64)
        bases = ws.array("pieces-bases", count * (max_steps + 1), cp.int64)
        back = ws.array("pieces-back", count * (batch.OUT + runs_each), cp.int32)  # the answers, then the runs
        ring = None if config.shared else ws.array("pieces-ring", count * config.rows * config.stride, cp.int32)
        kernel = self.kernel(sweep_name(config, o > 0, True, staged))
        device.allow_shared_memory(kernel, config.smem)
        pointer = {name: np.uint64(meta.data.ptr + 8 * at[name]) for name in PIECE_PARTS}
        runs = np.uint64(back.data.ptr + 4 * count * batch.OUT)
        t2 = time.perf_counter()
        with stream:
            if self.poison:
                poison(pool, back, bases, ring)
            if self.timeline:
                start.record(stream)
            if not staged:
                self.kernel(PACK)((2 * count,), (PACK_THREADS,), (
                    ws.raw, pointer["from"], pointer["size"], pointer["to"], pointer["words"], pointer["pad"],
                    ws.array("bad", 2 * count, cp.int32), self.letter_codes(), packed))
            kernel((count,), (config.threads,), sweep_args(
                packed, pointer["desc"], self.reach_device(x, o, e, max_steps, gap_start), "infix", x, o, e, max_steps,
                config, ring, pool, pointer["pool_top"], pool_ints, bases, runs, back, gap_start=gap_start),
                shared_mem=config.smem)
            if self.timeline:
                stop.record(stream)
        return QueuedPieces(count, runs_each, g, c0, back, runs, pointer["from"], (t0, t1, t2, time.perf_counter()),
                            pointer["pool_top"], uploaded)

    def pieces_pool(self, ints: int) -> Any:
        """The kept wavefronts' pool of a round of pieces (the workspace's), grown to ``ints`` within their budget
        (less 4 MB for the round's other arrays): the pieces it cannot serve give up."""
        ws = self._workspace
        assert ws is not None  # (stage made it)
        pool = ws.arrays.get("pieces-pool")
        if pool is None or pool.size < ints:
            ws.arrays.pop("pieces-pool", None)
            del pool
            ws.arrays["pieces-pool"] = self.cp.empty(max(1, min(ints, self.keep_budget() // 4 - (1 << 20))),
                                                     self.cp.int32)
        return ws.arrays["pieces-pool"]

    def queue_round(self, pair: Pair, costs: Costs, mode: str, lo: int, hi: int, shape: tuple[int, int, int, int, int],
                    max_steps: int, pool_steps: int, threads: int, bound: int, traceback: bool) -> QueuedCheck | None:
        """``queue_check``'s round and check in one launch, nothing planned or uploaded by the host: the first round
        at the band lo..hi (``segments.first_asks`` with speculation; ``shape``: its sizes, segments.first_shape),
        each block making its piece's descriptor from its own index and packing its letters from the staged bytes, the
        last block checking the round (nw_wfa_round), its pool counter and tickets the stage's (uploaded zero), queued
        behind the stage's upload on the pair's stream; nothing is copied back: the check's result and, with the
        alignment, each piece's answer and runs are written by the device into pinned memory. None (nothing queued):
        the pieces' letters do not fit in shared memory, or the stage's counters were taken by a round already
        (``queue_check`` plans it on the host)."""
        count, asked, longest, widest, diagonals = shape
        if not self._round_counters or count > SETTLE_PIECES:
            return None
        cp = self.cp
        t0 = time.perf_counter()
        g, x, o, e = cpu_wfa.reduced_costs(costs)
        runs_each = 2 * max_steps + 4
        gap_start = o > 0
        reach_max = self.reach_max(x, o, e, max_steps, gap_start)
        # (the most letters of a piece: the longest ask's rows and the widest window, which the longest asks have)
        config = fit_launch(reach_max, widest + min(reach_max, longest) + 1, int(seq_bytes(longest, widest)), x, o, e,
                            max_steps, threads, self.shared_bytes)
        smem = max(config.smem, 8 * count)  # (the check's, after the piece's)
        if not config.seqs_shared or smem > self.shared_bytes:
            return None
        self._round_counters = False
        ws = self._workspace
        assert ws is not None  # (stage made it)
        pool = self.pieces_pool((pool_steps + 1) * diagonals * wavefront_arrays(o))
        stream, _, _, start, stop = self.one_stream()
        t1 = time.perf_counter()
        bases = ws.array("pieces-bases", asked * (max_steps + 1), cp.int64)
        back = ws.array("pieces-back", asked * (batch.OUT + runs_each), cp.int32)  # the answers, then the runs
        ring = None if config.shared else ws.array("pieces-ring", asked * config.rows * config.stride, cp.int32)
        table_from = ws.array("pieces-from", 2 * asked, cp.int64)
        checked = self.check_room(count)
        # with the alignment, the answers and runs in a pinned copy of back the round's pieces write themselves
        # (wfa.cu mirror_piece), where a copy back after the kernel took the bus after its last block
        got = self.piece_back(asked * (batch.OUT + runs_each)) if traceback else None
        kernel = self.kernel(ROUNDS[gap_start, config.shared])
        device.allow_shared_memory(kernel, smem)
        counters = ws.parts["round"].data.ptr
        runs = back.data.ptr + 4 * asked * batch.OUT
        if self._round_args is None:
            self._round_args = device.ArgumentSlots(ROUND_ARGUMENTS)
        # (nw_wfa_round's parameters in order, by value: ints and device addresses)
        arguments = self._round_args(
            ws.raw.data.ptr, self.reach_device(x, o, e, max_steps, gap_start).data.ptr, x, o, e, max_steps, config.ring,
            config.stride, config.reach_max, 0, (back if ring is None else ring).data.ptr, pool.data.ptr, counters,
            pool.size, bases.data.ptr, runs, back.data.ptr, pair.n, pair.m, count, asked - count, lo, hi, pool_steps,
            runs_each, table_from.data.ptr, counters + 8, g, mode == "global", bound, self.pinned_at("checked"),
            0 if got is None else self.pinned_at("got"))
        t2 = time.perf_counter()
        if self.poison:
            with stream:
                poison(pool, back, bases, ring, table_from, checked, got)  # (the host's two at once)
        # one event (its stop too with a timeline): the round's start is also the mark abort waits for (its counters
        # were uploaded by the stage, before it); the launch by the driver's own call with the solver's slots
        # (device.launch)
        start.record(stream)
        device.launch(kernel, asked, config.threads, arguments, smem, stream)
        if self.timeline:
            stop.record(stream)
        queued = QueuedPieces(asked, runs_each, g, None, back, np.uint64(runs), table_from,
                              (t0, t1, t2, time.perf_counter()),
                              np.uint64(counters), start, (pair.n, pair.m, lo, hi))
        return QueuedCheck(queued, checked, got)

    def pinned_at(self, role: str) -> int:
        """The address of the solver's pinned buffer ``role`` ("checked": check_room's, "got": piece_back's; a
        page-locked buffer's host address is its device address), looked up once a buffer (NumPy's ``ctypes.data``
        took ~1.2 us of the 2-core development host a call, two a guessed round)."""
        buffer = self._piece_checked if role == "checked" else self._piece_got
        held = self._pinned_at.get(role)
        if held is None or held[0] is not buffer:
            assert buffer is not None
            held = self._pinned_at[role] = (buffer, buffer.ctypes.data)
        return held[1]

    def check_room(self, count: int) -> np.ndarray:
        """Where a first round's check (4 + ``count`` int64: nw_pieces_settle's result) goes: a pinned buffer the
        device writes itself (a page-locked allocation's host address is its device address), read after the wait,
        so that no copy back follows the check on the stream."""
        self._piece_checked = grown_pinned(self._piece_checked, 4 + count, np.int64)
        return self._piece_checked[:4 + count]

    def copy_back(self, queued: QueuedPieces) -> np.ndarray:
        """The round's answers, then its runs, copied back on the pair's stream into ``piece_back``'s buffer
        (read after a wait)."""
        got = self.piece_back(queued.count * (batch.OUT + queued.runs_each))
        self.cp.cuda.runtime.memcpyAsync(got.ctypes.data, queued.back.data.ptr, got.nbytes,
                                         self.cp.cuda.runtime.memcpyDeviceToHost, self.one_stream()[0].ptr)
        return got

    def pieces_back(self, queued: QueuedPieces, got: np.ndarray | None = None) -> Pieces:
        """A queued round's Pieces: its copy back (unless ``got`` holds it, queued before) and the wait."""
        if got is None:
            got = self.copy_back(queued)
        self.one_stream()[0].synchronize()  # (raises a kernel's asynchronous fault)
        count = queued.count
        answers = got[:count * batch.OUT].reshape(count, batch.OUT).astype(np.int64)
        steps = answers[:, 0]
        self.round_stats(queued)
        c0 = queued.c0
        if c0 is None:  # (a round planned on the device: queue_round)
            assert queued.band is not None
            c0 = first_asks(*queued.band, ROWS, True)[3]
            assert c0.size == queued.count
        return Pieces(np.where(steps >= 0, steps * queued.g, -1), c0 + answers[:, 2], c0 + answers[:, 1],
                      got[count * batch.OUT:].view(np.uint32).copy(),  # (the runs outlive the buffer's next copy)
                      np.arange(count, dtype=np.int64) * queued.runs_each, answers[:, 3])

    def round_stats(self, queued: QueuedPieces) -> None:
        """A round's times, after its wait: host ms to the plan, the uploads and allocations, the launches;
        the pack and sweep on the device (NaN unless ``timeline``: no events timed them); the whole round
        (unrounded: five round() calls took ~2 us of the development host after a certified round's wait)."""
        self._staged_only = False
        t0, t1, t2, t3 = queued.times
        _, _, _, start, stop = self.one_stream()
        device_ms = self.cp.cuda.get_elapsed_time(start, stop) if self.timeline else math.nan
        self.stats.setdefault("pieces", []).append(
            [(t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, device_ms, (time.perf_counter() - t0) * 1e3])

    def piece_back(self, ints: int) -> np.ndarray:
        """``solve_pieces``' copy back (the answers, then the runs): ``ints`` int32 of a pinned buffer, grown on
        demand, read only after the round's wait."""
        self._piece_got = grown_pinned(self._piece_got, ints, np.int32)
        return self._piece_got[:ints]

    def piece_meta(self, ints: int) -> tuple[np.ndarray, Any]:
        """``solve_pieces``' upload of ``ints`` int64 (``piece_layout``): a pinned host buffer, written only
        after the last round's wait, and its device twin (the workspace's), both grown on demand."""
        self._piece_host = grown_pinned(self._piece_host, ints, np.int64)
        assert self._workspace is not None
        return self._piece_host, self._workspace.array("pieces-meta", ints, self.cp.int64)

    def abort_parts(self) -> tuple[Any, np.ndarray, Any]:
        """(stream, spent, uploaded): ``abort``'s stream, its pinned value (past any pool) and the event each round
        records after its upload (``queue_pieces``), made once."""
        if self._aborts is None:
            spent = device.empty_pinned(1, np.uint64)
            spent[0] = np.uint64(1 << 62)
            self._aborts = (self.cp.cuda.Stream(non_blocking=True), spent, self.cp.cuda.Event())
        return self._aborts

    def letter_codes(self) -> Any:
        """LETTER_CODES on the device, uploaded once (a single pair's pack kernel: its bytes are
        codes, which stand for themselves; its bad-letter marks are not read)."""
        if self._letter_codes is None:
            self._letter_codes = self.cp.asarray(LETTER_CODES)
        return self._letter_codes

    def one_stream(self) -> tuple[Any, Any, Any, Any, Any]:
        """(stream, began, staged, start, stop): a single pair's stream and the events timing its upload and
        pack (began .. staged: ``stage``) and its kernel (start .. stop: ``launch_one``), made once."""
        if self._one is None:
            cuda = self.cp.cuda
            self._one = (cuda.Stream(non_blocking=True), cuda.Event(), cuda.Event(), cuda.Event(), cuda.Event())
        return self._one

    def streams(self) -> tuple[Any, list[Any], Any]:
        """(copy, launches, collect): the streams of a launch, made once. The chunks' kernels go on
        LAUNCH_STREAMS streams in turn, so that they run side by side."""
        if self._streams is None:
            cuda = self.cp.cuda
            self._streams = (cuda.Stream(non_blocking=True),
                             [cuda.Stream(non_blocking=True) for _ in range(LAUNCH_STREAMS)],
                             cuda.Stream(non_blocking=True))
        return self._streams

    def launch(self, pairs: Sequence[Pair], costs: Costs, traceback: bool, mode: str, max_steps: int,
               visits: np.ndarray, threads: int, n: np.ndarray | None = None, m: np.ndarray | None = None,
               staging: Staging | None = None, addresses: np.ndarray | None = None,
               gap_start: bool = False) -> WfaAnswers:
        """nw_wfa over ``pairs`` (each non-empty; lengths ``n``, ``m`` when the caller has them),
        pair p giving up past visits[p] diagonals or max_steps scores. The pairs go in chunks
        (``common.Staging``, made here or by the caller, ``staging``: a chunk's sequences copied
        while the device runs the chunks before it); the descriptors, the kept
        wavefronts' pool and the answers are the launch's, each chunk's kernels take their slice
        of them; the answers and CIGAR texts come back once, for all. Letters (a ``PairBatch``'s)
        become codes in the pack kernel; a bad one raises InputError naming its record.
        ``addresses``: each sequence's (``common.pair_sources``) when the caller has them.
        ``gap_start``: infix mode's gap start (a start on row 0 inside a gap of a's letters: a leading
        D run costs no gap-open; wfa_kernels' doc), for pieces of a longer alignment."""
        records.check_mode(mode, gap_start)
        cp = self.cp
        t0 = time.perf_counter()
        count = len(pairs)
        g, x, o, e = cpu_wfa.reduced_costs(costs)
        reach = self.reach(x, o, e, max_steps, gap_start)
        if n is None or m is None:
            n, m = lengths(pairs)
        config = configure(reach, n, m, mode, x, o, e, max_steps, threads, self.shared_bytes)
        # no step is wider than the table's n + m + 1 diagonals
        visits = np.minimum(visits, (n + m + 1) * config.arrays * (max_steps + 1))
        copy, launches, collect = self.streams()
        began = collect.record()  # (the collect stream is idle here: the device's clock at t0, for the stats)
        sizes = staging.sizes if staging is not None else np.stack([n, m], axis=1).reshape(-1)
        words = packed_words(sizes)
        to = np.concatenate([[0], np.cumsum(words)])
        runs_each = 2 * max_steps + 4
        desc = np.zeros((count, batch.DESCRIPTOR), np.int64)
        desc[:, 0], desc[:, 1] = to[:-1:2], to[1::2]
        desc[:, 2], desc[:, 3], desc[:, 4] = n, m, visits
        desc[:, 6] = np.arange(count, dtype=np.int64) * runs_each
        ring_ints = config.rows * config.stride
        fixed = 8 * count * (max_steps + 1) + 4 * count * runs_each if traceback else 0
        fixed += 0 if config.shared else 4 * count * ring_ints
        pool_ints = 1
        host_at = {"desc": time.perf_counter()}  # (the host's steps before the first kernel, for the stats)
        if traceback or fixed:
            budget = int(KEEP_SHARE * device.memory_budget(self.memory_cap))
            device.require_memory(fixed, budget, f"gpu wfa: {count} pair(s) up to {max_steps:,} scores")
            if traceback:  # the kept wavefronts: a pool the pairs take room from as they go (wfa.cu)
                pool_ints = max(1, min(int(visits.sum()), (budget - fixed) // 4))
                desc[:, 5] = np.maximum(1, np.minimum(visits, pool_ints) // (1 if count == 1 else POOL_CHUNKS))
        # every small array in one copy: the descriptors, the reach table, the pool's counter, the
        # letters' codes, the packing's table (from, size, to, words, pad, bad letter of each sequence)
        meta = self.pinned.upload("wfa-meta", [
            desc, reach, np.zeros(1, np.uint64), LETTER_CODES, np.cumsum(sizes) - sizes, sizes, to[:-1], words,
            np.tile(np.array([PAD_A, PAD_B], np.uint8), count), np.zeros(2 * count, np.int32)], copy)
        desc_dev, reach_dev, pool_top, codes_dev = meta[:4]
        uploaded = copy.record()  # (chunks sent before the launch: their kernels wait for this too)
        host_at["meta"] = time.perf_counter()
        packed = cp.empty(int(to[-1]), cp.uint64)
        keep = cp.empty(pool_ints, cp.int32) if traceback else None
        bases = cp.empty(count * (max_steps + 1), cp.int64) if traceback else None
        runs = cp.empty(count * runs_each, cp.uint32) if traceback else None
        ring = None if config.shared else cp.empty(count * ring_ints, cp.int32)
        out = cp.empty((count, batch.OUT), cp.int32)
        if self.poison:
            with copy:  # (before the chunks' copies, which the kernels wait for)
                poison(keep, runs, ring, out)
        name = sweep_name(config, o > 0, traceback)
        kernel = self.kernel(name)
        smem = config.smem
        device.allow_shared_memory(kernel, smem)
        host_at["allocated"] = time.perf_counter()
        if staging is None:  # (made here, where this thread waits next: Staging)
            staging = Staging(self.pinned, "wfa-bytes", pairs, n, m, copy, addresses)
        chunks = staging.chunks
        start, done = cp.cuda.Event(), []
        pack, table = self.kernel(PACK), meta[4:]
        # a chunk's slices of the arrays as pointers (item_at): CuPy's slicing, ~10 of them a chunk, costs more
        per_pair = [(desc_dev, batch.DESCRIPTOR), (ring, ring_ints), (bases, max_steps + 1), (out, batch.OUT)]
        for c, (c0, c1) in enumerate(chunks):
            stream = launches[c % len(launches)]
            stream.wait_event(staging.send(c))
            if c < len(launches):
                stream.wait_event(uploaded)
            with stream:
                pack((2 * (c1 - c0),), (PACK_THREADS,), (staging.raw, *(item_at(a, 2 * c0) for a in table), codes_dev,
                                                         packed))
                if c == 0:
                    start.record(stream)
                desc_c, ring_c, bases_c, out_c = (None if a is None else item_at(a, c0 * each) for a, each in per_pair)
                kernel((c1 - c0,), (config.threads,), sweep_args(
                    packed, desc_c, reach_dev, mode, x, o, e, max_steps, config, ring_c, keep, pool_top, pool_ints,
                    bases_c, runs, out_c, gap_start=gap_start), shared_mem=smem)
            done.append(stream.record())
            if c == 0:
                host_at["queued"] = time.perf_counter()
        staging.finish()
        staged_ms = (time.perf_counter() - t0) * 1e3
        # the answers and texts of all chunks at once: the host is the batch's bottleneck (2,000 x
        # 10 kb on the H200 host: ~12 ms of staging, ~9 of per-chunk answers and texts after it,
        # ~1 ms of it a chunk in calls and waits), so nothing is gained collecting early chunks
        # (one wait for the answers, the bad letters' marks and the texts' lengths, a second for the texts)
        for d in done:
            collect.wait_event(d)
        ended = collect.record()  # (once every chunk's kernels are done: the kernels' end, for the stats)
        counted = batch.text_lengths(desc_dev, runs, out, count, collect) if traceback else None
        got = device.empty_pinned((count, batch.OUT), np.int32)
        out.get(stream=collect, out=got, blocking=False)
        marks = self.pinned.copy("wfa-bad", meta[-1], collect, blocking=False) if staging.letters else None
        text_sizes = self.pinned.copy("wfa-text-at", counted, collect, blocking=False) if counted is not None else None
        collect.synchronize()
        waited_ms = (time.perf_counter() - t0) * 1e3
        steps = got[:, 0].tolist()
        found = got[:, 0] >= 0
        if marks is not None:  # letters no code stands for (the pack kernel's marks)
            marked = np.flatnonzero(marks)
            if marked.size:
                pairs[int(marked[0]) // 2]  # its codes made on the host: InputError naming the record and letter
                raise AssertionError(f"the device marked a letter of pair {int(marked[0]) // 2 + 1} bad, the host not")
        text, offsets = None, None
        if text_sizes is not None and found.any():
            text, offsets = batch.write_text(desc_dev, runs, out, text_sizes, collect)
        host_at["text"] = time.perf_counter()
        device.check(cp)
        line = staging.timeline  # (host times in ms from the launch's start: negative before it)
        self.stats = {"pairs": count, "threads": config.threads, "shared": config.shared, "max_steps": max_steps,
                      "kernel_ms": cp.cuda.get_elapsed_time(start, ended), "pool_ints": pool_ints,
                      "chunks": len(chunks), "staged_ms": staged_ms, "steps": steps, "waited_ms": waited_ms,
                      "kernels_from_ms": cp.cuda.get_elapsed_time(began, start),
                      "kernels_to_ms": cp.cuda.get_elapsed_time(began, ended),
                      "host_ms": {k: round((v - t0) * 1e3, 2) for k, v in host_at.items()},
                      "staging_ms": [round((line[k] - t0) * 1e3, 2) for k in ("begun", "addressed", "made")],
                      "threads_started_ms": [round((x - t0) * 1e3, 2) for x in line.get("started", [])],
                      "chunks_sent_ms": [round((x - t0) * 1e3, 2) for x in line["sent"]]}
        scores: list[int | None] = (got[:, 0].astype(np.int64) * g).tolist()
        if not found.all():
            scores = [s if ok else None for s, ok in zip(scores, found.tolist())]
        answers = WfaAnswers(scores, got[:, 1].tolist(),
                             got[:, 2].tolist() if traceback and mode == "infix" else [0] * count, text, offsets,
                             found)
        self.stats["ms"] = (time.perf_counter() - t0) * 1e3
        return answers
