"""Host-side plan of one `gpu` launch: the task records, their order, row storage, and the
facts the kernel (wavefront.cu) shares with the host.

Compiled (numba) passes over a whole batch of test cases, each linear in its exons or tasks
(listed above _exon_order). Vocabulary as in wavefront.cu:

* strip: up to ``32 * rows_per_lane`` consecutive rows of one exon; an exon of L rows has
  ceil(L / strip_rows) strips, the first one holding the remainder.
* fold q of a case: M_q = max(M_{q-1}, last row of its q-th exon by ``last``), M_{-1} being the
  chain-start row. The entry row of exon k is M_{p_k - 1}, p_k = #exons with last < first(k). A
  case has the folds some strip reads: q <= max_k p_k - 2.
* every task writes one row (a strip its bottom row, a fold its M_q), once; row storage starts
  as ``empty`` so that a consumer can poll a row's words themselves.
* a fold that some exon's entry row equals need be no task: M_q is the entry row of every exon
  with p_k = q + 1, and the first strip of the first such exon can write it as it reads it
  (its ``entry_row``; for the cases ``build_plan``'s ``entry_folds`` names), so that no warp
  slot waits on the fold's inputs for it (the 10 sets' kernels 68.8 -> 66.0 ms; a chain-bound
  launch's fold would come one entry-row window late, so those keep theirs: launch.Tuning.late_folds).
* up to three inputs per task, ``in``, ``in2`` and ``in3``, each a row of an earlier task or
  none: a task's entry row is max(in, in2, in3), ``in`` = none meaning the chain-start row
  -gap*j and ``in2``, ``in3`` = none meaning no such row. A later strip of an exon reads the
  strip above it (``in``); an exon's first strip reads M_{p_k - 2} (``in``) and the last row of
  the (p_k - 1)-th exon by ``last`` (``in2``), whose max is M_{p_k - 1}: it does not wait for
  fold p_k - 1, so on a dependent chain the hand-off is strip -> strip; a fold q reads M_{q-1}
  (``in``) and the q-th exon's last row (``in2``).
* a fold q that no entry row equals, where M_{q-1} has a row (entry folds only), need have no
  row at all: its readers (exons with p_k = q + 2, fold q + 1) read M_{q-1} and the last rows of
  the q-th and (q + 1)-th exons by ``last`` instead (``in``, ``in2``, ``in3``), the max of the
  three being M_{q+1}. So of a run of g folds that no entry row equals, floor(g / 2) are tasks
  (the paper set's fold tasks: see _case_counts and docs/gpu.md).

Tasks are listed in an order consistent with every case's dependencies (a producer before its
consumers); interleaving cases by relative position keeps many independent tasks in flight.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, NamedTuple

import numpy as np
from numba import get_num_threads, njit, prange

from splicedalign.core.alphabet import TARGET_WILDCARD
from splicedalign.workloads.spliced.gpu.flat import (
    BASE_LUT,
    PARALLEL,
    TARGET_LUT,
    FlatCases,
    checked_letters,
)
from splicedalign.workloads.spliced.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Scoring, TestCase

WARP = 32
COLS = 4  # target columns a lane sweeps per step; also the row and target offset alignment
ALIGN = COLS  # 16-byte vector access to int rows and selectors
THREADS = 256  # threads per block of the wavefront kernel (its __launch_bounds__)
# Blocks launched per SM: as many as could be resident (2,048 threads per SM on sm_90); blocks
# that start after the tasks are taken exit at once.
BLOCKS_PER_SM = 2_048 // THREADS

# The task record: TASK_FIELDS int32 per task, field f at offset TASK_<F> (the kernel gets the
# offsets as -D macros, see kernel_defines). None (no input row) is NONE.
TASK_FIELDS = ("kind", "n", "tgt", "base", "rows", "lane_rows", "in_row", "in2_row", "in3_row", "out_row", "moves",
               "entry_row")
(F_KIND, F_N, F_TGT, F_BASE, F_ROWS, F_LANE_ROWS, F_IN_ROW, F_IN2_ROW, F_IN3_ROW, F_OUT_ROW, F_MOVES,
 F_ENTRY_ROW) = range(len(TASK_FIELDS))
NONE = -1
NFIELDS = len(TASK_FIELDS)
KIND_STRIP, KIND_FOLD = 0, 1
# kind: KIND_STRIP or KIND_FOLD; n: target length; tgt: offset of the case's selectors (t_j at
# tgt + j); base (strip): offset of the strip's first exon row in the packed bases; rows
# (strip): exon rows in the strip, 1..32*lane_rows; lane_rows (strip): rows each lane holds for
# this strip, the least power of two >= MIN_LANE_ROWS that fits the strip (up to the launch's
# rows_per_lane); in_row, in2_row, in3_row: the inputs' row offsets (rows of tasks earlier in
# launch order), NONE if absent (in3_row only beside in2_row, only in plans with entry folds);
# out_row: offset of the row
# this task writes; moves (strip): offset of the strip's moves, in MOVE_UNIT words, in the
# move storage of a launch that records them (see below), NONE in a recording launch's copy
# for the strips a follower records (followed_tasks); entry_row (strip): where an exon's first
# strip writes its entry row max(in, in2, in3), the fold M_{p_k - 1} it stands in for, else NONE.
# Fields a kind does not use are 0.

# PRMT selectors: t_j's code c (0..7) becomes c * SEL_SPREAD | SEL_SIGN: byte c of a row's
# profile pair in the low byte, its sign replicated into the other three.
SEL_SPREAD, SEL_SIGN, SEL_CODE_MASK = 0x1111, 0x8880, 0x7
PAD_CODE = TARGET_WILDCARD + 1  # compare profile: padding rows' base code, equal to no target code
# Target codes (so selectors) lie TARGET_MARGIN apart per case and from the array's ends, code 0
# there: a strip's lanes read the selectors of column blocks -31 .. n // COLS + 31 of their case
# unconditionally (outside 0 .. n their cells are throw-away; a valid selector keeps them small).
TARGET_MARGIN = WARP * COLS
# Every byte of an unwritten row word (plan.empty): a memset fills row storage.
EMPTY_BYTE = 0x80
# Sentinel of column -1 in the int kernel: -2^NEG_SHIFT_INT. Shifted scores of a strip stay
# within +-2^(NEG_SHIFT_INT - 1) (score_ctype), so the sentinel plus anything added to it stays
# below every real score and above INT_MIN. The int64 kernel uses -2^NEG_SHIFT_WIDE.
NEG_SHIFT_INT, NEG_SHIFT_WIDE = 29, 60
# A short strip may run with fewer rows per lane (cheaper steps, the same rows in more lanes),
# down to MIN_LANE_ROWS; the kernel compiles the strip sweep for every power of two from there
# to the launch's rows per lane. Each case of a launch gets its own floor (launch.lane_rows_floor).
MIN_LANE_ROWS = 2
# The int64 variants' least (a sweep at 2 rows per lane would make them spill registers).
WIDE_MIN_LANE_ROWS = 4
# The wavefront kernel's __launch_bounds__ minimum of resident blocks per SM: 3 caps every
# variant at 80 registers (3 blocks of 256 threads fit; 81 would leave 2), without spills; 4
# (64 registers) spills.
MIN_BLOCKS_PER_SM = 3
# Variants of more rows per lane than DENSE_LANE_ROWS run only in chain-bound launches (a block
# per SM, and a follower's): bound to CHAIN_MIN_BLOCKS_PER_SM, their registers up to 128. They
# have no MODE_RECORD variant: a recording launch that wide records in a follower.
DENSE_LANE_ROWS = 8
CHAIN_MIN_BLOCKS_PER_SM = 2
# What a wavefront launch does (wavefront.cu): compute rows; also record moves; only record
# moves, following a concurrent MODE_SCORE launch of the same tasks (for launches bound by a
# dependent chain, whose moves then cost idle SMs instead of longer steps on the chain).
MODE_SCORE, MODE_RECORD, MODE_FOLLOW = 0, 1, 2
# A fed launch's warps past the tasks ready sleep this long between polls of the count (feed.py;
# wavefront.cu, fed): the host's next window is ~1 ms away, and thousands of warps polling one
# word every few dozen ns would load its L2 slice.
FEED_SLEEP_NS = 2_000

# Moves (traceback on the device): the wavefront variant that records them writes, per strip,
# step u and lane l, the move of each of the lane's R x COLS cells as two bits, e0 = the
# diagonal term lost (diag + s < max(up, left)) and e1 = up lost to left: e0 = 0 is TR_DIAG, else
# e1 = 0 is TR_UP (base letter against a gap), else TR_LEFT (target letter against a gap), the
# tie order of backtrack.trace_exon. Cell (r, q) is the 2-bit field 2 * e0 + e1 at bit
# move_shift(R, r, q) of word r // 4 (the kernel shifts each cell's bits in as it computes
# them); the lane's move_words(R) words lie at (u * 32 + l) * move_words(R) from the strip's
# start (whole steps of the warp stored at once: coalesced). Lane l computes columns
# (u - l + head) * COLS.., so cell (strip row rs = l * R + r, column j) is at step
# j // COLS + l - head. A strip's moves take steps * move_words(R) units of MOVE_UNIT words,
# steps = n // COLS + 1 + 31 - head.
MOVE_UNIT = WARP
TR_DIAG, TR_UP, TR_LEFT = 0, 1, 2  # trace_chains' decoded moves
# trace_chains (one warp per case) walks the moves; its inputs: per exon TRACE_EXON_FIELDS
# int32 (first, last in the case's base; base: packed offset of its first row; row: its last
# row in row storage; in/in2/in3: the entry-row inputs of its first strip, NONE if absent;
# strip0/strips: its strips' launch indices at strip_task[strip0 .. strip0 + strips - 1], top
# to bottom; p: p_k, its case's exons with last < first; and, not about this exon, the case's
# exon by ``last`` at this row's rank in the case, for the predecessor search: by_last (its row
# in this table), by_last_last and by_last_row (its last and last row)), per case
# TRACE_CASE_FIELDS int64 (its exons exon0..exon1-1; n; tgt: selector offset; ops: end of its op
# region; scratch: where its walk recomputes moves, NONE where they were recorded: see below).
# Recomputed moves (launch.Tuning.recompute): a traced throughput launch runs its score kernel and
# records no moves but its followed long chains' (a follower's); the walk of every other case
# recomputes the moves of each strip it enters from the strip's input rows in row storage (the
# strip's sweep of a follower, wavefront.cu, up to the walk's column only) into its case's scratch
# region of strip_scratch_units, then walks them as recorded ones.
TRACE_EXON_FIELDS = ("first", "last", "base", "row", "in", "in2", "in3", "strip0", "strips", "p", "by_last",
                     "by_last_last", "by_last_row")
TRACE_CASE_FIELDS = ("exon0", "exon1", "n", "tgt", "ops", "scratch")
TRACE_BLOCK_THREADS = 128
# trace_chains' predecessor search: candidates per lane in flight (rounds of WARP * PRED_UNROLL).
PRED_UNROLL = 4


def move_shift(lane_rows: int, r, q):
    """Bit of the move field of a lane's row r, column q of a step (see "Moves")."""
    rows = min(lane_rows, 4)
    return 2 * (rows * COLS - 1 - (q * rows + r % 4))


@njit(cache=True, nogil=True)
def move_words(lane_rows: int) -> int:
    """uint32 words of moves per lane and step of a strip with ``lane_rows`` rows per lane."""
    return (lane_rows * COLS * 2 + 31) // 32


@njit(cache=True, nogil=True)
def strip_lane_rows(rows: int, least: int, widest: int) -> int:
    """Rows per lane of a strip of ``rows`` rows: the least power of two from ``least`` that
    holds it, at most ``widest``."""
    lane_rows = min(least, widest)
    while WARP * lane_rows < rows and lane_rows < widest:
        lane_rows *= 2
    return lane_rows


@njit(cache=True, nogil=True)
def strip_move_units(n: int, rows: int, lane_rows: int) -> int:
    """MOVE_UNIT words of a strip's moves (see "Moves"): its steps, n // COLS + 1 + 31 - head,
    times move_words."""
    return (n // COLS + 1 + WARP - 1 - (WARP * lane_rows - rows) // lane_rows) * move_words(lane_rows)


@njit(cache=True, nogil=True)
def exon_move_units(n: int, rows: int, P: int, floor: int) -> int:
    """MOVE_UNIT words of the moves of an exon of ``rows`` rows against a target of ``n`` in
    strips of up to ``P`` rows (the first one the rest: its head), each at the fewest rows per lane
    from ``floor`` that hold it (strip_lane_rows)."""
    widest = P // WARP
    strips = (rows + P - 1) // P
    head = rows - (strips - 1) * P
    return (strip_move_units(n, head, strip_lane_rows(head, floor, widest))
            + (strips - 1) * strip_move_units(n, P, strip_lane_rows(P, floor, widest)))


@njit(cache=True, parallel=True, nogil=True)
def _case_move_units(exon_start, first, last, n, floors, P):  # pragma: no cover - compiled
    C = n.size
    out = np.zeros(C, np.int64)
    for c in prange(C):
        for k in range(exon_start[c], exon_start[c + 1]):
            out[c] += exon_move_units(n[c], last[k] - first[k] + 1, P, floors[c])
    return out


def strip_scratch_units(n, rows_per_lane: int):
    """MOVE_UNIT words of the moves of any strip of a case with target length(s) ``n`` in a
    launch of ``rows_per_lane`` (its walk's scratch: strip_move_units at most, head 0)."""
    return (n // COLS + WARP) * move_words(rows_per_lane)


def scratch_layout(n: np.ndarray, followed: Sequence[int], rows_per_lane: int, start: int) -> tuple[np.ndarray, int]:
    """(C,) each case's scratch region (MOVE_UNIT words, from ``start``; NONE for the ``followed``
    cases, whose moves a follower records) of a launch whose walks recompute moves, and its end."""
    units = strip_scratch_units(np.asarray(n, dtype=np.int64), rows_per_lane)
    long = np.asarray(followed, dtype=np.int64)
    units[long] = 0
    at = start + np.cumsum(units) - units
    at[long] = NONE
    end = start + int(units.sum())
    _check_offsets(end)
    return at, end


# Column checkpoints (launch.Tuning.checkpoint_blocks, CHECKPOINT_BLOCKS by default): the
# score kernel of a traced recomputing launch stores, per strip its walks may recompute, every
# strip row's shifted score at the columns CKB * COLS * k - 1 < n (k = 1 .. n // (CKB * COLS):
# after lane l's block bi = k * CKB - 1; a walk's sweep starts at a column c0 <= n, and needs the
# checkpoint at c0 - 1 only), lane l's R rows (its lane rows) at ck[at + (k - 1) * 32 * R +
# l * R + r]: R words per lane every CKB steps. A walk then
# sweeps a strip from the checkpoint column at or left of its column less the strip's rows and
# CHECKPOINT_MARGIN (checkpoint_start), backing off (that distance doubled, down to column 0) when
# the path leaves the swept columns: every move it reads lies in a swept range, and the values at
# a checkpoint are the wavefront's own, so the walk stays exact.
CHECKPOINT_MARGIN = WARP
# The checkpoints' interval in column blocks the kernels ship with (256 columns; Tuning's default).
# On a never-seen paper set (H100), the traced call's walks ended 0.05 ms after the wavefront and
# ~90% of the last ones' time was sweeping from column 0 (29.6 M cells): with checkpoints every 64
# blocks, the replayed traced call went 21.0-27.0 -> 16.5-17.6 ms and the cold one 31.8 -> 30.0 ms
# (medians, 4 seeds); every 16 blocks was no better (cold 32.8 ms: more checkpoint stores).
CHECKPOINT_BLOCKS = 64


def strip_checkpoints(n, ckb: int):
    """Checkpoints of a strip (or strips) against target length(s) ``n`` every ``ckb`` column
    blocks: at the columns ckb * COLS * k - 1 left of column n."""
    return n // (ckb * COLS)


def checkpoint_layout(plan: Plan, ckb: int, followed: Sequence[int] = ()) -> tuple[np.ndarray, int]:
    """(T,) int64 each task's first checkpoint element (32 * lane_rows per checkpoint,
    strip_checkpoints of them) in one array, and its size: NONE for folds, for strips without a
    checkpoint, and for the ``followed`` cases' strips (a follower records their moves). One
    compiled pass: as NumPy passes over a 10-set launch's 369 k tasks it took 3-8 ms of the
    planning host."""
    at, size = _checkpoint_offsets(plan.tasks, np.asarray(followed, dtype=np.int64), plan.exon_start,
                                   plan.strip_start, plan.strip_task, ckb * COLS)
    return at, int(size)


@njit(cache=True, nogil=True)
def _checkpoint_offsets(tasks, followed, exon_start, strip_start, strip_task, columns):  # pragma: no cover - compiled
    """checkpoint_layout's offsets and size (a checkpoint every ``columns`` columns)."""
    skip = np.zeros(tasks.shape[0], np.bool_)
    for c in followed:
        for s in range(strip_start[exon_start[c]], strip_start[exon_start[c + 1]]):
            skip[strip_task[s]] = True
    at = np.empty(tasks.shape[0], np.int64)
    size = 0
    for t in range(tasks.shape[0]):
        elements = 0
        if tasks[t, F_KIND] == KIND_STRIP and not skip[t]:
            elements = (tasks[t, F_N] // columns) * WARP * np.int64(tasks[t, F_LANE_ROWS])
        at[t] = size if elements > 0 else NONE
        size += elements
    return at, size


def checkpoint_start(jj: int, distance: int, ckb: int) -> int:
    """The first column of a walk's sweep of a strip up to column ``jj`` from a checkpoint: the
    multiple of CKB * COLS at or left of jj - ``distance`` (0 at least; the checkpoint is the
    column left of it, none at 0)."""
    width = ckb * COLS
    return max(0, jj - distance) // width * width


def case_move_words(flat: FlatCases, rows_per_lane: int, floors) -> np.ndarray:
    """(C,) uint32 words of each case's moves in a plan whose strips hold up to ``rows_per_lane``
    rows per lane and at least ``floors`` (one or one per case): what build_plan's moves_size
    counts of it (a follower's copy of a case's moves, followed_tasks: the same at its ``least``)."""
    floors = np.broadcast_to(np.asarray(floors, dtype=np.int64), (len(flat),)).copy()
    with PARALLEL:
        units = _case_move_units(flat.exon_start, flat.first, flat.last, flat.n, floors, WARP * rows_per_lane)
    return units * MOVE_UNIT


def least_lane_rows(ctype: str) -> int:
    """The fewest rows per lane the kernel of score type ``ctype`` sweeps a strip with."""
    return MIN_LANE_ROWS if ctype == "int" else WIDE_MIN_LANE_ROWS


def entry_folds(ctype: str, rows_per_lane: int) -> bool:
    """Whether the plans of score type ``ctype`` and ``rows_per_lane`` may let exons' first strips
    write the folds their entry rows equal, and give the folds right above those no row (their
    readers read three rows: module doc): only the throughput kernels (int scores, at most
    DENSE_LANE_ROWS) carry that store and a third input (wavefront.cu, ENTRY and THREE): an int64
    sweep, at its register bound, would spill with them."""
    return ctype == "int" and rows_per_lane <= DENSE_LANE_ROWS


def _check_offsets(*sizes: int) -> None:
    """The kernels address rows, bases and moves with 32-bit offsets."""
    if max(sizes) >= 2**31:
        raise ValueError("batch too large for 32-bit offsets; split it (see launch.batches)")


@cache
def kernel_defines() -> dict[str, int]:
    """The -D macros wavefront.cu is compiled with: the facts above, one definition each (nvcc
    builds read them from wavefront.defines.h: ``python -m splicedalign.kernels headers``).
    Made once (every launch asks for them before its kernel; callers do not change them)."""
    out = {f"TASK_{name.upper()}": i for i, name in enumerate(TASK_FIELDS)}
    out.update(TASK_FIELDS=len(TASK_FIELDS), TASK_NONE=NONE, KIND_FOLD=KIND_FOLD, COLS=COLS,
               THREADS=THREADS, MIN_BLOCKS_PER_SM=MIN_BLOCKS_PER_SM, DENSE_LANE_ROWS=DENSE_LANE_ROWS,
               CHAIN_MIN_BLOCKS_PER_SM=CHAIN_MIN_BLOCKS_PER_SM, MODE_SCORE=MODE_SCORE, MODE_RECORD=MODE_RECORD,
               MODE_FOLLOW=MODE_FOLLOW, FEED_SLEEP_NS=FEED_SLEEP_NS, MIN_LANE_ROWS=MIN_LANE_ROWS,
               WIDE_MIN_LANE_ROWS=WIDE_MIN_LANE_ROWS,
               SEL_CODE_MASK=SEL_CODE_MASK, SEL_SPREAD=SEL_SPREAD, SEL_SIGN=SEL_SIGN, PAD_CODE=PAD_CODE,
               EMPTY_BYTE=EMPTY_BYTE, NEG_SHIFT_INT=NEG_SHIFT_INT, NEG_SHIFT_WIDE=NEG_SHIFT_WIDE)
    out.update({f"TE_{name.upper()}": i for i, name in enumerate(TRACE_EXON_FIELDS)})
    out.update({f"TC_{name.upper()}": i for i, name in enumerate(TRACE_CASE_FIELDS)})
    out.update(TE_FIELDS=len(TRACE_EXON_FIELDS), TC_FIELDS=len(TRACE_CASE_FIELDS), MOVE_UNIT=MOVE_UNIT,
               TR_DIAG=TR_DIAG, TR_UP=TR_UP, TR_LEFT=TR_LEFT, TRACE_BLOCK_THREADS=TRACE_BLOCK_THREADS,
               PRED_UNROLL=PRED_UNROLL, CHECKPOINT_MARGIN=CHECKPOINT_MARGIN,
               CHECKPOINT_BLOCKS=CHECKPOINT_BLOCKS,
               OP_MATCH=OP_MATCH, OP_MISMATCH=OP_MISMATCH, OP_DEL=OP_DEL, OP_INS=OP_INS)
    return out


def empty(dtype) -> int:
    """What row storage holds before a task writes a word: the value whose bytes are all
    EMPTY_BYTE (wavefront.cu: a consumer polls a row's own words), far below any score (int32
    -2,139,062,144: stored scores stay within +-2^29, see score_ctype), so that the host sets
    row storage with a memset."""
    size = np.dtype(dtype).itemsize
    return int(np.frombuffer(bytes([EMPTY_BYTE]) * size, dtype=dtype)[0])


def selectors(codes: np.ndarray) -> np.ndarray:
    """PRMT selector of every target code (int32)."""
    return (codes.astype(np.int32) * SEL_SPREAD) | SEL_SIGN


def round_up(x, a: int = ALIGN):
    return (x + a - 1) // a * a


def shifted_bound(m: int, n: int, scoring: Scoring, strip_rows: int) -> int:
    """Largest magnitude a shifted score h + gap*(c + j) inside a strip can take."""
    unit = max(abs(scoring.match), abs(scoring.mismatch), abs(scoring.gap))
    return (m + n) * unit + scoring.gap * (strip_rows + n)


def score_ctype(m: int, n: int, scoring: Scoring, strip_rows: int) -> str:
    """'int' when shifted scores stay within 2^(NEG_SHIFT_INT - 1), else 'long long'."""
    return "int" if shifted_bound(m, n, scoring, strip_rows) < 2 ** (NEG_SHIFT_INT - 1) else "long long"


def byte_profile_ok(scoring: Scoring) -> bool:
    """The kernel's PRMT profile holds match+2gap and mismatch+2gap as signed bytes."""
    return all(-128 <= v <= 127 for v in (scoring.match + 2 * scoring.gap, scoring.mismatch + 2 * scoring.gap))


# Letters: the host hands the device the letters of the bases' exon rows and of the targets as
# they are (checked against the alphabet: flat.checked_letters), and the device makes the codes
# the kernels read (wavefront.cu, encode_inputs): the base codes (one per letter) and the
# targets' selectors (int32, each case's at tgt_off + 1 .. tgt_off + n, code 0 in the
# TARGET_MARGIN after each case and before the first). On the host this was most of the
# planning of a never-seen set (the selectors' 6 MB written and uploaded for the paper set).
ENCODE_KERNEL = "encode_inputs"
ENCODE_THREADS = 256
ENCODE_BLOCKS = 1_024  # grid-stride over the base letters and the cases
LETTER_CODES = np.concatenate([BASE_LUT, TARGET_LUT])  # encode_inputs' lut: bases', then targets'


@dataclass(frozen=True)
class Plan:
    tasks: np.ndarray        # (T, len(TASK_FIELDS)) int32, in launch order
    base_letters: np.ndarray    # uint8: the letters of the bases' exon rows (see "Letters")
    target_letters: np.ndarray  # uint8: the cases' targets' letters, case after case
    target_size: int         # selectors of the batch (each case's stride, TARGET_MARGIN first)
    rows_size: int           # elements of row storage
    exon_start: np.ndarray   # (C+1,) first exon of each case
    last_row: np.ndarray     # (E,) offset of each exon's last row in row storage
    n: np.ndarray            # (C,) target lengths
    input_index: np.ndarray  # (E,) batch-wide index of each exon in its case's input order
    cells: np.ndarray        # (C,) cells of each case
    tgt_off: np.ndarray      # (C,) offset of each case's targets (t_j at tgt_off + j)
    strip_task: np.ndarray   # launch index of every strip, exon by exon, top to bottom
    strip_start: np.ndarray  # (E+1,) each exon's first entry in strip_task
    moves_size: int          # uint32 words of move storage (the variant that records moves)
    by_last: np.ndarray      # (E,) per case, its exons (global index) by last, stable
    p: np.ndarray            # (E,) p_k: the exons of its case with last < first(k)
    flat: FlatCases          # the batch it plans

    @property
    def exon_case(self) -> np.ndarray:
        """(E,) case of each exon, exons case-major in (first, last) order (made when asked: no
        pass of a launch's planning reads it)."""
        return self.flat.exon_case

    def letter_cases(self) -> np.ndarray:
        """(C, 4) int32 of encode_inputs: per case its selectors' offset (tgt_off), its first
        letter in target_letters, n, and its stride (n + 1 rounded up, and TARGET_MARGIN)."""
        n = self.n
        return np.stack([self.tgt_off, np.cumsum(n) - n, n, target_stride(n)], axis=1).astype(np.int32)

    # What encode_inputs makes on the device, made on the host (the NumPy models read them).
    @cached_property
    def base(self) -> np.ndarray:
        """uint8: the code of every letter of base_letters."""
        return BASE_LUT[self.base_letters]

    @cached_property
    def target(self) -> np.ndarray:
        """uint8: per case, the code of t_j at [tgt_off + j] (j = 1..n), 0 elsewhere."""
        out = np.zeros(self.target_size, dtype=np.uint8)
        n = self.n
        out[np.repeat(self.tgt_off + 1 - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))] = \
            TARGET_LUT[self.target_letters]
        return out

    @cached_property
    def tsel(self) -> np.ndarray:
        """int32: the selector of each code of ``target`` (selectors)."""
        return selectors(self.target)


def target_stride(n: np.ndarray) -> np.ndarray:
    """Selectors each case takes: t_0 .. t_n rounded up to ALIGN, then TARGET_MARGIN."""
    return round_up(n + 1) + TARGET_MARGIN


def _pack_sequences(flat: FlatCases, leader: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """(base letters, each exon's offset in them, target letters, each case's target offset, the
    selectors' size) ("Letters"). Bases: each one's exon rows only, the union of its cases'
    exons (the kernels read no other row: 11% of the paper set's 10 MB of bases), concatenated;
    cases of one base share them. Targets: each case's TARGET_MARGIN from the next's and from
    the ends."""
    with PARALLEL:
        iv_base, iv_lo, iv_hi, exon_base = _exon_union(flat.exon_start, flat.first, flat.last, flat.base_index,
                                                       len(flat.bases), leader)
    base = checked_letters(flat.bases, iv_base, iv_lo, iv_hi, BASE_LUT, "base", flat.cases)
    stride = target_stride(flat.n)
    tgt_off = TARGET_MARGIN + np.cumsum(stride) - stride
    C = len(flat)
    target = checked_letters([c.target for c in flat.cases], np.arange(C), np.ones(C, np.int64), flat.n, TARGET_LUT,
                             "target", flat.cases)
    return base, exon_base, target, tgt_off, TARGET_MARGIN + int(stride.sum())


@njit(cache=True, parallel=True, nogil=True)
def _exon_union(exon_start, first, last, base_index, B, leader):  # pragma: no cover - compiled
    """The union of the exons of each of the B bases' cases as intervals (base, lo, hi), by base
    then row, and each exon's offset in their concatenation (its first row's). In parallel over
    bases: each merges the exons of its ``leader`` cases (_leaders: a case sharing a leader's
    exon list adds nothing) by first (a single one's are in that order already; else sorted),
    with local offsets; then the bases' intervals and rows are placed after the earlier bases',
    and the other cases' exons take their leader's offsets."""
    C = base_index.size
    case_at = np.zeros(B + 1, np.int64)  # the leader cases of each base, consecutive, in case order
    exon_at = np.zeros(B + 1, np.int64)  # where their exons start in `member`
    for c in range(C):
        if leader[c] == c:
            case_at[base_index[c] + 1] += 1
            exon_at[base_index[c] + 1] += exon_start[c + 1] - exon_start[c]
    for b in range(B):
        case_at[b + 1] += case_at[b]
        exon_at[b + 1] += exon_at[b]
    cases = np.empty(case_at[B], np.int64)
    fill = case_at[:-1].copy()
    for c in range(C):
        if leader[c] == c:
            cases[fill[base_index[c]]] = c
            fill[base_index[c]] += 1
    X = exon_at[B]
    member = np.empty(X, np.int64)  # per base, its leaders' exons by first
    lo, hi = np.empty(X, np.int64), np.empty(X, np.int64)  # per base, its intervals from exon_at[b]
    intervals, rows = np.empty(B, np.int64), np.empty(B, np.int64)
    exon_off = np.empty(first.size, np.int64)
    for b in prange(B):
        at = exon_at[b]
        for i in range(case_at[b], case_at[b + 1]):
            c = cases[i]
            for k in range(exon_start[c], exon_start[c + 1]):
                member[at] = k
                at += 1
        own = member[exon_at[b]:exon_at[b + 1]]
        if case_at[b + 1] - case_at[b] > 1:
            own[:] = own[np.argsort(first[own], kind="mergesort")]
        n = exon_at[b] - 1
        total = 0
        for k in own:
            if n < exon_at[b] or first[k] > hi[n] + 1:
                if n >= exon_at[b]:
                    total += hi[n] - lo[n] + 1
                n += 1
                lo[n], hi[n] = first[k], last[k]
            elif last[k] > hi[n]:
                hi[n] = last[k]
            exon_off[k] = total + first[k] - lo[n]
        intervals[b] = n + 1 - exon_at[b]
        rows[b] = total + hi[n] - lo[n] + 1 if n >= exon_at[b] else 0
    iv_at, row_at = _prefix(intervals), _prefix(rows)
    iv_base, iv_lo, iv_hi = np.empty(iv_at[B], np.int64), np.empty(iv_at[B], np.int64), np.empty(iv_at[B], np.int64)
    for b in prange(B):
        for i in range(intervals[b]):
            iv_base[iv_at[b] + i], iv_lo[iv_at[b] + i], iv_hi[iv_at[b] + i] = b, lo[exon_at[b] + i], hi[exon_at[b] + i]
        for i in range(exon_at[b], exon_at[b + 1]):
            exon_off[member[i]] += row_at[b]
    for c in prange(C):
        o = leader[c]
        if o != c:
            shift = exon_start[c] - exon_start[o]
            for k in range(exon_start[c], exon_start[c + 1]):
                exon_off[k] = exon_off[k - shift]
    return iv_base, iv_lo, iv_hi, exon_off


# The task list is made in passes over a batch, each linear in its exons or tasks (module doc):
# _exon_order (each exon's p_k and strips), _case_counts (which folds are tasks; each case's
# first task, strip, move unit and entry-fold row), _interleave (each slot's launch index and
# row: cases interleaved), _write_tasks (the records, each case's slots in its topological order).
# Every pass runs over cases or ranges of buckets in parallel, with no serial pass over tasks or
# strips (the rows' serial prefix over a 10-set launch's 450,000 tasks and its scatter took
# 3.6-4.4 ms of its planning on the 16-core device host), and the slots' work arrays are kept
# from plan to plan (_scratch).

@njit(cache=True, parallel=True, nogil=True)
def _exon_order(exon_start, first, last, P, leader, parts):  # pragma: no cover - compiled
    """Per exon: by_last (per case, its exons by last, stable), p_k (its case's exons with
    last < first(k)) and its strips; per case: its folds (those some strip reads: fold q is
    read by exons with p_k = q + 2 and by fold q + 1). Made for each ``leader`` case (_leaders)
    and copied to the cases that share its exon list (the paper set: ~4 cases a list, a
    quarter of the sorts). Both in ``parts`` runs of cases of about equal exons (_even_ranges)."""
    C = exon_start.size - 1
    E = first.size
    by_last = np.empty(E, np.int64)
    p = np.empty(E, np.int64)
    S = np.empty(E, np.int64)
    folds = np.empty(C, np.int64)
    own = np.zeros(C + 1, np.int64)  # the leaders' exons, for runs of about equal sorts
    for c in range(C):
        own[c + 1] = own[c] + (exon_start[c + 1] - exon_start[c] if leader[c] == c else 0)
    edges = _even_ranges(own, parts)
    for g in prange(parts):
        for c in range(edges[g], edges[g + 1]):
            if leader[c] != c:
                continue
            a, b = exon_start[c], exon_start[c + 1]
            by_last[a:b] = a + np.argsort(last[a:b], kind="mergesort")
            q = 0
            for k in range(a, b):  # first is non-decreasing in (first, last) order
                while q < b - a and last[by_last[a + q]] < first[k]:
                    q += 1
                p[k] = q
                S[k] = (last[k] - first[k] + P) // P
            folds[c] = max(p[b - 1] - 1, 0)
    edges = _even_ranges(exon_start, parts)
    for g in prange(parts):
        for c in range(edges[g], edges[g + 1]):
            o = leader[c]
            if o == c:
                continue
            a, b, shift = exon_start[c], exon_start[c + 1], exon_start[c] - exon_start[o]
            for k in range(a, b):
                by_last[k] = by_last[k - shift] + shift
                p[k] = p[k - shift]
                S[k] = S[k - shift]
            folds[c] = folds[o]
    return by_last, p, S, folds


@njit(cache=True, nogil=True)
def _leaders(source, base_index):  # pragma: no cover - compiled
    """Per case, the first case of its run of cases of one exon list and base (FlatCases.source:
    a base's targets share its candidate exons), whose exon passes it copies."""
    leader = np.empty(source.size, np.int64)
    for c in range(source.size):
        same = c > 0 and source[c] == source[c - 1] and base_index[c] == base_index[c - 1]
        leader[c] = leader[c - 1] if same else c
    return leader


@njit(cache=True, nogil=True)
def _prefix(counts):  # pragma: no cover - compiled
    """(counts.size + 1,) the running sums of ``counts`` from 0."""
    out = np.zeros(counts.size + 1, np.int64)
    for i in range(counts.size):
        out[i + 1] = out[i] + counts[i]
    return out


@njit(cache=True, parallel=True, nogil=True)
def _case_counts(exon_start, first, last, n, p, S, folds, entry, floors, stride, P,
                 parts):  # pragma: no cover - compiled
    """(fold_base: each case's first fold; fold_exon: the exon whose first strip writes fold q
    (the first with p_k = q + 1, where the case's ``entry`` allows), else FOLD_TASK, or, where
    ``entry`` allows and fold q - 1 has a row, FOLD_SKIPPED (no row: its readers read three
    rows, module doc); and, case
    after case from 0 (C+1,): case_tasks (each case's first slot, case-major), its first strip,
    its strips' first move unit (MOVE_UNIT words, strips in exon order) and its entry folds'
    first row after the tasks' rows (each fold a row of the case's ``stride``)). In ``parts``
    runs of cases of about equal exons (_even_ranges)."""
    C = folds.size
    fold_base = _prefix(folds)
    fold_exon = np.empty(fold_base[C], np.int64)
    tasks, strips = np.empty(C, np.int64), np.empty(C, np.int64)
    units, entries = np.empty(C, np.int64), np.empty(C, np.int64)
    edges = _even_ranges(exon_start, parts)
    for g in prange(parts):
        for c in range(edges[g], edges[g + 1]):
            a, b = exon_start[c], exon_start[c + 1]
            fold_exon[fold_base[c]:fold_base[c + 1]] = FOLD_TASK
            strips_c = units_c = 0
            for k in range(a, b):
                strips_c += S[k]
                units_c += exon_move_units(n[c], last[k] - first[k] + 1, P, floors[c])
                if entry[c] and 0 < p[k] <= folds[c] and fold_exon[fold_base[c] + p[k] - 1] < 0:
                    fold_exon[fold_base[c] + p[k] - 1] = k
            written = folded = 0
            kept = -1  # the highest fold below q with a row (-1: the chain-start row)
            for q in range(folds[c]):
                f = fold_base[c] + q
                if fold_exon[f] >= 0:
                    written += 1
                    kept = q
                elif entry[c] and q == kept + 1:
                    fold_exon[f] = FOLD_SKIPPED  # its readers read fold q - 1 and two last rows
                else:
                    folded += 1
                    kept = q
            tasks[c] = strips_c + folded
            strips[c], units[c], entries[c] = strips_c, units_c, written * stride[c]
    return fold_base, fold_exon, _prefix(tasks), _prefix(strips), _prefix(units), _prefix(entries)


@njit(cache=True, nogil=True)
def _even_ranges(prefix, parts):  # pragma: no cover - compiled
    """(parts + 1,) bounds of ``parts`` runs of consecutive cases of about equal work, from the
    work's running sums ``prefix`` ((C+1,), from 0): run r starts at the first case whose
    prefix reaches r / parts of the total (empty runs where one case holds more)."""
    C = prefix.size - 1
    total = prefix[C]
    edges = np.empty(parts + 1, np.int64)
    c = 0
    for r in range(parts):
        goal = r * total // parts
        while c < C and prefix[c] < goal:
            c += 1
        edges[r] = c
    edges[parts] = C
    return edges


ORDER_RANGES_PER_THREAD = 4  # the parallel passes' ranges per planning thread (order_ranges)


@njit(cache=True, nogil=True)
def _bucket_walk(tc, T):  # pragma: no cover - compiled
    """(the bucket of the first position of a case of ``tc`` tasks (_interleave), T // (2 tc),
    the remainder of its division, and how a step to the next position moves them: the divisor,
    the whole and the remainder steps): the next bucket is b + step, plus one where the
    remainder reaches the divisor."""
    den = 2 * tc
    b = T // den
    return b, T - b * den, den, T // tc, 2 * (T % tc)


@njit(cache=True, parallel=True, nogil=True)
def _interleave(case_tasks, stride, parts, launch, row, at, sums, bound, lead_cases,
                span):  # pragma: no cover - compiled
    """The launch index of every slot (into ``launch``) and its row offset (into ``row``, none
    where ``stride`` is empty), each task a row of its case's ``stride`` in launch order; returns
    the tasks' rows. Cases interleaved by relative position (pos + 1/2) / tasks_in_case, i.e.
    bucket ((2 pos + 1) T) // (2 tc), in a stable counting sort on T buckets (two tasks of one
    case land in distinct buckets in their order, so every producer precedes its consumers;
    within a bucket, cases in order). In parallel over ``parts`` ranges of buckets (a few per
    thread, at most T): a case's slots in a range are one run of positions, so each range counts
    and places its own slots (and sums their rows), after the earlier ranges' (the serial
    counting sort was 1-2 ms a paper set, 4-6 ms a launch of 10 sets' third). Each slot's bucket
    (held in ``launch`` until its index replaces it) and each case's first position in every
    range (``bound``, (parts + 1, C)) are made first, in parallel over cases without a division a
    slot: the ranges then read them (each range and case found its run by divisions: a 10-set
    launch's 64 ranges (16 threads) took 11.1 ms of CPU against 8.9 now). ``at`` and ``sums``
    (slots' size, ``sums`` none without rows): work space. The first ``lead_cases`` cases (a fed
    launch's long chains: feed.py) are spread over the first ``span`` <= T buckets only: their
    tasks come earlier in the launch than their relative position."""
    C = case_tasks.size - 1
    T = case_tasks[C]
    rows = stride.size > 0
    edge = np.empty(parts + 1, np.int64)  # each range's first bucket
    for r in range(parts + 1):
        edge[r] = r * T // parts
    edges = _even_ranges(case_tasks, parts)  # runs of cases of about equal tasks
    for g in prange(parts):
        for c in range(edges[g], edges[g + 1]):
            a, tc, r = case_tasks[c], case_tasks[c + 1] - case_tasks[c], 0
            if tc:
                b, rem, den, step, more = _bucket_walk(tc, span if c < lead_cases else T)
                for pos in range(tc):
                    while edge[r] <= b:
                        bound[r, c] = pos
                        r += 1
                    launch[a + pos] = b
                    b, rem = b + step, rem + more
                    if rem >= den:
                        b, rem = b + 1, rem - den
            for rest in range(r, parts + 1):
                bound[rest, c] = tc
    # at: per bucket its slots, then where its next slot goes in its range; sums: likewise its rows
    total = np.zeros(parts + 1, np.int64)  # slots of each range, then of the ranges before it
    rtotal = np.zeros(parts + 1, np.int64)  # likewise rows
    for r in prange(parts):
        v0, v1 = edge[r], edge[r + 1]
        at[v0:v1] = 0
        if rows:
            sums[v0:v1] = 0
        for c in range(C):
            for i in range(case_tasks[c] + bound[r, c], case_tasks[c] + bound[r + 1, c]):
                at[launch[i]] += 1
                if rows:
                    sums[launch[i]] += stride[c]
        run = rrun = 0
        for v in range(v0, v1):
            run, at[v] = run + at[v], run
            if rows:
                rrun, sums[v] = rrun + sums[v], rrun
        total[r + 1], rtotal[r + 1] = run, rrun
    for r in range(parts):
        total[r + 1] += total[r]
        rtotal[r + 1] += rtotal[r]
    for r in prange(parts):
        for c in range(C):
            for i in range(case_tasks[c] + bound[r, c], case_tasks[c] + bound[r + 1, c]):
                b = launch[i]
                launch[i] = total[r] + at[b]
                at[b] += 1
                if rows:
                    row[i] = rtotal[r] + sums[b]
                    sums[b] += stride[c]
    return rtotal[parts]


def order_ranges(tasks: int) -> int:
    """The parallel passes' ranges for ``tasks`` items (_interleave's of buckets, the runs of
    cases of about equal work of the others, _even_ranges): ORDER_RANGES_PER_THREAD a planning
    thread, at most one an item."""
    return max(1, min(tasks, ORDER_RANGES_PER_THREAD * get_num_threads()))


@njit(cache=True, nogil=True)
def _launch_order(case_tasks, parts, lead_cases, span):  # pragma: no cover - compiled
    """The launch index of every slot (_interleave; ``parts``: ranges of buckets, clipped to
    1..T; the first ``lead_cases`` cases over ``span`` buckets)."""
    T, none = case_tasks[-1], np.zeros(0, np.int64)
    parts = max(1, min(T, parts))
    launch = np.empty(T, np.int64)
    _interleave(case_tasks, none, parts, launch, none, np.empty(T, np.int64), none,
                np.empty((parts + 1, case_tasks.size - 1), np.int64), lead_cases, span)
    return launch


@njit(cache=True, parallel=True, nogil=True)
def _in_slot_order(case_tasks, stride, launch, row):  # pragma: no cover - compiled
    """_interleave's for the tasks in slot order."""
    C = case_tasks.size - 1
    before = np.empty(C, np.int64)
    for c in prange(C):
        before[c] = (case_tasks[c + 1] - case_tasks[c]) * stride[c]
    start = _prefix(before)
    for c in prange(C):
        for i in range(case_tasks[c], case_tasks[c + 1]):
            launch[i] = i
            row[i] = start[c] + (i - case_tasks[c]) * stride[c]
    return start[C]


# fold_exon's marks (_case_counts) of a fold no exon's first strip writes: a task, or no row at all.
FOLD_TASK, FOLD_SKIPPED = -1, -2


@njit(cache=True, nogil=True, inline="always")
def _fold_inputs(tasks, t, q, fold_exon, fold_row, fb, last_row, by_last, a):  # pragma: no cover - compiled
    """Task t's inputs for fold q of the case whose folds start at fold_exon[fb] (its exons from
    ``a``): the highest fold below q with a row (``in``: none for -1, the chain-start row) and
    the last rows of the exons by last after it up to the q-th (``in2``, and ``in3`` where fold
    q - 1 has none); q = -1 (an exon with p_k = 0): none at all."""
    below = q - 1 if q <= 0 or fold_exon[fb + q - 1] != FOLD_SKIPPED else q - 2
    tasks[t, F_IN_ROW] = fold_row[fb + below] if below >= 0 else NONE
    tasks[t, F_IN2_ROW] = last_row[by_last[a + below + 1]] if q >= 0 else NONE
    tasks[t, F_IN3_ROW] = last_row[by_last[a + q]] if below == q - 2 else NONE


@njit(cache=True, parallel=True, nogil=True)
def _write_tasks(tasks, exon_start, first, last, n, tgt_off, exon_base, P, floors, late, by_last, p, S, folds,
                 fold_base, fold_exon, case_tasks, case_strips, case_units, entry_rows, stride, launch, row, rows0,
                 moves0, parts):  # pragma: no cover - compiled
    """The task records in launch order into ``tasks`` (TASK_FIELDS; inputs as in the module
    doc); (each exon's last-row offset, every strip's launch index, each exon's first strip), rows from ``rows0``
    and moves from ``moves0``. In parallel over ``parts`` runs of cases of about equal tasks
    (_even_ranges; prange over cases gave each thread as many cases, whatever their tasks: a
    10-set launch's 16 runs held up to 1.3-1.6x their mean), each case's slots in its topological order
    (before exon k: the folds that are tasks q < p_k, ``late`` cases q < p_k - 1, then its
    strips): an input's row is known when its reader's slot comes (a fold's row, or a strip's
    last row, of an exon earlier in (first, last) order)."""
    C = exon_start.size - 1
    E = first.size
    widest = P // WARP
    last_row = np.empty(E, np.int64)
    strip_task = np.empty(case_strips[C], np.int64)
    strip_base = np.empty(E + 1, np.int64)
    strip_base[E] = case_strips[C]
    fold_row = np.empty(fold_base[C], np.int64)
    edges = _even_ranges(case_tasks, parts)
    for r in prange(parts):
        for c in range(edges[r], edges[r + 1]):
            a, b, fb = exon_start[c], exon_start[c + 1], fold_base[c]
            at = rows0 + entry_rows[c]  # the entry folds' rows
            for f in range(fb, fb + folds[c]):
                if fold_exon[f] >= 0:
                    fold_row[f] = at
                    at += stride[c]
            slot, i, moves = case_tasks[c], case_strips[c], moves0 + case_units[c]
            q = 0
            for k in range(a, b):
                while q < min(p[k] - late[c], folds[c]):
                    if fold_exon[fb + q] == FOLD_TASK:
                        t = launch[slot]
                        fold_row[fb + q] = rows0 + row[slot]
                        tasks[t, F_KIND] = KIND_FOLD
                        tasks[t, F_N] = n[c]
                        tasks[t, F_TGT] = tasks[t, F_BASE] = tasks[t, F_ROWS] = tasks[t, F_LANE_ROWS] = 0
                        tasks[t, F_MOVES] = 0
                        _fold_inputs(tasks, t, q, fold_exon, fold_row, fb, last_row, by_last, a)
                        tasks[t, F_OUT_ROW] = rows0 + row[slot]
                        tasks[t, F_ENTRY_ROW] = NONE
                        slot += 1
                    q += 1
                head = last[k] - first[k] + 1 - (S[k] - 1) * P
                strip_base[k] = i
                for s in range(S[k]):
                    t = launch[slot]
                    rows = head if s == 0 else P
                    entry_row = NONE
                    if s > 0:  # the strip above
                        tasks[t, F_IN_ROW] = rows0 + row[slot - 1]
                        tasks[t, F_IN2_ROW] = tasks[t, F_IN3_ROW] = NONE
                    else:  # fold p_k - 1's inputs (none for p_k = 0: the chain-start row)
                        _fold_inputs(tasks, t, p[k] - 1, fold_exon, fold_row, fb, last_row, by_last, a)
                        if 0 < p[k] <= folds[c] and fold_exon[fb + p[k] - 1] == k:
                            entry_row = fold_row[fb + p[k] - 1]
                    lane_rows = strip_lane_rows(rows, floors[c], widest)
                    tasks[t, F_KIND] = KIND_STRIP
                    tasks[t, F_N] = n[c]
                    tasks[t, F_TGT] = tgt_off[c]
                    tasks[t, F_BASE] = exon_base[k] + (0 if s == 0 else head + (s - 1) * P)
                    tasks[t, F_ROWS] = rows
                    tasks[t, F_LANE_ROWS] = lane_rows
                    tasks[t, F_OUT_ROW] = rows0 + row[slot]
                    tasks[t, F_MOVES] = moves
                    tasks[t, F_ENTRY_ROW] = entry_row
                    moves += strip_move_units(n[c], rows, lane_rows)
                    strip_task[i] = t
                    i += 1
                    slot += 1
                last_row[k] = rows0 + row[slot - 1]
    return last_row, strip_task, strip_base


def build_plan(cases: Sequence[TestCase] | FlatCases, rows_per_lane: int, lane_rows_floor=None, late_folds=None,
               entry_folds=True) -> Plan:
    """The plan of one launch whose strips hold up to 32 * rows_per_lane rows; a strip runs with
    the least power of two >= its case's floor (``lane_rows_floor``: one for all cases or one
    per case; default MIN_LANE_ROWS) rows per lane that fits; ``late_folds`` (per case, default
    none) places a case's folds as late as the strips that read them allow (Tuning.late_folds);
    ``entry_folds`` (one for all cases or one per case) lets exons' first strips write the
    folds their entry rows equal (else every fold is a task; see the function of that name)."""
    flat = FlatCases.of(cases)
    got = plan_tasks(flat, rows_per_lane, lane_rows_floor, late_folds, entry_folds)
    return Plan(got.tasks, got.base_letters, got.target_letters, got.target_size, got.rows_size, flat.exon_start,
                got.last_row, flat.n, input_index(flat), flat.cells, got.tgt_off, got.strip_task,
                got.strip_start, got.moves_units * MOVE_UNIT, got.by_last, got.p, flat)


def input_index(flat: FlatCases, order: np.ndarray | None = None) -> np.ndarray:
    """(E,) each exon's batch-wide index in its case's input order (Plan.input_index); ``order``:
    flat.order where the caller has it already (feed.Feeder.input_index)."""
    return (flat.order if order is None else order) + np.repeat(flat.exon_start[:-1], flat.K)


@njit(cache=True, parallel=True, nogil=True)
def finals_at(exon_start, n, last_row, input_index, at):  # pragma: no cover - compiled
    """The finals' gather's sources of a batch's exons (solver._finals_at), in parallel over
    cases: each exon's final score's row element, last_row + n, written into ``at`` (E,) at its
    input index (its places 0..E and lengths 1 are the solver's, kept on the device)."""
    for c in prange(n.size):
        for k in range(exon_start[c], exon_start[c + 1]):
            at[input_index[k]] = last_row[k] + n[c]


@njit(cache=True, parallel=True, nogil=True)
def last_row_places(exon_start, n):  # pragma: no cover - compiled
    """The last rows' gather's places (solver._last_row_gather; its sources are last_row), in
    parallel over cases: (dst: where each exon's last row (n + 1 elements) lands, rows after
    each other, then their total; length: n + 1 a row)."""
    C = n.size
    E = exon_start[C]
    dst = np.empty(E + 1, np.int64)
    case_dst = np.empty(C + 1, np.int64)
    case_dst[0] = 0
    for c in range(C):
        case_dst[c + 1] = case_dst[c] + (exon_start[c + 1] - exon_start[c]) * (n[c] + 1)
    dst[E] = case_dst[C]
    length = np.empty(E, np.int32)
    for c in prange(C):
        a, width = exon_start[c], n[c] + 1
        for k in range(a, exon_start[c + 1]):
            dst[k] = case_dst[c] + (k - a) * width
            length[k] = width
    return dst, length


class Tasks(NamedTuple):
    """``plan_tasks``: what a plan holds of its batch's tasks and letters."""
    tasks: np.ndarray           # (T, NFIELDS) int32
    base_letters: np.ndarray    # as Plan's (the codes are Plan.base)
    target_letters: np.ndarray  # as Plan's
    target_size: int            # selectors, from 0 (the ``at`` offset's included)
    rows_size: int              # row elements, likewise
    last_row: np.ndarray        # (E,)
    tgt_off: np.ndarray         # (C,)
    strip_task: np.ndarray      # task index of every strip
    strip_start: np.ndarray     # (E+1,)
    moves_units: int            # MOVE_UNIT words of moves, likewise
    by_last: np.ndarray         # (E,) by_last of the batch (exon indices from 0)
    p: np.ndarray               # (E,)
    case_tasks: np.ndarray      # (C+1,) each case's first slot (case-major topological order)


# Work arrays of plan_tasks' passes kept from one plan to the next (the passes run under
# flat.PARALLEL, so one set serves every thread): a launch's slots' four int64 arrays, fresh
# memory each plan, were ~3,500 page faults a 10-set launch (4 ms of its planning on one core).
_KEPT: dict[str, np.ndarray] = {}


def _scratch(name: str, shape: tuple[int, int]) -> np.ndarray:
    """A C-contiguous int64 work array of ``shape`` from the kept one of that name (grown as
    needed: a quarter more than asked, so that a bigger launch after does not grow it again)."""
    size = shape[0] * shape[1]
    kept = _KEPT.get(name)
    if kept is None or kept.size < size:
        kept = _KEPT[name] = np.empty(size + size // 4, np.int64)
    return kept[:size].reshape(shape)


def plan_tasks(flat: FlatCases, rows_per_lane: int, lane_rows_floor=None, late_folds=None, entry_folds=True,
               interleave: bool = True, at: tuple[int, int, int, int] = (0, 0, 0, 0)) -> Tasks:
    """build_plan's passes. ``interleave`` False: the tasks in slot order (each case's in its
    topological order, case after case; what feed.py interleaves itself) instead of launch
    order, rows laid out in that order. ``at``: where the batch's rows, base letters, selectors
    and moves start in storage the batch shares with others (feed.py; tgt_off, last_row,
    target_size, rows_size and moves_units count from 0)."""
    C = len(flat)
    floors = np.broadcast_to(np.asarray(MIN_LANE_ROWS if lane_rows_floor is None else lane_rows_floor,
                                        dtype=np.int64), (C,)).copy()
    assert ((floors >= MIN_LANE_ROWS) | (floors >= rows_per_lane)).all(), "the kernel has no sweep for fewer rows"
    late = np.zeros(C, np.int64) if late_folds is None else np.asarray(late_folds, dtype=np.int64)
    entry = np.broadcast_to(np.asarray(entry_folds, dtype=np.int64), (C,)).copy()
    rows0, base0, tgt0, moves0 = at
    leader = _leaders(flat.source, flat.base_index)
    base, exon_base, target, tgt_off, target_size = _pack_sequences(flat, leader)
    exon_base += base0
    tgt_off += tgt0
    P = WARP * rows_per_lane
    start, first, last, n = flat.exon_start, flat.first, flat.last, flat.n
    stride = round_up(n + 1)
    with PARALLEL:
        parts = order_ranges(len(first))
        by_last, p, S, folds = _exon_order(start, first, last, P, leader, parts)
        fold_base, fold_exon, case_tasks, case_strips, case_units, entries = _case_counts(
            start, first, last, n, p, S, folds, entry, floors, stride, P, parts)
        T = int(case_tasks[-1])
        launch, row, bucket_at, bucket_rows = _scratch("slots", (4, T))
        if interleave:
            parts = order_ranges(T)
            task_rows = _interleave(case_tasks, stride, parts, launch, row, bucket_at, bucket_rows,
                                    _scratch("bounds", (parts + 1, C)), 0, T)
        else:
            task_rows = _in_slot_order(case_tasks, stride, launch, row)
        tasks = np.empty((T, NFIELDS), np.int32)  # NumPy's: huge pages where the kernel has them (fewer faults)
        last_row, strip_task, strip_base = _write_tasks(
            tasks, start, first, last, n, tgt_off, exon_base, P, floors, late, by_last, p, S, folds, fold_base,
            fold_exon, case_tasks, case_strips, case_units, entries + task_rows, stride, launch, row, rows0, moves0,
            order_ranges(T))
    rows_size = task_rows + int(entries[-1])
    move_units = moves0 + int(case_units[-1])
    _check_offsets(rows0 + rows_size, base0 + base.size, tgt0 + target_size, move_units)
    return Tasks(tasks, base, target, tgt0 + target_size, int(rows0 + rows_size), last_row, tgt_off, strip_task,
                 strip_base, int(move_units), by_last, p, case_tasks)


class Followed(NamedTuple):
    """A recording launch whose longest chains a follower records (followed_tasks)."""
    cases: tuple[int, ...]  # the followed cases (indices in the plan's batch)
    tasks: Any              # the recording launch's tasks: those cases' strips record no moves
    follow: Any             # the follower's tasks: those strips, in launch order
    walked: Any             # the tasks the walks read (lane rows and moves of every strip)
    moves_size: int         # uint32 words of move storage, the follower's included
    ids: Any = None         # the followed strips' launch indices, in launch order (host)


def followed_tasks(plan: Plan, cases: Sequence[int], least: int, start: int | None = None) -> Followed:
    """The tasks when a follower records the moves of the strips of ``cases`` (indices in the
    plan's batch): the launch's copy marks those strips' moves NONE (it computes them as score
    strips at the launch's rows per lane, at score speed on their chains); the follower lists
    them in launch order (a subsequence of a dependency-consistent order), each at the fewest
    rows per lane that fit it, down to ``least`` (the kernel's sweeps): it reads their rows
    instead of handing them on, so a narrower strip costs it cheaper steps, not a longer chain;
    their moves go to regions after the plan's (or from ``start``, in MOVE_UNIT words: a launch
    whose walks recompute the others' moves stores none of the plan's). The walks read the strips'
    lane rows and moves from the third copy. With ``start`` there are no copies (``tasks`` and
    ``walked`` None): that launch's score kernel and its walks read the plan's tasks and the
    follower's (the two copies, the paper set's 3.8 MB each, were ~1 of the 1.1-1.4 ms of its
    followed tasks on the development host, before its kernel)."""
    with PARALLEL:
        follow, ids, end = _follower(plan.tasks, plan.exon_start, plan.strip_start, plan.strip_task,
                                     np.asarray(cases, dtype=np.int64), least,
                                     plan.moves_size // MOVE_UNIT if start is None else start)
    _check_offsets(end)
    if start is not None:
        return Followed(tuple(cases), None, follow, None, int(end) * MOVE_UNIT, ids)
    with PARALLEL:
        tasks, walked = _followed_copies(plan.tasks, ids, follow)
    return Followed(tuple(cases), tasks, follow, walked, int(end) * MOVE_UNIT, ids)


@njit(cache=True, parallel=True, nogil=True)
def _follower(tasks, exon_start, strip_start, strip_task, cases, least, start):  # pragma: no cover - compiled
    """followed_tasks' follower records in one pass over a plan's: (the strips of ``cases`` in
    launch order, each with its lane rows and move offset (theirs after ``start``, in MOVE_UNIT
    words), their launch indices, the end of their moves). The strips marked in parallel, then
    their lane rows and move offsets in launch order."""
    T = tasks.shape[0]
    mark = np.zeros(T, np.bool_)
    for i in prange(cases.size):
        c = cases[i]
        for s in range(strip_start[exon_start[c]], strip_start[exon_start[c + 1]]):
            mark[strip_task[s]] = True
    count = 0
    for t in range(T):
        count += mark[t]
    ids, follow = np.empty(count, np.int64), np.empty((count, NFIELDS), tasks.dtype)
    k, end = 0, start
    for t in range(T):
        if mark[t]:
            rows = tasks[t, F_ROWS]
            ids[k] = t
            follow[k] = tasks[t]
            follow[k, F_LANE_ROWS] = strip_lane_rows(rows, least, tasks[t, F_LANE_ROWS])
            follow[k, F_MOVES] = end
            end += strip_move_units(tasks[t, F_N], rows, follow[k, F_LANE_ROWS])
            k += 1
    return follow, ids, end


@njit(cache=True, parallel=True, nogil=True)
def _followed_copies(tasks, ids, follow):  # pragma: no cover - compiled
    """followed_tasks' copies of a plan's tasks in one pass (two fresh copies, the paper set's
    4 MB each, were most of its 5.5-6.4 ms on the device host): (the launch's, the followed
    strips ``ids`` with moves NONE; the walks', those strips with the ``follow`` records' lane
    rows and moves). Every record copied, then theirs changed."""
    T = tasks.shape[0]
    out, walked = np.empty_like(tasks), np.empty_like(tasks)
    for t in prange(T):
        for f in range(NFIELDS):
            out[t, f] = walked[t, f] = tasks[t, f]
    for i in prange(ids.size):
        t = ids[i]
        out[t, F_MOVES] = NONE
        walked[t, F_LANE_ROWS] = follow[i, F_LANE_ROWS]
        walked[t, F_MOVES] = follow[i, F_MOVES]
    return out, walked


def longest_paths(cases: Sequence[TestCase] | FlatCases) -> np.ndarray:
    """Each case's longest possible traceback path (FlatCases.longest_paths)."""
    return FlatCases.of(cases).longest_paths()


@dataclass(frozen=True)
class TraceInputs:
    """What trace_chains reads besides the row storage, the tasks and the moves."""
    exons: np.ndarray      # (E, len(TRACE_EXON_FIELDS)) int32
    cases: np.ndarray      # (C, len(TRACE_CASE_FIELDS)) int64, in `order`
    strips: np.ndarray     # int32: plan.strip_task
    ops_size: int          # bytes of op regions
    order: np.ndarray      # (C,) the batch's case index of each row of `cases`
    bounds: tuple          # rows of `cases` where each walk starts, then C
    records: np.ndarray    # (E, 3) int64: backtrack.exon_records of the batch

    def ops_end(self) -> np.ndarray:
        """(C,) the end of each row's op region."""
        return self.cases[:, TRACE_CASE_FIELDS.index("ops")]

    def exon0(self) -> np.ndarray:
        """(C,) each row's first exon."""
        return self.cases[:, TRACE_CASE_FIELDS.index("exon0")]


def trace_inputs(plan: Plan, cases: Sequence[TestCase] | None = None,
                 walks: Sequence[Sequence[int]] = (), scratch: np.ndarray | None = None,
                 follow: Followed | None = None) -> TraceInputs:
    """Per exon and per case records of the device traceback of the plan's batch (``cases``,
    if given, must be it). ``walks`` (batch indices, a partition of the batch; default: one
    walk of all cases in batch order) are the trace launches in order: each takes the table's
    next rows and the next op regions, so that the host can turn one walk's output into records
    while the GPU walks the next. ``scratch``: each case's scratch region where its walk recomputes
    moves (scratch_layout), default none (every strip's moves recorded). ``follow``: the followed
    cases' strips are read from the follower's tasks (Followed.follow, their walk's tasks: the
    strips by rank in Followed.ids), the others' from the plan's (a launch whose walks recompute:
    no third copy of its tasks)."""
    flat = plan.flat
    assert cases is None or len(cases) == len(flat), "trace_inputs of another batch"
    records = flat.records()
    with PARALLEL:
        exons = _trace_exons(flat.first, flat.last, plan.tasks, plan.strip_task, plan.strip_start, plan.last_row,
                             plan.p, plan.by_last)
    heads = plan.exon_start[:-1]
    C = len(flat)
    walks = [list(w) for w in walks] or [list(range(C))]
    order = np.concatenate(walks).astype(np.int64)
    assert np.array_equal(np.sort(order), np.arange(C)), "walks must partition the batch"
    at = np.full(C, NONE, dtype=np.int64) if scratch is None else scratch
    table = np.stack([heads, plan.exon_start[1:], plan.n, plan.tgt_off, np.zeros_like(plan.n), at], axis=1)[order]
    ops = flat.longest_paths()
    table[:, TRACE_CASE_FIELDS.index("ops")] = np.cumsum(ops[order])
    bounds = tuple(np.cumsum([0] + [len(w) for w in walks]).tolist())
    strips = plan.strip_task.astype(np.int32)
    if follow is not None:
        for c in follow.cases:
            lo, hi = plan.strip_start[plan.exon_start[c]], plan.strip_start[plan.exon_start[c + 1]]
            strips[lo:hi] = np.searchsorted(follow.ids, plan.strip_task[lo:hi])
    return TraceInputs(exons, table.astype(np.int64), strips, int(ops.sum()), order, bounds, records)


(TE_FIRST, TE_LAST, TE_BASE, TE_ROW, TE_IN, TE_IN2, TE_IN3, TE_STRIP0, TE_STRIPS, TE_P, TE_BY_LAST, TE_BY_LAST_LAST,
 TE_BY_LAST_ROW) = range(len(TRACE_EXON_FIELDS))


@njit(cache=True, parallel=True, nogil=True)
def _trace_exons(first, last, tasks, strip_task, strip_start, last_row, p, by_last):  # pragma: no cover - compiled
    """The per-exon table of trace_chains (TRACE_EXON_FIELDS), int32."""
    out = np.empty((first.size, len(TRACE_EXON_FIELDS)), np.int32)
    for k in prange(first.size):
        t = strip_task[strip_start[k]]  # the exon's first strip
        b = by_last[k]
        out[k, TE_FIRST], out[k, TE_LAST] = first[k], last[k]
        out[k, TE_BASE], out[k, TE_ROW] = tasks[t, F_BASE], last_row[k]
        out[k, TE_IN], out[k, TE_IN2], out[k, TE_IN3] = tasks[t, F_IN_ROW], tasks[t, F_IN2_ROW], tasks[t, F_IN3_ROW]
        out[k, TE_STRIP0], out[k, TE_STRIPS], out[k, TE_P] = strip_start[k], strip_start[k + 1] - strip_start[k], p[k]
        out[k, TE_BY_LAST], out[k, TE_BY_LAST_LAST], out[k, TE_BY_LAST_ROW] = b, last[b], last_row[b]
    return out
