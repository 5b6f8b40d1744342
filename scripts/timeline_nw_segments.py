"""Where one similar pair's `gpu` solve spends its time under `segments` (issue 26's 10^5 1% row): a per-step
host / device timeline of ``GpuSolver.solve``, the first call in this fresh process and then warm (median of
--repeats), score and CIGAR; and the floors of this host and device: an empty kernel's launch and wait, an upload
of --upload-kb from pinned memory, a copy back of a few bytes, the CPU divergence sample alone, the pieces'
kernels alone with other threads a block (the pack and the sweep apart; the sweep's registers and resident blocks a
multiprocessor). --rows: a piece's rows (segments.ROWS).

Steps (host ms, perf_counter, by wrapping the functions the solve calls): `stage` (WfaSolver.stage), `sample`
(wfa.sampled_score), each round of pieces (WfaSolver.solve_pieces' own split: plan = fill_pieces and the launch's
sizes, alloc = the upload queued and the workspace's arrays, launch = the pack and sweep queued and the copy back,
sync = the wait and the answers, less the sample where the round was queued before it, on the guessed band; with a
check on the device, its launch and copy back too), `seams`
(segments.segmented and WfaSolver.queue_check / checked / abort less their rounds: settle / stored / asks / escape
on the host),
`text` (the CIGAR), `rest` (the solve less all of these: the choice, Result). Device ms by events: the stage's
upload and pack, each round's pack + sweep, and the device's idle time from the stage's end to the first round.

  python3 scripts/timeline_nw_segments.py --case 100000-1 --costs linear --repeats 200
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np

from splicedalign.gpu import device
from splicedalign.workloads.nw import segments
from splicedalign.workloads.nw.gpu import wfa
from splicedalign.workloads.nw.gpu.solver import GpuSolver
from splicedalign.workloads.nw.records import cigar_cost
from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS, case_pair

STEPS = ("stage", "sample", "seams", "text", "rest", "total")
ROUND = ("plan", "alloc", "launch", "sync", "device")


class Clock:
    """Host ms of the wrapped functions in the current solve."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self.began: dict[str, float] = {}  # the first call's start, a key

    def wrap(self, owner: Any, name: str, key: str) -> None:
        inner = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            self.began.setdefault(key, t0)
            try:
                return inner(*args, **kwargs)
            finally:
                self.ms[key] = self.ms.get(key, 0.0) + (time.perf_counter() - t0) * 1e3
        setattr(owner, name, timed)


def one_solve(solver: GpuSolver, clock: Clock, pair, costs, traceback: bool) -> dict[str, Any]:
    clock.ms, clock.began = {}, {}
    t0 = time.perf_counter()
    got = solver.solve(pair, costs, traceback, "global")
    total = (time.perf_counter() - t0) * 1e3
    assert solver.wfa is not None
    stats = solver.wfa.stats
    rounds = stats.get("pieces", [])
    row: dict[str, Any] = {"algorithm": got.algorithm, "score": got.score, "cigar": got.cigar, "end2": got.end2,
                           "total": total, "rounds": len(rounds)}
    row["stage"] = clock.ms.get("stage", 0.0)
    row["sample"] = clock.ms.get("sample", 0.0)
    pieces_ms = 0.0
    # (a first round queued before the sample, on the guessed band: the sample ran inside its wait)
    guessed = clock.began.get("check", float("inf")) < clock.began.get("sample", float("inf"))
    for r, (plan, alloc, launch, dev, whole) in enumerate(rounds):
        if r == 0 and guessed:
            whole -= row["sample"]
        row[f"r{r}"] = {"plan": plan, "alloc": alloc, "launch": launch, "sync": whole - plan - alloc - launch,
                        "device": dev}
        pieces_ms += whole
    pieces_host = clock.ms.get("segmented", 0.0) + clock.ms.get("check", 0.0)  # (the rounds and the seams)
    row["seams"] = pieces_host - pieces_ms
    row["text"] = stats.get("text_ms", 0.0) if traceback else 0.0
    row["rest"] = total - row["stage"] - row["sample"] - pieces_host - row["text"]
    _, began, staged, start, _ = solver.wfa.one_stream()
    row["dev_stage"] = device.cupy().cuda.get_elapsed_time(began, staged)
    row["dev_idle"] = device.cupy().cuda.get_elapsed_time(staged, start) if rounds else 0.0
    return row


def floors(repeats: int, upload_kb: int) -> dict[str, float]:
    """Median ms of the host's and device's floors (a stream of their own)."""
    cp = device.cupy()
    stream = cp.cuda.Stream(non_blocking=True)
    empty = cp.RawKernel('extern "C" __global__ void empty() {}', "empty")
    host = device.empty_pinned(upload_kb * 1024, np.uint8)
    dev = cp.empty(upload_kb * 1024, cp.uint8)
    small = device.empty_pinned(16, np.uint8)
    out: dict[str, list[float]] = {"launch+sync": [], "launch only": [], "h2d+sync": [], "d2h16+sync": [],
                                   "launch+d2h16+sync": []}
    with stream:
        empty((1,), (32,), ())
    stream.synchronize()
    for _ in range(repeats):
        t0 = time.perf_counter()
        with stream:
            empty((1,), (32,), ())
        t1 = time.perf_counter()
        stream.synchronize()
        t2 = time.perf_counter()
        out["launch only"].append((t1 - t0) * 1e3)
        out["launch+sync"].append((t2 - t0) * 1e3)
        t0 = time.perf_counter()
        cp.cuda.runtime.memcpyAsync(dev.data.ptr, host.ctypes.data, host.nbytes, cp.cuda.runtime.memcpyHostToDevice,
                                    stream.ptr)
        stream.synchronize()
        out["h2d+sync"].append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        cp.cuda.runtime.memcpyAsync(small.ctypes.data, dev.data.ptr, 16, cp.cuda.runtime.memcpyDeviceToHost,
                                    stream.ptr)
        stream.synchronize()
        out["d2h16+sync"].append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        with stream:
            empty((1,), (32,), ())
        cp.cuda.runtime.memcpyAsync(small.ctypes.data, dev.data.ptr, 16, cp.cuda.runtime.memcpyDeviceToHost,
                                    stream.ptr)
        stream.synchronize()
        out["launch+d2h16+sync"].append((time.perf_counter() - t0) * 1e3)
    return {k: statistics.median(v) for k, v in out.items()}


class Timed:
    """A loaded kernel whose launches are timed by events on the current stream (``ms``: the last launch's,
    read after a wait); its attributes are the kernel's."""

    def __init__(self, kernel: Any) -> None:
        self.kernel, self.events = kernel, None

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        cuda = device.cupy().cuda
        stream = cuda.get_current_stream()
        self.events = (cuda.Event(), cuda.Event())
        self.events[0].record(stream)
        self.kernel(*args, **kwargs)
        self.events[1].record(stream)

    @property
    def ms(self) -> float:
        return device.cupy().cuda.get_elapsed_time(*self.events) if self.events else 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.kernel, name)


def blocks_a_multiprocessor(kernel: Any, threads: int, smem: int) -> tuple[int, int]:
    """(registers a thread, resident blocks a multiprocessor) of a launch on an sm_90 GPU (65,536 registers,
    2,048 threads, 228 KB of shared memory a multiprocessor; registers allocated 8 a thread at a time)."""
    regs = int(getattr(kernel, "num_regs", 0))
    by_regs = 65536 // max(1, -(-regs // 8) * 8 * threads)
    return regs, min(2048 // threads, by_regs, (228 * 1024) // (smem + 1024), 32)


def kernel_threads(pair, costs, expected: float, repeats: int) -> None:
    """The first round's pieces (as try_segments asks them: the band, speculation) on their own with other
    threads a block: median device ms of the pack and the sweep each, the sweep's registers and blocks a
    multiprocessor."""
    from splicedalign.workloads.nw.gpu import band as bands
    from splicedalign.workloads.nw.gpu.solver import SEGMENTS_SLACK
    from splicedalign.workloads.nw.wfa import reduced_costs
    g = reduced_costs(costs)[0]
    width = bands.width_needed(int(SEGMENTS_SLACK * expected) + 1, costs, "global", pair.n, pair.m)
    lo, hi, _ = bands.band_bound(costs, "global", pair.n, pair.m, width)
    _, r0, r1, c0, c1 = segments.first_asks(pair.n, pair.m, lo, hi, segments.ROWS, True)
    rate = expected / max(pair.n, pair.m)
    rows = int((r1 - r0).max())
    steps, pool = segments.piece_caps(rate, rows, g)
    solver = wfa.WfaSolver()
    solver.timeline = True  # (each round's device time)
    solver.stage(pair, costs)
    print(f"kernel alone: {r0.size} pieces (rows <= {rows}, windows <= {int((c1 - c0).max())} columns, w {width}, "
          f"cap {steps} steps)")
    for threads in (128, 256, 512, 1024):
        solver.solve_pieces(pair, costs, r0, r1, c0, c1, steps, pool, threads)  # (loads, shared memory allowed)
        solver._kernels = {name: k if isinstance(k, Timed) else Timed(k) for name, k in solver._kernels.items()}
        times: dict[str, list[float]] = {"pack + sweep": [], "pack": [], "sweep": []}
        for _ in range(repeats):
            solver.stats = {}
            solver.solve_pieces(pair, costs, r0, r1, c0, c1, steps, pool, threads)
            times["pack + sweep"].append(solver.stats["pieces"][0][3])
            pack = solver._kernels.get(wfa.PACK)  # (none where the sweep's blocks pack their own letters)
            times["pack"].append(pack.ms if pack is not None else 0.0)
            times["sweep"].append(max(k.ms for name, k in solver._kernels.items() if name.startswith("nw_wfa<")
                                      and k.events))
        sweep = [k for name, k in solver._kernels.items() if name.startswith("nw_wfa<") and k.events][0]
        _, x, o, e = reduced_costs(costs)
        reach_max = int(solver.reach(x, o, e, steps, o > 0).max())  # (queue_pieces' launch, as it sizes it)
        smem = wfa.fit_launch(reach_max, int((c1 - c0).max()) + min(reach_max, rows) + 1,
                              int(wfa.seq_bytes(r1 - r0, c1 - c0).max()), x, o, e, steps, threads,
                              solver.shared_bytes).smem
        regs, blocks = blocks_a_multiprocessor(sweep, threads, smem)
        print(f"kernel alone {threads:>5} threads a piece: " + ", ".join(
            f"{k} {statistics.median(v):.4f}" for k, v in times.items()) + f" ms device; sweep {regs} registers, "
            f"{smem} B of shared memory, {blocks} blocks a multiprocessor")
        for k in solver._kernels.values():
            k.events = None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", default="100000-1")
    parser.add_argument("--costs", default="linear", choices=sorted(ISSUE26_COSTS))
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--upload-kb", type=int, default=200)
    parser.add_argument("--rows", type=int, help="a piece's rows (default: segments.ROWS)")
    args = parser.parse_args()
    if args.rows:
        segments.ROWS = args.rows  # (read by try_segments at each call)
    t_import = time.perf_counter()
    pair, costs = case_pair(args.case), ISSUE26_COSTS[args.costs]
    clock = Clock()
    clock.wrap(wfa.WfaSolver, "stage", "stage")
    clock.wrap(wfa, "sampled_score", "sample")
    clock.wrap(segments, "segmented", "segmented")
    for name in ("queue_round", "queue_check", "checked", "abort"):  # (the first round checked on the device, its
        # guess aborted)
        if hasattr(wfa.WfaSolver, name):
            clock.wrap(wfa.WfaSolver, name, "check")
    solver = GpuSolver()
    solver.wfa = wfa.WfaSolver()
    solver.wfa.timeline = True  # (the stage's events: dev stage, dev idle)
    rows: dict[str, list[dict[str, Any]]] = {}
    for traceback in (False, True):
        label = "cigar" if traceback else "score"
        first = one_solve(solver, clock, pair, costs, traceback)
        if traceback:
            assert cigar_cost(first["cigar"], pair.a, pair.b, costs, 0, first["end2"]) == first["score"]
        rows[label + " first"] = [first]
        rows[label] = [one_solve(solver, clock, pair, costs, traceback) for _ in range(args.repeats)]
        print(f"{label}: first call {first['total']:.2f} ms ({time.perf_counter() - t_import:.1f} s in), "
              f"{first['algorithm']} score {first['score']}, rounds {first['rounds']}")
    print(f"\n{args.case} {args.costs}: host / device ms, the first call of this process and warm (median of "
          f"{args.repeats})")
    head = ["row", "total", "stage", "sample", "seams", "text", "rest", "dev stage", "dev idle"]
    print(" ".join(f"{h:>12}" for h in head) + "   rounds: plan alloc launch sync | device")
    for label, got in rows.items():
        med = {k: statistics.median(r[k] for r in got) for k in STEPS + ("dev_stage", "dev_idle")}
        rounds = []
        for r in range(got[0]["rounds"]):
            key = f"r{r}"
            vals = [statistics.median(x[key][p] for x in got if key in x) for p in ROUND]
            rounds.append(" ".join(f"{v:.3f}" for v in vals[:4]) + f" | {vals[4]:.3f}")
        cells = [label] + [f"{med[k]:.3f}" for k in ("total",) + STEPS[:5] + ("dev_stage", "dev_idle")]
        print(" ".join(f"{v:>12}" for v in cells) + "   " + "; ".join(rounds))
    sample = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        expected = wfa.sampled_score(pair, costs)
        sample.append((time.perf_counter() - t0) * 1e3)
    print(f"\nsample alone: {statistics.median(sample):.3f} ms (expected score {expected:.0f})")
    for name, ms in floors(args.repeats, args.upload_kb).items():
        print(f"floor {name:<20} {ms:.4f} ms")
    kernel_threads(pair, costs, expected, 50)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
