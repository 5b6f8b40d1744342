"""The GPU wavefront kernel (wfa.cu) and its host code (gpu/wfa.py) without a GPU: the kernel
built for the host with g++ (tests/nw_emu/wfa_host.cpp: a std::thread per CUDA thread, a
barrier per __syncthreads), CuPy replaced by NumPy, driven through WfaSolver's own launch path,
against the CPU solvers on random pairs of every mode and cost model, every CIGAR re-scored."""

from __future__ import annotations

import ctypes
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import fresh_rng, kernel_host_build
from test_nw_gpu_batch_model import fake_gpu_host, fake_kernel
from test_nw_modes import gap_start_reference, late_start_pair

from splicedalign.gpu import device
from splicedalign.workloads.nw import wfa as cpu_wfa
from splicedalign.workloads.nw.gpu import band as bands
from splicedalign.workloads.nw.gpu import batch, wfa
from splicedalign.workloads.nw.records import MODES, Costs, Pair, cigar_cost
from splicedalign.workloads.nw.reference import ReferenceSolver
from splicedalign.workloads.nw.synthetic import mutate, random_codes

ROOT = Path(__file__).resolve().parents[1]
EMU = ROOT / "tests" / "nw_emu" / "wfa_host.cpp"
COSTS = (Costs(0, 1, 3), Costs(0, 4, 2, 6), Costs(0, 3, 2, 5), Costs(0, 2, 1), Costs(0, 5, 3, 1))
STATIC_SHARED = 256  # about nw_wfa's static shared variables (its found, plans, planner, walk_at)


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    return kernel_host_build(EMU, wfa.DEFINES, tmp_path_factory.mktemp("wfa"))


def _pointer(value):
    return ctypes.c_void_p(value.ctypes.data) if isinstance(value, np.ndarray) else ctypes.c_longlong(int(value))


def slot_values(args):
    """A launch's arguments passed by value (device.ArgumentSlots through fake_launch: each a CPointer to its 8-byte
    slot) as the ints
    in their slots (the device addresses among them)."""
    return [ctypes.c_int64.from_address(arg.ptr).value for arg in args]


class EmuKernel:
    """An nw_wfa / nw_wfa_pack launch on the host build, with wfa.py's arguments."""

    def __init__(self, lib, name):
        self.lib, self.name = lib, name
        self.max_dynamic_shared_size_bytes = 0
        self.shared_size_bytes = STATIC_SHARED  # (a launch without a raised limit: 48 KiB less it)

    def __call__(self, grid, block, args, shared_mem=0):
        if self.name == wfa.PACK:
            self.lib.emu_nw_wfa_pack(ctypes.c_int(grid[0]), *(_pointer(a) for a in args))
            return
        if self.name == wfa.SETTLE:
            out, runs, runs_each, table_from, n_pair, *ints, bound, result = args
            assert grid[0] == 1 and len(ints) == 6 and shared_mem == 8 * int(ints[0])
            self.lib.emu_nw_pieces_settle(ctypes.c_int(block[0]), _pointer(out), _pointer(runs),
                                          ctypes.c_longlong(int(runs_each)), _pointer(table_from),
                                          ctypes.c_longlong(int(n_pair)), *(ctypes.c_int(int(v)) for v in ints),
                                          ctypes.c_longlong(int(bound)), _pointer(result))
            return
        assert shared_mem <= 4 << 20, "more shared memory than the host build has"
        if self.name.startswith("nw_wfa_round"):  # (its arguments by value: queue_round's ArgumentSlots)
            affine, shared = (flag.strip() == "true" for flag in self.name.split("<")[1].rstrip(">").split(","))
            assert len(args) == wfa.ROUND_ARGUMENTS
            seqs, reach, *ints, ring, keep_arr, pool_top, pool_ints, bases, runs, out = slot_values(args[:17])
            n_pair, m_pair, count, spec, lo, hi, pool_steps, runs_each, table_from, done, g, whole = slot_values(
                args[17:29])
            bound, result, mirror = slot_values(args[29:])
            assert len(ints) == 8 and grid[0] == count + spec
            assert shared_mem >= 8 * count, "no room for the last block's check"
            status = self.lib.emu_nw_wfa_round(
                ctypes.c_int(affine), ctypes.c_int(shared), ctypes.c_int(grid[0]), ctypes.c_int(block[0]),
                ctypes.c_void_p(seqs), ctypes.c_void_p(reach), *(ctypes.c_int(v) for v in ints),
                ctypes.c_void_p(ring), ctypes.c_void_p(keep_arr), ctypes.c_void_p(pool_top),
                ctypes.c_longlong(pool_ints), ctypes.c_void_p(bases), ctypes.c_void_p(runs), ctypes.c_void_p(out),
                ctypes.c_longlong(n_pair), *(ctypes.c_int(v) for v in (m_pair, count, spec, lo, hi, pool_steps)),
                ctypes.c_longlong(runs_each), ctypes.c_void_p(table_from), ctypes.c_void_p(done), ctypes.c_int(g),
                ctypes.c_int(whole), ctypes.c_longlong(bound), ctypes.c_void_p(result), ctypes.c_void_p(mirror))
            assert status == 0
            return
        if self.name.startswith("nw_biwfa"):
            seqs, desc, reach, *ints, keep_arr, pool_top, pool_ints, bases, runs, out = args
            assert len(ints) == 7 and grid[0] == 1 and block[0] % 64 == 0
            status = self.lib.emu_nw_biwfa(
                ctypes.c_int("true" in self.name), ctypes.c_int(block[0]), _pointer(seqs), _pointer(desc),
                _pointer(reach), *(ctypes.c_int(int(v)) for v in ints), _pointer(keep_arr), _pointer(pool_top),
                ctypes.c_longlong(int(pool_ints)), _pointer(bases), _pointer(runs), _pointer(out))
            assert status == 0
            return
        assert shared_mem <= max(device.SHARED_MEMORY_DEFAULT - STATIC_SHARED, self.max_dynamic_shared_size_bytes), (
            f"{self.name}: {shared_mem} bytes of shared memory, allowed {self.max_dynamic_shared_size_bytes}")
        assert self.name in wfa.NAMES, self.name
        affine, keep, shared, staged = (flag.strip() == "true"
                                        for flag in self.name.split("<")[1].rstrip(">").split(","))
        seqs, desc, reach, *ints, ring, keep_arr, pool_top, pool_ints, bases, runs, out, gap_start = args
        assert len(ints) == 11
        if shared:  # the variant for the ring and both sequences in shared memory
            assert ints[8] and ints[9], "nw_wfa<..., true, ...> with the ring or the sequences in global memory"
        if staged:  # the variant packing its letters from the staged bytes into shared memory
            assert seqs.dtype == np.uint8 and ints[9], "nw_wfa<..., true> on packed words or without shared letters"
        status = self.lib.emu_nw_wfa(
            ctypes.c_int(affine), ctypes.c_int(keep), ctypes.c_int(shared), ctypes.c_int(staged), ctypes.c_int(grid[0]),
            ctypes.c_int(block[0]),
            _pointer(seqs), _pointer(desc), _pointer(reach), *(ctypes.c_int(int(v)) for v in ints),
            _pointer(ring), _pointer(keep_arr), _pointer(pool_top), ctypes.c_longlong(int(pool_ints)),
            _pointer(bases), _pointer(runs), _pointer(out), ctypes.c_int(int(gap_start)))
        assert status == 0


@pytest.fixture
def solver(emu, monkeypatch):
    fake_gpu_host(monkeypatch, 1 << 30)
    text = fake_kernel(batch.TEXT, [])
    monkeypatch.setattr(device, "function",
                        lambda source, name, names, defines: text if name == batch.TEXT else EmuKernel(emu, name))
    return wfa.WfaSolver(poison=True)


def _pairs(rng, count, most):
    pairs = []
    for k in range(count):
        a = random_codes(int(rng.integers(1, most)), rng)
        kind = k % 5
        b = random_codes(int(rng.integers(1, most)), rng) if kind == 0 else mutate(a, rng, 0.2 * kind)
        if kind == 4:
            flanks = [random_codes(int(rng.integers(0, 30)), rng) for _ in range(2)]
            b = np.concatenate([flanks[0], b, flanks[1]])
        if b.size == 0:
            b = np.array([2], np.uint8)
        b[rng.random(b.size) < 0.01] = 5
        pairs.append(Pair(f"p{k}", "a", "b", a, b))
    return pairs


@pytest.mark.parametrize("gap_start", [False, True])
def test_reach_table_is_the_cpu_wfas_ranges(gap_start):
    for x, o, e in ((1, 0, 3), (2, 3, 1), (3, 5, 2), (5, 1, 3), (1, 0, 1)):
        reach = wfa.reach_table(x, o, e, 200, gap_start)
        # the CPU's rule (wfa_kernels.wfa_forward) on unclamped ranges: M[s-x], M[s-o-e] +- 1,
        # and with o > 0 I / D at s - e (absent at score 0 but for the gap start's D[0])
        want = [0]
        for s in range(1, 201):
            cands = [want[s - x]] if s >= x and want[s - x] >= 0 else []
            if s >= o + e and want[s - o - e] >= 0:
                cands.append(want[s - o - e] + 1)
            if o > 0 and (s > e or (gap_start and s == e)) and want[s - e] >= 0:
                cands.append(want[s - e] + 1)
            want.append(max(cands) if cands else -1)
        assert reach.tolist() == want, (x, o, e)
        if o == 0:  # linear costs: no D state, the gap start changes nothing
            assert reach.tolist() == wfa.reach_table(x, o, e, 200).tolist()


def test_reach_max_is_the_tables_widest_reach(monkeypatch):
    """WfaSolver.reach_max (a round's widest reach, kept with its table) equals the widest reach of the table up to
    each score, for both tables of every cost model, a table regrown past its first size included (a longer table
    than the one its running max was made from)."""
    fake_gpu_host(monkeypatch, 1 << 30)
    solver = wfa.WfaSolver()
    for x, o, e in ((1, 0, 3), (2, 3, 1), (3, 5, 2), (5, 1, 3), (1, 0, 1)):
        for gap_start in (False, True):
            for steps in (0, 1, 7, 300, 1023, 1024, 2500, 40, 6000):  # (the table grows at 1,024, then 2,500)
                want = int(wfa.reach_table(x, o, e, steps, gap_start).max())
                assert solver.reach_max(x, o, e, steps, gap_start) == want, (x, o, e, gap_start, steps)


@pytest.mark.parametrize("costs", COSTS, ids=[f"costs{i}" for i in range(len(COSTS))])  # spread over xdist workers
@pytest.mark.parametrize("mode", MODES)
def test_wfa_kernel_on_host_every_cost_model(solver, mode, costs):
    seed = 2610 + MODES.index(mode)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    pairs = _pairs(rng, 10, 160)
    _, x, o, e = cpu_wfa.reduced_costs(costs)
    reach = wfa.reach_table(x, o, e, 2000)
    visits = np.array([wfa.visits_upto(reach, p.n, p.m, mode, 3 if o else 1, 2001) for p in pairs])
    # the ring and sequences in shared memory, the sequences alone, neither
    for traceback, shared_bytes in ((True, 1 << 20), (False, 1 << 20), (True, 3000), (True, 0)):
        solver.shared_bytes = shared_bytes
        got = solver.launch(pairs, costs, traceback, mode, 2000, visits, 32)
        for k, pair in enumerate(pairs):
            want = reference.solve(pair, costs, traceback=False, mode=mode)
            assert got.score[k] == want.score, (pair.name, costs, mode, traceback)
            if traceback:
                assert cigar_cost(got.cigars[k], pair.a, pair.b, costs, got.start2[k], got.end2[k]) == want.score
            cpu = cpu_wfa.wfa_align(pair.a, pair.b, costs, mode, False, 1 << 40)
            assert got.end2[k] == cpu.end2, (pair.name, costs, mode)


@pytest.mark.parametrize("costs", COSTS, ids=[f"costs{i}" for i in range(len(COSTS))])
def test_gap_start_on_host_every_cost_model(solver, costs):
    """Infix mode's gap start (``launch(gap_start=True)``: D[0] = M[0], the walk back may end in D)
    on pairs whose best start is often inside a gap of a's letters: every score the CPU WFA's and the
    reference's with the gap start, every CIGAR re-scored under its rule, the end column the CPU's;
    the ring and sequences in shared memory, the sequences alone, neither. Linear costs: the plain
    infix launch's answers."""
    seed = 2617
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    pairs = [late_start_pair(rng, 200 if k % 4 else 10) for k in range(12)]
    _, x, o, e = cpu_wfa.reduced_costs(costs)
    reach = wfa.reach_table(x, o, e, 2000, True)
    visits = np.array([wfa.visits_upto(reach, p.n, p.m, "infix", 3 if o else 1, 2001) for p in pairs])
    wants = [gap_start_reference(p, costs)[0] for p in pairs]
    for traceback, shared_bytes in ((True, 1 << 20), (False, 1 << 20), (True, 3000), (True, 0)):
        solver.shared_bytes = shared_bytes
        got = solver.launch(pairs, costs, traceback, "infix", 2000, visits, 32, gap_start=True)
        plain = solver.launch(pairs, costs, traceback, "infix", 2000, visits, 32) if o == 0 else None
        for k, pair in enumerate(pairs):
            cpu = cpu_wfa.wfa_align(pair.a, pair.b, costs, "infix", False, 1 << 40, gap_start=True)
            assert got.score[k] == cpu.score == wants[k], (k, costs, traceback)
            assert got.end2[k] == cpu.end2, (k, costs)
            if traceback:
                assert cigar_cost(got.cigars[k], pair.a, pair.b, costs, got.start2[k], got.end2[k],
                                  gap_start=True) == wants[k], (k, costs, got.cigars[k])
            if plain is not None:
                assert (got.score[k], got.end2[k], got.start2[k]) == (plain.score[k], plain.end2[k], plain.start2[k])
                assert not traceback or got.cigars[k] == plain.cigars[k]
    if o:  # the leading D runs paid: pairs the plain start scores higher
        plain = solver.launch(pairs, costs, False, "infix", 2000, visits, 32)
        assert sum(g < p for g, p in zip(got.score, plain.score)) >= 2


def test_wfa_gives_up_past_its_visits_and_solve_budget(solver):
    rng = np.random.default_rng(2614)
    print("seed 2614")
    a = random_codes(300, rng)
    pairs = [Pair("similar", "a", "b", a, mutate(a, rng, 0.1)), Pair("unrelated", "a", "b", a, random_codes(300, rng))]
    costs = Costs(0, 4, 2, 6)
    reach = wfa.reach_table(2, 3, 1, 4000)
    need = [cpu_wfa.wfa_align(p.a, p.b, costs, "global", False, 1 << 40) for p in pairs]
    visits = np.array([need[0].visited + 50_000, need[0].visited + 50_000], np.int64)
    got = solver.launch(pairs, costs, True, "global", 4000, visits, 64)
    assert got.score[0] == need[0].score and got.score[1] is None and got.cigars[1] is None
    # the GPU's ranges are the CPU's: the same diagonals visited (the CPU counts score 0 once)
    for answer, pair in zip(need, pairs):
        assert wfa.visits_upto(reach, pair.n, pair.m, "global", 3, answer.score // 2 + 1) - 2 == answer.visited
    # one pair, threads as the host picks them (up to the ring's width): the ring in shared memory
    answer = solver.solve(pairs[0], costs, True, "global", budget_ms=50.0)
    assert answer.algorithm == "wfa" and answer.score == need[0].score
    assert cigar_cost(answer.cigar, pairs[0].a, pairs[0].b, costs) == need[0].score
    assert solver.solve(pairs[1], costs, False, "global", budget_ms=0.05) is None


def test_launch_configuration():
    reach = wfa.reach_table(1, 0, 3, 3000)
    n, m = np.array([100_000]), np.array([99_989])
    config = wfa.configure(reach, n, m, "global", 1, 0, 3, 1400, wfa.MAX_THREADS)
    # 100k at 1% (linear 0/1/3: 1,348 scores): |k| <= 466, a ring of 4 rows of 933 ints in shared memory
    assert config.reach_max == 466 and config.stride == 933 and config.shared and config.rows == 4
    assert config.seqs_shared and config.smem == 14_928 + 100_056  # and both sequences, 4 bits a letter
    assert config.threads == 960
    affine = wfa.configure(wfa.reach_table(2, 3, 1, 3000), n, m, "global", 2, 3, 1, 2330, wfa.MAX_THREADS)
    # 100k at 1%, WFA2's affine costs over 2 (2,330 scores): M's ring 5 rows, I's and D's 2 each,
    # 168 KB: the sequences (100 KB) in shared memory, the ring in global memory
    assert affine.rows == 9 and affine.reach_max == 2328 and affine.seqs_shared and not affine.shared
    assert wfa.configure(reach, 10 * n, 10 * m, "global", 1, 0, 3, 1400, 256).smem == 14_928
    wide = wfa.configure(reach, n, m, "infix", 1, 0, 3, 1400, wfa.MAX_THREADS)
    assert not wide.shared and wide.threads == wfa.MAX_THREADS


@pytest.mark.parametrize("mode", MODES)
def test_gpu_solver_batch_takes_the_wfa_then_the_bands(solver, mode, monkeypatch):
    """GpuSolver.solve_many: the WFA's launch for the pairs it takes, batch.py's bands (here the
    reference in place of the whole band path) for the rest, in input order."""
    from splicedalign.workloads.nw.gpu import solver as gpu_solver

    seed = 2620 + MODES.index(mode)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    pairs = _pairs(rng, 12, 1400)
    pairs.insert(3, Pair("empty", "a", "b", np.zeros(0, np.uint8), np.array([1, 2], np.uint8)))
    gpu = gpu_solver.GpuSolver.__new__(gpu_solver.GpuSolver)
    gpu.use_wfa, gpu.wfa, gpu.poison = True, solver, True
    handed = []

    class Bands:
        def solve_many(self, rest, costs, traceback, mode):
            handed.extend(p.name for p in rest)
            return [reference.solve(p, costs, traceback, mode) for p in rest]

    gpu.batch = Bands()
    monkeypatch.setattr(wfa, "BATCH_THREADS", 64)
    monkeypatch.setattr(wfa, "BATCH_SHARE", 1e9)  # the WFA whatever the prediction (infix: the bands')
    for costs in (Costs(0, 1, 3), Costs(0, 4, 2, 6)):
        handed.clear()
        got = gpu.solve_many(pairs, costs, traceback=True, mode=mode)
        print(mode, costs, solver.stats)
        # infix: every step spans all of b, so a pair's cap (a share of its cells) stops most
        assert "empty" in handed and (mode == "infix" or any(r.algorithm == "wfa" for r in got))
        for pair, r in zip(pairs, got):
            want = reference.solve(pair, costs, traceback=False, mode=mode).score
            assert r.score == want and cigar_cost(r.cigar, pair.a, pair.b, costs, r.start2, r.end2) == want
            assert (r.algorithm == "wfa") == (pair.name not in handed)


def test_long_runs_are_extended_by_the_warp(solver):
    """Runs of matches far longer than a warp's round of 256 letters, ending at either sequence's
    end or inside it: identical sequences, a few changes, one sequence a prefix or a middle of the
    other; every mode, linear and affine, every CIGAR re-scored."""
    from splicedalign.workloads.nw.cpu import SequentialSolver

    rng = np.random.default_rng(2630)
    print("seed 2630")
    a = random_codes(900, rng)
    changed = a.copy()
    changed[[300, 301, 700]] = (changed[[300, 301, 700]] + 1) % 4
    pairs = [Pair("same", "a", "b", a, a.copy()), Pair("changed", "a", "b", a, changed),
             Pair("prefix", "a", "b", a[:500], a), Pair("middle", "a", "b", a[300:600], a),
             Pair("longer a", "a", "b", a, a[:700]), Pair("one letter", "a", "b", a[:1], a[:600])]
    reference = SequentialSolver()
    for costs in (Costs(0, 1, 3), Costs(0, 4, 2, 6)):
        _, x, o, e = cpu_wfa.reduced_costs(costs)
        reach = wfa.reach_table(x, o, e, 2000)
        for mode in MODES:
            visits = np.array([wfa.visits_upto(reach, p.n, p.m, mode, 3 if o else 1, 2001) for p in pairs])
            got = solver.launch(pairs, costs, True, mode, 2000, visits, 64)  # two warps a pair
            for k, pair in enumerate(pairs):
                want = reference.solve(pair, costs, traceback=False, mode=mode).score
                assert got.score[k] == want, (pair.name, costs, mode)
                assert cigar_cost(got.cigars[k], pair.a, pair.b, costs, got.start2[k], got.end2[k]) == want


@pytest.mark.parametrize("walk_steps", [wfa.WALK_STEPS, 6])
@pytest.mark.parametrize("mode", MODES)
def test_single_pairs_reuse_the_workspace(solver, mode, walk_steps, monkeypatch):
    """``solve`` (WfaSolver.launch_one): pairs one at a time, longer and shorter in turn, score
    or alignment, linear or affine, with or without a guessed score, through the one workspace
    (grown, never cleared): every answer the reference's, every CIGAR re-scored, the end column
    the CPU WFA's; the upload grows only for a longer pair. The walk back through windows of
    WALK_STEPS scores in shared memory, or of 6 (a window each few operations)."""
    monkeypatch.setattr(wfa, "WORKSPACE_MIN", 256)
    monkeypatch.setattr(wfa, "WALK_STEPS", walk_steps)
    seed = 2640 + MODES.index(mode)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    pairs = _pairs(rng, 8, 200)
    a = random_codes(1200, rng)
    pairs[3:3] = [Pair("long", "a", "b", a, mutate(a, rng, 0.1))]
    sizes, fast = [], []
    searches = wfa.ReachSums.budget_steps
    monkeypatch.setattr(wfa.ReachSums, "budget_steps", lambda self, *a: fast.append(1) or searches(self, *a))
    for k, pair in enumerate(pairs):
        costs = (Costs(0, 1, 3), Costs(0, 4, 2, 6))[k % 2]
        traceback = k % 4 < 2
        want = reference.solve(pair, costs, traceback=False, mode=mode)
        # a guessed score (as `gpu` passes for long pairs) caps the scores: the sums' binary searches
        expected = float(want.score) if k % 3 else None
        got = solver.solve(pair, costs, traceback, mode, budget_ms=1e4, expected=expected)
        if got is None:
            assert mode == "infix", (pair.name, costs, mode)  # an infix pair past its memory share
            continue
        assert got.score == want.score and got.algorithm == "wfa", (pair.name, costs, mode, traceback)
        if traceback:
            assert cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2, got.end2) == want.score
        else:
            assert got.cigar is None
        assert got.end2 == cpu_wfa.wfa_align(pair.a, pair.b, costs, mode, False, 1 << 40).end2
        sizes.append(solver._workspace.size)
        assert sizes[-1] >= wfa.SINGLE_META + pair.n + pair.m
    assert sizes == sorted(sizes) and len(set(sizes)) > 1 and sizes[-1] == sizes[-5]
    assert mode == "infix" or fast  # (infix: never the sums)


def test_reach_sums_equal_the_numpy_passes():
    """WfaSolver.solve's binary searches (ReachSums) give what budget_steps, steps_for,
    shared_steps and visits_upto give, on every pair they cover (global and prefix modes, the
    reach within both lengths), and say when they do not cover one."""
    seed = 2650
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    for x, o, e in ((1, 0, 3), (2, 3, 1), (3, 5, 2), (5, 1, 3), (1, 0, 1)):
        table = wfa.reach_table(x, o, e, 6000)
        arrays = 3 if o else 1
        sums = wfa.ReachSums(table, arrays)
        for _ in range(40):
            cap = int(rng.integers(1, 6000))
            reach = table[:cap + 1]
            n, m = (int(v) for v in rng.integers(1, 3 * int(reach.max()) + 2, 2))
            mode = MODES[int(rng.integers(0, 3))]
            if not sums.covers(cap, n, m, mode):
                assert mode == "infix" or int(reach.max()) > min(n, m)
                continue
            budget_ms = float(rng.uniform(0.01, 20.0))
            shared_bytes = int(rng.integers(0, 300_000))
            seqs = wfa.seqs_fit(n, m, shared_bytes)
            steps, visits = wfa.budget_steps(reach, n, m, mode, arrays, budget_ms, shared_bytes)
            assert sums.budget_steps(cap, budget_ms, seqs) == (steps, visits)
            for want in (visits, visits // 3, int(rng.integers(-100, 10**7))):
                assert sums.steps_for(cap, want) == wfa.steps_for(reach, n, m, mode, arrays, want)
            for last in (steps, max(1, steps // 2), cap + 1):
                assert sums.visits_upto(last) == wfa.visits_upto(reach, n, m, mode, arrays, last)
                assert sums.shared_steps(last, *wfa.ring_room(n, m, x, o, e, shared_bytes)) == wfa.shared_steps(
                    reach[:last], n, m, mode, x, o, e, shared_bytes)


def test_a_batch_does_not_lower_a_single_pairs_shared_memory(solver):
    """A single pair's launch (the shared memory's whole ~160 KiB), a batch's (less, above CUDA's
    48 KiB default), then the single pair again on the same solver: every launch within what its
    kernel was allowed (EmuKernel asserts it), every score the CPU WFA's."""
    seed = 2660
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    a = random_codes(36000, rng)
    pair = Pair("long", "a", "b", a, mutate(a, rng, 0.25))
    costs = Costs(0, 1, 3)
    want = cpu_wfa.wfa_align(pair.a, pair.b, costs, "global", False, 1 << 40).score
    assert solver.solve(pair, costs, False, "global", budget_ms=1e4).score == want
    assert [r.score for r in solver.solve_many([pair, pair], costs, False, "global")] == [want, want]
    assert solver.solve(pair, costs, False, "global", budget_ms=1e4).score == want


def test_a_launch_just_under_48_kib_raises_the_limit(solver):
    """An affine infix pair of 2,630 x 327 (seed 770419522's, which failed on the H100 with CUDA's
    invalid argument): its first launch takes 49,096 bytes of shared memory, under 48 KiB but not
    beside the kernel's static variables, so its limit must be raised (EmuKernel asserts it)."""
    seed = 770419522
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    from splicedalign.workloads.nw.gpu.solver import GpuSolver
    from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS, random_batch

    batches = [random_batch(rng, 2, 3000) for _ in range(len(MODES) + MODES.index("infix") + 1)]
    pair = batches[-1][0]
    assert (pair.n, pair.m) == (2630, 327)
    costs = ISSUE26_COSTS["affine"]
    solver.shared_bytes = 231_424  # (the H100's opt-in shared memory less 1 KiB, as WfaSolver reads it there)
    gpu = GpuSolver(poison=True)
    gpu.wfa = solver  # (its try_wfa, as `gpu` ran it: the sample's guess, the bands' time as the budget)
    want = ReferenceSolver().solve(pair, costs, traceback=False, mode="infix").score
    got = gpu.try_wfa(pair, costs, True, "infix", time.perf_counter())
    assert got is None or (got.score == want and cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2,
                                                             got.end2) == want)


def test_staged_pairs_taken_or_declined(solver, monkeypatch):
    """GpuSolver.try_wfa stages each pair (its letters uploaded and packed) before the sample and the
    choice: similar pairs then launch from the staged letters (BiWFA, score and alignment), unrelated
    ones are declined after their stage, and the next stage grows the workspace past a declined one's
    (waiting for its copy first): every answer the reference's, every CIGAR re-scored; the stage's device times
    (upload_ms, idle_ms) where the solver's timeline asks for them, else none."""
    from splicedalign.workloads.nw.gpu.solver import GpuSolver

    monkeypatch.setattr(wfa, "WORKSPACE_MIN", 256)
    seed = 2680
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    costs = Costs(0, 1, 3)
    gpu = GpuSolver(poison=True, use_segments=False)  # (the one-block WFA's stage and launch; segments: below)
    gpu.wfa = solver
    reference = ReferenceSolver()
    declined = 0
    for k, size in enumerate((2500, 4000, 5000, 6000)):
        a = random_codes(size, rng)
        b = random_codes(size, rng) if k % 2 else mutate(a, rng, 0.1)
        pair = Pair(f"p{k}", "a", "b", a, b)
        want = reference.solve(pair, costs, traceback=False, mode="global").score
        for traceback in (False, True):
            solver.timeline = traceback  # (the stage's events, upload_ms and idle_ms, where asked)
            got = gpu.try_wfa(pair, costs, traceback, "global", time.perf_counter())
            assert solver._workspace.size >= wfa.SINGLE_META + pair.n + pair.m
            if got is None:
                declined += 1
                assert k % 2, "a similar pair declined"
                continue
            assert got.score == want and solver.stats["bi"], (pair.name, traceback)
            if traceback:
                assert solver.stats["upload_ms"] >= 0 and solver.stats["idle_ms"] >= 0
            else:
                assert "upload_ms" not in solver.stats and "idle_ms" not in solver.stats
            if traceback:
                assert cigar_cost(got.cigar, pair.a, pair.b, costs) == want
    assert declined


def segments_gpu(solver, monkeypatch, seed):
    """A GpuSolver on the host build's WfaSolver (fewer threads a piece: a fiber a CUDA thread) and the seeded
    random generator of a segments test (the seed printed)."""
    from splicedalign.workloads.nw.gpu.solver import GpuSolver

    monkeypatch.setattr(wfa, "PIECE_THREADS", 64)
    monkeypatch.setattr(wfa, "MAX_THREADS", 128)
    monkeypatch.setattr(wfa, "SETTLE_THREADS", 64)
    print(f"seed {seed}")
    gpu = GpuSolver(poison=True)
    gpu.wfa = solver
    return gpu, np.random.default_rng(seed)


@pytest.mark.parametrize("letters_shared", (True, False))
@pytest.mark.parametrize("mode", ("global", "prefix"))
def test_segments_on_host(solver, mode, letters_shared, monkeypatch):
    """GpuSolver.try_wfa's segments (segments.py's rounds through WfaSolver.solve_pieces: the upload written by
    fill_pieces, the nw_wfa launches on the host build, the answers and runs back) on similar pairs of 9-13
    pieces: each score the sequential DP's, each CIGAR re-scored, the pieces' answer taken (merged seams included)
    or handed on to the one-block WFA, exact either way. With the letters in shared memory every round's blocks
    pack their own from the staged bytes (nw_wfa's BYTES variant, byte_sources' descriptors); without, a pack
    launch for the round's pieces goes before the sweep on packed words."""
    from splicedalign.workloads.nw import segments
    from splicedalign.workloads.nw.gpu.solver import SEGMENTS_MIN
    from splicedalign.workloads.nw.solvers import solve

    gpu, rng = segments_gpu(solver, monkeypatch, 2690 + segments.MODES.index(mode) + 2 * letters_shared)
    if not letters_shared:
        solver.shared_bytes = 0
    looked_up = []
    kernel_of = solver.kernel
    monkeypatch.setattr(solver, "kernel", lambda name: looked_up.append(name) or kernel_of(name))
    taken = merged = 0
    for k, costs in enumerate((Costs(0, 1, 3), Costs(0, 2, 1), Costs(0, 4, 2, 6))):  # (gap-affine: the gap start)
        a = random_codes(int(rng.integers(SEGMENTS_MIN, SEGMENTS_MIN + 1500)), rng)
        pair = Pair(f"s{k}", "a", "b", a, mutate(a, rng, 0.1 * (k + 1)))
        done = solve(pair, costs, "sequential", False, mode)
        want = done.score
        for traceback in (False, True):
            got = gpu.try_wfa(pair, costs, traceback, mode, time.perf_counter())
            assert got is not None and got.score == want, (pair.name, traceback, gpu.stats_segments)
            assert got.end2 == done.end2  # (prefix: the first tie, as the pieces' infix ends are)
            if traceback:
                assert cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2, got.end2) == want
            taken += got.algorithm == segments.ALGORITHM
            merged += gpu.stats_segments.merges if got.algorithm == segments.ALGORITHM else 0
    print("taken", taken, "merged", merged)
    assert taken >= 4
    staged = [name for name in looked_up if name.startswith("nw_wfa<") and name.endswith(", true>")]
    assert bool(staged) == letters_shared, sorted(set(looked_up))


@pytest.mark.parametrize("mode", ("global", "prefix"))
def test_segments_checked_on_the_device_on_host(solver, mode, monkeypatch):
    """try_segments' first round checked on the device (queue_round: nw_wfa_round's last block on the host build;
    queue_check's nw_pieces_settle where it is not taken) for ~1% pairs (speculated): certified there, nothing but
    its result back (pieces_back never called), the score, end column and CIGAR exact; and with the device's verdict
    forced to "not certified", segments.segmented goes on from the same round's answers (no second launch; the
    windows' columns from first_asks) to the same answer; a pair whose optimum starts with an insertion is certified
    by neither and answered by the one-block WFA."""
    from splicedalign.workloads.nw import segments
    from splicedalign.workloads.nw.gpu.solver import SEGMENTS_MIN
    from splicedalign.workloads.nw.solvers import solve

    gpu, rng = segments_gpu(solver, monkeypatch, 2696 + segments.MODES.index(mode))
    backs = []
    pieces_back = solver.pieces_back
    monkeypatch.setattr(solver, "pieces_back", lambda *args: backs.append(1) or pieces_back(*args))
    refuse = []
    lib = solver.kernel(wfa.SETTLE).lib

    def checking(name):  # (the check's kernel: nw_pieces_settle, its result last, or nw_wfa_round's last block)
        kernel = EmuKernel(lib, name)

        def check(grid, block, args, shared_mem=0):
            kernel(grid, block, args, shared_mem)
            if refuse:  # (nw_wfa_round's result by value, before its mirror: its address in a slot)
                result = args[-1] if name == wfa.SETTLE else slot_values(args[-2:-1])[0]
                ctypes.c_int64.from_address(_pointer(result).value).value = 0
        return check

    for name in [wfa.SETTLE] + [n for n in wfa.NAMES if n.startswith("nw_wfa_round")]:
        monkeypatch.setitem(solver._kernels, name, checking(name))
    checks = []
    checked_of = solver.checked
    monkeypatch.setattr(solver, "checked", lambda *args: checks.append(1) or checked_of(*args))
    checked = 0
    for k, costs in enumerate((Costs(0, 1, 3), Costs(0, 4, 2, 6))):
        a = random_codes(int(rng.integers(SEGMENTS_MIN, SEGMENTS_MIN + 1500)), rng)
        b = mutate(a, rng, 0.1)
        for name, pair in ((f"c{k}", Pair(f"c{k}", "a", "b", a, b)),
                           (f"i{k}", Pair(f"i{k}", "a", "b", a, np.concatenate([[(a[0] + 1) % 4] * 3, b])))):
            done = solve(pair, costs, "sequential", False, mode)
            for forced in (False, True):
                refuse[:] = [1] if forced else []
                for traceback in (False, True):
                    backs.clear()
                    checks.clear()
                    got = gpu.try_wfa(pair, costs, traceback, mode, time.perf_counter())
                    assert got is not None and (got.score, got.end2) == (done.score, done.end2), (name, forced)
                    if traceback:
                        assert cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2, got.end2) == done.score
                    trace = gpu.stats_segments
                    if name[0] == "i":  # (an insertion first: piece 0 starts past column 0)
                        assert got.algorithm != segments.ALGORITHM and trace.why, (name, trace)
                        continue
                    assert got.algorithm == segments.ALGORITHM, (name, forced, trace)
                    if checks:  # (speculated: the sample's cost a piece <= SPECULATE_COST)
                        assert trace.rounds == 1 and len(backs) == forced, (name, forced, traceback, trace)
                        checked += 1
    assert checked >= 4


@pytest.mark.parametrize("mode", ("global", "prefix"))
def test_guessed_first_round_on_host(solver, mode, monkeypatch):
    """try_wfa's guessed first round (GpuSolver.guess_round: queued on a band from n and m alone, before the
    sample): on ~1% pairs it is the round segments answer from (queued before the sample, checked once, no other
    round, never aborted); with the guess's band too narrow (GUESS_DIVERGENCE tiny) segments go on from that
    round and widen; where only the head is similar (the sample does not speculate) it is aborted, the abort's copy
    landing on that round's pool counter, and the sample's band answers; divergent pairs (their head) get none.
    The pair's letters are packed for the one-block WFA under the sample where no round is guessed, and not at all
    where the guessed round answers. Every guessed round is one launch (queue_round: its pieces made on the device).
    Every score and end the sequential DP's, every CIGAR re-scored."""
    import ctypes

    from splicedalign.workloads.nw import segments
    from splicedalign.workloads.nw.gpu import solver as gpu_solver
    from splicedalign.workloads.nw.gpu.solver import SEGMENTS_MIN
    from splicedalign.workloads.nw.solvers import solve

    gpu, rng = segments_gpu(solver, monkeypatch, 2710 + segments.MODES.index(mode))
    order = []

    def logger(name, inner):
        def logged(*args, _name=name, _inner=inner):
            got = _inner(*args)
            if _name != "queue_round" or got is not None:  # (queue_round: the round in one launch, else queue_check)
                order.append((_name, got if _name.startswith("queue_") else args[0]))
            if _name == "abort":  # (the round's pool counter as the abort left it: a later round uploads its own)
                order.append(("counter", ctypes.c_uint64.from_address(int(args[0].queued.pool_top)).value))
            return got
        return logged

    for name in ("queue_round", "queue_check", "checked", "abort"):
        monkeypatch.setattr(solver, name, logger(name, getattr(solver, name)))
    packs = []  # each pack launch's blocks (the stage's letters: 2; a round's pieces where not in shared memory)
    pack = solver.kernel(wfa.PACK)
    monkeypatch.setitem(solver._kernels, wfa.PACK,
                        lambda grid, block, args, shared_mem=0: packs.append(grid[0]) or pack(grid, block, args))
    sampled_score = wfa.sampled_score
    monkeypatch.setattr(wfa, "sampled_score", lambda *args: order.append(("sample", None)) or sampled_score(*args))
    seen = set()
    for k, costs in enumerate((Costs(0, 1, 3), Costs(0, 4, 2, 6))):
        a = random_codes(int(rng.integers(SEGMENTS_MIN, SEGMENTS_MIN + 1500)), rng)
        similar = mutate(a, rng, 0.06)
        head = np.concatenate([mutate(a[:gpu_solver.GUESS_HEAD + 100], rng, 0.06),
                               mutate(a[gpu_solver.GUESS_HEAD + 100:], rng, 1.0)])
        for kind, b in (("similar", similar), ("narrow", similar), ("head", head), ("divergent", mutate(a, rng, 1.0))):
            pair = Pair(f"{kind}{k}", "a", "b", a, b)
            monkeypatch.setattr(gpu_solver, "GUESS_DIVERGENCE", 1e-5 if kind == "narrow" else 0.015)
            monkeypatch.setattr(gpu_solver, "GUESS_HEAD_SLACK", 1e9 if kind == "narrow" else 2.0)
            done = solve(pair, costs, "sequential", False, mode)
            for traceback in (False, True):
                order.clear()
                packs.clear()
                got = gpu.try_wfa(pair, costs, traceback, mode, time.perf_counter())
                assert got is not None or kind in ("head", "divergent"), pair.name  # (the WFA may decline: to the band)
                assert got is None or (got.score, got.end2) == (done.score, done.end2), (pair.name, traceback)
                if got is not None and traceback:
                    assert cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2, got.end2) == done.score
                names = [name for name, _ in order]
                if kind == "divergent":  # (the letters packed under the sample, for the one-block WFA)
                    assert names[:1] == ["sample"] and "abort" not in names and "checked" not in names, names
                    assert packs[:1] == [2], packs
                    seen.add(kind)
                    continue
                assert names[:2] == ["queue_round", "sample"], (pair.name, names)
                guess = order[0][1]
                trace = gpu.stats_segments
                if kind == "head":
                    assert names[2] == "abort" and order[2][1] is guess and "checked" not in names, names
                    assert order[3] == ("counter", solver.abort_parts()[1][0])
                    assert trace.rounds >= 1, trace  # (the sample's band, not speculated)
                else:
                    assert names[2:] == ["checked"] and order[2][1] is guess, (pair.name, names)
                    if kind == "similar":  # (no pack launch: the round's blocks pack their own letters)
                        assert got.algorithm == segments.ALGORITHM and trace.rounds == 1, (pair.name, trace)
                        assert packs == [], packs
                        assert gpu.kernel_ms is None  # (its rounds' device time: only where a timeline asks)
                    else:  # (segments went on from the guess's round, then widened: certified or handed on)
                        assert trace.widened == 1 and trace.rounds >= 2, (pair.name, trace)
                seen.add(kind)
    assert seen == {"similar", "narrow", "head", "divergent"}


def test_a_spent_pool_counter_makes_every_piece_give_up(solver, monkeypatch):
    """WfaSolver.abort's mechanism on the host build: the round's pool counter set to abort's value before the
    sweep (as abort's copy lands) and every piece gives up (score -1), where the same round without it answers
    every piece."""
    import ctypes

    from splicedalign.workloads.nw import segments

    rng = np.random.default_rng(2714)
    print("seed 2714")
    monkeypatch.setattr(wfa, "PIECE_THREADS", 64)
    costs = Costs(0, 1, 3)
    a = random_codes(3000, rng)
    pair = Pair("spent", "a", "b", a, mutate(a, rng, 0.1))
    assert solver.stage(pair, costs)
    lo, hi, _ = bands.band_bound(costs, "global", pair.n, pair.m, 60)
    _, r0, r1, c0, c1 = segments.first_asks(pair.n, pair.m, lo, hi, segments.ROWS, True)
    name = wfa.SWEEP.format(affine="false", keep="true", shared="true", bytes="true")  # (its letters from the bytes)
    sweep = solver.kernel(name)
    for spent in (False, True):
        def launched(grid, block, args, shared_mem=0, _spent=spent):
            if _spent:  # (nw_wfa's pool_top: sweep_args' 17th)
                ctypes.c_uint64.from_address(int(args[16])).value = int(solver.abort_parts()[1][0])
            sweep(grid, block, args, shared_mem)
        monkeypatch.setitem(solver._kernels, name, launched)
        got = solver.solve_pieces(pair, costs, r0, r1, c0, c1, 40, 20, 64)
        assert (got.score < 0).all() if spent else (got.score >= 0).all(), (spent, got.score)


@pytest.mark.parametrize("shared_ring", (True, False))
def test_a_round_planned_on_the_device_equals_the_hosts(solver, shared_ring, monkeypatch):
    """WfaSolver.queue_round (nw_wfa_round on the host build: each block's piece from its index, the last block's
    check) against queue_check (the host's plan, fill_pieces and byte_sources, uploaded; nw_wfa's BYTES variant, then
    nw_pieces_settle) on the same first rounds of random pairs, every cost model that takes segments, both modes,
    random bands and caps: the same pieces' sources (first_asks' rows and windows), the same answers and runs, the same
    pool taken (each piece's chunk), the same check (certified or not, score, end, checks, final pieces); with the
    ring in global memory too. The round's check and its answers and runs come back with no copy from the device:
    its pieces and last block write them into pinned memory themselves (wfa.cu mirror_piece)."""
    from splicedalign.workloads.nw import segments
    from splicedalign.workloads.nw.gpu.solver import GpuSolver

    seed = 2733 + shared_ring
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    monkeypatch.setattr(wfa, "MAX_THREADS", 128)
    gpu = GpuSolver(poison=True)
    gpu.wfa = solver
    if not shared_ring:  # (room for the pieces' letters, not for their rings)
        solver.shared_bytes = 4096
    taken = certified = rings = 0
    runtime = solver.cp.cuda.runtime
    copies = []  # (each copy's kind)
    copy = runtime.memcpyAsync
    monkeypatch.setattr(runtime, "memcpyAsync", lambda *args: copies.append(args[3]) or copy(*args))
    for trial in range(24):
        costs = (Costs(0, 1, 3), Costs(0, 2, 1), Costs(0, 4, 2, 6), Costs(0, 3, 2, 5))[trial % 4]
        mode = ("global", "prefix")[trial // 4 % 2]
        a = random_codes(int(rng.integers(2 * segments.ROWS, 6 * segments.ROWS)), rng)
        b = mutate(a, rng, float(rng.choice([0.01, 0.03, 0.1])))
        pair = Pair(f"r{trial}", "a", "b", a, b)
        width = int(rng.integers(8, 120))
        lo, hi, bound = bands.band_bound(costs, mode, pair.n, pair.m, width)
        shape = segments.first_shape(pair.n, pair.m, lo, hi, segments.ROWS, True)
        g = cpu_wfa.reduced_costs(costs)[0]
        caps = gpu.round_caps(float(rng.uniform(0.005, 0.05)) * costs.mismatch, shape[2], shape[1], g)
        cuts, r0, r1, c0, c1 = segments.first_asks(pair.n, pair.m, lo, hi, segments.ROWS, True)
        answers = []
        for on_device in (False, True):
            assert solver.stage(pair, costs)
            copies.clear()
            queued = (solver.queue_round(pair, costs, mode, lo, hi, shape, *caps, bound, True) if on_device
                      else solver.queue_check(pair, costs, mode, cuts.size - 1, r0, r1, c0, c1, *caps, bound, True))
            assert queued is not None
            assert (runtime.memcpyDeviceToHost in copies) != on_device, (pair.name, on_device, copies)
            solver.one_stream()[0].synchronize()
            round_ = queued.queued
            at = _pointer(round_.table_from).value  # (the host's plan: a pointer into its upload)
            table = np.ctypeslib.as_array((ctypes.c_longlong * (2 * r0.size)).from_address(at)).reshape(-1, 2)
            assert (table[:, 0] == r0).all() and (table[:, 1] == pair.n + c0).all(), (pair.name, on_device)
            out = queued.got[:r0.size * batch.OUT].reshape(-1, batch.OUT)
            runs = queued.got[r0.size * batch.OUT:].reshape(r0.size, -1)
            taken_pool = ctypes.c_uint64.from_address(int(round_.pool_top)).value  # (the chunks the pieces took)
            answers.append((queued.checked.copy(), out.copy(), [runs[k, :max(0, out[k, 3])].copy()
                                                                  for k in range(r0.size)], taken_pool))
            solver.checked(queued)  # (the round's stats, its wait)
        (check_h, out_h, runs_h, pool_h), (check_d, out_d, runs_d, pool_d) = answers
        assert (out_h == out_d).all() and all((x == y).all() for x, y in zip(runs_h, runs_d)), pair.name
        assert pool_h == pool_d, (pair.name, pool_h, pool_d)  # (each piece's cap and chunk: the same descriptors)
        assert (check_h == check_d).all(), (pair.name, check_h[:4], check_d[:4])
        taken += 1
        certified += int(check_d[0])
        rings += "pieces-ring" in solver._workspace.arrays
    print("rounds", taken, "certified", certified, "rings in global memory", rings)
    assert bool(rings) != shared_ring
    assert 4 <= certified < taken


def guessed_round(solver, monkeypatch, seed):
    """A 1% pair of five pieces' rows and its guessed round's plan at band 40 (GpuSolver.queue_first's: band_bound,
    first_shape, round_caps) for ``solver`` on the host build: (costs, pair, lo, hi, bound, shape, caps)."""
    from splicedalign.workloads.nw import segments
    from splicedalign.workloads.nw.gpu.solver import GpuSolver

    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    monkeypatch.setattr(wfa, "MAX_THREADS", 128)
    gpu = GpuSolver(poison=True)
    gpu.wfa = solver
    costs = Costs(0, 1, 3)
    a = random_codes(5 * segments.ROWS, rng)
    pair = Pair(f"r{seed}", "a", "b", a, mutate(a, rng, 0.01))
    lo, hi, bound = bands.band_bound(costs, "global", pair.n, pair.m, 40)
    shape = segments.first_shape(pair.n, pair.m, lo, hi, segments.ROWS, True)
    return costs, pair, lo, hi, bound, shape, gpu.round_caps(0.02, shape[2], shape[1], 1)


def test_a_rounds_merged_pieces_run_first(solver, monkeypatch):
    """nw_wfa_round's blocks take the merged pieces first (the longest, so that they start in the first wave and the
    first pieces fill in behind them): on the host build, which runs blocks in turn, every merged piece takes its
    first room in the pool (bases: each piece's step 0) before any first piece does; the answers are still each
    piece's at its own index (test_a_round_planned_on_the_device_equals_the_hosts)."""
    costs, pair, lo, hi, bound, shape, caps = guessed_round(solver, monkeypatch, 2760)
    count, asked = shape[0], shape[1]
    max_steps, pool_steps, threads = caps
    assert solver.stage(pair, costs)
    queued = solver.queue_round(pair, costs, "global", lo, hi, shape, max_steps, pool_steps, threads, bound, False)
    assert queued is not None and asked > count
    solver.checked(queued)
    first_room = np.asarray(solver._workspace.arrays["pieces-bases"])[:asked * (max_steps + 1)].reshape(
        asked, max_steps + 1)[:, 0]
    assert first_room[count:].max() < first_room[:count].min(), first_room
    assert first_room[count] == 0


@pytest.mark.parametrize("timeline", (False, True))
def test_a_warm_round_is_one_event_and_one_driver_launch(solver, timeline, monkeypatch):
    """queue_round's host chain on a warm solver (the same pair's round again): the round's start event is also the
    mark abort waits for, so the round records one event (start; its stop too, two, where the solver's timeline
    asks for the round's device time: round_stats' device ms, else NaN); its one launch goes through
    device.launch (the driver's cuLaunchKernel with the solver's one ArgumentSlots: the same parameter array every
    round), none through a CuPy kernel call; no device array and no pinned buffer is made, the pinned buffers'
    addresses kept (WfaSolver.pinned_at; a regrown buffer's is its own); both rounds certify the reference's score
    (test_a_round_planned_on_the_device_equals_the_hosts checks every part of a round against the host's plan)."""
    from test_nw_gpu_batch_model import FakeEvent, fake_launch

    from splicedalign.workloads.nw import segments

    costs, pair, lo, hi, bound, shape, caps = guessed_round(solver, monkeypatch, 2761)
    records, launches, made = [], [], []
    record = FakeEvent.record
    monkeypatch.setattr(FakeEvent, "record", lambda self, stream=None: records.append(self) or record(self, stream))
    monkeypatch.setattr(device, "launch", lambda kernel, *args: launches.append(args[2].params) or fake_launch(
        kernel, *args))
    cp = solver.cp
    for name in ("empty", "zeros"):
        make = getattr(cp, name)
        monkeypatch.setattr(cp, name, lambda *args, _make=make: made.append(args) or _make(*args))
    pinned = device.empty_pinned
    monkeypatch.setattr(device, "empty_pinned", lambda *args: made.append(args) or pinned(*args))
    answers = []
    solver.timeline = timeline
    for warm in (False, True):
        assert solver.stage(pair, costs)
        records.clear()
        made.clear()
        queued = solver.queue_round(pair, costs, "global", lo, hi, shape, *caps, bound, True)
        assert queued is not None
        if warm:
            _, _, _, start, stop = solver.one_stream()
            assert records == ([start, stop] if timeline else [start]) and queued.queued.uploaded is start, records
            assert made == [], made
        solver.stats = {}
        got = solver.checked(queued)
        assert np.isnan(solver.stats["pieces"][0][3]) != timeline, solver.stats
        answers.append((got.score, got.end2) if isinstance(got, segments.Segmented) else None)
    assert len(launches) == 2 and launches[0] is launches[1]
    for role, grow in (("checked", solver.check_room), ("got", solver.piece_back)):  # (the addresses it passes)
        kept = solver.pinned_at(role)
        buffer = solver._piece_checked if role == "checked" else solver._piece_got
        assert kept == buffer.ctypes.data
        grow(2 * buffer.size)  # (a larger round's: a new buffer, its own address)
        regrown = solver._piece_checked if role == "checked" else solver._piece_got
        assert regrown is not buffer and solver.pinned_at(role) == regrown.ctypes.data, role
    assert answers[0] is not None and answers[0] == answers[1], answers
    want = ReferenceSolver().solve(pair, costs, False, "global").score
    assert answers[1][0] == want, (answers, want)


def test_a_stage_records_its_events_only_for_a_timeline(solver, monkeypatch):
    """WfaSolver.stage (every single pair's first step, on its path to the round's launch) queues its upload and no
    event; with ``timeline`` set it records the upload's start and end (one_stream's began and staged: the timeline's
    dev stage and dev idle), and pack_staged records staged again after its pack. A round planned on the host
    (solve_pieces) records the mark abort waits for, and its kernel's start and stop only with ``timeline`` (its
    device ms NaN without)."""
    from test_nw_gpu_batch_model import FakeEvent

    from splicedalign.workloads.nw import segments

    costs, pair, lo, hi, _, _, caps = guessed_round(solver, monkeypatch, 2762)
    _, r0, r1, c0, c1 = segments.first_asks(pair.n, pair.m, lo, hi, segments.ROWS, True)
    records = []
    record = FakeEvent.record
    monkeypatch.setattr(FakeEvent, "record", lambda self, stream=None: records.append(self) or record(self, stream))
    _, began, staged, start, stop = solver.one_stream()
    uploaded = solver.abort_parts()[2]
    for timeline, want, round_want in ((False, [], [uploaded]), (True, [began, staged, staged],
                                                                  [uploaded, start, stop])):
        solver.timeline = timeline
        records.clear()
        assert solver.stage(pair, costs)
        solver.pack_staged()
        assert records == want, (timeline, records)
        records.clear()
        solver.stats = {}
        got = solver.solve_pieces(pair, costs, r0, r1, c0, c1, *caps)
        assert records == round_want and (got.score >= 0).all(), (timeline, records)
        assert np.isnan(solver.stats["pieces"][0][3]) != timeline, solver.stats


def test_argument_slots_pass_each_launchs_values(monkeypatch):
    """device.ArgumentSlots (queue_round's arguments by value, device.launch's kernelParams): the same parameter
    array every launch, each entry the address of its own 8-byte slot holding that launch's value, an int32 (a
    negative one too) in its low 4 bytes as the driver reads it, a device address whole."""
    slots = device.ArgumentSlots(3)
    params = [slots.params[k] for k in range(3)]
    first = slots(-255, 1 << 40, 7)
    assert first is slots and [ctypes.c_int32.from_address(p).value for p in params] == [-255, 0, 7]
    assert [ctypes.c_int64.from_address(p).value for p in params] == [-255, 1 << 40, 7]
    again = slots(3, 0x7F00_1234_5678, -1)
    assert again is first and [again.params[k] for k in range(3)] == params and len(set(params)) == 3
    assert [ctypes.c_int32.from_address(p).value for p in params] == [3, 0x1234_5678, -1]
    assert [ctypes.c_int64.from_address(p).value for p in params] == [3, 0x7F00_1234_5678, -1]


def test_launch_hands_the_driver_its_slots(monkeypatch):
    """device.launch: the driver's cuLaunchKernel (CuPy's binding, faked) gets the RawKernel's driver function, a 1-D
    grid and block, the shared memory, the stream's handle and the slots' parameter array, whose entries hold this
    launch's values; no extra parameters."""
    from types import SimpleNamespace

    from test_nw_gpu_batch_model import fake_cupy

    cp = fake_cupy()
    monkeypatch.setattr(device, "cupy", lambda: cp)
    calls = []

    def launch_kernel(*args):
        params = ctypes.cast(args[9], ctypes.POINTER(ctypes.c_void_p))
        calls.append(args[:9] + ([ctypes.c_int64.from_address(params[k]).value for k in range(3)], args[10]))

    monkeypatch.setattr(cp.cuda, "driver", SimpleNamespace(launchKernel=launch_kernel), raising=False)
    slots = device.ArgumentSlots(3)
    kernel = SimpleNamespace(kernel=SimpleNamespace(ptr=0xF00))
    device.launch(kernel, 519, 512, slots(-2, 1 << 40, 9), 21_800, SimpleNamespace(ptr=0x5EA))
    assert calls == [(0xF00, 519, 1, 1, 512, 1, 1, 21_800, 0x5EA, [-2, 1 << 40, 9], 0)], calls


def host_check(cuts, n, m, got, count, affine, whole, bound, runs_each):
    """segments.segmented's first two checks on the host (Solved.add, settle; the second on the merged cuts where
    the first merges), for a round of ``got`` pieces (the first cuts', then every two neighbours as one): (score,
    end column, checks, each final piece's index in the round) where certified without another solve, else None."""
    from splicedalign.workloads.nw import segments as seg

    spec = got.score.size - count
    r0 = np.concatenate([cuts[:-1], cuts[:spec]])
    r1 = np.concatenate([cuts[1:], cuts[2:2 + spec]])
    solved = seg.Solved(n)
    if solved.add(r0, r1, got, affine, count):
        return None  # (a first piece gave up)
    verdict, total, out = seg.settle(cuts, solved.table, n, m, whole, bound)
    rounds = 1
    if verdict == seg.MERGE:
        verdict, total, out = seg.settle(out, solved.table, n, m, whole, bound)
        rounds = 2
    if verdict != seg.CERTIFIED:
        return None
    found = solved.table[out]
    return int(total), int(found[-1, seg.END]), rounds, (found[:, seg.FIRST] // runs_each).tolist()


@pytest.mark.parametrize("threads", [32, 7 * 32])
def test_pieces_settle_equals_the_host_check(emu, threads):
    """nw_pieces_settle (the device's check of a first round, WfaSolver.queue_check) on the host build against
    segments.py's own check (host_check: Solved.add and settle, as segmented runs them) on random rounds: pieces
    given up (first or speculative), seams agreeing or not (columns, gap-affine D runs at the ends), neighbouring
    seams disagreeing, ends off (first start, a leading D run, global end), sums about the escape bound, with and
    without the speculative pieces; rounds of fewer and of more pieces than threads, every verdict and both checks
    reached by each."""
    from splicedalign.workloads.nw import segments as seg

    rng = fresh_rng()
    kernel = EmuKernel(emu, wfa.SETTLE)
    reached = {(verdict, many): 0 for verdict in ("none", "1", "2") for many in (False, True)}
    for case in range(600):
        count = int(rng.integers(threads + 1, 3 * threads) if case % 4 == 0 else rng.integers(1, 14))
        spec = count - 1 if rng.random() < 0.8 else 0
        n, rows_each = 10 * count, 10
        cuts = np.arange(count + 1, dtype=np.int64) * rows_each
        columns = np.cumsum(np.concatenate([[0], rng.integers(5, 15, count)]))
        m = int(columns[-1]) if rng.random() < 0.9 else int(columns[-1]) + 1
        rare = min(1.0, float(rng.uniform(1, 10)) / count)  # (a few pieces off in a round of many, or none)
        slip = 0.15 * rare
        pieces = [(k, k + 1) for k in range(count)] + [(k, k + 2) for k in range(spec)]
        size = len(pieces)
        start = np.array([columns[i] + (rng.integers(-2, 3) if rng.random() < slip else 0) for i, _ in pieces])
        end = np.array([columns[j] + (rng.integers(-2, 3) if rng.random() < slip else 0) for _, j in pieces])
        steps = np.where(rng.random(size) < 0.03 * rare, -1, rng.integers(0, 6, size))
        g = int(rng.integers(1, 3))
        affine, whole = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
        runs_each = 6
        used = rng.integers(0, 4, size)
        runs = np.zeros(size * runs_each, np.uint32)
        for q in range(size):  # (ops drawn with D often, so that D runs meet at seams)
            ops = rng.choice([seg.OP_DEL, 0, 1, 3], int(used[q]), p=np.array([5 * rare, 3, 1, 1]) / (5 * rare + 5))
            runs[q * runs_each:q * runs_each + used[q]] = (rng.integers(1, 5, used[q]) << 2) | ops
        total = int(np.where(steps[:count] >= 0, steps[:count] * g, 0).sum())
        bound = bands.NO_ESCAPE if rng.random() < 0.3 else int(total + rng.integers(-3, 6))
        c0 = np.minimum(start, end) - rng.integers(0, 3, size)
        out = np.stack([steps, end - c0, start - c0, used], axis=1).astype(np.int32)
        table_from = np.stack([cuts[[i for i, _ in pieces]], n + c0], axis=1).reshape(-1).astype(np.int64)
        result = np.full(4 + count, -7, np.int64)
        kernel((1,), (threads,), (out, runs, np.int64(runs_each), table_from, np.int64(n), np.int32(count),
                                  np.int32(spec), np.int32(g), np.int32(affine), np.int32(whole), np.int32(m),
                                  np.int64(bound), result), shared_mem=8 * count)
        got = seg.Pieces(np.where(steps >= 0, steps * g, -1), start, end, runs, np.arange(size) * runs_each,
                         used.astype(np.int64))
        want = host_check(cuts, n, m, got, count, affine, whole, bound, runs_each)
        assert bool(result[0]) == (want is not None), (case, want, result[:4])
        if want is None:
            reached["none", count > threads] += 1
            continue
        final = result[4:][result[4:] >= 0].tolist()
        assert (int(result[1]), int(result[2]), int(result[3]), final) == want, case
        reached[str(want[2]), count > threads] += 1
    print(reached)
    assert min(reached.values()) >= 5


# hand-made rounds for nw_pieces_settle (cuts 10 rows apart, the pair's m 10 a piece): each piece's start and end
# columns, the first pieces' then the merges' (pieces k, k + 1 as one); scores 1, 2, .. and 10, 11, ..
JOINED = ((0, 10), (10, 20), (20, 30), (30, 40)), ((0, 20), (10, 30), (20, 40))  # certified on the first cuts
ONE_SEAM = ((0, 10), (11, 20), (20, 30), (30, 40)), ((0, 20), (11, 30), (20, 40))  # seam 0|1: its merge certifies
LAST_SEAM = ((0, 10), (10, 20), (20, 30), (31, 40)), ((0, 20), (10, 30), (20, 40))  # seam 2|3
TRIPLE = ((0, 10), (11, 20), (21, 30), (30, 40)), ((0, 20), (11, 30), (21, 40))  # seams 0|1, 1|2: 3 pieces as one
LAST_TRIPLE = ((0, 10), (11, 20), (21, 30)), ((0, 20), (11, 30))  # the same, the round's last three
# (name, round, changes {piece: (start, end, score, opens, closes), None: a field kept}, spec (None: all merges
# asked for), whole, the bound less the first cuts' sum, the verdict: 0 not certified, else the checks)
SETTLE_CASES = (
    ("joined", JOINED, {}, None, True, 0, 1),
    ("gave-up", JOINED, {2: (None, None, -1, 0, 0)}, None, True, 0, 0),
    ("merge-gave-up-unused", JOINED, {4: (None, None, -1, 0, 0)}, None, True, 0, 1),
    ("start", JOINED, {0: (1, None, None, 0, 0)}, None, True, 0, 0),
    ("opens", JOINED, {0: (None, None, None, 1, 0)}, None, True, 0, 0),
    ("end", JOINED, {3: (None, 39, None, 0, 0)}, None, True, 0, 0),
    ("end-prefix", JOINED, {3: (None, 39, None, 0, 0)}, None, False, 0, 1),
    ("bound", JOINED, {}, None, True, -1, 0),
    ("d-run-unpaid", JOINED, {2: (None, None, None, 1, 0)}, None, True, 100, 2),
    ("d-run-joined", JOINED, {1: (None, None, None, 0, 1), 2: (None, None, None, 1, 0)}, None, True, 0, 1),
    ("merge", ONE_SEAM, {}, None, True, 100, 2),
    ("merge-bound", ONE_SEAM, {}, None, True, 6, 0),
    ("merge-at-bound", ONE_SEAM, {}, None, True, 7, 2),
    ("merge-gave-up", ONE_SEAM, {4: (None, None, -1, 0, 0)}, None, True, 100, 0),
    ("merge-start", ONE_SEAM, {4: (1, None, None, 0, 0)}, None, True, 100, 0),
    ("merge-opens", ONE_SEAM, {4: (None, None, None, 1, 0)}, None, True, 100, 0),
    ("merge-seam", ONE_SEAM, {4: (None, 19, None, 0, 0)}, None, True, 100, 0),
    ("merge-d-run", ONE_SEAM, {2: (None, None, None, 1, 0)}, None, True, 100, 0),
    ("last-merge", LAST_SEAM, {}, None, True, 100, 2),
    ("last-merge-end", LAST_SEAM, {6: (None, 39, None, 0, 0)}, None, True, 100, 0),
    ("last-merge-prefix", LAST_SEAM, {6: (None, 39, None, 0, 0)}, None, False, 100, 2),
    ("no-merges", ONE_SEAM, {}, 0, True, 100, 0),
    ("triple", TRIPLE, {}, None, True, 100, 0),
    ("last-triple", LAST_TRIPLE, {}, None, True, 100, 0),
)


@pytest.mark.parametrize("name, pieces, changes, spec, whole, over, verdict", SETTLE_CASES,
                         ids=[c[0] for c in SETTLE_CASES])
def test_pieces_settle_clauses(emu, name, pieces, changes, spec, whole, over, verdict):
    """nw_pieces_settle on hand-made rounds, one clause of segments.settle each (both checks: a piece given up, the
    ends, the sum against the bound, the seams' columns and D runs, the merged cuts), against host_check and the
    verdict expected; gap-affine (each piece's path a run ending and one starting it, M or D); one warp (the
    kernel's threads are whole warps: its sums go through warp shuffles; test_pieces_settle_equals_the_host_check
    has rounds of more pieces than threads). Beside the round's arrays a piece that would certify what the host
    does not, wrongly (a sum without a piece), if the kernel read past the round: before them, joining the first
    two pieces' merge (three first pieces as one: no piece solved for it; a kernel without that check reads piece
    -1), after them the merges where none are asked for (``spec`` 0)."""
    from splicedalign.workloads.nw import segments as seg
    from splicedalign.workloads.nw.records import OP_DEL, OP_MATCH

    first, merges = pieces
    count, runs_each, n_pair = len(first), 2, 1000
    spec = count - 1 if spec is None else spec
    rows = [(20, 30, 0, 0, 0)]  # (the guard before the round: joins the merge of first pieces 0 and 1)
    rows += [(s, e, k + 1, 0, 0) for k, (s, e) in enumerate(first)] + [(s, e, 10 + k, 0, 0)
                                                                        for k, (s, e) in enumerate(merges)]
    for q, change in changes.items():
        rows[1 + q] = tuple(old if new is None else new for old, new in zip(rows[1 + q], change))
    size = len(rows) - 1
    out = np.zeros((size + 1, batch.OUT), np.int32)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = [r[2] for r in rows], [r[1] for r in rows], [r[0] for r in rows], 2
    table_from = np.zeros(2 * (size + 1), np.int64)
    table_from[1::2] = n_pair  # (each window from column 0: start and end are the pair's columns)
    runs = np.array([[(1 << 2) | (OP_DEL if r[4] else OP_MATCH), (1 << 2) | (OP_DEL if r[3] else OP_MATCH)]
                     for r in rows], np.uint32).reshape(-1)  # (last run first)
    bound = sum(max(0, r[2]) for r in rows[1:1 + count]) + over  # (the first cuts' pieces that did not give up)
    result = np.full(4 + count, -7, np.int64)
    EmuKernel(emu, wfa.SETTLE)((1,), (32,), (out[1:], runs[runs_each:], np.int64(runs_each), table_from[2:],
                                             np.int64(n_pair), np.int32(count), np.int32(spec), np.int32(1),
                                             np.int32(1), np.int32(whole), np.int32(10 * count), np.int64(bound),
                                             result), shared_mem=8 * count)
    asked = rows[1:1 + count + spec]
    got = seg.Pieces(np.array([r[2] for r in asked], np.int64), np.array([r[0] for r in asked]),
                     np.array([r[1] for r in asked]), runs[runs_each:][:len(asked) * runs_each],
                     np.arange(len(asked)) * runs_each, np.full(len(asked), 2, np.int64))
    cuts = np.arange(count + 1, dtype=np.int64) * 10
    want = host_check(cuts, 10 * count, 10 * count, got, count, True, whole, bound, runs_each)
    assert (0 if want is None else want[2]) == verdict, (name, want)  # (the case is what it says)
    assert result[0] == (want is not None), (name, result[:4])
    if want is not None:
        final = result[4:][result[4:] >= 0].tolist()
        assert (int(result[1]), int(result[2]), int(result[3]), final) == want, name


def test_segments_pool_within_the_budget(solver, monkeypatch):
    """solve_pieces' pool of kept wavefronts is cut to the memory budget: with room for almost nothing the
    pieces give up (-1), nothing raises, and the solve goes on to the one-block WFA, exact."""
    from splicedalign.workloads.nw import segments
    from splicedalign.workloads.nw.gpu.solver import SEGMENTS_MIN

    gpu, rng = segments_gpu(solver, monkeypatch, 2695)
    a = random_codes(SEGMENTS_MIN + 500, rng)
    pair, costs = Pair("b", "a", "b", a, mutate(a, rng, 0.2)), Costs(0, 1, 3)
    monkeypatch.setattr(device, "memory_budget", lambda cap=None: 2 * 4 * ((1 << 20) + 64))  # (64 ints of pool)
    got = gpu.try_wfa(pair, costs, True, "global", time.perf_counter())
    assert gpu.stats_segments is not None and gpu.stats_segments.why == "a piece gave up"
    want = ReferenceSolver().solve(pair, costs, False, "global").score
    assert got is not None and got.algorithm != segments.ALGORITHM and got.score == want
    assert cigar_cost(got.cigar, pair.a, pair.b, costs) == want


@pytest.mark.parametrize("walk_steps", [wfa.WALK_STEPS, 6, 2])
@pytest.mark.parametrize("costs", (Costs(0, 1, 3), Costs(0, 2, 1), Costs(0, 3, 5), Costs(0, 1, 1)),
                         ids=["c013", "c021", "c035", "c011"])
def test_biwfa_single_pairs(solver, costs, walk_steps, monkeypatch):
    """nw_biwfa (``launch_one(bi=True)``): the forward and reverse wavefronts at once, the
    breakpoint between them, both halves walked back from it: every score the reference's
    (similar, unrelated, tiny, lengths far apart, wildcards), every CIGAR re-scored; ``solve``
    takes it for linear global pairs. The walkers' windows of WALK_STEPS steps, of 6 (a new window
    every few operations) and of 2 (too short for an operation: the table instead)."""
    monkeypatch.setattr(wfa, "WALK_STEPS", walk_steps)
    seed = 2670 + int(costs.mismatch) * 10 + int(costs.indel)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    pairs = _pairs(rng, 30, 300)
    pairs += [Pair("one", "a", "b", np.array([1], np.uint8), np.array([2], np.uint8)),
              Pair("same", "a", "b", pairs[0].a, pairs[0].a.copy()),
              Pair("short a", "a", "b", pairs[1].a[:3], pairs[1].a)]
    _, x, o, e = cpu_wfa.reduced_costs(costs)
    reach = wfa.reach_table(x, o, e, 3000)
    for pair in pairs:
        want = reference.solve(pair, costs, traceback=False, mode="global").score
        for traceback in (False, True):
            visits = 2 * wfa.visits_upto(reach, pair.n, pair.m, "global", 1, 1500)
            got = solver.launch_one(pair, costs, traceback, "global", 1499, visits, 64, bi=True)
            assert solver.stats["bi"] and got.score[0] == want, (pair.name, costs, traceback)
            if traceback:
                assert cigar_cost(got.cigar(0), pair.a, pair.b, costs) == want, (pair.name, got.cigar(0))
        answer = solver.solve(pair, costs, True, "global", budget_ms=1e4)
        assert answer.score == want and cigar_cost(answer.cigar, pair.a, pair.b, costs) == want
        assert solver.stats["bi"] == (min(pair.n, pair.m) > 0)


@pytest.mark.parametrize("threads", [128, 192])
def test_biwfa_several_warps_a_half(solver, threads):
    """nw_biwfa with 2 and 3 warps a direction on wavefronts wider than a half (each warp's diagonals
    again a half further on), narrower (warps with no diagonal go straight to the barrier) and the
    breakpoint check's own loop over step t - 1's diagonals: every score the reference's, every CIGAR
    re-scored."""
    seed = 2770 + threads
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    for costs in (Costs(0, 1, 3), Costs(0, 3, 5)):
        _, x, o, e = cpu_wfa.reduced_costs(costs)
        reach = wfa.reach_table(x, o, e, 6000)
        for pair in _pairs(rng, 10, 700):
            want = reference.solve(pair, costs, traceback=False, mode="global").score
            visits = 2 * wfa.visits_upto(reach, pair.n, pair.m, "global", 1, 3000)
            got = solver.launch_one(pair, costs, True, "global", 2999, visits, threads, bi=True)
            assert got.score[0] == want, (pair.name, costs, threads)
            assert cigar_cost(got.cigar(0), pair.a, pair.b, costs) == want, (pair.name, got.cigar(0))


def test_biwfa_steps_is_the_most_that_fit():
    """biwfa_steps (its two terms solved for their limits): the count of leading steps whose rings,
    letters and walk table fit (biwfa_smem), as a pass over every step says, for tables cut
    anywhere, on the issue's pairs and random ones (lengths far apart: a reach past the shorter)."""
    seed = 2690
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    cases = [(100_000, 99_989, 1, 3, 231_424), (30_368, 30_368, 1, 3, 231_424), (5_000, 7_000, 3, 5, 50_000),
             (10**6, 10**6, 1, 3, 231_424), (100, 90, 1, 1, 0), (100_000, 99_989, 1, 3, 150_000)]
    cases += [(int(rng.integers(1, 3000)), int(rng.integers(1, 3000)), int(rng.integers(1, 6)),
               int(rng.integers(1, 6)), int(rng.integers(0, 60_000))) for _ in range(40)]
    for n, m, x, e, room in cases:
        top = np.maximum.accumulate(wfa.reach_table(x, 0, e, 30_000).astype(np.int64))
        for size in (0, 1, 2_700, top.size):
            want = sum(1 for s in range(size) if wfa.biwfa_smem(
                wfa.biwfa_ring(x, e), min(int(top[s]), n) + min(int(top[s]), m) + 1, n, m, s) <= room)
            assert wfa.biwfa_steps(top[:size], n, m, x, e, room) == want, (n, m, x, e, room, size)


def test_solver_estimate_is_the_cost_models(solver):
    """WfaSolver.estimate_ms (a ReachSums lookup where the sums cover the pair) equals the module's
    estimate_ms (numpy passes) for every mode, cost model and score, infinite past the bound."""
    seed = 2680
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    for costs in (Costs(0, 1, 3), Costs(0, 4, 2, 6), Costs(0, 5, 3, 1)):
        for _ in range(30):
            n, m = (int(v) for v in rng.integers(1, 200_000, 2))
            pair = Pair("p", "a", "b", np.zeros(n, np.uint8), np.zeros(m, np.uint8))
            mode = MODES[int(rng.integers(0, 3))]
            score = float(rng.uniform(0, 3 * wfa.score_bound(costs, n, m) ** 0.5 + 10))
            want = wfa.estimate_ms(pair, costs, mode, score, solver.shared_bytes)
            assert solver.estimate_ms(pair, costs, mode, score) == pytest.approx(want, rel=1e-9), (n, m, mode, score)
        assert solver.estimate_ms(pair, costs, "global", float("inf")) == float("inf")


def test_reduced_costs_divide_by_the_largest_common_factor():
    """reduced_costs (Costs.reduced, made once a Costs) is (g, x / g, o / g, e / g) for the largest g dividing the
    mismatch, gap-open and gap-extend costs (found by trying each), on random costs, asked twice, and a replaced
    Costs its own (not its source's)."""
    import dataclasses

    seed = 2812
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    for _ in range(300):
        x, e = (int(v) * int(rng.choice([1, 2, 3, 6])) for v in rng.integers(1, 13, 2))
        o = int(rng.integers(0, 13)) * int(rng.choice([1, 2, 3, 6])) if rng.random() < 0.7 else 0
        costs = Costs(0, x, e, o)
        g = max(d for d in range(1, max(x, o, e) + 1) if x % d == 0 and o % d == 0 and e % d == 0)
        assert cpu_wfa.reduced_costs(costs) == (g, x // g, o // g, e // g), (x, o, e)
        assert cpu_wfa.reduced_costs(costs) == (g, x // g, o // g, e // g)
        other = dataclasses.replace(costs, indel=e + 1)
        g = max(d for d in range(1, max(x, o, e + 1) + 1) if x % d == 0 and o % d == 0 and (e + 1) % d == 0)
        assert cpu_wfa.reduced_costs(other) == (g, x // g, o // g, (e + 1) // g), (x, o, e + 1)


def test_end_score_is_the_prefix_modes_optimum():
    """end_score (the sample's and the guessed round's head check: wfa.prefix_score, a compiled entry of its own) is
    the reference's prefix-mode score of a against b, on random pairs of every cost model (b longer, shorter, empty
    a's share of it, unrelated); inf once past its work (the CPU WFA's own call in prefix mode then gives up too)."""
    seed = 2811
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    for costs in (Costs(0, 1, 1), Costs(0, 4, 2, 6), Costs(0, 2, 4), Costs(0, 3, 1, 1)):
        for _ in range(60):
            a = random_codes(int(rng.integers(1, 90)), rng)
            b = (mutate(a, rng, float(rng.uniform(0, 1))) if rng.random() < 0.8
                 else random_codes(int(rng.integers(1, 90)), rng))
            b = np.concatenate([b, random_codes(int(rng.integers(0, 20)), rng)])
            want = reference.solve(Pair("p", "a", "b", a, b), costs, False, "prefix").score
            assert wfa.end_score(a, b, costs, 1 << 20) == want, (costs, a.tolist(), b.tolist())
            assert wfa.end_score(a[::-1], b[::-1], costs, 1 << 20) == reference.solve(
                Pair("p", "a", "b", a[::-1].copy(), b[::-1].copy()), costs, False, "prefix").score
    a, b = random_codes(3000, rng), random_codes(3000, rng)
    costs = Costs(0, 1, 1)
    assert cpu_wfa.wfa_align(a, b, costs, "prefix", False, 200) is None
    assert wfa.end_score(a, b, costs, 200) == float("inf")
    assert wfa.end_score(a, b, costs, 1 << 30) == cpu_wfa.wfa_align(a, b, costs, "prefix", False, 1 << 30).score


def test_a_batchs_samples_at_once_equal_each_pairs():
    """sampled_scores (the CPU WFAs of the samples at once on numba's threads; a PairBatch's from
    the codes of its pairs' ends alone) is sampled_score of each pair, whether a PairBatch's
    buffer is filled or not: pairs shorter and longer than the sample's window, a's longer and
    shorter than b's, an unrelated pair past the sample's work (inf), every cost model."""
    from splicedalign.workloads.nw.batches import PairBatch
    from splicedalign.workloads.nw.peers import A_LETTERS, B_LETTERS, letters

    seed = 2741
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    pairs = []
    for n, scale in ((1100, 0.5), (1500, 0.5), (5000, 1.0), (40_000, 0.5), (300_000, 0.0)):
        a = random_codes(n, rng)
        pairs.append(Pair("p", "a", "b", a, mutate(a, rng, scale) if scale else random_codes(n // 2, rng)))
    seqs1, seqs2 = [letters(p.a, A_LETTERS) for p in pairs], [letters(p.b, B_LETTERS) for p in pairs]
    for costs in (Costs(0, 1, 1), Costs(0, 4, 2, 6), Costs(0, 2, 4)):
        want = [wfa.sampled_score(p, costs) for p in pairs]
        assert np.isinf(want[-1]) and np.isfinite(want[:-1]).all()
        assert wfa.sampled_scores(pairs, [4, 0, 2], costs).tolist() == [want[4], want[0], want[2]]
        for fill in (False, True):
            batch = PairBatch.from_strings(seqs1, seqs2)
            if fill:
                batch.filled(len(batch))
            assert wfa.sampled_scores(batch, list(range(len(pairs))), costs).tolist() == want
