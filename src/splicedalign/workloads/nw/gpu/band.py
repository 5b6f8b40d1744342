"""The band certificate (pure Python): when a DP computed only on the diagonals ``lo <= j - i <=
hi`` of the table is exact, and how wide the next band must be when it is not (Ukkonen).

Any path that touches a diagonal outside the band pays at least the gaps that take it there
(and, in global mode, back), since every other step costs >= 0 (``applies``: match and
mismatch >= 0, gap-extend > 0). With ``d = m - n`` (the end diagonal of a global path):

- global: band ``[min(0, d) - w, max(0, d) + w]``. A path touching diagonal ``hi + 1`` (or
  ``lo - 1``) goes from diagonal 0 past it and back to ``d``: at least ``|d| + 2(w + 1)`` gap
  letters, in at least one gap of each kind: ``escape >= 2o + e(|d| + 2w + 2)``.
- prefix (all of a against a prefix of b; the path ends on any diagonal of row n): band
  ``[min(0, d) - w, w]``; leaving it takes at least ``w + 1`` gap letters of one kind
  (``escape >= o + e(w + 1)``; below, ``max(0, -d) + w + 1`` >= that).
- infix: the path may start on any diagonal of row 0, so no band around a known diagonal
  holds it: the full table (``applies`` is False).

A side that reaches the table's edge (``lo <= -n`` or ``hi >= m``) has nothing outside it;
a band with both sides there is the full table (escape = None: always exact).

The band's score S_w (the least cost over paths inside it) is >= the optimum; it IS the
optimum when ``S_w <= escape(w)``. Otherwise the optimum is <= S_w, and the least w' with
``escape(w') >= S_w`` certifies whatever band w' gives (S_w' <= S_w <= escape(w')); the
schedule takes ``min(that w', 2w)`` (doubling when the narrow band's score is a poor upper
bound), or the full table once the band would cover ``FULL_SHARE`` of it or S_w asks for more
than ``GIVE_UP`` times w.

``banded_tables`` is the NumPy model of the banded kernels (cells outside the band infinite);
``adaptive`` is the schedule the GPU solvers run with their kernels in place of the model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from splicedalign.workloads.nw.records import Costs
from splicedalign.workloads.nw.reference import INF, first_row_costs

FIRST_WIDTH = 64  # w of the first band, at least
FIRST_SHARE = 128  # ... and at least (n + m) / FIRST_SHARE: a pass of the GPU's banded strips is
# latency-bound (its chain of strips) until the band is a large share of the table, so a wide
# first band costs little and saves passes
FULL_SHARE = 0.5  # a band covering this share of the table's cells runs as the full table
GIVE_UP = 4  # a band whose score asks for more than GIVE_UP times its width: the full table next
# (an unrelated pair's score asks for most of the table; a similar pair's, less than twice)
BAND_MODES = ("global", "prefix")


@dataclass(frozen=True)
class Band:
    """Diagonals ``lo <= j - i <= hi`` of an n x m table (clipped to -n..m)."""

    lo: int
    hi: int
    n: int
    m: int
    width: int  # the w it was built for (-1: the full table)

    @property
    def full(self) -> bool:
        return self.lo <= -self.n and self.hi >= self.m

    @property
    def cells(self) -> int:
        """Cells the band covers, about (n rows of hi - lo + 1 diagonals, at most the table)."""
        return min(self.n * self.m, self.n * (self.hi - self.lo + 1))


def applies(costs: Costs, mode: str) -> bool:
    """A band can certify its score: every step costs >= 0, a gap letter > 0, and the path's
    start is known (global, prefix)."""
    return (mode in BAND_MODES and costs.match >= 0 and costs.mismatch >= 0 and costs.indel > 0
            and costs.gap_open >= 0)


def full_band(n: int, m: int) -> Band:
    return Band(-n, m, n, m, -1)


@njit(cache=True, nogil=True)
def _limits(n, m, ends_free, width):
    """``band_for``'s diagonals lo, hi (``ends_free``: not global mode, the band from diagonal 0 up)."""
    d = m - n
    return max(-n, min(0, d) - width), min(m, (0 if ends_free else max(0, d)) + width)


def band_for(n: int, m: int, mode: str, width: int) -> Band:
    lo, hi = _limits.py_func(n, m, mode != "global", width)  # (as plain Python: no compiled call's dispatch)
    return Band(lo, hi, n, m, width)


@njit(cache=True, nogil=True)
def limits_escape(o, e, floor, mode, n, m, width):
    """``band_bound`` with ``_escape``'s first arguments (``escape_terms``), compiled (segments.first_round too)."""
    lo, hi = _limits(n, m, mode != 0, width)
    return lo, hi, _escape(o, e, floor, mode, n, m, lo, hi)


def band_bound(costs: Costs, mode: str, n: int, m: int, width: int) -> tuple[int, int, int]:
    """The diagonals lo, hi of ``band_for``'s band w = ``width`` and its ``escape_between`` bound (NO_ESCAPE where
    no cell lies outside it), in one compiled call (a guessed round's plan, before its launch: the Band and
    escape_between's call took ~4 us of the 2-core development host)."""
    return limits_escape(*escape_terms(costs, mode), n, m, width)


def escape(costs: Costs, mode: str, band: Band) -> int | None:
    """A lower bound on the cost of any path that leaves ``band`` (None: none can)."""
    return escape_between(costs, mode, band.n, band.m, band.lo, band.hi)


def escape_between(costs: Costs, mode: str, n: int, m: int, lo: int, hi: int) -> int | None:
    """A lower bound on the cost of every alignment (``mode``) of an n x m pair that touches a
    cell off the diagonals ``lo <= j - i <= hi``, for any lo <= hi (None: there is no such cell);
    valid for gap-extend >= 0 (gap-open >= 0 as Costs has it), any match and mismatch.

    Touching diagonal hi + 1 from a start on diagonal 0 (global, prefix; infix starts anywhere on
    row 0, so from hi + 1 itself) and ending on m - n (global) or below it (prefix, infix) takes
    at least max(0, hi + 1) insertions and max(0, hi + 1 - (m - n)) deletions; touching lo - 1
    takes max(0, 1 - lo) deletions and, in global mode, max(0, m - n - lo + 1) insertions. Each
    kind present is at least one gap. The diagonal steps, at most min(n, m), cost at least
    min(0, match, mismatch) each. For the bands of ``band_for`` this is the docstring's bound
    or more (prefix: the side of the longer sequence).

    In the ends-free modes (prefix, infix) it is one less: a band's answer is reported with the
    first end column of an optimal alignment (docs/nw.md), and a path outside the band costing
    exactly the bound could tie with it and end in an earlier column, so a band's score certifies
    its end column only strictly below that path's least cost (one less is still a lower bound)."""
    bound = _escape(*escape_terms(costs, mode), n, m, lo, hi)
    return None if bound == NO_ESCAPE else int(bound)


NO_ESCAPE = np.iinfo(np.int64).max  # escape_bounds of a band with no cell outside it
ESCAPE_MODES = {"global": 0, "prefix": 1, "infix": 2}  # _escape's mode codes


def escape_terms(costs: Costs, mode: str) -> tuple[int, int, int, int]:
    """``_escape``'s first arguments: gap open, extend, a diagonal step's least cost, the mode's code."""
    return int(costs.gap_open), int(costs.indel), min(0, int(costs.match), int(costs.mismatch)), ESCAPE_MODES[mode]


def escape_bounds(costs: Costs, mode: str, n: np.ndarray, m: np.ndarray, lo: np.ndarray,
                  hi: np.ndarray) -> np.ndarray:
    """``escape_between`` of many pairs and bands at once (int64 arrays; NO_ESCAPE for None)."""
    every = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (n, m, lo, hi)))
    return _escapes(*escape_terms(costs, mode), *(np.ravel(x) for x in every)).reshape(every[0].shape)


@njit(cache=True, nogil=True)
def _escape(o, e, floor, mode, n, m, lo, hi):
    """``escape_between`` (NO_ESCAPE for None) with gap open o, extend e, a diagonal step's least cost
    ``floor`` and ``ESCAPE_MODES``' code: one compiled scalar (a call from Python ~1 us, NumPy's ~25)."""
    delta = m - n
    bound = NO_ESCAPE
    if hi + 1 <= m:  # diagonal hi + 1
        ins, dels = (0 if mode == 2 else max(0, hi + 1)), max(0, hi + 1 - delta)
        bound = min(bound, o * (int(ins > 0) + int(dels > 0)) + e * (ins + dels))
    if lo - 1 >= -n:  # diagonal lo - 1
        ins, dels = (max(0, delta - lo + 1) if mode == 0 else 0), max(0, 1 - lo)
        bound = min(bound, o * (int(ins > 0) + int(dels > 0)) + e * (ins + dels))
    if bound == NO_ESCAPE:
        return bound
    return bound + floor * min(n, m) - int(mode != 0)  # (ends-free: strictly below a tie, see escape_between)


@njit(cache=True, nogil=True)
def _escapes(o, e, floor, mode, n, m, lo, hi):
    """``_escape`` of each pair and band."""
    out = np.empty(n.size, np.int64)
    for k in range(n.size):
        out[k] = _escape(o, e, floor, mode, n[k], m[k], lo[k], hi[k])
    return out


def width_needed(score: int, costs: Costs, mode: str, n: int, m: int) -> int:
    """The least w whose escape bound is >= ``score`` (then band w certifies itself)."""
    o, e = int(costs.gap_open), int(costs.indel)
    if mode == "global":
        rest = score - 2 * o - e * (abs(m - n) + 2)
        return max(0, -(-rest // (2 * e)))
    rest = score + 1 - o - e  # (the ends-free bound is one less: escape_between)
    return max(0, -(-rest // e))


def certified(score: int, costs: Costs, mode: str, band: Band) -> bool:
    bound = escape(costs, mode, band)
    return bound is None or score <= bound


def optimal_paths_band(score: int, costs: Costs, mode: str, band: Band) -> Band:
    """The diagonals of ``band`` that hold every alignment of cost ``score`` or less (``score``: the
    least cost in ``band``'s table, so they hold every optimal path of that table): ``band`` cut to
    the band of the least w whose escape bound exceeds ``score``, or ``band`` itself where no band
    certifies (``applies``) or that one is not narrower. Any path touching a diagonal outside costs
    at least the escape bound (``escape_between``), more than ``score``."""
    if not applies(costs, mode):
        return band
    narrow = band_for(band.n, band.m, mode, width_needed(score + 1, costs, mode, band.n, band.m))
    lo, hi = max(band.lo, narrow.lo), min(band.hi, narrow.hi)
    if not certified(score + 1, costs, mode, narrow) or (lo, hi) == (band.lo, band.hi):  # escape(narrow) <= score
        return band
    return Band(lo, hi, band.n, band.m, narrow.width)


def next_band(score: int, costs: Costs, mode: str, band: Band) -> Band:
    """The band after an uncertified ``band`` whose score was ``score``."""
    need = width_needed(score, costs, mode, band.n, band.m)
    wider = band_for(band.n, band.m, mode, max(min(need, 2 * max(band.width, 1)), band.width + 1))
    if need > GIVE_UP * max(band.width, 1) or wider.cells >= FULL_SHARE * band.n * band.m:
        return full_band(band.n, band.m)
    return wider


def first_band(costs: Costs, mode: str, n: int, m: int) -> Band:
    """The first band to try (when a band applies and is small, else the full table)."""
    if not applies(costs, mode):
        return full_band(n, m)
    band = band_for(n, m, mode, max(FIRST_WIDTH, (n + m) // FIRST_SHARE))
    return full_band(n, m) if band.cells >= FULL_SHARE * n * m else band


def adaptive(solve_band: Callable[[Band], int], costs: Costs, mode: str, n: int, m: int) -> tuple[int, Band, int]:
    """Ukkonen's schedule: (the exact score, the band that certified it, passes run), where
    ``solve_band(band)`` returns the least cost of a path inside ``band`` (the full table:
    the plain DP)."""
    band = first_band(costs, mode, n, m)
    passes = 0
    while True:
        score = solve_band(band)
        passes += 1
        if certified(score, costs, mode, band):
            return score, band, passes
        band = next_band(score, costs, mode, band)


def algorithm_name(band: Band) -> str:
    """What ``Result.algorithm`` says: ``dp`` (the full table) or ``band`` (a certified band)."""
    return "dp" if band.full else "band"


def banded_tables(a: np.ndarray, b: np.ndarray, costs: Costs, mode: str, band: Band
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gotoh's tables (reference.gotoh_tables' recurrences) with every cell outside ``band``
    infinite, boundaries included: the NumPy model of what the banded kernels compute."""
    match, mismatch, o, e = costs.as_affine()
    n, m = a.size, b.size
    j = np.arange(m + 1, dtype=np.int64)
    h = np.full((n + 1, m + 1), INF, dtype=np.int64)
    d = np.full((n + 1, m + 1), INF, dtype=np.int64)
    ins = np.full((n + 1, m + 1), INF, dtype=np.int64)
    inside = (j >= band.lo) & (j <= band.hi)
    h[0] = np.where(inside, first_row_costs(m, costs, mode), INF)
    if mode != "infix":
        ins[0, 1:] = h[0, 1:]
    for i in range(1, n + 1):
        inside = (j - i >= band.lo) & (j - i <= band.hi)
        column0 = o + e * i if inside[0] else INF
        d[i, 0] = h[i, 0] = column0
        d[i, 1:] = np.minimum(np.minimum(h[i - 1, 1:] + o + e, d[i - 1, 1:] + e), INF)
        t = np.empty(m + 1, dtype=np.int64)
        t[0] = column0
        t[1:] = np.minimum(h[i - 1, :-1] + np.where(b == a[i - 1], match, mismatch), d[i, 1:])
        t = np.where(inside, np.minimum(t, INF), INF)
        ins[i, 1:] = np.minimum(o + e * j[1:] + np.minimum.accumulate(t - e * j)[:-1], INF)
        ins[i] = np.where(inside, ins[i], INF)
        d[i] = np.where(inside, d[i], INF)
        h[i] = np.minimum(t, ins[i])
    return h, d, ins
