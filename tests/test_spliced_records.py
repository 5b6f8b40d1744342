"""Chain alignments built a batch at a time (``chain_alignments_many`` from the device
traceback's output layout, ``ExonAlignments`` records made on first access) equal the per-case
frozen records the host built before, field by field and CIGAR by CIGAR, and behave as the
tuple of them wherever a Result's alignment is used: indexing, iteration, equality, hashing,
repr, pickling (also through a process pool)."""

from __future__ import annotations

import importlib.util
import itertools
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from helpers import random_spliced_case

from splicedalign.workloads.spliced.backtrack import chains_and_alignments, exon_records
from splicedalign.workloads.spliced.gpu.outputs import chain_alignments_many
from splicedalign.workloads.spliced.records import (
    OP_INS,
    OP_LETTERS,
    Exon,
    ExonAlignment,
    ExonAlignments,
    Result,
    Scoring,
    TestCase,
    cigar_of,
)
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced.synthetic import tiny_set

SEED = 1212
FIELDS = ("index", "first", "last", "target_start", "target_end", "ops", "cigar")


def _benchmark():
    """benchmarks/spliced_records.py: the device output layout and the previous conversion."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "spliced_records.py"
    spec = importlib.util.spec_from_file_location("spliced_records_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _benchmark()


@pytest.fixture(scope="module")
def batch():
    """Seeded random and tiny gene-like cases traced by ``sequential`` (the CPU traceback),
    their device output layout, and the records of the old and the new conversion."""
    print(f"seed {SEED}")
    rng = np.random.default_rng(SEED)
    cases = [random_spliced_case(rng, f"r{i}") for i in range(120)] + tiny_set()
    solver = get_solver("sequential")
    traced = [(r.chain, r.alignment) for r in (solver.solve(c, Scoring(1, -1, int(rng.integers(1, 4))))
                                               for c in cases)]
    out = bench.device_outputs(cases, traced)
    return cases, traced, out, bench.old_conversion(cases, **out), bench.new_conversion(cases, **out)


def test_new_records_equal_old_field_by_field(batch):
    cases, traced, _, old, new = batch
    assert len(new) == len(old) == len(cases)
    exons = 0
    for case, (chain, alignment), (old_chain, old_alignment), (cpu_chain, cpu_alignment) in zip(
            cases, new, old, traced):
        assert type(alignment) is ExonAlignments and type(old_alignment) is tuple
        assert chain == old_chain == cpu_chain and all(type(k) is int for k in chain), case.name
        assert len(alignment) == len(old_alignment) == len(cpu_alignment) == len(chain), case.name
        for a, b, c in zip(alignment, old_alignment, cpu_alignment):
            for name in FIELDS:
                assert getattr(a, name) == getattr(b, name) == getattr(c, name), (case.name, name)
                assert type(getattr(a, name)) is type(getattr(b, name)), (case.name, name)  # ints, bytes, str
            assert 0xFF not in a.ops, "ops outside the case's path (poison) leaked in"
            exons += 1
        assert alignment == old_alignment and old_alignment == alignment and alignment == cpu_alignment
    assert exons > len(cases)  # multi-exon chains are covered


def test_alignments_behave_as_the_tuple(batch):
    _, _, _, old, new = batch
    for (_, a), (_, t) in zip(new, old):
        assert len(a) == len(t) and list(a) == list(t) and tuple(a) == t
        assert a[0] == t[0] and a[-1] == t[-1] and a[1:] == t[1:] and a[::-1] == t[::-1]
        assert hash(a) == hash(t) and repr(a) == repr(t) and bool(a)
        assert t[0] in a and a.index(t[-1]) == t.index(t[-1]) and a.count(t[0]) == 1
        assert not (a != t) and a != list(t)  # a tuple never equals a list
        with pytest.raises(IndexError):
            a[len(t)]
    (_, a), (_, b) = new[0], new[1]
    assert a != b and a != old[1][1] and {a: 1}[old[0][1]] == 1


def test_equality_of_separately_built_batches_sees_every_byte(batch):
    cases, _, out, _, new = batch
    again = bench.new_conversion(cases, **out)
    assert again == new
    c = max(range(len(cases)), key=lambda i: len(new[i][1]))
    ops = out["ops"].copy()
    end = int(out["ends"][c])
    ops[end - 1] = (ops[end - 1] + 1) % 4  # the last op of case c's path
    changed = bench.new_conversion(cases, **{**out, "ops": ops})
    assert changed[c][1] != new[c][1] and changed[c][1][-1].ops != new[c][1][-1].ops
    assert all(changed[i] == new[i] for i in range(len(cases)) if i != c)


def test_counts_disagreeing_with_ops_are_caught(batch):
    cases, _, out, _, _ = batch
    out_case = out["out_case"].copy()
    out_case[1] -= 1  # case 0 claims one op fewer than its exons hold
    with pytest.raises(AssertionError, match="disagree"):
        bench.new_conversion(cases, **{**out, "out_case": out_case})


def test_results_compare_hash_and_pickle_as_before(batch):
    cases, _, _, old, new = batch
    r_new = bench.results(cases, new)
    r_old = bench.results(cases, old)
    assert r_new == r_old and [hash(r) for r in r_new] == [hash(r) for r in r_old]
    back = pickle.loads(pickle.dumps(r_new))
    assert back == r_old and all(type(r.alignment) is ExonAlignments for r in back)
    for r, s in zip(back, r_old):
        assert [a.cigar for a in r.alignment] == [a.cigar for a in s.alignment]
    # One Result pickles its own ops only, not the batch's buffer.
    small = min(r_new, key=lambda r: sum(len(a.ops) for a in r.alignment))
    whole = sum(len(a.ops) for r in r_new for a in r.alignment)
    assert len(pickle.dumps(small)) < 2_000 + sum(len(a.ops) for a in small.alignment) < whole


def test_result_of_fields_is_result_constructed():
    """Result.of_fields (the fields' dict taken as the instance's, no per-field setattr) makes what
    Result(...) makes: the same fields, equality, hash, frozenness and pickle round trip."""
    import dataclasses

    rows = np.arange(4)
    args = ("c", "gpu", 7, 100, 0.5, (0, 2), None, rows, {"seconds_score": 0.5})
    names = [f.name for f in dataclasses.fields(Result)]
    made, built = Result.of_fields(dict(zip(names, args))), Result(*args)
    assert names == list(vars(made)) == list(vars(built))
    assert made == built and hash(made) == hash(built) and made.last_row_scores is rows
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.score = 8  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(made)) == built


def test_gpu_pending_results_are_whole_results():
    """The `gpu` solver's Results made before its kernels end (outputs.pending, each a copy of one
    template) and filled in after them (outputs.results) are what Result(...) makes of the same
    values: every field in order, its own extra, its exons' final scores a view of the launch's."""
    import dataclasses

    from splicedalign.workloads.spliced.gpu import outputs

    cases = [TestCase(f"c{i}", "ACGT" * (i + 1), "ACG", tuple(Exon(1, 2 + j) for j in range(i + 1))) for i in range(3)]
    starts = np.array([0, 1, 3, 6])
    exons = outputs.Exons(starts, np.arange(6), np.array([10, 20, 30]))
    made = outputs.pending("gpu", cases, exons)
    finals = np.array([5, -1, 4, 2, 9, 0])
    outputs.results(made, outputs.scores(exons, made, finals, 60.0), 60.0, None, range(3))
    names = [f.name for f in dataclasses.fields(Result)]
    for c, r, best, cells in zip(cases, made.results, (5, 4, 9), (10, 20, 30)):
        seconds = float(cells)  # the launch's 60 s shared by cells
        want = Result(c.name, "gpu", best, cells, seconds, None, None, None, {
            "seconds_score": seconds, "seconds_traceback": 0.0, "batch_cases": 3, "batch_seconds_score": 60.0})
        assert list(vars(r)) == names and r == want and r.seconds == seconds and r.extra == want.extra
    assert len({id(r.extra) for r in made.results}) == 3
    assert [r.last_row_scores.tolist() for r in made.results] == [[5], [-1, 4], [2, 9, 0]]
    assert all(r.last_row_scores.base is made.by_input for r in made.results)


def test_results_cross_a_spawned_process(batch):
    cases, _, _, old, new = batch
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        back = pool.submit(pickle.loads, pickle.dumps(bench.results(cases[:5], new[:5]))).result()
    assert back == bench.results(cases[:5], old[:5])


def test_single_exon_and_empty_ops_windows():
    fields = np.array([[3, 1, 4, 1, 0], [0, 9, 9, 1, 2]], dtype=np.int64)
    bounds = np.array([0, 1, 1], dtype=np.int64)  # exon 1 has no ops
    a = ExonAlignments(fields, bounds, b"\x02", 1, 2)
    assert a == (ExonAlignment(0, 9, 9, 1, 2, b""),) and a[0].cigar == "" and len(a) == 1
    assert ExonAlignments(fields, bounds, b"\x02", 0, 1)[0].cigar == "1D"
    assert pickle.loads(pickle.dumps(a)) == a


def test_chain_alignments_many_takes_device_dtypes(batch):
    """The kernel's outputs are int32 (out_case, out_exon) and uint8 (ops); int64 table columns."""
    cases, _, out, _, new = batch
    lengths, totals = out["out_case"].astype(np.int32).reshape(-1, 2).T
    got = chain_alignments_many(exon_records(cases), out["heads"], lengths, totals,
                                out["out_exon"].astype(np.int32).reshape(-1, 4),
                                out["ends"], out["ops"])
    assert list(zip(*got)) == new


def _cpu_walks(out: dict, leading: bool = True) -> tuple:
    """The device outputs' walks as the CPU solvers hand them to ``chains_and_alignments``: each
    case's chain exons in chain order, back to back, and its path's ops joined (``leading``
    False: without the first exon's leading 'I's, as a free-ends path has none)."""
    lengths, totals = out["out_case"].reshape(-1, 2).T.astype(np.int64)
    slots = out["out_exon"].reshape(-1, 4)
    rows = np.concatenate([slots[h:h + n][::-1] for h, n in zip(out["heads"], lengths)]).astype(np.int64)
    if not leading:
        totals = totals - rows[np.cumsum(lengths) - lengths, 1]
    ops = b"".join(out["ops"][e - t:e].tobytes() for e, t in zip(out["ends"], totals))
    return lengths, totals, rows, ops


@pytest.mark.parametrize("leading", [True, False])
def test_cpu_and_device_records_from_one_walk_are_equal(batch, leading):
    """The CPU solvers' records (``chains_and_alignments``, chain order) and the device
    traceback's (``chain_alignments_many``, trace order) from the same walks are equal: one
    definition of a chain exon's fields (backtrack.chain_exons), with and without the leading
    'I's (free target ends: the first exon starts where its path enters the target)."""
    cases, _, out, _, new = batch
    lengths, totals, rows, ops = _cpu_walks(out, leading)
    cpu = chains_and_alignments(exon_records(cases), lengths, totals, *rows.T, ops, leading)
    device = chain_alignments_many(exon_records(cases), out["heads"], lengths, totals, out["out_exon"].reshape(-1, 4),
                                   out["ends"], out["ops"], leading)
    assert cpu == list(zip(*device))
    firsts = np.cumsum(lengths) - lengths
    if leading:
        assert cpu == new
    else:
        assert [a[0].target_start for _, a in cpu] == (rows[firsts, 1] + 1).tolist()
        assert [a[0].ops for _, a in cpu] == [a[0].ops[rows[f, 1]:] for (_, a), f in zip(new, firsts)]
        assert [a[1:] for _, a in cpu] == [a[1:] for _, a in new] and (rows[firsts, 1] > 0).any()


@pytest.mark.parametrize("where", ["counts", "exon row", "negative exon row"])
def test_cpu_records_refuse_walks_that_disagree(batch, where):
    """``chains_and_alignments`` refuses exon op counts that do not add up to a path and exon
    rows outside the batch's exons (a negative one too, which a NumPy gather would wrap)."""
    cases, _, out, _, _ = batch
    lengths, totals, rows, ops = _cpu_walks(out)
    if where == "counts":
        rows[0, 3] -= 1
    else:
        rows[int(lengths[:5].sum()), 0] = len(exon_records(cases)) if where == "exon row" else -1
    with pytest.raises(AssertionError, match="ops and per-exon counts disagree"):
        chains_and_alignments(exon_records(cases), lengths, totals, *rows.T, ops)


def test_cigar_of_spells_runs():
    rng = np.random.default_rng(SEED)
    print(f"seed {SEED}")
    assert cigar_of(b"") == "" and cigar_of(bytes([OP_INS] * 3)) == "3I"
    for _ in range(300):
        # runs of 1-40 equal ops, as paths have them
        ops = b"".join(bytes([int(rng.integers(4))]) * int(rng.integers(1, 40)) for _ in range(rng.integers(1, 12)))
        want = "".join(f"{len(list(run))}{OP_LETTERS[op]}" for op, run in itertools.groupby(ops))
        assert cigar_of(ops) == want, ops


def test_exon_bounds_are_the_exons_first_and_last():
    """TestCase.bounds: each exon's (first, last) in input order, read-only; a loader's array
    (the generator's, shared by a base's cases) must be the exons' own, else ValueError; a bad
    exon is still its one-line error; ``order`` sorts by (first, last), ties in input order."""
    from splicedalign.core.errors import InputError
    from splicedalign.workloads.spliced.records import Exon, TestCase

    cases = tiny_set(5, bases=3)
    for c in cases:
        assert c.bounds.tolist() == [[e.first, e.last] for e in c.exons]
        assert not c.bounds.flags.writeable
        assert c.order.tolist() == sorted(range(c.K), key=lambda k: (c.exons[k].first, c.exons[k].last, k))
        plain = TestCase(c.name, c.base, c.target, c.exons)  # bounds made on first use
        assert plain.bounds.tolist() == c.bounds.tolist()
    assert cases[0].bounds is cases[1].bounds  # tiny_set: two targets per base
    c = cases[0]
    wrong = c.bounds.copy()
    wrong[0, 1] += 1
    with pytest.raises(ValueError, match="exon_bounds"):
        TestCase(c.name, c.base, c.target, c.exons, exon_bounds=wrong)
    beyond = (Exon(1, 3), Exon(2, len(c.base) + 1))
    with pytest.raises(InputError, match="exon 2"):
        TestCase(c.name, c.base, c.target, beyond, exon_bounds=np.array([[1, 3], [2, len(c.base) + 1]]))
    tied = (Exon(5, 9), Exon(2, 4), Exon(5, 9), Exon(5, 7))
    assert TestCase("t", c.base, c.target, tied).order.tolist() == [1, 3, 0, 2]
    back = pickle.loads(pickle.dumps(c))  # a case read in a child process: its bounds read-only still
    assert back == c and back.bounds.tolist() == c.bounds.tolist() and not back.bounds.flags.writeable


def test_exon_length_sum_and_cells_are_the_spec_sums():
    """Σ|b_k| over the exons as given (no exon order needed) and n·Σ|b_k| (SPEC §2), on fresh
    random cases (duplicates, nesting, unsorted input)."""
    seed = int(np.random.SeedSequence().entropy % (1 << 31))
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    for _ in range(50):
        case = random_spliced_case(rng, "sum")
        total = sum(e.last - e.first + 1 for e in case.exons)
        assert case.exon_length_sum == total
        assert case.cells == len(case.target) * total


def test_device_traceback_records_wait_for_other_threads_parallel_passes(batch):
    """outputs.device_traceback's compiled pass runs on numba's threads: it takes flat.PARALLEL,
    so it never runs beside another thread's parallel pass (a solver per GPU, each in its own
    thread), and a walk's rows of the trace table give those cases' records."""
    import threading

    from splicedalign.workloads.spliced.gpu import outputs
    from splicedalign.workloads.spliced.gpu.flat import PARALLEL
    from splicedalign.workloads.spliced.gpu.plan import TRACE_CASE_FIELDS, TraceInputs

    cases, _, out, _, new = batch
    table = np.zeros((len(cases), len(TRACE_CASE_FIELDS)), dtype=np.int64)
    table[:, TRACE_CASE_FIELDS.index("exon0")] = out["heads"]
    table[:, TRACE_CASE_FIELDS.index("ops")] = out["ends"]
    info = TraceInputs(np.zeros((0, 0), np.int32), table, np.zeros(0, np.int32), int(out["ends"][-1]),
                       np.arange(len(cases)), (0, len(cases)), exon_records(cases))
    a, b = 7, len(cases) - 5  # a walk's rows
    got: list = []
    with PARALLEL:
        worker = threading.Thread(target=lambda: got.append(outputs.device_traceback(
            info, (a, b), out["out_case"][2 * a:2 * b], out["out_exon"], out["ops"], 0)))
        worker.start()
        worker.join(0.5)
        assert worker.is_alive() and not got, "the records' pass ran beside a parallel pass of another thread"
    worker.join(120)
    chains, alignments, seconds = got[0]
    assert list(zip(chains, alignments)) == new[a:b] and len(seconds) == b - a


@pytest.mark.parametrize("where", ["exon row", "slot", "path"])
def test_walks_outside_their_outputs_are_caught(batch, where):
    """A walk's output that points outside the batch's exons, its slots or its ops is refused
    (AssertionError naming the cases), never read: chain_alignments_many's compiled pass reads
    without bounds checks."""
    cases, _, out, _, _ = batch
    out = {k: v.copy() for k, v in out.items()}
    slots = out["out_exon"].reshape(-1, 4)
    if where == "exon row":
        slots[int(out["heads"][3]), 0] = len(slots) + 10
    elif where == "slot":
        out["heads"][-1] = len(slots)
    else:
        out["ends"][-1] = len(out["ops"]) + 1
    with pytest.raises(AssertionError, match="1 traced cases' ops and per-exon counts disagree"):
        bench.new_conversion(cases, **out)
