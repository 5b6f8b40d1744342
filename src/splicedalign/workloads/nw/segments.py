"""A segmented, certified exact alignment of one similar pair (linear and gap-affine costs, global
and prefix modes): a's rows cut into pieces, each piece aligned in infix mode against a window of b around
a band, the pieces' optima summed into a lower bound and their paths joined into an upper bound.
Where both meet the answer is exact; where they do not, pieces are merged, the band widened or
the caller runs another exact algorithm. Many short independent alignments replace one long
chain of score steps (the GPU: one block a piece, ``gpu/wfa.py``'s ``WfaSolver.solve_pieces``).

Notation: an n x m pair, d = m - n; a band of diagonals lo..hi (``band.band_for``: global
min(0, d) - w .. max(0, d) + w, prefix min(0, d) - w .. w); cuts 0 = r_0 < r_1 < ... < r_P = n;
piece k is a[r_k:r_{k+1}] against the window b[c0_k:c1_k], c0_k = max(0, r_k + lo), c1_k =
min(m, r_{k+1} + hi). Its infix optimum L_k (all of the piece, any start column of the window
in its first row, any end column in its last) comes with a path from (r_k, s_k) to (r_{k+1},
t_k) in the pair's coordinates. Costs are the WFA's (match 0, mismatch and gap extend e > 0, gap
open o >= 0; a gap of L letters costs o + L e): every step costs >= 0. With o > 0 each piece is
aligned with infix mode's gap start (``wfa.wfa_align(..., gap_start=True)``): it may start on its
first row inside a gap of a's letters (a leading D run costs L e, no o).

Lower bound. Every global (prefix) path visits every row, so it has a last cell in each row r_k.
Split it there: segment k runs from its last cell in row r_k (segment 0 from (0, 0)) to its
last cell in row r_{k+1} (the last segment: the path's end). The step out of a row's last cell
goes down, so segment k holds every letter of a[r_k:r_{k+1}] and consumes b from its first
cell's column to its last's: it is an infix alignment of piece k against b, with the same
steps. Its cost within the path (each gap's o counted where the path opens it) is the piece's
cost of those steps: with linear costs step by step; with o > 0 the one gap that may cross row
r_k is a gap of a's letters (D: a horizontal gap cannot, the step out of the row's last cell
going down), which the segment continues at e a letter, as the piece's gap start does (a D run
opened at the segment's first step pays o + e in both). If the path lies inside the band, its
cells of rows r_k .. r_{k+1} lie in columns r_k + lo .. r_{k+1} + hi (and 0 .. m): inside the
window, so segment k costs >= L_k, and the path >= sum L_k. A path touching a diagonal outside
the band costs >= the band's escape bound E (``band.escape_between``). So the optimum >=
min(sum L_k, E).

Upper bound and certificate. If s_0 = 0, t_k = s_{k+1} at every seam and (global mode) t_{P-1}
= m, the pieces' paths join into one alignment of the pair in the mode (from (0, 0); each piece
ends where the next starts; to (n, m), or anywhere in row n for prefix). Its cost is U = sum
L_k where, with o > 0, no piece k + 1 starts in a D run its piece k does not end in (there the
joined path opens a gap the piece did not pay for; where both are D runs they join into one, its
o paid once, by piece k); so the optimum <= U. With U <= E (or no cell outside the band: E =
None) the lower bound is min(U, E) = U: U is the optimum and the joined path an optimal
alignment. A seam where piece k + 1 starts in an unpaid D run counts as disagreeing (below); piece
0 starting in one (the pair's path starts at (0, 0) in M: its first gap pays o) is not certified.

Merges. A seam disagrees (t_k != s_{k+1}) where an indel lies near the cut (a piece's free start
or end skips the letters of b it would pay for: then sum L_k is below the optimum) or a tie is
broken differently on the two sides. The argument above holds for any cuts, each piece's window
taken by the same formula, so the cuts may change between rounds: a disagreeing seam's cut is
removed (pieces k and k + 1 merged, solved again), every piece whose two cuts stay keeps its
answer, and the certificate is checked on the new cuts. After ``ROUNDS`` rounds (or at once where s_0 !=
0, piece 0 starts in a D run, or t_{P-1} != m in global mode) the caller runs another exact
algorithm. (Merging pieces 0 and 1, or the last two, can move those ends too where a tie is broken
otherwise: of 1,529 tiny random pairs whose first piece did not start at (0, 0), 130 did once merged
with the second. Not tried: where the optimum starts with an insertion, piece 0 however long skips
its letters for free, and those rounds would be spent for nothing.)
With ``speculate`` the first round also solves every two neighbouring pieces as one: a disagreeing
seam's merged piece is then known already (the same two cuts, the same window), and the next check
needs no solve where no two neighbouring seams disagree.
(Splitting the cut in two, halfway into the pieces on either side, keeps the next round's pieces
short but leaves two new seams that disagree as often: at 5% and 10% divergence a third round,
slower than the merged pieces' longer chain in the second.)

Widening. If the pieces' sum L_k exceeds E, nothing is certified at this band (the optimum is
>= E, perhaps outside); the band is widened once to ``band.width_needed(sum L_k)`` (escape then
>= that sum >= the wider band's sum, since every window grows) and every piece solved again.

Infix mode has no band around a known diagonal (its start is free): not segmented.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from splicedalign.core.arraycopy import copy_into
from splicedalign.workloads.nw import wfa
from splicedalign.workloads.nw.cigar import pieces_cigar
from splicedalign.workloads.nw.gpu import band as bands
from splicedalign.workloads.nw.records import OP_DEL, Costs, Pair

# rows of a piece (about: n cut into round(n / ROWS) equal pieces; H100, 10^5 at 1% / 5% and 30,368 at 10%:
# 384 rows 0.75 / 1.46 / 1.19 ms host to host, 512 rows 0.85 / 2.0 / 1.4, 768 rows 0.86 / 1.71 / 1.69)
ROWS = 384
ROUNDS = 4  # rounds of merges before giving up
# a piece's scores at most (its solver gives up past them): PIECE_SLACK times its share of the pair's
# expected score, plus PIECE_STEPS (a piece of ~770 rows at 1% holds ~8 differences, a Poisson count)
PIECE_SLACK, PIECE_STEPS = 4.0, 32
# the kept wavefronts' room (the GPU's pool, shared by a round's pieces): POOL_SLACK times a piece's share of
# the expected score, plus POOL_STEPS, on average (10^6 1%: 2,600 pieces, each window ~7,400 columns)
POOL_SLACK, POOL_STEPS = 2.0, 8
WIDENINGS = 1  # band widenings before giving up
MODES = ("global", "prefix")
ALGORITHM = "segments"


@dataclass
class Pieces:
    """Answers of some pieces (arrays over them): scores (-1 where the solver gave up), start and end
    columns of b (the pair's coordinates), and each piece's path as runs (length << 2 | op, its last
    run first: the GPU walk's form, ``cigar.runs_cigar``'s input): runs[first[k]:first[k] + used[k]]."""

    score: np.ndarray
    start: np.ndarray
    end: np.ndarray
    runs: np.ndarray
    first: np.ndarray
    used: np.ndarray


# solve(r0, r1, c0, c1): pieces a[r0[k]:r1[k]] against b[c0[k]:c1[k]] in infix mode
SolvePieces = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], Pieces]


class Segmented(NamedTuple):
    """A certified answer: the optimal score, its end column, the pieces' runs one after another (last
    piece first: an optimal alignment's runs, ``runs``; none, each piece's ``used`` 0, where a device's check
    was asked for the score only: ``WfaSolver.checked``), and the rounds it took (a NamedTuple: ~0.2 us to make on
    the 2-core development host, the frozen dataclass ~0.55, after a certified round's wait)."""

    score: int
    end2: int
    solve_runs: list[np.ndarray]  # each solve's runs
    solve: np.ndarray  # each final piece's solve (its runs: solve_runs[solve]), in piece order
    first: np.ndarray  # each final piece's first run there
    used: np.ndarray
    rounds: int  # checks of the seams (the first included; a round whose pieces were solved before solves none)

    def runs(self) -> np.ndarray:
        """The alignment's runs, its last first (the pieces' runs, the last piece's first)."""
        out = np.empty(int(self.used.sum()), np.uint32)
        for k, runs in enumerate(self.solve_runs):
            gather_runs(out, runs, self.solve, k, self.first, self.used)
        return out

    def cigar(self) -> str:
        """The alignment's CIGAR (``cigar.runs_cigar`` of ``runs``): where one solve holds every final piece (a round
        certified at once: 10^5 1%), read from its runs in place, one compiled pass (H100 host, ~3,000 runs: the
        gather's copy and call were ~6 of the text's ~20 us on the development host), else from the gathered runs."""
        if len(self.solve_runs) == 1:
            return pieces_cigar(self.solve_runs[0], self.first, self.used)
        runs = self.runs()  # (piece k's runs at the used of the pieces after it)
        return pieces_cigar(runs, int(self.used.sum()) - np.cumsum(self.used), self.used)


@dataclass
class Trace:
    """What a segmented solve did (also when it gave up): for the stats and the docs."""

    rounds: int = 0  # rounds of pieces solved (launches)
    merges: int = 0  # disagreeing seams merged
    widened: int = 0
    solved: int = 0  # pieces solved, all rounds
    why: str = ""  # why it gave up ("": it did not)


@njit(cache=True, nogil=True)
def piece_caps(rate: float, rows: int, g: int) -> tuple[int, int]:
    """(a piece's score cap in steps, the kept wavefronts' room in steps a piece) of a round whose
    longest piece has ``rows`` rows, on a pair whose cost a row is about ``rate`` (``g``: the reduced
    costs' factor; PIECE_SLACK and POOL_SLACK)."""
    return (int(PIECE_SLACK * rate * rows / g) + PIECE_STEPS, int(POOL_SLACK * rate * rows / g) + POOL_STEPS)


def applies(costs: Costs, mode: str) -> bool:
    """Costs the WFA takes (``wfa.applicable``), global or prefix mode."""
    return mode in MODES and wfa.applicable(costs)


def limits(n: int, m: int, mode: str, width: int) -> tuple[int, int]:
    """The band's diagonals lo, hi (``band.band_for``)."""
    band = bands.band_for(n, m, mode, width)
    return band.lo, band.hi


@njit(cache=True, nogil=True)
def piece_count(n: int, rows: int = ROWS) -> int:
    """The pieces of ``first_cuts``: round(n / rows), at least one, at most n."""
    return max(1, min(n, round(n / rows)))


@njit(cache=True, nogil=True)
def first_cuts(n: int, rows: int = ROWS) -> np.ndarray:
    """0 = r_0 < ... < r_P = n: ``piece_count`` pieces of equal rows, to one."""
    count = piece_count(n, rows)
    return (np.arange(count + 1, dtype=np.int64) * n) // count


@njit(cache=True, nogil=True)
def first_asks(n: int, m: int, lo: int, hi: int, rows: int = ROWS,
               speculate: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(cuts, r0, r1, c0, c1): the first cuts and the pieces ``segmented``'s first round asks for at the band
    lo..hi (``asks``: every piece of the first cuts, then with ``speculate`` every two neighbours as one), in one
    compiled call (a guessed round's plan: 10^5 1%, ~12 us of numpy and dispatch before on a loaded host, ~5)."""
    cuts = first_cuts(n, rows)
    r0, r1, c0, c1 = asks(cuts, np.arange(cuts.size - 1), speculate, lo, hi, m)
    return cuts, r0, r1, c0, c1


@njit(cache=True, nogil=True)
def first_shape(n: int, m: int, lo: int, hi: int, rows: int = ROWS,
                speculate: bool = False) -> tuple[int, int, int, int, int]:
    """``first_asks``' pieces by their sizes alone, for a device that makes their descriptors itself (gpu/wfa.py's
    ``queue_round``; wfa.cu's first_piece, the same pieces): (the first cuts' pieces, the asks, the most rows of
    an ask, its widest window, the asks' rows + columns + 1 summed)."""
    count = piece_count(n, rows)
    merged = speculate and count > 1
    asked = count + (count - 1 if merged else 0)
    longest = widest = diagonals = 0
    # the cuts k n // count one after another without a division: k q + (k r) // count, the remainder carried
    # (two divisions an ask took ~2 of this call's ~3 us at 10^5, on a guessed round's path to its launch)
    step, extra = n // count, n % count
    before, cut, carried = 0, 0, 0  # cuts k - 1 and k, (k r) % count
    for k in range(count):
        after = cut + step
        carried += extra
        if carried >= count:
            carried -= count
            after += 1
        for j in range(2 if merged and k > 0 else 1):  # piece k, then pieces k - 1 and k as one
            r0 = cut if j == 0 else before
            c0, c1 = windows(r0, after, lo, hi, m)
            longest, widest = max(longest, after - r0), max(widest, c1 - c0)
            diagonals += after - r0 + c1 - c0 + 1
        before, cut = cut, after
    return count, asked, longest, widest, diagonals


@njit(cache=True, nogil=True)
def _first_round(o, e, floor, mode, n, m, width, rows, speculate, rate, g):
    lo, hi, bound = bands.limits_escape(o, e, floor, mode, n, m, width)
    shape = first_shape(n, m, lo, hi, rows, speculate)
    return lo, hi, bound, shape, piece_caps(rate, shape[2], g)


def first_round(costs: Costs, mode: str, n: int, m: int, width: int, rate: float, g: int, rows: int = ROWS,
                speculate: bool = False) -> tuple[int, int, int, tuple[int, int, int, int, int], tuple[int, int]]:
    """(lo, hi, bound, shape, caps): a first round's band w = ``width`` (``band.band_bound``), its pieces' sizes there
    (``first_shape``) and the caps of its longest piece for a cost ``rate`` a row (``piece_caps``; ``g``: the reduced
    costs' factor), in one compiled call (a guessed round's plan before its launch: the two calls took ~4 us of the
    2-core development host, the Band and escape_between before them ~4 more; the caps as a call of their own ~0.7
    more, with the tuple they went into)."""
    return _first_round(*bands.escape_terms(costs, mode), n, m, width, rows, speculate, rate, g)


@njit(cache=True, nogil=True)
def windows(r0, r1, lo, hi, m):
    """The windows of b of pieces a[r0:r1]: c0 = max(0, r0 + lo), c1 = min(m, r1 + hi)."""
    return np.maximum(0, r0 + lo), np.minimum(m, r1 + hi)


# a round's verdict (``settle``)
MISSING, WIDEN, ENDS, CERTIFIED, MERGE = range(5)
# the solved pieces' table (``Solved.table``): a row a piece, sorted by KEY = r0 (n + 1) + r1
KEY, SCORE, START, END, SOLVE, FIRST, USED, OPENS, CLOSES, COLUMNS = range(10)


@njit(cache=True, nogil=True)
def settle(cuts, table, n, m, whole, bound):
    """One round's check of the pieces between ``cuts`` against the solved ``table`` (``Solved``), in the
    module docstring's order: (MISSING, pieces k not solved yet), (WIDEN: their sum > ``bound``, NO_ESCAPE
    for none), (ENDS: s_0 != 0, piece 0 starts in a D run, or ``whole`` (global mode) and t_{P-1} != m),
    (CERTIFIED, each piece's row of ``table``), or (MERGE, the cuts without those of the disagreeing
    seams: t_k != s_{k+1}, or piece k + 1 starts in a D run piece k does not end in); with the pieces'
    sum (0 while some are missing)."""
    count = cuts.size - 1
    rows = np.empty(count, np.int64)
    missing = 0
    for k in range(count):
        key = cuts[k] * (n + 1) + cuts[k + 1]
        at = np.searchsorted(table[:, KEY], key)
        if at < table.shape[0] and table[at, KEY] == key:
            rows[k] = at
        else:
            rows[k] = -1
            missing += 1
    if missing:
        return MISSING, 0, np.flatnonzero(rows < 0)
    total = 0
    for k in range(count):
        total += table[rows[k], SCORE]
    if total > bound:
        return WIDEN, total, rows
    first, last = table[rows[0]], table[rows[count - 1]]
    if first[START] != 0 or first[OPENS] != 0 or (whole and last[END] != m):
        return ENDS, total, rows
    keep = np.ones(cuts.size, np.bool_)
    for k in range(count - 1):
        left, right = table[rows[k]], table[rows[k + 1]]
        keep[k + 1] = left[END] == right[START] and not (right[OPENS] != 0 and left[CLOSES] == 0)
    if keep.all():
        return CERTIFIED, total, rows
    return MERGE, total, cuts[keep]


@njit(cache=True, nogil=True)
def stored(table, r0, r1, score, start, end, runs, first, used, affine, n, solve, wanted):
    """``table`` with the solved pieces a[r0:r1] (those whose score >= 0; each one's runs:
    runs[first:first + used], last first; ``solve``: the solve's index among the solves' runs), sorted by
    KEY, and whether one of the first ``wanted`` gave up (score < 0)."""
    gave_up = False
    fresh = 0
    for k in range(r0.size):
        if score[k] >= 0:
            fresh += 1
        elif k < wanted:
            gave_up = True
    out = np.empty((table.shape[0] + fresh, COLUMNS), np.int64)
    for r in range(table.shape[0]):
        copy_into(out[r], table[r])
    at = table.shape[0]
    for k in range(r0.size):
        if score[k] < 0:
            continue
        row = out[at]
        row[KEY], row[SCORE], row[START], row[END] = r0[k] * (n + 1) + r1[k], score[k], start[k], end[k]
        row[SOLVE], row[FIRST], row[USED] = solve, first[k], used[k]
        # (gap-affine: whether the path starts, ends with a D run; runs last first)
        row[OPENS] = affine and used[k] > 0 and runs[first[k] + used[k] - 1] & 3 == OP_DEL
        row[CLOSES] = affine and used[k] > 0 and runs[first[k]] & 3 == OP_DEL
        at += 1
    return out[np.argsort(out[:, KEY])], gave_up  # (keys are unique: a piece is asked for once)


@njit(cache=True, nogil=True)
def asks(cuts, missing, speculate, lo, hi, m):
    """The pieces to solve (r0, r1 and their windows, ``windows``): those of ``missing`` (pieces k), then
    with ``speculate`` every two neighbours as one."""
    extra = cuts.size - 2 if speculate and cuts.size > 2 else 0
    r0 = np.empty(missing.size + extra, np.int64)
    r1 = np.empty_like(r0)
    copy_into(r0[:missing.size], cuts[missing])
    copy_into(r1[:missing.size], cuts[missing + 1])
    copy_into(r0[missing.size:], cuts[:extra])
    copy_into(r1[missing.size:], cuts[2:2 + extra])
    c0, c1 = windows(r0, r1, lo, hi, m)
    return r0, r1, c0, c1


class Solved:
    """The pieces solved so far at one band (a piece's answer depends on its two cuts alone: its window
    follows from them): their answers (``table``, a row a piece: KEY .. CLOSES) and every solve's runs."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.table = np.zeros((0, COLUMNS), np.int64)
        self.solve_runs: list[np.ndarray] = []

    def add(self, r0: np.ndarray, r1: np.ndarray, got: Pieces, affine: bool, wanted: int) -> bool:
        """The answers of pieces a[r0:r1] in ``got`` (those with a score); whether one of the first
        ``wanted`` gave up."""
        self.table, gave_up = stored(self.table, r0, r1, got.score, got.start, got.end, got.runs, got.first, got.used,
                                     affine, self.n, len(self.solve_runs), wanted)
        self.solve_runs.append(got.runs)
        return bool(gave_up)


def segmented(n: int, m: int, costs: Costs, mode: str, width: int, solve: SolvePieces, rows: int = ROWS,
              rounds: int = ROUNDS, trace: Trace | None = None, speculate: bool = False,
              first: Pieces | None = None) -> Segmented | None:
    """The optimum of an n x m pair (``applies``: its costs and mode) by certified pieces (module
    docstring), starting from the band of half-width ``width``; None where it gives up (a piece's
    solver gave up, the ends do not meet, the seams still disagree after ``rounds`` rounds, or the
    band's escape bound is still below the pieces' sum after ``WIDENINGS`` widenings). ``speculate``:
    the first round also solves every two neighbouring pieces as one (the merge a disagreeing seam
    asks for, ready without a second round where its neighbours' seams agree). ``first``: the answers
    of the first round's asks (``first_asks`` at this band), solved by the caller already (a device's
    check that did not certify: ``WfaSolver.checked``). ``trace``: filled with
    what it did. Each round's check is one compiled call (``settle``), each solve's bookkeeping one
    (``stored``)."""
    assert applies(costs, mode) and n > 0 and m > 0
    trace = Trace() if trace is None else trace
    widenings = 0
    while True:
        lo, hi, bound = bands.band_bound(costs, mode, n, m, width)
        cuts = first_cuts(n, rows)
        solved = Solved(n)
        for round_ in range(1, rounds + 1):
            verdict, total, out = settle(cuts, solved.table, n, m, mode == "global", bound)
            if verdict == MISSING:
                ask0, ask1, c0, c1 = asks(cuts, out, speculate and round_ == 1, lo, hi, m)
                got = solve(ask0, ask1, c0, c1) if first is None else first
                first = None
                assert got.score.size == ask0.size  # (``first``: this band's first asks)
                trace.rounds += 1
                trace.solved += ask0.size
                if solved.add(ask0, ask1, got, costs.affine, out.size):
                    trace.why = "a piece gave up"
                    return None
                verdict, total, out = settle(cuts, solved.table, n, m, mode == "global", bound)
            if verdict == WIDEN:
                break
            if verdict == ENDS:
                trace.why = "the ends do not meet the pair's"
                return None
            if verdict == CERTIFIED:
                found = solved.table[out]
                return Segmented(int(total), int(found[-1, END]), solved.solve_runs, found[:, SOLVE],
                                 found[:, FIRST], found[:, USED], round_)
            if round_ == rounds:
                trace.why = f"seams disagree after {rounds} rounds"
                return None
            trace.merges += cuts.size - out.size
            cuts = out
        if widenings == WIDENINGS:
            trace.why = "the band's escape bound is below the pieces' sum"
            return None
        widenings += 1
        trace.widened += 1
        width = max(width + 1, bands.width_needed(int(total), costs, mode, n, m))


def cpu_pieces(pair: Pair, costs: Costs) -> SolvePieces:
    """The pieces by the CPU WFA in infix mode (with the gap start where o > 0), one after another (the
    reference)."""
    def solve(r0: np.ndarray, r1: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> Pieces:
        score, start, end, runs = [], [], [], []
        for a0, a1, b0, b1 in zip(r0.tolist(), r1.tolist(), c0.tolist(), c1.tolist()):
            got = wfa.wfa_align(pair.a[a0:a1], pair.b[b0:b1], costs, "infix", True, 1 << 62,
                                gap_start=costs.affine)
            assert got is not None and got.ops is not None  # (no cap)
            score.append(got.score)
            start.append(b0 + got.start2)
            end.append(b0 + got.end2)
            runs.append(ops_runs(got.ops))
        used = np.array([r.size for r in runs], np.int64)
        return Pieces(np.array(score, np.int64), np.array(start, np.int64), np.array(end, np.int64),
                      np.concatenate(runs).astype(np.uint32), np.cumsum(used) - used, used)
    return solve


def ops_runs(ops: np.ndarray) -> np.ndarray:
    """An alignment's operation codes as runs (length << 2 | op), its last run first."""
    if not ops.size:
        return np.zeros(0, np.uint32)
    edges = np.flatnonzero(np.diff(ops.astype(np.int64))) + 1
    starts = np.concatenate([[0], edges])
    lengths = np.diff(np.concatenate([starts, [ops.size]]))
    return ((lengths << 2) | ops[starts].astype(np.int64)).astype(np.uint32)[::-1]


@njit(cache=True, nogil=True)
def gather_runs(out, runs, solve_of, solve, first, used):
    """Into ``out``, the pieces' runs one after another, the last piece's first: those of the pieces
    whose ``solve_of`` is ``solve`` (runs[first[k]:first[k] + used[k]]; the others' places skipped)."""
    at = 0
    for k in range(first.size - 1, -1, -1):
        if solve_of[k] == solve:
            copy_into(out[at:at + used[k]], runs[first[k]:first[k] + used[k]])
        at += used[k]


def cpu_segmented(pair: Pair, costs: Costs, mode: str, width: int, rows: int = ROWS, rounds: int = ROUNDS,
                  trace: Trace | None = None, speculate: bool = False) -> tuple[int, int, np.ndarray] | None:
    """``segmented`` with ``cpu_pieces``: (score, end column, the alignment's runs) or None."""
    got = segmented(pair.n, pair.m, costs, mode, width, cpu_pieces(pair, costs), rows, rounds, trace, speculate)
    if got is None:
        return None
    return got.score, got.end2, got.runs()
