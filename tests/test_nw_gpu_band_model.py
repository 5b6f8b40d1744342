"""A Python model of nw_band, nw_band_codes and nw_band_walk (workloads/nw/gpu/strips.cu), checked on
the CPU against band.py's NumPy model and the reference: strips run one after another (every flag wait
already satisfied), lane after lane, each lane's groups in the kernel's window, the boundary-row slots
indexed from each strip's first group, the cells of a group in anti-diagonal order with the 4-bit codes,
the answer key, the checkpoints and the codes recomputed from them block by block, and the walk over
tiles of codes. It mirrors the
kernels' indexing statement by statement (with R rows per lane as a parameter: small strips
give many strips on small inputs); the kernels themselves run on the device."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.workloads.nw import Costs, Pair, cigar_cost
from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.gpu import band as bands
from splicedalign.workloads.nw.gpu.solver import GROUP, KEY_BIAS, PAD_A, PAD_B, WALK_RUN
from splicedalign.workloads.nw.records import MODES, OP_DEL, OP_INS
from splicedalign.workloads.nw.reference import end_column, gotoh_tables

INF = 1 << 30
TILE_GROUPS = 3  # small tiles: many reloads


def floor_div4(x: int) -> int:
    return x // 4


def first_group(s: int, lo: int, R: int) -> int:
    return max(0, floor_div4(s * 32 * R + lo - 1))


def last_group(s: int, n: int, hi: int, groups: int, R: int) -> int:
    return min(groups - 1, floor_div4(min((s + 1) * 32 * R, n) + hi - 1))


def band_group(hcol, ecol, ak, htop, ftop, diag, bc, costs, x, lo, hi, rn, R, affine):
    """strips.cu band_group: returns (bottom H, bottom F, last row's 4 values, 4-bit codes)."""
    match, mismatch, o, ext = costs.as_affine()
    oe = o + ext if affine else ext
    hv = [[0] * GROUP for _ in range(R)]
    fup = list(ftop)
    last = [INF] * GROUP
    codes = {}
    for t in range(R + GROUP - 1):
        for k in range(R):
            c = t - k
            if c < 0 or c >= GROUP:
                continue
            hup = htop[c] if k == 0 else hv[k - 1][c]
            hleft = hcol[k] if c == 0 else hv[k][c - 1]
            hdiag = (diag if c == 0 else htop[c - 1]) if k == 0 else (hcol[k - 1] if c == 0 else hv[k - 1][c - 1])
            diagonal = hdiag + (match if ak[k] == bc[c] else mismatch)
            e = f = 0
            if affine:
                e = min(ecol[k] + ext, hleft + oe)
                f = min(fup[c] + ext, hup + oe)
                h = min(diagonal, min(e, f))
            else:
                h = min(min(hup, hleft) + ext, diagonal)
            on = x + c - k
            if on < lo or on > hi:
                h = e = f = INF
            if affine:
                code = (0 if h == diagonal else 1 if h == f else 2) | (4 if e == ecol[k] + ext else 0) | \
                    (8 if f == fup[c] + ext else 0)
                ecol[k] = e
                fup[c] = f
            else:
                code = 0 if h == diagonal else 1 if h == hup + ext else 2
            codes[(k, c)] = code
            hv[k][c] = h
            if k == rn:
                last[c] = h
    for k in range(R):
        hcol[k] = hv[k][GROUP - 1]
    return [hv[R - 1][c] for c in range(GROUP)], fup, last, codes


def lane_group(bottom, lane, u, top, hcol, ecol, ak, diag, bp, costs, first, lo, hi, rn, R):
    """One lane's group u (band_group), the row above ``top`` (lane 0: its H and F) or lane - 1's
    bottom row of u (in ``bottom``, which gets this lane's): (next diag, bottom H, bottom F, row
    rn's 4 values, codes)."""
    if lane == 0:
        htop, ftop = top
    else:
        htop, ftop = (list(v) for v in bottom[(lane - 1, u)])
        if not costs.affine:
            ftop = [INF] * GROUP
    bc = [int(bp[GROUP * u + c]) for c in range(GROUP)]
    next_diag = htop[3]
    hb, fb, last, codes = band_group(hcol, ecol, ak, htop, ftop, diag, bc, costs, GROUP * u + 1 - first, lo, hi, rn,
                                     R, costs.affine)
    bottom[(lane, u)] = (hb, fb)
    return next_diag, hb, fb, last, codes


def padded(a, b, R):
    """(n, m, S, strips, groups, a padded with PAD_A to whole strips, b with PAD_B to whole groups)."""
    n, m = a.size, b.size
    S = 32 * R
    strips, groups = -(-n // S), -(-m // GROUP)
    ap = np.full(strips * S, PAD_A, np.int64)
    ap[:n] = a
    bp = np.full(groups * GROUP, PAD_B, np.int64)
    bp[:m] = b
    return n, m, S, strips, groups, ap, bp


def row_above(s, g, slot, pg0, pg1, rows, costs, mode, hi):
    """Lane 0's entry at group g of strip s, (H, F) of the row above: row 0 (strips.cu band_row0: gap(j), 0
    in infix mode; F infinite), infinite past the strip above's window (pg1), else that strip's bottom row
    kept in ``slot`` of ``rows`` (H rows, F rows)."""
    if s == 0:
        _, _, o, ext = costs.as_affine()
        js = [GROUP * g + 1 + c for c in range(GROUP)]
        return [(0 if mode == "infix" else o + ext * j) if j <= hi else INF for j in js], [INF] * GROUP
    if g > pg1:
        return [INF] * GROUP, [INF] * GROUP
    hrows, frows = rows
    return list(hrows[slot][g - pg0]), list(frows[slot][g - pg0]) if costs.affine else [INF] * GROUP


def left_edge(first, g0, lo, costs, R):
    """strips.cu band_left_edge: (hcol, ecol, diag) of the lane whose first row is ``first`` at its strip
    window's left edge (group g0): column 0 where g0 = 0 and the row's diagonal is in the band, else
    infinite."""
    _, _, o, ext = costs.as_affine()
    hcol = [o + ext * (first + k) if g0 == 0 and -(first + k) >= lo else INF for k in range(R)]
    diag = (0 if first == 1 else o + ext * (first - 1)) if g0 == 0 and -(first - 1) >= lo else INF
    return hcol, [INF] * R, diag


def model_band(a, b, costs, mode, band, R, cg=0):
    """nw_band (cg: CKPT_GROUPS of nw_band<., true>, 0: nw_band<., false>): (score, end column, codes by
    (strip, group, lane) (band_group's, what nw_band_codes recomputes), gmax, checkpoints: (H rows, F rows)
    by slot (every strip's own with cg), checkpoint columns by (strip, q): (H, E) of the strip's rows)."""
    affine = costs.affine
    n, m, S, strips, groups, ap, bp = padded(a, b, R)
    lo, hi = band.lo, band.hi
    gmax = max(last_group(s, n, hi, groups, R) - first_group(s, lo, R) + 1 for s in range(strips))
    slots = strips if cg else 2
    hrows = [[None] * gmax for _ in range(slots)]
    frows = [[None] * gmax for _ in range(slots)]
    cols = {}
    mode_code = MODES.index(mode)
    best = None
    bits = {}
    for s in range(strips):
        g0, g1 = first_group(s, lo, R), last_group(s, n, hi, groups, R)
        pg0 = first_group(s - 1, lo, R) if s > 0 else 0
        pg1 = last_group(s - 1, n, hi, groups, R) if s > 0 else -1
        bottom = {}  # (lane, group) -> (H row, F row)
        for lane in range(32):
            first = s * S + lane * R + 1
            ak = [int(ap[first - 1 + k]) for k in range(R)]
            hcol, ecol, diag = left_edge(first, g0, lo, costs, R)
            rn = n - first if first <= n < first + R else -1
            for u in range(g0, g1 + 1):
                top = row_above(s, u, (s + slots - 1) % slots, pg0, pg1, (hrows, frows), costs, mode,
                                hi) if lane == 0 else None
                diag, hb, fb, last, codes = lane_group(bottom, lane, u, top, hcol, ecol, ak, diag, bp, costs, first,
                                                       lo, hi, rn, R)
                bits[(s, u - g0, lane)] = codes
                if cg and (u + 1) % cg == 0:
                    column = cols.setdefault((s, (u + 1) // cg), [None] * S)
                    for k in range(R):
                        column[lane * R + k] = (hcol[k], ecol[k] if affine else INF)
                if rn >= 0:
                    for c in range(GROUP):
                        j = GROUP * u + 1 + c
                        if j <= m and (mode_code != 0 or j == m) and last[c] < INF:
                            key = ((last[c] + KEY_BIAS) << 32) | j
                            best = key if best is None else min(best, key)
                if lane == 31 and s + 1 < strips:
                    hrows[s % slots][u - g0] = hb
                    frows[s % slots][u - g0] = fb
    if best is None:
        score, end2 = 1 << 62, m
    else:
        score, end2 = (best >> 32) - KEY_BIAS, best & 0xFFFFFFFF
    if mode != "global" and lo <= -n and costs.gap(n) <= score:
        score, end2 = costs.gap(n), 0
    return score, end2, bits, gmax, (hrows, frows, cols)


def model_codes(a, b, costs, mode, band, walk, kept, R, cg):
    """nw_band_codes: the codes of walk's windows by (strip, group - its first, lane), each block recomputed
    from nw_band<., true>'s kept rows and checkpoint columns (``kept``, model_band's with cg)."""
    n, m, S, strips, groups, ap, bp = padded(a, b, R)
    hrows, frows, cols = kept
    lo, hi = band.lo, band.hi
    firsts = [first_group(s, walk.lo, R) for s in range(strips)]
    lasts = [last_group(s, n, walk.hi, groups, R) for s in range(strips)]
    per_strip = max(1, max(w1 // cg - w0 // cg for w0, w1 in zip(firsts, lasts)) + 1)
    bits = {}
    for warp in range(strips * per_strip):
        s = warp // per_strip
        g0, g1 = first_group(s, lo, R), last_group(s, n, hi, groups, R)
        wg0, wg1 = firsts[s], lasts[s]
        b0 = max(g0, (wg0 // cg + warp % per_strip) * cg)
        b1 = min(wg1, g1, (b0 // cg + 1) * cg - 1)
        if b0 > b1:
            continue
        pg0 = first_group(s - 1, lo, R) if s > 0 else 0
        pg1 = last_group(s - 1, n, hi, groups, R) if s > 0 else -1

        def entry(g, s=s, pg0=pg0, pg1=pg1):
            return row_above(s, g, s - 1, pg0, pg1, (hrows, frows), costs, mode, hi)

        bottom = {}
        for lane in range(32):
            first = s * S + lane * R + 1
            ak = [int(ap[first - 1 + k]) for k in range(R)]
            if b0 == g0:
                hcol, ecol, diag = left_edge(first, g0, lo, costs, R)
            else:
                column = cols[(s, b0 // cg)]
                hcol = [column[lane * R + k][0] for k in range(R)]
                ecol = [column[lane * R + k][1] for k in range(R)]
                diag = column[lane * R - 1][0] if lane > 0 else entry(b0 - 1)[0][3]
            for u in range(b0, b1 + 1):
                diag, _, _, _, codes = lane_group(bottom, lane, u, entry(u) if lane == 0 else None, hcol, ecol, ak,
                                                  diag, bp, costs, first, lo, hi, -1, R)
                if u >= wg0:
                    bits[(s, u - wg0, lane)] = codes
    return bits


def model_walk(a, b, lo, bits, i, j, R, run_cells=WALK_RUN):
    """nw_band_walk: (ops, i, j) where it stopped; each tile's cell (r, c) read by its strip row r
    and tile column c (tile_code), a run of ``run_cells`` diagonal cells read together in state H."""
    S = 32 * R
    st, ops = 0, []
    while i > 0 and j > 0:
        s, u = (i - 1) // S, (j - 1) // GROUP
        g0 = first_group(s, lo, R)
        u0 = max(g0, u - TILE_GROUPS + 1)

        def tile_code(r, c, s=s, u=u, u0=u0, g0=g0):
            assert 0 <= r < S and 0 <= c < GROUP * (u - u0 + 1), (r, c)  # inside the copied tile
            return bits[(s, u0 + c // GROUP - g0, r // R)][(r % R, c % GROUP)]

        r, c = i - 1 - s * S, j - 1 - GROUP * u0
        while r >= 0 and c >= 0:
            if st == 0:
                reach = min(min(r, c) + 1, run_cells)
                run_codes = [tile_code(max(r - k, 0), max(c - k, 0)) for k in range(run_cells)]
                diagonal = sum(1 << k for k in range(run_cells) if k < reach and run_codes[k] & 3 == 0)
                run = (~diagonal & -~diagonal).bit_length() - 1  # __ffs(~diagonal) - 1
                code = 0
                for k in range(run_cells):
                    if k < run:
                        ops.append(0 if a[s * S + r - k] == b[GROUP * u0 + c - k] else 1)
                    if k == run:
                        code = run_codes[k]
                r, c = r - run, c - run
                if run == reach:
                    continue
                st = code & 3
            else:
                code = tile_code(r, c)
            if st == 1:
                ops.append(OP_DEL)
                st = 1 if code & 8 else 0
                r -= 1
            else:
                ops.append(OP_INS)
                st = 2 if code & 4 else 0
                c -= 1
        i, j = s * S + r + 1, GROUP * u0 + c + 1
    return ops, i, j


def random_case(rng, most):
    n = int(rng.integers(1, most))
    a = rng.integers(0, 4, n).astype(np.uint8)
    if rng.random() < 0.6:
        keep = rng.random(n) > 0.06
        b = a[keep].copy()
        b[rng.random(b.size) < 0.06] = int(rng.integers(0, 4))
        if rng.random() < 0.3:
            b = np.concatenate([rng.integers(0, 4, int(rng.integers(0, 30))).astype(np.uint8), b])
        if b.size == 0:
            b = np.array([1], np.uint8)
    else:
        b = rng.integers(0, 4, int(rng.integers(1, most))).astype(np.uint8)
    b[rng.random(b.size) < 0.03] = 5
    return Pair("r", "a", "b", a, b)


def check_alignment(pair, costs, mode, band, R, cg, run):
    """The models of one alignment in ``band`` against band.py's banded table: the pass with checkpoints
    every ``cg`` groups (its score and end column), nw_band_codes over the optimal paths' band (each code the
    pass's own), the walk over those codes (runs of ``run`` cells; its CIGAR costs the score). (score, the
    walk's band), or None where no cell of row n lies in ``band``."""
    h = bands.banded_tables(pair.a, pair.b, costs, mode, band)[0]
    want_end = end_column(h, mode)
    want = int(h[-1, want_end])
    score, end2, bits, gmax, kept = model_band(pair.a, pair.b, costs, mode, band, R, cg)
    if want >= INF:
        assert score >= INF
        return None
    assert (score, end2) == (want, want_end), (band, costs)
    walk = bands.optimal_paths_band(score, costs, mode, band)
    codes = model_codes(pair.a, pair.b, costs, mode, band, walk, kept, R, cg)
    for (s, w, lane), cell_codes in codes.items():  # the pass's own codes, cell by cell
        assert bits[(s, w + first_group(s, walk.lo, R) - first_group(s, band.lo, R), lane)] == cell_codes
    ops, i, j = model_walk(pair.a, pair.b, walk.lo, codes, pair.n, end2, R, run)
    head = [OP_DEL] * i if i else ([] if mode == "infix" else [OP_INS] * j)
    start2 = j if (i == 0 and mode == "infix") else 0
    cigar = cigar_string(np.array(head + ops[::-1], dtype=np.int8))
    assert cigar_cost(cigar, pair.a, pair.b, costs, start2, end2) == score, (band, costs, cigar)
    return score, walk


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("R", [1, 3])
def test_band_kernel_model_equals_the_band_model_and_walks_optimally(mode, R):
    seed = 4242 + MODES.index(mode) + 10 * R
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    compared = narrowed = 0
    for k in range(14):
        pair = random_case(rng, 110)
        roll = k % 3
        costs = (Costs(0, int(rng.integers(1, 5)), int(rng.integers(1, 4))) if roll == 0 else
                 Costs(0, 4, 2, 6) if roll == 1 else
                 Costs(int(rng.integers(-1, 1)), int(rng.integers(0, 5)), int(rng.integers(0, 4)),
                       int(rng.integers(0, 6))))
        h_ref = gotoh_tables(pair.a, pair.b, costs, mode)[0]
        optimum = int(h_ref[-1, end_column(h_ref, mode)])
        widths = [bands.full_band(pair.n, pair.m)]
        if bands.applies(costs, mode):
            widths += [bands.band_for(pair.n, pair.m, mode, w) for w in (0, 3, 9)]
        for band in widths:
            # small checkpoint blocks (many a strip), runs of 8, 3 and 1 cells
            done = check_alignment(pair, costs, mode, band, R, (2, 3, 5)[k % 3], (WALK_RUN, 3, 1)[k % 3])
            if done is None:
                continue
            score, walk = done
            assert score >= optimum
            narrowed += walk != band
            compared += 1
    assert compared >= 14 and (narrowed >= 1 or mode == "infix"), (compared, narrowed)  # infix: no band


@pytest.mark.parametrize("R", [2, 8, 16])
def test_walk_tile_reads_the_codes_where_nw_band_codes_wrote_them(R):
    """strips.cu tile_code (word (c / 4) 16 R + r / 2, nibble (r % 2) 4 + c % 4 of a tile's cell
    (r, c)) against nw_band_codes' writes (lane l's R / 2 words of group g at (32 g + l) R / 2, its row
    k in word k / 2 at nibble (k % 2) 4 + column), every cell of a 3-group tile."""
    words = R // 2
    tile = np.zeros(3 * 32 * words, dtype=np.uint64)
    for g in range(3):
        for lane in range(32):
            for k in range(R):
                for col in range(GROUP):
                    cell = (g * 32 + lane) * R * GROUP + k * GROUP + col  # a distinct code a cell, mod 16
                    tile[(g * 32 + lane) * words + k // 2] |= (cell % 16) << (((k % 2) * GROUP + col) * 4)
    for r in range(32 * R):
        for c in range(3 * GROUP):
            read = (int(tile[(c >> 2) * (16 * R) + (r >> 1)]) >> (((r & 1) << 4) | ((c & 3) << 2))) & 15
            lane, k, g, col = r // R, r % R, c // GROUP, c % GROUP
            assert read == ((g * 32 + lane) * R * GROUP + k * GROUP + col) % 16, (r, c)


@pytest.mark.parametrize("R", [1, 3])
def test_band_codes_and_walk_at_the_table_edges(R):
    """The edges the random pairs above seldom reach: a prefix alignment of a short a against a longer b
    whose optimal paths' band reaches column 0 (lo = -n: every strip's codes from the left edge,
    band_left_edge) but not column m (its score near gap(n), the cost of column 0's path); n a whole
    number of strips (the last lane's last row is row n); both cost models; checkpoint blocks of 1 and 2
    groups (a block at every group, CKPT_GROUPS' smallest)."""
    seed = 4343 + R
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    S = 32 * R
    edge = exact = 0
    for k in range(8):
        costs = (Costs(0, 4, 2, 6), Costs(0, int(rng.integers(1, 5)), int(rng.integers(1, 4))))[k % 2]
        n = int(rng.integers(4, 2 * S))
        a = rng.integers(0, 2, n).astype(np.uint8)  # b's letters mostly others: a dear alignment, near gap(n)
        b = rng.integers(1, 4, n + int(rng.integers(20, 80))).astype(np.uint8)
        done = check_alignment(Pair("p", "a", "b", a, b), costs, "prefix", bands.full_band(a.size, b.size), R,
                               1 + k % 2, WALK_RUN)
        edge += done is not None and done[1].lo == -n and done[1].hi < b.size
        a = rng.integers(0, 4, S * (1 + k % 2)).astype(np.uint8)
        b = a[rng.random(a.size) > 0.05].copy()
        b[rng.random(b.size) < 0.05] = int(rng.integers(0, 4))
        for mode in ("global", "prefix"):
            band = bands.band_for(a.size, b.size, mode, int(rng.integers(2, 12)))
            exact += check_alignment(Pair("q", "a", "b", a, b), costs, mode, band, R, 1 + k % 2, 3) is not None
    assert edge >= 2 and exact == 16, (edge, exact)


@pytest.mark.parametrize("R", [1, 3])
def test_band_codes_and_walk_over_an_optimal_paths_band_of_one_or_two_diagonals(R):
    """The narrowest walks: a pair equal to its b, or one substitution or one deletion off it, has its
    optimal paths on one or two diagonals (an optimal-paths band of width 0 or 1, nw_band_codes' window a
    single group of a strip); n below a strip, a whole strip, one past it; both cost models, global and
    prefix, the pass over the full table and over band_for's narrowest."""
    seed = 4444 + R
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    S = 32 * R
    widths = {0: 0, 1: 0}
    for k, n in enumerate((1, 2, S - 1, S, S + 1, 2 * S + 3)):
        a = rng.integers(0, 4, n).astype(np.uint8)
        off = int(rng.integers(0, n))
        changed = a.copy()
        changed[off] = (changed[off] + 1) % 4
        shorter = np.delete(a, off) if n > 1 else a
        for b in (a.copy(), changed, shorter):
            for costs in (Costs(0, 1, 3), Costs(0, 4, 2, 6)):
                for mode in ("global", "prefix"):
                    for band in (bands.full_band(n, b.size), bands.band_for(n, b.size, mode, 0)):
                        done = check_alignment(Pair("e", "a", "b", a, b), costs, mode, band, R, 1 + k % 2,
                                               (WALK_RUN, 1)[k % 2])
                        assert done is not None, (n, costs, mode, band)
                        width = done[1].hi - done[1].lo
                        if width in widths:
                            widths[width] += 1
    assert min(widths.values()) >= 12, widths
