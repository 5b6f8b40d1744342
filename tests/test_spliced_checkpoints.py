"""Column checkpoints for the recomputing walks (plan.py, "Column checkpoints"), without a GPU: the
layout, the wavefront model's checkpoints against the full DP, and the walk model sweeping from a
checkpoint (backing off where the path leaves the swept columns) against the host traceback, and
GpuSolver running the checkpoint kernels' models. The CUDA kernels follow these models; their nvcc
build (shipped instances, -Werror, no spills) is test_gpu_kernels' and test_gpu_nvcc's."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from conftest import golden_case
from helpers import random_spliced_case as random_case
from test_spliced_gpu_plan import entry_row, fake_gpu, model_run, record_moves, sequential_rows, strip_sweep
from test_spliced_gpu_trace import Strip, _fake_function_with_trace, check_against_cpu

from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu import plan as gpu_plan
from splicedalign.workloads.spliced.gpu.flat import BASE_LUT, TARGET_LUT, FlatCases
from splicedalign.workloads.spliced.gpu.plan import (
    COLS,
    KIND_STRIP,
    MOVE_UNIT,
    NONE,
    TASK_FIELDS,
    WARP,
    build_plan,
    checkpoint_layout,
    checkpoint_start,
    move_words,
    strip_checkpoints,
)
from splicedalign.workloads.spliced.gpu.solver import MOVES_POISON, GpuSolver
from splicedalign.workloads.spliced.records import TARGET_ENDS, Exon, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced.synthetic import Shape, gene_like, tiny_set

pytestmark = pytest.mark.usefixtures("gpu_host_code")  # conftest: the warm-up's planning code

F = {name: i for i, name in enumerate(TASK_FIELDS)}


def test_checkpoint_layout_sizes_and_offsets_exact():
    seed = 2027_1127
    print("seed", seed)
    rng = np.random.default_rng(seed)
    cases = [random_case(rng, f"r{i}") for i in range(20)]
    cases += gene_like(rng, Shape(m=3_000, K=6, n=700, exon_mean=250), "g", 3)
    for R in (2, 8):
        plan = build_plan(cases, R)
        followed = (1, len(cases) - 1)
        mine = set()
        for c in followed:
            lo, hi = plan.strip_start[plan.exon_start[c]], plan.strip_start[plan.exon_start[c + 1]]
            mine |= set(plan.strip_task[lo:hi].tolist())
        for ckb in (1, 2, 64):
            at, end = checkpoint_layout(plan, ckb, followed)
            assert at.dtype == np.int64 and at.shape == (plan.tasks.shape[0],)
            spans = []
            for i, t in enumerate(plan.tasks.astype(np.int64)):
                size = strip_checkpoints(int(t[F["n"]]), ckb) * WARP * int(t[F["lane_rows"]])
                # every checkpoint column CKB * COLS * k - 1 left of column n (a sweep starts at n at most)
                assert ckb * COLS * strip_checkpoints(int(t[F["n"]]), ckb) - 1 < t[F["n"]]
                assert ckb * COLS * (strip_checkpoints(int(t[F["n"]]), ckb) + 1) - 1 >= t[F["n"]]
                if t[F["kind"]] != KIND_STRIP or i in mine or size == 0:
                    assert at[i] == NONE
                else:
                    spans.append((int(at[i]), int(at[i]) + size))
            spans.sort()
            assert spans and spans[0][0] == 0 and spans[-1][1] == end  # disjoint and without gaps
            assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))


def test_checkpoint_start():
    for ckb in (1, 2, 64):
        width = ckb * COLS
        for jj in range(0, 700, 7):
            for distance in (0, 3, 64, 96, 1_000):
                c0 = checkpoint_start(jj, distance, ckb)
                assert c0 % width == 0 and 0 <= c0 <= max(0, jj - distance)
                assert c0 == 0 or c0 > jj - distance - width  # the nearest such checkpoint


def exon_matrix(case: TestCase, scoring: Scoring, first: int, last: int, entry: np.ndarray) -> np.ndarray:
    """The full DP of an exon's rows first..last (unshifted, (rows + 1, n + 1), row 0 the entry row)."""
    gap, n = scoring.gap, case.n
    target = TARGET_LUT[np.frombuffer(case.target.encode(), dtype=np.uint8)]  # letter codes (a wildcard matches none)
    S = np.empty((last - first + 2, n + 1), dtype=np.int64)
    S[0] = entry
    for i, b in enumerate(BASE_LUT[np.frombuffer(case.base[first - 1: last].encode(), dtype=np.uint8)], start=1):
        s = np.where(target == b, scoring.match, scoring.mismatch)
        S[i, 0] = S[i - 1, 0] - gap
        for j in range(1, n + 1):
            S[i, j] = max(S[i - 1, j - 1] + s[j - 1], S[i - 1, j] - gap, S[i, j - 1] - gap)
    return S


@pytest.mark.parametrize("rows_per_lane, ckb", [(2, 1), (8, 2), (8, 64)])
def test_wavefront_checkpoints_are_the_full_dp_values(rows_per_lane, ckb):
    """The wavefront model's checkpoints, unshifted, equal the full DP of each exon's rows (from its
    entry row: the sequential solver's last rows) at the columns CKB * COLS * k - 1."""
    seed = 2027_1128
    print("seed", seed)
    rng = np.random.default_rng(seed)
    cases = [random_case(rng, f"r{i}") for i in range(6)] + [long_insertion_case(rng)]
    for scoring in (Scoring(), Scoring(2, -3, 1, "free")):
        plan = build_plan(cases, rows_per_lane)
        at, size = checkpoint_layout(plan, ckb)
        ck = np.full(size, gpu_plan.empty(np.int64), dtype=np.int64)
        model_run(plan, scoring, rows_per_lane, checkpoints=(ck, at, ckb))
        checked = 0
        for c, case in enumerate(cases):
            last_rows = sequential_rows(case, scoring).astype(np.int64)  # the solvers' order: by (first, last)
            bounds = case.bounds[case.order]
            for slot, e in enumerate(range(plan.exon_start[c], plan.exon_start[c + 1])):
                first, last = (int(v) for v in bounds[slot])
                start = np.zeros(case.n + 1, np.int64) if scoring.free_ends else -scoring.gap * np.arange(case.n + 1)
                before = [last_rows[i] for i, (_, la) in enumerate(bounds) if la < first]
                S = exon_matrix(case, scoring, first, last, np.max([start, *before], axis=0))
                lo = 0  # exon rows above the strip
                for task in plan.strip_task[plan.strip_start[e]:plan.strip_start[e + 1]]:
                    t = {name: int(v) for name, v in zip(TASK_FIELDS, plan.tasks[task])}
                    P, lr = WARP * t["lane_rows"], t["lane_rows"]
                    pad = P - t["rows"]
                    for k in range(strip_checkpoints(t["n"], ckb)):
                        j = ckb * COLS * (k + 1) - 1
                        got = ck[at[task] + k * P + pad: at[task] + (k + 1) * P]
                        shift = scoring.gap * (np.arange(1, t["rows"] + 1) + j)  # h' = h + gap * (c + j)
                        np.testing.assert_array_equal(got - shift, S[lo + 1: lo + t["rows"] + 1, j], err_msg=case.name)
                        # padding rows of the head lane copy the entry row
                        held = (pad // lr) * lr
                        np.testing.assert_array_equal(ck[at[task] + k * P + held: at[task] + k * P + pad],
                                                      S[lo, j] + scoring.gap * j)
                        checked += 1
                    lo += t["rows"]
        assert checked >= 20, checked


@pytest.mark.parametrize("rows_per_lane, ckb", [(2, 1), (8, 2)])
def test_sweeps_from_checkpoints_record_the_full_sweeps_moves(rows_per_lane, ckb):
    """Every cell's move from column c0 (a checkpoint column + 1) to jj, as a sweep from that
    checkpoint records it at its steps (the scratch less its first step), equals the move a sweep
    from column 0 records: the whole strip, every row, not only the path's cells."""
    seed = 2027_1130
    print("seed", seed)
    rng = np.random.default_rng(seed)
    cases = [random_case(rng, f"r{i}") for i in range(8)] + [long_insertion_case(rng)]
    scoring = Scoring(2, -3, 1)
    plan = build_plan(cases, rows_per_lane)
    at, size = checkpoint_layout(plan, ckb)
    ck = np.full(size, gpu_plan.empty(np.int64), dtype=np.int64)
    rows = model_run(plan, scoring, rows_per_lane, checkpoints=(ck, at, ckb))
    width, checked = ckb * COLS, 0
    for task in np.flatnonzero(at != NONE):
        t = {name: int(v) for name, v in zip(TASK_FIELDS, plan.tasks[task])}
        P, lr = WARP * t["lane_rows"], t["lane_rows"]
        jj = int(rng.integers(width, t["n"] + 1))
        c0 = width * int(rng.integers(1, jj // width + 1))
        units = gpu_plan.strip_move_units(t["n"], t["rows"], lr)
        full, part = (np.full(units * MOVE_UNIT, MOVES_POISON, dtype=np.uint32) for _ in range(2))
        t.update(n=jj, moves=0)
        entry = entry_row(t, rows, scoring)
        record_moves(full, t, *strip_sweep(t, entry, plan.base, plan.target, scoring))
        t.update(moves=-(c0 // COLS - 1) * move_words(lr))  # the sweep's region from its first step
        left = ck[at[task] + (c0 // width - 1) * P: at[task] + c0 // width * P]
        record_moves(part, t, *strip_sweep(t, entry, plan.base, plan.target, scoring, c0, left), c0)
        whole, swept = Strip(plan.tasks, task, t["rows"]), Strip(plan.tasks, task, t["rows"])
        whole.at, swept.at = 0, t["moves"] * MOVE_UNIT
        for r in range(1, t["rows"] + 1):
            for j in range(c0, jj + 1):
                (i, bit), (k, bit2) = whole.index(r, j), swept.index(r, j)
                assert bit == bit2 and (int(full[i]) >> bit) & 3 == (int(part[k]) >> bit) & 3, (task, r, j, c0)
        checked += 1
    assert checked >= 20, checked


def long_insertion_case(rng) -> TestCase:
    """Exons whose best alignment takes long runs of target letters against gaps inside an exon
    (insertions of 150 and 300 letters in the target): paths that leave a strip's swept columns."""
    base = rng.choice(list("ACGT"), 900)
    ins = lambda k: rng.choice(list("ACGT"), k)  # noqa: E731
    target = np.concatenate((base[0:120], ins(150), base[120:400], base[500:620], ins(300), base[620:800]))
    exons = (Exon(1, 400), Exon(500, 800), Exon(30, 60), Exon(820, 880))
    return TestCase("long_insertions", "".join(base), "".join(target), exons)


def test_walks_from_checkpoints_match_the_host_traceback():
    """Chains and ops equal to the host traceback (and the oracle's checks), walks sweeping from
    checkpoints on golden, random, gene-shaped and long-insertion cases; fewer cells swept."""
    seed = 2027_1129
    print("seed", seed)
    rng = np.random.default_rng(seed)
    cases = [random_case(rng, f"t{i}") for i in range(12)] + tiny_set(bases=2) + [long_insertion_case(rng)]
    genes = gene_like(rng, Shape(m=4_000, K=8, n=900, exon_mean=300), "g", targets=2)
    for ends in TARGET_ENDS:
        for scoring in (Scoring(target_ends=ends), Scoring(2, -3, 1, ends)):
            for R, ckb in ((2, 1), (8, 2)):
                stats: dict[str, int] = {}
                check_against_cpu(cases + genes, scoring, R, stats, recompute=True, checkpoint_blocks=ckb)
                assert stats["cells"] < stats["full_cells"], stats
    stats = {}
    check_against_cpu(genes, Scoring(), 8, stats, recompute=True, checkpoint_blocks=2)
    print("gene-shaped, 8 rows per lane, CKB 2:", stats)
    assert stats["cells"] * 2 < stats["full_cells"], stats  # strips of up to 256 rows against n = 900


def test_walks_from_checkpoints_golden(golden):
    pairs = [golden_case(g) for g in golden]
    for scoring in {s for _, s in pairs}:
        for ends in TARGET_ENDS:
            check_against_cpu([c for c, s in pairs if s == scoring], Scoring(scoring.match, scoring.mismatch,
                              scoring.gap, ends), recompute=True, checkpoint_blocks=1)


def test_backoffs_where_the_path_leaves_the_swept_columns():
    """Target insertions longer than a strip's rows and the margin send the walk back to a
    checkpoint further left, and its answer stays the host's."""
    rng = np.random.default_rng(5)
    for R, ckb in ((2, 1), (2, 4), (8, 2)):
        stats: dict[str, int] = {}
        check_against_cpu([long_insertion_case(rng) for _ in range(3)], Scoring(), R, stats, recompute=True,
                          checkpoint_blocks=ckb)
        print(R, ckb, stats)
        assert stats["backoffs"] >= 3, stats
        assert stats["cells"] < stats["full_cells"], stats


def test_case_bytes_count_the_checkpoints_of_the_walked_cases():
    rng = np.random.default_rng(9)
    cases = gene_like(rng, Shape(m=3_000, K=6, n=700, exon_mean=250), "g", 4)
    cases += gene_like(rng, Shape(m=3_000, K=30, n=700, exon_mean=80), "h", 1)
    flat = FlatCases.of(cases)
    R, ckb = 8, 64
    plain = launch.case_bytes(flat, R, 4, True, False, launch.Tuning(checkpoint_blocks=0))
    with_ck = launch.case_bytes(flat, R, 4, True, False, launch.Tuning(checkpoint_blocks=ckb))
    long = flat.K >= launch.Tuning().long_chain_share * flat.K.max()
    assert long.any() and not long.all()
    elements = launch.checkpoint_elements(flat, R, ckb)
    np.testing.assert_array_equal(with_ck - plain, np.where(long, 0, 4 * elements))
    # the bound holds each case's checkpoints as planned (strips at their own lane rows)
    plan = build_plan(cases, R)
    at, _ = checkpoint_layout(plan, ckb)
    for c in range(len(cases)):
        tasks = plan.strip_task[plan.strip_start[plan.exon_start[c]]:plan.strip_start[plan.exon_start[c + 1]]]
        t = plan.tasks[tasks].astype(np.int64)
        planned = (strip_checkpoints(t[:, F["n"]], ckb) * WARP * t[:, F["lane_rows"]]).sum()
        assert 0 < planned <= elements[c]
    # none in int64 launches (configure gives them none), where the walks do not recompute, or none asked for
    assert (launch.case_bytes(flat, 4, 8, True, False, launch.Tuning(checkpoint_blocks=ckb))
            == launch.case_bytes(flat, 4, 8, True, False, launch.Tuning(checkpoint_blocks=0))).all()
    assert (launch.case_bytes(flat, R, 4, True, False, launch.Tuning(recompute=False, checkpoint_blocks=ckb))
            == launch.case_bytes(flat, R, 4, True, False, launch.Tuning(recompute=False, checkpoint_blocks=0))).all()


SCRIPT = Path(__file__).parents[1] / "scripts" / "model_spliced_checkpoints.py"


def test_the_scripts_count_is_the_walk_models():
    """scripts/model_spliced_checkpoints.py counts a walk's sweeps from the host traceback's paths:
    its cells and back-offs, from column 0 and from checkpoints, equal what the walk model swept."""
    spec = importlib.util.spec_from_file_location("model_spliced_checkpoints", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    rng = np.random.default_rng(5)
    cases = [long_insertion_case(rng) for _ in range(3)]
    cases += gene_like(rng, Shape(m=4_000, K=8, n=900, exon_mean=300), "g", targets=2)
    scoring = Scoring()
    results = get_solver("sequential").solve_many(cases, scoring, traceback=True)
    for R, ckb in ((2, 1), (8, 2), (8, 16)):
        stats: dict[str, int] = {}
        check_against_cpu(cases, scoring, R, stats, recompute=True, checkpoint_blocks=ckb)
        plan = build_plan(cases, R)
        counted = {0: np.zeros(3, np.int64), ckb: np.zeros(3, np.int64)}
        for c, (case, result) in enumerate(zip(cases, results)):
            position = {int(i): k for k, i in enumerate(case.order)}
            for a in result.alignment:
                e = plan.exon_start[c] + position[a.index]
                tasks = plan.tasks[plan.strip_task[plan.strip_start[e]:plan.strip_start[e + 1]]]
                strips = [(int(t[F["rows"]]), (WARP * int(t[F["lane_rows"]]) - int(t[F["rows"]]))
                           // int(t[F["lane_rows"]])) for t in tasks]
                path = script.exon_path(bytes(a.ops), a.last - a.first + 1, a.target_end)
                for k in counted:
                    counted[k] += script.walk_cells(strips, path, k)
        assert counted[0][0] == stats["full_cells"] and counted[0][2] == 0, (counted, stats)
        assert counted[ckb][0] == stats["cells"] and counted[ckb][2] == stats.get("backoffs", 0), (counted, stats)


def test_gpu_solver_walks_from_checkpoints_on_the_model_kernels(monkeypatch):
    """GpuSolver with Tuning.checkpoint_blocks: a traced recomputing throughput launch runs
    wavefront_checkpoints and trace_chains_checkpoints (here their NumPy models, on the tests' fake
    GPU), and its chains and alignments are sequential's; without it, the shipped kernels."""
    names: list[str] = []

    def recorded(file, name, all_names, defines):
        names.append(name)
        return _fake_function_with_trace(file, name, all_names, defines)

    fake_gpu(monkeypatch, recorded)
    rng = np.random.default_rng(12)
    cases = [random_case(rng, f"d{i}") for i in range(10)] + [long_insertion_case(rng)]
    for scoring in (Scoring(), Scoring(2, -3, 1, "free")):
        want = get_solver("sequential").solve_many(cases, scoring, traceback=True)
        for ckb in (1, 0):
            names.clear()
            solver = GpuSolver(rows_per_lane=2, poison=True, device_trace=True,
                               tuning=launch.Tuning(throughput_cases=1, checkpoint_blocks=ckb))
            # (score first: the traced call finds the batch a score call planned, without checkpoints)
            assert [g.score for g in solver.solve_many(cases, scoring, traceback=False)] == [w.score for w in want]
            names.clear()
            got = solver.solve_many(cases, scoring, traceback=True)
            for w, g in zip(want, got):
                assert (g.score, g.chain, g.alignment) == (w.score, w.chain, w.alignment)
            checkpointed = [n for n in names if "_checkpoints<" in n]
            free = "true" if scoring.free_ends else "false"
            assert checkpointed == ([f"wavefront_checkpoints<int, 2, true, {free}, 1>",
                                     f"trace_chains_checkpoints<int, 2, true, {free}, 1>"] if ckb else []), names
