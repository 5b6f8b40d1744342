"""The `gpu` solver on a shared GPU: launches sized from the device memory a call finds free
(faked here: the NumPy model kernels stand in for the GPU), an optional cap (--gpu-memory), and
one line (exit 3) when a single case cannot fit."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import fresh_rng
from helpers import random_spliced_case as random_case
from test_spliced_gpu_plan import _fake_function, fake_gpu

from splicedalign.core.errors import GpuMemoryError
from splicedalign.gpu import device
from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu import solver as solver_module
from splicedalign.workloads.spliced.gpu.flat import FlatCases
from splicedalign.workloads.spliced.gpu.solver import IN_FLIGHT, GpuSolver
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced.synthetic import tiny_set

pytestmark = pytest.mark.usefixtures("gpu_host_code")  # conftest: the warm-up's planning code


def free_memory(monkeypatch, free: int) -> None:
    """The fake device has ``free`` bytes free (memory_budget's cudaMemGetInfo), capped as the
    real one is."""
    monkeypatch.setattr(device, "memory_budget", lambda cap=None: free if cap is None else min(free, cap))


def cases_and_sizes(seed: int = 3):
    rng = np.random.default_rng(seed)
    print("seed", seed)
    cases = [random_case(rng, f"m{i}") for i in range(12)] + tiny_set(bases=2)
    return cases, launch.case_bytes(FlatCases.of(cases), 2, 4, record=False, gather=False)


def test_memory_split():
    """Launches in flight share what is free; a case too large for its share runs alone."""
    use = launch.MEMORY_USE
    assert launch.memory_split(10, 100, 2) == (int(100 * use) // 2, 2)
    assert launch.memory_split(60, 100, 2) == (int(100 * use), 1)


def test_launches_fit_the_free_memory(monkeypatch):
    """Little memory free: more, smaller launches, each within its share; the same answers."""
    fake_gpu(monkeypatch, _fake_function)
    cases, sizes = cases_and_sizes()
    want = [r.score for r in get_solver("sequential").solve_many(cases, Scoring(), traceback=False)]
    free = int(sizes.max()) * 2 * IN_FLIGHT
    share = int(free * launch.MEMORY_USE) // IN_FLIGHT
    free_memory(monkeypatch, free)
    solver = GpuSolver(rows_per_lane=2, device_trace=False)
    launched = []
    real = GpuSolver._launch

    def launch_(self, work, flat, scoring, traceback, *more, **named):
        launched.append(int(launch.case_bytes(flat, 2, 4, False, False).sum()))
        return real(self, work, flat, scoring, traceback, *more, **named)

    monkeypatch.setattr(GpuSolver, "_launch", launch_)
    assert [r.score for r in solver.solve_many(cases, Scoring(), traceback=False)] == want
    assert len(launched) > 1 and max(launched) <= share
    # plenty free, a cap (--gpu-memory) as small: the same launches
    free_memory(monkeypatch, 1 << 40)
    launched.clear()
    capped = GpuSolver(rows_per_lane=2, device_trace=False, memory_cap=free)
    assert [r.score for r in capped.solve_many(cases, Scoring(), traceback=False)] == want
    assert len(launched) > 1 and max(launched) <= share
    # a case too large to share: it runs alone, one launch in flight
    launched.clear()
    free_memory(monkeypatch, int(sizes.max()) * 3 // 2)
    assert [r.score for r in GpuSolver(rows_per_lane=2, device_trace=False).solve_many(
        cases, Scoring(), traceback=False)] == want
    assert max(launched) <= int(sizes.max()) * 3 // 2 * launch.MEMORY_USE


def test_small_launches_queue_while_they_fit(monkeypatch):
    """A call of growing launches (Tuning.first_launch_share, launch_growth) queues each launch
    beside the ones before while they fit the call's room (launch.queued_at_most), collecting the
    oldest first otherwise; the same answers as one launch."""
    fake_gpu(monkeypatch, _fake_function)
    cases, sizes = cases_and_sizes()
    cases = cases * 3
    want = [r.score for r in get_solver("sequential").solve_many(cases, Scoring(), traceback=False)]
    free = int(sizes.sum()) * 2  # ~0.9 of all three copies' launches at once: the room binds once
    free_memory(monkeypatch, free)
    tuning = launch.Tuning(first_launch_share=0.2, launch_growth=1.5, throughput_cases=2)
    solver = GpuSolver(rows_per_lane=2, device_trace=False, tuning=tuning)
    held: dict[int, int] = {}
    most = [0]
    real_launch, real_collect = GpuSolver._launch, GpuSolver._collect

    def launch_(self, work, flat, scoring, traceback, *more, **named):
        job = real_launch(self, work, flat, scoring, traceback, *more, **named)
        held[id(job)] = int(launch.case_bytes(flat, 2, 4, False, False).sum())
        most[0] = max(most[0], sum(held.values()))
        return job

    def collect_(self, job, part=0):
        held.pop(id(job), None)
        return real_collect(self, job, part)

    monkeypatch.setattr(GpuSolver, "_launch", launch_)
    monkeypatch.setattr(GpuSolver, "_collect", collect_)
    assert [r.score for r in solver.solve_many(cases, Scoring(), traceback=False)] == want
    split = solver._works[Scoring(), False][1]
    assert len(split.launches) > 3 and split.sizes[0] < split.sizes[1]
    assert most[0] <= split.room and split.needs == launch.queued_at_most(split.sizes, split.room)
    assert sum(split.sizes) > split.room  # the room bound: some launch waited for an older one


def test_a_case_that_cannot_fit_is_one_line(monkeypatch, tmp_path, capsys):
    """A case larger than all the memory free: GpuMemoryError naming it, what it needs and what
    is free, on one line; the CLI exits 3 with that line, no traceback."""
    fake_gpu(monkeypatch, _fake_function)
    cases, sizes = cases_and_sizes()
    free_memory(monkeypatch, int(sizes.max()) - 1)
    with pytest.raises(GpuMemoryError) as info:
        GpuSolver(rows_per_lane=2).solve_many(cases, Scoring(), traceback=False)
    message = str(info.value)
    assert "\n" not in message and cases[int(np.argmax(sizes))].name in message and "GiB" in message
    from splicedalign.cli import main
    from splicedalign.workloads.spliced.datasets import write_synthetic

    manifest = write_synthetic("tiny", tmp_path / "tiny")
    free_memory(monkeypatch, 1 << 40)
    code = main(["align", "--manifest", str(manifest), "--solver", "gpu", "--score-only", "--gpu-memory", "1K", "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    # (the loader's warnings may come first)
    assert code == 3 and "GPU memory" in err[-1] and "tiny" in err[-1] and not any("Traceback" in e for e in err)


def test_the_pipeline_cap_reaches_every_solver(monkeypatch):
    """config gpu_memory: the pipeline sets device.MEMORY_CAP_ENV, and memory_budget keeps
    within it when a caller gives no cap of its own (a cap given wins)."""
    from types import SimpleNamespace

    pool = SimpleNamespace(total_bytes=lambda: 0, used_bytes=lambda: 0)
    cupy = SimpleNamespace(cuda=SimpleNamespace(runtime=SimpleNamespace(memGetInfo=lambda: (40 << 30, 80 << 30))),
                           get_default_memory_pool=lambda: pool)
    monkeypatch.setattr(device, "cupy", lambda: cupy)
    monkeypatch.delenv(device.MEMORY_CAP_ENV, raising=False)
    assert device.memory_budget() == (40 << 30) - device.MEMORY_HEADROOM
    monkeypatch.setenv(device.MEMORY_CAP_ENV, "12G")
    assert device.memory_budget() == 12 << 30 and device.memory_budget(1 << 30) == 1 << 30


def test_a_call_split_as_it_goes_launches_as_the_whole_split(monkeypatch):
    """A call without traceback on never-seen cases is split chunk by chunk (GpuSolver._streamed)
    and its first launch queued before its last chunk is split: the launches are those that
    plan_launches makes of the whole call, the answers the sequential solver's; a call that
    fits one launch may be fed; a replay splits nothing; every chunk split and every launch
    planned on the caller's thread."""
    import threading

    from splicedalign.workloads.spliced.gpu import solver as gpu_solver

    fake_gpu(monkeypatch, _fake_function)
    monkeypatch.setattr(gpu_solver, "SPLIT_FIRST", 5)
    monkeypatch.setattr(gpu_solver, "SPLIT_LEAST", 3)
    monkeypatch.setattr(launch.Cutter, "estimate", lambda self: 4)  # chunks of 4 or 5 cases
    cases, sizes = cases_and_sizes(5)
    cases = cases * 3
    want = [r.score for r in get_solver("sequential").solve_many(cases, Scoring(), traceback=False)]
    steps: list = []
    real_chunk, real_launch = GpuSolver._split_chunk, GpuSolver._launch

    def chunk_(self, cases, a, b):
        steps.append(("chunk", b - a, threading.current_thread().name))
        return real_chunk(self, cases, a, b)

    real_work = GpuSolver._launch_work

    def work_(ctype, sel, cases):
        steps.append(("made",))
        return real_work(ctype, sel, cases)

    def launch_(self, work, flat, scoring, traceback, feed=True, **named):
        steps.append(("launch", len(work.sel), feed))
        return real_launch(self, work, flat, scoring, traceback, feed, **named)

    real_plan = solver_module.build_plan

    def plan_(flat, *a):
        steps.append(("plan", len(flat), threading.current_thread() is threading.main_thread()))
        return real_plan(flat, *a)

    monkeypatch.setattr(GpuSolver, "_split_chunk", chunk_)
    monkeypatch.setattr(GpuSolver, "_launch", launch_)
    monkeypatch.setattr(GpuSolver, "_launch_work", staticmethod(work_))
    monkeypatch.setattr(solver_module, "build_plan", plan_)
    tuning = launch.Tuning(first_launch_share=1.0)
    for free in (int(sizes.sum()) * 2, 1 << 40):
        free_memory(monkeypatch, free)
        steps.clear()
        solver = GpuSolver(rows_per_lane=2, device_trace=False, tuning=tuning)
        assert [r.score for r in solver.solve_many(cases, Scoring(), traceback=False)] == want
        split = solver._works[Scoring(), False][1]
        whole = launch.plan_launches(FlatCases.of(cases), Scoring(), False, free, solver.on_device, solver.tuning,
                                     2)[:3]
        assert [("int", w.sel) for w in split.launches] == whole[1] and split.sizes == whole[2]
        assert split.room == whole[0]
        chunks = [i for i, s in enumerate(steps) if s[0] == "chunk"]
        launched = [s for s in steps if s[0] == "launch"]
        assert len(chunks) > 2 and sum(steps[i][1] for i in chunks) == len(cases)
        assert {steps[i][2] for i in chunks} == {threading.main_thread().name}
        assert [s[1] for s in launched] == [len(w.sel) for w in split.launches]
        planned = [s for s in steps if s[0] == "plan"]
        assert all(s[2] for s in planned)  # on the caller's thread
        if len(launched) > 1:
            assert not any(s[2] for s in launched) and [s[1] for s in planned] == [s[1] for s in launched]
            # a chunk split after the first launch was made and queued
            assert steps.index(("made",)) < chunks[-1] and steps.index(launched[0]) < chunks[-1]
        else:  # one launch: may be fed (this one is too small: chain-bound)
            assert launched[0][2]
        for w, sub in zip(split.launches, split.flats):
            assert sub.cases == tuple(w.batch) and all(map(lambda a, b: a is b, sub.cases, w.batch))
        steps.clear()
        assert [r.score for r in solver.solve_many(cases, Scoring(), traceback=False)] == want
        assert not [s for s in steps if s[0] == "chunk"]  # a replay: the split remembered


def test_an_error_of_the_split_as_it_goes_comes_after_the_launches_made_before_it(monkeypatch):
    """A call split as it goes (GpuSolver._streamed): an error of the split (here its third
    chunk's) is raised once the launches made before it were queued."""
    from splicedalign.workloads.spliced.gpu import solver as gpu_solver

    fake_gpu(monkeypatch, _fake_function)
    monkeypatch.setattr(gpu_solver, "SPLIT_FIRST", 5)
    monkeypatch.setattr(gpu_solver, "SPLIT_LEAST", 3)
    monkeypatch.setattr(launch.Cutter, "estimate", lambda self: 4)  # chunks of 4 or 5 cases
    cases, sizes = cases_and_sizes(5)
    free_memory(monkeypatch, int(sizes.sum()) * 2)
    chunks: list = []
    real_chunk = GpuSolver._split_chunk

    def chunk_(self, cases, a, b):
        chunks.append(b - a)
        if len(chunks) == 3:
            raise RuntimeError("the third chunk")
        return real_chunk(self, cases, a, b)

    launched: list = []
    real_launch = GpuSolver._launch
    monkeypatch.setattr(GpuSolver, "_split_chunk", chunk_)
    monkeypatch.setattr(GpuSolver, "_launch", lambda self, work, *a, **k: (launched.append(len(work.sel)), real_launch(
        self, work, *a, **k))[1])
    solver = GpuSolver(rows_per_lane=2, device_trace=False, tuning=launch.Tuning(first_launch_share=1.0))
    with pytest.raises(RuntimeError, match="^the third chunk$"):
        solver.solve_many(cases * 3, Scoring(), traceback=False)
    assert len(chunks) == 3 and launched  # the launches made before the error, queued


def test_a_later_launch_that_fails_waits_for_the_queued_ones(monkeypatch):
    """A call of several launches whose later launch fails (here a bad letter found while it is
    planned): the one-line error, once the kernels already queued are done (their storage is
    then free), with the split as it goes."""
    from splicedalign.core.alphabet import LetterError
    from splicedalign.workloads.spliced.records import Exon, TestCase

    fake_gpu(monkeypatch, _fake_function)
    cases, sizes = cases_and_sizes(7)
    bad = TestCase("bad5", "ACGTACGT", "AC5T", (Exon(1, 4),))
    free_memory(monkeypatch, int(sizes.sum()) // 2)
    waited: list = []
    real_launch = GpuSolver._launch
    monkeypatch.setattr(GpuSolver, "_launch", lambda self, *a, **k: (waited.append("launch"), real_launch(
        self, *a, **k))[1])
    solver = GpuSolver(rows_per_lane=2, device_trace=False, tuning=launch.Tuning(first_launch_share=1.0))
    streams = solver.streams()
    for stream in (streams.compute, streams.follow):
        monkeypatch.setattr(stream, "synchronize", lambda: waited.append("sync"), raising=False)
    waited.clear()
    with pytest.raises(LetterError, match="^bad5: non-nucleotide letter"):
        solver.solve_many(cases * 2 + [bad], Scoring(), traceback=False)
    assert waited.count("launch") > 1 and waited[-2:] == ["sync", "sync"]


def test_the_solvers_of_a_thread_share_its_streams(monkeypatch):
    """A thread's solvers queue their work on the same CUDA streams (CuPy's pool keeps its free
    blocks per stream: a fresh solver finds those of the solvers before it); another thread's
    solvers have their own."""
    import threading

    fake_gpu(monkeypatch, _fake_function)
    first, fresh = GpuSolver(), GpuSolver(rows_per_lane=2)
    assert fresh.streams() is first.streams() and len(set(map(id, first.streams()))) == len(first.streams())
    other: list = []
    thread = threading.Thread(target=lambda: other.append(GpuSolver().streams()))
    thread.start()
    thread.join()
    assert other[0] is not first.streams() and not set(map(id, other[0])) & set(map(id, first.streams()))


@pytest.mark.parametrize("streamed", [True, False])
def test_a_launch_fills_its_row_storage_while_it_is_planned(monkeypatch, streamed):
    """In a call of several launches that fit the device at once, each launch takes its row
    storage (for launch.launch_rows: at least its plan's rows) before it is planned, so that its
    fill runs meanwhile; split as it goes (score) or whole (traced), the answers are the
    sequential solver's."""
    fake_gpu(monkeypatch, _fake_function)
    cases = [c for seed in (5, 6, 7) for c in cases_and_sizes(seed)[0]]  # (cases met again: a cached plan)
    want = [r.score for r in get_solver("sequential").solve_many(cases, Scoring(), traceback=False)]
    steps: list = []
    monkeypatch.setattr(device, "fill_bytes", lambda a, byte, stream: (steps.append(("fill", a.size)), a.fill(byte)))
    real_plan, real_launch = solver_module.build_plan, GpuSolver._launch
    jobs: list = []
    monkeypatch.setattr(solver_module, "build_plan", lambda flat, rows_per_lane, *a: (
        steps.append(("plan", rows_per_lane)), real_plan(flat, rows_per_lane, *a))[1])
    monkeypatch.setattr(GpuSolver, "_launch", lambda self, *a, **k: (jobs.append(real_launch(self, *a, **k)),
                                                                      jobs[-1])[1])
    free_memory(monkeypatch, 1 << 40)
    budget = int(launch._storage(FlatCases.of(cases), 2)[0].sum()) // 3  # three or four launches
    solver = GpuSolver(rows_per_lane=2, device_trace=False,
                       tuning=launch.Tuning(first_launch_share=1.0, row_budget=budget))
    # (a traced call is split whole, _split: here traced on the host, the launches gather last rows)
    assert [r.score for r in solver.solve_many(cases, Scoring(), traceback=not streamed)] == want
    plans = [i for i, s in enumerate(steps) if s[0] == "plan"]
    assert len(jobs) == len(plans) > 2
    for k, (job, at) in enumerate(zip(jobs, plans)):
        rows = launch.launch_rows(FlatCases.of(job.inputs.cases), steps[at][1])
        before = plans[k - 1] if k else -1
        assert [s for s in steps[before + 1:at] if s[0] == "fill"] == [("fill", rows * 4)]
        assert rows >= job.inputs.plan.rows_size and job.used == job.inputs.plan.rows_size * 4


def test_launch_rows_bound_the_plans_rows():
    """launch.launch_rows (a launch's row storage, taken before it is planned) is at least its
    plan's rows_size for every configuration a launch may have: int or int64 scores, score or
    traced, chain-bound (few cases) or throughput, free target ends."""
    import itertools

    from splicedalign.workloads.spliced.gpu.plan import build_plan

    rng = fresh_rng()
    solver = GpuSolver()
    for count in (3, 70):
        flat = FlatCases.of([random_case(rng, f"r{i}") for i in range(count)] + tiny_set(int(rng.integers(99))))
        for ctype, traceback, scoring in itertools.product(("int", "long long"), (False, True),
                                                           (Scoring(), Scoring(target_ends="free"))):
            config = solver._configure(flat, ctype, scoring, traceback)
            plan = build_plan(flat, config.rows_per_lane, config.floors, config.late, config.entry)
            assert launch.launch_rows(flat, config.rows_per_lane) >= plan.rows_size, (count, ctype, traceback)


def test_recording_launches_sized_at_their_width():
    """A traced call's recording launches count each case's rows and inputs at rows_per_lane (a
    chain launch's wider strips take fewer rows) and the call's move storage, which each takes:
    its largest launch's moves as planned (launch_move_words), not a bound at the wider width of
    both kinds of launches, so the call's room holds more of them."""
    rng = fresh_rng()
    cases = [random_case(rng, f"r{i}") for i in range(40)]
    flat = FlatCases.of(cases)
    tuning = launch.Tuning(throughput_cases=8, move_budget=int(launch.move_words_many(cases, 8).sum()) // 5)
    bare = launch.case_bytes(flat, tuning.rows_per_lane, 4, False, False)
    wide = launch.case_bytes(flat, tuning.chain_rows_per_lane, 4, True, False)
    room, work, sizes, moves = launch.plan_launches(flat, Scoring(), True, 1 << 40, lambda ctype: ctype == "int",
                                                    tuning)
    assert sorted(i for _, sel in work for i in sel) == list(range(len(cases)))
    words = [launch.launch_move_words(flat.select(sel), "int", tuning) for _, sel in work]
    assert moves == launch.move_storage(4 * max(words), tuning) and max(words) <= tuning.move_budget
    kinds = set()
    for (_, sel), size in zip(work, sizes):
        kinds.add(tuning.chain_bound(len(sel)))
        assert size == int(bare[sel].sum()) + moves, (len(sel), size)
    assert False in kinds, "no throughput launch: the test's budgets need more cases a launch"
    assert sum(sizes) < int(wide.sum())  # (the bound at the wider width counts more)


def test_the_cases_of_batches_let_go_are_freed_while_a_call_waits(monkeypatch):
    """A batch the cache lets go of (CACHE_BATCHES) is freed on the packer thread, but its cases
    (where the cache held their last reference: freeing a paper set's took the H100 host
    milliseconds after the kernel) wait in the solver until a call waits for its kernels, then go
    RELEASE_CASES at a time while the device has not reached the event waited for; beyond
    BURIED_CASES waiting they go with the batch."""
    import weakref
    from types import SimpleNamespace

    fake_gpu(monkeypatch, _fake_function)
    monkeypatch.setattr(solver_module, "CACHE_BATCHES", 1)
    monkeypatch.setattr(solver_module, "RELEASE_CASES", 2)
    monkeypatch.setattr(solver_module, "BURIED_CASES", 8)

    class Case:  # (only its identity matters here)
        pass

    made: list[weakref.ref] = []

    def batch(count: int) -> SimpleNamespace:
        cases = tuple(Case() for _ in range(count))
        made.extend(map(weakref.ref, cases))
        return SimpleNamespace(cases=cases)

    def alive() -> int:
        return sum(r() is not None for r in made)

    class Event:  # reached by the device after `left` queries
        def __init__(self, left: int) -> None:
            self.left = left

        @property
        def done(self) -> bool:
            self.left -= 1
            return self.left < 0

    solver = GpuSolver()
    for key, count in (("a", 5), ("b", 3)):
        with solver._packing():
            solver._cached((key,), batch(count))
    assert alive() == 8 and len(solver._buried) == 5  # a let go: its cases wait
    solver._free_waiting(Event(2))  # two queries before the device reaches it: two pieces
    assert alive() == 4 and len(solver._buried) == 1
    solver._free_waiting(Event(0))  # reached: nothing more
    assert alive() == 4
    with solver._packing():
        solver._cached(("c",), batch(9))  # b let go: 4 waiting
    assert alive() == 13 and len(solver._buried) == 4
    with solver._packing():
        solver._cached(("d",), batch(2))  # c let go: 13 waiting > 8, all freed with it on the packer
    assert alive() == 2 and solver._buried == []
