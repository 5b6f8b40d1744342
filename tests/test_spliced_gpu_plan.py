"""Host-side logic of the GPU solvers, no GPU needed.

The `gpu` plan is checked by executing its tasks in launch order with a NumPy model of what
each kernel task computes (shifted scores, padding rows, running-max folds): if the model
reproduces the sequential solver's last rows exactly, the plan's order, dependencies, offsets
and the kernel's score algebra are right; only the CUDA transcription is left to the device.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from splicedalign.workloads.spliced.records import Exon, Scoring, TestCase
from splicedalign.workloads.spliced.gpu import launch, paper
from splicedalign.workloads.spliced.gpu.plan import KIND_FOLD, KIND_STRIP, WARP, build_plan, byte_profile_ok, score_ctype
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced.cpu_kernels import profile, score_dtype
from splicedalign.workloads.spliced.synthetic import Shape, gene_like, tiny_set

from conftest import golden_case


def model_run(plan, scoring: Scoring, rows_per_lane: int) -> np.ndarray:
    """Row storage after running every task in launch order, as the kernel defines them."""
    gap = scoring.gap
    P = WARP * rows_per_lane
    rows = np.full(plan.rows_size, -(10**9), dtype=np.int64)
    done = np.zeros(plan.tasks.shape[0], dtype=bool)
    for i, t in enumerate(plan.tasks.astype(np.int64)):
        kind, n, tgt, a, in_row, in_flag, out_row, _, b = t[:9]
        j = np.arange(n + 1)
        if in_row >= 0:
            assert done[in_flag] and in_flag < i, "task reads a row not produced before it"
            entry = rows[in_row : in_row + n + 1]
        else:
            entry = -gap * j
        if t[9] >= 0:  # fused fold entry: max(in, in2)
            assert kind == KIND_STRIP and done[t[10]] and t[10] < i
            entry = np.maximum(entry, rows[t[9] : t[9] + n + 1])
        # Shifted entry rows are non-decreasing: padding rows (prefix max) are the identity on
        # them, which lets the PIPE kernel skip lanes holding only padding rows.
        assert np.all(np.diff(entry + gap * j) >= 0)
        if kind == KIND_FOLD:
            assert done[a] and a < i
            rows[out_row : out_row + n + 1] = np.maximum(entry, rows[b : b + n + 1])
        else:
            assert kind == KIND_STRIP and 1 <= b <= P
            codes = plan.target[tgt + 1 : tgt + n + 1]
            up = entry + gap * j  # shifted: h' = h + gap * (rows so far + j)
            for rho in range(P):
                if rho < P - b:
                    w = np.zeros(n, dtype=np.int64)  # padding row copies its entry row
                else:
                    bc = plan.base[a + rho - (P - b)]
                    w = np.where(codes == bc, scoring.match, scoring.mismatch) + 2 * gap
                cand = up.copy()
                cand[1:] = np.maximum(up[:-1] + w, up[1:])
                up = np.maximum.accumulate(cand)  # the horizontal term is a running max
            rows[out_row : out_row + n + 1] = up - gap * (b + j)
        done[i] = True
    return rows


def sequential_rows(case: TestCase, scoring: Scoring) -> np.ndarray:
    prof = profile(case.target_codes, scoring, score_dtype(case.m, case.n, scoring))
    return get_solver("sequential").last_rows(case, scoring, prof)


def random_case(rng: np.random.Generator, name: str) -> TestCase:
    m = int(rng.integers(1, 300))
    n = int(rng.integers(1, 80))
    exons = []
    for _ in range(int(rng.integers(1, 12))):
        f = int(rng.integers(1, m + 1))
        exons.append(Exon(f, int(rng.integers(f, min(m, f + 120) + 1))))
    alphabet = np.array(list("ACGTN"))
    base = "".join(rng.choice(alphabet, m, p=[0.24, 0.24, 0.24, 0.24, 0.04]))
    target = "".join(rng.choice(alphabet, n, p=[0.24, 0.24, 0.24, 0.24, 0.04]))
    return TestCase(name, base, target, tuple(exons))


@pytest.mark.parametrize("fused_entry", [False, True])
@pytest.mark.parametrize("rows_per_lane", [1, 2])
def test_plan_model_matches_sequential(rows_per_lane, fused_entry):
    rng = np.random.default_rng(11)
    cases = [random_case(rng, f"r{i}") for i in range(25)] + tiny_set(bases=2)
    for scoring in (Scoring(), Scoring(2, -3, 1)):
        plan = build_plan(cases, rows_per_lane, fused_entry)
        rows = model_run(plan, scoring, rows_per_lane)
        for c, case in enumerate(cases):
            want = sequential_rows(case, scoring)
            got = np.stack([rows[o : o + case.n + 1] for o in plan.last_row[plan.exon_start[c]:plan.exon_start[c + 1]]])
            np.testing.assert_array_equal(got, want, err_msg=case.name)


@pytest.mark.parametrize("fused_entry", [False, True])
def test_plan_golden(golden, fused_entry):
    cases, scorings = zip(*(golden_case(g) for g in golden))
    for case, scoring in zip(cases, scorings):
        plan = build_plan([case], 1, fused_entry)
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
    plan = build_plan(cases, 4)
    t = plan.tasks
    assert t.dtype == np.int32 and t.shape[1] == 12
    strips = t[t[:, 0] == KIND_STRIP]
    assert strips[:, 8].min() >= 1 and strips[:, 8].max() <= 128
    assert (strips[:, 8].sum()) == sum(c.exon_length_sum for c in cases)
    # every producer precedes its consumer in launch order
    idx = np.arange(t.shape[0])
    has_in = t[:, 4] >= 0
    assert (t[has_in, 5] < idx[has_in]).all()
    folds = t[:, 0] == KIND_FOLD
    assert (t[folds, 3] < idx[folds]).all()
    assert (t[:, 6] % 4 == 0).all() and (t[:, 2] % 4 == 0).all()
    # three cases of one base share one copy of it
    assert plan.base.size == cases[0].m


def test_score_type_and_profile_choice():
    assert score_ctype(2_168_787, 2_359, Scoring(), 128) == "int"
    assert score_ctype(200_000_000, 2_000, Scoring(), 128) == "long long"
    assert byte_profile_ok(Scoring())
    assert not byte_profile_ok(Scoring(100, -1, 20))


def test_batches_respect_budget():
    cases = tiny_set(bases=4)
    sizes = [launch.row_elements(c, 2) for c in cases]
    groups = launch.batches(cases, 2, budget=max(sizes) + 1)
    assert sorted(i for g in groups for i in g) == list(range(len(cases)))
    for g in groups:
        assert len(g) == 1 or sum(sizes[i] for i in g) <= max(sizes) + 1
    assert launch.batches(cases, 2, budget=10**12) == [list(range(len(cases)))]


def test_rows_per_lane_choice():
    many = tiny_set(bases=4) * 40
    assert launch.rows_per_lane(many) <= launch.rows_per_lane(many[:1])


def test_paper_tiling_parameters():
    # The strip of exon rows fills what shared memory leaves after the entry row.
    strip = paper.strip_rows(n=2_359, itemsize=4, smem_bytes=227 * 1024)
    assert paper.smem_bytes(2_359, strip, 4) <= 227 * 1024 < paper.smem_bytes(2_359, strip + 1, 4)
    assert paper.block_threads(1) == 32 and paper.block_threads(5_000) == 1024
    assert paper.block_threads(100) == 128
    with pytest.raises(ValueError):
        paper.strip_rows(n=10**6, itemsize=4, smem_bytes=227 * 1024)


def test_unavailable_is_one_clear_line():
    from splicedalign.gpu import device
    from splicedalign.core.errors import SolverUnavailable

    try:
        device.cupy()
    except SolverUnavailable as exc:
        assert "\n" not in str(exc) and "GPU" in str(exc)
        with pytest.raises(SolverUnavailable):
            get_solver("gpu").solve(tiny_set(bases=1)[0])
    else:
        pytest.skip("CuPy and a GPU are present: nothing is unavailable")


def test_kernel_variant_matches_plan():
    from splicedalign.workloads.spliced.gpu.solver import VARIANTS, variant

    for ctype in ("int", "long long"):
        for R in (2, 4, 8, 16):
            for b in (True, False):
                for h in (0, 1, 2):
                    rows, name = variant(ctype, R, b, h)
                    assert name in VARIANTS and f", {rows}, 4," in name and name.endswith(f", {h}>")
                    if ctype == "int" and b:
                        assert rows == R


class _FakeCupy:
    """The few CuPy calls of gpu/solver.py, on NumPy arrays (the 'device' is host memory, work
    runs when queued)."""

    int32 = np.int32
    asarray = staticmethod(np.asarray)
    asnumpy = staticmethod(lambda a, stream=None: np.array(a))
    empty = staticmethod(np.empty)
    zeros = staticmethod(np.zeros)

    class cuda:  # noqa: N801 - mirrors cupy.cuda
        class Stream:
            def __init__(self, non_blocking=False):
                pass

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def record(self):
                return None

            def wait_event(self, event):
                pass

            def synchronize(self):
                pass

        get_elapsed_time = staticmethod(lambda a, b: 0.0)

        class runtime:  # noqa: N801
            deviceSynchronize = staticmethod(lambda: None)


def _fake_function(file, name, all_names):
    """Kernels of wavefront.cu as the NumPy model runs them."""
    assert name in all_names
    if name.startswith("gather_rows"):
        def gather(grid, block, args):
            rows, src, dst, length, count, out = args
            for s, d, n in zip(src[:count], dst[:count], length[:count]):
                out[d : d + n] = rows[s : s + n]
        return gather
    rows_per_lane = int(name.split(",")[1])

    def wavefront(grid, block, args):
        tasks, ntasks, _, base, tsel, rows, _, match, mismatch, gap = args
        plan = SimpleNamespace(tasks=tasks, base=base, target=(tsel & 0xF).astype(np.uint8), rows_size=rows.size)
        rows[:] = model_run(plan, Scoring(int(match), int(mismatch), int(gap)), rows_per_lane)
    return wavefront


def test_gpu_solver_host_path_with_model_kernel(monkeypatch):
    """GpuSolver.solve_many end to end (plan, launch arguments, final scores, gathered last rows,
    threaded traceback, results) with the NumPy model standing in for the GPU."""
    from splicedalign.gpu import device
    from splicedalign.workloads.spliced.gpu import solver
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver

    monkeypatch.setattr(device, "cupy", lambda: _FakeCupy)
    monkeypatch.setattr(device, "function", _fake_function)
    monkeypatch.setattr(device, "device_info", lambda: {"sms": 1})
    monkeypatch.setattr(solver, "MIN_CHUNK_CASES", 4)  # three chunks of these 15 cases
    rng = np.random.default_rng(5)
    cases = [random_case(rng, f"h{i}") for i in range(12)] + tiny_set(bases=1)
    assert len(solver.chunks(len(cases), 3)) == 3
    for scoring, handoff in ((Scoring(), 1), (Scoring(2, -3, 1), 2)):
        want = get_solver("sequential").solve_many(cases, scoring, traceback=True)
        got = GpuSolver(rows_per_lane=2, handoff=handoff, chunks=3).solve_many(cases, scoring, traceback=True)
        for w, g in zip(want, got):
            assert (g.case, g.score, g.cells, g.chain, g.alignment) == (w.case, w.score, w.cells, w.chain, w.alignment)
            np.testing.assert_array_equal(g.last_row_scores, w.last_row_scores)
        scores = GpuSolver(rows_per_lane=2, handoff=handoff).solve_many(cases, scoring, traceback=False)
        assert [r.score for r in scores] == [w.score for w in want] and scores[0].chain is None


def test_pipe_entry_windows():
    """The PIPE strip's entry-row windows (kernels/wavefront.cu), transcribed: under any
    publication schedule, the lane `head` gets block u at step u from the lane that loaded it,
    and it loads only published blocks."""
    rng = np.random.default_rng(3)
    U = 4
    for _ in range(300):
        n = int(rng.integers(1, 700))
        blocks = (n + U) // U
        published = 0  # columns the producer has published (multiples of 32, or n + 1)
        wend, have = 0, 0
        held = [None] * 32  # block held by each lane
        for u in range(blocks):
            if u >= wend:
                need = min(u * U + U, n + 1)
                while have < need:  # the poll: the producer publishes while we wait
                    published = min(n + 1, published + 32 * int(rng.integers(0, 3)))
                    have = published
                ready = blocks if have >= n + 1 else have // U
                wend = min(ready, u + 32)
                for lane in range(32):
                    b = u + ((lane - u) & 31)
                    if b < wend:
                        assert min(b * U + U, n + 1) <= have
                        held[lane] = b
            assert held[u & 31] == u
            if rng.random() < 0.3:
                published = min(n + 1, published + 32)
