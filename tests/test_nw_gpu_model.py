"""A Python model of the `gpu` kernels' schedule (workloads/nw/gpu/strips.cu), checked on the
CPU: nw_strips (lane l holds R rows, computes 4-column group t - l at step t, takes the row above
from lane l-1 and lane 0 from the previous strip's bottom row; checkpoint rows and columns) and
nw_walk (blocks on the path recomputed from the checkpoints, moves followed back). The model
mirrors the kernels' indexing statement by statement, so an indexing mistake in the design shows
here without a GPU; the kernels themselves are checked on the device (`bash scripts/device_check.sh nw`)."""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.nw.cigar import cigar_string
from splicedalign.workloads.nw.gpu.solver import GROUP, PAD_A, PAD_B
from splicedalign.workloads.nw.records import Costs, cigar_cost
from splicedalign.workloads.nw.reference import cost_table


def _padded(a, b, R):
    """The kernels' view of a pair: sizes, strip height S, strip and column-group counts, and
    a, b padded to whole strips and groups with codes that match nothing."""
    n, m = a.size, b.size
    S = 32 * R
    strips = -(-n // S)
    groups = -(-m // GROUP)
    ap = np.full(strips * S, PAD_A, np.int64)
    ap[:n] = a
    bp = np.full(groups * GROUP, PAD_B, np.int64)
    bp[:m] = b
    return n, m, S, strips, groups, ap, bp


def model_strips(a, b, match, mismatch, indel, R, cols_every_groups=0):
    """nw_strips run strip after strip (so every flag wait is already satisfied): returns
    D[n][m], the kept boundary rows (slot s = D[(s+1)S][1..]) and the checkpoint columns."""
    n, m, S, strips, groups, ap, bp = _padded(a, b, R)
    rows = np.full((strips, groups * GROUP), -999999, np.int64)
    ncol = (m // (GROUP * cols_every_groups)) if cols_every_groups else 0
    cols = np.full(max(1, ncol * n), -999999, np.int64)
    result = None
    last_group = (m - 1) // GROUP
    last_c = (m - 1) % GROUP
    for s in range(strips):
        r0 = s * S
        first = [r0 + l * R + 1 for l in range(32)]
        col = [[(first[l] + k) * indel for k in range(R)] for l in range(32)]
        ak = [[ap[first[l] - 1 + k] for k in range(R)] for l in range(32)]
        diag = [(first[l] - 1) * indel for l in range(32)]
        bot = [[0] * 4 for _ in range(32)]
        for t in range(groups + 31):
            top = [bot[l - 1] if l > 0 else bot[0] for l in range(32)]
            if t < groups:
                if s == 0:
                    j = GROUP * t
                    entry = [(j + 1) * indel, (j + 2) * indel, (j + 3) * indel, (j + 4) * indel]
                else:
                    entry = list(rows[s - 1, 4 * t : 4 * t + 4])
                top[0] = entry
            newbot = [list(x) for x in bot]
            for l in range(32):
                u = t - l
                if 0 <= u < groups:
                    out = [0] * 4
                    snap = [0] * R
                    for c in range(4):
                        d = diag[l] if c == 0 else top[l][c - 1]
                        up = top[l][c]
                        for k in range(R):
                            left = col[l][k]
                            sub = match if ak[l][k] == bp[4 * u + c] else mismatch
                            v = min(d + sub, min(up, left) + indel)
                            d = left
                            col[l][k] = v
                            up = v
                            if u == last_group and c == last_c:
                                snap[k] = v
                        out[c] = up
                    if u == last_group:
                        for k in range(R):
                            if first[l] + k == n:
                                result = snap[k]
                    newbot[l] = out
                    diag[l] = top[l][3]
                    if cols_every_groups and (u + 1) % cols_every_groups == 0 and GROUP * (u + 1) <= m:
                        q = (u + 1) // cols_every_groups - 1
                        for k in range(R):
                            if first[l] + k <= n:
                                cols[q * n + first[l] - 1 + k] = col[l][k]
                    if l == 31 and s + 1 < strips:
                        rows[s, 4 * u : 4 * u + 4] = out
            bot = newbot
    return result, rows, cols


def model_walk(a, b, match, mismatch, indel, R, rows, cols, cols_every):
    """nw_walk from the checkpoints of model_strips: the alignment's operation codes in order."""
    n, m, S, strips, groups, ap, bp = _padded(a, b, R)
    i, j = n, m
    ops = []
    while i > 0 and j > 0:
        k = (i - 1) // S
        q = (j - 1) // cols_every
        r0 = k * S
        c0 = q * cols_every
        g0 = c0 // GROUP
        ng = (j - 1) // GROUP - g0 + 1

        def left_of(row, q=q, c0=c0):
            if q == 0:
                return row * indel
            if row == 0:
                return c0 * indel
            return cols[(q - 1) * n + row - 1] if row <= n else 0

        first = [r0 + l * R + 1 for l in range(32)]
        col = [[left_of(first[l] + r) for r in range(R)] for l in range(32)]
        ak = [[ap[first[l] - 1 + r] for r in range(R)] for l in range(32)]
        diag = [left_of(first[l] - 1) for l in range(32)]
        bot = [[0] * 4 for _ in range(32)]
        moves = {}
        for t in range(ng + 31):
            top = [bot[l - 1] if l > 0 else bot[0] for l in range(32)]
            if t < ng:
                if k == 0:
                    c = c0 + GROUP * t
                    entry = [(c + 1) * indel, (c + 2) * indel, (c + 3) * indel, (c + 4) * indel]
                else:
                    entry = list(rows[k - 1, 4 * (g0 + t) : 4 * (g0 + t) + 4])
                top[0] = entry
            newbot = [list(x) for x in bot]
            for l in range(32):
                u = t - l
                if 0 <= u < ng:
                    out = [0] * 4
                    for c in range(4):
                        d = diag[l] if c == 0 else top[l][c - 1]
                        up = top[l][c]
                        bc = bp[4 * (g0 + u) + c]
                        for r in range(R):
                            left = col[l][r]
                            sub = match if ak[l][r] == bc else mismatch
                            v = min(d + sub, min(up, left) + indel)
                            mv = (
                                (0 if ak[l][r] == bc else 1)
                                if d + sub == v
                                else (2 if up + indel == v else 3)
                            )
                            moves[(u, l, r, c)] = mv
                            d = left
                            col[l][r] = v
                            up = v
                        out[c] = up
                    newbot[l] = out
                    diag[l] = top[l][3]
            bot = newbot
        bi, bj = i - r0, j - c0
        while bi > 0 and bj > 0:
            l = (bi - 1) // R
            r = (bi - 1) % R
            u = (bj - 1) // 4
            c = (bj - 1) % 4
            mv = moves[(u, l, r, c)]
            ops.append(mv)
            bi -= mv != 3
            bj -= mv != 2
        i, j = r0 + bi, c0 + bj
    head = [2] * i if i else [3] * j
    return np.array(head + ops[::-1], dtype=np.int8)


def test_strips_model_computes_the_table_and_checkpoints():
    rng = np.random.default_rng(21)
    print("seed 21")
    for _ in range(12):
        n, m, r = int(rng.integers(1, 150)), int(rng.integers(1, 60)), int(rng.choice([1, 2, 4]))
        a = rng.integers(0, 5, n).astype(np.uint8)
        b = rng.integers(0, 4, m).astype(np.uint8)
        costs = Costs(int(rng.integers(-1, 2)), int(rng.integers(0, 4)), int(rng.integers(0, 5)))
        every = int(rng.choice([1, 2, 3]))
        score, rows, cols = model_strips(a, b, *costs.as_tuple(), r, every)
        table = cost_table(a, b, costs)
        assert score == table[n, m]
        span = 32 * r
        for k in range(1, -(-n // span)):
            assert (rows[k - 1, :m] == table[k * span, 1:]).all()
        for q in range(1, m // (4 * every) + 1):
            assert (cols[(q - 1) * n : q * n] == table[1:, q * 4 * every]).all()


def test_walk_model_traces_an_optimal_alignment():
    rng = np.random.default_rng(22)
    print("seed 22")
    for _ in range(8):
        n, m, r = int(rng.integers(1, 140)), int(rng.integers(1, 50)), 4
        a = rng.integers(0, 4, n).astype(np.uint8)
        b = a[:m].copy() if m <= n and rng.random() < 0.5 else rng.integers(0, 4, m).astype(np.uint8)
        costs = Costs()
        every = int(rng.choice([1, 2]))
        _, rows, cols = model_strips(a, b, *costs.as_tuple(), r, every)
        ops = model_walk(a, b, *costs.as_tuple(), r, rows, cols, 4 * every)
        assert cigar_cost(cigar_string(ops), a, b, costs) == cost_table(a, b, costs)[-1, -1]
