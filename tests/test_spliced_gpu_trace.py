"""Device traceback (wavefront.cu: the moves the recording wavefront writes, ``trace_chains``)
without a GPU: NumPy models of both (the moves in the kernel's layout, from the wavefront model;
one warp per case walking them with the kernel's word cache, op codes, predecessor choice and
output layout) must give chains and ops equal to ``trace_chain``'s on the CPU solver's rows,
byte for byte, and pass the oracle. Only the CUDA transcription is left to the device check.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import golden_case
from helpers import random_spliced_case as random_case
from test_spliced_gpu_plan import (
    _fake_function,
    _FakeCupy,
    entry_row,
    fake_gpu,
    model_run,
    record_moves,
    strip_sweep,
)

from splicedalign.workloads.spliced.backtrack import trace_chain
from splicedalign.workloads.spliced.base import final_scores
from splicedalign.workloads.spliced.cpu_kernels import score_dtype
from splicedalign.workloads.spliced.gpu import launch, outputs
from splicedalign.workloads.spliced.gpu import plan as gpu_plan
from splicedalign.workloads.spliced.gpu import solver as solver_module
from splicedalign.workloads.spliced.gpu.flat import FlatCases
from splicedalign.workloads.spliced.gpu.plan import (
    COLS,
    MOVE_UNIT,
    NONE,
    PRED_UNROLL,
    SEL_CODE_MASK,
    TASK_FIELDS,
    TR_DIAG,
    TR_LEFT,
    TR_UP,
    TRACE_CASE_FIELDS,
    TRACE_EXON_FIELDS,
    WARP,
    build_plan,
    checkpoint_layout,
    move_shift,
    move_words,
    scratch_layout,
    selectors,
    trace_inputs,
)
from splicedalign.workloads.spliced.gpu.solver import MOVES_POISON, CaseIds, GpuSolver, _Places
from splicedalign.workloads.spliced.oracle import alignment_problems
from splicedalign.workloads.spliced.records import (
    OP_DEL,
    OP_INS,
    OP_MATCH,
    OP_MISMATCH,
    TARGET_ENDS,
    Exon,
    Result,
    Scoring,
    TestCase,
)
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced.synthetic import Shape, gene_like, tiny_set

pytestmark = pytest.mark.usefixtures("gpu_host_code")  # conftest: the warm-up's planning code

E = {name: i for i, name in enumerate(TRACE_EXON_FIELDS)}
CF = {name: i for i, name in enumerate(TRACE_CASE_FIELDS)}
F = {name: i for i, name in enumerate(TASK_FIELDS)}


def predecessor(exons, rows, a, k, j0, gap, free=False) -> int:
    """The exon the path came from into exon k's entry row at column j0 (largest last, then the
    lowest position, among exons a..k-1 with last < first(k) whose last row reaches the entry
    row's value there), or -1: the path began at the chain-start row (-gap*j, free ends 0)."""
    first, in_ = int(exons[k, E["first"]]), int(exons[k, E["in"]])
    value = (0 if free else -gap * j0) if in_ == NONE else int(rows[in_ + j0])
    for extra in (int(exons[k, E["in2"]]), int(exons[k, E["in3"]])):
        if extra != NONE:
            value = max(value, int(rows[extra + j0]))
    best, pred = -1, -1
    for e in range(a, k):
        last = int(exons[e, E["last"]])
        if best < last < first and rows[exons[e, E["row"]] + j0] == value:
            best, pred = last, e
    # the kernel's search: the case's first p_k exons by last (table rows a..), from the largest
    # last down in rounds of 32 * PRED_UNROLL, stopping after the first round with a hit unless
    # the hit's last goes on below it
    by_last = exons[a: a + int(exons[k, E["p"]]), [E["by_last"], E["by_last_last"], E["by_last_row"]]]
    assert (by_last[:, 1] < first).all() and (np.diff(by_last[:, 1]) >= 0).all()
    assert np.array_equal(exons[by_last[:, 0], E["last"]], by_last[:, 1])
    assert np.array_equal(exons[by_last[:, 0], E["row"]], by_last[:, 2])
    best = -1  # rank of the best hit so far
    for q0 in range(len(by_last) - 1, -1, -32 * PRED_UNROLL):
        for q in range(q0, max(q0 - 32 * PRED_UNROLL, -1), -1):  # lasts only fall as q does
            if rows[by_last[q, 2] + j0] == value and (best < 0 or by_last[q, 1] == by_last[best, 1]):
                best = q  # the first hit has the largest last; an equal last lower down, the lower position
        below = q0 - 32 * PRED_UNROLL
        if best >= 0 and (below < 0 or by_last[below, 1] < by_last[best, 1]):
            break
    found = -1 if best < 0 else int(by_last[best, 0])
    assert found == pred, (found, pred)
    return pred


class Strip:
    """trace_chains' MoveStrip: the strip holding exon rows lo+1 .. lo+rows."""

    def __init__(self, tasks, task, lo):
        t = tasks[task]
        self.rows, self.lr = int(t[F["rows"]]), int(t[F["lane_rows"]])
        self.lo = lo - self.rows
        self.pad = WARP * self.lr - self.rows
        self.head = self.pad // self.lr
        self.mw = move_words(self.lr)
        self.at = int(t[F["moves"]]) * MOVE_UNIT

    def index(self, r, j):
        """move_index: word index and bit of exon row r, column j."""
        rs = self.pad + (r - self.lo - 1)
        lane, rr = divmod(rs, self.lr)
        u = j // COLS + lane - self.head
        return self.at + (u * WARP + lane) * self.mw + rr // 4, move_shift(self.lr, rr, j % COLS)


def model_trace(table, exons, strips, tasks, rows, base, tsel, moves, ops, out_case, out_exon, scoring, stats=None,
                best=None, checkpoints=None):
    """What trace_chains writes (ops, out_case, out_exon), case by case, with its word cache:
    the 32 lanes' held word indices, reloaded in the last move's direction on a miss (asserts
    that lane 0 then holds the word). ``stats`` (a dict) counts moves, reloads and strips swept.
    ``best``: free target ends (trace_chains<T, R, BYTES, true>): each exon's final score and its
    first column (last_row_max), where the walk starts; no leading target letters against gaps.
    A case with a scratch region recomputes each strip's moves as it enters it, up to its column
    (the region poisoned first: a word the sweep did not write reads as a wrong move).
    ``checkpoints``: (ck, at, CKB) as the wavefront model stored them (plan.checkpoint_layout):
    such a sweep starts at plan.checkpoint_start (from the strip's rows and CHECKPOINT_MARGIN left
    of its column), and where the path leaves the swept columns the walk sweeps again up to its
    column, from twice as far left; ``stats`` then also counts the cells swept ("cells"), what
    sweeps from column 0 would have swept ("full_cells") and the back-offs."""
    gap = scoring.gap
    free = best is not None
    lanes = np.arange(WARP)
    target = (tsel & SEL_CODE_MASK).astype(np.int64)
    for c in range(table.shape[0]):
        a, b, n, tgt, ops_end, scratch = (int(v) for v in table[c])
        ops_cap = ops_end - (int(table[c - 1, CF["ops"]]) if c else 0)
        codes = (tsel[tgt: tgt + n + 1] & SEL_CODE_MASK).astype(np.int64)
        if free:
            k = a + int(np.argmax(best[0][a:b]))  # lowest position among equals
            j = int(best[1][k])
        else:
            finals = np.array([rows[exons[e, E["row"]] + n] for e in range(a, b)])
            k = a + int(np.argmax(finals))
            j = n
        g, length = 0, 0
        held = np.full(WARP, -1, dtype=np.int64)
        while True:
            first, last, bo, s0, s = (int(exons[k, E[name]]) for name in ("first", "last", "base", "strip0", "strips"))
            r, jj, g0 = last - first + 1, j, g
            st = None
            lo = r
            direction = TR_DIAG
            inside = None  # the kernel's walk inside a word: (word, its next cell's bit)
            swept = True
            c0 = 0  # the first column swept (recomputing from a checkpoint)
            while r > 0:
                while r <= lo:
                    s -= 1
                    st = Strip(tasks, int(strips[s0 + s]), lo)
                    lo = st.lo
                    swept = scratch == NONE
                    c0, distance = 0, st.rows + gpu_plan.CHECKPOINT_MARGIN
                mv = TR_UP
                if jj > 0:
                    if swept and jj < c0:  # the path left the swept columns: sweep again from further left
                        swept, distance = False, 2 * distance
                        if stats is not None:
                            stats["backoffs"] = stats.get("backoffs", 0) + 1
                    if not swept:  # the strip's sweep up to column jj into the case's scratch
                        task = int(strips[s0 + s])
                        t = {name: int(v) for name, v in zip(TASK_FIELDS, tasks[task])}
                        region = gpu_plan.strip_move_units(t["n"], t["rows"], t["lane_rows"]) * MOVE_UNIT
                        moves[scratch * MOVE_UNIT: scratch * MOVE_UNIT + region] = MOVES_POISON
                        if stats is not None and c0 == 0:
                            stats["full_cells"] = stats.get("full_cells", 0) + t["rows"] * (jj + 1)
                        c0, left = 0, None
                        if checkpoints is not None and checkpoints[1][task] != NONE:
                            ck, ck_at, ckb = checkpoints
                            c0 = gpu_plan.checkpoint_start(jj, distance, ckb)
                            P = WARP * t["lane_rows"]
                            q = c0 // (ckb * COLS)  # checkpoint q - 1 holds column c0 - 1
                            left = ck[ck_at[task] + (q - 1) * P: ck_at[task] + q * P] if q else None
                        # the scratch less the steps before the sweep's first (move_index counts steps from 0)
                        t.update(n=jj, moves=scratch - max(c0 // COLS - 1, 0) * move_words(t["lane_rows"]))
                        sweep = strip_sweep(t, entry_row(t, rows, scoring), base, target, scoring, c0, left)
                        record_moves(moves, t, *sweep, c0)
                        st.at, held[:], swept = t["moves"] * MOVE_UNIT, -1, True
                        if stats is not None:
                            stats["swept"] = stats.get("swept", 0) + 1
                            stats["cells"] = stats.get("cells", 0) + t["rows"] * (jj - c0 + 1)
                    want, bit = st.index(r, jj)
                    assert inside is None or inside == (want, bit), "the in-word walk lost its cell"
                    if not (held == want).any():
                        rt = np.full(WARP, r) if direction == TR_LEFT else r - lanes
                        jt = (np.full(WARP, jj) if direction == TR_UP else
                              jj - COLS * lanes if direction == TR_LEFT else jj - lanes)
                        ok = (rt > st.lo) & (jt >= max(c0, 1))  # (inside the swept columns)
                        held[:] = -1
                        held[ok] = [st.index(x, y)[0] for x, y in zip(rt[ok], jt[ok])]
                        assert held[0] == want
                        if stats is not None:
                            stats["reloads"] = stats.get("reloads", 0) + 1
                    field = (int(moves[want]) >> bit) & 3  # (diagonal lost, up lost to left)
                    mv = TR_DIAG if field < 2 else TR_UP if field == 2 else TR_LEFT
                    # the kernel's next cell inside this word: row wa of its word_rows, column wq
                    wr = min(st.lr, 4)
                    cell = wr * COLS - 1 - bit // 2
                    wa, wq = cell % wr - (mv != TR_LEFT), cell // wr - (mv != TR_UP)
                    stays = wa >= 0 and wq >= 0 and r - (mv != TR_LEFT) > st.lo and jj - (mv != TR_UP) >= max(c0, 1)
                    inside = (want, 2 * (wr * COLS - 1 - wq * wr - wa)) if stays else None
                else:
                    inside = None
                if stats is not None:
                    stats["moves"] = stats.get("moves", 0) + 1
                if mv == TR_DIAG:
                    op = OP_MATCH if base[bo + r - 1] == codes[jj] else OP_MISMATCH
                    r, jj = r - 1, jj - 1
                elif mv == TR_UP:
                    op, r = OP_DEL, r - 1
                else:
                    op, jj = OP_INS, jj - 1
                assert g < ops_cap, "op region overflow"
                ops[ops_end - 1 - g] = op
                g += 1
                direction = mv
            out_exon[4 * (a + length): 4 * (a + length) + 4] = (k, jj, j, g - g0)
            length += 1
            j0, pred = jj, predecessor(exons, rows, a, k, j0=jj, gap=gap, free=free)
            if pred < 0 and free:
                break
            if pred < 0:
                assert g + j0 <= ops_cap
                ops[ops_end - g - j0: ops_end - g] = OP_INS
                g += j0
                break
            k, j = pred, j0
        out_case[2 * c: 2 * c + 2] = (length, g)


def traced_by_model(cases, scoring, rows_per_lane=2, stats=None, recompute=False, checkpoint_blocks=0):
    """The walks' chains and alignments on the models; ``recompute``: the kernel records no moves
    and every walk recomputes its strips' (plan.py, "Recomputed moves"); ``checkpoint_blocks``:
    from the column checkpoints the kernel stores every that many column blocks ("Column checkpoints")."""
    plan = build_plan(cases, rows_per_lane)
    scratch, end = scratch_layout(plan.n, (), rows_per_lane, 0) if recompute else (None, plan.moves_size // MOVE_UNIT)
    moves = np.full(end * MOVE_UNIT, MOVES_POISON, dtype=np.uint32)
    checkpoints = None
    if checkpoint_blocks:
        at, size = checkpoint_layout(plan, checkpoint_blocks)
        checkpoints = (np.full(size, gpu_plan.empty(np.int64), dtype=np.int64), at, checkpoint_blocks)
    rows = model_run(plan, scoring, rows_per_lane, None if recompute else moves, checkpoints=checkpoints)
    info = trace_inputs(plan, cases, scratch=scratch)
    ops = np.full(info.ops_size, 0xFF, dtype=np.uint8)
    out_case = np.full(2 * len(cases), -1, dtype=np.int32)
    out_exon = np.full(4 * info.exons.shape[0], -1, dtype=np.int32)
    best = None
    if scoring.free_ends:  # last_row_max: each exon's row maximum and its first column, plan order
        last = [rows[o: o + plan.n[c] + 1] for o, c in zip(plan.last_row, plan.exon_case)]
        best = np.array([r.max() for r in last]), np.array([np.argmax(r) for r in last])
    model_trace(info.cases, info.exons, info.strips, plan.tasks, rows, plan.base, selectors(plan.target), moves, ops,
                out_case, out_exon, scoring, stats, best, checkpoints)
    return outputs.device_traceback(info, (0, len(cases)), out_case, out_exon, ops, 0, leading=not scoring.free_ends)


def check_against_cpu(cases, scoring, rows_per_lane=2, stats=None, recompute=False, checkpoint_blocks=0):
    got = traced_by_model(cases, scoring, rows_per_lane, stats, recompute, checkpoint_blocks)
    for case, chain, alignment, _ in zip(cases, *got):
        dtype = score_dtype(case.m, case.n, scoring)
        rows = get_solver("sequential").last_rows(case, scoring, dtype)
        want_chain, want_alignment = trace_chain(case, scoring, rows)
        assert chain == want_chain, case.name
        assert alignment == want_alignment, case.name  # ops byte for byte, spans, indices
        result = Result(case.name, "model", int(final_scores(rows, scoring).max()), case.cells, 0.0, chain, alignment)
        assert alignment_problems(case, result, scoring) == [], case.name


def test_model_trace_matches_cpu_trace_random():
    seed = 20261122
    print("seed", seed)
    rng = np.random.default_rng(seed)
    cases = [random_case(rng, f"t{i}") for i in range(20)] + tiny_set(bases=2)
    for scoring in (Scoring(), Scoring(2, -3, 1), Scoring(1, -1, 0)):
        for ends in TARGET_ENDS:
            for recompute in (False, True):
                check_against_cpu(cases, Scoring(scoring.match, scoring.mismatch, scoring.gap, ends),
                                  recompute=recompute)


def test_model_trace_golden(golden):
    pairs = [golden_case(g) for g in golden]
    for scoring in {s for _, s in pairs}:
        for ends in TARGET_ENDS:
            for recompute in (False, True):
                check_against_cpu([c for c, s in pairs if s == scoring],
                                  Scoring(scoring.match, scoring.mismatch, scoring.gap, ends), recompute=recompute)


def long_exon_case(rng) -> TestCase:
    """A chain of exons of two and three strips of 256 rows: the target is their concatenation
    with a few substitutions."""
    base = rng.choice(list("ACGT"), 1_000)
    target = np.concatenate((base[0:300], base[349:869]))
    flip = rng.random(target.size) < 0.05
    target[flip] = rng.choice(list("ACGT"), int(flip.sum()))
    exons = (Exon(1, 300), Exon(350, 869), Exon(100, 120), Exon(880, 950), Exon(5, 5))
    return TestCase("long", "".join(base), "".join(target), exons)


def test_model_trace_long_exons_and_wide_targets():
    """Exons over several strips (the shipped 8 rows per lane, 4 on short strips) and targets
    over many steps; a gene-shaped path reloads the word cache about once per 20+ moves."""
    rng = np.random.default_rng(7)
    cases = gene_like(rng, Shape(m=4_000, K=8, n=90, exon_mean=300), "g", targets=2) + [long_exon_case(rng)]
    stats = {}
    check_against_cpu(cases, Scoring(), rows_per_lane=8, stats=stats)
    assert stats["moves"] > 20 * stats["reloads"], stats
    check_against_cpu(cases, Scoring(target_ends="free"), rows_per_lane=8)
    swept: dict[str, int] = {}  # recomputed: every strip a path enters off column 0 swept once
    for ends in TARGET_ENDS:
        check_against_cpu(cases, Scoring(target_ends=ends), rows_per_lane=8, stats=swept, recompute=True)
    assert swept["swept"] > len(cases), swept


def test_trace_sizes():
    """Op regions hold the longest path; the plan's move storage is what its strips write (the
    model asserts each strip's region), and launch.move_words_many bounds it."""
    rng = np.random.default_rng(3)
    cases = [random_case(rng, f"s{i}") for i in range(6)]
    plan = build_plan(cases, 8)
    info = trace_inputs(plan, cases)
    assert info.exons.dtype == np.int32 and info.cases.dtype == np.int64
    lengths = [c.last_sorted - c.first_sorted + 1 for c in cases]
    assert info.ops_size == sum(c.n + min(c.m, int(L.sum())) for L, c in zip(lengths, cases))
    assert (np.diff(info.cases[:, CF["ops"]]) > 0).all()
    strips = plan.tasks[plan.strip_task]
    steps = plan.n[plan.exon_case].repeat(np.diff(plan.strip_start)) // COLS + WARP - (
        (WARP * strips[:, F["lane_rows"]] - strips[:, F["rows"]]) // strips[:, F["lane_rows"]])
    words = steps * WARP * ((strips[:, F["lane_rows"]] + 3) // 4)
    assert plan.moves_size == words.sum()
    assert sorted(strips[:, F["moves"]] * MOVE_UNIT) == sorted(np.concatenate(([0], np.cumsum(words)[:-1])))
    assert launch.move_words_many(cases, 8).sum() >= plan.moves_size


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

    free = name.split(",")[3].strip().rstrip(">") == "true"
    ckb = int(name.split(",")[4].rstrip(">")) if name.startswith("trace_chains_checkpoints<") else 0

    def trace(grid, block, args):
        (table, ncases, exons, strips, tasks, rows, base, tsel, moves, ops, out_case, out_exon, match, mismatch, gap,
         score, col, error) = args[:18]
        assert int(ncases) == table.shape[0] and grid[0] * block[0] >= 32 * int(ncases) and error.size == 1
        assert len(args) == 18 + 2 * bool(ckb)
        model_trace(table, exons, strips, tasks, rows, base, tsel, moves, ops, out_case, out_exon,
                    Scoring(int(match), int(mismatch), int(gap), "free" if free else "global"),
                    best=(score, col) if free else None, checkpoints=(args[18], args[19], ckb) if ckb else None)
    return trace


def test_gpu_solver_device_trace_host_path(monkeypatch):
    """GpuSolver(device_trace=True).solve_many end to end with the NumPy models as the kernels,
    moves recorded by a follower or by the kernel itself: the same chains and alignments as
    `sequential`; launches that record moves keep to the move budget."""
    fake_gpu(monkeypatch, _fake_function_with_trace)
    rng = np.random.default_rng(9)
    cases = [random_case(rng, f"d{i}") for i in range(10)] + tiny_set(bases=1)
    # a launch of few cases records moves in a follower, a throughput launch in its kernel
    for scoring, throughput_cases in ((Scoring(), launch.TUNING.throughput_cases), (Scoring(2, -3, 1), 1),
                                      (Scoring(target_ends="free"), launch.TUNING.throughput_cases),
                                      (Scoring(2, -3, 1, "free"), 1)):
        want = get_solver("sequential").solve_many(cases, scoring, traceback=True)
        solver = GpuSolver(rows_per_lane=2, poison=True, device_trace=True,
                           tuning=launch.Tuning(throughput_cases=throughput_cases))
        got = solver.solve_many(cases, scoring, traceback=True)
        again = solver.solve_many(cases, scoring, traceback=True)  # cached plan and trace records
        for w, g, h in zip(want, got, again):
            assert (g.score, g.chain, g.alignment) == (w.score, w.chain, w.alignment)
            assert (h.chain, h.alignment) == (g.chain, g.alignment)
            assert g.alignment[0].cigar == w.alignment[0].cigar
    solver = GpuSolver(rows_per_lane=2, device_trace=True,
                       tuning=launch.Tuning(throughput_cases=1,
                                            move_budget=most_moves(cases)))
    got = solver.solve_many(cases, Scoring(), traceback=True)
    assert len(solver.kernel_ms) > 2
    assert [(g.score, g.chain) for g in got] == [(w.score, w.chain) for w in
                                                 get_solver("sequential").solve_many(cases, Scoring())]


def test_default_traceback_place():
    """By default int launches trace on the device (checked there), int64 launches on the host;
    an explicit choice wins."""
    assert GpuSolver().on_device("int") and not GpuSolver().on_device("long long")
    assert GpuSolver(device_trace=True).on_device("long long")
    assert not GpuSolver(device_trace=False).on_device("int")


def test_default_rows_per_lane_by_launch_kind(monkeypatch):
    """GpuSolver() holds CHAIN_ROWS_PER_LANE rows per lane in a chain-bound launch (few cases)
    and ROWS_PER_LANE in a throughput launch; both give `sequential`'s chains."""
    names = []

    def recording(file, name, all_names, defines):
        names.append(name)
        return _fake_function_with_trace(file, name, all_names, defines)

    fake_gpu(monkeypatch, recording)
    rng = np.random.default_rng(21)
    cases = [random_case(rng, f"k{i}") for i in range(4)]
    want = get_solver("sequential").solve_many(cases, Scoring(), traceback=True)
    tuning = launch.TUNING
    for throughput_cases, rows in ((tuning.throughput_cases, tuning.chain_rows_per_lane), (1, tuning.rows_per_lane)):
        names.clear()
        solver = GpuSolver(tuning=launch.Tuning(throughput_cases=throughput_cases))
        got = solver.solve_many(cases, Scoring(), traceback=True)
        assert {n.split(",")[1].strip() for n in names if n.startswith("wavefront")} == {str(rows)}
        assert [(g.score, g.chain, g.alignment) for g in got] == [(w.score, w.chain, w.alignment) for w in want]


def test_launch_split_remembered_per_traceback_choice(monkeypatch):
    """A data set solved by turns with and without traceback is split into launches once per
    choice; another list of the same cases is split again."""
    fake_gpu(monkeypatch, _fake_function)
    cases = tiny_set(bases=2)
    solver = GpuSolver()
    traced, scored = solver._work(cases, Scoring(), True), solver._work(cases, Scoring(), False)
    assert solver._work(cases, Scoring(), True) is traced and solver._work(cases, Scoring(), False) is scored
    assert solver._work(list(reversed(cases)), Scoring(), True) is not traced


def test_chain_launches_keep_their_move_budget(monkeypatch):
    """A launch of few cases holds CHAIN_ROWS_PER_LANE rows per lane, more than the batches
    assume: its move storage is checked again at that width and split to fit the budget."""
    fake_gpu(monkeypatch, _fake_function)
    cases = tiny_set(bases=2)  # 4 cases: a chain launch
    flat = FlatCases.of(cases)
    wide = launch.launch_move_words(flat, "int")
    narrow = launch.launch_move_words(flat, "int", launch.Tuning(throughput_cases=1))
    assert wide > narrow
    tuning = launch.Tuning(move_budget=narrow)  # fits at 8 rows, not at 16
    work = GpuSolver(tuning=tuning)._work(cases, Scoring(), traceback=True)
    assert len(work) > 1 and sorted(i for _, part, _, _ in work for i in part) == list(range(len(cases)))
    for _, part, batch, ids in work:
        assert len(part) == 1 or launch.launch_move_words(flat.select(part), "int", tuning) <= tuning.move_budget
        assert batch == [cases[i] for i in part] and ids == CaseIds(batch)  # the launch's cases, keyed
        assert hash(ids) == hash(CaseIds(list(batch))) and (len(batch) == 1 or ids != CaseIds(batch[::-1]))
    assert len(GpuSolver(tuning=tuning)._work(cases, Scoring(), traceback=False)) == 1


def _long_chain_cases(seed: int) -> list[TestCase]:
    """Ten cases, two of them (2 and 5) with chains of up to 20 exons, the others of 3."""
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    cases = [random_case(rng, f"s{i}") for i in range(8)]
    cases = [TestCase(c.name, c.base, c.target, c.exons[:3]) for c in cases]
    for i in (2, 5):
        c = random_case(rng, f"l{i}")
        starts = rng.integers(1, c.m + 1, 20)
        cases.insert(i, TestCase(c.name, c.base, c.target, tuple(Exon(int(f), int(min(c.m, f + 30))) for f in starts)))
    return cases


def _traced_as_sequential(seed: int, recompute: bool = True) -> tuple[GpuSolver, list[TestCase], list]:
    """(a solver, _long_chain_cases(seed), `sequential`'s results): the solver traced the cases
    as `sequential` does, cases 2 and 5 in a follower (walks in 3 parts); ``recompute``:
    Tuning.recompute."""
    cases = _long_chain_cases(seed)
    want = get_solver("sequential").solve_many(cases, Scoring(), traceback=True)
    solver = GpuSolver(poison=True, tuning=launch.Tuning(throughput_cases=4, walk_shares=(0.2,), recompute=recompute))
    got = solver.solve_many(cases, Scoring(), traceback=True)
    assert [(g.score, g.chain, g.alignment) for g in got] == [(w.score, w.chain, w.alignment) for w in want]
    return solver, cases, want


@pytest.mark.parametrize("recompute", [True, False])
def test_kernels_start_before_the_rest_is_uploaded(monkeypatch, recompute):
    """A planned launch uploads what its kernels read (with a follower: the followed tasks and
    the follower's; where its walks recompute, the plan's tasks and the follower's) in its first
    copy; the gathers' inputs, the walks' tasks and the plan's tasks (not where the walks
    recompute: they read the plan's and the follower's) and the walks' records in a second, the
    last, before its finals' gather and its walks: the finals' sources (plan.finals_at) and
    the walks' records (plan.trace_inputs) planned only once its kernels are queued. The first
    copy's part the plan holds (letters, codes, tasks) is handed to the packer before the
    follower's tasks and the checkpoints' offsets are planned, the rest of it after. A replay
    finds it cached: nothing planned or uploaded again."""
    from splicedalign.gpu import device

    log: list = []

    def logged(file, name, all_names, defines):
        kernel = _fake_function_with_trace(file, name, all_names, defines)
        return lambda grid, block, args: (log.append(("kernel", name.split("<")[0])), kernel(grid, block, args))

    fake_gpu(monkeypatch, logged)
    planning = ("followed_tasks", "checkpoint_layout", "finals_at", "trace_inputs")
    for name in planning:
        planned = getattr(solver_module, name)
        monkeypatch.setattr(solver_module, name, lambda *a, _name=name, _planned=planned, **k: (
            log.append(("kernel", _name)), _planned(*a, **k))[1])
    on_packer = GpuSolver._on_packer  # (each packing logged as the caller's thread hands it over)
    monkeypatch.setattr(GpuSolver, "_on_packer", lambda self, f, *a: (
        log.append(("kernel", f"packed from {a[1]}")) if f is device.pack_part else None, on_packer(self, f, *a))[1])
    upload, send = device.PinnedBuffers.upload, device.PinnedBuffers.send
    monkeypatch.setattr(device.PinnedBuffers, "upload", lambda self, role, arrays, stream: (
        log.append(("upload", [a.shape for a in arrays])), upload(self, role, arrays, stream))[1])
    monkeypatch.setattr(device.PinnedBuffers, "send", lambda self, role, packed, lo, hi, stream: (
        log.append(("upload", [a.shape for a in packed.arrays[lo:hi]])), send(self, role, packed, lo, hi, stream))[1])
    solver, cases, want = _traced_as_sequential(34, recompute)
    inputs = next(iter(solver._cache.values()))
    plan, followed = inputs.plan, inputs.followed
    assert followed is not None and followed.cases == (2, 5)
    events = [e[1] if e[0] == "kernel" else tuple(e[1]) for e in log]
    # (one launch: two copies, then the solver's finals' places and lengths, its first launch's: _Places)
    first, rest, places = [e for e in events if isinstance(e, tuple)]
    assert places == ((_Places.LEAST,), (_Places.LEAST,))
    assert first[4] == followed.tasks.shape == plan.tasks.shape and first[-1] == followed.follow.shape
    # (letters, cases, codes, tasks, [where the walks recompute: the column checkpoints' offsets, one
    # per task (Tuning.checkpoint_blocks),] follow); the finals' sources (their places and lengths are the
    # solver's; a device walk reads no exon's last row), plan tasks, walks' tasks, the walks' records
    info = inputs.trace.info
    copies = () if recompute else (plan.tasks.shape, followed.walked.shape)
    assert len(first) == 6 + recompute and rest[1:] == copies + (info.exons.shape, info.cases.shape, info.strips.shape)
    assert recompute == (followed.walked is None) and recompute == (followed.tasks is inputs.tasks)
    assert recompute == (inputs.checkpoints is not None) and (not recompute or first[5] == plan.tasks.shape[:1])
    at = events.index
    score, follower = [i for i, e in enumerate(events) if isinstance(e, str) and e.startswith("wavefront")]
    assert events[score] == ("wavefront_checkpoints" if recompute else "wavefront") and events[follower] == "wavefront"
    assert at(first) < score < follower < at("finals_at") < at(rest) < at("gather_rows")
    assert follower < at("trace_inputs") < at(rest)
    # the first copy: the plan's part (letters, cases, codes; where the walks recompute the plan's tasks)
    # packed while the rest is planned (the follower's tasks; where the walks recompute, the checkpoints)
    later = ["followed_tasks"] + ["checkpoint_layout"] * recompute
    assert at("packed from 0") < min(map(at, later)) <= max(map(at, later)) < at(f"packed from {4 + recompute}")
    assert at(f"packed from {4 + recompute}") < at(first)
    assert at(rest) < min(i for i, e in enumerate(events) if isinstance(e, str) and e.startswith("trace_chains"))
    np.testing.assert_array_equal(inputs.tasks, plan.tasks)
    log.clear()
    again = solver.solve_many(cases, Scoring(), traceback=True)
    assert [(g.score, g.chain, g.alignment) for g in again] == [(w.score, w.chain, w.alignment) for w in want]
    assert not [e for e in log if e[0] == "upload"] and sum(e[1].startswith("wavefront") for e in log) == 2
    assert not [e for e in log if e[1] in planning or e[1].startswith("packed")]


def test_a_traced_calls_stages_add_up(monkeypatch):
    """GpuSolver.timing: a traced call's host seconds by stage add up to at most the call's; its
    rest's planning (the walks' records, _rest, planned once its kernels are queued; slowed here
    by 0.5 s) is in the plan stage, not in the launch stage around it too."""
    import time

    fake_gpu(monkeypatch, _fake_function_with_trace)
    records = solver_module._walk_records
    monkeypatch.setattr(solver_module, "_walk_records", lambda *a: (time.sleep(0.5), records(*a))[1])
    cases = tiny_set(bases=2)
    solver = GpuSolver()
    t0 = time.perf_counter()
    solver.solve_many(cases, Scoring(), traceback=True)
    call = time.perf_counter() - t0
    assert len(solver.kernel_ms) == 1 and solver.timing["plan"] >= 0.5 and sum(solver.timing.values()) <= call


def test_a_launch_packed_on_the_packer_while_older_ones_are_collected(monkeypatch):
    """A traced call of several launches: each launch's uploads are packed on the solver's packer
    thread (device.pack_part; none on the caller's thread, which runs every compiled pass), its
    kernels' part laid out before the caller's thread collects the older launches it makes room
    for and sent after them, the rest laid out and sent after that; the batches the cache lets
    go of are freed on the packer thread (where nothing else holds them); the call's work there
    is done once it returns, and the solver's next call finds the same thread. Answers as
    `sequential`'s (the fake GPU's copies read the packed bytes). On the code before, the
    caller's thread packed and sent each launch's first copy before it collected, and freed the
    batches let go."""
    import threading
    import weakref

    from splicedalign.gpu import device

    fake_gpu(monkeypatch, _fake_function_with_trace)
    monkeypatch.setattr(solver_module, "CACHE_BATCHES", 2)
    log: list = []  # ("layout" | "collect" | ("send", lo)) on the caller's thread, in order
    packers: list = []  # the thread of each pack_part
    submitted: list = []  # the futures of the work handed to the packer thread
    freed: list = []  # (the call that made it, the call under way, the thread) of each batch freed
    made_by = [0]  # the call under way
    layout, send, collect, cached = (device.PinnedBuffers.layout, device.PinnedBuffers.send, GpuSolver._collect,
                                     GpuSolver._cached)
    part, launches_of, on_packer = device.pack_part, GpuSolver._launches, GpuSolver._on_packer
    # (one launch queued at a time: each later one collects the one before it first)
    monkeypatch.setattr(GpuSolver, "_launches", lambda self, *a: (1, launches_of(self, *a)[1]))
    monkeypatch.setattr(device, "pack_part", lambda *a: (packers.append(threading.current_thread()), part(*a))[1])
    monkeypatch.setattr(GpuSolver, "_on_packer", lambda self, *a: (submitted.append(on_packer(self, *a)),
                                                                   submitted[-1])[1])
    monkeypatch.setattr(device.PinnedBuffers, "layout", lambda self, role, arrays, room=0: (
        log.append("layout"), layout(self, role, arrays, room))[1])
    monkeypatch.setattr(device.PinnedBuffers, "send", lambda self, role, packed, lo, hi, stream: (
        log.append(("send", lo)), send(self, role, packed, lo, hi, stream))[1])
    monkeypatch.setattr(GpuSolver, "_collect", lambda self, job, part=0: (
        log.append("collect") if part == 0 else None, collect(self, job, part))[1])
    monkeypatch.setattr(GpuSolver, "_cached", lambda self, key, inputs: (
        weakref.finalize(inputs, lambda c=made_by[0]: freed.append((c, made_by[0], threading.current_thread().name))),
        cached(self, key, inputs))[1])
    cases = _long_chain_cases(38)
    rows = max(launch.launch_rows(FlatCases.of([c]), 2) for c in cases)
    solver = GpuSolver(rows_per_lane=2, tuning=launch.Tuning(  # launches of a few cases
        throughput_cases=1, move_budget=most_moves(cases), row_budget=2 * rows))
    laid_out = 0
    for made_by[0], call in enumerate((cases, _long_chain_cases(39), _long_chain_cases(40))):
        log.clear()
        want = get_solver("sequential").solve_many(call, Scoring(), traceback=True)
        got = solver.solve_many(call, Scoring(), traceback=True)
        assert [(g.score, g.chain, g.alignment) for g in got] == [(w.score, w.chain, w.alignment) for w in want]
        launches = len(solver.kernel_ms)
        assert launches > 3 and log.count("layout") == 2 * launches == log.count(("send", 0))
        assert submitted and all(f.done() for f in submitted)  # the call's work on the packer, done
        submitted.clear()
        # each launch: its first copy laid out, then the launch before it collected to make room
        # (but the first's), then that copy sent; then the rest laid out and sent
        sent = [i for i, e in enumerate(log) if e == ("send", 0)]
        laid = [i for i, e in enumerate(log) if e == "layout"]
        between = [log[a:b].count("collect") for a, b in zip(laid, sent)]
        assert between == [0, 0] + [1, 0] * (launches - 1) and log.count("collect") == launches
        assert all(a < b < c for a, b, c in zip(sent, laid[1:], sent[1:]))
        laid_out += launches
    assert len(packers) == 3 * laid_out and all(t.name.startswith(solver_module.PACKER) for t in packers)
    assert len(set(packers)) == 1  # the solver's one thread, both calls
    # a call's last batches, held by nothing but the cache once it returned, freed on the packer by the next
    # call that lets go of them (one the cache lets go of while its own call still holds it, at CACHE_BATCHES = 2,
    # goes when that call drops it, on whichever thread)
    kept = [name for made, during, name in freed if (made, during) == (1, 2)]
    assert len(kept) == 2 and all(name.startswith(solver_module.PACKER) for name in kept)


@pytest.mark.parametrize("at_once", [1, 2])
def test_collected_launches_built_once_the_next_is_queued(monkeypatch, at_once):
    """A traced call of several launches that collects ``at_once`` older launches to make room
    for each later one: the last collected launch's records and Results (outputs.device_traceback,
    outputs.results) are built after that launch's kernels are queued (GpuSolver._launch has
    returned); one collected before another is built before the next collection, whose copies
    reuse the pinned buffers (the fake ones here are reused per role as GpuSolver._copies' are):
    answers as `sequential`'s. On the code before, make_room built each collected launch's
    records before the launch it made room for was sent and queued."""
    from splicedalign.gpu import device

    fake_gpu(monkeypatch, _fake_function_with_trace)
    held: dict = {}  # (buffers, role): the fake pinned buffer, reused by the role's next copy

    def pinned_copy(self, role, array, stream, blocking=True):
        array = np.asarray(array)
        buffer = held.get((id(self), role))
        if buffer is None or buffer.size < array.size or buffer.dtype != array.dtype:
            buffer = held[id(self), role] = np.empty(array.size, array.dtype)
        out = buffer[:array.size].reshape(array.shape)
        out[...] = array
        return out

    monkeypatch.setattr(device.PinnedBuffers, "copy", pinned_copy)
    # the oldest queued launches collected, all of them, once ``at_once`` are queued
    monkeypatch.setattr(launch, "collected_first", lambda held, size, room: len(held) if len(held) >= at_once else 0)
    log: list = []  # ("planning", i) .. ("queued", i) around launch i's _launch; ("collected" | "built", launch)
    walks: dict = {}  # id of a launch's walks' records: its launch
    records: list = []  # those records, kept alive: a freed one's id could be another launch's
    launch_of, traceback, collect = GpuSolver._launch, outputs.device_traceback, GpuSolver._collect

    def launched(self, *a, **k):
        i = len(walks)
        log.append(("planning", i))
        job = launch_of(self, *a, **k)
        walks[id(job.inputs.trace.info)] = i
        records.append(job.inputs.trace.info)
        log.append(("queued", i))
        return job

    monkeypatch.setattr(GpuSolver, "_launch", launched)
    monkeypatch.setattr(outputs, "device_traceback", lambda info, *a, **k: (
        log.append(("built", walks[id(info)])), traceback(info, *a, **k))[1])
    monkeypatch.setattr(GpuSolver, "_collect", lambda self, job, part=0: (
        log.append(("collected", walks[id(job.inputs.trace.info)])) if part == 0 else None,
        collect(self, job, part))[1])
    cases = _long_chain_cases(40)
    rows = max(launch.launch_rows(FlatCases.of([c]), 2) for c in cases)
    solver = GpuSolver(rows_per_lane=2, tuning=launch.Tuning(  # launches of a few cases
        throughput_cases=1, move_budget=most_moves(cases), row_budget=2 * rows))
    want = get_solver("sequential").solve_many(cases, Scoring(), traceback=True)
    got = solver.solve_many(cases, Scoring(), traceback=True)
    assert [(g.score, g.chain, g.alignment) for g in got] == [(w.score, w.chain, w.alignment) for w in want]
    launches = len(walks)
    assert launches >= 4 and {e for e in log if e[0] == "built"} == {("built", i) for i in range(launches)}
    windows = [(log.index(("planning", i)), log.index(("queued", i))) for i in range(launches)]
    collected = []  # how many launches each launch's make_room collected
    for a, b in windows:  # nothing built after the window's last collection (none: nothing built)
        window = log[a + 1:b]
        last = max((j for j, e in enumerate(window) if e[0] == "collected"), default=-1)
        assert not [e for e in window[last + 1:] if e[0] == "built"], window
        collected.append(sum(e[0] == "collected" for e in window))
    assert max(collected) == at_once and sum(collected) >= 2


def _streams_entered(monkeypatch) -> list:
    """The fake GPU's streams entered as current (``with stream:``), innermost last, as they go."""
    current: list = []
    monkeypatch.setattr(_FakeCupy.cuda.Stream, "__enter__", lambda self: (current.append(self), self)[1])
    monkeypatch.setattr(_FakeCupy.cuda.Stream, "__exit__", lambda self, *exc: (current.pop(), False)[1])
    return current


def most_moves(cases, rows_per_lane: int = 2, throughput_cases: int = 1, recompute: bool = True) -> int:
    """The most move words a recording launch of one of ``cases`` takes (launch.launch_move_words;
    ``recompute``: Tuning.recompute): a budget of a few cases a launch."""
    tuning = launch.Tuning(throughput_cases=throughput_cases, recompute=recompute)
    return max(launch.launch_move_words(FlatCases.of([c]), "int", tuning, rows_per_lane) for c in cases)


def test_move_storage_kept_and_reused(monkeypatch):
    """A recording launch's move storage comes from the solver's kept buffers (GpuSolver._moves),
    made with the moves' stream current (CuPy's pool keeps free blocks per stream: there only
    move storage lives), each of the call's size (Split.moves), and given back when the launch
    is collected: a later launch reuses them, and a second call makes none; planned and fed;
    answers as `sequential`'s."""
    current = _streams_entered(monkeypatch)
    made: list = []  # (dtype, size, the current stream) of each device array made
    monkeypatch.setattr(_FakeCupy, "empty", staticmethod(lambda shape, dtype=float: (
        made.append((np.dtype(dtype), shape, current[-1] if current else None)), np.empty(shape, dtype))[1]))
    fake_gpu(monkeypatch, _fake_function_with_trace)
    fed, feed = [], GpuSolver._fed
    monkeypatch.setattr(GpuSolver, "_fed", lambda self, *a: (fed.append(1), feed(self, *a))[1])
    cases = _long_chain_cases(38)
    want = get_solver("sequential").solve_many(cases, Scoring(), traceback=True)
    rows = max(launch.launch_rows(FlatCases.of([c]), 2) for c in cases)
    words = most_moves(cases, recompute=False)
    for tuning in (launch.Tuning(throughput_cases=1, move_budget=3 * words, row_budget=4 * rows,  # a few launches
                                 recompute=False),
                   launch.Tuning(throughput_cases=4, feed_record=True, recompute=False)):  # one fed launch
        solver = GpuSolver(rows_per_lane=2 if not tuning.feed_record else None, poison=True, tuning=tuning)
        for call in range(2):
            made.clear()
            got = solver.solve_many(cases, Scoring(), traceback=True)
            assert [(g.score, g.chain, g.alignment) for g in got] == [(w.score, w.chain, w.alignment) for w in want]
            assert not [m for m in made if m[0] == np.uint32]  # moves: views of kept uint8 buffers
            kept = [size for _, size, stream in made if stream in (solver.streams().fill, solver.streams().moves)]
            launches = len(solver.kernel_ms)
            if call == 0:  # each launch's rows and moves at most (fewer where a collected launch's fit)
                assert kept and len(kept) <= 2 * launches
            else:
                assert launches <= solver_module.ROW_STORAGE_KEPT and not kept  # every buffer kept
        assert not solver._move_buffers and solver._move_storage.held_bytes() > 0
    assert len(fed) == 1  # (the second tuning's first call: a fed recording launch; its second finds it planned)


def test_move_storage_sized_by_the_call(monkeypatch):
    """A traced call's launches take one move-storage size (Split.moves): its largest launch's
    moves as planned, or the kept buffers' where they are larger (they are reused, so counted);
    where the kept storage is let go for the call's launches, its own (launch.move_storage: at
    least a quarter of the move budget)."""
    from splicedalign.gpu import device

    fake_gpu(monkeypatch, _fake_function_with_trace)
    cases = _long_chain_cases(39)
    tuning = launch.Tuning(throughput_cases=1, move_budget=3 * most_moves(cases))
    solver = GpuSolver(rows_per_lane=2, tuning=tuning)
    solver.solve_many(cases, Scoring(), traceback=True)
    kept = solver._move_storage.largest()
    small = [min(cases, key=lambda c: launch.launch_move_words(FlatCases.of([c]), "int", tuning, 2))]
    own = launch.move_storage(4 * launch.launch_move_words(FlatCases.of(small), "int", tuning, 2), tuning)
    assert kept == solver._moves_each > own
    solver.solve_many(small, Scoring(), traceback=True)  # the kept buffers reused: their size counted
    assert solver._moves_each == kept and solver._move_storage.largest() == kept
    monkeypatch.setattr(device, "memory_budget", lambda cap=None: 0)  # no room but the kept storage's
    got = solver.solve_many(small, Scoring(), traceback=True)  # let go: the call's own size
    assert solver._moves_each == own and solver._move_storage.largest() == own
    want = get_solver("sequential").solve_many(small, Scoring(), traceback=True)
    assert [(g.score, g.chain, g.alignment) for g in got] == [(w.score, w.chain, w.alignment) for w in want]


def test_no_kernel_on_the_upload_stream(monkeypatch):
    """The upload stream carries copies only: a kernel there (the inputs' encoding) waits for SMs
    while the launch before runs, and every later copy of the stream and the host's next packing
    with it (GpuSolver._encode). Traced and score calls of several launches: every kernel queued
    on another stream, the encoding on the compute stream; answers as `sequential`'s."""
    current = _streams_entered(monkeypatch)
    log: list = []

    def logged(file, name, all_names, defines):
        kernel = _fake_function_with_trace(file, name, all_names, defines)
        return lambda grid, block, args: (log.append((name.split("<")[0], current[-1] if current else None)),
                                          kernel(grid, block, args))[1]

    fake_gpu(monkeypatch, logged)
    cases = _long_chain_cases(36)
    rows = max(launch.launch_rows(FlatCases.of([c]), 2) for c in cases)  # budgets of a few cases a launch
    solver = GpuSolver(rows_per_lane=2, tuning=launch.Tuning(
        throughput_cases=1, move_budget=most_moves(cases), row_budget=2 * rows))
    for traceback in (True, False):
        want = get_solver("sequential").solve_many(cases, Scoring(), traceback=traceback)
        log.clear()
        got = solver.solve_many(cases, Scoring(), traceback=traceback)
        assert [(g.score, g.chain) for g in got] == [(w.score, w.chain) for w in want]
        streams = solver.streams()
        encodes = [s for name, s in log if name == gpu_plan.ENCODE_KERNEL]
        # (a score launch of a batch that a traced launch planned finds it cached: no encoding)
        assert len(solver.kernel_ms) > 2 and len(encodes) > 1 and all(s is streams.compute for s in encodes)
        assert not [name for name, s in log if s is streams.upload]


def test_walks_beside_the_next_kernel(monkeypatch):
    """A recording launch's walks run each on a walk stream of its own (the device's highest
    priority), behind an event of the compute stream recorded after the launch's wavefront and
    finals, so that the next launch's kernel (compute stream) does not wait for them and none
    waits for another; the followed cases' walk on the follower's stream. Answers as
    `sequential`'s."""
    current = _streams_entered(monkeypatch)
    log: list = []  # ("kernel", name, stream), ("record", stream, event), ("wait", stream, event)
    record, wait = _FakeCupy.cuda.Stream.record, _FakeCupy.cuda.Stream.wait_event
    monkeypatch.setattr(_FakeCupy.cuda.Stream, "record",
                        lambda self: (e := record(self), log.append(("record", self, e)))[0])
    monkeypatch.setattr(_FakeCupy.cuda.Stream, "wait_event",
                        lambda self, e: (log.append(("wait", self, e)), wait(self, e))[1])

    def logged(file, name, all_names, defines):
        kernel = _fake_function_with_trace(file, name, all_names, defines)
        family = name.split("<")[0].removesuffix("_checkpoints")  # (walks from column checkpoints or not)
        return lambda grid, block, args: (log.append(("kernel", family, current[-1] if current else None)),
                                          kernel(grid, block, args))[1]

    fake_gpu(monkeypatch, logged)
    cases = _long_chain_cases(37)
    rows = max(launch.launch_rows(FlatCases.of([c]), 2) for c in cases)  # budgets of a few cases a launch
    solver = GpuSolver(rows_per_lane=2, tuning=launch.Tuning(  # launches of a few cases, walks of a few each
        throughput_cases=1, move_budget=2 * most_moves(cases), row_budget=2 * rows,
        walk_shares=(0.3, 0.6)))
    want = get_solver("sequential").solve_many(cases, Scoring(), traceback=True)
    got = solver.solve_many(cases, Scoring(), traceback=True)
    assert [(g.score, g.chain, g.alignment) for g in got] == [(w.score, w.chain, w.alignment) for w in want]
    streams = solver.streams()
    assert all(s.priority == solver_module.HIGHEST for s in streams.walks) and streams.compute.priority == 0
    walks = [i for i, e in enumerate(log) if e[:2] == ("kernel", "trace_chains")]
    assert len(solver.kernel_ms) > 2 and len(walks) >= len(solver.kernel_ms)
    assert {log[i][2] for i in walks} <= set(streams.walks) | {streams.follow}
    most = 0
    for kernel in [i for i, e in enumerate(log) if e[:2] == ("kernel", "wavefront")]:
        mine = [log[i][2] for i in walks if i > kernel and not any(
            e[:2] == ("kernel", "wavefront") for e in log[kernel + 1:i])]  # this launch's walks
        assert len(mine) == len(set(mine)), mine  # each on a stream of its own
        most = max(most, len(mine))
    assert most > 1  # (a launch of several walks)
    recorded = {id(e[2]): i for i, e in enumerate(log) if e[0] == "record" and e[1] is streams.compute}
    for i in walks:
        stream = log[i][2]
        kernel = max(j for j in range(i) if log[j][:2] == ("kernel", "wavefront"))  # this launch's
        finals = max(j for j in range(i) if log[j][:2] == ("kernel", "gather_rows"))
        waited = [recorded.get(id(e[2]), -1) for e in log[:i] if e[0] == "wait" and e[1] is stream]
        assert waited and waited[-1] > max(kernel, finals)  # behind the launch's wavefront and finals
        assert not [e for e in log[kernel:i] if e[0] == "kernel" and e[2] is streams.compute and e[1] == "trace_chains"]


def test_next_walks_outputs_copied_before_this_ones_records(monkeypatch):
    """A recording launch's outputs come back walk by walk: the next walk's copies are queued
    (behind it) before the host builds this walk's records, so they run meanwhile; each walk's
    records from its own copies."""
    from splicedalign.gpu import device

    log: list = []
    fake_gpu(monkeypatch, _fake_function_with_trace)
    monkeypatch.setattr(device.PinnedBuffers, "copy", lambda self, role, array, stream, blocking=True: (
        log.append(("copy", role, blocking)), np.array(array))[1])
    traceback = outputs.device_traceback
    monkeypatch.setattr(outputs, "device_traceback", lambda info, rows, *a, **k: (
        log.append(("records", rows)), traceback(info, rows, *a, **k))[1])
    solver, cases, _ = _traced_as_sequential(35)
    walks = launch.walks(cases, [2, 5], solver.tuning)
    assert len(walks) == 3
    steps = [(e[0], e[1][0]) if e[0] == "copy" and e[1] not in ("finals", "counts") else e[:2] for e in log]
    copies = [("copy", k) for k in range(3)]
    # the kernels' counters and error words with the last walk's
    assert [s for s in steps if s[0] == "copy"] == ([("copy", "finals")] + [c for c in copies[:2] for _ in range(3)]
                                                    + [("copy", "counts")] + [copies[2]] * 3)
    records = [i for i, s in enumerate(steps) if s[0] == "records"]
    assert len(records) == 3
    for k in range(2):  # walk k + 1's copies before walk k's records
        assert max(i for i, s in enumerate(steps) if s == copies[k + 1]) < records[k]
    assert all(not e[2] for e in log if e[0] == "copy")


@pytest.mark.parametrize("recompute", [True, False])
def test_long_chains_recorded_by_a_follower(monkeypatch, recompute):
    """A throughput launch that traces back on the device computes the strips of its longest
    chains (launch.long_chains) at score speed and a follower records their moves (exactly those
    strips, in launch order); the other cases are walked first, those after the follower;
    chains and alignments stay `sequential`'s. Tuning.recompute: its kernel is the score kernel,
    and the move storage holds the follower's moves from 0 and then only each other case's walk
    scratch (plan.scratch_layout), every walk of those cases recomputing (the walks' case table);
    off: the kernel records the other strips' moves, the follower's after the plan's."""
    calls = []

    def recording(file, name, all_names, defines):
        kernel = _fake_function_with_trace(file, name, all_names, defines)

        def run(grid, block, args):
            if name.startswith("wavefront"):
                calls.append((name, args[0].copy(), args[6].size))
            elif name.startswith("trace_chains"):
                calls.append((name, int(args[1]), args[0][:, gpu_plan.TRACE_CASE_FIELDS.index("scratch")].copy(),
                              args[4].shape))
            kernel(grid, block, args)
        return run

    fake_gpu(monkeypatch, recording)
    # a share that splits these cases' paths
    tuning = launch.Tuning(throughput_cases=4, walk_shares=(0.2,), recompute=recompute)
    cases = _long_chain_cases(33)
    assert launch.long_chains(cases, tuning) == [2, 5]
    want = get_solver("sequential").solve_many(cases, Scoring(), traceback=True)
    solver = GpuSolver(poison=True, tuning=tuning)
    for traceback in (True, False):
        calls.clear()
        got = solver.solve_many(cases, Scoring(), traceback=traceback)
        assert [(g.score, g.chain, g.alignment) for g in got] == [
            (w.score, w.chain, w.alignment) if traceback else (w.score, None, None) for w in want]
        waves = [call for call in calls if call[0].startswith("wavefront")]
        if not traceback:
            assert [n.split(",")[3].strip(" >") for n, _, _ in waves] == [str(gpu_plan.MODE_SCORE)]
            continue
        (record, tasks, words), (follow, followed, _) = waves
        # (a recomputing launch's score kernel stores column checkpoints: Tuning.checkpoint_blocks)
        assert record == (f"wavefront_checkpoints<int, 8, true, false, {tuning.checkpoint_blocks}>" if recompute
                          else f"wavefront<int, 8, true, {gpu_plan.MODE_RECORD}, false>")
        assert follow.endswith(f"{gpu_plan.MODE_FOLLOW}, false>")
        plan = solver._cache[next(iter(solver._cache))].plan
        exons = [e for c in (2, 5) for e in range(plan.exon_start[c], plan.exon_start[c + 1])]
        ids = sorted(t for e in exons for t in plan.strip_task[plan.strip_start[e]:plan.strip_start[e + 1]])
        # the same strips, each at the fewest rows per lane that fit it, moves after the plan's
        same = [i for i, f in enumerate(gpu_plan.TASK_FIELDS) if f not in ("lane_rows", "moves")]
        np.testing.assert_array_equal(followed[:, same], plan.tasks[ids][:, same])
        rows, lr = followed[:, F["rows"]], followed[:, F["lane_rows"]]
        assert ((lr == gpu_plan.MIN_LANE_ROWS) | (gpu_plan.WARP * lr // 2 < rows)).all()
        assert (gpu_plan.WARP * lr >= rows).all() and (lr <= plan.tasks[ids][:, F["lane_rows"]]).all()
        at = followed[:, F["moves"]].astype(np.int64) * gpu_plan.MOVE_UNIT
        assert at[0] == (0 if recompute else plan.moves_size) and (np.diff(at) > 0).all()
        if recompute:  # the score kernel on the plan's tasks
            np.testing.assert_array_equal(tasks, plan.tasks)
        else:
            unrecorded = np.flatnonzero(tasks[:, gpu_plan.TASK_FIELDS.index("moves")] == gpu_plan.NONE)
            assert unrecorded.tolist() == ids
        follower_end = int(at[-1]) + gpu_plan.MOVE_UNIT * gpu_plan.strip_move_units(
            *(int(followed[-1, F[f]]) for f in ("n", "rows", "lane_rows")))
        scratch, end = gpu_plan.scratch_layout(plan.n, [2, 5], 8, follower_end // gpu_plan.MOVE_UNIT)
        assert words == (gpu_plan.MOVE_UNIT * end if recompute else follower_end)
        assert not recompute or words < plan.moves_size  # fewer words than the plan's strips' moves
        # the others' paths walked first, short ones before long ones (the host builds their
        # records meanwhile), then the followed ones (their moves recorded, not recomputed)
        walks = launch.walks(cases, [2, 5], tuning)
        assert len(walks) == 3 and walks[-1] == [2, 5]
        assert sorted(i for w in walks[:-1] for i in w) == [0, 1, 3, 4, 6, 7, 8, 9]
        traces = [call for call in calls if call[0].startswith("trace_chains")]
        assert [count for _, count, _, _ in traces] == [len(w) for w in walks]
        for (_, _, got, shape), walk in zip(traces, walks):
            np.testing.assert_array_equal(got, scratch[walk] if recompute else gpu_plan.NONE)
            # recomputing: the followed walk reads the follower's tasks, the others the plan's
            assert shape == (followed.shape if recompute and walk == walks[-1] else plan.tasks.shape)


def test_followed_tasks_equal_a_plain_reading():
    """plan.followed_tasks (one compiled pass) against a plain NumPy reading of its contract:
    the followed cases' strips, in launch order, marked NONE in the launch's copy; in the walks'
    copy each at the fewest rows per lane from ``least`` that hold it, its moves after the plan's
    in launch order; the follower's tasks those rows; on random batches, several followed sets.
    Moves from a ``start`` (a launch whose walks recompute): the same follower's tasks, their
    moves from there, and no copies."""
    rng = np.random.default_rng(41)
    print("seed 41")
    F = {name: i for i, name in enumerate(TASK_FIELDS)}
    for trial in range(6):
        cases = [random_case(rng, f"f{trial}_{i}") for i in range(int(rng.integers(3, 14)))]
        flat = FlatCases.of(cases)
        plan = build_plan(flat, 8, 2)
        followed = sorted(rng.choice(len(cases), int(rng.integers(1, len(cases) + 1)), replace=False).tolist())
        least = int(rng.choice([2, 4]))
        got = gpu_plan.followed_tasks(plan, followed, least)
        ids = np.sort(np.concatenate([plan.strip_task[plan.strip_start[plan.exon_start[c]]:
                                                      plan.strip_start[plan.exon_start[c + 1]]] for c in followed]))
        tasks = plan.tasks.copy()
        tasks[ids, F["moves"]] = NONE
        walked = plan.tasks.copy()
        at = plan.moves_size // MOVE_UNIT
        for t in ids.tolist():
            rows = int(plan.tasks[t, F["rows"]])
            lane_rows = int(gpu_plan.strip_lane_rows(rows, least, int(plan.tasks[t, F["lane_rows"]])))
            walked[t, F["lane_rows"]], walked[t, F["moves"]] = lane_rows, at
            at += int(gpu_plan.strip_move_units(int(plan.tasks[t, F["n"]]), rows, lane_rows))
        assert got.cases == tuple(followed) and got.moves_size == at * MOVE_UNIT
        for name, want in (("tasks", tasks), ("walked", walked), ("follow", walked[ids])):
            assert getattr(got, name).dtype == want.dtype and np.array_equal(getattr(got, name), want), name
        assert np.array_equal(got.ids, ids)
        start = int(rng.integers(0, 50))
        recomputing = gpu_plan.followed_tasks(plan, followed, least, start)
        follow = walked[ids]
        follow[:, F["moves"]] += start - plan.moves_size // MOVE_UNIT
        assert recomputing.tasks is None and recomputing.walked is None and np.array_equal(recomputing.ids, ids)
        assert recomputing.follow.dtype == follow.dtype and np.array_equal(recomputing.follow, follow)
        assert recomputing.moves_size == (at - plan.moves_size // MOVE_UNIT + start) * MOVE_UNIT


def test_fed_recording_launch_host_path(monkeypatch):
    """A traced call's recording launch fed (Tuning.feed_record; feed.py, "Recording") end to end
    on the fake device: its kernel started on an empty task list, its follower after window 0,
    the walks behind them: the chains and alignments `sequential`'s and those of the launch
    planned whole, global and free ends, poisoned moves and ops; a replay runs the cached plan
    as a planned launch; a bad letter in a later step is the case's one line, the follower ended
    first (its long chains' tasks handed over: the model follower asserts every row it reads)."""
    from dataclasses import replace

    from test_spliced_gpu_plan import _FED

    from splicedalign.core.alphabet import LetterError

    calls = []

    def recording(file, name, all_names, defines):
        kernel = _fake_function_with_trace(file, name, all_names, defines)

        def run(grid, block, args):
            if name.startswith("wavefront"):
                calls.append((int(name.split(",")[3]), int(args[1])))
            kernel(grid, block, args)
        return run

    fake_gpu(monkeypatch, recording)
    rng = np.random.default_rng(43)
    print("seed 43")
    long = gene_like(rng, Shape(m=3_000, K=40, n=150, exon_mean=60), name="long", targets=2)
    cases = [random_case(rng, f"f{i}") for i in range(10)] + long + [random_case(rng, f"g{i}") for i in range(10)]
    tuning = launch.Tuning(throughput_cases=4, feed_shares=(0.2, 0.3), feed_record=True, recompute=False)
    for scoring in (Scoring(), Scoring(2, -3, 1, "free")):
        want = get_solver("sequential").solve_many(cases, scoring, traceback=True)
        whole = GpuSolver(poison=True, tuning=replace(tuning, feed_record=False)).solve_many(cases, scoring, True)
        solver = GpuSolver(poison=True, tuning=tuning)
        calls.clear()
        got = solver.solve_many(cases, scoring, traceback=True)
        assert calls[:2] == [(gpu_plan.MODE_RECORD, -1), (gpu_plan.MODE_FOLLOW, calls[1][1])] and calls[1][1] > 0
        assert len(calls) == 2 and not _FED
        (key, inputs), = solver._cache.items()
        assert [c.name for c in inputs.cases[:2]] == ["long_t1", "long_t2"]
        calls.clear()
        again = solver.solve_many(cases, scoring, traceback=True)  # the cached plan: planned, not fed
        assert [mode for mode, _ in calls] == [gpu_plan.MODE_RECORD, gpu_plan.MODE_FOLLOW] and calls[0][1] > 0
        for w, p, g, h in zip(want, whole, got, again):
            assert (g.case, g.score, g.chain, g.alignment) == (w.case, w.score, w.chain, w.alignment)
            assert (p.score, p.chain, p.alignment) == (g.score, g.chain, g.alignment)
            assert (h.score, h.chain, h.alignment) == (g.score, g.chain, g.alignment)
    # no long chains (every case is one: too many to follow): fed, no follower, every strip recorded
    calls.clear()
    got = GpuSolver(poison=True, tuning=replace(tuning, long_chain_share=0.0)).solve_many(cases, Scoring(), True)
    assert calls == [(gpu_plan.MODE_RECORD, -1)]
    assert [(g.score, g.chain, g.alignment) for g in got] == [
        (w.score, w.chain, w.alignment) for w in get_solver("sequential").solve_many(cases, Scoring(), True)]
    bad = TestCase("bad5", "ACGTACGT", "AC5T", (Exon(1, 4),))
    solver = GpuSolver(poison=True, tuning=tuning)
    with pytest.raises(LetterError, match="^bad5: non-nucleotide letter"):
        solver.solve_many(cases + [bad], Scoring(), traceback=True)
    assert not _FED


def test_fed_recording_launch_takes_nothing_new_while_its_kernel_waits(monkeypatch):
    """A fed recording launch's follower is queued after window 0, while the fed kernel waits
    for the host's next window: between the kernel's start and the feed's final count no
    kernel is looked up (a kernel's first load may synchronize the device under CUDA's lazy
    loading: the host would wait for a kernel that waits for the host) and nothing is allocated
    or uploaded anew (a cudaMalloc, a pool's retry after one failed); the follower is queued
    there, on records copied into storage made before (seed 47, a K = 200 chain)."""
    from test_spliced_gpu_plan import _fake_write_word, _FakeCupy

    from splicedalign.gpu import device

    log: list = []

    def function(file, name, all_names, defines):
        log.append(("lookup", name))
        kernel = _fake_function_with_trace(file, name, all_names, defines)

        def run(grid, block, args):
            log.append(("launch", int(name.split(",")[3]) if name.startswith("wavefront") else name,
                        int(args[1]) if name.startswith("wavefront") else None))
            kernel(grid, block, args)
        return run

    fake_gpu(monkeypatch, function)
    for what in ("empty", "zeros", "full"):
        made = getattr(_FakeCupy, what)
        monkeypatch.setattr(_FakeCupy, what, staticmethod(lambda *a, _made=made, _what=what, **k: (
            log.append(("alloc", _what)), _made(*a, **k))[1]))
    upload = device.PinnedBuffers.upload
    monkeypatch.setattr(device.PinnedBuffers, "upload",
                        lambda self, *a: (log.append(("upload",)), upload(self, *a))[1])
    monkeypatch.setattr(device, "write_word", lambda array, index, value, stream: (
        log.append(("word", index, value)), _fake_write_word(array, index, value, stream)))
    rng = np.random.default_rng(47)
    print("seed 47")
    long = gene_like(rng, Shape(m=6_000, K=200, n=120, exon_mean=40), name="long", targets=2)
    cases = long + [random_case(rng, f"f{i}") for i in range(24)]
    tuning = launch.Tuning(throughput_cases=4, feed_shares=(0.2, 0.3), feed_record=True, recompute=False)
    got = GpuSolver(tuning=tuning).solve_many(cases, Scoring(), traceback=True)
    want = get_solver("sequential").solve_many(cases, Scoring(), traceback=True)
    assert [(g.score, g.chain, g.alignment) for g in got] == [(w.score, w.chain, w.alignment) for w in want]
    start = log.index(("launch", gpu_plan.MODE_RECORD, -1))
    end = log.index(("word", 1, 1))
    during = log[start + 1:end]
    assert [e[:2] for e in during if e[0] == "launch"] == [("launch", gpu_plan.MODE_FOLLOW)]
    assert not [e for e in during if e[0] in ("lookup", "alloc", "upload")], during


def test_profiled_jobs_keep_no_storage(monkeypatch):
    """benchmarks/spliced_profile.keep_jobs (the cold probe's events) keeps each queued launch's
    job without its row and move storage, which the solver gives back once it collects the
    launch (kept whole, a 10-set traced call's jobs filled an H100); its events and parts stay."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    monkeypatch.setattr(GpuSolver, "_launch", GpuSolver._launch)  # keep_jobs' wrapper undone afterwards
    monkeypatch.delitem(sys.modules, "spliced_profile", raising=False)
    from spliced_profile import keep_jobs

    fake_gpu(monkeypatch, _fake_function_with_trace)
    jobs: list = []
    keep_jobs(jobs)
    solver, cases, want = _traced_as_sequential(39)
    assert jobs and all(j.storage is None and j.moves is None for j in jobs)
    assert all(j.events and j.parts and j.traced is not None for j in jobs)
