"""Host-side logic of the GPU solvers, no GPU needed.

The `gpu` plan is checked by executing its tasks in launch order with a NumPy model of what
each kernel task computes (shifted scores, padding rows, running-max folds): if the model
reproduces the sequential solver's last rows exactly, the plan's order, dependencies, offsets
and the kernel's score algebra are right; only the CUDA transcription is left to the device.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import golden_case
from helpers import fresh_rng
from helpers import random_spliced_case as random_case

from splicedalign.workloads.spliced.cpu_kernels import score_dtype
from splicedalign.workloads.spliced.gpu import launch, paper
from splicedalign.workloads.spliced.gpu import plan as gpu_plan
from splicedalign.workloads.spliced.gpu.flat import FlatCases
from splicedalign.workloads.spliced.gpu.plan import (
    KIND_FOLD,
    KIND_STRIP,
    MIN_LANE_ROWS,
    NONE,
    SEL_CODE_MASK,
    SEL_SIGN,
    SEL_SPREAD,
    TASK_FIELDS,
    WARP,
    build_plan,
    byte_profile_ok,
    score_ctype,
)
from splicedalign.workloads.spliced.records import Exon, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced.synthetic import Shape, gene_like, tiny_set

pytestmark = pytest.mark.usefixtures("gpu_host_code")  # conftest: the warm-up's planning code

F = {name: i for i, name in enumerate(TASK_FIELDS)}


def record_moves(moves: np.ndarray, t: dict, ups: list[np.ndarray], w_rows: list[np.ndarray], c0: int = 0) -> None:
    """The moves a strip writes (plan.py, "Moves"): ``ups[rho]`` is the shifted row above
    strip row rho (ups[P] the strip's last row), ``w_rows[rho]`` its shifted letter scores.
    Asserts that every cell's word lies inside the strip's region. ``c0`` > 0: a sweep from a
    column checkpoint (strip_sweep's): columns c0..n, ups from column c0 - 1; its region from step
    c0 // COLS - 1 (``moves`` at t["moves"] * MOVE_UNIT + that step's), whose block (columns left
    of c0, throw-away) hands each lane its checkpoint and the head lane the entry row at c0 - 1."""
    n, lr, P = t["n"], t["lane_rows"], WARP * t["lane_rows"]
    head = (P - t["rows"]) // lr
    mw = gpu_plan.move_words(lr)
    steps = n // gpu_plan.COLS + 1 + WARP - 1 - head
    u0 = max(c0 // gpu_plan.COLS - 1, 0)
    at = t["moves"] * gpu_plan.MOVE_UNIT
    moves[at + u0 * WARP * mw: at + steps * WARP * mw] = 0  # the kernel writes every word of the region
    j = np.arange(max(c0, 1), n + 1)
    for rho in range(P):
        up, h, w = ups[rho], ups[rho + 1], w_rows[rho]
        dg, vt, hz = up[:-1] + w, up[1:], h[:-1]
        # (diagonal lost, up lost to left); column 0 moves up (its left and diagonal are below
        # every score in the kernel)
        field = 2 * (dg < np.maximum(vt, hz)) + (vt < hz)
        lane, r = divmod(rho, lr)
        if lane < head:
            continue  # lanes above the entry row's lane hold throw-away cells
        cols = j
        if c0 == 0:
            field, cols = np.concatenate(([2], field)), np.concatenate(([0], j))
        u = cols // gpu_plan.COLS + lane - head
        assert u.min() >= u0 and u.max() < steps
        idx = at + (u * WARP + lane) * mw + r // 4
        bit = gpu_plan.move_shift(lr, r, cols % gpu_plan.COLS)
        np.bitwise_or.at(moves, idx, (field.astype(np.uint64) << bit.astype(np.uint64)).astype(np.uint32))


def entry_row(t: dict, rows: np.ndarray, scoring: Scoring) -> np.ndarray:
    """A task's entry row max(in, in2, in3) over columns 0..n; no `in`: the chain-start row
    (-gap*j; free ends 0); no `in2`, `in3`: no such row (in3 only beside in2)."""
    n = t["n"]
    assert t["in3_row"] == NONE or t["in2_row"] != NONE
    entry = -scoring.lead * np.arange(n + 1) if t["in_row"] == NONE else rows[t["in_row"]: t["in_row"] + n + 1]
    for extra in (t["in2_row"], t["in3_row"]):
        if extra != NONE:
            entry = np.maximum(entry, rows[extra: extra + n + 1])
    return entry


def strip_sweep(t: dict, entry: np.ndarray, base: np.ndarray, target: np.ndarray,
                scoring: Scoring, c0: int = 0,
                left: np.ndarray | None = None) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """A strip's shifted rows (ups[rho]: the row above strip row rho, ups[P] its last) and its
    rows' shifted letter scores over columns 0..n from its entry row: exon rows at the bottom,
    padding rows (which copy the entry row) on top. ``c0`` > 0: swept from the column
    checkpoint left of column c0 (``left``: every strip row's shifted score at column c0 - 1;
    the lanes above the head lane's take the entry row's), over columns c0 - 1..n."""
    n, b, gap = t["n"], t["rows"], scoring.gap
    P = WARP * t["lane_rows"]
    held = ((P - b) // t["lane_rows"]) * t["lane_rows"]  # strip rows from the head lane's on
    start = max(c0 - 1, 0)
    codes = target[t["tgt"] + start + 1: t["tgt"] + n + 1]
    up = entry[start:] + gap * np.arange(start, n + 1)  # shifted: h' = h + gap * (rows so far + j)
    ups, w_rows = [up], []
    for rho in range(P):
        if rho < P - b:
            w = np.zeros(n - start, dtype=np.int64)  # padding row copies its entry row
        else:
            bc = base[t["base"] + rho - (P - b)]
            w = np.where(codes == bc, scoring.match, scoring.mismatch) + 2 * gap
        cand = up.copy()
        cand[1:] = np.maximum(up[:-1] + w, up[1:])
        if c0 > 0 and rho >= held:
            cand[0] = left[rho]  # column c0 - 1 from the checkpoint
        up = np.maximum.accumulate(cand)  # the horizontal term is a running max
        ups.append(up)
        w_rows.append(w)
    return ups, w_rows


def store_checkpoints(ck: np.ndarray, at: int, ckb: int, t: dict, ups: list[np.ndarray]) -> None:
    """A strip's column checkpoints (plan.py, "Column checkpoints") from its shifted rows: strip
    row rho = l * R + r at column CKB * COLS * k - 1 into ck[at + (k - 1) * 32 * R + rho], the
    lanes from its head lane on (those above hold throw-away cells: left as they were)."""
    P = WARP * t["lane_rows"]
    head = (P - t["rows"]) // t["lane_rows"]
    cols = ckb * gpu_plan.COLS * np.arange(1, gpu_plan.strip_checkpoints(t["n"], ckb) + 1) - 1
    values = np.stack(ups[1:])[:, cols].T  # (checkpoints, P)
    rho = np.arange(head * t["lane_rows"], P)
    ck[at + np.arange(cols.size)[:, None] * P + rho] = values[:, rho]


def model_run(plan, scoring: Scoring, rows_per_lane: int, moves: np.ndarray | None = None,
              written: np.ndarray | None = None, checkpoints: tuple | None = None) -> np.ndarray:
    """Row storage after running every task in launch order, as the kernel defines them; with
    ``moves`` (plan.moves_size words), also the moves the recording variant writes (strips
    whose moves field is NONE record none). ``written``: a follower's run: the rows a kernel
    wrote, which the strips read and must reproduce (folds are skipped). ``checkpoints``: (ck,
    at, CKB) of plan.checkpoint_layout: each strip's column checkpoints stored into ck at at[i]."""
    gap = scoring.gap
    EMPTY = gpu_plan.empty(np.int64)
    follower = written is not None
    rows = written.astype(np.int64) if follower else np.full(plan.rows_size, EMPTY, dtype=np.int64)
    for i, rec in enumerate(plan.tasks.astype(np.int64)):
        t = {name: int(rec[k]) for name, k in F.items()}
        n = t["n"]
        j = np.arange(n + 1)
        if follower and t["kind"] == KIND_FOLD:
            continue
        for row in (t["in_row"], t["in2_row"], t["in3_row"]):  # written whole by a task earlier in launch order
            assert row == NONE or (rows[row: row + n + 1] != EMPTY).all(), "task reads a row not produced before it"
        assert follower or (rows[t["out_row"]: t["out_row"] + n + 1] == EMPTY).all(), "a row written twice"
        entry = entry_row(t, rows, scoring)
        # Shifted entry rows are non-decreasing: padding rows (prefix max) are the identity on
        # them, which lets the kernel skip lanes holding only padding rows.
        assert np.all(np.diff(entry + gap * j) >= 0)
        if t["entry_row"] != NONE:  # an exon's first strip standing in for the fold its entry row is
            assert t["kind"] == KIND_STRIP and t["in2_row"] != NONE
            if follower:
                np.testing.assert_array_equal(rows[t["entry_row"]: t["entry_row"] + n + 1], entry)
            else:
                assert (rows[t["entry_row"]: t["entry_row"] + n + 1] == EMPTY).all(), "a row written twice"
                rows[t["entry_row"]: t["entry_row"] + n + 1] = entry
        if t["kind"] == KIND_FOLD:
            assert t["in2_row"] != NONE and t["rows"] == 0
            rows[t["out_row"] : t["out_row"] + n + 1] = entry
        else:
            b, lane_rows = t["rows"], t["lane_rows"]
            # a power of two that fits the strip, at least the least one >= MIN_LANE_ROWS (the
            # launch's floor may be higher: test_plan_shapes_and_order), at most the kernel's
            assert t["kind"] == KIND_STRIP and 1 <= b <= WARP * lane_rows <= WARP * rows_per_lane
            assert lane_rows & (lane_rows - 1) == 0
            assert lane_rows >= min(max(MIN_LANE_ROWS, 1 << max(0, (b - 1) // WARP).bit_length()), rows_per_lane)
            ups, w_rows = strip_sweep(t, entry, plan.base, plan.target, scoring)
            if moves is not None and t["moves"] != NONE:
                record_moves(moves, t, ups, w_rows)
            if checkpoints is not None and checkpoints[1][i] != NONE:
                store_checkpoints(checkpoints[0], int(checkpoints[1][i]), checkpoints[2], t, ups)
            out = ups[-1] - gap * (b + j)
            if follower:
                np.testing.assert_array_equal(rows[t["out_row"] : t["out_row"] + n + 1], out)
            else:
                rows[t["out_row"] : t["out_row"] + n + 1] = out
    return rows


def row_writers(tasks: np.ndarray) -> dict[int, int]:
    """Launch index of the task that writes each row: its output row, and an exon's first strip
    its entry row where it stands in for a fold."""
    writer = {int(r): i for i, r in enumerate(tasks[:, F["out_row"]])}
    writer.update({int(tasks[i, F["entry_row"]]): int(i) for i in np.flatnonzero(tasks[:, F["entry_row"]] != NONE)})
    return writer


def sequential_rows(case: TestCase, scoring: Scoring) -> np.ndarray:
    return get_solver("sequential").last_rows(case, scoring, score_dtype(case.m, case.n, scoring))


@pytest.mark.parametrize("rows_per_lane", [1, 2, 8])
@pytest.mark.parametrize("late, entry", [(False, True), (True, True), (True, False)])
def test_plan_model_matches_sequential(rows_per_lane, late, entry):
    rng = np.random.default_rng(11)
    cases = [random_case(rng, f"r{i}") for i in range(25)] + tiny_set(bases=2)
    late_folds = [late and i % 3 > 0 for i in range(len(cases))]  # late folds beside early ones
    for scoring in (Scoring(), Scoring(2, -3, 1), Scoring(target_ends="free"), Scoring(2, -3, 1, "free")):
        plan = build_plan(cases, rows_per_lane, late_folds=late_folds, entry_folds=entry)
        rows = model_run(plan, scoring, rows_per_lane)
        for c, case in enumerate(cases):
            want = sequential_rows(case, scoring)
            got = np.stack([rows[o : o + case.n + 1] for o in plan.last_row[plan.exon_start[c]:plan.exon_start[c + 1]]])
            np.testing.assert_array_equal(got, want, err_msg=case.name)


def test_plan_golden(golden):
    cases, scorings = zip(*(golden_case(g) for g in golden))
    for case, scoring in zip(cases, scorings):
        plan = build_plan([case], 1)
        rows = model_run(plan, scoring, 1)
        finals = rows[plan.last_row + case.n]
        by_input = np.empty_like(finals)
        by_input[case.order] = finals
        g = next(g for g in golden if g["name"] == case.name)
        assert int(finals.max()) == g["score"]
        assert by_input.tolist() == g["last_row_scores"]


def test_plan_shapes_and_order():
    rng = np.random.default_rng(3)
    cases = gene_like(rng, Shape(m=20_000, K=40, n=300, exon_mean=150), "g", targets=3)
    plan = build_plan(cases, 8)
    t = plan.tasks
    assert t.dtype == np.int32 and t.shape[1] == len(TASK_FIELDS)
    strips = t[t[:, F["kind"]] == KIND_STRIP]
    assert strips[:, F["rows"]].min() >= 1 and strips[:, F["rows"]].max() <= 256
    assert (strips[:, F["rows"]].sum()) == sum(c.exon_length_sum for c in cases)
    # every input row is the output (or entry) row of a task earlier in launch order
    writer = row_writers(t)
    assert len(writer) == t.shape[0] + (t[:, F["entry_row"]] != NONE).sum()
    for row in ("in_row", "in2_row", "in3_row"):
        for i in np.flatnonzero(t[:, F[row]] != NONE):
            assert writer[int(t[i, F[row]])] < i
    folds = t[:, F["kind"]] == KIND_FOLD
    assert (t[folds, F["in2_row"]] != NONE).all()
    # a third input only beside the second; both exons' first strips and folds read three rows
    three = t[:, F["in3_row"]] != NONE
    assert (t[three, F["in2_row"]] != NONE).all() and three[folds].any() and three[~folds].any()
    # every fold, a task's or an entry row, is read (by a later fold or an exon's first strip):
    # none is computed for nothing
    read = set(t[:, [F["in_row"], F["in2_row"], F["in3_row"]]].ravel().tolist())
    entries = t[t[:, F["entry_row"]] != NONE]
    assert folds.any() and all(int(r) in read for r in t[folds, F["out_row"]])
    assert len(entries) and all(int(r) in read for r in entries[:, F["entry_row"]])
    # only an exon's first strip writes its entry row (it reads the fused fold entry, in2)
    assert (entries[:, F["kind"]] == KIND_STRIP).all() and (entries[:, F["in2_row"]] != NONE).all()
    # without entry folds every fold is a task, each of two inputs; with them, of each run of g
    # folds that no entry row writes floor(g / 2) are tasks (here 12 of the 54 such folds, on
    # main all 54: the readers of the others read three rows)
    every = build_plan(cases, 8, entry_folds=False).tasks
    assert (every[:, F["entry_row"]] == NONE).all() and (every[:, F["in3_row"]] == NONE).all()
    assert (every[:, F["kind"]] == KIND_FOLD).sum() == 111 and len(entries) == 57 and folds.sum() == 12
    assert gpu_plan.entry_folds("int", 8) and not gpu_plan.entry_folds("long long", 4)
    assert not gpu_plan.entry_folds("int", launch.TUNING.chain_rows_per_lane)
    # the selectors a strip's lanes read, blocks -31 .. n // COLS + 31, lie in the array and
    # outside every other case's targets (code 0 there)
    margin = (WARP - 1) * gpu_plan.COLS
    lo, hi = plan.tgt_off - margin, plan.tgt_off + (plan.n // gpu_plan.COLS + WARP) * gpu_plan.COLS
    assert lo.min() >= 0 and hi.max() <= plan.target.size and (hi[:-1] <= plan.tgt_off[1:]).all()
    outside = np.ones(plan.target.size, dtype=bool)
    for o, n in zip(plan.tgt_off, plan.n):
        outside[o + 1: o + 1 + n] = False
    assert (plan.target[outside] == 0).all()
    assert (t[:, F["out_row"]] % 4 == 0).all() and (t[:, F["tgt"]] % 4 == 0).all()
    # three cases of one base share one copy of it: of its exon rows, the only ones read
    assert plan.base.size == len({r for c in cases for e in c.exons for r in range(e.first, e.last + 1)}) < cases[0].m
    # strips run with the least power of two >= the floor rows per lane that fits them
    rows, lane_rows = strips[:, F["rows"]], strips[:, F["lane_rows"]]
    fit = np.maximum(MIN_LANE_ROWS, 2 ** np.ceil(np.log2(np.maximum(1, (rows + WARP - 1) // WARP)))).astype(int)
    assert (lane_rows == fit).all() and set(lane_rows) == {2, 4, 8}
    t = build_plan(cases, 8, lane_rows_floor=8).tasks
    assert set(t[t[:, F["kind"]] == KIND_STRIP, F["lane_rows"]]) == {8}
    # a floor per case: the second case's strips all at 8 rows per lane, the others' as before
    per_case = build_plan(cases, 8, lane_rows_floor=[MIN_LANE_ROWS, 8, MIN_LANE_ROWS])
    second = per_case.strip_task[per_case.strip_start[per_case.exon_start[1]]:
                                 per_case.strip_start[per_case.exon_start[2]]]
    assert set(per_case.tasks[second, F["lane_rows"]]) == {8}
    others = np.setdiff1d(np.flatnonzero(per_case.tasks[:, F["kind"]] == KIND_STRIP), second)
    assert set(per_case.tasks[others, F["lane_rows"]]) == {2, 4, 8}


def test_encode_inputs_model_is_the_plans_codes():
    """What encode_inputs makes from a plan's letters (its model, as the fake device runs it) is
    the plan's own reading of them: each target letter's code at tgt_off + j, code 0 around, the
    base codes of the exon rows; letters in either case and wildcards as the alphabet codes them."""
    rng = np.random.default_rng(22)
    print("seed 22")
    cases = [random_case(rng, f"r{i}") for i in range(12)]
    cases.append(TestCase("mixed", "acgtNACGTnryACGT" * 4, "AcGuNtgca", (Exon(3, 40), Exon(9, 12))))
    plan = build_plan(cases, 8)
    encode = _fake_function(None, gpu_plan.ENCODE_KERNEL, (gpu_plan.ENCODE_KERNEL,), gpu_plan.kernel_defines())
    base = np.empty(plan.base_letters.size, np.uint8)
    tsel = np.empty(plan.target_size, np.int32)
    cases_table = plan.letter_cases()
    encode((1,), (gpu_plan.ENCODE_THREADS,), (plan.base_letters, np.int32(base.size), base, plan.target_letters,
                                               cases_table, np.int32(len(cases_table)), gpu_plan.LETTER_CODES, tsel))
    assert np.array_equal(base, plan.base) and np.array_equal(tsel, plan.tsel)
    assert np.array_equal(plan.tsel & SEL_CODE_MASK, plan.target)
    for c, off in zip(cases, plan.tgt_off.tolist()):
        assert np.array_equal(plan.target[off + 1: off + 1 + c.n], c.target_codes)
    k = plan.exon_start[:-1]  # each case's first exon (in (first, last) order): its rows' codes
    for c, e in zip(cases, k.tolist()):
        row = int(plan.tasks[plan.strip_task[plan.strip_start[e]], gpu_plan.F_BASE])
        first = int(plan.flat.first[e])
        head = int(plan.tasks[plan.strip_task[plan.strip_start[e]], gpu_plan.F_ROWS])
        assert np.array_equal(plan.base[row: row + head], c.base_codes[first - 1: first - 1 + head])
    # a letter without a code is the case's own one-line error, before anything is uploaded
    from splicedalign.core.alphabet import LetterError

    for bad, kind in ((TestCase("t5", "ACGTACGT", "AC5T", (Exon(1, 4),)), "target"),
                      (TestCase("b#", "ACGTAC#T", "ACGT", (Exon(1, 8),)), "base")):
        with pytest.raises(LetterError, match=f"^{bad.name}: non-nucleotide letter .* of record '{kind}'"):
            build_plan(cases[:2] + [bad], 8)


def test_letters_from_the_strings_memory_or_their_slices():
    """flat.checked_letters reads plain ASCII strings in place (CPython) and slices any other:
    the same letters either way, and a bad letter is found either way."""
    from splicedalign.core import strmem
    from splicedalign.workloads.spliced.gpu import flat as gpu_flat

    class Text(str):
        pass

    rng = np.random.default_rng(23)
    print("seed 23")
    strings = ["".join(rng.choice(list("ACGTNacgt"), int(rng.integers(1, 300)))) for _ in range(40)]
    which = rng.integers(0, len(strings), 200)
    lo = np.array([int(rng.integers(1, len(strings[w]) + 1)) for w in which])
    hi = np.array([int(rng.integers(a, len(strings[w]) + 1)) for a, w in zip(lo, which)])
    want = np.frombuffer("".join(strings[w][a - 1:b] for w, a, b in zip(which, lo, hi)).encode(), np.uint8)
    assert strmem.STR_OFFSET is None or strmem.str_addresses(strings) is not None
    for variant in (strings, strings[:-1] + [Text(strings[-1])], strings[:-1] + [strings[-1] + "é"]):
        assert strmem.str_addresses(variant) is None or variant is strings
        got = gpu_flat.checked_letters(variant, which, lo, hi, gpu_flat.BASE_LUT, "base", [])
        assert np.array_equal(got, want)
    with pytest.raises(AssertionError, match="a bad letter no case holds"):  # found; no case to name it
        gpu_flat.checked_letters(strings + ["AC#"], np.array([len(strings)]), np.array([1]), np.array([3]),
                                 gpu_flat.BASE_LUT, "base", [])
    # a bad letter anywhere in an interval (the compiled copy takes 8 letters at a time, then the rest)
    for length, at in ((1, 0), (7, 6), (8, 0), (8, 7), (9, 8), (23, 5), (23, 16), (23, 22)):
        text = "".join(rng.choice(list("ACGTN"), length))
        text = text[:at] + "#" + text[at + 1:]
        with pytest.raises(AssertionError, match="a bad letter no case holds"):
            gpu_flat.checked_letters(strings + [text], np.array([0, len(strings)]), np.array([1, 1]),
                                     np.array([len(strings[0]), length]), gpu_flat.BASE_LUT, "base", [])


def test_fed_step_codes_are_what_encode_inputs_writes():
    """feed._encode_step (a fed step's codes and selectors, on the host) writes every element of
    its regions as encode_inputs would (a plain reading: base codes then 0, every selector code 0
    but each target letter's at tgt_off + 1 + j), whatever the regions held before: cases with and
    without targets, gaps of any size between them, no case at all."""
    from splicedalign.workloads.spliced.gpu.feed import _encode_step
    from splicedalign.workloads.spliced.gpu.plan import LETTER_CODES

    seed = int(np.random.SeedSequence().entropy % 2**32)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"ACGTNacgtn", np.uint8)
    for C in (0, 1, 2, 7, 40):
        n = rng.integers(0, 30, C)
        n[rng.random(C) < 0.2] = 0
        tgt_off = np.cumsum(n + 1 + rng.integers(0, 9, C)) - (n + 1) + int(rng.integers(0, 5))
        size = int(tgt_off[-1] + 1 + n[-1]) if C else 0
        size += int(rng.integers(0, 12))
        targets = rng.choice(letters, int(n.sum()))
        bases = rng.choice(letters, int(rng.integers(0, 200)))
        base = rng.integers(0, 256, bases.size + int(rng.integers(0, 128)), dtype=np.uint8)
        tsel = rng.integers(-2**31, 2**31, size, dtype=np.int64).astype(np.int32)
        _encode_step(bases, targets, tgt_off.astype(np.int64), n.astype(np.int64), LETTER_CODES, base, tsel)
        want_base = np.zeros(base.size, np.uint8)
        want_base[:bases.size] = LETTER_CODES[bases]
        want_tsel = np.full(size, SEL_SIGN, np.int32)
        for o, f, k in zip(tgt_off + 1, np.cumsum(n) - n, n):
            codes = LETTER_CODES[256 + targets[f:f + k].astype(np.int64)].astype(np.int32)
            want_tsel[o:o + k] = codes * SEL_SPREAD | SEL_SIGN
        assert np.array_equal(base, want_base) and np.array_equal(tsel, want_tsel), C


def test_fed_plan_in_steps_matches_sequential():
    """A fed launch (feed.py): its windows, step by step, are a launch order whose every task reads
    rows of tasks before it and letters of steps already handed over; the device codes of each
    step are the plan's; the whole plan's rows are sequential's; the long chains spread over
    every window; storage within the bounds allocated before planning."""
    from splicedalign.workloads.spliced.gpu.feed import Feeder, step_bounds

    rng = np.random.default_rng(31)
    print("seed 31")
    long = gene_like(rng, Shape(m=3_000, K=40, n=150, exon_mean=60), name="long", targets=2)
    cases = long + [random_case(rng, f"r{i}") for i in range(30)] + tiny_set(bases=2)
    assert launch.long_chains(FlatCases.of(cases), launch.Tuning(throughput_cases=4)) == [0, 1]
    flat = FlatCases.of(cases)
    assert step_bounds(flat.cells, 2, (0.1, 0.2))[0] == 0
    for rows_per_lane, shares, ahead in ((2, (0.1, 0.3), 0.0), (8, (0.04, 0.1, 0.25), 0.1), (1, (0.5,), 0.2)):
        floors = np.full(len(cases), min(2, rows_per_lane))
        late = np.arange(len(cases)) % 3 > 0
        feeder = Feeder(flat, rows_per_lane, floors, late, late, 2, shares, ahead=ahead)
        sizes = feeder.sizes()
        assert len(feeder) == len(shares) + 1
        base_end = tsel_end = 0
        windows = []
        staged = (np.full((sizes.tasks, len(TASK_FIELDS)), -7, np.int32), np.zeros(sizes.base, np.uint8),
                  np.zeros(sizes.tsel, np.int32))
        for w in feeder.steps(*staged):
            assert w.first == sum(x.count for x in windows)
            assert w.base_at == base_end and w.tsel_at == tsel_end
            assert w.base_at % 128 == 0 and (4 * w.tsel_at) % 128 == 0
            base_end, tsel_end = w.base_at + w.base_size, w.tsel_at + w.tsel_size
            records = staged[0][w.first:w.first + w.count]
            assert (records != -7).all() and (staged[0][w.first + w.count:] == -7).all()
            strips = records[records[:, F["kind"]] == KIND_STRIP]
            assert (strips[:, F["base"]] + strips[:, F["rows"]] <= base_end).all()
            assert (strips[:, F["tgt"]] + strips[:, F["n"]] + gpu_plan.TARGET_MARGIN <= tsel_end).all()
            assert (strips[:, F["tgt"]] >= gpu_plan.TARGET_MARGIN).all()
            windows.append(w)
        plan = feeder.plan()
        # each exon's input index from the steps' own exon orders, as the whole batch's order gives it
        assert np.array_equal(feeder.input_index(), gpu_plan.input_index(flat))
        assert plan.tasks.shape[0] <= sizes.tasks and base_end <= sizes.base and tsel_end <= sizes.tsel
        assert plan.rows_size <= sizes.rows and plan.target_size <= tsel_end
        base, tsel = staged[1][:base_end], staged[2][:tsel_end]
        # the plan holds the windows' records in a whole launch's order (for replays)
        fed = staged[0][:plan.tasks.shape[0]]
        record = f"V{4 * len(TASK_FIELDS)}"  # a task record as one value
        assert np.array_equal(np.sort(plan.tasks.view(record).ravel()), np.sort(fed.view(record).ravel()))
        assert not np.array_equal(plan.tasks, fed)
        assert (plan.tasks[plan.strip_task, F["kind"]] == KIND_STRIP).all()  # strip_task in that order
        assert np.array_equal(plan.tasks[plan.strip_task[plan.strip_start[1:] - 1], F["out_row"]], plan.last_row)
        assert np.array_equal(base[:plan.base_letters.size], plan.base)
        assert np.array_equal(tsel[:plan.target_size], plan.tsel)
        assert (tsel[plan.target_size:] == gpu_plan.SEL_SIGN).all()
        # the long chains' tasks lie in every window
        for c in range(2):
            mine = plan.strip_task[plan.strip_start[plan.exon_start[c]]:plan.strip_start[plan.exon_start[c + 1]]]
            ends = np.cumsum([w.count for w in windows])
            assert set(np.searchsorted(ends, mine, side="right")) == set(range(len(windows)))
        for scoring in (Scoring(), Scoring(2, -3, 1, "free")):
            window_rows = model_run(SimpleNamespace(tasks=fed, base=plan.base, target=plan.target,
                                                    rows_size=plan.rows_size), scoring, rows_per_lane)
            rows = model_run(plan, scoring, rows_per_lane)
            np.testing.assert_array_equal(rows, window_rows)  # the fed order: the same rows
            for c, case in enumerate(cases):
                want = sequential_rows(case, scoring)
                got = np.stack([rows[o: o + case.n + 1]
                                for o in plan.last_row[plan.exon_start[c]:plan.exon_start[c + 1]]])
                np.testing.assert_array_equal(got, want, err_msg=case.name)


def strip_moves(moves: np.ndarray, walked: np.ndarray, plan) -> list[np.ndarray]:
    """Each strip's moves (plan.strip_task's order: exon by exon, top to bottom), as the walks
    read them: its region of ``moves`` at the lane rows and offset ``walked`` gives it."""
    out = []
    for t in walked[plan.strip_task].astype(np.int64):
        at = t[F["moves"]] * gpu_plan.MOVE_UNIT
        out.append(moves[at:at + gpu_plan.strip_move_units(t[F["n"]], t[F["rows"]], t[F["lane_rows"]])
                         * gpu_plan.MOVE_UNIT])
    return out


def fed_recording(flat, rows_per_lane, floors, late, long, shares, least=MIN_LANE_ROWS):
    """A fed recording launch on the host: its windows' order (staging), its Feeder, Plan, walks' tasks."""
    from splicedalign.workloads.spliced.gpu.feed import Feeder

    feeder = Feeder(flat, rows_per_lane, floors, late, late, long, shares, least)
    sizes = feeder.sizes()
    staged = (np.full((sizes.tasks, len(TASK_FIELDS)), -7, np.int32), np.zeros(sizes.base, np.uint8),
              np.zeros(sizes.tsel, np.int32))
    windows = []
    for w in feeder.steps(*staged):
        if not windows:  # the follower's tasks are known once window 0 is
            assert feeder.follow is not None and feeder.follow.shape[0] > 0
        windows.append(w)
    plan = feeder.plan()
    return staged[0][:plan.tasks.shape[0]], feeder, plan, feeder.walked(plan), windows


def test_fed_recording_launch_matches_planned_whole():
    """A fed recording launch (feed.py, "Recording"; Tuning.feed_record): the windows mark the
    long chains' strips NONE (a follower records them), the follower's tasks are the planned
    launch's (plan.followed_tasks: the same strips at the same rows per lane), interleaved over
    its chains, its moves after step 0's and before step 1's; every strip's moves, recorded by
    the model kernel in the windows' order and its follower, are those of the launch planned
    whole, strip by strip, within the bound allocated before planning; global and free ends."""
    rng = np.random.default_rng(37)
    print("seed 37")
    long = gene_like(rng, Shape(m=3_000, K=40, n=150, exon_mean=60), name="long", targets=2)
    cases = long + [random_case(rng, f"r{i}") for i in range(24)] + tiny_set(bases=2)
    flat = FlatCases.of(cases)
    for rows_per_lane, shares in ((2, (0.1, 0.3)), (8, (0.04, 0.1, 0.25))):
        floors = np.where(np.arange(len(cases)) < 2, rows_per_lane, min(MIN_LANE_ROWS, rows_per_lane))
        late = np.arange(len(cases)) % 3 > 0
        late[:2] = False
        fed, feeder, plan, walked, windows = fed_recording(flat, rows_per_lane, floors, late, 2, shares)
        whole = build_plan(flat, rows_per_lane, floors, late, late)
        followed = gpu_plan.followed_tasks(whole, [0, 1], MIN_LANE_ROWS)
        # the same strips (exon by exon) at the same rows per lane, in both walks' tasks
        same = [F[f] for f in ("kind", "n", "rows", "lane_rows")]
        np.testing.assert_array_equal(walked[plan.strip_task][:, same], followed.walked[whole.strip_task][:, same])
        # the windows leave exactly the long chains' strips unrecorded; the follower records them
        long_strips = plan.strip_task[:plan.strip_start[plan.exon_start[2]]]
        unrecorded = np.flatnonzero(fed[:, F["moves"]] == NONE)
        assert unrecorded.size == long_strips.size == feeder.follow.shape[0]
        assert (plan.tasks[:, F["moves"]] != NONE).all()  # the plan for replays records everywhere
        follow = feeder.follow
        assert sorted(follow[:, F["out_row"]].tolist()) == sorted(fed[unrecorded, F["out_row"]].tolist())
        assert len(set(follow[:8, F["tgt"]].tolist())) == 2  # both chains from the start, not one after the other
        at = follow[:, F["moves"]].astype(np.int64)
        assert (np.diff(at) > 0).all() and at[0] == feeder._steps[0].moves_units
        assert feeder._steps[1].tasks[feeder._steps[1].tasks[:, F["kind"]] == KIND_STRIP, F["moves"]].min() >= \
            at[-1] + 1
        for scoring in (Scoring(), Scoring(2, -3, 1, "free")):
            moves_w = np.zeros(followed.moves_size, np.uint32)
            rows_w = model_run(SimpleNamespace(tasks=followed.tasks, base=whole.base, target=whole.target,
                                               rows_size=whole.rows_size), scoring, rows_per_lane, moves_w)
            model_run(SimpleNamespace(tasks=followed.follow, base=whole.base, target=whole.target,
                                      rows_size=whole.rows_size), scoring, rows_per_lane, moves_w, written=rows_w)
            moves_f = np.zeros(feeder.sizes().moves, np.uint32)
            rows_f = model_run(SimpleNamespace(tasks=fed, base=plan.base, target=plan.target,
                                               rows_size=plan.rows_size), scoring, rows_per_lane, moves_f)
            model_run(SimpleNamespace(tasks=follow, base=plan.base, target=plan.target, rows_size=plan.rows_size),
                      scoring, rows_per_lane, moves_f, written=rows_f)
            got, want = strip_moves(moves_f, walked, plan), strip_moves(moves_w, followed.walked, whole)
            assert len(got) == len(want) and all(g.size for g in got)
            for s, (g, w) in enumerate(zip(got, want)):
                np.testing.assert_array_equal(g, w, err_msg=f"strip {s}")
            for c, case in enumerate(cases):  # and the same last rows
                for name, p, r in (("fed", plan, rows_f), ("whole", whole, rows_w)):
                    rows = np.stack([r[o: o + case.n + 1] for o in p.last_row[p.exon_start[c]:p.exon_start[c + 1]]])
                    np.testing.assert_array_equal(rows, sequential_rows(case, scoring), err_msg=f"{name} {case.name}")
        # every strip's region inside the bound, none overlapping another
        regions = sorted((int(t[F["moves"]]), gpu_plan.strip_move_units(int(t[F["n"]]), int(t[F["rows"]]),
                                                                          int(t[F["lane_rows"]])))
                         for t in walked[plan.strip_task])
        ends = [a + u for a, u in regions]
        assert all(b >= e for (b, _), e in zip(regions[1:], ends)) and ends[-1] * gpu_plan.MOVE_UNIT <= \
            feeder.sizes().moves


def test_long_chains_windows_by_relative_position():
    """feed._long_windows: each long chain slot's case and window as the NumPy form says (slot k
    of a chain of t at x = lead * (2k + 1) / 2t, np.searchsorted side "right" of x - ahead on the
    edges), edges tied with a slot's position included."""
    from splicedalign.workloads.spliced.gpu.feed import _long_windows

    rng = fresh_rng()
    for trial in range(300):
        chains = int(rng.integers(1, 8))
        ct = np.concatenate([[0], np.cumsum(rng.integers(1, 700, chains))]).astype(np.int64)
        edges = np.sort(rng.random(int(rng.integers(0, 5))))
        if edges.size and trial % 3 == 0:
            edges[0] = 0.5  # the middle slot of a chain of odd length at lead 1: a tie
            edges.sort()
        lead = float(rng.choice([1.0, 0.85, rng.random()]))
        ahead = float(rng.choice([0.0, 0.1, rng.random()])) if trial % 3 else 0.0
        tc = np.diff(ct)
        case = np.repeat(np.arange(chains), tc)
        pos = np.arange(ct[-1]) - np.repeat(ct[:-1], tc)
        window = np.searchsorted(edges, lead * (2 * pos + 1) / (2 * tc[case]) - ahead, side="right")
        got = _long_windows(ct, edges, lead, ahead)
        assert got[0].tolist() == case.tolist() and got[1].tolist() == window.tolist(), trial


def test_window_slots_as_numpy_makes_them():
    """feed._window_slots: a window's case bounds and slots (its long chains' slots of the window
    first, by chain, then its step's own cases) as the NumPy form makes them (bincount of the
    window's chain slots, the step's slot counts, cumsum; the slots in order), with and without
    long chains, window 0 skipping the step's long chains."""
    from splicedalign.workloads.spliced.gpu.feed import _window_slots

    rng = fresh_rng()
    for trial in range(300):
        long = int(rng.integers(0, 6))
        chain_slots = int(rng.integers(long, 400)) if long else 0
        long_case = np.sort(rng.integers(0, max(long, 1), chain_slots)).astype(np.int64)
        long_window = rng.integers(0, 4, chain_slots).astype(np.int64)
        j = int(rng.integers(0, 4))
        start = long if j == 0 else 0
        ct = np.concatenate([[0], np.cumsum(rng.integers(1, 30, start + int(rng.integers(0, 40))))]).astype(np.int64)
        mine = long_window == j
        counts = np.concatenate([np.bincount(long_case[mine], minlength=long), np.diff(ct[start:])])
        seg = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        slots = np.concatenate([np.flatnonzero(mine), np.arange(ct[start], ct[-1])])
        got = _window_slots(long_window, long_case, long, j, ct, start)
        assert got[0].tolist() == seg.tolist() and got[1].tolist() == slots.tolist(), trial
        assert got[2] == int(mine.sum()), trial


def test_fed_recording_plan_of_a_paper_set():
    """A paper-shaped set's fed recording launch, planned as the solver plans a traced call
    (feed.host_feed, Tuning.feed_record): its long chains first, the follower's tasks those of
    the launch planned whole (plan.followed_tasks of its Plan: the same strips, rows per lane),
    its moves within the bound, the walks' tasks the Plan's but for the followed strips."""

    from splicedalign.workloads.spliced.gpu import feed
    from splicedalign.workloads.spliced.synthetic import paper_set

    print("seed 4")
    cases = paper_set(4, bases=60)
    tuning = replace(launch.TUNING, feed_record=True, recompute=False)
    fed = feed.host_feed(cases, tuning, record=True)
    assert fed is not None and fed.long > 0 and fed.follow_least == MIN_LANE_ROWS
    plan = feed.fed_on_host(fed)
    walked = fed.walked(plan)
    followed = gpu_plan.followed_tasks(plan, list(range(fed.long)), fed.follow_least)
    ids = np.flatnonzero((walked != plan.tasks).any(axis=1))
    np.testing.assert_array_equal(walked[:, [F["rows"], F["lane_rows"]]],
                                  followed.walked[:, [F["rows"], F["lane_rows"]]])
    assert set(ids.tolist()) <= set(np.flatnonzero(followed.tasks[:, F["moves"]] == NONE).tolist())
    assert fed.follow.shape == followed.follow.shape
    assert (walked[ids, F["moves"]].astype(np.int64) * gpu_plan.MOVE_UNIT < plan.moves_size).all()
    assert plan.moves_size <= fed.sizes().moves


def reference_tasks(flat: FlatCases, rows_per_lane: int, floors, late, entry, interleave: bool, at) -> dict:
    """plan_tasks' outputs made the plain way, case by case and sort by sort (the module doc of
    plan.py): what its compiled passes must equal exactly."""
    P, C = WARP * rows_per_lane, len(flat)
    rows0, base0, tgt0, moves0 = at
    start, first, last, n = flat.exon_start, flat.first, flat.last, flat.n
    # each base's exon rows: the union of its cases' exons, bases in order
    union = []
    for b in range(len(flat.bases)):
        rows = sorted({r for c in np.flatnonzero(flat.base_index == b) for k in range(start[c], start[c + 1])
                       for r in range(first[k], last[k] + 1)})
        union.append({r: i for i, r in enumerate(rows)})
    offset = np.cumsum([0] + [len(u) for u in union])
    exon_base = np.array([base0 + offset[b] + union[b][first[k]] for b, c in zip(flat.base_index, range(C))
                          for k in range(start[c], start[c + 1])], dtype=np.int64).reshape(-1)
    base_letters = "".join(flat.bases[b][r - 1] for b in range(len(flat.bases)) for r in union[b])
    by_last, p, S, slots = np.zeros(first.size, np.int64), np.zeros(first.size, np.int64), (last - first + P) // P, []
    fold_row_of, entry_folds = {}, []  # (case, q) -> its row; entry folds in case order
    for c in range(C):
        a, b = start[c], start[c + 1]
        by_last[a:b] = a + np.argsort(last[a:b], kind="stable")
        p[a:b] = [int((last[a:b] < first[k]).sum()) for k in range(a, b)]
        folds = max(int(p[b - 1]) - 1, 0)
        writer = {}
        for k in range(a, b):
            if entry[c] and 0 < p[k] <= folds and p[k] - 1 not in writer:
                writer[p[k] - 1] = k
        entry_folds += [(c, q) for q in range(folds) if q in writer]
        # the folds with a row: -1 (the chain-start row), those entry rows write, and tasks: with
        # entry folds a fold whose nearest fold below with a row is two below (its readers could
        # not skip it), else every one
        kept = [-1]
        for q in range(folds):
            if q in writer or not entry[c] or q - kept[-1] == 2:
                kept.append(q)
        below = {q: max(x for x in kept if x < q) for q in range(folds + 1)}
        q = 0
        for k in range(a, b):
            while q < min(p[k] - late[c], folds):
                if q not in writer and q in kept:
                    slots.append((c, "fold", q, (writer, below)))
                q += 1
            slots += [(c, "strip", (k, s), (writer, below)) for s in range(S[k])]
    case_of = np.array([x[0] for x in slots], dtype=np.int64)
    case_tasks = np.searchsorted(case_of, np.arange(C + 1))
    T = len(slots)
    pos = np.arange(T) - case_tasks[case_of]
    tc = np.diff(case_tasks)[case_of]
    launch = np.empty(T, np.int64)
    launch[np.argsort((2 * pos + 1) * T // (2 * tc) if interleave else np.arange(T), kind="stable")] = np.arange(T)
    stride = gpu_plan.round_up(n + 1)
    row_at = np.empty(T, np.int64)
    in_launch = np.argsort(launch)  # the slots in launch order
    size = stride[case_of[in_launch]]
    row_at[in_launch] = rows0 + np.cumsum(size) - size
    rows_size = int(stride[case_of].sum())
    for c, q in entry_folds:
        fold_row_of[c, q] = rows0 + rows_size
        rows_size += int(stride[c])
    for i, (c, kind, what, _) in enumerate(slots):
        if kind == "fold":
            fold_row_of[c, what] = row_at[i]
    tasks = np.zeros((T, len(TASK_FIELDS)), np.int32)
    last_row, strip_task, moves = np.zeros(first.size, np.int64), [], moves0
    stride_t = gpu_plan.target_stride(n)
    tgt_off = tgt0 + gpu_plan.TARGET_MARGIN + np.cumsum(stride_t) - stride_t
    row_of = {}
    def inputs(c, q, below):
        """Fold q's inputs: the nearest fold below with a row, the last rows by last after it."""
        a, b = start[c], below[q]
        return {"in_row": fold_row_of[c, b] if b >= 0 else NONE, "in2_row": last_row[by_last[a + b + 1]],
                "in3_row": last_row[by_last[a + q]] if b == q - 2 else NONE}

    for i, (c, kind, what, (writer, below)) in enumerate(slots):
        t, a = launch[i], start[c]
        rec = dict.fromkeys(TASK_FIELDS, 0) | {"n": n[c], "out_row": row_at[i], "entry_row": NONE}
        if kind == "fold":
            rec |= {"kind": KIND_FOLD} | inputs(c, what, below)
        else:
            k, s = what
            head = last[k] - first[k] + 1 - (S[k] - 1) * P
            rows = head if s == 0 else P
            lane_rows = gpu_plan.strip_lane_rows(rows, floors[c], rows_per_lane)
            rec |= {"kind": KIND_STRIP, "tgt": tgt_off[c], "base": exon_base[k] + (0 if s == 0 else head + (s - 1) * P),
                    "rows": rows, "lane_rows": lane_rows, "moves": moves, "in_row": NONE, "in2_row": NONE,
                    "in3_row": NONE}
            moves += gpu_plan.strip_move_units(n[c], rows, lane_rows)
            if s:
                rec["in_row"] = row_of[k, s - 1]
            elif p[k]:
                rec |= inputs(c, p[k] - 1, below)
                rec["entry_row"] = fold_row_of[c, p[k] - 1] if writer.get(p[k] - 1) == k else NONE
            row_of[k, s] = row_at[i]
            last_row[k] = row_at[i]
            strip_task.append((k, s, t))
        tasks[t] = [rec[f] for f in TASK_FIELDS]
    strip_task = [t for _, _, t in sorted(strip_task)]
    return {"tasks": tasks, "last_row": last_row, "strip_task": np.array(strip_task), "strip_start": np.concatenate(
        [[0], np.cumsum(S)]), "rows_size": rows0 + rows_size, "moves_units": moves, "by_last": by_last, "p": p,
            "case_tasks": case_tasks, "tgt_off": tgt_off,
            "base_letters": np.frombuffer(base_letters.encode(), np.uint8),
            "target_letters": np.frombuffer("".join(c.target for c in flat.cases).encode(), np.uint8)}


def test_compiled_passes_equal_the_plain_plan():
    """plan_tasks (compiled passes: exon lists shared by a base's cases planned once, rows summed
    while ordering, each case's slots written as they come) equals reference_tasks exactly, on
    paper-shaped and random batches, launches of a call's split included (their cases share the
    call's exon lists), any rows per lane, lane-row floors, late and entry folds, both orders and
    storage offsets."""
    rng = fresh_rng()
    whole = FlatCases.of(gpu_plan_paper_cases(int(rng.integers(1 << 30))))
    batches = [whole, whole.select(np.arange(3, len(whole) - 2)), whole.select(rng.permutation(len(whole))[:20])]
    batches += [FlatCases.of([random_case(rng, f"r{i}") for i in range(int(rng.integers(1, 12)))]) for _ in range(5)]
    batches.append(FlatCases.of(gene_like(rng, Shape(m=6_000, K=30, n=200, exon_mean=120), "g", targets=3)
                                + gene_like(rng, Shape(m=3_000, K=9, n=90, exon_mean=200), "h", targets=2)))
    for flat in batches:
        C = len(flat)
        for rows_per_lane in (1, 2, 4, 8, 16):
            floors = np.maximum(rng.choice([2, 4, 8], C), min(MIN_LANE_ROWS, rows_per_lane))
            floors = np.maximum(floors, 2) if rows_per_lane >= MIN_LANE_ROWS else np.full(C, MIN_LANE_ROWS)
            late, entry = rng.integers(0, 2, C), rng.integers(0, 2, C)
            interleave = bool(rng.integers(2))
            at = tuple(int(x) for x in rng.integers(0, 1000, 4))
            got = gpu_plan.plan_tasks(flat, rows_per_lane, floors, late, entry, interleave, at)
            want = reference_tasks(flat, rows_per_lane, floors, late, entry, interleave, at)
            for name, value in want.items():
                assert np.array_equal(np.asarray(getattr(got, name)), value), (name, C, rows_per_lane, interleave)


def gpu_plan_paper_cases(seed: int) -> list[TestCase]:
    """A few bases of the paper-shaped set (their targets share each base's exons), short."""
    from splicedalign.workloads.spliced.synthetic import paper_set
    return [c for c in paper_set(seed, bases=3) if c.n < 3_000][:40]


def test_launch_order_is_a_stable_sort_by_relative_position():
    """plan._launch_order, in parallel over ranges of buckets (any number of them), is the stable
    sort of the slots by bucket ((2 pos + 1) T) // (2 tc): cases interleaved, each in order."""
    rng = fresh_rng()
    for _ in range(200):
        per_case = rng.integers(1, int(rng.choice([3, 30, 500])), int(rng.integers(1, 60)))
        case_tasks = np.concatenate([[0], np.cumsum(per_case)])
        slot_case = np.repeat(np.arange(per_case.size), per_case)
        pos = np.arange(slot_case.size) - case_tasks[slot_case]
        bucket = (2 * pos + 1) * slot_case.size // (2 * per_case[slot_case])
        want = np.empty(slot_case.size, np.int64)
        want[np.argsort(bucket, kind="stable")] = np.arange(slot_case.size)
        T = slot_case.size
        assert np.array_equal(gpu_plan._launch_order(case_tasks, int(rng.integers(1, 40)), 0, T), want)
        # the first cases led: over the first `span` buckets, the order still a stable sort by bucket
        lead, span = int(rng.integers(0, per_case.size + 1)), int(rng.integers(1, T + 1))
        bucket = np.where(slot_case < lead, (2 * pos + 1) * span // (2 * per_case[slot_case]), bucket)
        want[np.argsort(bucket, kind="stable")] = np.arange(T)
        assert np.array_equal(gpu_plan._launch_order(case_tasks, int(rng.integers(1, 40)), lead, span), want)


def test_late_folds():
    """Tuning.late_folds: in a throughput launch every case (its long chains too) places each fold
    right before the first exon whose first strip reads it (later than before the first exon
    after the fold's exon), still after both its inputs; a chain launch places none late."""
    rng = np.random.default_rng(5)
    cases = gene_like(rng, Shape(m=20_000, K=40, n=300, exon_mean=150), "g", targets=3)
    many = cases * (launch.TUNING.throughput_cases // len(cases) + 1)
    late = launch.late_folds(many)
    assert late.size > 0 and late.all()
    mixed = many + gene_like(rng, Shape(m=20_000, K=120, n=300, exon_mean=60), "long", targets=1)
    assert launch.long_chains(mixed) == [len(mixed) - 1] and launch.late_folds(mixed).all()  # its long chain's too
    assert not launch.late_folds(cases).any()  # a chain launch
    for flags in ([False] * 3, [True] * 3, [True, False, True]):
        t = build_plan(cases, 8, late_folds=flags).tasks
        writer = row_writers(t)
        for row in ("in_row", "in2_row"):  # every input row is written earlier in launch order
            for i in np.flatnonzero(t[:, F[row]] != NONE):
                assert writer[int(t[i, F[row]])] < i
    # one case: the same tasks, each fold as far or farther behind its exon's last strip
    gaps, tasks = [], []
    for flag in (False, True):  # (entry folds leave only folds no exon's entry row equals, which no
        # placement can move: the first exon reading fold q is the first with p_k > q)
        t = build_plan(cases[:1], 8, late_folds=[flag], entry_folds=False).tasks
        writer = row_writers(t)
        folds = np.flatnonzero(t[:, F["kind"]] == KIND_FOLD)
        gaps.append(np.array([i - writer[int(t[i, F["in2_row"]])] for i in folds]))
        tasks.append(sorted(map(tuple, t[:, [F["kind"], F["rows"], F["base"]]].tolist())))
    assert tasks[0] == tasks[1]
    assert (gaps[1] >= gaps[0]).all() and gaps[1].sum() > gaps[0].sum()
    assert not launch.late_folds(many, launch.Tuning(late_folds=False)).any()


def test_follower_leaves_its_kernel_room():
    """A long chains' follower waits for rows its recording kernel writes: whichever the block
    scheduler starts first, the kernel must keep a block's room on every SM."""
    assert launch.TUNING.follow_blocks_per_sm < gpu_plan.MIN_BLOCKS_PER_SM


def test_blocks_per_sm_by_launch():
    """A throughput launch's int score kernel (selectors loaded a step early) runs at
    Tuning.score_blocks_per_sm, fewer than fit, also where its walks recompute moves; a recording
    or int64 one at all that fit; a chain-bound one at chain_blocks_per_sm."""
    throughput = launch.Tuning(throughput_cases=1)
    flat = FlatCases.of(tiny_set(bases=1))  # 2 cases

    def per_sm(ctype, traceback, tuning=throughput):
        return launch.configure(flat, ctype, True, traceback, True, tuning).blocks_per_sm

    assert 1 <= throughput.score_blocks_per_sm < gpu_plan.MIN_BLOCKS_PER_SM
    assert per_sm("int", False) == throughput.score_blocks_per_sm
    assert per_sm("int", True) == throughput.score_blocks_per_sm
    recording = replace(throughput, recompute=False)
    assert per_sm("int", True, recording) == per_sm("long long", False) == gpu_plan.BLOCKS_PER_SM
    assert per_sm("int", False, launch.TUNING) == launch.TUNING.chain_blocks_per_sm  # 2 cases: chain-bound


def test_lane_rows_floor_by_case():
    """Throughput launches: MIN_LANE_ROWS, but their long chains' strips hold the launch's rows
    per lane (fewer lanes per exon: a shorter hop); chain-bound launches: all of them."""
    tuning = launch.Tuning(throughput_cases=8)
    cases = tiny_set(bases=4)  # 8 cases, K 9-19
    K = np.array([c.K for c in cases])
    long = launch.long_chains(cases, tuning)
    assert long and long == np.flatnonzero(K >= tuning.long_chain_share * K.max()).tolist()
    floors = launch.lane_rows_floor(cases, 8, tuning=tuning)
    assert floors.tolist() == [8 if i in long else MIN_LANE_ROWS for i in range(len(cases))]
    assert launch.lane_rows_floor(cases[:3], 16, tuning=tuning).tolist() == [16] * 3


def test_score_type_and_profile_choice():
    assert score_ctype(2_168_787, 2_359, Scoring(), 128) == "int"
    assert score_ctype(200_000_000, 2_000, Scoring(), 128) == "long long"
    assert byte_profile_ok(Scoring())
    assert not byte_profile_ok(Scoring(100, -1, 20))


def test_batches_respect_budget():
    cases = tiny_set(bases=4)
    sizes = [launch.launch_rows(FlatCases.of([c]), 2) for c in cases]
    groups = launch.batches(cases, 2, budget=max(sizes) + 1)
    assert sorted(i for g in groups for i in g) == list(range(len(cases)))
    for g in groups:
        assert len(g) == 1 or sum(sizes[i] for i in g) <= max(sizes) + 1
    assert launch.batches(cases, 2, budget=10**12) == [list(range(len(cases)))]


def _cut(flat: FlatCases, tuning: launch.Tuning, chunk: int) -> list[list[int]]:
    """The launches launch.Cutter cuts of ``flat``'s cases fed ``chunk`` at a time (as
    GpuSolver._streamed feeds them), by a byte share as large as the row budget's."""
    rows, sizes = launch.score_sizes(flat, 80 << 30, tuning, 8)
    cutter = launch.Cutter(int(sizes.sum()) * 2, len(flat), tuning)
    out: list[list[int]] = [[]]
    for a in range(0, len(flat), chunk):
        b = min(a + chunk, len(flat))
        while a < b:
            k = cutter.take(rows[a:b], sizes[a:b])
            out[-1] += range(a, a + k)
            a += k
            if a < b:
                out.append([])
    return out


def test_small_first_launch():
    """Tuning.first_launch_share (launch.Cutter): a call of several launches starts with one of
    about that share of what the budgets let the first launch hold (at least throughput_cases
    cases); every case once, in order, each launch within the budgets, the same launches as
    batches' where the share is 1, however the cases come; a call of one launch is left alone."""
    flat = FlatCases.of([c for seed in range(3) for c in tiny_set(seed=seed, bases=40)])
    rows = launch._storage(flat, 8)[0]
    budget = int(rows.sum() // 3)
    for share in (1.0, 0.3):
        tuning = launch.Tuning(row_budget=budget, first_launch_share=share, throughput_cases=4)
        for chunk in (7, 50, len(flat)):
            work = _cut(flat, tuning, chunk)
            order = [i for sel in work for i in sel]
            assert order == list(range(len(flat))) and len(work) > 2
            assert all(len(sel) == 1 or rows[sel].sum() <= budget for sel in work)
            if share == 1.0:
                assert work == launch.batches(flat, 8, budget)
                plain = work
            else:
                first, full = rows[work[0]].sum(), rows[plain[0]].sum()
                assert len(work[0]) >= 4 and first < 0.5 * full
                assert 4 * len(work[-1]) >= len(work[-2]) or rows[work[-2] + work[-1]].sum() > budget
    one = launch.Tuning(first_launch_share=0.3)
    assert len(_cut(flat, one, 7)) == 1


def test_launches_grow_from_a_small_first_one():
    """Tuning.launch_growth (launch.Cutter): after the small first launch each holds at most that
    many times the one before (at least throughput_cases cases), until the budgets bound them;
    every case once, in order, each launch within the budgets."""
    flat = FlatCases.of([c for seed in range(3) for c in tiny_set(seed=seed, bases=40)])
    rows = launch._storage(flat, 8)[0]
    budget = int(rows.sum() // 3)
    tuning = launch.Tuning(row_budget=budget, first_launch_share=0.1, launch_growth=1.5, throughput_cases=4)
    work = _cut(flat, tuning, 9)
    order = [i for sel in work for i in sel]
    assert order == list(range(len(flat))) and len(work) > 4
    assert all(len(sel) == 1 or rows[sel].sum() <= budget for sel in work)
    held = [int(rows[sel].sum()) for sel in work]
    for sel, before, now in zip(work[1:-1], held, held[1:]):
        assert len(sel) <= 4 or now <= 1.5 * before or now + rows[sel[-1] + 1] > budget
    assert held[1] > held[0] and held[2] > held[1]  # growing while the budgets allow


def test_queued_launches_keep_within_their_room():
    """launch.queued_at_most: launches queued in order, the oldest collected until the next
    fits beside the rest in the room; with counts, the most of them the launches held at once
    count (the recording ones: their move buffers)."""
    assert launch.queued_at_most([4, 4, 4], 8) == 8
    assert launch.queued_at_most([1, 2, 3, 4, 4], 8) == 8  # 1+2+3, then 3+4, then 4+4
    assert launch.queued_at_most([1, 2, 3, 3], 7) == 6
    assert launch.queued_at_most([1, 2, 3, 4, 4], 100) == 14
    assert launch.queued_at_most([], 8) == 0
    assert launch.queued_at_most([1, 2, 3, 4, 4], 8, [1] * 5) == 3  # 1+2+3
    assert launch.queued_at_most([1, 2, 3, 4, 4], 8, [0, 0, 1, 1, 1]) == 2  # 3+4, 4+4
    assert launch.queued_at_most([4, 4, 4], 8, [1, 0, 1]) == 1


def test_move_storage_near_the_budget_is_the_budgets():
    """launch.move_storage: a call's move storage within 1/16 of the move budget below it is the
    budget's bytes (calls split by the budget take one size: CuPy's pool's blocks reused), below
    a quarter of the budget that quarter (MOVES_FLOOR: calls recomputing moves take one size),
    else its own."""
    tuning = launch.Tuning(move_budget=1 << 20)
    budget = 4 << 20
    assert launch.move_storage(budget - budget // 16, tuning) == budget
    assert launch.move_storage(budget - 1, tuning) == budget
    assert launch.move_storage(budget - budget // 16 - 1, tuning) == budget - budget // 16 - 1
    assert launch.move_storage(budget + 4, tuning) == budget + 4  # (one case above the budget: its own)
    assert launch.move_storage(budget // 4 + 4, tuning) == budget // 4 + 4
    for nbytes in (4, budget // 8, budget // 4):
        assert launch.move_storage(nbytes, tuning) == budget // 4


def test_move_storage_the_calls_own_where_the_least_does_not_fit():
    """plan_launches: a traced call takes the least move storage (launch.move_storage: a quarter
    of the move budget) where it keeps its launches within their share of the free memory, else
    its launches' own moves."""
    rng = fresh_rng()
    flat = FlatCases.of([random_case(rng, f"r{i}") for i in range(40)])
    words = launch.launch_move_words(flat, "int", launch.TUNING)
    tuning = launch.Tuning(move_budget=64 * words)  # the least storage: a quarter of it, 16 times the call's moves
    least = launch.move_storage(4 * words, tuning)
    assert least == 64 * words
    room, work, sizes, moves = launch.plan_launches(flat, Scoring(), True, 1 << 40, lambda c: c == "int", tuning)
    assert len(work) == 1 and moves == least
    bare = sizes[0] - moves
    # each share: the cases' bounds (one launch) but not the least storage
    bound = max(int(launch.launch_sizes(flat, "int", True, False, 1 << 40, tuning).sum()),
                int(launch.chain_sizes(flat, "int", 1 << 40, tuning).sum()))
    assert bare + 4 * words <= bound < bare + least
    free = int(2 * (bound + 64) / launch.MEMORY_USE)
    room, work, sizes, moves = launch.plan_launches(flat, Scoring(), True, free, lambda c: c == "int", tuning)
    assert len(work) == 1 and moves == 4 * words and sizes == [bare + moves]




def test_walks_short_paths_first_followed_last():
    cases = tiny_set(bases=4)
    paths = gpu_plan.longest_paths(cases)
    assert paths.tolist() == [c.n + min(c.m, sum(e.last - e.first + 1 for e in c.exons)) for c in cases]
    followed = [int(np.argmax(paths))]
    rest = [i for i in range(len(cases)) if i not in followed]
    shares = sorted(set((paths[rest] / paths[rest].max()).tolist()))
    assert len(shares) >= 3
    walks = launch.walks(cases, followed, launch.Tuning(walk_shares=(shares[0], shares[1])))
    assert sorted(i for w in walks for i in w) == list(range(len(cases))) and all(walks)
    assert walks[-1] == followed
    # the others by their paths' share of the longest: at most the first share, the second, the rest
    top = paths[rest].max()
    first = [i for i in rest if paths[i] / top <= shares[0]]
    second = [i for i in rest if i not in first and paths[i] / top <= shares[1]]
    assert first and second
    assert walks[:-1] == [first, second, [i for i in rest if i not in first + second]]
    # no followed cases: the same parts of all cases, none empty
    one = launch.Tuning(walk_shares=(1.0,))
    assert launch.walks(cases, tuning=one) == [list(range(len(cases)))]
    assert launch.walks(cases, followed, one) == [rest, followed]


def test_tuning_of_json_fields():
    """The scripts' Tuning fields (launch.tuning_of): JSON lists become tuples, so that the
    launches cached by their Tuning can hash it; a field Tuning lacks is an error naming it."""
    tuning = launch.tuning_of('{"walk_shares": [0.2], "late_folds": false}')
    assert tuning == launch.Tuning(walk_shares=(0.2,), late_folds=False)
    assert hash(tuning) == hash(launch.Tuning(walk_shares=(0.2,), late_folds=False))
    assert launch.tuning_of({"first_launch_share": 0.5}) == launch.Tuning(first_launch_share=0.5)
    assert launch.tuning_of("{}") == launch.TUNING
    with pytest.raises(ValueError, match="not a Tuning field: walk_share "):
        launch.tuning_of('{"walk_share": [0.2]}')
    with pytest.raises(ValueError, match="JSON object"):
        launch.tuning_of("[0.2]")


def test_paper_tiling_parameters():
    # The strip of exon rows fills what shared memory leaves after the entry row.
    strip = paper.strip_rows(n=2_359, itemsize=4, smem_bytes=227 * 1024)
    assert paper.smem_bytes(2_359, strip, 4) <= 227 * 1024 < paper.smem_bytes(2_359, strip + 1, 4)
    assert paper.block_threads(1) == 32 and paper.block_threads(5_000) == 1024
    assert paper.block_threads(100) == 128
    with pytest.raises(ValueError):
        paper.strip_rows(n=10**6, itemsize=4, smem_bytes=227 * 1024)


def test_unavailable_is_one_clear_line():
    from splicedalign.core.errors import SolverUnavailable
    from splicedalign.gpu import device

    try:
        device.cupy()
    except SolverUnavailable as exc:
        assert "\n" not in str(exc) and "GPU" in str(exc)
        with pytest.raises(SolverUnavailable):
            get_solver("gpu").solve(tiny_set(bases=1)[0])
    else:
        pytest.skip("CuPy and a GPU are present: nothing is unavailable")


def test_kernel_variant():
    """launch.configure decides a launch's kernels: their names, and every kernel compiled with them."""
    flat = FlatCases.of(tiny_set(bases=1))  # 2 cases: a chain-bound launch

    def config(ctype, rows, byte_profile, traceback=False, tuning=launch.TUNING):
        return launch.configure(flat, ctype, byte_profile, traceback, True, tuning, rows_per_lane=rows)

    c = config("int", 8, True)
    assert (c.rows_per_lane, c.kernels, c.names) == (8, ("wavefront<int, 8, true, 0, false>",), (
        "wavefront<int, 8, true, 0, false>", "encode_inputs", "gather_rows<int>", "trace_chains<int, 8, true, false>"))
    # free target ends: the FREE kernels and the finals kernel
    c = launch.configure(flat, "int", True, True, True, rows_per_lane=8, free_ends=True)
    assert c.free_ends and c.names == ("wavefront<int, 8, true, 0, true>", "wavefront<int, 8, true, 2, true>",
                                       "last_row_max<int>", "encode_inputs", "gather_rows<int>",
                                       "trace_chains<int, 8, true, true>")
    assert c.finals_kernel == "last_row_max<int>"
    throughput = launch.Tuning(throughput_cases=1)
    c = config("int", 2, False, True, replace(throughput, recompute=False))
    assert (c.rows_per_lane, c.kernels, c.mode) == (2, ("wavefront<int, 2, false, 1, false>",), gpu_plan.MODE_RECORD)
    # walks that recompute moves (Tuning.recompute): the score kernel, the walk at the kernel's shape,
    # both with column checkpoints (Tuning.checkpoint_blocks) or without
    c = config("int", 2, False, True, replace(throughput, checkpoint_blocks=0))
    assert (c.kernels, c.mode, c.record, c.recompute) == (("wavefront<int, 2, false, 0, false>",),
                                                          gpu_plan.MODE_SCORE, True, True)
    assert c.names[-1] == "trace_chains<int, 2, false, false>" and c.checkpoint_blocks == 0
    c = config("int", 2, False, True, throughput)
    ckb = gpu_plan.CHECKPOINT_BLOCKS
    assert (c.kernels, c.names[-1], c.checkpoint_blocks) == ((f"wavefront_checkpoints<int, 2, false, false, {ckb}>",),
                                                             f"trace_chains_checkpoints<int, 2, false, false, {ckb}>",
                                                             ckb)
    assert config("long long", 4, False, True, throughput).checkpoint_blocks == 0  # int scores only
    # a follower launch runs the score kernel and the follower
    assert config("int", 8, True, True).kernels == ("wavefront<int, 8, true, 0, false>",
                                                    "wavefront<int, 8, true, 2, false>")
    # int64 scores hold fewer rows per lane (registers): the plan must use what the kernel holds
    c = config("long long", 8, True)
    assert c.rows_per_lane == launch.TUNING.wide_rows_per_lane and f", {c.rows_per_lane}, " in c.kernels[0]
    assert c.names[-2] == "gather_rows<long long>"


def test_kernel_reads_every_task_field():
    source = Path(gpu_plan.__file__).with_name("wavefront.cu").read_text()
    for name in TASK_FIELDS:
        assert f"__ldcg(r + TASK_{name.upper()})" in source, name
    assert "__launch_bounds__(THREADS, R > DENSE_LANE_ROWS ? CHAIN_MIN_BLOCKS_PER_SM : MIN_BLOCKS_PER_SM)" in source


class _FakeCupy:
    """The few CuPy calls of gpu/solver.py, on NumPy arrays (the 'device' is host memory, work
    runs when queued)."""

    int32 = np.int32
    uint8 = np.uint8
    uint32 = np.uint32
    asarray = staticmethod(np.asarray)
    asnumpy = staticmethod(lambda a, stream=None: np.array(a))
    empty = staticmethod(np.empty)
    zeros = staticmethod(np.zeros)
    full = staticmethod(np.full)

    class cuda:  # noqa: N801 - mirrors cupy.cuda
        class Stream:
            def __init__(self, non_blocking=False, priority=0):
                self.priority = priority

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def record(self):  # an event: the work before it ran when it was queued
                return SimpleNamespace(synchronize=lambda: None, done=True)

            def wait_event(self, event):
                pass

            def synchronize(self):
                pass

        get_elapsed_time = staticmethod(lambda a, b: 0.0)

        class runtime:  # noqa: N801
            deviceSynchronize = staticmethod(lambda: None)
            getDevice = staticmethod(lambda: 0)
            memGetInfo = staticmethod(lambda: (1 << 40, 1 << 40))  # (the host's memory: room for any buffer)


def _fake_function(file, name, all_names, defines):
    """Kernels of wavefront.cu as the NumPy model runs them."""
    assert name in all_names and defines == gpu_plan.kernel_defines()
    if name == gpu_plan.ENCODE_KERNEL:
        def encode(grid, block, args):  # as encode_inputs writes them: every element once
            base_letters, base_size, base, target_letters, cases, ncases, lut, tsel = args
            assert base.size == int(base_size) and cases.shape == (int(ncases), 4)
            base[:] = lut[base_letters]
            tsel[:] = -1  # what encode_inputs leaves unwritten stays a wrong selector
            tsel[:cases[0, 0] if int(ncases) else 0] = SEL_SIGN
            for tgt, first, n, stride in cases.tolist():
                codes = np.zeros(stride, dtype=np.int32)
                codes[1:n + 1] = lut[256 + target_letters[first:first + n].astype(np.int64)]
                tsel[tgt:tgt + stride] = codes * SEL_SPREAD | SEL_SIGN
            assert (tsel != -1).all()
        return encode
    if name.startswith("gather_rows"):
        def gather(grid, block, args):
            rows, src, dst, length, count, out = args
            for s, d, n in zip(src[:count], dst[:count], length[:count]):
                out[d : d + n] = rows[s : s + n]
        return gather
    if name.startswith("last_row_max"):
        def row_max(grid, block, args):  # each row's maximum and the first column reaching it
            rows, src, length, count, best, col = args
            assert grid[0] * block[0] >= WARP * int(count)
            for e, (s, n) in enumerate(zip(src[:count], length[:count])):
                best[e], col[e] = rows[s : s + n].max(), np.argmax(rows[s : s + n])
        return row_max
    rows_per_lane = int(name.split(",")[1])
    if name.startswith("wavefront_checkpoints<"):  # <T, R, BYTES, FREE, CKB>: a score kernel storing them
        mode, ckb = gpu_plan.MODE_SCORE, int(name.split(",")[4].rstrip(">"))
        ends = {"true": "free", "false": "global"}[name.split(",")[3].strip()]
    else:
        mode, ckb = int(name.split(",")[3]), 0
        ends = {"true>": "free", "false>": "global"}[name.split(",")[4].strip()]

    def wavefront(grid, block, args):
        tasks, ntasks, counter, base, tsel, rows, moves, match, mismatch, gap, feed = args[:11]
        checkpoints = (args[11], args[12], ckb) if ckb else None
        assert len(args) == 11 + 2 * bool(ckb)
        if int(ntasks) < 0:  # a fed launch: runs the tasks it was handed once the feed is final
            assert mode != gpu_plan.MODE_FOLLOW and (feed == 0).all()
            _FED.append(lambda: wavefront(grid, block, (tasks[:int(feed[0])], np.int32(feed[0])) + args[2:]))
            return
        if mode == gpu_plan.MODE_FOLLOW and _FED:  # a fed launch's follower: after its kernel
            _FED.append(lambda: wavefront(grid, block, args))
            return
        assert int(ntasks) == tasks.shape[0]
        if counter[0] >= int(ntasks):  # a grid sharing a task counter that is used up takes none
            return
        counter[0] = int(ntasks)
        plan = SimpleNamespace(tasks=tasks, base=base, target=(tsel & SEL_CODE_MASK).astype(np.uint8),
                               rows_size=rows.size)
        scoring = Scoring(int(match), int(mismatch), int(gap), ends)
        if mode == gpu_plan.MODE_FOLLOW:  # beside or after its kernel: reads its rows, writes none
            model_run(plan, scoring, rows_per_lane, moves, written=rows)
        else:
            assert (rows == gpu_plan.empty(rows.dtype)).all(), "row storage starts empty"
            rows[:] = model_run(plan, scoring, rows_per_lane, None if mode == gpu_plan.MODE_SCORE else moves,
                                checkpoints=checkpoints)
    return wavefront


FAKE_FREE_MEMORY = 80 << 30  # what the fake device has free
_FED: list = []  # fed launches of the fake device, run when their feed is final
_WORDS: list = []  # the words device.write_word wrote: (index, value)


def _fake_send(device_array, host, stream) -> None:
    """solver.send on the fake device: a copy."""
    device_array[...] = host


def _fake_send_packed(self, role, packed, lo, hi, stream) -> list:
    """PinnedBuffers.send on the fake GPU: copies of the packed bytes of arrays [lo, hi)."""
    return [packed.buffer[at:at + a.nbytes].view(a.dtype).reshape(a.shape).copy()
            for a, at in zip(packed.arrays[lo:hi], packed.offsets[lo:hi])]


def _fake_fill(self, role, nbytes, write, stream, into=None):
    """PinnedBuffers.fill on the fake GPU: ``nbytes`` written into a host buffer, copied into ``into``."""
    view = np.empty(nbytes, np.uint8)
    write(view)
    if into is None:
        return view
    into[...] = view
    return into


def _fake_write_word(array, index, value, stream) -> None:
    """device.write_word on the fake device; a fed kernel's final count runs it."""
    array[index] = value
    _WORDS.append((index, value))
    if index == 1 and value == 1:
        while _FED:
            _FED.pop(0)()


def fake_gpu(monkeypatch, function) -> None:
    """The GPU layer on the host: NumPy for CuPy, ``function`` for the compiled kernels."""
    from splicedalign.gpu import device

    monkeypatch.setattr(device, "cupy", lambda: _FakeCupy)
    monkeypatch.setattr(device.PinnedBuffers, "copy", lambda self, role, array, stream, blocking=True: np.array(array))
    monkeypatch.setattr(device, "function", function)
    monkeypatch.setattr(device, "device_info", lambda: {"sms": 1})
    monkeypatch.setattr(device, "fill_bytes", lambda array, byte, stream: array.view(np.uint8).fill(byte))
    monkeypatch.setattr(device.PinnedBuffers, "upload",
                        lambda self, role, arrays, stream: [np.array(a) for a in arrays])
    monkeypatch.setattr(device.PinnedBuffers, "send", _fake_send_packed)
    monkeypatch.setattr(device.PinnedBuffers, "fill", _fake_fill)
    monkeypatch.setattr(device, "memory_budget", lambda cap=None: min(FAKE_FREE_MEMORY, cap or FAKE_FREE_MEMORY))
    monkeypatch.setattr(device, "settle_pool", lambda needed: None)  # (the fake device has no pool)
    monkeypatch.setattr(device, "empty_pinned", lambda shape, dtype: np.empty(shape, dtype))
    from splicedalign.workloads.spliced.gpu import solver

    monkeypatch.setattr(solver, "send", _fake_send)
    monkeypatch.setattr(device, "write_word", _fake_write_word)
    monkeypatch.setattr(device, "can_write_words", lambda: True)


def recorded_fills(monkeypatch) -> list:
    """The sizes of the fills the fake GPU makes from now on, in order."""
    from splicedalign.gpu import device

    fills: list = []
    monkeypatch.setattr(device, "fill_bytes", lambda a, byte, stream: (fills.append(a.size), a.fill(byte)))
    return fills


def test_unfilled_buffers_and_the_pool_settled(monkeypatch):
    """device.FilledBuffers without a byte (move storage): handed out unfilled, reused where
    one kept fits; drop_below lets go of the kept ones smaller than a size, largest tells the
    largest kept, reserve keeps a count of a size. device.settle_pool frees CuPy's free blocks
    only where the bytes needed exceed what the device has free outside the pool."""
    from splicedalign.gpu import device

    settle_pool = device.settle_pool  # (fake_gpu stands in for it)
    fake_gpu(monkeypatch, _fake_function)
    fills = recorded_fills(monkeypatch)
    stream = _FakeCupy.cuda.Stream()
    store = device.FilledBuffers(None, keep=2)
    a, ready = store.take(150, stream)
    assert a.size == 150 and ready is not None and not fills
    store.give(a, 0)
    b, _ = store.take(140, stream)  # fits the kept one
    c, _ = store.take(300, stream)  # none kept: a new one
    assert b is a and c.size == 300 and not fills and store.held_bytes() == 0
    store.give(b, 140)
    store.give(c, 200)
    store.refill(stream)
    assert not fills and store.held_bytes() == 450 and store.largest() == 300
    store.drop_below(200)
    assert store.held_bytes() == 300 and store.take(200, stream)[0] is c
    store.give(c, 0)
    store.reserve(3, 250, stream)  # the kept one that fits, two made; keep raised to 3
    assert store.held_bytes() == 800 and store.largest() == 300 and not fills
    store.reserve(2, 250, stream)  # as many kept already: none made
    assert store.held_bytes() == 800

    freed: list = []
    pool = SimpleNamespace(free_all_blocks=lambda: freed.append(1))
    fake = SimpleNamespace(cuda=SimpleNamespace(runtime=SimpleNamespace(memGetInfo=lambda: (1_000, 80_000))),
                           get_default_memory_pool=lambda: pool)
    monkeypatch.setattr(device, "cupy", lambda: fake)
    settle_pool(1_000)
    assert not freed
    settle_pool(1_001)
    assert freed == [1]


def test_filled_buffers_hand_out_filled_storage(monkeypatch):
    """device.FilledBuffers: a buffer comes out with its first ``nbytes`` all ``byte``: the one
    that fits with the least to fill now, filled only where a user may have written; ``refill``
    fills the given-back ones, those first taken first; at most ``keep`` are kept."""
    from splicedalign.gpu import device

    fake_gpu(monkeypatch, _fake_function)
    fills = recorded_fills(monkeypatch)
    stream = _FakeCupy.cuda.Stream()
    pool = device.FilledBuffers(0x80, keep=2)
    a, _ = pool.take(100, stream)
    b, _ = pool.take(40, stream)
    assert fills == [100, 40] and (a == 0x80).all() and (b == 0x80).all()
    a[:60] = 7
    pool.give(a, 60)
    b[:] = 9
    pool.give(b, 40)
    c, _ = pool.take(30, stream)  # least to fill: 30 bytes of either; the smaller
    assert c is b and (c[:30] == 0x80).all() and fills[-1] == 30
    c[:20] = 5
    pool.give(c, 20)  # b's bytes 30..40 were never filled again: still dirty
    pool.refill(stream)  # the one taken first first, each only where it may be dirty
    assert fills[-2:] == [60, 40] and (a == 0x80).all() and (b == 0x80).all()
    d, _ = pool.take(50, stream)
    assert d is a and len(fills) == 5  # filled already
    e, _ = pool.take(200, stream)  # none fits: a new one
    assert e.size == 200 and (e == 0x80).all()
    for x in (d, e):
        pool.give(x, 0)
    assert sorted(k[0].size for k in pool._kept) == [100, 200]
    pool.clear()
    assert not pool._kept


def test_launches_in_flight_hold_their_own_row_storage(monkeypatch):
    """A queued launch holds its row storage until its last part is collected (its kernels run
    on other streams than the storage's fill, so nothing else may take it before); storage
    given back is EMPTY again when the next launch gets it (the model kernel asserts so); a
    call of up to ROW_STORAGE_KEPT launches, made again, fills storage only after its kernels."""
    from splicedalign.workloads.spliced.gpu.solver import ROW_STORAGE_KEPT, GpuSolver

    fake_gpu(monkeypatch, _fake_function)
    fills = recorded_fills(monkeypatch)
    held: dict[int, np.ndarray] = {}
    launched, collect = GpuSolver._launch, GpuSolver._collect

    def launch_(self, *a, **k):
        job = launched(self, *a, **k)
        assert not any(np.shares_memory(job.storage, s) for s in held.values())
        held[id(job)] = job.storage
        return job

    def collect_(self, job, part=0):
        out = collect(self, job, part)
        if part == len(job.parts) - 1:
            del held[id(job)]
        return out

    monkeypatch.setattr(GpuSolver, "_launch", launch_)
    monkeypatch.setattr(GpuSolver, "_collect", collect_)
    rng = np.random.default_rng(6)
    cases = [random_case(rng, f"f{i}") for i in range(12)]
    want = [r.score for r in get_solver("sequential").solve_many(cases, Scoring(), traceback=False)]
    solver = GpuSolver(rows_per_lane=2, tuning=launch.Tuning(row_budget=2_000))
    refill = solver._rows.refill
    monkeypatch.setattr(solver._rows, "refill", lambda stream: (fills.append("refill"), refill(stream)))
    for call in range(3):
        fills.clear()
        assert [r.score for r in solver.solve_many(cases, Scoring(), traceback=False)] == want
        assert len(solver.kernel_ms) == ROW_STORAGE_KEPT and not held
        assert len(solver._rows._kept) == ROW_STORAGE_KEPT and all(k[1] == 0 for k in solver._rows._kept)
        if call:
            assert fills[0] == "refill" and len(fills) == 1 + ROW_STORAGE_KEPT


def test_gpu_solver_host_path_with_model_kernel(monkeypatch):
    """GpuSolver.solve_many end to end (plan, launch arguments, final scores, gathered last rows,
    threaded traceback, results) with the NumPy model standing in for the GPU."""
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver

    fake_gpu(monkeypatch, _fake_function)
    rng = np.random.default_rng(5)
    cases = [random_case(rng, f"h{i}") for i in range(12)] + tiny_set(bases=1)
    for scoring in (Scoring(), Scoring(2, -3, 1), Scoring(2, -3, 1, "free")):
        want = get_solver("sequential").solve_many(cases, scoring, traceback=True)
        solver = GpuSolver(rows_per_lane=2, device_trace=False)
        got = solver.solve_many(cases, scoring, traceback=True)
        again = solver.solve_many(cases, scoring, traceback=True)  # the plan cache's hit path
        assert len(solver._cache) == 1
        for w, g, h in zip(want, got, again):
            assert (h.score, h.chain) == (g.score, g.chain)
            assert (g.case, g.score, g.cells, g.chain, g.alignment) == (w.case, w.score, w.cells, w.chain, w.alignment)
            np.testing.assert_array_equal(g.last_row_scores, w.last_row_scores)
        scores = GpuSolver(rows_per_lane=2, device_trace=False).solve_many(cases, scoring, traceback=False)
        assert [r.score for r in scores] == [w.score for w in want] and scores[0].chain is None
    # a throughput launch: folds off the chains, late and written by entry rows where they can
    solver = GpuSolver(rows_per_lane=2, device_trace=False, tuning=launch.Tuning(throughput_cases=4))
    got = solver.solve_many(cases, Scoring(), traceback=True)
    tasks = next(iter(solver._cache.values())).plan.tasks
    assert (tasks[:, F["entry_row"]] != NONE).any()
    assert [(g.score, g.chain) for g in got] == [(w.score, w.chain) for w in
                                                 get_solver("sequential").solve_many(cases, Scoring())]
    # several launches in one call, two in flight at a time
    solver = GpuSolver(rows_per_lane=2, device_trace=False, tuning=launch.Tuning(row_budget=4_000))
    got = solver.solve_many(cases, Scoring(), traceback=True)
    assert len(solver.kernel_ms) > 2
    assert [(g.score, g.chain) for g in got] == [(w.score, w.chain) for w in
                                                 get_solver("sequential").solve_many(cases, Scoring())]


# A fresh process: load_passes, then a paper-shaped feed planned as the solver plans one (argv[3]
# "1": a recording one, with its walks' tasks); which of the package's compiled functions got a
# signature more (compiled) meanwhile.
FED_PASSES_PROBE = r"""
import sys
import numpy as np
from numba.core.registry import CPUDispatcher
from splicedalign.workloads.spliced.gpu import feed, launch
from splicedalign.workloads.spliced.gpu.plan import NFIELDS
from splicedalign.workloads.spliced.synthetic import paper_set

record = sys.argv[3] == "1"
feed.load_passes(record)
# (by sys.modules' keys: an entry need not be a module with a __name__, e.g. Cython's shadow cython.parallel)
held = {f"{name}.{k}": f for name, m in list(sys.modules.items()) if name.startswith("splicedalign")
        for k, f in vars(m).items() if isinstance(f, CPUDispatcher)}
loaded = {k: len(f.signatures) for k, f in held.items()}
print(sum(map(bool, loaded.values())))
tuning = launch.Tuning(feed_shares=launch.FED_SHARES, feed_record=record)
fed = feed.host_feed(paper_set(int(sys.argv[1]), bases=int(sys.argv[2])), tuning, record=record)
sizes = fed.sizes()
buffer = np.empty(sizes.tasks * NFIELDS * 4 + sizes.base + sizes.tsel * 4 + 512, np.uint8)
staging = (buffer[:sizes.tasks * NFIELDS * 4].view(np.int32).reshape(-1, NFIELDS),
           buffer[-sizes.base - sizes.tsel * 4 - 256:][:sizes.base], buffer[-sizes.tsel * 4:].view(np.int32))
steps = len(list(fed.steps(*staging)))
plan = fed.plan()
assert record == (fed.follow is not None) and (not record or fed.walked(plan).shape == plan.tasks.shape)
print(steps, fed.long, plan.tasks.shape[0])
print(" ".join(k for k, f in held.items() if len(f.signatures) != loaded[k]) or "-")
"""


@pytest.mark.slow
@pytest.mark.parametrize("record", [False, True])
def test_fed_passes_load_before_the_kernel_starts(record):
    """Every compiled pass of a fed launch (a recording one: Tuning.feed_record) is loaded by
    feed.load_passes (which the solver calls before a fed kernel starts, and the install step
    runs): in a fresh process, after it, a paper-shaped feed (four steps, long chains) compiles
    nothing more."""
    import subprocess
    import sys

    from helpers import REPO

    seed = int(np.random.default_rng().integers(1 << 20))
    print("seed", seed)
    done = subprocess.run([sys.executable, "-c", FED_PASSES_PROBE, str(seed), "60", str(int(record))],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2_000:]
    loaded, fed, compiled = done.stdout.splitlines()
    steps, long, tasks = map(int, fed.split())
    assert int(loaded) > 10 and steps == len(launch.FED_SHARES) + 1 and long > 0 and tasks > 0
    assert compiled == "-", f"compiled after load_passes: {compiled}"


def test_fed_launch_host_path_with_model_kernel(monkeypatch):
    """A fed launch (feed.py) end to end on the fake device: its kernel started first, each step's
    codes and selectors copied in before its window's records are placed, then those records and
    the step's count, the count final, then the outputs' copies queued before the call's Results
    are made (outputs.pending: the copies run meanwhile); the scores sequential's, with the long chains first in
    their launch (launch order of the call's cases any), global and free ends; a replay runs the
    cached plan as any launch; a bad letter in a later step is the case's one line, the feed
    ended before it is raised."""
    from splicedalign.core.alphabet import LetterError
    from splicedalign.gpu import device
    from splicedalign.workloads.spliced.gpu import feed, outputs
    from splicedalign.workloads.spliced.gpu import solver as gpu_solver
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver

    fake_gpu(monkeypatch, _fake_function)
    loaded: list[int] = []  # fed kernels started when the feed's passes were loaded
    monkeypatch.setattr(gpu_solver, "load_passes", lambda: loaded.append(len(_FED)))
    order: list[str] = []  # the fed call's copies (a window's records, or a step's codes or selectors), windows, counts
    monkeypatch.setattr(gpu_solver, "send", lambda d, h, s: (order.append("records" if h.ndim == 2 else "codes"),
                                                             _fake_send(d, h, s)))
    window_of = feed.Feeder._window
    monkeypatch.setattr(feed.Feeder, "_window", lambda self, *a: (order.append("window"), window_of(self, *a))[1])
    monkeypatch.setattr(device, "write_word", lambda *a: (order.append("count"), _fake_write_word(*a)))
    monkeypatch.setattr(device.PinnedBuffers, "copy", lambda self, role, array, stream, blocking=True: (
        order.append(role), np.array(array))[1])
    pending = outputs.pending
    monkeypatch.setattr(outputs, "pending", lambda *a: (order.append("results"), pending(*a))[1])
    rng = np.random.default_rng(41)
    print("seed 41")
    long = gene_like(rng, Shape(m=3_000, K=40, n=150, exon_mean=60), name="long", targets=2)
    cases = [random_case(rng, f"f{i}") for i in range(10)] + long + [random_case(rng, f"g{i}") for i in range(10)]
    tuning = launch.Tuning(throughput_cases=4, feed_shares=(0.2, 0.3))
    for scoring in (Scoring(), Scoring(2, -3, 1, "free")):
        want = get_solver("sequential").solve_many(cases, scoring, traceback=False)
        solver = GpuSolver(rows_per_lane=2, tuning=tuning)
        _WORDS.clear()
        order.clear()
        got = solver.solve_many(cases, scoring, traceback=False)
        assert order == ["codes", "codes", "window", "records", "count"] * 3 + ["count", "finals", "counts", "results"]
        (key, inputs), = solver._cache.items()
        assert [c.name for c in inputs.cases[:2]] == ["long_t1", "long_t2"] and not _FED
        counts = [v for i, v in _WORDS if i == 0]  # three steps' counts, rising to all the tasks, then final
        assert len(counts) == 3 and (np.diff(counts) > 0).all() and counts[-1] == inputs.plan.tasks.shape[0]
        assert _WORDS[-1] == (1, 1) and loaded[-1] == 0  # its passes loaded before its kernel started
        again = solver.solve_many(cases, scoring, traceback=False)  # the cached plan, not fed
        assert len(solver._cache) == 1
        for w, g, h in zip(want, got, again):
            assert (g.case, g.score, g.cells) == (w.case, w.score, w.cells) and h.score == g.score
            np.testing.assert_array_equal(g.last_row_scores, w.last_row_scores)
    bad = TestCase("bad5", "ACGTACGT", "AC5T", (Exon(1, 4),))
    solver = GpuSolver(rows_per_lane=2, tuning=tuning)
    _WORDS.clear()
    with pytest.raises(LetterError, match="^bad5: non-nucleotide letter"):
        solver.solve_many(cases + [bad], Scoring(), traceback=False)
    assert not _FED and _WORDS[-1] == (1, 1) and len(_WORDS) == 3  # two steps' counts, then final


def test_fed_timeline_places_the_host_and_device_times_of_a_fed_call(monkeypatch):
    """GpuSolver.fed_ms: a fed call's host times (set-up, kernel queued, each window's count
    queued) and device times (kernel start and end, each window's count written), ms from the
    call's start on one clock. The fake device runs work as it is queued, so each device time is
    its event's host time: the kernel starts after the set-up begins and before it is queued, and
    each window's count is written before the host's call that queued it returns. A replay (not
    fed) has none."""
    import time

    from splicedalign.workloads.spliced.gpu import solver as gpu_solver
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver

    fake_gpu(monkeypatch, _fake_function)
    monkeypatch.setattr(gpu_solver, "load_passes", lambda: None)
    monkeypatch.setattr(_FakeCupy.cuda.Stream, "record",
                        lambda self: SimpleNamespace(synchronize=lambda: None, at=time.perf_counter()))
    monkeypatch.setattr(_FakeCupy.cuda, "get_elapsed_time", lambda a, b: (b.at - a.at) * 1e3)
    rng = np.random.default_rng(47)
    print("seed 47")
    long = gene_like(rng, Shape(m=3_000, K=40, n=150, exon_mean=60), name="long", targets=2)
    cases = [random_case(rng, f"f{i}") for i in range(10)] + long + [random_case(rng, f"g{i}") for i in range(10)]
    solver = GpuSolver(rows_per_lane=2, tuning=launch.Tuning(throughput_cases=4, feed_shares=(0.2, 0.3)))
    t = time.perf_counter()
    solver.solve_many(cases, Scoring(), traceback=False)
    wall = (time.perf_counter() - t) * 1e3
    f = solver.fed_ms
    assert f is not None and len(f.written) == len(f.ready) == 3  # three steps
    assert 0 < f.set_up <= f.started <= f.ended <= f.queued <= f.ready[0] <= f.written[0] < wall
    assert all(r <= w for r, w in zip(f.ready, f.written)) and list(f.written) == sorted(f.written)
    assert all(a <= b for a, b in zip(f.written[:-1], f.ready[1:]))  # window i + 1's after window i's
    solver.solve_many(cases, Scoring(), traceback=False)  # the cached plan: not fed
    assert solver.fed_ms is None


def test_fed_replay_plan_made_when_a_replay_first_needs_it(monkeypatch):
    """Tuning.lazy_replay_plan: a fed call makes no plan for replays (no Feeder.plan, no upload
    of its tasks); the first replay of the same cases makes it once, byte for byte the plan, the
    device tasks, codes and selectors a fed call makes with the switch off; the fed call and two
    replays answer as sequential does, global and free ends."""
    import weakref
    from dataclasses import fields, replace

    from splicedalign.workloads.spliced.gpu import feed
    from splicedalign.workloads.spliced.gpu import solver as gpu_solver
    from splicedalign.workloads.spliced.gpu.outputs import Exons
    from splicedalign.workloads.spliced.gpu.plan import Plan
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver

    fake_gpu(monkeypatch, _fake_function)
    monkeypatch.setattr(gpu_solver, "load_passes", lambda: None)
    planned: list[int] = []  # Feeder.plan's calls
    plan_of = feed.Feeder.plan
    monkeypatch.setattr(feed.Feeder, "plan", lambda self: (planned.append(1), plan_of(self))[1])
    rng = np.random.default_rng(43)
    print("seed 43")
    long = gene_like(rng, Shape(m=3_000, K=40, n=150, exon_mean=60), name="long", targets=2)
    cases = [random_case(rng, f"f{i}") for i in range(10)] + long + [random_case(rng, f"g{i}") for i in range(10)]
    tuning = launch.Tuning(throughput_cases=4, feed_shares=(0.2, 0.3))
    assert tuning.lazy_replay_plan
    for scoring in (Scoring(), Scoring(2, -3, 1, "free")):
        want = get_solver("sequential").solve_many(cases, scoring, traceback=False)
        planned.clear()
        eager = GpuSolver(rows_per_lane=2, tuning=replace(tuning, lazy_replay_plan=False))
        eager.solve_many(cases, scoring, traceback=False)
        (_, whole), = eager._cache.items()
        assert whole.made is not None and len(planned) == 1
        solver = GpuSolver(rows_per_lane=2, tuning=tuning)
        planned.clear()
        _WORDS.clear()
        got = [solver.solve_many(cases, scoring, traceback=False)]
        (_, inputs), = solver._cache.items()
        assert inputs.made is None and not planned and _WORDS[-1] == (1, 1)  # fed, no plan for replays yet
        once = GpuSolver(rows_per_lane=2, tuning=tuning)
        once.solve_many(cases, scoring, traceback=False)
        alive = weakref.ref(once)  # its cache's unmade plan holds no reference to it: freed when let go
        del once
        assert alive() is None
        words = len(_WORDS)
        got += [solver.solve_many(cases, scoring, traceback=False) for _ in range(2)]
        assert len(planned) == 1 and inputs.made is not None and len(solver._cache) == 1
        assert len(_WORDS) == words and not _FED  # the replays were not fed
        for f in fields(Plan):
            if f.name != "flat":
                a, b = getattr(inputs.plan, f.name), getattr(whole.plan, f.name)
                if isinstance(a, np.ndarray):
                    assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f.name
                else:
                    assert a == b, f.name
        B, T = whole.plan.base_letters.size, whole.plan.target_size  # (beyond them: bounds' room, never read)
        for a, b in ((inputs.tasks, whole.tasks), (inputs.base[:B], whole.base[:B]),
                     (inputs.tsel[:T], whole.tsel[:T]), *zip(inputs.exons, Exons.of(whole.plan))):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
        for results in got:
            for w, g in zip(want, results):
                assert (g.case, g.score, g.cells, g.chain) == (w.case, w.score, w.cells, None)
                np.testing.assert_array_equal(g.last_row_scores, w.last_row_scores)
                # made before the kernel's end (outputs.pending), filled in after it
                assert g.solver == "gpu" and g.seconds == g.extra["seconds_score"] > 0
                assert g.extra["batch_seconds_score"] >= g.seconds and g.extra["batch_cases"] == len(cases)


def test_flat_cases_match_the_case_objects():
    """FlatCases: each case's exons in TestCase.order, with its first_sorted and last_sorted, its
    sizes and base; a case whose exons equal the previous case's shares its arrays, exactly."""
    rng = np.random.default_rng(11)
    cases = tiny_set(bases=3) + [random_case(rng, f"r{i}") for i in range(12)]
    c0 = cases[0]
    cases.insert(1, TestCase("copy", c0.base, c0.target, tuple(Exon(e.first, e.last) for e in c0.exons)))
    cases.insert(2, TestCase("reversed", c0.base, c0.target[::-1], tuple(reversed(c0.exons))))
    flat = FlatCases.of(cases)
    for i, c in enumerate(cases):
        a, b = flat.exon_start[i], flat.exon_start[i + 1]
        assert np.array_equal(flat.first[a:b], c.first_sorted) and np.array_equal(flat.last[a:b], c.last_sorted)
        assert np.array_equal(flat.order[a:b], c.order), c.name
        assert (flat.K[i], flat.m[i], flat.n[i], flat.cells[i]) == (c.K, c.m, c.n, c.cells)
        assert flat.bases[flat.base_index[i]] is c.base
    assert len(flat.bases) == len({id(c.base) for c in cases})
    for pick in ((5, 0, 3), (4, 5, 6, 7)):  # any cases; a run of cases (a launch's: views)
        part = flat.select(list(pick))
        assert [c.name for c in part.cases] == [cases[i].name for i in pick]
        for name in ("first", "last", "order"):
            want = np.concatenate([getattr(cases[i], name if name == "order" else f"{name}_sorted") for i in pick])
            assert np.array_equal(getattr(part, name), want)
        assert [part.bases[j] for j in part.base_index] == [cases[i].base for i in pick]
        assert np.array_equal(part.exon_sums, [cases[i].exon_length_sum for i in pick])
        assert part.lists is flat.lists  # a launch's cases read the call's exon lists, laid out when asked for
        alone = FlatCases.of([cases[i] for i in pick])
        for P in (32, 256):
            strips = [sum((e.last - e.first + P) // P for e in cases[i].exons) for i in pick]
            assert part.strips(P).tolist() == alone.strips(P).tolist() == strips
    empty = FlatCases.of([])  # no cases: empty arrays
    assert len(empty) == 0 and empty.K.size == empty.first.size == 0 and empty.exon_start.tolist() == [0]


# Four threads planning at once, as one solver per GPU does, under numba's workqueue threading
# layer (the one every numba has), which aborts the process when two threads run parallel code
# at the same time: the planning passes hold flat.PARALLEL.
PLANNING_THREADS = """
import threading
import numba
import numpy as np
from splicedalign.workloads.spliced.gpu.plan import build_plan, trace_inputs
from splicedalign.workloads.spliced.synthetic import tiny_set
sets = [tiny_set(seed, bases=12) for seed in range(4)]
want = [build_plan(cases, 8).tasks for cases in sets]
bad = []
def work(i):
    for _ in range(15):
        plan = build_plan(sets[i], 8)
        trace_inputs(plan)
        if not np.array_equal(plan.tasks, want[i]):
            bad.append(i)
threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(numba.threading_layer(), "differ" if bad else "same")
"""


def test_threads_plan_at_once_under_the_workqueue_layer():
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue", NUMBA_NUM_THREADS="2")
    done = subprocess.run([sys.executable, "-c", PLANNING_THREADS], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["workqueue", "same"]


def test_even_ranges_cover_the_cases_in_runs_of_about_equal_work():
    """plan._even_ranges (the parallel passes' runs of cases): bounds from 0 to C, not
    decreasing, each run's work at most its share plus one case's."""
    rng = fresh_rng()
    for _ in range(300):
        work = rng.integers(0, int(rng.choice([2, 50, 5_000])), int(rng.integers(0, 80)))
        prefix = np.concatenate([[0], np.cumsum(work)]).astype(np.int64)
        parts = int(rng.integers(1, 70))
        edges = gpu_plan._even_ranges(prefix, parts)
        assert edges.size == parts + 1 and edges[0] == 0 and edges[-1] == work.size
        assert (np.diff(edges) >= 0).all()
        runs = prefix[edges[1:]] - prefix[edges[:-1]]
        assert runs.sum() == work.sum()
        assert (runs <= -(-int(work.sum()) // parts) + (work.max() if work.size else 0)).all()


def test_compiled_passes_equal_the_plain_plan_in_many_runs(monkeypatch):
    """The passes in many more runs of cases than cases or threads (some empty): the same plan."""
    rng = fresh_rng()
    monkeypatch.setattr(gpu_plan, "ORDER_RANGES_PER_THREAD", int(rng.integers(20, 200)))
    flat = FlatCases.of(gpu_plan_paper_cases(int(rng.integers(1 << 30)))
                        + [random_case(rng, f"r{i}") for i in range(int(rng.integers(1, 12)))])
    C = len(flat)
    floors, late, entry = np.full(C, MIN_LANE_ROWS), rng.integers(0, 2, C), rng.integers(0, 2, C)
    for interleave in (True, False):
        got = gpu_plan.plan_tasks(flat, 8, floors, late, entry, interleave)
        want = reference_tasks(flat, 8, floors, late, entry, interleave, (0, 0, 0, 0))
        for name, value in want.items():
            assert np.array_equal(np.asarray(getattr(got, name)), value), (name, interleave)


def test_gathers_inputs_as_defined(monkeypatch):
    """solver._finals_at (one compiled pass, plan.finals_at): per exon, in input order, its final
    score's row element (last row + n), into the array given; solver._last_row_gather
    (plan.last_row_places): each exon's last row, where it lands (rows of n + 1 after each other,
    then their total) and its length; NumPy's types. The finals' gather (solver._Places): those
    sources with places 0..E and lengths 1 that are views of one pair kept on the device, uploaded
    again only where a launch has more exons than it holds (grown by powers of two)."""
    from splicedalign.gpu import device
    from splicedalign.workloads.spliced.gpu import solver as solver_module
    from splicedalign.workloads.spliced.gpu.solver import _finals_at, _last_row_gather, _Places

    rng = fresh_rng()
    flat = FlatCases.of(gpu_plan_paper_cases(int(rng.integers(1 << 30)))
                        + [random_case(rng, f"r{i}") for i in range(int(rng.integers(1, 12)))])
    plan = build_plan(flat, 8)
    n_exon = plan.n[plan.exon_case]
    at = np.empty_like(plan.last_row)
    at[plan.input_index] = plan.last_row + n_exon
    dst = np.concatenate([[0], np.cumsum(n_exon + 1)])
    E = plan.last_row.size
    out = np.full(E, -1, np.int64)
    assert _finals_at(plan.exon_start, plan.n, plan.last_row, plan.input_index, out) is out
    assert np.array_equal(out, at)
    teams: list = []  # on one thread below FINALS_AT_TEAM exons (few_threads(0)), else on numba's team
    few = solver_module.few_threads
    monkeypatch.setattr(solver_module, "few_threads", lambda items: (teams.append(items), few(items))[1])
    for team in (E, solver_module.FINALS_AT_TEAM):
        monkeypatch.setattr(solver_module, "FINALS_AT_TEAM", team)
        _finals_at(plan.exon_start, plan.n, plan.last_row, plan.input_index, out)
    assert teams == [E, 0] and np.array_equal(out, at)
    got, total = _last_row_gather(plan.exon_start, plan.n, plan.last_row)
    for g, w in zip(got + [total], [plan.last_row, dst[:-1], (n_exon + 1).astype(np.int32), dst]):
        assert g.dtype == w.dtype and np.array_equal(g, w)
    fake_gpu(monkeypatch, _fake_function)
    sent: list = []
    upload = device.PinnedBuffers.upload
    monkeypatch.setattr(device.PinnedBuffers, "upload", lambda self, role, arrays, stream: (
        sent.append([a.size for a in arrays]), upload(self, role, arrays, stream))[1])
    places = _Places()
    first = places.gather(out, None)
    assert first.src is out and sent == [[_Places.LEAST] * 2]
    for size in (E, 3, _Places.LEAST):  # held: no upload
        g = places.gather(np.zeros(size, np.int64), None)
        assert np.array_equal(g.dst, np.arange(size)) and g.dst.dtype == np.int64
        assert np.array_equal(g.length, np.ones(size)) and g.length.dtype == np.int32
        assert np.array_equal(g.host_dst, np.arange(size + 1)) and len(sent) == 1
    more = np.zeros(_Places.LEAST + 1, np.int64)
    g = places.gather(more, None)
    assert sent[1:] == [[2 * _Places.LEAST] * 2] and np.array_equal(g.dst, np.arange(more.size))
    assert np.array_equal(g.length, np.ones(more.size)) and np.array_equal(first.dst, np.arange(E))
