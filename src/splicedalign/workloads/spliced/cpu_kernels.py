"""Compiled (numba) building blocks of the CPU solvers: the exon matrix sweep, the running-max
predecessor fold and the per-exon traceback. Pure array functions, no I/O.

Exons are in (first, last) order throughout; ``last_rows[k]`` is S(last(k), ., k).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from splicedalign.core import simd
from splicedalign.core.arraycopy import copy_into
from splicedalign.core.atomics import fetch_add, load_acquire, store_release
from splicedalign.workloads.spliced.records import OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Scoring


def score_dtype(m: int, n: int, scoring: Scoring) -> type:
    """int32 when no cell can leave its range, else int64.

    Any cell is the score of some alignment of at most m base and n target letters, so its
    magnitude is at most (m + n) * the largest unit score.
    """
    unit = max(abs(scoring.match), abs(scoring.mismatch), abs(scoring.gap))
    return np.int32 if (m + n) * unit < 2**31 - 1 else np.int64


def lane_scores(target_codes: np.ndarray, scoring: Scoring, dtype: type) -> tuple:
    """What the lane kernels score with, in the score type: (codes, match, mismatch, gap).

    ``codes`` is the target's codes reversed and padded by ``simd.lanes(dtype)`` entries of -1
    (no base code) at each end: column j's code (1..n) is at ``len(codes) - lanes - j``, so the
    codes of columns j, j-1, ..., j-lanes+1 (a block's lanes, one column apart) are one vector
    load. w(base code, column j) = match if the codes are equal else mismatch (wildcards are
    coded 4 in the base and 5 in the target and never match: core.alphabet).
    """
    match = dtype(scoring.match)
    return lane_codes(target_codes, match), match, dtype(scoring.mismatch), dtype(scoring.gap)


@njit(cache=True, nogil=True)
def lane_codes(target, match):
    """lane_scores' ``codes`` in the score type of ``match`` (its lanes' padding at each end): the
    target's codes reversed, -1 in the padding."""
    lanes = simd.count(simd.splat(match))
    codes = np.full(target.shape[0] + 2 * lanes, match)
    codes[:] = -1
    for j in range(1, target.shape[0] + 1):
        codes[codes.shape[0] - lanes - j] = target[j - 1]
    return codes


@njit(cache=True, nogil=True)
def final_scores(rows, free_ends, out):
    """Each exon's final score from its last row (SPEC §2) into ``out``: S(last(k), n, k), or with
    free target ends max_j S(last(k), j, k) (trailing target letters unaligned at no cost)."""
    n = rows.shape[1] - 1
    for k in range(rows.shape[0]):
        f = rows[k, n]
        if free_ends:
            for j in range(n):
                f = max(f, rows[k, j])
        out[k] = f


@njit(cache=True, nogil=True)
def trace_start(rows, finals, free_ends):
    """Where the traceback starts: (position, target column) of the best final score (``finals``:
    final_scores of ``rows``). Global target ends: the first exon (by position) reaching the best,
    column n. Free target ends: that exon and the first column of its last row reaching it (the
    trailing target letters stay unaligned)."""
    n = rows.shape[1] - 1
    k = 0
    for q in range(finals.shape[0]):
        if finals[q] > finals[k]:
            k = q
    j = n
    if free_ends:
        j = 0
        for q in range(n + 1):
            if rows[k, q] > rows[k, j]:
                j = q
    return k, j


@njit(cache=True, nogil=True, boundscheck=False)
def _edge_step(t, b, w, lo, x0, r0, bases, M, X, G, Up, Vp, codes, H, left_in, left_out, D):
    """Step t of sweep_block while some lane is left of column lo or right of hi: the first
    b-1 steps (lane t enters at column lo-1, with its row's left_in value) and the last b-1."""
    U = simd.shift_in(Vp, H[lo - 1 + t] if t <= w else H[lo - 1])
    V = simd.vmax(simd.add(Up, simd.select_eq(simd.load(codes, x0 - t), bases, M, X)),
                  simd.sub(simd.vmax(U, Vp), G))
    if t < b:
        V = simd.insert(V, t, left_in[r0 + t])
    if t >= b:
        H[lo - 1 + t - (b - 1)] = simd.extract(V, b - 1)
    if t >= w and t - w < b:
        left_out[r0 + t - w] = simd.extract(V, t - w)
    if D is not None:
        simd.store(D, t * simd.count(V), V)
    return U, V


@njit(cache=True, nogil=True, boundscheck=False)
def sweep_block(base, codes, a, b, lo, hi, M, X, G, H, corner, left_in, r0, left_out, D):
    """Rows a..a+b-1 (base positions, b <= the lane count), columns lo..hi, as sweep_tile says,
    with one vector lane per row: lane l holds row a+l, one column behind lane l-1, so a step
    computes the anti-diagonal cells (a+l, lo-1+t-l) of every lane at once:

        V_t = max(U_{t-1} + w, max(U_t, V_{t-1}) - gap),   U_t = V_{t-1} moved up one lane

    (U_t: the cells above; lane 0 gets row a-1 from H; w from one load of ``codes``). Every
    dependency is a lane op, so the steps chain through a shift, two maxima and a subtraction
    and the rows of a block cost one pass over the columns. Lanes at or past b compute
    nothing anyone reads. ``left_in[r0 + l]`` is column lo-1 of row a+l; ``corner`` column
    lo-1 of row a-1. With ``D`` (steps x lanes) every step's vector is kept: cell (a+l, c)
    at D[c - lo + 1 + l, l] (the traceback's).
    """
    w = hi - lo + 1
    x0 = codes.shape[0] - simd.count(M) - lo + 1  # codes[x0 - t + l]: column lo-1+t-l
    bases = M
    for l in range(b):
        bases = simd.insert(bases, l, base[a - 1 + l])
    Vp = simd.insert(G, 0, left_in[r0])  # step 0: lane 0 at column lo-1
    Up = simd.insert(G, 0, corner)
    if D is not None:
        simd.store(D, 0, Vp)
    for t in range(1, b):
        Up, Vp = _edge_step(t, b, w, lo, x0, r0, bases, M, X, G, Up, Vp, codes, H, left_in, left_out, D)
    if b <= w:  # every lane inside the tile; the index arithmetic is unsigned: no wraparound code
        above = np.uint64(lo - 1)
        out = np.uint64(lo - b)
        for t in range(b, w + 1):
            U = simd.shift_in(Vp, H[above + np.uint64(t)])
            V = simd.vmax(simd.add(Up, simd.select_eq(simd.load(codes, x0 - t), bases, M, X)),
                          simd.sub(simd.vmax(U, Vp), G))
            H[out + np.uint64(t)] = simd.extract(V, b - 1)
            if D is not None:
                simd.store(D, t * simd.count(V), V)
            Up, Vp = U, V
        left_out[r0] = simd.extract(Vp, 0)
    for t in range(max(b, w + 1), w + b):
        Up, Vp = _edge_step(t, b, w, lo, x0, r0, bases, M, X, G, Up, Vp, codes, H, left_in, left_out, D)


@njit(cache=True, nogil=True)
def sweep_tile(base, scores, i0, i1, lo, hi, H, corner, left_in, left_out):
    """Rows i0..i1 (base positions) of an exon matrix, columns lo..hi only.

    On entry H[lo..hi] holds row i0-1, on exit row i1. The column left of the tile comes in
    as ``corner`` (column lo-1 of row i0-1) and ``left_in[r]`` (column lo-1 of row i0+r);
    ``left_out[r]`` receives column hi of row i0+r, the next tile's left column. ``scores``:
    lane_scores. The rows go in blocks of one vector's lanes (sweep_block).
    """
    codes, match, mismatch, gap = scores
    M, X, G = simd.splat(match), simd.splat(mismatch), simd.splat(gap)
    lanes = simd.count(M)
    a = i0
    while a <= i1:
        b = min(lanes, i1 - a + 1)
        sweep_block(base, codes, a, b, lo, hi, M, X, G, H, corner, left_in, a - i0, left_out, None)
        corner = left_in[a - i0 + b - 1]
        a += b


@njit(cache=True, nogil=True)
def column_zero(h0, gap, rows, out):
    """S(i, 0) below an entry row whose column 0 is h0: out[r] = h0 - gap*(r+1)."""
    for r in range(rows):
        out[r] = h0 - gap * (r + 1)


@njit(cache=True, nogil=True)
def sweep_exon(base, scores, first, last, H):
    """Turn H from the entry row P_k into the last row S(last, ., k), rows first..last:
    one tile of every column, column 0 from the recurrence's first column."""
    rows = last - first + 1
    left = np.empty(rows, dtype=H.dtype)
    right = np.empty(rows, dtype=H.dtype)
    h0 = H[0]
    column_zero(h0, scores[3], rows, left)
    sweep_tile(base, scores, first, last, 1, H.shape[0] - 1, H, h0, left, right)
    H[0] = left[rows - 1]


@njit(cache=True, nogil=True)
def start_row(n, lead, H):
    """The chain-start term of every entry row: t_1..t_j before the chain, at ``lead`` each
    (Scoring.lead: the gap cost with global target ends, 0 with free ends)."""
    for j in range(n + 1):
        H[j] = -lead * j


@njit(cache=True, nogil=True)
def fold_max(R, row):
    for j in range(R.shape[0]):
        if row[j] > R[j]:
            R[j] = row[j]


@njit(cache=True, nogil=True)
def sequential_last_rows(base, scores, first, last, by_last, last_rows, R, p, k0, k1):
    """Last rows of exons k0..k1-1, one after another (SPEC §2 with the running-max fold).

    ``R`` is the fold: the start term maxed with the last rows of every exon whose last is
    below the current first; ``by_last`` lists exon positions sorted by last, and ``p`` counts
    how many of them are folded already. Every exon whose last is below first(k) precedes k
    in (first, last) order, so it is finished and joins R for good. Returns the new ``p``, so
    callers can run the exons in chunks (to report progress) and carry (R, p) between them.
    """
    K = first.shape[0]
    for k in range(k0, k1):
        while p < K and last[by_last[p]] < first[k]:
            fold_max(R, last_rows[by_last[p]])
            p += 1
        H = last_rows[k]
        copy_into(H, R)
        sweep_exon(base, scores, first[k], last[k], H)
    return p


@intrinsic
def sched_yield(typingctx):
    """POSIX sched_yield: gives the core to another runnable thread (a waiting strip whose
    producer lost its core to another process)."""
    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
        builder.call(fn, [])
        return context.get_dummy_value()
    return types.void(), codegen


@intrinsic
def monotonic(typingctx):
    """Seconds on CLOCK_MONOTONIC (POSIX clock_gettime; Linux's clock id 1): a case's own time
    inside a compiled batch."""
    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        spec = cgutils.alloca_once(builder, ir.ArrayType(i64, 2))
        byte_ptr = ir.IntType(8).as_pointer()
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), [ir.IntType(32), byte_ptr]),
                                            "clock_gettime")
        builder.call(fn, [ir.Constant(ir.IntType(32), 1), builder.bitcast(spec, byte_ptr)])
        zero = ir.Constant(ir.IntType(32), 0)
        sec = builder.load(builder.gep(spec, [zero, zero]))
        nsec = builder.load(builder.gep(spec, [zero, ir.Constant(ir.IntType(32), 1)]))
        double = ir.DoubleType()
        return builder.fadd(builder.sitofp(sec, double),
                            builder.fmul(builder.sitofp(nsec, double), ir.Constant(double, 1e-9)))
    return types.float64(), codegen


SPINS_BEFORE_YIELD = 1000


@njit(cache=True, nogil=True)
def wait_for(done, s, rows):
    """Until done[s] >= rows: spin (the producer is a tile, a few microseconds, ahead), then
    yield the core between checks."""
    spins = 0
    while load_acquire(done, s) < rows:
        spins += 1
        if spins > SPINS_BEFORE_YIELD:
            sched_yield()


# Counters sit this many int64 apart (two cache lines), so a strip's store does not take
# the line its neighbours are polling or writing.
COUNTER_STRIDE = 16


@njit(cache=True, nogil=True)
def sweep_strip(base, scores, first, last, by_last, last_rows, k0, k1, lo, hi, block, R, q, H, L, s, done):
    """Columns lo..hi of the exons k0..k1-1 (SPEC §2), strip ``s`` of the case's strip pipeline.

    The exons' rows, one after another, are the rows of the chunk (exon k0's first row is chunk
    row 0). Every row's column lo-1 comes from L[s] (strip 0 makes it from the recurrence's
    column 0) and its column hi goes to L[s+1]; done[s * COUNTER_STRIDE] counts the chunk rows
    finished here, and a tile of ``block`` rows starts once strip s-1's count covers its rows.
    ``R`` is this strip's fold of the entry row over columns lo-1..hi, ``q`` how many exons by
    last it has folded: column lo-1 of a folded last row is strip s-1's, stored before strip s-1
    counted that exon's rows. ``H`` (n+1, only lo..hi used) is this strip's own current row, so
    no other thread writes its cache lines; each exon's last row is copied to last_rows[k, lo..hi]
    (strip 0 also column 0). Returns the new ``q``.
    """
    K = first.shape[0]
    g = 0  # chunk row of exon k's first row
    for k in range(k0, k1):
        while q < K and last[by_last[q]] < first[k]:
            fold_max(R, last_rows[by_last[q], lo - 1:hi + 1])
            q += 1
        copy_into(H[lo:hi + 1], R[1:])
        rows = last[k] - first[k] + 1
        if s == 0:
            column_zero(R[0], scores[3], rows, L[0, g:g + rows])
        corner = R[0]
        for a in range(0, rows, block):
            z = min(rows, a + block)
            if s > 0:
                wait_for(done, (s - 1) * COUNTER_STRIDE, g + z)
            sweep_tile(base, scores, first[k] + a, first[k] + z - 1, lo, hi, H, corner,
                       L[s, g + a:g + z], L[s + 1, g + a:g + z])
            corner = L[s, g + z - 1]
            if a + block >= rows:  # the exon's last row, before the count says it is done
                copy_into(last_rows[k, lo:hi + 1], H[lo:hi + 1])
                if s == 0:
                    last_rows[k, 0] = L[0, g + rows - 1]
            store_release(done, s * COUNTER_STRIDE, g + z)
        g += rows
    return q


@njit(cache=True, parallel=True)
def sweep_case_strips(base, scores, first, last, by_last, last_rows, k0, k1, width, block, F, p, H, L, done):
    """Last rows of exons k0..k1-1 with the columns cut into strips of ``width`` columns, one
    per thread, all running at once as a pipeline (sweep_strip): strip s trails strip s-1 by
    about a tile. The only parallel region of the CPU solvers, one per call.

    F[s, :width+1] and p[s] are strip s's fold and fold count, carried between calls; H is
    (strips, n+1) scratch; L has strips+1 rows of at least the chunk's rows; done has
    strips * COUNTER_STRIDE zeros. A strip waits only for strips to its left, so any thread
    count finishes provided each thread runs its strips in increasing order (numba's static
    schedule does); with fewer threads than strips, one thread's strips run one after another.
    """
    n = last_rows.shape[1] - 1
    for s in prange(F.shape[0]):
        lo = 1 + s * width
        hi = min(n, lo + width - 1)
        p[s] = sweep_strip(base, scores, first, last, by_last, last_rows, k0, k1, lo, hi, block,
                           F[s, :hi - lo + 2], p[s], H[s], L, s, done)


@njit(cache=True, nogil=True)
def fold_checkpoints(by_last, lead, last_rows, stride):
    """C[c] = the fold (start term maxed with last rows) of the first c*stride exons by last.

    With stride ~ sqrt(K), any exon's entry row costs at most ``stride`` row folds from the
    nearest checkpoint, in memory K/stride rows: the traceback needs a few entry rows only.
    """
    K = by_last.shape[0]
    n = last_rows.shape[1] - 1
    C = np.empty((K // stride + 1, n + 1), dtype=last_rows.dtype)
    R = np.empty(n + 1, dtype=last_rows.dtype)
    start_row(n, lead, R)
    for p in range(K + 1):
        if p % stride == 0:
            copy_into(C[p // stride], R)
        if p < K:
            fold_max(R, last_rows[by_last[p]])
    return C


@njit(cache=True, nogil=True)
def entry_row(by_last, folded, last_rows, C, stride, P):
    """P_k, the fold of the first ``folded`` exons by last (those whose last < first(k))."""
    c = folded // stride
    copy_into(P, C[c])
    for p in range(c * stride, folded):
        fold_max(P, last_rows[by_last[p]])


@njit(cache=True, nogil=True)
def trace_exon(base, target, scores, first, last, P, j_end):
    """Recompute one exon's matrix from its entry row P and trace back from (last, j_end).

    Returns (ops reversed, j at which the path enters the entry row). At each cell the path
    takes the diagonal if it reaches the cell's score, else the base letter against a gap, else
    the target letter against a gap (in column 0 only the base letter against a gap).

    The path ends at column j_end and cells depend only on columns to their left, so columns
    beyond j_end never matter. Memory stays at a few rows: a first pass over the blocks of
    rows (sweep_block's) keeps the row above each block; then from the last block up, each
    block is swept again over the columns left of the path's column there, keeping its
    steps' vectors, and the path walks through it on the scores themselves.
    """
    codes, match, mismatch, gap = scores
    M, X, G = simd.splat(match), simd.splat(mismatch), simd.splat(gap)
    lanes = simd.count(M)
    rows = last - first + 1
    blocks = -(-rows // lanes)
    left = np.empty(rows, dtype=P.dtype)  # column 0 of rows first..last
    column_zero(P[0], gap, rows, left)
    right = np.empty(rows, dtype=P.dtype)  # a tile's right column: not needed here
    above = np.empty((blocks, j_end + 1), dtype=P.dtype)  # the row above each block
    H = P[:j_end + 1].copy()
    for k in range(blocks):
        copy_into(above[k], H)
        b = min(lanes, rows - k * lanes)
        if j_end > 0:
            sweep_block(base, codes, first + k * lanes, b, 1, j_end, M, X, G, H, H[0], left, k * lanes, right, None)
        H[0] = left[k * lanes + b - 1]
    D = np.empty((j_end + lanes) * lanes, dtype=P.dtype)
    ops = np.empty(rows + j_end, dtype=np.uint8)
    n = 0
    r, j = rows, j_end  # row r of the exon is base position first + r - 1
    for k in range(blocks - 1, -1, -1):
        top = k * lanes + 1
        if j > 0:
            copy_into(H[:j + 1], above[k, :j + 1])
            sweep_block(base, codes, first + k * lanes, min(lanes, rows - k * lanes), 1, j, M, X, G, H[:j + 1],
                        H[0], left, k * lanes, right, D)
        while r >= top:
            if j == 0:
                ops[n] = OP_DEL
                r -= 1
            else:
                ln = r - top  # cell (r, j) is lane ln of step j + ln
                h = D[(j + ln) * lanes + ln]
                up_left = above[k, j - 1] if ln == 0 else D[(j + ln - 2) * lanes + ln - 1]
                b = base[first + r - 2]
                same = b == target[j - 1]
                up = above[k, j] if ln == 0 else D[(j + ln - 1) * lanes + ln - 1]
                if up_left + (match if same else mismatch) == h:
                    ops[n] = OP_MATCH if same else OP_MISMATCH
                    r -= 1
                    j -= 1
                elif up - gap == h:
                    ops[n] = OP_DEL
                    r -= 1
                else:
                    ops[n] = OP_INS
                    j -= 1
            n += 1
    return ops[:n], j


@njit(cache=True, nogil=True)
def trace_path(base, target, scores, first, last, by_last, last_rows, lead, k, j, leading):
    """The path of an optimal chain, from exon position k, column j (trace_start)
    back to the chain's start, in one compiled call: (positions, j entered, j end, op counts)
    of the chain's exons in chain order, and the ops forward, led by the first exon's target
    letters against gaps when ``leading`` (global target ends).

    Each exon's entry row comes from the fold checkpoints (fold_checkpoints: about sqrt(K) row
    folds each); its predecessor is the exon with the largest last (then the lowest position)
    whose last row reaches the entry row where the path enters it.
    """
    K = first.shape[0]
    n = last_rows.shape[1] - 1
    # Plain loops rather than np.sqrt / np.searchsorted / fancy indexing: their implementations'
    # module (numba.np.arraymath) would be imported when the cached kernel loads, and with it
    # SciPy's BLAS check (scipy.linalg) in every CPU align.
    stride = 1
    while (stride + 1) * (stride + 1) <= K:  # floor(sqrt(K)), at least 1
        stride += 1
    checkpoints = fold_checkpoints(by_last, lead, last_rows, stride)
    P = np.empty(n + 1, dtype=last_rows.dtype)
    size = 2 * n  # a bound on the ops: every exon's rows, the target's columns twice
    for q in range(K):
        size += last[q] - first[q] + 1
    rev = np.empty(size, dtype=np.uint8)  # the exons' ops reversed, in trace order: all reversed
    positions = np.empty(K, dtype=np.int64)
    entered = np.empty(K, dtype=np.int64)
    ends = np.empty(K, dtype=np.int64)
    counts = np.empty(K, dtype=np.int64)
    c = 0
    total = 0
    while True:
        folded, hi = 0, K  # how many exons have last < first(k): a binary search along by_last
        while folded < hi:
            mid = (folded + hi) // 2
            if last[by_last[mid]] < first[k]:
                folded = mid + 1
            else:
                hi = mid
        entry_row(by_last, folded, last_rows, checkpoints, stride, P)
        ops, j0 = trace_exon(base, target, scores, first[k], last[k], P, j)
        copy_into(rev[total:total + ops.size], ops)
        total += ops.size
        positions[c], entered[c], ends[c], counts[c] = k, j0, j, ops.size
        c += 1
        best = -1
        for q in range(K):
            if last[q] < first[k] and last_rows[q, j0] == P[j0] and (best < 0 or last[q] > last[best]):
                best = q
        if best < 0:
            # P[j0] is the chain-start term: t_1..t_j0 before this exon (against gaps, or free).
            assert P[j0] == -lead * j0
            break
        k, j = best, j0
    if leading:
        rev[total:total + j0] = OP_INS
        total += j0
    return (positions[:c][::-1].copy(), entered[:c][::-1].copy(), ends[:c][::-1].copy(), counts[:c][::-1].copy(),
            rev[:total][::-1].copy())


@njit(cache=True, nogil=True)
def solve_case(c, bases, base_at, targets, target_at, firsts, lasts, by_lasts, exon_at, match, mismatch, gap, lead,
               free_ends, traceback, finals, chain_length, positions, entered, ends, counts, ops, ops_at, ops_count,
               seconds):
    """Case c of a packed batch (cpu.solve_batch: its base at bases[base_at[c, 0]:base_at[c, 1]],
    its target likewise, its exons at exon_at[c]..exon_at[c+1]): every exon's last row in turn
    (sequential_last_rows), its final scores into finals[exon_at[c]:], and with ``traceback``
    the chain's path (trace_path, from trace_start's cell) into its exons' slots of
    positions/entered/ends/counts (chain_length[c] of them) and ops[ops_at[c]:] (ops_count[c]);
    seconds[c] = (score, traceback) seconds."""
    t0 = monotonic()
    base = bases[base_at[c, 0]:base_at[c, 1]]
    target = targets[target_at[c, 0]:target_at[c, 1]]
    e0, e1 = exon_at[c], exon_at[c + 1]
    first, last, by_last = firsts[e0:e1], lasts[e0:e1], by_lasts[e0:e1]
    n = target.shape[0]
    K = e1 - e0
    scores = (lane_codes(target, match), match, mismatch, gap)
    rows = np.empty((K, n + 1), dtype=finals.dtype)
    R = np.empty(n + 1, dtype=finals.dtype)
    start_row(n, lead, R)
    sequential_last_rows(base, scores, first, last, by_last, rows, R, 0, 0, K)
    final_scores(rows, free_ends, finals[e0:e1])
    t1 = monotonic()
    seconds[c, 0] = t1 - t0
    if not traceback:
        seconds[c, 1] = 0.0
        return
    k, j = trace_start(rows, finals[e0:e1], free_ends)
    path = trace_path(base, target, scores, first, last, by_last, rows, lead, k, j, not free_ends)
    length = path[0].shape[0]
    chain_length[c] = length
    copy_into(positions[e0:e0 + length], path[0])
    copy_into(entered[e0:e0 + length], path[1])
    copy_into(ends[e0:e0 + length], path[2])
    copy_into(counts[e0:e0 + length], path[3])
    ops_count[c] = path[4].shape[0]
    copy_into(ops[ops_at[c]:ops_at[c] + ops_count[c]], path[4])
    seconds[c, 1] = monotonic() - t1


@njit(cache=True, nogil=True)
def solve_cases(order, claimed, done_cells, cells, bases, base_at, targets, target_at, firsts, lasts, by_lasts,
                exon_at, match, mismatch, gap, lead, free_ends, traceback, finals, chain_length, positions, entered,
                ends, counts, ops, ops_at, ops_count, seconds):
    """One thread's share of a packed batch (cpu.solve_batch runs it on numba's thread count of
    threads at once, the GIL released): the thread draws the next case of ``order`` (largest first) from
    the counter ``claimed[0]`` until none is left, so no thread idles while cases remain,
    whatever their sizes; done_cells[1] counts the cases finished, done_cells[0] their cells
    (progress; a case counted before its cells, so a poll that reads the cells first and finds them
    all done finds every case done: counted the other way round, a poll between a last case's two
    counts said "7/8 cases, 100.0% of cells" without an ETA). The cases' Python objects stay out of
    it (solve_case). Not a numba parallel function: its parallel compile took ~5x the plain one's
    CPU (11.7 against 2.0 s, 2-core machine) in every process that compiled it, for the same loop
    on the same threads."""
    while True:
        i = fetch_add(claimed, 0, 1)
        if i >= order.shape[0]:
            break
        c = order[i]
        solve_case(c, bases, base_at, targets, target_at, firsts, lasts, by_lasts, exon_at, match, mismatch, gap,
                   lead, free_ends, traceback, finals, chain_length, positions, entered, ends, counts, ops, ops_at,
                   ops_count, seconds)
        fetch_add(done_cells, 1, 1)
        fetch_add(done_cells, 0, cells[c])
