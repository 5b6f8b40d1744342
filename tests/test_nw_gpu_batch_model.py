"""A NumPy model of the `gpu` batch kernels (workloads/nw/gpu/batch.cu), checked on the CPU:
nw_band's row sweep in a band (lanes of C cells, the I scan over lanes as Kogge-Stone, the move
bits), its traceback into runs, nw_band_text's CIGAR; and the host's two passes
(batch.pre_bands, then batch.main_bands from the narrow band's score) with the certificate
(band.escape_between). The model mirrors the kernels' indexing statement by statement, so a
mistake in the design shows here without a GPU; the kernels themselves run in tests/test_nw_gpu.py
on the device."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.workloads.nw import Costs, Pair, cigar_cost
from splicedalign.workloads.nw.gpu import batch
from splicedalign.workloads.nw.gpu.band import escape_between
from splicedalign.workloads.nw.records import MODES, OP_DEL, OP_INS, OP_LETTERS, OP_MATCH, OP_MISMATCH
from splicedalign.workloads.nw.reference import ReferenceSolver

INF = batch.INF
LANES = batch.LANES
PAD = 7


def model_band(a, b, costs: Costs, mode: str, band: batch.WarpBand, trace: bool = True):
    """nw_band for one pair: (score, end2, start2, runs) with runs in the kernel's (backward) order."""
    n, m, lo, C = a.size, b.size, band.lo, band.cells
    W = LANES * C
    match, mismatch, o, e = costs.as_affine()
    oe = o + e
    affine = costs.affine
    t = np.arange(W, dtype=np.int64)
    j0 = lo + t
    H = np.where((j0 < 0) | (j0 > m), INF, np.where((j0 == 0) | (mode == "infix"), 0, o + j0 * e))
    D = np.full(W, INF, dtype=np.int64)
    moves = np.zeros((n + 1, W), dtype=np.int64)
    bpad = lambda j: np.where((j >= 1) & (j <= m), b[np.clip(j - 1, 0, max(m - 1, 0))], PAD)  # noqa: E731
    for i in range(1, n + 1):
        j = i + lo + t
        same = a[i - 1] == bpad(j)
        sub = np.where(same, match, mismatch)
        h_up = np.r_[H[1:], INF]
        d_up = np.r_[D[1:], INF]
        mm = H + sub
        if affine:
            dd = np.minimum(h_up + oe, d_up + e)
            bits = np.where(h_up + oe <= d_up + e, 4, 0)
        else:
            dd = h_up + e
            bits = np.zeros(W, dtype=np.int64)
        diagonal = np.where(same, OP_MATCH, OP_MISMATCH)
        bits |= np.where(mm <= dd, 0, 1) if affine else np.where(mm <= dd, diagonal, OP_DEL)
        hp = np.minimum(mm, dd)
        out, col0 = (j < 0) | (j > m), j == 0
        hp[out], dd[out] = INF, INF
        hp[col0], dd[col0] = o + i * e, o + i * e
        D = dd
        # the I scan: each lane's candidate at its right end, Kogge-Stone over lanes, then cells
        lanes = hp.reshape(LANES, C)
        acc = np.full((4, LANES), INF, dtype=np.int64)
        for k in range(C):
            acc[k % 4] = np.minimum(lanes[:, k] + oe + (C - 1 - k) * e, acc[k % 4])
        right = np.minimum(acc.min(axis=0), INF)
        d = 1
        while d < LANES:
            shifted = right.copy()
            shifted[d:] = np.minimum(right[d:], np.minimum(right[:-d] + d * C * e, INF))
            right = shifted
            d *= 2
        carry = np.r_[INF, right[:-1]]
        newH = np.empty_like(lanes)
        lane_bits = bits.reshape(LANES, C)
        opened = np.ones(LANES, dtype=np.int64)
        for k in range(C):
            ik = carry
            if affine and k > 0:
                lane_bits[:, k] |= opened << 3
            lane_bits[:, k] |= np.where(ik < lanes[:, k], 2 if affine else OP_INS, 0)
            newH[:, k] = np.minimum(lanes[:, k], ik)
            opened = np.where(lanes[:, k] + oe <= ik + e, 1, 0)
            carry = np.minimum(ik + e, lanes[:, k] + oe)
        if affine:
            lane_bits[:, 0] |= np.r_[1, opened[:-1]] << 3
        H = newH.reshape(-1)
        H[out] = INF
        H[col0] = o + i * e
        moves[i] = lane_bits.reshape(-1)
    jn = n + lo + t
    if mode == "global":
        score, end2 = int(H[m - n - lo]), m
    else:
        valid = (jn >= 0) & (jn <= m)
        score = int(H[valid].min())
        end2 = int(jn[valid][np.argmax(H[valid] == score)])
    if not trace:
        return score, end2, 0, []
    runs: list[tuple[int, int]] = []

    def emit(op, length):
        if runs and runs[-1][1] == op:
            runs[-1] = (runs[-1][0] + length, op)
        elif length:
            runs.append((length, op))

    i, j, state, start2 = n, end2, 0, 0
    while i > 0 and j > 0:
        cell = int(moves[i, j - i - lo])
        if not affine:  # the move itself: =, X, D or I
            emit(cell, 1)
            i, j = i - (cell != OP_INS), j - (cell != OP_DEL)
            continue
        hs = cell & 3
        if state <= 1:
            if state == 0 and hs >= 2:
                state = 3
            elif hs & 1:
                state = 2
            else:
                emit(OP_MATCH if a[i - 1] == b[j - 1] else OP_MISMATCH, 1)
                i, j, state = i - 1, j - 1, 0
        elif state == 2:
            emit(OP_DEL, 1)
            i -= 1
            state = 0 if not affine or cell & 4 else 2
        else:
            emit(OP_INS, 1)
            j -= 1
            state = 0 if not affine else (1 if cell & 8 else 3)
    if i > 0:
        emit(OP_DEL, i)
    if j > 0 and mode != "infix":
        emit(OP_INS, j)
    if j > 0 and mode == "infix":
        start2 = j
    return score, end2, start2, runs


def model_text(runs) -> str:
    """nw_band_text: the runs forwards."""
    return "".join(f"{length}{OP_LETTERS[op]}" for length, op in reversed(runs))


def model_solve(pair: Pair, costs: Costs, mode: str):
    """The host's two passes over the model; (score, end2, start2, cigar, main band)."""
    n, m = np.array([pair.n]), np.array([pair.m])
    pre_cells, pre_lo = batch.pre_bands(n, m, costs)
    assert pre_cells[0] and batch.usable(n, m, costs)[0]
    rough = model_band(pair.a, pair.b, costs, mode, batch.WarpBand(int(pre_cells[0]), int(pre_lo[0])), trace=False)[0]
    cells, lo = batch.main_bands(costs, mode, n, m, np.array([rough]))
    if not cells[0]:
        return None
    band = batch.WarpBand(int(cells[0]), int(lo[0]))
    score, end2, start2, runs = model_band(pair.a, pair.b, costs, mode, band)
    assert score <= rough and batch.certified(costs, mode, n, m, cells, lo, np.array([score]))[0]
    return score, end2, start2, model_text(runs), band


COSTS = [Costs(), Costs(0, 4, 2, 6), Costs(-1, 2, 3), Costs(0, 1, 1), Costs(-2, 3, 1, 4), Costs(0, 2, 5, 1)]


def random_pair(rng, k):
    n = int(rng.integers(1, 160))
    a = rng.integers(0, 4, n).astype(np.uint8)
    kind = k % 4
    if kind == 0:  # unrelated, any length
        b = rng.integers(0, 4, int(rng.integers(1, 160))).astype(np.uint8)
    else:  # a mutated copy (a slice of it for infix-like pairs)
        keep = rng.random(n) > 0.05
        b = a[keep].copy()
        flip = rng.random(b.size) < 0.08
        b[flip] = (b[flip] + 1) % 4
        if kind == 3:
            b = np.concatenate([rng.integers(0, 4, int(rng.integers(0, 30))), b,
                                rng.integers(0, 4, int(rng.integers(0, 30)))]).astype(np.uint8)
        if b.size == 0:
            b = np.array([1], dtype=np.uint8)
    b[rng.random(b.size) < 0.03] = 5  # wildcards of b never match
    a[rng.random(a.size) < 0.02] = 4
    return Pair(f"r{k}", "a", "b", a, b)


@pytest.mark.parametrize("mode", MODES)
def test_model_equals_reference_every_mode_and_cost_model(mode):
    seed = 2611 + MODES.index(mode)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    for k in range(36):
        pair = random_pair(rng, k)
        costs = COSTS[k % len(COSTS)]
        got = model_solve(pair, costs, mode)
        if got is None:
            continue  # no band certifies: the single-pair solver's pair
        score, end2, start2, cigar, _ = got
        want = reference.solve(pair, costs, traceback=False, mode=mode).score
        assert score == want, (pair.name, costs, mode)
        assert cigar_cost(cigar, pair.a, pair.b, costs, start2, end2) == want, (pair.name, costs, mode, cigar)
        if mode == "global":
            assert (start2, end2) == (0, pair.m)
        if mode == "prefix":
            assert start2 == 0


def test_narrow_bands_force_the_scan_across_lanes():
    """A 300 x 300 pair in a 128-diagonal band (4 cells a lane): gaps cross lanes, the band
    crosses column 0 and m, the certificate holds at the optimum."""
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, 300).astype(np.uint8)
    b = np.concatenate([a[:100], rng.integers(0, 4, 7), a[100:200], a[215:]]).astype(np.uint8)
    pair = Pair("gappy", "a", "b", a, b)
    reference = ReferenceSolver()
    for costs in (Costs(), Costs(0, 4, 2, 6)):
        for mode in MODES:
            band = batch.WarpBand(4, int(batch.placements(np.array([pair.n]), np.array([pair.m]), 4, 1 / 2)[0][0]))
            score, end2, start2, runs = model_band(a, b, costs, mode, band)
            want = reference.solve(pair, costs, traceback=False, mode=mode).score
            assert score == want
            cigar = model_text(runs)
            assert cigar_cost(cigar, a, b, costs, start2, end2) == want


def test_escape_bound_is_below_every_path_leaving_the_band():
    """Brute force on tiny pairs: the best alignment that touches a cell outside the band costs
    at least escape_between, for bands anywhere (the DP restricted to paths through outside cells)."""
    rng = np.random.default_rng(11)
    for trial in range(200):
        n, m = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        a, b = rng.integers(0, 3, n), rng.integers(0, 3, m)
        costs = COSTS[trial % len(COSTS)]
        mode = MODES[trial % 3]
        lo = int(rng.integers(-n - 1, m + 1))
        hi = lo + int(rng.integers(0, n + m + 2))
        bound = escape_between(costs, mode, n, m, lo, hi)
        outside = _best_outside(a, b, costs, mode, lo, hi)
        if bound is None:
            assert outside is None
        elif outside is not None:
            assert outside >= bound, (n, m, lo, hi, costs, mode)


def _best_outside(a, b, costs, mode, lo, hi):
    """Least cost of an alignment (mode) through at least one cell outside lo..hi, by
    enumerating Gotoh states with a 'left the band' flag (tiny inputs only)."""
    n, m = a.size, b.size
    match, mismatch, o, e = costs.as_affine()
    big = 1 << 40
    # state[i][j][s][f]: s = 0 H, 1 D (last move down), 2 I (last move right); f = outside seen
    best = np.full((n + 1, m + 1, 3, 2), big, dtype=np.int64)
    for j in range(m + 1):
        if mode == "infix" or j == 0:
            f = int(not lo <= j <= hi)
            best[0, j, 0, f] = 0
    for i in range(n + 1):
        for j in range(m + 1):
            f_here = int(not lo <= j - i <= hi)
            for f in (0, 1):
                ff = max(f, f_here)
                if i and j:
                    sub = match if a[i - 1] == b[j - 1] else mismatch
                    v = best[i - 1, j - 1, :, f].min() + sub
                    best[i, j, 0, ff] = min(best[i, j, 0, ff], v)
                if i:
                    v = min(best[i - 1, j, 0, f] + o + e, best[i - 1, j, 2, f] + o + e, best[i - 1, j, 1, f] + e)
                    best[i, j, 1, ff] = min(best[i, j, 1, ff], v)
                if j:
                    v = min(best[i, j - 1, 0, f] + o + e, best[i, j - 1, 1, f] + o + e, best[i, j - 1, 2, f] + e)
                    best[i, j, 2, ff] = min(best[i, j, 2, ff], v)
    ends = [m] if mode == "global" else range(m + 1)
    got = min(best[n, j, :, 1].min() for j in ends)
    return None if got >= big // 2 else int(got)


def test_classes_and_placement():
    n, m = np.array([100, 100, 100]), np.array([100, 300, 150])
    lo, fits = batch.placements(n, m, 4, 1 / 2)
    assert list(fits) == [True, False, True]  # 200 diagonals apart: wider than 128
    assert lo[0] == -63 and lo[2] <= 0 and lo[2] + 127 >= 50
    # the narrow pass: 128 diagonals up to 31 apart (+-48 beside them), then 256
    assert list(batch.pre_bands(np.array([10_000] * 2), np.array([10_020, 10_040]), Costs())[0]) == [4, 8]
    big = np.array([10_000])
    # 10 kb at 5%, WFA2's affine costs: a score of ~2,400 needs ~1,200 diagonals in global mode,
    # ~1,800 in prefix mode (one gap below: wider than the widest affine class), and linear costs
    # (score ~700) ~470 in infix mode (one gap on each side)
    assert batch.main_bands(Costs(0, 4, 2, 6), "global", big, big, np.array([2_400]))[0][0] == 40
    assert batch.main_bands(Costs(0, 4, 2, 6), "prefix", big, big, np.array([2_400]))[0][0] == 0
    assert batch.main_bands(Costs(0, 1, 3), "infix", big, big, np.array([700]))[0][0] == 16
    assert batch.main_bands(Costs(), "global", big, big, np.array([700]))[0][0] == 8
    assert batch.main_bands(Costs(), "global", big, big, np.array([10_000]))[0][0] == 0


class FakeArray(np.ndarray):
    """A NumPy array standing in for a CuPy one: ``get`` and ``set`` copy."""

    def get(self, stream=None, out=None, blocking=True):
        if out is None:
            return np.array(self)
        np.copyto(out, self)
        return out

    def set(self, source, stream=None):
        np.copyto(self, source)

    @property
    def data(self):
        """CuPy's memory pointer: its address (``ptr``; the host's here)."""
        from types import SimpleNamespace

        return SimpleNamespace(ptr=self.ctypes.data)


class FakeEvent:
    def record(self, stream=None):
        return self

    def synchronize(self):
        pass


class FakeStream(FakeEvent):
    ptr = 0

    def __init__(self, null=False, non_blocking=False, priority=None):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def wait_event(self, event):
        pass


class FakePointer:
    """CuPy's CPointer (cupy.cuda.function): a launch argument's host address, passed to the driver as it is."""

    def __init__(self, p=0):
        self.ptr = p


def memcpy_async(dst, src, size, kind, stream):
    """cudaMemcpyAsync on the host: every fake device array is host memory (its ``data.ptr``)."""
    import ctypes

    ctypes.memmove(dst, src, size)


def fake_cupy():
    from types import SimpleNamespace

    def wrap(a):
        return np.asarray(a).view(FakeArray)

    stream = FakeStream()
    cuda = SimpleNamespace(Event=FakeEvent, Stream=FakeStream, get_current_stream=lambda: stream,
                           get_elapsed_time=lambda a, b: 0.0,
                           runtime=SimpleNamespace(deviceSynchronize=lambda: None, memcpyHostToDevice=1,
                                                   memcpyDeviceToHost=2, memcpyAsync=memcpy_async))
    return SimpleNamespace(
        asarray=wrap, empty=lambda shape, dtype: wrap(np.empty(shape, dtype)),
        zeros=lambda shape, dtype: wrap(np.zeros(shape, dtype)), cumsum=lambda a: wrap(np.cumsum(a)),
        int32=np.int32, int64=np.int64, uint8=np.uint8, uint32=np.uint32, uint64=np.uint64, cuda=cuda)


def fake_gpu_host(monkeypatch, budget: int):
    """The nw GPU solvers' host side on NumPy: fake_cupy as gpu.device's CuPy, plain arrays for
    pinned memory, BUDGET bytes of device memory. Returns the fake CuPy."""
    from splicedalign.gpu import device

    cp = fake_cupy()
    monkeypatch.setattr(device, "cupy", lambda: cp)
    monkeypatch.setattr(device, "empty_pinned", lambda n, dtype: np.empty(n, dtype))
    monkeypatch.setattr(device, "memory_budget", lambda cap=None: budget)
    monkeypatch.setattr(device, "launch", fake_launch)
    return cp


def fake_launch(kernel, blocks, threads, arguments, shared_mem, stream):
    """device.launch on the host: ``kernel`` (a fake one) called as CuPy calls it, each argument a CPointer to its
    slot (device.ArgumentSlots.params)."""
    kernel((blocks,), (threads,), tuple(FakePointer(p) for p in arguments.params), shared_mem=shared_mem)


def fake_kernel(name, launches):
    """nw_band / nw_band_text on the model: the launch's arguments as batch.py passes them."""

    def sweep(grid, block, args):
        seqs, desc, count, mode, match, mismatch, open_, extend, dirs, runs, result = args
        launches.append((name, int(count), isinstance(dirs, np.ndarray)))
        costs = Costs(int(match), int(mismatch), int(extend), int(open_))
        cells = int(name.split("<")[1].split(",")[0])
        for w in range(int(count)):
            a_at, b_at, n, m, lo, _, runs_at = (int(v) for v in desc[w])
            a, b = np.asarray(seqs[a_at:a_at + n]), np.asarray(seqs[b_at:b_at + m])
            trace = isinstance(runs, np.ndarray)
            score, end2, start2, moves = model_band(a, b, costs, MODES[int(mode)], batch.WarpBand(cells, lo), trace)
            for x, (length, op) in enumerate(moves):
                runs[runs_at + x] = (length << 2) | op
            result[w] = (score, end2, start2, len(moves))

    def text(grid, block, args):
        desc, runs, result, count, at, out = args
        for w in range(int(count)):
            runs_at, found = int(desc[w][6]), int(result[w][3])
            moves = [(int(v) >> 2, int(v) & 3) for v in runs[runs_at:runs_at + found]]
            cigar = model_text(moves).encode()
            if isinstance(out, np.ndarray):
                out[int(at[w]):int(at[w]) + len(cigar)] = np.frombuffer(cigar, np.uint8)
            else:
                at[w] = len(cigar)

    return text if name == batch.TEXT else sweep


@pytest.mark.parametrize("mode", MODES)
def test_batch_solver_host_path_on_the_model(mode, monkeypatch):
    """BatchSolver end to end with the kernels replaced by the model and CuPy by NumPy: the two
    passes, classes, chunks under a small memory budget, descriptors, runs and text offsets,
    answers in input order, the single-pair hand-on."""
    from splicedalign.gpu import device

    fake_gpu_host(monkeypatch, 600_000)
    launches = []
    monkeypatch.setattr(device, "function", lambda source, name, names, defines: fake_kernel(name, launches))
    seed = 2700 + MODES.index(mode)
    print(f"seed {seed}")
    from splicedalign.workloads.nw.synthetic import random_batch

    pairs = random_batch(np.random.default_rng(seed), 14, 400, flank=40)
    pairs.append(Pair("empty-ish", "a", "b", np.array([1], np.uint8), np.arange(4, dtype=np.uint8) % 4))
    reference = ReferenceSolver()
    handed = []

    def single(pair, costs, traceback, mode):
        handed.append(pair.name)
        return reference.solve(pair, costs, traceback, mode)

    for costs in (Costs(), Costs(0, 4, 2, 6)):
        solver = batch.BatchSolver(single, poison=True)
        got = solver.solve_many(pairs, costs, traceback=True, mode=mode)
        assert sum(solver.stats["main"].values()) + solver.stats["single"] == len(pairs)
        traced = [count for _, count, moves in launches if moves]
        assert len(traced) > len(solver.stats["main"]) and sum(traced) == sum(solver.stats["main"].values())
        launches.clear()
        scores = solver.solve_many(pairs, costs, traceback=False, mode=mode)
        for pair, r, s in zip(pairs, got, scores):
            want = reference.solve(pair, costs, traceback=False, mode=mode).score
            assert r.score == s.score == want, (pair.name, costs, mode)
            assert cigar_cost(r.cigar, pair.a, pair.b, costs, r.start2, r.end2) == want, (pair.name, costs)
            assert r.algorithm in ("band", "dp")
