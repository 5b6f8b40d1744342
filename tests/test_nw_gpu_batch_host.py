"""The batch host path shared by the GPU solvers (nw/gpu/common.py: chunks, staging, Results in
bulk) and the wavefront kernel's launch in chunks (gpu/wfa.py: a chunk's sequences sent while
the device runs the earlier ones, its texts made while it runs the later ones), without a GPU:
wfa.cu built for the host (tests/nw_emu/wfa_host.cpp), CuPy replaced by NumPy."""

from __future__ import annotations

import ctypes
import dataclasses
import time
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest
from helpers import kernel_host_build
from test_nw_gpu_batch_model import fake_gpu_host, model_text
from test_nw_gpu_wfa_model import COSTS, _pairs, emu, solver  # noqa: F401 (emu, solver: fixtures)

from splicedalign.core.errors import InputError
from splicedalign.gpu import device
from splicedalign.workloads.nw import batch_copy
from splicedalign.workloads.nw.batches import PairBatch
from splicedalign.workloads.nw.gpu import batch, common, wfa
from splicedalign.workloads.nw.records import MODES, Costs, Pair, Result, cigar_cost
from splicedalign.workloads.nw.reference import ReferenceSolver

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def host(monkeypatch):
    return fake_gpu_host(monkeypatch, 1 << 30)


def test_chunk_bounds_cover_the_batch_in_order_growing(monkeypatch):
    monkeypatch.setattr(common, "FIRST_CHUNK_BYTES", 100)
    monkeypatch.setattr(common, "CHUNK_BYTES", 450)
    sizes = np.array([30, 40, 20, 500, 10, 10, 60, 70, 80, 90, 100, 5, 5, 5], np.int64)
    chunks = common.chunk_bounds(sizes)
    assert chunks[0][0] == 0 and chunks[-1][1] == sizes.size
    assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(chunks, chunks[1:]))
    limit = 100
    for c0, c1 in chunks:  # within the chunk's limit, or a single pair larger than it
        assert sizes[c0:c1].sum() <= limit or c1 == c0 + 1
        if c1 < sizes.size:  # and as many pairs as fit
            assert sizes[c0:c1 + 1].sum() > limit
        limit = min(2 * limit, 450)
    assert common.chunk_bounds(np.zeros(0, np.int64)) == []
    monkeypatch.undo()  # 2,000 pairs of 10 kb (40 MB, 38 MiB): 2, 4, 8, 16 MiB and the rest
    assert len(common.chunk_bounds(np.full(2000, 20_000))) == 5


def test_piece_rows_cut_chunk_c_into_two_to_the_c_pieces_up_to_the_threads():
    """Chunk c's sequences in min(threads, 2^c) consecutive pieces of about equal bytes (a
    sequence in the piece of its middle byte), then empty rows up to ``threads``, chunk after
    chunk, each row's offset its first sequence's."""
    rng = np.random.default_rng(2640)
    print("seed 2640")
    sizes = rng.integers(1, 50, 2 * 60)
    starts = np.cumsum(sizes) - sizes
    chunks = common.chunk_bounds(sizes.reshape(-1, 2).sum(axis=1), 100, 800)
    assert len(chunks) > 4
    for threads in (1, 3, 8):
        rows = common.piece_rows(sizes, starts, chunks, threads)
        assert rows.shape == (threads * len(chunks), 3)
        for c, (c0, c1) in enumerate(chunks):
            mine = rows[c * threads:(c + 1) * threads]
            cut = min(threads, 2 ** c)
            assert mine[0, 0] == 2 * c0 and mine[cut - 1, 1] == 2 * c1 and (mine[cut:, 0] == mine[cut:, 1]).all()
            assert (mine[1:, 0] == mine[:-1, 1]).all() and (mine[:, 0] <= mine[:, 1]).all()
            nonempty = mine[mine[:, 0] < mine[:, 1]]
            assert (nonempty[:, 2] == starts[nonempty[:, 0]]).all()
            share = sizes[2 * c0:2 * c1].sum() / cut
            for q0, q1, _ in mine:  # within a sequence of its share
                assert sizes[q0:q1].sum() <= share + sizes[2 * c0:2 * c1].max()


@pytest.fixture
def pieces(host, monkeypatch):
    """Small chunks and pieces, device arrays made full of 99 (every byte must be overwritten),
    and the pieces the copying threads copied: (sequences, bytes) each, from batch_copy._copy_at."""
    monkeypatch.setattr(common, "FIRST_CHUNK_BYTES", 60)
    monkeypatch.setattr(common, "CHUNK_BYTES", 200)
    monkeypatch.setattr(common, "PIECES_FIRST_BYTES", 40)
    monkeypatch.setattr(common, "PIECES_CHUNK_BYTES", 120)
    monkeypatch.setattr(batch_copy, "copy_threads", lambda: 3)
    empty = host.empty
    monkeypatch.setattr(host, "empty", lambda shape, dtype: _filled(empty(shape, dtype)))
    copied = []
    copy, copy_pieces = batch_copy._copy_at, batch_copy.copy_pieces

    def spy(addresses, sizes, out):
        copied.append((int(sizes.size), int(sizes.sum())))
        copy(addresses, sizes, out)

    def spy_pieces(addresses, sizes, out, pieces, mine, done):
        copied.extend((int(q1 - q0), int(sizes[q0:q1].sum())) for q0, q1, _ in pieces[mine])
        copy_pieces(addresses, sizes, out, pieces, mine, done)

    monkeypatch.setattr(batch_copy, "_copy_at", spy)
    monkeypatch.setattr(batch_copy, "copy_pieces", spy_pieces)
    return copied


def _filled(array):
    array.fill(99)
    return array


@pytest.mark.parametrize("background", (True, False))
def test_staging_sends_each_chunk_into_its_place(pieces, host, monkeypatch, background):
    """A list of Pair whose codes are byte arrays: copied by address in pieces on the copying
    threads (chunk c in min(3, 2^c) pieces here), else each chunk gathered when sent;
    arrays of other types or strided ones always the latter."""
    monkeypatch.setattr(common, "BACKGROUND", background)
    rng = np.random.default_rng(2630)
    print("seed 2630")
    pairs = [Pair(f"p{k}", "a", "b", rng.integers(0, 4, int(rng.integers(1, 50))).astype(np.uint8),
                  rng.integers(0, 4, int(rng.integers(1, 50))).astype(np.uint8)) for k in range(9)]
    n, m = common.lengths(pairs)
    want = np.concatenate([s for p in pairs for s in (p.a, p.b)])
    before = time.perf_counter()
    staging = common.Staging(device.PinnedBuffers(), "t", pairs, n, m, host.cuda.get_current_stream())
    # (by pieces: chunks from PIECES_FIRST_BYTES up to PIECES_CHUNK_BYTES)
    assert staging.chunks == (common.chunk_bounds(n + m, 40, 120) if background else common.chunk_bounds(n + m))
    assert len(staging.chunks) > 2
    for c in range(len(staging.chunks)):  # (the roles rotate, 3: the fourth chunk gathered reuses the first's)
        assert staging.send(c) is staging.send(c)  # sent once
    staging.finish()
    assert np.array_equal(np.asarray(staging.raw), want)
    assert staging.sizes.tolist() == [x for p in pairs for x in (p.n, p.m)]
    if background:  # every sequence copied once, 3 rows a chunk (chunk 0 in 1 piece, 1 in 2, the others in 3)
        assert sum(count for count, _ in pieces) == 2 * len(pairs) and len(pieces) == 3 * len(staging.chunks)
        assert [count for count, _ in pieces].count(0) >= 3
        line = staging.timeline  # (the threads start once submitted, before or after the making ends)
        assert before <= min(line["started"]) and before <= line["made"] and len(line["sent"]) == len(staging.chunks)
    else:
        assert not pieces
    # sequences of other integer types, or a strided view: gathered (the first one, or any later one)
    for at in (0, 3):
        for other_a in (pairs[at].a.astype(np.int64), np.repeat(pairs[at].a, 2)[::2]):
            other = list(pairs)
            other[at] = Pair("other", "a", "b", other_a, pairs[at].b.astype(np.int16))
            copied = len(pieces)
            wide = common.Staging(device.PinnedBuffers(), "w", other, n, m, host.cuda.get_current_stream())
            wide.send_all()
            assert np.array_equal(np.asarray(wide.raw), want) and len(pieces) == copied
    for k, p in enumerate(pairs):
        a_at, b_at = staging.starts[2 * k], staging.starts[2 * k + 1]
        assert np.array_equal(np.asarray(staging.raw[a_at:a_at + p.n]), p.a)
        assert np.array_equal(np.asarray(staging.raw[b_at:b_at + p.m]), p.b)


def test_a_chunk_waits_only_for_the_threads_with_a_piece_of_it(host, monkeypatch):
    """Rows of a chunk without sequences are flagged when the staging is made: the first chunk is
    sent once the first thread has copied it, before the other threads start."""
    monkeypatch.setattr(common, "PIECES_FIRST_BYTES", 40)
    monkeypatch.setattr(common, "PIECES_CHUNK_BYTES", 120)
    monkeypatch.setattr(batch_copy, "copy_threads", lambda: 4)
    held = []

    class Later:  # a pool whose jobs run when the test says
        def submit(self, job, *args):
            future = Future()
            held.append((future, job, args))
            return future

    monkeypatch.setattr(batch_copy, "copiers", lambda: Later())
    rng = np.random.default_rng(2650)
    print("seed 2650")
    pairs = [Pair(f"p{k}", "a", "b", rng.integers(0, 4, 15).astype(np.uint8), rng.integers(0, 4, 15).astype(np.uint8))
             for k in range(12)]
    staging = common.Staging(device.PinnedBuffers(), "t", pairs, *common.lengths(pairs), host.cuda.get_current_stream())
    assert staging.chunks[:3] == [(0, 1), (1, 3), (3, 7)] and len(held) == 4
    assert staging._done[:12].tolist() == [0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0]  # chunk c: 2^c pieces of 4 rows
    future, job, args = held[0]
    future.set_result(job(*args))  # the first thread alone: chunk 0 can go
    staging.send(0)
    for future, job, args in held[1:]:
        future.set_result(job(*args))
    staging.send_all()
    assert np.array_equal(np.asarray(staging.raw), np.concatenate([s for p in pairs for s in (p.a, p.b)]))


def test_results_in_bulk_equal_the_dataclass():
    args = ([5, -2, 0], [100, 1, 0], "gpu", [0.5, 0.25, 0.0], ["3=1X", None, ""], [0, 4, 0], [10, 7, 0], "wfa")
    got = common.results(*args)
    want = [Result(s, c, "gpu", t, cig, a, b, "wfa") for s, c, t, cig, a, b in zip(*args[:2], *args[3:7])]
    assert got == want and [hash(r) for r in got] == [hash(r) for r in want]
    assert [dataclasses.asdict(r) for r in got] == [dataclasses.asdict(r) for r in want]
    with pytest.raises(dataclasses.FrozenInstanceError):
        got[0].score = 1


def test_columns_make_each_result_when_asked_equal_to_the_dataclass():
    rows = np.array([1, -1, 0, -1, 2])
    columns = common.Columns(rows, [5, 7, 9], [10, 20, 30], 0.5, "gpu", "wfa", [0, 1, 2], [10, 11, 12],
                             "3=1X2D", [0, 2, 4, 6])
    want = [Result(7, 20, "gpu", 10.0, "1X", 1, 11, "wfa"), None, Result(5, 10, "gpu", 5.0, "3=", 0, 10, "wfa"),
            None, Result(9, 30, "gpu", 15.0, "2D", 2, 12, "wfa")]
    first = columns[4]
    assert list(columns) == want and columns[0] is columns[0] and columns[1:3] == want[1:3]
    assert columns[4] is first and [r for r in columns][0] is columns[0]  # made once
    assert [dataclasses.asdict(r) for r in columns if r] == [dataclasses.asdict(r) for r in want if r]
    assert len(columns) == 5 and columns.missing() == [1, 3]
    columns[3] = want[0]
    assert columns.missing() == [1] and columns[3] is want[0]
    none = common.Columns.none(3)
    assert list(none) == [None] * 3 and none.missing() == [0, 1, 2]
    scores = common.Columns(np.array([0]), [4], [1], 0.0, "gpu", "wfa", [0], [1])  # without the alignment
    assert scores[0] == Result(4, 1, "gpu", 0.0, None, 0, 1, "wfa")


def test_columns_of_a_text_of_bytes_decode_what_is_read():
    """A text as the device wrote it (ASCII bytes, batch.write_text): a few CIGARs decoded each
    alone, many (or all) from the whole text decoded once and kept; the same Results as a str's."""
    cigars = [f"{k + 1}={k % 3 + 1}X" for k in range(200)]
    offsets = np.concatenate([[0], np.cumsum([len(c) for c in cigars])]).tolist()
    text = memoryview(np.frombuffer("".join(cigars).encode(), np.uint8))
    rows = np.arange(200)

    def columns(text):
        return common.Columns(rows, list(range(200)), [1] * 200, 0.0, "gpu", "wfa", [0] * 200, [1] * 200, text, offsets)

    got, want = columns(text), columns("".join(cigars))
    assert got[7] == want[7] and got[7].cigar == cigars[7] and not isinstance(got._text, str)  # (one decoded alone)
    assert list(got) == list(want) and isinstance(got._text, str)
    assert common.cut_cigars(text, offsets, [3, 150]) == [cigars[3], cigars[150]]
    assert common.cut_cigars(text, offsets, range(200)) == cigars == common.cut_cigars("".join(cigars), offsets,
                                                                                         range(200))


@pytest.mark.parametrize("background", (True, False))
def test_staging_sends_a_pair_batch_from_its_own_buffer(pieces, host, monkeypatch, background):
    """A PairBatch from strings: its letters copied into its own buffer (by address in pieces on
    the copying threads, else each chunk when sent) and sent from it; filled one in one copy."""
    monkeypatch.setattr(common, "BACKGROUND", background)
    seqs1, seqs2 = ["ACGT" * 9, "g", "NNa" * 20, "a" * 44], ["TT", "CCCCC" * 7, "u", "C" * 3]
    batch_ = PairBatch.from_strings(seqs1, seqs2)
    n, m = common.lengths(batch_)
    assert n.tolist() == [36, 1, 60, 44] and m.tolist() == [2, 35, 1, 3]
    staging = common.Staging(device.PinnedBuffers(), "t", batch_, n, m, host.cuda.get_current_stream())
    assert len(staging.chunks) > 1
    first = staging.send(0)
    assert staging.send(0) is first  # sent once
    staging.send_all()
    want = "".join(s for pair in zip(seqs1, seqs2) for s in pair).encode()
    assert batch_.complete and staging.letters and bytes(np.asarray(staging.raw)) == want
    assert bytes(batch_.letters) == want  # by address, chunk c in min(3, 2^c) pieces, else a chunk a copy
    if background:  # chunks of 2, 2, 4 sequences in 1, 2, 3 pieces (3 rows each: empty ones)
        assert staging.chunks == [(0, 1), (1, 2), (2, 4)]
        assert sorted(count for count, _ in pieces) == [0] * 3 + [1] * 4 + [2] * 2
    else:
        assert [count for count, _ in pieces] == [2, 4, 2]
    filled = common.Staging(device.PinnedBuffers(), "t", batch_, n, m, host.cuda.get_current_stream())
    assert filled.chunks == [(0, 4)] and filled.send(0) is filled.send(0)
    assert bytes(np.asarray(filled.raw)) == want
    # letters past ASCII: no reading by address, each chunk copied when sent (the device refuses them)
    other = PairBatch.from_strings(["ACGT", "g\u03a9"], ["TT", "C"])
    odd = common.Staging(device.PinnedBuffers(), "t", other, *common.lengths(other), host.cuda.get_current_stream())
    odd.send_all()
    assert bytes(np.asarray(odd.raw)) == b"ACGTTTg?C"


def test_staging_finished_unsent_fills_the_batch(pieces, host):
    """A staging finished without a chunk sent (a declined batch) has copied every piece, the
    caller's of chunk 0 too: the batch's buffer holds all its letters."""
    seqs1, seqs2 = ["ACGT" * 9, "g", "NNa" * 20, "a" * 44], ["TT", "CCCCC" * 7, "u", "C" * 3]
    batch_ = PairBatch.from_strings(seqs1, seqs2)
    staging = common.Staging(device.PinnedBuffers(), "t", batch_, *common.lengths(batch_),
                             host.cuda.get_current_stream())
    assert len(staging.chunks) > 1
    staging.finish()
    assert batch_.complete and bytes(batch_.letters) == "".join(s for p in zip(seqs1, seqs2) for s in p).encode()


def _letters(codes, wildcard, rng):
    """Codes as a user may write them: either case, U for T now and then, the wildcard N or R."""
    text = np.frombuffer(b"ACGT" + wildcard * 2, np.uint8)[codes].copy()
    text[(codes == 3) & (rng.random(codes.size) < 0.3)] = ord("U")
    lower = rng.random(codes.size) < 0.3
    text[lower] += 32
    return text.tobytes().decode()


@pytest.fixture
def chunked(solver, monkeypatch):  # noqa: F811 (the solver fixture)
    """WfaSolver on the host build (test_nw_gpu_wfa_model's solver) with chunks of a few pairs
    (more chunks than launch streams; the same whether gathered or copied by pieces)."""
    monkeypatch.setattr(common, "FIRST_CHUNK_BYTES", 200)
    monkeypatch.setattr(common, "CHUNK_BYTES", 700)
    monkeypatch.setattr(common, "PIECES_FIRST_BYTES", 200)
    monkeypatch.setattr(common, "PIECES_CHUNK_BYTES", 700)
    monkeypatch.setattr(wfa, "LAUNCH_STREAMS", 3)
    return solver


@pytest.mark.parametrize("mode", MODES)
def test_wfa_launch_in_chunks_answers_every_pair_in_order(chunked, mode):
    seed = 2640 + MODES.index(mode)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    reference = ReferenceSolver()
    pairs = _pairs(rng, 14, 200)
    chunks = common.chunk_bounds(np.array([p.n + p.m for p in pairs]))
    assert len(chunks) > wfa.LAUNCH_STREAMS
    for costs in (COSTS[0], COSTS[1]):
        _, x, o, e = wfa.cpu_wfa.reduced_costs(costs)
        reach = wfa.reach_table(x, o, e, 3000)
        visits = np.array([wfa.visits_upto(reach, p.n, p.m, mode, 3 if o else 1, 3001) for p in pairs])
        # the last pair's cap too small: it gives up (None) in its chunk, the others answer
        visits[-1] = 1
        for traceback in (True, False):
            got = chunked.launch(pairs, costs, traceback, mode, 3000, visits, 32)
            assert chunked.stats["chunks"] == len(chunks)
            assert got.score[-1] is None and (got.cigars[-1] is None)
            for k, pair in enumerate(pairs[:-1]):
                want = reference.solve(pair, costs, traceback=False, mode=mode).score
                assert got.score[k] == want, (k, pair.name, costs, mode)
                if traceback:
                    assert cigar_cost(got.cigars[k], pair.a, pair.b, costs, got.start2[k], got.end2[k]) == want
                else:
                    assert got.cigars[k] is None


def test_wfa_batch_results_are_the_kernels_answers(chunked, monkeypatch):
    """solve_many through the chunked launch: Results (built in bulk) in input order, None for the
    pairs it does not take (empty ones)."""
    rng = np.random.default_rng(2650)
    print("seed 2650")
    pairs = _pairs(rng, 10, 1400)
    pairs.insert(4, Pair("empty", "a", "b", np.zeros(0, np.uint8), np.array([1], np.uint8)))
    monkeypatch.setattr(wfa, "BATCH_THREADS", 64)
    monkeypatch.setattr(wfa, "BATCH_SHARE", 1e9)
    costs = Costs(0, 1, 3)
    reference = ReferenceSolver()
    got = chunked.solve_many(pairs, costs, True, "global")
    assert got[4] is None and chunked.stats["chunks"] > 1
    for pair, r in zip(pairs, got):
        if r is None:
            continue
        want = reference.solve(pair, costs, traceback=False).score
        assert (r.score, r.cells, r.solver, r.algorithm, r.start2, r.end2) == (want, pair.cells, "gpu", "wfa", 0,
                                                                               pair.m)
        # the batch's time shared by cells, stamped once the launch ended
        assert cigar_cost(r.cigar, pair.a, pair.b, costs) == want and r.seconds > 0


@pytest.mark.parametrize("mode", ("global", "prefix"))
def test_wfa_launch_of_a_pair_batch_makes_the_codes_on_the_device(chunked, mode, monkeypatch):
    """A PairBatch's letters go up as they are and the pack kernel makes the codes (wildcards
    never match): the answers equal those of the same pairs as codes; solve_many sends the batch
    before its sample and answers as Columns."""
    seed = 2670 + MODES.index(mode)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    pairs = _pairs(rng, 12, 300)
    letters = PairBatch.from_strings([_letters(p.a, b"N", rng) for p in pairs],
                                     [_letters(p.b, b"R", rng) for p in pairs])
    assert all(np.array_equal(p.a, q.a) and np.array_equal(p.b, q.b) for p, q in zip(pairs, letters))
    for costs in (COSTS[0], COSTS[1]):
        _, x, o, e = wfa.cpu_wfa.reduced_costs(costs)
        reach = wfa.reach_table(x, o, e, 3000)
        visits = np.array([wfa.visits_upto(reach, p.n, p.m, mode, 3 if o else 1, 3001) for p in pairs])
        want = chunked.launch(pairs, costs, True, mode, 3000, visits, 32)
        got = chunked.launch(letters, costs, True, mode, 3000, visits, 32)
        assert (got.score, got.end2, got.start2, got.cigars) == (want.score, want.end2, want.start2, want.cigars)
        assert None not in got.score
    monkeypatch.setattr(wfa, "BATCH_SHARE", 1e9)
    costs = COSTS[0]
    want_many = chunked.solve_many(pairs, costs, True, mode)
    fresh = PairBatch.from_strings([letters.sequence(2 * k) for k in range(len(letters))],
                                   [letters.sequence(2 * k + 1) for k in range(len(letters))])
    got_fresh = chunked.solve_many(fresh, costs, True, mode)  # filled chunk by chunk in the launch
    assert fresh.complete and chunked.stats["chunks"] > 1
    got_many = chunked.solve_many(letters, costs, True, mode)
    assert isinstance(got_many, common.Columns) and chunked.stats["chunks"] == 1  # (sent at once, before the sample)
    assert [r and (r.score, r.cigar) for r in got_fresh] == [r and (r.score, r.cigar) for r in got_many]
    assert [r and (r.score, r.cigar, r.start2, r.end2) for r in got_many] == [
        r and (r.score, r.cigar, r.start2, r.end2) for r in want_many]
    assert sum(r is not None for r in got_many) > 6


def test_a_bad_letter_on_the_device_is_refused_naming_its_record(chunked):
    seqs1, seqs2 = ["ACGTACGT"] * 5, ["ACGTACGA"] * 5
    seqs2[3] = "ACG*ACGA"
    letters = PairBatch.from_strings(seqs1, seqs2, [f"p{k}" for k in range(5)], ["a"] * 5, [f"b{k}" for k in range(5)])
    with pytest.raises(InputError, match=r"'\*' at position 4 of record 'b3'"):
        chunked.launch(letters, Costs(0, 1, 3), True, "global", 100, np.full(5, 10_000), 32)


@pytest.fixture(scope="module")
def text_emu(tmp_path_factory):
    """batch.cu's nw_band_text built for the host (tests/nw_emu/text_host.cpp: a warp's lanes as threads)."""
    return kernel_host_build(ROOT / "tests/nw_emu/text_host.cpp", batch.DEFINES, tmp_path_factory.mktemp("text"))


def test_text_kernel_a_warp_a_pair_on_the_host_build(text_emu, host, monkeypatch):
    """nw_band_text (a warp a pair, 32 runs a step) through cigar_texts: every pair's runs
    (0, fewer than, exactly and more than 32 of them; lengths of 1 to 6 digits) as the model's
    CIGAR, at the offsets of the counts' prefix sum."""

    def kernel(grid, block, args):
        desc, runs, out, count, at, text = args
        assert grid[0] * block[0] >= 32 * int(count)  # a warp for every pair
        text_emu.emu_nw_band_text(ctypes.c_int(int(count)), ctypes.c_int(block[0]),
                                  *(ctypes.c_void_p(a.ctypes.data if isinstance(a, np.ndarray) else 0)
                                    for a in (desc, runs, out, at, text)))

    monkeypatch.setattr(device, "function", lambda source, name, names, defines: kernel)
    rng = np.random.default_rng(2660)
    print("seed 2660")
    counts = [0, 1, 31, 32, 33, 64, 95, 7, 200, 0, 3]
    want, runs_at, pieces = [], [], []
    at = 0
    for count in counts:
        lengths = rng.choice([1, 9, 10, 99, 100, 12_345, 999_999], count) if count else np.zeros(0, np.int64)
        ops = rng.integers(0, 4, count)
        runs = [(int(n), int(op)) for n, op in zip(lengths, ops)]  # (backwards, as a walk writes them)
        want.append(model_text(runs))
        pieces.append(np.array([(n << 2) | op for n, op in runs], np.uint32))
        runs_at.append(at)
        at += count + 5  # (room between pairs)
    runs_dev = np.full(at + 1, 0xFFFFFFFF, np.uint32)
    for start, piece in zip(runs_at, pieces):
        runs_dev[start:start + piece.size] = piece
    desc = np.zeros((len(counts), batch.DESCRIPTOR), np.int64)
    desc[:, 6] = runs_at
    out = np.zeros((len(counts), batch.OUT), np.int32)
    out[:, 3] = counts
    wrap = host.asarray
    got = batch.cigar_texts(device.PinnedBuffers(), wrap(desc), wrap(runs_dev), wrap(out), len(counts))
    assert got == want


def test_host_code_covers_every_compiled_function_of_the_nw_gpu_solver(nw_gpu_host_code):
    """``python -m splicedalign.kernels host`` (and ``build``) runs every numba function the nw gpu
    solver's host code calls (gpu/wfa.py, gpu/band.py, segments.py, cigar.py, a batch's copies in
    batch_copy.py, the sample's CPU WFA in wfa_kernels.py), in a fresh process (no other test's
    calls; conftest's warm-up of that code, which prints each function's signatures): a function
    added there and not reached would compile on a user's first ``nw --solver gpu`` (the first
    CIGAR's text: 0.78 s on the H100 host). (Each is called as the solver calls it, with its
    argument types: checked against the solver's own calls on the host build, see the experiment
    log.)"""
    import json

    printed = [line for line in nw_gpu_host_code.splitlines() if line.startswith("{")]
    assert printed, nw_gpu_host_code[-3000:]
    functions = json.loads(printed[-1])
    # one called only by other compiled functions is compiled into them (loaded from the cache
    # with them: no signature of its own)
    names = {name.rsplit(".", 1)[1] for name in functions}
    callees = {name for used, _ in functions.values() for name in used if name in names}
    missed = [name for name, (_, signatures) in functions.items()
              if not signatures and name.rsplit(".", 1)[1] not in callees]
    assert len(functions) >= 40 and not missed, missed
