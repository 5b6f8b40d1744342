"""``gpu`` batches (``nw --pairs``): many pairs per launch, one warp per pair (batch.cu).

Each pair is solved in a band of W = 32 C diagonals (C cells per lane, in registers), row by
row: the vertical (D) and diagonal moves cell by cell, the horizontal gaps (I) as a prefix
minimum across the warp (Gotoh, as SPEC-workloads B2; linear costs are gap-open 0). The band is
exact when its score is at most ``band.escape_between`` (no path leaving it can do better):
  1. a score-only pass in a narrow band (``pre_band``): its score S >= the optimum;
  2. the traceback pass in the narrowest band class whose bound is >= S (``main_band``): its
     score is <= S, so it is certified, and it is the optimum.
The traceback pass keeps 2 bits a cell (linear: match / up / left) or 4 (affine: H's source,
D and I open or extend) in a device buffer sized from free memory (pairs in chunks), the warp's
lane 0 walks the path back from the end cell writing runs of moves, and a second kernel turns
each pair's runs into its CIGAR text (splitting the diagonal runs into = and X from the
letters) at offsets from a prefix sum: one copy back per chunk. Pairs the band cannot take
(an empty sequence, lengths too far apart or a score too high for the widest band, costs out of
range) go to the single-pair solver; ``algorithm`` says which ran (``band`` here)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from splicedalign.core.logs import Progress
from splicedalign.gpu import device
from splicedalign.workloads.nw.gpu.band import NO_ESCAPE, escape_bounds
from splicedalign.workloads.nw.gpu.common import Staging, Text, cut_cigars, lengths, results
from splicedalign.workloads.nw.records import MODES, OP_DEL, OP_INS, OP_MATCH, OP_MISMATCH, Costs, Pair, Result

KERNEL_FILE = Path(__file__).with_name("batch.cu")
LANES = 32
# cells per lane C: bands of 128 ... 2,560 diagonals; affine costs (H and D in registers) up to
# C = 48 (at 64 the kernel spills 36 bytes a thread, at 80 540: nvcc -Xptxas -v for sm_90)
CLASSES = (4, 8, 16, 24, 32, 40, 48, 64, 80)
AFFINE_CLASSES = CLASSES[:7]
# the score-only pass's band spans |m - n| and at least this much on each side: 128 diagonals
# for pairs of lengths up to 32 apart (10 kb at 5%: their paths drift +-10-30 diagonals)
PRE_MARGIN = 48
SPLITS = (1 / 2, 2 / 3, 1 / 3)  # shares of a band's spare diagonals placed below the pair's
WARPS = 4  # pairs (warps) per block
INF = 1 << 29  # a cell outside the sequences; every finite value stays below INF / 2
ALGORITHM = "band"
DEFINES = {"BAND_WARPS": WARPS, "BAND_INF": INF, "MODE_GLOBAL": MODES.index("global"),
           "MODE_PREFIX": MODES.index("prefix"), "MODE_INFIX": MODES.index("infix"), "OP_M": OP_MATCH,
           "OP_X": OP_MISMATCH, "OP_D": OP_DEL, "OP_I": OP_INS}  # batch.defines.h
SWEEP = "nw_band<{cells}, {affine}>"
TEXT = "nw_band_text"
TEXT_THREADS = 128  # threads a block of the text kernel (a warp a pair)
NAMES = tuple(SWEEP.format(cells=c, affine="false") for c in CLASSES) + tuple(
    SWEEP.format(cells=c, affine="true") for c in AFFINE_CLASSES) + (TEXT,)
DESCRIPTOR = 7  # int64 fields per pair: a offset, b offset, n, m, lo, dirs offset (words), runs offset
OUT = 4  # int32 fields per pair: score, end2, start2, runs


def bits_per_cell(affine: bool) -> int:
    return 4 if affine else 2


def words_per_lane(cells: int, affine: bool) -> int:
    return -(-cells * bits_per_cell(affine) // 32)


@dataclass(frozen=True)
class WarpBand:
    """Diagonals lo .. lo + 32 C - 1 (j - i) of one pair; C cells per lane (0: none)."""

    cells: int
    lo: int

    @property
    def hi(self) -> int:
        return self.lo + LANES * self.cells - 1


def usable(n: np.ndarray, m: np.ndarray, costs: Costs) -> np.ndarray:
    """Which pairs the band kernels take: both sequences non-empty, gap-extend >= 0 (the
    certificate), and every score and INF sum far from the int32 limit."""
    widest = max(abs(costs.match), abs(costs.mismatch), abs(costs.indel), costs.gap_open)
    bound = costs.bound(n, m)  # element-wise
    return (n > 0) & (m > 0) & (costs.indel >= 0) & (bound + 1024 * widest < INF // 2)


def placements(n: np.ndarray, m: np.ndarray, cells: int, split: float) -> tuple[np.ndarray, np.ndarray]:
    """(lo, fits) of bands of class ``cells`` around diagonals 0 .. m - n, ``split`` of the spare
    diagonals below them; fits is False where the band cannot hold both."""
    delta = m - n
    spare = LANES * cells - 1 - np.abs(delta)
    lo = np.minimum(0, delta) - (np.maximum(spare, 0) * split).astype(np.int64)
    return lo, spare >= 0


def classes(costs: Costs) -> tuple[int, ...]:
    return AFFINE_CLASSES if costs.affine else CLASSES


def pre_bands(n: np.ndarray, m: np.ndarray, costs: Costs) -> tuple[np.ndarray, np.ndarray]:
    """(cells, lo) of the score-only pass: the narrowest class spanning |m - n| + 2 PRE_MARGIN
    (cells 0: none does)."""
    cells = np.zeros(n.size, dtype=np.int64)
    for c in reversed(classes(costs)):
        cells[LANES * c > np.abs(m - n) + 2 * PRE_MARGIN] = c
    lo = np.zeros(n.size, dtype=np.int64)
    for c in CLASSES:
        at = cells == c
        lo[at] = placements(n[at], m[at], c, 1 / 2)[0]
    return cells, lo


def main_bands(costs: Costs, mode: str, n: np.ndarray, m: np.ndarray, score: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(cells, lo): per pair the narrowest class, placed as the best of SPLITS, whose escape
    bound is >= ``score`` (an upper bound of the optimum), so that its best score is the
    optimum; cells 0 where even the widest is not."""
    cells = np.zeros(n.size, dtype=np.int64)
    lo = np.zeros(n.size, dtype=np.int64)
    todo = np.ones(n.size, dtype=bool)
    for c in classes(costs):
        for split in SPLITS:
            at = np.flatnonzero(todo)
            if not at.size:
                return cells, lo
            band_lo, fits = placements(n[at], m[at], c, split)
            bound = escape_bounds(costs, mode, n[at], m[at], band_lo, band_lo + LANES * c - 1)
            good = fits & ((bound == NO_ESCAPE) | (bound >= score[at]))
            cells[at[good]], lo[at[good]] = c, band_lo[good]
            todo[at[good]] = False
    return cells, lo


def certified(costs: Costs, mode: str, n: np.ndarray, m: np.ndarray, cells: np.ndarray, lo: np.ndarray,
              score: np.ndarray) -> np.ndarray:
    bound = escape_bounds(costs, mode, n, m, lo, lo + LANES * cells - 1)
    return (bound == NO_ESCAPE) | (score <= bound)


@dataclass
class Answers:
    """A pass's answers, indexed like the batch: score, end2, start2 (int arrays), CIGARs."""

    score: np.ndarray
    end2: np.ndarray
    start2: np.ndarray
    cigars: list[str | None]

    @classmethod
    def empty(cls, count: int) -> Answers:
        return cls(np.zeros(count, np.int64), np.zeros(count, np.int64), np.zeros(count, np.int64), [None] * count)


class BatchSolver:
    """The band kernels over a batch (see the module's docstring); ``solve_many`` answers in
    input order, handing the pairs the band cannot take to ``single``."""

    def __init__(self, single: Callable[[Pair, Costs, bool, str], Result], name: str = "gpu",
                 poison: bool = False, memory_cap: int | None = None) -> None:
        self.cp = device.cupy()
        self.single = single
        self.name = name
        self.poison = poison  # fill the moves and runs buffers with garbage first (tests)
        self.memory_cap = memory_cap
        self.pinned = device.PinnedBuffers()
        self.stats: dict[str, Any] = {}  # of the last batch: pairs per class, ms

    def kernel(self, name: str) -> Any:
        assert name in NAMES, name
        return device.function(KERNEL_FILE, name, (name,), DEFINES)

    def solve_many(self, pairs: Sequence[Pair], costs: Costs, traceback: bool = True,
                   mode: str = "global") -> list[Result]:
        t0 = time.perf_counter()
        count = len(pairs)
        n, m = lengths(pairs)
        cells_total = int(np.sum(n * m))
        progress = Progress(f"nw {count} pairs ({self.name})", max(1, cells_total), count, "pairs")
        done = [0, 0]

        def finished(ks: np.ndarray) -> None:
            done[0] += int(ks.size)
            done[1] += int(np.sum(n[ks] * m[ks]))
            progress.update(done[1], done_items=done[0])

        pre_cells, pre_lo = pre_bands(n, m, costs)
        pre_cells[~usable(n, m, costs)] = 0
        ks = np.flatnonzero(pre_cells)
        answers = Answers.empty(count)
        cells = np.zeros(count, dtype=np.int64)
        self.stats = {"pre": _class_counts(pre_cells[ks])}
        if ks.size:
            seqs, offsets = self.upload(pairs, n, m, ks)
            self.stats["upload_ms"] = (time.perf_counter() - t0) * 1e3
            rough = self.sweep(seqs, offsets, n, m, ks, pre_cells, pre_lo, costs, mode, False)
            self.stats["pre_ms"] = (time.perf_counter() - t0) * 1e3 - self.stats["upload_ms"]
            main_cells, main_lo = main_bands(costs, mode, n[ks], m[ks], rough.score[ks])
            if not traceback:  # the narrow band's score when it certifies itself
                own = certified(costs, mode, n[ks], m[ks], pre_cells[ks], pre_lo[ks], rough.score[ks])
                main_cells[own] = 0
                cells[ks[own]] = pre_cells[ks[own]]
                answers.score[ks[own]], answers.end2[ks[own]] = rough.score[ks[own]], rough.end2[ks[own]]
                finished(ks[own])
            cells_all = np.zeros(count, dtype=np.int64)
            lo_all = np.zeros(count, dtype=np.int64)
            cells_all[ks], lo_all[ks] = main_cells, main_lo
            run = ks[main_cells > 0]
            self.stats["main"] = _class_counts(cells_all[run])
            if run.size:
                t1 = time.perf_counter()
                got = self.sweep(seqs, offsets, n, m, run, cells_all, lo_all, costs, mode, traceback, finished)
                if not certified(costs, mode, n[run], m[run], cells_all[run], lo_all[run], got.score[run]).all():
                    raise RuntimeError("gpu batch: a band's score is above its escape bound (a bug)")
                answers.score[run], answers.end2[run], answers.start2[run] = (
                    got.score[run], got.end2[run], got.start2[run])
                for k in run.tolist():
                    answers.cigars[k] = got.cigars[k]
                cells[run] = cells_all[run]
                self.stats["main_ms"] = (time.perf_counter() - t1) * 1e3
        seconds = time.perf_counter() - t0
        banded = cells > 0
        share = seconds / max(1, int(np.sum(n[banded] * m[banded])))
        cells_each = (n * m).tolist()
        out = results(answers.score.tolist(), cells_each, self.name, [share * c for c in cells_each], answers.cigars,
                      answers.start2.tolist(), answers.end2.tolist(), ALGORITHM)
        for k in np.flatnonzero(~banded).tolist():
            out[k] = self.single(pairs[k], costs, traceback, mode)
            finished(np.array([k]))
        self.stats["single"] = int(np.count_nonzero(~banded))
        self.stats["ms"] = (time.perf_counter() - t0) * 1e3
        return out

    def upload(self, pairs: Sequence[Pair], n: np.ndarray, m: np.ndarray, ks: np.ndarray) -> tuple[Any, np.ndarray]:
        """The sequences of pairs ``ks`` in one device buffer (a, b of each, in order) and every
        pair's offsets (a, b) in it (rows of pairs not uploaded: 0)."""
        staging = Staging(self.pinned, "seqs", [pairs[k] for k in ks.tolist()], n[ks], m[ks],
                          self.cp.cuda.get_current_stream())
        staging.send_all()
        offsets = np.zeros((len(pairs), 2), dtype=np.int64)
        offsets[ks] = staging.starts.reshape(-1, 2)
        return staging.raw, offsets

    def sweep(self, seqs: Any, offsets: np.ndarray, n: np.ndarray, m: np.ndarray, ks: np.ndarray,
              cells: np.ndarray, lo: np.ndarray, costs: Costs, mode: str, traceback: bool,
              on_chunk: Callable[[np.ndarray], None] | None = None) -> Answers:
        """One pass over pairs ``ks`` in their bands (cells, lo: arrays over the batch), a launch
        per class and memory chunk."""
        cp = self.cp
        affine = costs.affine
        match, mismatch, open_, extend = costs.as_affine()
        out = Answers.empty(n.size)
        for c in sorted(set(cells[ks].tolist())):
            members = ks[cells[ks] == c]
            dirs_words = n[members] * LANES * words_per_lane(c, affine) if traceback else np.zeros_like(members)
            runs_words = n[members] + m[members] + 1 if traceback else np.zeros_like(members)
            for chunk in self.chunks(members, dirs_words, runs_words):
                at = np.searchsorted(members, chunk)
                dirs_at = np.concatenate([[0], np.cumsum(dirs_words[at])])
                runs_at = np.concatenate([[0], np.cumsum(runs_words[at])])
                desc = np.stack([offsets[chunk, 0], offsets[chunk, 1], n[chunk], m[chunk], lo[chunk],
                                 dirs_at[:-1], runs_at[:-1]], axis=1)
                desc_dev = cp.asarray(desc)
                result = cp.empty((chunk.size, OUT), dtype=cp.int32)
                dirs = cp.empty(max(1, int(dirs_at[-1])), dtype=cp.uint32) if traceback else None
                runs = cp.empty(max(1, int(runs_at[-1])), dtype=cp.uint32) if traceback else None
                if self.poison and traceback:
                    dirs.fill(0xA5A5A5A5)
                    runs.fill(0x5A5A5A5A)
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                start.record()
                self.kernel(SWEEP.format(cells=c, affine="true" if affine else "false"))(
                    (-(-chunk.size // WARPS),), (WARPS * LANES,),
                    (seqs, desc_dev, np.int32(chunk.size), np.int32(MODES.index(mode)), np.int32(match),
                     np.int32(mismatch), np.int32(open_), np.int32(extend), dirs if traceback else np.uint64(0),
                     runs if traceback else np.uint64(0), result))
                stop.record()
                if traceback:
                    stop.synchronize()  # (so that text_ms is the texts' own time)
                    t1 = time.perf_counter()
                    for k, cigar in zip(chunk.tolist(), cigar_texts(self.pinned, desc_dev, runs, result, chunk.size)):
                        out.cigars[k] = cigar
                    self.stats["text_ms"] = self.stats.get("text_ms", 0.0) + (time.perf_counter() - t1) * 1e3
                device.check(cp)
                key = "sweep_ms" if on_chunk is not None else "narrow_ms"  # the main pass or the narrow one
                self.stats[key] = self.stats.get(key, 0.0) + cp.cuda.get_elapsed_time(start, stop)
                got = result.get().astype(np.int64)
                out.score[chunk], out.end2[chunk], out.start2[chunk] = got[:, 0], got[:, 1], got[:, 2]
                del dirs, runs
                if on_chunk is not None:
                    on_chunk(chunk)
        return out

    def chunks(self, members: np.ndarray, dirs_words: np.ndarray, runs_words: np.ndarray) -> list[np.ndarray]:
        """``members`` in runs whose moves, runs and text buffers fit the device memory budget."""
        need = 4 * dirs_words + 4 * runs_words + 16 * runs_words
        if not need.any():
            return [members]
        budget = device.memory_budget(self.memory_cap) // 2  # the rest: descriptors, the pool's slack
        worst = int(np.argmax(need))
        device.require_memory(int(need[worst]), budget, f"gpu batch: the band of pair {int(members[worst]) + 1}")
        out, first, used = [], 0, 0
        for x, size in enumerate(need.tolist()):
            if used + size > budget:
                out.append(members[first:x])
                first, used = x, 0
            used += size
        out.append(members[first:])
        return out


def cigar_texts(pinned: device.PinnedBuffers, desc: Any, runs: Any, result: Any, count: int, stream: Any = None,
                role: str = "text") -> list[str | None]:
    """Each pair's CIGAR (``cigar_text``'s text cut at its offsets)."""
    return cut_cigars(*cigar_text(pinned, desc, runs, result, count, stream, role), range(count))


def cigar_text(pinned: device.PinnedBuffers, desc: Any, runs: Any, result: Any, count: int, stream: Any = None,
               role: str = "text") -> tuple[Text, list[int]]:
    """The pairs' CIGARs one after another, and where each starts (count + 1 offsets), from the
    runs a walk back wrote (this module's and wfa.py's kernels: the pair's runs offset in
    DESCRIPTOR field 6, their count in OUT field 3), on ``stream`` (the current one by default):
    the text kernel counts each one's characters (``text_lengths``), which come back (a pinned
    buffer, ``role``-at) to be summed and written (``write_text``)."""
    cp = device.cupy()
    stream = cp.cuda.get_current_stream() if stream is None else stream
    lengths = pinned.copy(role + "-at", text_lengths(desc, runs, result, count, stream), stream)  # (synchronises)
    return write_text(desc, runs, result, lengths, stream)


def text_lengths(desc: Any, runs: Any, result: Any, count: int, stream: Any) -> Any:
    """Each pair's CIGAR text's length (a device int64 array), the text kernel's count queued on ``stream``."""
    cp = device.cupy()
    with stream:
        lengths = cp.zeros(count, dtype=cp.int64)
        text_kernel()(*_text_grid(count), (desc, runs, result, np.int32(count), lengths, np.uint64(0)))
    return lengths


def write_text(desc: Any, runs: Any, result: Any, lengths: np.ndarray, stream: Any) -> tuple[Text, list[int]]:
    """``cigar_text`` once the texts' ``lengths`` are on the host: summed here (CuPy's cumsum on
    the device first loads its scan kernel: 39 ms of a fresh ``nw --pairs`` on the H200 host), the
    texts written at those offsets (sent up), the text back into a page-locked buffer of its own
    (``text_buffer``), left as ASCII bytes: ``cut_cigars`` decodes what is read (the decoding of
    a 5 MB text took 0.59 ms of a 2,000-pair batch on the H200 host, where a caller may read a
    few CIGARs or none; bytes() of a pinned view first cost a fresh 5 MB allocation's page
    faults: ~5 ms)."""
    cp = device.cupy()
    count = lengths.size
    at = np.zeros(count + 1, np.int64)
    np.cumsum(lengths, out=at[1:])
    if not at[-1]:
        return "", at.tolist()
    with stream:
        offsets = cp.asarray(at)  # (16 kB for 2,000 pairs: no pinned buffer, whose first allocation takes ms)
        text = cp.empty(int(at[-1]), dtype=cp.uint8)
        text_kernel()(*_text_grid(count), (desc, runs, result, np.int32(count), offsets, text))
        host = text_buffer(text.size)
        text.get(stream=stream, out=host)  # (synchronises)
    return memoryview(host), at.tolist()


def text_buffer(size: int) -> np.ndarray:
    """``size`` bytes of page-locked memory that the answers keep (a role's buffer would be
    overwritten by the next batch's text while a caller still holds these answers): from CuPy's
    pinned pool, which reuses a freed block of the same size only, so rounded up to a power of two
    (a process's batches then share a few sizes)."""
    return device.empty_pinned(1 << max(16, (size - 1).bit_length()), np.uint8)[:size]


def text_kernel() -> Any:
    """batch.cu's nw_band_text (the CIGAR text from a walk's runs; device.function looks it up once)."""
    return device.function(KERNEL_FILE, TEXT, (TEXT,), DEFINES)


def _text_grid(count: int) -> tuple[tuple[int], tuple[int]]:
    return (-(-count * LANES // TEXT_THREADS),), (TEXT_THREADS,)  # a warp a pair


def _class_counts(cells: np.ndarray) -> dict[int, int]:
    values, counts = np.unique(cells, return_counts=True)
    return {int(v): int(c) for v, c in zip(values, counts)}
