"""The `gpu` sw solver's host path on the CPU: CuPy replaced by NumPy with streams that run
their queued work only when something waits for it (an event, a synchronize, a copy on a stream
that waited), and the kernel by a model that scores each sequence of its launch with
`sequential` (a 16-bit launch writes a value above plan.overflow_bound for a pair beyond it, as
a wrapped lane would). Checked: scores of resident and streamed searches (chunks, two launch
streams, the next chunk queued before the current one's scores are read), the 32-bit re-runs,
every query handed over once with its final scores and the shortest query last, and
search_many's hits and alignments as `sequential`'s."""

from __future__ import annotations

import random
import threading
import weakref
from types import SimpleNamespace

import numpy as np
import pytest

from splicedalign.gpu import device
from splicedalign.workloads.sw import solvers, synthetic
from splicedalign.workloads.sw.gpu import solver as gpu_solver
from splicedalign.workloads.sw.gpu.plan import choose_shape, inter_profile, padded_rows
from splicedalign.workloads.sw.records import Database, Query, Scoring
from splicedalign.workloads.sw.traceback import rescore


class LazyStream:
    """Queued work runs in order when an event recorded after it is waited for. The current
    stream is per thread, as CuPy's is (the solver uploads chunks from a second thread)."""

    local = threading.local()

    @classmethod
    def stack(cls) -> list[LazyStream]:
        if not hasattr(cls.local, "stack"):
            cls.local.stack = []
        return cls.local.stack

    def __init__(self, non_blocking: bool = False, null: bool = False) -> None:
        self.queue: list = []
        self.ran = 0

    def __enter__(self):
        LazyStream.stack().append(self)
        return self

    def __exit__(self, *exc):
        LazyStream.stack().pop()
        return False

    def put(self, work) -> None:
        self.queue.append(work)

    def run_to(self, n: int) -> None:
        while self.ran < n:
            self.ran += 1
            self.queue[self.ran - 1]()

    def record(self, stream=None):
        return Event(self, len(self.queue))

    def wait_event(self, event) -> None:
        self.put(event.synchronize)

    def synchronize(self) -> None:
        self.run_to(len(self.queue))


class Event:
    def __init__(self, stream: LazyStream | None = None, at: int = 0) -> None:
        self.stream, self.at = stream, at

    def record(self, stream=None):
        return current().record()

    def synchronize(self) -> None:
        if self.stream is not None:
            self.stream.run_to(self.at)


NULL = LazyStream()
STREAMS: list[LazyStream] = []


def current() -> LazyStream:
    stack = LazyStream.stack()
    return stack[-1] if stack else NULL


def make_stream(non_blocking: bool = False, null: bool = False) -> LazyStream:
    STREAMS.append(LazyStream())
    return STREAMS[-1]


class FakeArray(np.ndarray):
    def get(self, stream=None, out=None):
        (stream or current()).synchronize()
        return np.array(self)


def fake_cupy():
    def wrap(a, dtype=None):
        return np.array(a, dtype=dtype).view(FakeArray)

    def synchronize_all():
        for s in [NULL, *STREAMS]:
            s.synchronize()

    stream_cls = make_stream
    stream_cls.null = NULL  # type: ignore[attr-defined]
    cuda = SimpleNamespace(Stream=stream_cls, Event=Event, get_elapsed_time=lambda a, b: 0.0,
                           Device=lambda: SimpleNamespace(use=lambda: None, id=0),
                           runtime=SimpleNamespace(deviceSynchronize=synchronize_all))
    return SimpleNamespace(asarray=wrap, empty=lambda shape, dtype: wrap(np.empty(shape, dtype)),
                           zeros=lambda shape, dtype: wrap(np.zeros(shape, dtype)),
                           full=lambda shape, value, dtype: wrap(np.full(shape, value, dtype)),
                           int32=np.int32, int64=np.int64, cuda=cuda)


class ModelKernel:
    """sw_inter's contract: out[order[i]] = the score of database sequence order[i], i < count,
    the query found by its profile; on 16-bit lanes a score above the overflow bound comes out
    as some value above it; a launch's dynamic shared memory within the kernel's limit."""

    def __init__(self, name: str, queries: list[Query], scoring: Scoring, launches: list) -> None:
        self.wide = "Lane32" in name
        self.queries, self.scoring, self.launches = queries, scoring, launches
        self.oracle = solvers.SOLVERS.get("sequential")

    def __call__(self, grid, block, args, shared_mem=0):
        assert shared_mem <= getattr(self, "max_dynamic_shared_size_bytes", device.SHARED_MEMORY_DEFAULT)
        stream = current()
        self.launches.append((stream, self.wide))
        stream.put(lambda: self._run(args))

    def _run(self, args) -> None:
        codes, offsets, order, count, profile, mpad, *_, out = args
        query = next(q for q in self.queries
                     if padded_rows(q.length, choose_shape(q.length)) == int(mpad)
                     and np.array_equal(inter_profile(q.codes, self.scoring, int(mpad), profile.dtype), profile))
        idx = np.asarray(order[: int(count)])
        seqs = [np.asarray(codes[offsets[i]: offsets[i + 1]]) for i in idx]
        scores = self.oracle.scores(query, Database.from_codes([str(i) for i in idx], seqs), self.scoring)
        bound = gpu_solver.overflow_bound(self.scoring)
        if not self.wide:
            scores = np.where(scores > bound, bound + 1 + scores % 5, scores)
        out[idx] = scores


@pytest.fixture
def model(monkeypatch):
    """Installs the fake CuPy and the model kernel; yields a function that sets the queries and
    scoring the kernel recognises, and the launches (stream, wide) made."""
    cp = fake_cupy()
    STREAMS.clear()
    monkeypatch.setattr(device, "cupy", lambda: cp)
    state = SimpleNamespace(queries=[], scoring=Scoring.blast(), launches=[], budget=1 << 40)
    monkeypatch.setattr(device, "memory_budget", lambda cap=None: min(state.budget, cap or state.budget))
    monkeypatch.setattr(device, "function",
                        lambda src, name, names, defines: ModelKernel(name, state.queries, state.scoring,
                                                                      state.launches))
    yield state


@pytest.fixture
def seed() -> int:
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    return seed


def random_set(model, seed: int, count: int = 90) -> tuple[list[Query], Database]:
    """Queries (one a tie in length) and a database of ``count`` sequences, the queries set as
    the ones the model kernel recognises."""
    rng = np.random.default_rng(seed)
    queries = [synthetic.query(int(n), seed + k) for k, n in enumerate(rng.integers(5, 70, 4))]
    queries.append(synthetic.query(int(queries[0].length), seed + 9))  # a tie in length: input order
    db = synthetic.database(rng.integers(1, 90, count), seed, queries[1], homologs=8)
    model.queries[:] = queries
    return queries, db


@pytest.mark.parametrize("chunks", [1, 4])
def test_streamed_and_resident_scores_with_queries_handed_over_as_they_finish(model, seed, chunks):
    queries, db = random_set(model, seed)
    oracle = solvers.SOLVERS.get("sequential")
    want = [oracle.scores(q, db, model.scoring) for q in queries]
    solver = gpu_solver.GpuSolver()
    footprint = solver.footprint(db)
    if chunks > 1:  # a budget a quarter of the footprint: several chunks, two launch streams
        solver.memory_cap = footprint // 4
    ranges = solver.chunk_ranges(db)
    assert (len(ranges) > 2) == (chunks > 1)
    live, peak = [], [0]
    upload = solver._upload

    def counted(part):  # device copies of chunks alive at once: the one searched and the next
        ddb = upload(part)
        live.append(weakref.ref(ddb))
        peak[0] = max(peak[0], sum(r() is not None for r in live))
        return ddb

    solver._upload = counted
    handed = []
    got = solver.scores_many(queries, db, model.scoring, ready=lambda k, s: handed.append((k, s.copy())))
    assert all(np.array_equal(g, w) for g, w in zip(got, want))
    assert [k for k, _ in handed] == gpu_solver.queue_order(queries)  # once each, longest first, shortest last
    assert all(np.array_equal(s, want[k]) for k, s in handed)  # final when handed over
    used = {id(stream) for stream, _ in model.launches}
    assert len(used) == (gpu_solver.STREAMS if chunks > 1 else 1)
    assert len(model.launches) == len(queries) * len(ranges)
    assert peak[0] == min(2, len(ranges)) and all(r() is None for r in live)


@pytest.mark.parametrize("chunks", [0, 1, 4])
def test_query_batches_queued_before_the_previous_one_is_collected(model, seed, monkeypatch, chunks):
    """Five queries in batches of two, two and one (QUERY_BATCH_BYTES cut down), resident
    (chunks 0, with marks), in one chunk and in several: every query's scores, each handed over
    once, longest first, and the first one handed over only once every launch but the last
    batch's is queued (a batch is queued before the previous one's scores are read)."""
    queries, db = random_set(model, seed)
    want = [solvers.SOLVERS.get("sequential").scores(q, db, model.scoring) for q in queries]
    solver = gpu_solver.GpuSolver()
    if chunks > 1:
        solver.memory_cap = solver.footprint(db) // 4
    longest = max(b - a for a, b in solver.chunk_ranges(db))
    monkeypatch.setattr(gpu_solver, "QUERY_BATCH_BYTES", 2 * 4 * longest)
    assert [len(b) for b in gpu_solver.query_batches(gpu_solver.queue_order(queries), longest)] == [2, 2, 1]
    handed, queued = [], []

    def ready(k, scores):
        handed.append((k, scores.copy()))
        queued.append(sum(not wide for _, wide in model.launches))

    if chunks == 0:
        marks: dict = {}
        ddb = gpu_solver.DeviceDatabase.upload(solver.cp, db)
        got = solver.scores_resident_many(queries, db, ddb, model.scoring, marks, ready)
        assert sorted(marks) == list(range(len(queries)))
    else:
        got = solver.scores_many(queries, db, model.scoring, ready=ready)
    assert all(np.array_equal(g, w) for g, w in zip(got, want))
    assert [k for k, _ in handed] == gpu_solver.queue_order(queries)
    assert all(np.array_equal(s, want[k]) for k, s in handed)
    assert queued[0] == sum(not wide for _, wide in model.launches) - 1


def test_queue_order_longest_first_ties_in_input_order():
    qs = [Query(str(k), np.zeros(n, np.uint8)) for k, n in enumerate((5, 9, 5, 12, 9))]
    assert gpu_solver.queue_order(qs) == [3, 1, 4, 0, 2]


def test_pairs_beyond_the_16_bit_bound_searched_again_on_32_bit_lanes(model, seed, monkeypatch):
    queries, db = random_set(model, seed)
    want = [solvers.SOLVERS.get("sequential").scores(q, db, model.scoring) for q in queries]
    bound = int(np.percentile(np.concatenate(want), 70))  # the best 30% of the pairs take the 32-bit path
    monkeypatch.setattr(gpu_solver, "overflow_bound", lambda scoring: bound)
    assert sum(int((w > bound).sum()) for w in want) > 10
    for cap in (None, 0):
        solver = gpu_solver.GpuSolver()
        solver.memory_cap = solver.footprint(db) // 3 if cap == 0 else None
        model.launches.clear()
        got = solver.scores_many(queries, db, model.scoring)
        assert all(np.array_equal(g, w) for g, w in zip(got, want))
        assert any(wide for _, wide in model.launches)


def test_search_many_aligns_each_querys_hits_as_its_scores_arrive(model, seed):
    queries, db = random_set(model, seed, 60)
    solver = gpu_solver.GpuSolver()
    solver.memory_cap = solver.footprint(db) // 4
    got = solvers.search_many(queries, db, model.scoring, solver, top=5, evalue=float("inf"))
    want = solvers.search_many(queries, db, model.scoring, "sequential", top=5, evalue=float("inf"))
    assert [r.query for r in got] == [q.id for q in queries]
    for a, b, q in zip(got, want, queries):
        assert np.array_equal(a.scores, b.scores) and a.hits == b.hits and a.hits
        assert all(rescore(h.alignment, q.codes, db.seq(h.index), model.scoring) == h.score for h in a.hits)
        assert a.extra["align_seconds"] >= 0


def test_device_script_lean_mode_runs_on_the_model(model, seed, tmp_path, monkeypatch, capsys):
    """scripts/device_sw.py --lean's measurement (a tiny database, queries from a file): the
    checks it reports hold and its table prints."""
    import importlib.util
    from pathlib import Path

    from splicedalign.workloads.sw.load import load_queries
    from splicedalign.workloads.sw.matrices import ALPHABET

    spec = importlib.util.spec_from_file_location("device_sw", Path(__file__).parents[1] / "scripts" / "device_sw.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    path = tmp_path / "q.fa"
    path.write_text("".join(f">q{k}\n{''.join(ALPHABET[c] for c in synthetic.query(n, seed + k).codes)}\n"
                            for k, n in enumerate((30, 420, 45, 410))))
    model.queries[:] = load_queries(str(path))
    args = SimpleNamespace(seed=seed, sequences=120, queries=path, repeats=1, stream_all=True)
    res = script.lean_benchmark(args, lambda msg: None)
    assert res["stream_chunks"] > 2 and res["stream_same"] and res["stream_queries"] == [420, 410]
    assert res["all_stream_same"] and res["all_stream_queries"] == [30, 420, 45, 410]
    assert "streamed, all 4 queries" in script.lean_table(res) and "q420 " in script.lean_table(res)
    assert len(res["query_gcups"]) == 4 and all(g > 0 for g in res["query_gcups"])
    assert res["top10_same_scores"] and res["top10_rescored_ok"] and res["top10_hits"] == 40
    assert "target <= 10%" in script.lean_table(res)
    queries, db = random_set(model, seed, 80)
    assert script.hits_check(queries, db) == (2 * 10 * len(queries), [])
    # the command line (the correctness step stubbed: it runs sw-scan and every shape, beyond the model)
    model.queries[:] = load_queries(str(path))
    monkeypatch.setattr(script, "correctness", lambda seed, rounds, log: {"seed": seed, "pairs": 0, "checks": 0,
                                                                           "mismatches": []})
    monkeypatch.setattr(device, "device_info", lambda: {"name": "model"})
    monkeypatch.setattr("sys.argv", ["device_sw.py", "--lean", "--sequences", "100", "--queries", str(path),
                                     "--repeats", "1", "--out", str(tmp_path / "out"), "--work", str(tmp_path)])
    assert script.main() == 0
    printed = capsys.readouterr().out
    assert "search + top-10 alignments" in printed and "streamed, cap = footprint/4" in printed
    assert (tmp_path / "out" / "sw_device.json").exists()
    # the full benchmark's path without peers (no CUDASW++ build)
    full = SimpleNamespace(seed=seed, sequences=100, queries=path, repeats=1, work=tmp_path, out=tmp_path,
                           sweep=False, cudasw4=None)
    bench = script.swissprot_benchmark(full, lambda msg: None)
    assert bench["rescored_ok"] and bench["stream_same"] and bench["search_many_same"]
    assert "overlapping the search" in script.table({"bench": bench, "correctness": {
        "seed": seed, "pairs": 0, "checks": 0, "mismatches": []}})
