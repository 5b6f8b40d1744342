"""FlatCases (gpu/flat.py), the `gpu` solver's split of a call into arrays, against a plain
reference made case by case: every array it makes, and what launch.plan_launches and
FlatCases.select make of it, must be the reference's byte for byte (dtype and values)."""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path

import numba
import numpy as np
import pytest
from helpers import fresh_rng
from helpers import random_spliced_case as random_case

from splicedalign.workloads.spliced import pipeline
from splicedalign.workloads.spliced.cli import _cases
from splicedalign.workloads.spliced.datasets import bundled_manifest, read_manifest, write_synthetic
from splicedalign.workloads.spliced.exons.strand import STRAND_CHOICES
from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu.flat import (
    PARALLEL,
    SMALL_PASS,
    ExonLists,
    FlatCases,
    few_threads,
    sorted_lists,
)
from splicedalign.workloads.spliced.load import load_cases
from splicedalign.workloads.spliced.records import CaseSet, CaseSetMaker, Exon, Exons, Scoring, TestCase
from splicedalign.workloads.spliced.synthetic import PAPER_BASES, Shape, gene_like, paper_set, paper_sets

pytestmark = pytest.mark.usefixtures("gpu_host_code")  # conftest: the warm-up's planning code


def reference_flat(cases: list[TestCase]) -> FlatCases:
    """FlatCases.of made the plain way: distinct bases by identity in first-use order, a case
    whose exons are the previous case's (the same tuple, or equal with the same first Exon)
    sharing its list, each list sorted by np.lexsort on (first, last)."""
    cases_t = tuple(cases)
    index: dict[int, int] = {}
    bases: list[str] = []
    for c in cases_t:
        if id(c.base) not in index:
            index[id(c.base)] = len(bases)
            bases.append(c.base)
    firsts, lasts, orders, sizes, source = [], [], [], [], []
    for i, c in enumerate(cases_t):
        prev = cases_t[i - 1].exons if i else None
        e = c.exons
        shared = prev is not None and (e is prev or (len(e) == len(prev) and e[0] is prev[0] and e == prev))
        if not shared:
            order = np.lexsort((c.bounds[:, 1], c.bounds[:, 0]))
            firsts.append(c.bounds[order, 0])
            lasts.append(c.bounds[order, 1])
            orders.append(order)
            sizes.append(len(order))
        source.append(len(sizes) - 1)
    start = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
    K = np.array([sizes[s] for s in source], dtype=np.int64)
    lists = ExonLists(start, *(np.concatenate(x).astype(np.int64) if x else np.zeros(0, np.int64)
                               for x in (firsts, lasts, orders)))
    return FlatCases(cases_t, K, np.array([len(c.base) for c in cases_t], dtype=np.int64),
                     np.array([len(c.target) for c in cases_t], dtype=np.int64),
                     np.concatenate([[0], np.cumsum(K)]).astype(np.int64),
                     np.array([index[id(c.base)] for c in cases_t], dtype=np.int64), tuple(bases), lists,
                     np.array(source, dtype=np.int64))


ARRAYS = ("K", "m", "n", "exon_start", "base_index", "source", "first", "last", "order", "exon_sums")


def assert_same(got: FlatCases, want: FlatCases, what: str) -> None:
    assert got.cases == want.cases and all(map(lambda a, b: a is b, got.cases, want.cases)), what
    assert len(got.bases) == len(want.bases) and all(map(lambda a, b: a is b, got.bases, want.bases)), what
    for name in ARRAYS:
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), (what, name)
    for name, a, b in zip(ExonLists._fields, got.lists, want.lists):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (what, "lists." + name)


def tied_cases(rng: np.random.Generator) -> list[TestCase]:
    """Cases with repeated exons (ties: input order kept), lists of 1 to 90 exons (longer than a
    sort's short runs), bases shared out of order (A B A) and equal but distinct, exon tuples
    equal but not the same objects, and a loader's column Exons."""
    base_a, base_b = "ACGT" * 400, "TTGCA" * 300
    base_c = "".join(["ACGT"] * 400)  # equal to base_a, another object
    assert base_c is not base_a
    out = []
    for i, base in enumerate((base_a, base_b, base_a, base_c, base_b, base_b)):
        m = len(base)
        K = int(rng.choice([1, 2, 15, 16, 17, 33, 90]))
        f = rng.integers(1, m // 2, K)
        f[rng.random(K) < 0.3] = f[0]  # ties on first
        la = np.minimum(f + rng.integers(0, 40, K), m)
        la[rng.random(K) < 0.2] = la[0] if f[0] <= la[0] else la[0]
        la = np.maximum(la, f)
        exons = tuple(Exon(int(a), int(b)) for a, b in zip(f, la))
        if K > 2:
            exons = exons + exons[:2]  # exact duplicates
        out.append(TestCase(f"t{i}", base, "ACGT" * int(rng.integers(1, 30)), exons))
        out.append(TestCase(f"t{i}s", base, "GGCA" * 3, exons))  # the same tuple
        out.append(TestCase(f"t{i}e", base, "GGCA" * 4, tuple(Exon(e.first, e.last) for e in exons)))  # equal
    bounds = np.array([[5, 9], [1, 3], [5, 9], [2, 2], [1, 3]], dtype=np.int64)
    shared = Exons(bounds)
    out += [TestCase(f"x{i}", base_b, "ACG", shared) for i in range(3)]
    return out


def test_flat_cases_equal_the_plain_reference_and_plan_alike() -> None:
    rng = fresh_rng()
    sets = {
        "paper": paper_set(int(rng.integers(1 << 30)), bases=6),
        "tied": tied_cases(rng),
        "random": [random_case(rng, f"r{i}") for i in range(40)],
        "genes": gene_like(rng, Shape(m=6_000, K=70, n=200, exon_mean=60), "g", targets=3)
        + gene_like(rng, Shape(m=3_000, K=9, n=90, exon_mean=200), "h", targets=2),
        "one": [random_case(rng, "single")],
        "none": [],
    }
    sets["mixed"] = [sets["tied"][i] for i in rng.permutation(len(sets["tied"]))] + list(sets["paper"][:9])
    for what, cases in sets.items():
        got, want = FlatCases.of(cases), reference_flat(cases)
        assert_same(got, want, what)
        if not cases:
            continue
        for sel in (np.arange(len(cases)), rng.permutation(len(cases))[: max(1, len(cases) // 2)],
                    np.arange(len(cases) // 3, len(cases))):
            assert_same(got.select(sel), want.select(sel), f"{what} select")
        for free in (80 * 2**30, 2 * 2**30):
            for traceback in (True, False):
                plan = launch.plan_launches(got, Scoring(), traceback, free, lambda ctype: ctype == "int")
                assert plan == launch.plan_launches(want, Scoring(), traceback, free, lambda ctype: ctype == "int")
                for _, sel in plan[1]:
                    assert_same(got.select(sel), want.select(sel), f"{what} launch")


def test_case_sets_columns_make_the_flat_cases_of_their_objects() -> None:
    """FlatCases.of of a CaseSet (the generator's columns, no case object read) is what it makes
    of the same cases as a list, array by array: a paper set, three of them joined, windows as a
    streamed split cuts them (the first case, the last, across sets), and a pickled one."""
    rng = fresh_rng()
    seed = int(rng.integers(1 << 30))
    print("seed", seed)
    one, three = paper_set(seed, bases=9), paper_sets(3, seed)
    assert isinstance(one, CaseSet) and isinstance(three, CaseSet) and len(three.columns.bases) == 3 * PAPER_BASES
    for what, cases in (("one", one), ("three", three), ("pickled", pickle.loads(pickle.dumps(one)))):
        assert isinstance(cases, CaseSet)
        assert_same(FlatCases.of(cases), FlatCases.of(list(cases)), what)
    C = len(three)
    cuts = [(0, 1), (C - 1, C), (0, C), (len(one), 2 * len(one) + 3), *sorted(rng.integers(0, C, (3, 2)).tolist())]
    for a, b in ((a, b + 1) for a, b in cuts if a <= b):
        window = three.window(a, b)
        assert window == three[a:b] and isinstance(window, CaseSet)
        assert_same(FlatCases.of(window), FlatCases.of(list(three[a:b])), f"window {a} {b}")
    with pytest.raises(ValueError, match="columns of another number"):
        CaseSet(one[:-1], one.columns)


def test_sorted_lists_in_chunks_equal_lexsort() -> None:
    """flat.sorted_lists where (list, first, index) leave few bits to the list: sorted many lists
    at a time (here 2^4), still each list by (first, last) with ties in input order."""
    rng = fresh_rng()
    sizes = rng.integers(1, 100, 150)  # up to 7 index bits
    sizes[rng.random(150) < 0.1] = 1
    start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    first = rng.integers(2**51, 2**52, start[-1]) & ~np.int64(7)  # 52 first bits: 4 left to the list, ties
    bounds = np.stack([first, first + rng.integers(0, 4, start[-1])], axis=1).astype(np.int64)
    got = sorted_lists(start, bounds)
    for a, b in zip(start[:-1], start[1:]):
        order = np.lexsort((bounds[a:b, 1], bounds[a:b, 0]))
        assert got[2][a:b].tolist() == order.tolist()
        assert got[0][a:b].tolist() == bounds[a:b, 0][order].tolist()
        assert got[1][a:b].tolist() == bounds[a:b, 1][order].tolist()
    with pytest.raises(ValueError, match="too long"):
        sorted_lists(np.array([0, 2], np.int64), np.full((2, 2), 2**62, np.int64))


def test_few_threads_runs_small_passes_on_this_thread_alone() -> None:
    """flat.few_threads: PARALLEL held; fewer items than its bound: numba's threads of this thread
    set to one and given back after (also when the pass raises); as many or more: left alone."""
    before = numba.get_num_threads()
    with few_threads(SMALL_PASS - 1):
        assert numba.get_num_threads() == 1
        assert PARALLEL._is_owned()
    assert numba.get_num_threads() == before
    with pytest.raises(RuntimeError), few_threads(10):
        raise RuntimeError("a bad letter")
    assert numba.get_num_threads() == before and not PARALLEL._is_owned()
    with few_threads(SMALL_PASS):
        assert numba.get_num_threads() == before


def _rows_shuffled(manifest: Path, rng: np.random.Generator) -> Path:
    """Another manifest beside ``manifest`` (its paths stay right) with its rows in a random
    order: a base's rows apart, a base recurring after others."""
    header, *rows = manifest.read_text().splitlines()
    out = manifest.with_name("shuffled.tsv")
    out.write_text("\n".join([header, *(rows[i] for i in rng.permutation(len(rows)))]) + "\n")
    return out


def assert_columns_of_cases(cases: CaseSet, what: str) -> None:
    """``cases`` came with columns that make what their objects make as a list, byte for byte
    (assert_same, and against the plain reference), their cells TestCase.cells."""
    assert isinstance(cases, CaseSet) and len(cases), what
    assert_same(FlatCases.of(cases), FlatCases.of(list(cases)), what)
    assert_same(FlatCases.of(cases), reference_flat(list(cases)), f"{what} (reference)")
    cells = cases.columns.cells()
    assert cells.dtype == np.int64 and cells.tolist() == [c.cells for c in cases], what


def test_case_set_maker_takes_the_columns_flat_cases_of_takes() -> None:
    """records.CaseSetMaker, the loaders' columns: tied cases (bases shared out of order and
    equal but distinct, exon tuples the same, equal, or a loader's Exons) added in runs of any
    size make the columns of FlatCases.of of the list; none added: an empty set."""
    rng = fresh_rng()
    cases = tied_cases(rng)
    made = CaseSetMaker()
    cuts = sorted(set(rng.integers(0, len(cases), 4).tolist()) | {0, len(cases)})
    for a, b in zip(cuts, cuts[1:]):
        made.add(iter(cases[a:b]))
    got = made.made()
    assert list(got) == cases and all(map(lambda a, b: a is b, got, cases))
    assert_columns_of_cases(got, "tied")
    assert_columns_of_cases(pickle.loads(pickle.dumps(got)), "tied, pickled")
    empty = CaseSetMaker().made()
    assert len(empty) == 0 and empty.columns.cells().size == 0


def _both_strands(bundled: Path, out: Path, rng: np.random.Generator) -> Path:
    """A manifest in ``out`` of bundled bases and targets whose exon tables have exons on both
    strands (a random third on '-'), the first a GFF3 file (Exon records; the others TSV, read
    as columns): rows of one base apart (its strand views made anew), rows of each exon_strand
    (+, -, not stated), and a last row whose base is a copy of the row's before it (the same
    exon records in another tuple: a list shared, not a base)."""
    entries = read_manifest(bundled)[:3]
    lines = ["case\tbase\ttarget\texons\texon_format\texon_strand"]
    tables = []
    for i, e in enumerate(entries):
        bounds = [tuple(map(int, r.split("\t")[:2])) for r in e.exons.read_text().splitlines()[1:]]
        strands = ["-" if rng.random() < 1 / 3 else "+" for _ in bounds]
        if i == 0:
            table, fmt = out / "exons0.gff3", "gff3"
            table.write_text("##gff-version 3\n" + "".join(f"s\tt\tCDS\t{f}\t{la}\t.\t{st}\t.\tID=e{k}\n"
                                                           for k, ((f, la), st) in enumerate(zip(bounds, strands))))
        else:
            table, fmt = out / f"exons{i}.tsv", "tsv"
            table.write_text("first\tlast\tstrand\n" + "".join(f"{f}\t{la}\t{st}\n"
                                                              for (f, la), st in zip(bounds, strands)))
        tables.append((e.base, e.target, table, fmt))
    copy = out / "base0.fa"  # another base of the same length: its exon table read once
    copy.write_text(entries[0].base.read_text())
    tables.append((copy, *tables[0][1:]))
    for j, (i, strand) in enumerate([(0, ""), (1, ""), (0, "-"), (2, "+"), (0, ""), (0, "+"), (3, "+")]):
        lines.append("\t".join([f"c{j}", *map(str, tables[i]), strand]))
    manifest = out / "both.tsv"
    manifest.write_text("\n".join(lines) + "\n")
    return manifest


def test_loaded_data_sets_come_with_their_cases_columns(tmp_path) -> None:
    """A data set read from files reaches the solver with its columns, those of its cases as a
    list: the bundled set through the CLI's --manifest reader, the pipeline's and one set of files
    (a target FASTA of two records); a manifest of exons on both strands through the CLI's reader
    (each --strand choice); a written paper set (a fresh seed) as written and its rows shuffled."""
    rng = fresh_rng()
    bundled = bundled_manifest()
    args = argparse.Namespace(manifest=str(bundled), base=None, exons=None, target=None)
    assert_columns_of_cases(_cases(args, STRAND_CHOICES["both"]), "bundled, cli")
    loaded = pipeline.load_cases(bundled)
    assert_columns_of_cases(loaded, "bundled, pipeline")
    entries = read_manifest(bundled)
    assert [c.name for c in loaded] == [e.case for e in entries]
    target = tmp_path / "targets.fa"
    target.write_text(entries[0].target.read_text() + entries[1].target.read_text())
    assert_columns_of_cases(load_cases(entries[0].base, entries[0].exons, target), "bundled, one set of files")
    args.manifest = str(_both_strands(bundled, tmp_path, rng))
    for strand, strands in STRAND_CHOICES.items():
        cases = _cases(args, strands)
        assert {c.strand for c in cases} == set(strands), strand
        assert_columns_of_cases(cases, f"both strands, cli {strand}")
    manifest = write_synthetic("paper", tmp_path / "paper", int(rng.integers(1 << 30)))
    for what, path in (("written", manifest), ("shuffled", _rows_shuffled(manifest, rng))):
        args.manifest = str(path)
        cases = _cases(args, STRAND_CHOICES["both"])
        assert len(cases) == 1010
        assert_columns_of_cases(cases, f"paper set, {what}")
