"""The shared staging buffer of GPU uploads under threads, without a GPU: a fake CuPy whose
host-to-device copies read the pinned buffer only when their stream's event is waited for (as a
real asynchronous copy may), and two threads that pack at the same moment. Each thread's device
arrays must hold its own inputs (one solver per GPU shares a module's PinnedBuffers)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest

from splicedalign.gpu import device


class FakeStream:
    """Queued copies run in order when an event recorded after them is waited for."""

    def __init__(self):
        self.pending = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def finish(self):
        while self.pending:
            self.pending.pop(0)()

    def record(self):
        return SimpleNamespace(synchronize=self.finish)


class FakeBlock:
    """A device allocation: ``set`` queues a copy that reads its source when the stream's event is
    synchronised, not before."""

    def __init__(self, nbytes):
        self.data = np.zeros(nbytes, np.uint8)

    def set(self, source, stream):
        stream.pending.append(lambda: np.copyto(self.data, source))

    def __getitem__(self, key):
        return self.data[key]


@pytest.fixture
def fake_cupy(monkeypatch):
    meet = threading.Barrier(2)

    def empty(nbytes, dtype):
        try:  # both threads have packed here unless one of them is held back (the lock)
            meet.wait(timeout=0.3)
        except threading.BrokenBarrierError:
            meet.reset()
        return FakeBlock(nbytes)

    monkeypatch.setattr(device, "cupy", lambda: SimpleNamespace(empty=empty, uint8=np.uint8))
    monkeypatch.setattr(device, "empty_pinned", lambda n, dtype: np.empty(n, dtype))


def test_concurrent_uploads_keep_their_own_inputs(fake_cupy):
    shared = device.PinnedBuffers()
    outputs, streams = {}, {}

    def one(k):
        stream = streams[k] = FakeStream()
        arrays = [np.full(1000, k, np.int32), np.arange(7, dtype=np.int64) * (k + 1)]
        views = shared.upload("inputs", arrays, stream)
        outputs[k] = (arrays, views)

    threads = [threading.Thread(target=one, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for stream in streams.values():  # the copies still queued happen now
        stream.finish()
    for k, (arrays, views) in outputs.items():
        for a, v in zip(arrays, views):
            assert np.array_equal(np.asarray(v), a), f"thread {k}'s upload holds another thread's data"


def test_concurrent_fills_keep_their_own_inputs(fake_cupy):
    """fill: many arrays concatenated straight into the shared buffer, one copy each."""
    shared = device.PinnedBuffers()
    outputs, streams = {}, {}

    def one(k):
        stream = streams[k] = FakeStream()
        arrays = [np.full(300 + 7 * x, k * 10 + x, np.uint8) for x in range(5)]
        want = np.concatenate(arrays)
        outputs[k] = (want, shared.fill("inputs", want.size, lambda view: np.concatenate(arrays, out=view), stream))

    threads = [threading.Thread(target=one, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for stream in streams.values():
        stream.finish()
    for k, (want, block) in outputs.items():
        assert np.array_equal(block.data, want), f"thread {k}'s fill holds another thread's data"


def test_a_reserved_buffer_takes_the_copies_it_was_reserved_for_without_growing(fake_cupy, monkeypatch):
    """reserve: the role's buffer sized for one upload of all the blocks, so that uploading them
    in two copies allocates no pinned memory after it (a pinned allocation mid-call took 20-30 ms
    on the H100 host); each copy's arrays arrive intact."""
    made = []
    monkeypatch.setattr(device, "empty_pinned", lambda n, dtype: made.append(n) or np.empty(n, dtype))
    shared = device.PinnedBuffers()
    first = [np.arange(10 << 20, dtype=np.uint8), np.full(3_000, 5, np.int32)]  # 10 MiB: 16 MiB for it alone
    rest = [np.arange(7 << 20, dtype=np.int64)]  # 56 MiB more
    shared.reserve("inputs", [a.nbytes for a in first + rest])
    assert made == [1 << 27]  # a power of two above both copies' packed bytes, once
    for arrays in (first, rest):
        stream = FakeStream()
        views = shared.upload("inputs", arrays, stream)
        stream.finish()
        assert all(np.array_equal(np.asarray(v), a) for v, a in zip(views, arrays))
    assert made == [1 << 27]
    shared.reserve("inputs", [100])  # (smaller: kept)
    assert made == [1 << 27]


@pytest.mark.parametrize("threads", [1, 3])
def test_packing_in_pieces_on_threads_copies_every_byte(monkeypatch, threads):
    """device.pack: blocks copied at their offsets, piece by piece on PACK_THREADS threads where
    there are enough bytes (one thread, or a few bytes: in order); nothing outside them is written."""
    monkeypatch.setattr(device, "PACK_THREADS", threads)
    monkeypatch.setattr(device, "PACK_PIECE", 1000)
    rng = np.random.default_rng(5)
    blocks = [rng.integers(0, 256, n, dtype=np.uint8) for n in (12_345, 0, 999, 7_001, 1)]
    offsets, end = device._packed([b.size for b in blocks])
    buffer = np.full(end + 512, 7, np.uint8)
    device.pack(buffer, blocks, offsets)
    want = np.full(end + 512, 7, np.uint8)
    for b, at in zip(blocks, offsets):
        want[at:at + b.size] = b
    assert np.array_equal(buffer, want)
    taken = []  # many small blocks: in order on this thread, not on the threads (their hand-overs cost more)
    monkeypatch.setattr(device, "_packers", lambda: taken.append(1))
    small = [rng.integers(0, 256, 100, dtype=np.uint8) for _ in range(12)]
    offsets, end = device._packed([b.size for b in small])
    buffer = np.zeros(end, np.uint8)
    device.pack(buffer, small, offsets)
    assert not taken and all(np.array_equal(buffer[at:at + 100], b) for b, at in zip(small, offsets))


def test_a_layout_extended_in_its_room_is_packed_and_sent_as_one_copy(fake_cupy, monkeypatch):
    """PinnedBuffers.layout with ``room`` grows the role's buffer for it; ``extend`` lays more
    arrays out after the first ones (each 256-byte aligned) in that buffer, no pinned memory made
    for them; each part packed apart (the first before the rest exist), then one copy of all
    holds every array intact. Beyond the buffer, extend refuses."""
    made = []
    monkeypatch.setattr(device, "empty_pinned", lambda n, dtype: made.append(n) or np.empty(n, dtype))
    shared = device.PinnedBuffers()
    first = [np.arange(10 << 20, dtype=np.uint8), np.full(3_001, 5, np.int32)]
    later = [np.arange(1_000_003, dtype=np.int64), np.full((7, 12), -2, np.int32)]
    room = sum(a.nbytes for a in later) + 2 * 256
    packed = shared.layout("launch", first, room)
    assert made == [1 << 25]  # (16 MiB would hold the first ones alone)
    device.pack_part(packed, 0, len(first))
    packed = shared.extend("launch", packed, later)
    assert made == [1 << 25] and packed.arrays == first + later and all(o % 256 == 0 for o in packed.offsets[:-1])
    device.pack_part(packed, len(first), len(packed.arrays))
    stream = FakeStream()
    views = shared.send("launch", packed, 0, len(packed.arrays), stream)
    stream.finish()
    assert all(np.array_equal(np.asarray(v), a) for v, a in zip(views, first + later))
    small = device.PinnedBuffers()
    with pytest.raises(AssertionError, match="no room"):  # (a buffer of 16 MiB, the least made)
        small.extend("launch", small.layout("launch", [np.zeros(10)]), [np.zeros(3 << 20)])
