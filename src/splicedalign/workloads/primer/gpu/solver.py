"""Host side of ours, the `gpu` primer solver (bitparallel.cu), and the start batches both
primer GPU solvers run (the paper's design, `primer-paper`, is paper.py + paper.cu).

Both launch batches of consecutive starts and stop after the batch holding the first start
that has no answer. Every output slot is poisoned first and checked after, so a start the
kernel never wrote cannot pass as an answer."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from splicedalign.core.logs import log
from splicedalign.gpu import device
from splicedalign.workloads.primer import cpu_kernels
from splicedalign.workloads.primer.records import PrimerProblem, PrimerResult, result_from_prefixes

KERNEL_FILE = Path(__file__).with_name("bitparallel.cu")

PB_THREADS = 64  # threads per block (Peq of REG_WORDS words per thread in shared memory)
PB_OVERFLOW = -2  # a start whose active region outgrew the instance's words
DEFINES = {"PB_THREADS": PB_THREADS, "PB_OVERFLOW": PB_OVERFLOW}  # bitparallel.defines.h
REG_WORDS = 16  # register instance: 1,024 rows
LOCAL_WORDS = 128  # retry instance (local memory): 8,192 rows; beyond: the CPU sweep
NAMES = (f"bitparallel_registers<{REG_WORDS}>", f"bitparallel_local<{LOCAL_WORDS}>")
RESIDENT_THREADS = 512  # per SM at 122 registers per thread
RESIDENT_WAVES = 4  # threads launched per resident thread slot: segments balance uneven starts


class StartsSolver:
    """Batches of consecutive starts, poisoned, checked, until the first start without an answer."""

    name = ""
    batch = 1 << 16

    def __init__(self) -> None:
        self.cp = device.cupy()

    def solve(self, problem: PrimerProblem) -> PrimerResult:
        cp = self.cp
        t0 = time.perf_counter()
        total = problem.last_start
        prefixes = np.full(total, -1, dtype=np.int64)
        comps = cp.zeros(1, dtype=cp.uint64)
        alpha = cp.asarray(problem.alpha_codes)
        beta = self._beta(problem)
        r0 = 0
        while r0 < total:
            count = min(self.batch, total - r0)
            out = cp.full(count, device.POISON, dtype=cp.int32)
            self._launch(problem, alpha, beta, r0, count, out, comps)
            got = cp.asnumpy(out).astype(np.int64)
            got = self._retry(problem, alpha, beta, r0, got, comps)
            if (got == device.POISON).any():
                raise RuntimeError(f"{self.name}: {int((got == device.POISON).sum())} starts left unwritten")
            prefixes[r0:r0 + count] = got
            starts = np.arange(r0 + 1, r0 + count + 1)
            r0 += count
            log.info("primer [%s]: %d / %d starts", self.name, r0, total)
            if (starts + got > problem.m).any():
                break
        device.check(cp)
        return result_from_prefixes(problem, prefixes, int(comps.get()[0]), self.name, time.perf_counter() - t0)

    def _beta(self, problem: PrimerProblem):
        return self.cp.asarray(problem.beta_codes)

    def _launch(self, problem, alpha, beta, first, count, out, comps) -> None:
        raise NotImplementedError

    def _retry(self, problem, alpha, beta, first, got, comps) -> np.ndarray:
        return got


class GpuSolver(StartsSolver):
    """Ours: a thread per start, bit-parallel words in registers (bitparallel.cu)."""

    name = "gpu"
    min_segment_overlaps = 8  # a segment is at least this many overlaps long (1: checks use many)

    def _beta(self, problem):
        padded = np.full(-(-problem.n // 16) * 16, 5, dtype=np.uint8)  # 16 codes per 128-bit load
        padded[:problem.n] = problem.beta_codes
        return self.cp.asarray(padded)

    def _kernel(self, name: str):
        return device.function(KERNEL_FILE, name, NAMES, DEFINES)

    def segments(self, count: int, n: int, k: int) -> tuple[int, int, int]:
        """(segments, columns per segment, overlap): enough threads for RESIDENT_WAVES waves of
        resident threads, each segment at least min_segment_overlaps overlaps long (the overlap
        is recomputed)."""
        over = REG_WORDS * 64 + k - 1
        want = -(-RESIDENT_WAVES * device.device_info()["sms"] * RESIDENT_THREADS // count)
        g = max(1, min(want, n // (self.min_segment_overlaps * over)))
        return g, -(-n // g), over

    def _launch(self, problem, alpha, beta, first, count, out, comps):
        g, seg, over = self.segments(count, problem.n, problem.k)
        per_segment = self.cp.full(g * count, device.POISON, dtype=self.cp.int32)
        self._kernel(NAMES[0])(
            (-(-count // PB_THREADS), g), (PB_THREADS,),
            (alpha, np.int32(problem.m), beta, np.int32(problem.n), np.int32(problem.k), np.int32(first),
             np.int32(count), np.uint64(0), np.int32(seg), np.int32(over), per_segment, comps),  # starts = NULL
            shared_mem=REG_WORDS * 4 * PB_THREADS * 8)
        per_segment = per_segment.reshape(g, count)
        poisoned = (per_segment == device.POISON).any(axis=0)
        best = per_segment.max(axis=0)
        best[(per_segment == PB_OVERFLOW).any(axis=0)] = PB_OVERFLOW
        best[poisoned] = device.POISON
        out[...] = best

    def _retry(self, problem, alpha, beta, first, got, comps):
        over = np.flatnonzero(got == PB_OVERFLOW)
        if over.size:
            try:
                got[over] = self._retry_launch(problem, alpha, beta, first + over, comps)
                log.info("primer [gpu]: %d starts retried with %d words", over.size, LOCAL_WORDS)
            except Exception as error:  # (the GPU's memory only: anything else goes up)
                if not device.out_of_memory(error):
                    raise
                # A shared GPU: the retry's scratch or the local memory the driver reserves for its launch (a
                # thread's LOCAL_WORDS words for every resident thread) may not fit beside another process. Its
                # starts keep PB_OVERFLOW and the CPU sweep below finishes them: the same answers, later.
                log.warning("primer [gpu]: no GPU memory for the retry of %d starts (%s): the CPU finishes them",
                            over.size, str(error).splitlines()[0])
        still = np.flatnonzero(got == PB_OVERFLOW)
        if still.size:  # active region beyond LOCAL_WORDS * 64 rows (or no memory for the retry): the CPU sweep
            nw = problem.m // cpu_kernels.W + 2
            buffers = (np.empty(4 * nw, np.uint64), np.empty(nw, np.uint64), np.empty(nw, np.uint64),
                       np.empty(nw, np.int64))
            extra = 0
            for s in still:
                got[s], x = cpu_kernels.bitparallel_prefix(problem.alpha_codes, first + int(s), problem.beta_codes,
                                                           problem.k, problem.k - 1, *buffers)
                extra += x
            comps += extra
            log.info("primer [gpu]: %d starts finished on the CPU", still.size)
        return got

    def _retry_launch(self, problem, alpha, beta, starts, comps) -> np.ndarray:
        """The local-memory instance over ``starts`` (the register instance's overflowing starts): their prefixes,
        PB_OVERFLOW where LOCAL_WORDS words are not enough either."""
        cp = self.cp
        out = cp.full(starts.size, device.POISON, dtype=cp.int32)
        blocks = -(-starts.size // PB_THREADS)
        scratch = cp.empty(blocks * PB_THREADS * 4 * LOCAL_WORDS, dtype=cp.uint64)
        self._kernel(NAMES[1])(
            (blocks,), (PB_THREADS,),
            (alpha, np.int32(problem.m), beta, np.int32(problem.n), np.int32(problem.k), np.int32(0),
             np.int32(starts.size), cp.asarray(starts.astype(np.int32)), out, comps, scratch))
        return cp.asnumpy(out)
