"""Device traceback (wavefront.cu ``trace_chains``) without a GPU: a NumPy model of what one
warp does per case (best exon, entry row from the row storage, recompute with 2-bit moves in
the scratch layout, walk, op codes, predecessor choice, output layout) runs on the wavefront
model's row storage; its chains and ops must equal ``trace_chain``'s on the CPU solver's rows,
byte for byte, and pass the oracle. Only the CUDA transcription is left to the device check.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from splicedalign.workloads.spliced.backtrack import trace_chain
from splicedalign.workloads.spliced.cpu_kernels import profile, score_dtype
from splicedalign.workloads.spliced.gpu import plan as gpu_plan
from splicedalign.workloads.spliced.gpu.plan import (
    DIR_COLS, NONE, SEL_CODE_MASK, TR_DIAG, TR_LEFT, TR_UP, TRACE_CASE_FIELDS, TRACE_EXON_FIELDS, build_plan,
    selectors, trace_inputs)
from splicedalign.workloads.spliced.gpu.solver import GpuSolver
from splicedalign.workloads.spliced.oracle import alignment_problems
from splicedalign.workloads.spliced.records import (
    OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Exon, Result, Scoring, TestCase)
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced.synthetic import Shape, gene_like, tiny_set

from conftest import golden_case
from helpers import random_spliced_case as random_case
from test_spliced_gpu_plan import _fake_function, fake_gpu, model_run

E = {name: i for i, name in enumerate(TRACE_EXON_FIELDS)}
CF = {name: i for i, name in enumerate(TRACE_CASE_FIELDS)}


def predecessor(exons, rows, a, k, j0, gap) -> int:
    """The exon the path came from into exon k's entry row at column j0 (largest last, then the
    lowest position, among exons a..k-1 with last < first(k) whose last row reaches the entry
    row's value there), or -1: the path began at the chain-start row."""
    first, _, _, _, in_, in2 = (int(v) for v in exons[k])
    value = -gap * j0 if in_ == NONE else int(rows[in_ + j0])
    if in2 != NONE:
        value = max(value, int(rows[in2 + j0]))
    best, pred = -1, -1
    for e in range(a, k):
        last = int(exons[e, E["last"]])
        if best < last < first and rows[exons[e, E["row"]] + j0] == value:
            best, pred = last, e
    return pred


def model_trace(table, exons, rows, base, tsel, dirs_size, h_size, ops, out_case, out_exon, match, mismatch, gap,
                moves=None):
    """What trace_chains writes (ops, out_case, out_exon), case by case; asserts that every
    access stays inside the case's scratch and op region. ``moves`` (a list) gets each traced
    exon's packed move words."""
    C = table.shape[0]
    for c in range(C):
        a, b, n, tgt, dirs_at, h_at, ops_end = (int(v) for v in table[c])
        dirs_cap = (int(table[c + 1, CF["dirs"]]) if c + 1 < C else dirs_size) - dirs_at
        assert h_at + 2 * (n + 1) <= h_size
        ops_cap = ops_end - (int(table[c - 1, CF["ops"]]) if c else 0)
        codes = (tsel[tgt: tgt + n + 1] & SEL_CODE_MASK).astype(np.int64)
        finals = np.array([rows[exons[e, E["row"]] + n] for e in range(a, b)])
        k = a + int(np.argmax(finals))  # lowest position among equals
        j, g, length = n, 0, 0
        while True:
            first, last, bo, row, in_, in2 = (int(v) for v in exons[k])
            L, W = last - first + 1, j // DIR_COLS + 1
            assert L * W <= dirs_cap, "move scratch overflow"
            cols = np.arange(j + 1)
            entry = -gap * cols if in_ == NONE else rows[in_: in_ + j + 1].astype(np.int64)
            if in2 != NONE:
                entry = np.maximum(entry, rows[in2: in2 + j + 1])
            D = np.zeros((L, W), dtype=np.uint32)
            up = entry
            for rho in range(L):
                w = np.where(codes[1: j + 1] == base[bo + rho], match, mismatch)
                dg = np.concatenate(([np.iinfo(np.int64).min // 2], up[:-1] + w))
                vt = up - gap
                # v[c] = max(dg[c], vt[c], v[c-1] - gap): a running max in gap-shifted terms
                v = np.maximum.accumulate(np.maximum(dg, vt) + gap * cols) - gap * cols
                mv = np.where(dg == v, TR_DIAG, np.where(vt == v, TR_UP, TR_LEFT))
                mv[0] = TR_UP
                for c0 in range(0, j + 1, DIR_COLS):
                    chunk = mv[c0: c0 + DIR_COLS].astype(np.uint32)
                    D[rho, c0 // DIR_COLS] = np.bitwise_or.reduce(chunk << (2 * np.arange(chunk.size, dtype=np.uint32)))
                up = v
            if moves is not None:
                moves.append(D.ravel().copy())
            r, jj, g0 = L, j, g
            while r > 0:
                m = (int(D[r - 1, jj // DIR_COLS]) >> (2 * (jj % DIR_COLS))) & 3
                if m == TR_DIAG:
                    op = OP_MATCH if base[bo + r - 1] == codes[jj] else OP_MISMATCH
                    r, jj = r - 1, jj - 1
                elif m == TR_UP:
                    op, r = OP_DEL, r - 1
                else:
                    op, jj = OP_INS, jj - 1
                assert g < ops_cap, "op region overflow"
                ops[ops_end - 1 - g] = op
                g += 1
            out_exon[4 * (a + length): 4 * (a + length) + 4] = (k, jj, j, g - g0)
            length += 1
            j0, pred = jj, predecessor(exons, rows, a, k, j0=jj, gap=gap)
            if pred < 0:
                assert g + j0 <= ops_cap
                ops[ops_end - g - j0: ops_end - g] = OP_INS
                g += j0
                break
            k, j = pred, j0
        out_case[2 * c: 2 * c + 2] = (length, g)


def traced_by_model(cases, scoring):
    plan = build_plan(cases, 2)
    rows = model_run(plan, scoring, 2)
    info = trace_inputs(plan, cases)
    ops = np.full(info.ops_size, 0xFF, dtype=np.uint8)
    out_case = np.full(2 * len(cases), -1, dtype=np.int32)
    out_exon = np.full(4 * info.exons.shape[0], -1, dtype=np.int32)
    model_trace(info.cases, info.exons, rows, plan.base, selectors(plan.target), info.dirs_size, info.h_size, ops,
                out_case, out_exon, scoring.match, scoring.mismatch, scoring.gap)
    return GpuSolver._traced(cases, info, out_case, out_exon, ops)


def check_against_cpu(cases, scoring):
    got = traced_by_model(cases, scoring)
    for case, (chain, alignment, _) in zip(cases, got):
        dtype = score_dtype(case.m, case.n, scoring)
        prof = profile(case.target_codes, scoring, dtype)
        rows = get_solver("sequential").last_rows(case, scoring, prof)
        want_chain, want_alignment = trace_chain(case, scoring, rows, prof)
        assert chain == want_chain, case.name
        assert alignment == want_alignment, case.name  # ops byte for byte, spans, indices
        result = Result(case.name, "model", int(rows[:, case.n].max()), case.cells, 0.0, chain, alignment)
        assert alignment_problems(case, result, scoring) == [], case.name


def test_model_trace_matches_cpu_trace_random():
    seed = 20261122
    rng = np.random.default_rng(seed)
    cases = [random_case(rng, f"t{i}") for i in range(20)] + tiny_set(bases=2)
    for scoring in (Scoring(), Scoring(2, -3, 1), Scoring(1, -1, 0)):
        check_against_cpu(cases, scoring)


def test_model_trace_golden(golden):
    pairs = [golden_case(g) for g in golden]
    for scoring in {s for _, s in pairs}:
        check_against_cpu([c for c, s in pairs if s == scoring], scoring)


def long_exon_case(rng) -> TestCase:
    """A chain of exons of two and three trace strips (256 rows each): the target is their
    concatenation with a few substitutions."""
    base = rng.choice(list("ACGT"), 1_000)
    target = np.concatenate((base[0:300], base[349:869]))
    flip = rng.random(target.size) < 0.05
    target[flip] = rng.choice(list("ACGT"), int(flip.sum()))
    exons = (Exon(1, 300), Exon(350, 869), Exon(100, 120), Exon(880, 950), Exon(5, 5))
    return TestCase("long", "".join(base), "".join(target), exons)


def test_model_trace_long_exons_and_wide_targets():
    """Exons longer than a trace strip (256 rows) and targets over many move words."""
    rng = np.random.default_rng(7)
    cases = gene_like(rng, Shape(m=4_000, K=8, n=90, exon_mean=300), "g", targets=2) + [long_exon_case(rng)]
    check_against_cpu(cases, Scoring())


def test_scratch_sizes():
    rng = np.random.default_rng(3)
    cases = [random_case(rng, f"s{i}") for i in range(6)]
    plan = build_plan(cases, 8)
    info = trace_inputs(plan, cases)
    assert info.exons.dtype == np.int32 and info.cases.dtype == np.int64
    lengths = [c.last_sorted - c.first_sorted + 1 for c in cases]
    assert info.dirs_size == sum(int(L.max()) * (c.n // DIR_COLS + 1) for L, c in zip(lengths, cases))
    assert info.ops_size == sum(c.n + min(c.m, int(L.sum())) for L, c in zip(lengths, cases))
    assert (np.diff(info.cases[:, CF["ops"]]) > 0).all()


def test_kernel_reads_every_trace_field():
    source = Path(gpu_plan.__file__).with_name("wavefront.cu").read_text()
    for name in TRACE_EXON_FIELDS:
        assert f"[TE_{name.upper()}]" in source, name
    for name in TRACE_CASE_FIELDS:
        assert f"[TC_{name.upper()}]" in source, name


def _fake_function_with_trace(file, name, all_names, defines):
    if not name.startswith("trace_chains"):
        return _fake_function(file, name, all_names, defines)
    assert name in all_names and defines == gpu_plan.kernel_defines()

    def trace(grid, block, args):
        table, ncases, exons, rows, base, tsel, dirs, hbuf, ops, out_case, out_exon, match, mismatch, gap = args
        assert int(ncases) == table.shape[0] and grid[0] * block[0] >= 32 * int(ncases)
        model_trace(table, exons, rows, base, tsel, dirs.size, hbuf.size, ops, out_case, out_exon,
                    int(match), int(mismatch), int(gap))
    return trace


def test_gpu_solver_device_trace_host_path(monkeypatch):
    """GpuSolver(device_trace=True).solve_many end to end with the NumPy models as the kernels:
    the same chains and alignments as `sequential`; the CPU trace path agrees."""
    fake_gpu(monkeypatch, _fake_function_with_trace)
    rng = np.random.default_rng(9)
    cases = [random_case(rng, f"d{i}") for i in range(10)] + tiny_set(bases=1)
    for scoring in (Scoring(), Scoring(2, -3, 1)):
        want = get_solver("sequential").solve_many(cases, scoring, traceback=True)
        solver = GpuSolver(rows_per_lane=2, poison=True, device_trace=True)
        got = solver.solve_many(cases, scoring, traceback=True)
        again = solver.solve_many(cases, scoring, traceback=True)  # cached plan and trace records
        for w, g, h in zip(want, got, again):
            assert (g.score, g.chain, g.alignment) == (w.score, w.chain, w.alignment)
            assert (h.chain, h.alignment) == (g.chain, g.alignment)
            assert g.alignment[0].cigar == w.alignment[0].cigar


def warp_trace(table, exons, rows, base, tsel, dirs, hbuf, ops, out_case, out_exon, match, mismatch, gap,
               moves=None, R=gpu_plan.TRACE_ROWS_PER_LANE):
    """trace_chains transcribed lane by lane (NumPy arrays over the 32 lanes of a warp, steps
    in the kernel's order, the same window, skew, shuffle and flush arithmetic): checks the CUDA
    transcription's indexing where model_trace checks the algorithm."""
    lane = np.arange(32)
    for c in range(table.shape[0]):
        a, b, n, tgt, dirs_at, h_at, ops_end = (int(v) for v in table[c])
        H0, H1 = h_at, h_at + n + 1
        codes = (tsel[tgt: tgt + n + 1] & SEL_CODE_MASK).astype(np.int64)
        best, k = None, -1
        for e in range(a, b):  # per lane strided, then the xor reduction: the same winner
            v = int(rows[exons[e, E["row"]] + n])
            if k < 0 or v > best:
                best, k = v, e
        j, length, g = n, 0, 0
        while True:
            first, last, bo, row, in_, in2 = (int(v) for v in exons[k])
            L, W = last - first + 1, j // DIR_COLS + 1
            hin, hout = H0, H1
            for rho0 in range(0, L, 32 * R):
                Rs = R
                while Rs > 1 and 32 * (Rs // 2) >= L - rho0:
                    Rs //= 2
                rho = rho0 + lane[:, None] * Rs + np.arange(Rs)[None, :]
                bc = np.where(rho < L, base[bo + np.minimum(rho, L - 1)].astype(np.int64), -1)

                def entry(q, first_strip=rho0 == 0, hin=hin):
                    qc = np.minimum(q, j)
                    if not first_strip:
                        e = hbuf[hin + qc].astype(np.int64)
                    else:
                        e = -gap * qc if in_ == NONE else rows[in_ + qc].astype(np.int64)
                        if in2 != NONE:
                            e = np.maximum(e, rows[in2 + qc])
                    return np.where(q > j, 0, e)

                cur, nxt = entry(lane), entry(32 + lane)
                h = np.zeros((32, Rs), np.int64)
                code = np.zeros((32, Rs), np.int64)
                top = np.zeros(32, np.int64)
                topd = np.zeros(32, np.int64)
                tnext = codes[np.clip(1 - lane, 0, j)]
                for u in range(j + 32):
                    if u % 32 == 0 and u > 0:
                        cur, nxt = nxt, entry(u + 32 + lane)
                    top[0] = cur[u % 32]
                    col = u - lane
                    tc = tnext
                    tnext = codes[np.clip(col + 1, 0, j)]
                    act = (col >= 0) & (col <= j)
                    up, d = top.copy(), topd.copy()
                    sh = 2 * (col % DIR_COLS)
                    for r in range(Rs):
                        dg = d + np.where(bc[:, r] == tc, match, mismatch)
                        vt, hz = up - gap, h[:, r] - gap
                        v = np.maximum(dg, np.maximum(vt, hz))
                        mv = np.where(dg == v, TR_DIAG, np.where(vt == v, TR_UP, TR_LEFT))
                        v = np.where(col == 0, up - gap, v)
                        mv = np.where(col == 0, TR_UP, mv)
                        code[:, r] = np.where(act, code[:, r] | (mv << np.where(act, sh, 0)), code[:, r])
                        d = np.where(act, h[:, r], d)
                        h[:, r] = np.where(act, v, h[:, r])
                        up = np.where(act, v, up)
                    store = act & ((col % DIR_COLS == DIR_COLS - 1) | (col == j))
                    for r in range(Rs):
                        ok = store & (rho[:, r] < L)
                        dirs[dirs_at + rho[ok, r] * W + col[ok] // DIR_COLS] = code[ok, r]
                        code[store, r] = 0
                    if act[31]:
                        hbuf[hout + col[31]] = h[31, Rs - 1]
                    topd = top.copy()
                    top = np.concatenate(([h[0, Rs - 1]], h[:-1, Rs - 1]))
                hin, hout = hout, hin
            if moves is not None:
                moves.append(dirs[dirs_at: dirs_at + L * W].copy())
            r, jj, g0 = L, j, g
            pend = {}  # lane -> (r, j, move, g): what flush() writes
            D = dirs[dirs_at:]

            def flush():
                for pr, pj, pm, pg in pend.values():
                    op = OP_DEL if pm == TR_UP else OP_INS if pm == TR_LEFT else OP_MISMATCH
                    if pm == TR_DIAG and base[bo + pr - 1] == codes[pj]:
                        op = OP_MATCH
                    ops[ops_end - 1 - pg] = op
                pend.clear()
            while r > 0:
                wr, ww = r, jj // DIR_COLS
                rr = wr - 1 - lane
                w = np.zeros((32, 3), np.int64)
                for t in range(3):
                    okw = (rr >= 0) & (ww - t >= 0)
                    w[okw, t] = D[rr[okw] * W + ww - t]
                while r > 0 and wr - r < 32 and ww - jj // DIR_COLS <= 2:
                    t = ww - jj // DIR_COLS
                    word = int(w[wr - r, t])
                    mv = TR_UP if jj == 0 else (word >> (2 * (jj % DIR_COLS))) & 3
                    pend[g & 31] = (r, jj, mv, g)
                    g += 1
                    if g % 32 == 0:
                        flush()
                    if mv == TR_DIAG:
                        r, jj = r - 1, jj - 1
                    elif mv == TR_UP:
                        r -= 1
                    else:
                        jj -= 1
            flush()
            out_exon[4 * (a + length): 4 * (a + length) + 4] = (k, jj, j, g - g0)
            length += 1
            j0, pred = jj, predecessor(exons, rows, a, k, j0=jj, gap=gap)
            if pred < 0:
                ops[ops_end - g - j0: ops_end - g] = OP_INS
                g += j0
                break
            k, j = pred, j0
        out_case[2 * c: 2 * c + 2] = (length, g)


def test_warp_transcription_matches_model():
    """Same outputs from the lane-level transcription as from the model, on exons of one to
    several strips (R = 8: 256 rows; shorter strips with 4, 2, 1 rows per lane)."""
    rng = np.random.default_rng(13)
    cases = [random_case(rng, f"w{i}") for i in range(4)]
    cases += gene_like(rng, Shape(m=3_000, K=6, n=70, exon_mean=280), "g", targets=1) + [long_exon_case(rng)]
    for scoring in (Scoring(), Scoring(2, -3, 1)):
        plan = build_plan(cases, 2)
        rows = model_run(plan, scoring, 2)
        info = trace_inputs(plan, cases)
        outs, logs = [], []
        for fn in (model_trace, warp_trace):
            ops = np.full(info.ops_size, 0xFF, dtype=np.uint8)
            out_case = np.full(2 * len(cases), -1, dtype=np.int32)
            out_exon = np.full(4 * info.exons.shape[0], -1, dtype=np.int32)
            sizes = (np.zeros(info.dirs_size, np.uint32), np.zeros(info.h_size, np.int64)) if fn is warp_trace \
                else (info.dirs_size, info.h_size)
            logs.append([])
            fn(info.cases, info.exons, rows, plan.base, selectors(plan.target), *sizes, ops, out_case, out_exon,
               scoring.match, scoring.mismatch, scoring.gap, logs[-1])
            outs.append((ops, out_case, out_exon))
        for x, y in zip(*outs):
            np.testing.assert_array_equal(x, y)
        assert len(logs[0]) == len(logs[1]) > len(cases)
        for x, y in zip(*logs):  # every move of every traced exon
            np.testing.assert_array_equal(x, y)


def test_default_traceback_place():
    """By default int launches trace on the device (checked there), int64 launches on the host;
    an explicit choice wins."""
    assert GpuSolver().on_device("int") and not GpuSolver().on_device("long long")
    assert GpuSolver(device_trace=True).on_device("long long")
    assert not GpuSolver(device_trace=False).on_device("int")
