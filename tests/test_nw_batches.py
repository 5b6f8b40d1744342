"""PairBatch (nw/batches.py): a batch's letters in one buffer, its pairs made on demand equal to
Pair.from_strings of each, bad letters refused naming the record when a pair is made."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from splicedalign.core.errors import InputError
from splicedalign.workloads.nw.batches import PairBatch, total_cells
from splicedalign.workloads.nw.records import Pair


def _strings(rng, count):
    letters = np.frombuffer(b"ACGTacgtUuNnRy", np.uint8)
    return ["".join(map(chr, letters[rng.integers(0, letters.size, int(rng.integers(0, 40)))]))
            for _ in range(count)]


def test_pairs_of_a_batch_are_those_of_its_strings():
    seed = 2660
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    seqs1, seqs2 = _strings(rng, 9), _strings(rng, 9)
    batch = PairBatch.from_strings(seqs1, seqs2, [f"p{k}" for k in range(9)], [f"a{k}" for k in range(9)],
                                   [f"b{k}" for k in range(9)])
    assert len(batch) == 9 and batch.letters.dtype == np.uint8
    assert bytes(batch.letters).decode() == "".join(s for pair in zip(seqs1, seqs2) for s in pair)
    assert batch.n.tolist() == [len(s) for s in seqs1] and batch.m.tolist() == [len(s) for s in seqs2]
    for k, pair in enumerate(batch):
        want = Pair.from_strings(seqs1[k], seqs2[k], f"p{k}", f"a{k}", f"b{k}")
        assert (pair.name, pair.id1, pair.id2) == (want.name, want.id1, want.id2)
        assert np.array_equal(pair.a, want.a) and np.array_equal(pair.b, want.b)
        assert pair.a.dtype == want.a.dtype and pair.b.dtype == want.b.dtype
    assert [p.name for p in batch[2:5]] == ["p2", "p3", "p4"] and batch[-1].name == "p8"
    with pytest.raises(IndexError):
        batch[9]
    default = PairBatch.from_strings(["AC"], ["G"], allocate=lambda size: np.zeros(size + 3, np.uint8)[:size])
    assert (default[0].name, default[0].id1, default[0].id2, default.letters.tobytes()) == ("pair1", "seq1", "seq2",
                                                                                            b"ACG")


def test_a_batchs_cells_are_its_pairs_without_making_them(monkeypatch):
    """total_cells: a PairBatch's from its sizes (the progress of ``nw --pairs`` makes no pair's
    codes), equal to its pairs' summed."""
    seed = 2661
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    batch = PairBatch.from_strings(_strings(rng, 7), _strings(rng, 7))
    want = total_cells(list(batch))
    assert want == sum(p.n * p.m for p in batch)
    monkeypatch.setattr(PairBatch, "__getitem__", lambda self, k: pytest.fail("a pair made to count cells"))
    assert total_cells(batch) == want and isinstance(total_cells(batch), int)


def test_a_bad_letter_is_refused_naming_its_record_when_the_pair_is_made():
    batch = PairBatch.from_strings(["ACGT", "ACGT"], ["ACGT", "ACZT"], ["one", "two"], ["a1", "a2"], ["b1", "b2"])
    assert batch[0].n == 4  # the good pair is made
    with pytest.raises(InputError, match=r"'Z' at position 3 of record 'b2'"):
        batch[1]
    with pytest.raises(InputError, match="record 'a1'"):
        PairBatch.from_strings(["AC\u0394"], ["A"], None, ["a1"], ["b1"])[0]  # past latin-1: refused too


def test_a_batch_needs_its_sizes_to_fit_and_pair_up():
    with pytest.raises(ValueError, match="even number"):
        PairBatch(np.zeros(4, np.uint8), np.array([1, 2, 1]))
    with pytest.raises(ValueError, match="buffer holds 4"):
        PairBatch(np.zeros(4, np.uint8), np.array([3, 2]))
    with pytest.raises(ValueError, match="2 names"):
        PairBatch(np.zeros(4, np.uint8), np.array([1, 1]), ["x", "y"])
    with pytest.raises(ValueError):
        PairBatch.from_strings(["A", "C"], ["G"])  # (zip strict)


def test_strings_copied_by_address_in_shares_equal_the_string_by_string_copy(monkeypatch):
    from splicedalign.core import strmem
    from splicedalign.workloads.nw import batch_copy

    seed = 2690
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    seqs1, seqs2 = _strings(rng, 40), _strings(rng, 40)
    seqs2[5] = "ACGT" * 50  # (a string made at once, besides the joined ones)
    want = "".join(s for pair in zip(seqs1, seqs2) for s in pair).encode()
    assert strmem.STR_OFFSET is not None  # (CPython: the copy by address runs)
    monkeypatch.setattr(batch_copy, "COPY_SHARE", 64)
    monkeypatch.setattr(batch_copy.os, "cpu_count", lambda: 16)
    for threads in (1, 3, 8):  # one share, a few, as many as the pool has
        monkeypatch.setattr(batch_copy, "COPY_THREADS", threads)
        assert bytes(PairBatch.from_strings(seqs1, seqs2).letters) == want
    offset = strmem.STR_OFFSET
    monkeypatch.setattr(strmem, "STR_OFFSET", None)  # string by string
    assert bytes(PairBatch.from_strings(seqs1, seqs2).letters) == want
    # strings that are not plain ASCII str go string by string (their letters refused later)
    class Text(str):
        pass

    monkeypatch.setattr(strmem, "STR_OFFSET", offset)
    for odd in (Text("ACGT"), "AC\u00e9T"):
        mixed = PairBatch.from_strings(["ACGT", odd], ["A", "C"])
        assert bytes(mixed.letters) == b"ACGTA" + odd.encode("latin-1") + b"C"


def test_the_tables_of_strings_and_arrays_read_compiled_equal_pythons():
    """batch_copy.string_table and array_table (one compiled pass over a list's objects) give the
    addresses and sizes that core.strmem and array_addresses read in Python, and None for a list
    holding anything else (another type, a str subclass, letters past ASCII, an array that is not
    1-D bytes)."""
    from splicedalign.core import strmem
    from splicedalign.workloads.nw import batch_copy

    seed = 2695
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    strings = _strings(rng, 30) + ["ACGT" * 500, "", "a"]
    assert batch_copy.OBJECTS_BY_ADDRESS  # (CPython 64-bit: the compiled pass runs)
    where, sizes = batch_copy.string_table(strings)
    assert where.tolist() == strmem.str_addresses(strings).tolist() and sizes.tolist() == list(map(len, strings))
    assert batch_copy.string_addresses(strings, sizes).tolist() == where.tolist()
    assert batch_copy.string_addresses(strings, sizes + 1) is None

    class Text(str):
        pass

    for odd in (Text("ACGT"), "AC\u00e9T", "AC\u0100T", b"ACGT", 5):
        assert batch_copy.string_table([*strings, odd]) is None
    assert batch_copy.string_table(tuple(strings)) is None and batch_copy.string_table([]) is None
    arrays = [rng.integers(0, 4, int(rng.integers(0, 50))).astype(np.uint8) for _ in range(20)]
    arrays += [np.arange(10, dtype=np.int8), np.zeros(1, np.uint8)[::2], np.arange(30, dtype=np.uint8)[5:9]]
    where, sizes = batch_copy.array_table(arrays)
    assert sizes.tolist() == [a.size for a in arrays]
    assert where.tolist() == batch_copy.array_addresses(arrays, sizes).tolist() == [a.ctypes.data for a in arrays]
    for odd in (np.zeros(4, np.int64), np.zeros(6, np.uint8)[::2], np.zeros((2, 3), np.uint8), "ACGT"):
        assert batch_copy.array_table([*arrays, odd]) is None


def test_a_batchs_codes_of_a_slice_are_those_of_its_pair():
    seed = 2697
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    seqs1, seqs2 = _strings(rng, 6), _strings(rng, 6)
    for fill in (False, True):
        batch = PairBatch.from_strings(seqs1, seqs2)
        if fill:
            batch.filled(len(batch))
        for q in range(12):
            pair = batch[q // 2]
            whole = pair.b if q % 2 else pair.a
            for start, stop in ((0, 5), (3, 100), (0, whole.size), (whole.size, whole.size + 3)):
                assert np.array_equal(batch.codes(q, start, stop), whole[start:stop]), (q, start, stop)
    bad = PairBatch.from_strings(["ACGTxA"], ["AC"], ids1=["r1"])
    assert bad.codes(0, 0, 4).size == 4
    with pytest.raises(InputError, match="r1"):
        bad.codes(0, 2, 6)


def test_a_batch_from_strings_fills_its_buffer_when_read_or_pair_by_pair():
    seed = 2700
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    seqs1, seqs2 = _strings(rng, 7), _strings(rng, 7)
    seqs1[4] = "ACGU" * 30
    want = "".join(s for pair in zip(seqs1, seqs2) for s in pair).encode()
    batch = PairBatch.from_strings(seqs1, seqs2, allocate=lambda size: np.full(size, 0, np.uint8))
    assert not batch.complete
    early = batch[5]  # made from its strings
    assert np.array_equal(early.a, Pair.from_strings(seqs1[5], seqs2[5]).a) and batch.sequence(11) == seqs2[5]
    head = batch.filled(3)  # the first 3 pairs in the buffer, the rest not yet
    cut = sum(map(len, seqs1[:3])) + sum(map(len, seqs2[:3]))
    assert bytes(head[:cut]) == want[:cut] and not head[cut:].any() and not batch.complete
    assert [p.name for p in batch] == [f"pair{k + 1}" for k in range(7)]
    assert np.array_equal(batch[5].b, early.b) and np.array_equal(batch[1].a, Pair.from_strings(seqs1[1], "A").a)
    assert bytes(batch.letters) == want and batch.complete and batch.sequence(8) == seqs1[4]


@pytest.mark.parametrize("enabled", (True, False))
def test_a_pairs_file_read_beside_equals_the_batch_read_here(tmp_path, monkeypatch, enabled):
    """`nw --pairs`' reading (pairs.batch_beside): with core.forked enabled, in a child process
    (where none can fork, here) writing the letters into memory shared with this process; else
    read here into the given buffer. Either way the batch read_batch makes; a bad file's error
    names the file and line (raised from the child)."""
    from splicedalign.core import forked
    from splicedalign.workloads.nw.pairs import batch_beside, read_batch

    monkeypatch.setattr(forked, "ENABLED", enabled)
    seed = 2690
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    seqs = [s or "N" for s in _strings(rng, 14)]
    path = tmp_path / "pairs.fa"
    path.write_text("".join(f">r{k} note\n" + "\n".join(s[i:i + 7] for i in range(0, len(s), 7)) + "\n"
                            for k, s in enumerate(seqs)))
    beside, child = batch_beside(str(path))
    got, want = beside(None), read_batch(str(path))
    assert child == (enabled and threading.active_count() == 1)
    assert bytes(got.letters) == bytes(want.letters) == "".join(seqs).encode()
    assert got.sizes.tolist() == want.sizes.tolist() and got.complete
    assert (got.names, got.ids1, got.ids2) == (want.names, want.ids1, want.ids2) == (
        [f"r{k}~r{k + 1}" for k in range(0, 14, 2)], [f"r{k}" for k in range(0, 14, 2)],
        [f"r{k}" for k in range(1, 14, 2)])
    for p, q in zip(got, want):
        assert np.array_equal(p.a, q.a) and np.array_equal(p.b, q.b) and p.name == q.name
    bad = tmp_path / "bad.fa"
    bad.write_text(">a\nACGT\n>b\nAC\nG*T\n")
    with pytest.raises(InputError, match=r"bad\.fa.*line 5"):
        batch_beside(str(bad))[0](None)
    with pytest.raises(InputError, match="cannot read"):
        batch_beside(str(tmp_path / "missing.fa"))[0](None)
