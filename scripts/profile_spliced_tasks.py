"""Where a paper set's wavefront kernel spends its time, task by task (a GPU machine; the
analysis alone runs anywhere on a saved file).

Per seed: a fresh paper set solved (score), then its replays (the cached plan: the same tasks,
rows and letters) timed with the shipped kernel (median of --repeats), then with the kernel
compiled with task clocks (wavefront.cu, TASK_TIMES; NVRTC): for every task, when a warp took
it, when its first input blocks had arrived, when it ended, its SM and how long it waited for
inputs after its first window. Answers of the clocked kernel must be the shipped one's. The
clocks, the launched task list and the cases' shapes go to ``--out`` (npz); ``--analyse FILE``
prints the analysis of such a file. ``--fed``: the same for fed launches (a fresh solver's first
call: the kernel starts on an empty task list and the host feeds it windows, feed.py), clocked
as fed and then as its replay, with the windows' landing. ``--ab BASE_CU``: replays (and with
``--fed`` fed calls) of this tree's kernel against another version of wavefront.cu (``ab``).

* the timeline: tasks in flight (warps held) per tenth of the kernel, split into strips waiting
  for their first input, strips running, folds;
* the tail: when 50 / 90 / 99 / 100% of the tasks had ended, and what ran in the last 10%;
* warp time by kind (strips by lane rows, folds) and its share spent waiting;
* the long chains' (launch.long_chains) last task against everyone else's;
* the critical path into the last task (each task's input that arrived last, back to a task
  without inputs): its hops by kind (strip or fold to strip or fold), the ms they add, the hops
  whose task was taken only after its input had arrived (a fed launch: its window came late);
  the long chains' strips' steps per us over the span, with their entry-row windows per strip
  and the share of their run spent taking them (caught up with their producer).

``--walks``: where the device walks' time goes (trace_chains compiled with walk clocks,
WALK_TIMES; ``measure_walks``): per seed a never-seen paper set's traced call after a warm-up,
answers equal to the shipped kernels' replay of the set, and ``walk_summary``: per walk part the
walks' start and end after the wavefront's end, the last-ending walks' time in their recomputing
sweeps, moves loops, predecessor scans and the rest, all walks' shares, a walk's duration against
its sweeps' steps.

    PYTHONPATH=src python3 scripts/profile_spliced_tasks.py --seeds 2012 7132700 --out tasks.npz
    PYTHONPATH=src python3 scripts/profile_spliced_tasks.py --analyse tasks.npz
    PYTHONPATH=src SPLICEDALIGN_SHIPPED_KERNELS=0 python3 scripts/profile_spliced_tasks.py --ab main_wavefront.cu
    PYTHONPATH=src python3 scripts/profile_spliced_tasks.py --fed --seeds 2012 --out fed.npz
    PYTHONPATH=src python3 scripts/profile_spliced_tasks.py --walks --seeds 2091000 2092000 --out walks.npz
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from splicedalign.workloads.spliced.gpu.plan import (
    F_ENTRY_ROW,
    F_IN2_ROW,
    F_IN3_ROW,
    F_IN_ROW,
    F_KIND,
    F_LANE_ROWS,
    F_N,
    F_OUT_ROW,
    F_ROWS,
    F_TGT,
    KIND_FOLD,
)

CAPACITY = 1 << 19  # tasks a clocked launch records (a paper set plans ~90-120 k)
WALK_CAPACITY = 1 << 14  # walks (trace_chains warps) a clocked call records (a paper set: 1,010)
# wavefront.cu's walk_times record, field by field (WALK_TIMES)
WALK_FIELDS = ("start", "end", "sweep", "moves", "pred", "exon0_n", "sm_chain", "strips_taken", "cells", "steps")


class Clocked:
    """The solver's kernels compiled with clocks while on (solver.kernel_defines patched with
    ``define``: TASK_TIMES, or WALK_TIMES for trace_chains), and the clocked module's globals
    once a clocked call has run."""

    def __init__(self, define: str = "TASK_TIMES", capacity: int = CAPACITY) -> None:
        from splicedalign.gpu import device
        from splicedalign.workloads.spliced.gpu import solver

        self.device, self.solver = device, solver
        self.define, self.capacity = define, capacity
        self.shipped, self.function = solver.kernel_defines, device.function
        self.looked_up: list[tuple] = []  # (all names, defines) of each kernel the solver asks for

        def spy(source, name, all_names, defines=None):
            self.looked_up.append((all_names, defines or {}))
            return self.function(source, name, all_names, defines)
        device.function = spy

    def on(self, on: bool) -> None:
        shipped, define, capacity = self.shipped, self.define, self.capacity
        self.solver.kernel_defines = (lambda: {**shipped(), define: capacity}) if on else shipped

    def modules(self) -> list[tuple]:
        """(all names, defines) of each clocked module the solver asked for, by when it was last asked for."""
        last = {(n, tuple(sorted(d.items()))): i for i, (n, d) in enumerate(self.looked_up) if self.define in d}
        return sorted(last, key=last.__getitem__)

    def global_array(self, name: str, shape: tuple[int, ...], module: int = -1):
        """The __device__ array ``name`` (uint64) of a clocked module (``modules()[module]``; by
        default the last one asked for) as a CuPy array."""
        cp = self.device.cupy()
        names, defines = self.modules()[module]
        found = self.device._module(self.solver.KERNEL_FILE, names, defines)
        return cp.ndarray(shape, dtype=cp.uint64, memptr=found.get_global(name))

    def arrays(self):
        return self.global_array("task_times", (self.capacity, 4)), self.global_array("task_start", (1,))

    def close(self) -> None:
        self.on(False)
        self.device.function = self.function


def measure(seeds: list[int], repeats: int, out: Path) -> None:
    import cupy as cp

    from splicedalign.workloads.spliced.gpu import launch
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver
    from splicedalign.workloads.spliced.synthetic import paper_set
    clock = Clocked()
    saved: dict[str, np.ndarray] = {}
    for seed in seeds:
        cases = paper_set(seed)
        gpu = GpuSolver()
        want = gpu.solve_many(cases, traceback=False)  # cold: planned (fed), cached
        (_, inputs), = gpu._cache.items()
        clock.on(True)
        gpu.solve_many(cases, traceback=False)  # the clocked kernel compiled
        times, _ = clock.arrays()
        plain, clocked = [], []
        for _ in range(repeats):
            clock.on(False)
            gpu.solve_many(cases, traceback=False)
            plain.append(gpu.kernel_ms[0])
            clock.on(True)
            times.fill(0)
            got = gpu.solve_many(cases, traceback=False)
            clocked.append(gpu.kernel_ms[0])
            if not same(got, want):
                sys.exit(f"seed {seed}: the clocked kernel's answers differ from the shipped one's")
        clock.on(False)
        tasks = cp.asnumpy(inputs.tasks)
        plan = inputs.plan
        saved[f"s{seed}_times"] = cp.asnumpy(times[: tasks.shape[0]])
        saved[f"s{seed}_tasks"] = tasks
        saved[f"s{seed}_tgt_off"] = plan.tgt_off
        saved[f"s{seed}_K"] = plan.flat.K
        saved[f"s{seed}_long"] = np.asarray(launch.long_chains(plan.flat), dtype=np.int64)
        saved[f"s{seed}_ms"] = np.array([plain, clocked])
        print(f"seed {seed}: {len(tasks)} tasks; kernel ms shipped {statistics.median(plain):.2f} "
              f"(all {' '.join(f'{x:.2f}' for x in plain)}), clocked {statistics.median(clocked):.2f}", flush=True)
    clock.close()
    np.savez_compressed(out, seeds=np.array(seeds), **saved)


class FedCall:
    """One fed call of a fresh solver (feed.Feeder.steps and GpuSolver._fed watched): its
    windows (first, count), the task records in launch order, and (ms after the kernel's start)
    each window's copies done and the kernel's end."""

    def __init__(self, cases, tuning=None) -> None:
        from splicedalign.gpu import device
        from splicedalign.workloads.spliced.gpu import feed, solver

        cp = device.cupy()
        windows: list[tuple[int, int]] = []
        staged: list[np.ndarray] = []
        queued: list = []
        steps, fed_call = feed.Feeder.steps, solver.GpuSolver._fed

        def watched_steps(self, tasks, base, tsel, coded=None):
            staged.append(tasks)
            for w in steps(self, tasks, base, tsel, coded):
                windows.append((w.first, w.count))
                yield w

        def watched_fed(self, *args):
            q = fed_call(self, *args)
            queued.append(q)
            return q
        feed.Feeder.steps, solver.GpuSolver._fed = watched_steps, watched_fed
        try:
            gpu = solver.GpuSolver(tuning=tuning or solver.TUNING)
            self.results = gpu.solve_many(cases, traceback=False)
        finally:
            feed.Feeder.steps, solver.GpuSolver._fed = steps, fed_call
        if len(queued) != 1:
            sys.exit("not one fed launch: is feeding off (Tuning.feed_shares)?")
        self.gpu, self.windows = gpu, windows
        total = windows[-1][0] + windows[-1][1]
        self.tasks = np.array(staged[0][:total])
        start, end = queued[0].events[:2]
        self.window_ms = [cp.cuda.get_elapsed_time(start, e) for e in queued[0].feeds]
        self.kernel_ms = cp.cuda.get_elapsed_time(start, end)


def measure_fed(seeds: list[int], repeats: int, out: Path) -> None:
    """Per seed: fed calls of fresh solvers (shipped kernel, then clocked), then the clocked
    replay of the last one's cached plan; the last clocked fed call's and the replay's clocks."""
    import cupy as cp

    from splicedalign.workloads.spliced.gpu import launch
    from splicedalign.workloads.spliced.synthetic import paper_set
    clock = Clocked()
    saved: dict[str, np.ndarray] = {}
    for seed in seeds:
        cases = paper_set(seed)
        want = FedCall(cases).results  # compiled, warm
        clock.on(True)
        FedCall(cases)  # the clocked kernels compiled
        times, start = clock.arrays()
        plain, clocked = [], []
        for _ in range(repeats):
            clock.on(False)
            call = FedCall(cases)
            plain.append((call.kernel_ms, call.window_ms[0], call.kernel_ms - call.window_ms[0]))
            clock.on(True)
            times.fill(0)
            start.fill(0)
            call = FedCall(cases)
            clocked.append((call.kernel_ms, call.window_ms[0], call.kernel_ms - call.window_ms[0]))
            if not same(call.results, want):
                sys.exit(f"seed {seed}: the clocked fed kernel's answers differ from the shipped one's")
        (_, inputs), = call.gpu._cache.items()
        plan = inputs.plan
        n = call.tasks.shape[0]
        saved[f"fed{seed}_times"] = cp.asnumpy(times[:n])
        saved[f"fed{seed}_start"] = cp.asnumpy(start)
        saved[f"fed{seed}_tasks"] = call.tasks
        saved[f"fed{seed}_windows"] = np.array(call.windows)
        saved[f"fed{seed}_window_ms"] = np.array(call.window_ms)
        saved[f"fed{seed}_ms"] = np.array([[r[0] for r in plain], [r[0] for r in clocked]])
        times.fill(0)
        start.fill(0)
        got = call.gpu.solve_many(cases, traceback=False)  # the replay of its cached plan, clocked
        replay_ms = call.gpu.kernel_ms[0]
        if not same(got, want):
            sys.exit(f"seed {seed}: the clocked replay's answers differ from the shipped one's")
        clock.on(False)
        tasks = cp.asnumpy(inputs.tasks)
        saved[f"s{seed}_times"] = cp.asnumpy(times[: tasks.shape[0]])
        saved[f"s{seed}_start"] = cp.asnumpy(start)
        saved[f"s{seed}_tasks"] = tasks
        saved[f"s{seed}_ms"] = np.array([[replay_ms], [replay_ms]])
        for key in ("s", "fed"):
            saved[f"{key}{seed}_tgt_off"] = plan.tgt_off
            saved[f"{key}{seed}_K"] = plan.flat.K
            saved[f"{key}{seed}_long"] = np.asarray(launch.long_chains(plan.flat), dtype=np.int64)
        for name, rows in (("shipped", plain), ("clocked", clocked)):
            k, w, after = np.median(np.array(rows), axis=0)
            print(f"seed {seed} fed {name}: kernel {k:.2f} ms, first window at {w:.2f}, kernel after it {after:.2f} "
                  f"(all {' '.join(f'{r[0]:.2f}/{r[2]:.2f}' for r in rows)})", flush=True)
        print(f"seed {seed}: windows land at {' '.join(f'{x:.2f}' for x in call.window_ms)} ms; clocked replay "
              f"{replay_ms:.2f} ms", flush=True)
    clock.close()
    np.savez_compressed(out, seeds=np.array(seeds), fed=np.array(True), **saved)


def same(got, want) -> bool:
    """Whether two calls' results are the same: scores, last rows, chains, alignments."""
    return all(r.score == w.score and np.array_equal(r.last_row_scores, w.last_row_scores) and r.chain == w.chain
               and r.alignment == w.alignment for r, w in zip(got, want)) and len(got) == len(want)


class WalkedCall:
    """One traced call of ``gpu`` (solve_many) with its recording launch watched
    (GpuSolver._collect): its results, the launch's job (one launch expected), the call's wall
    ms, and GPU ms from an event on an idle stream before the call to the wavefront's start and
    end and to each walk part's end (Part.ready)."""

    def __init__(self, gpu, cases) -> None:
        from splicedalign.gpu import device
        from splicedalign.workloads.spliced.gpu import solver

        cp = device.cupy()
        jobs: list = []
        collect = solver.GpuSolver._collect

        def watched(self, job, part=0):
            if not jobs or jobs[-1] is not job:
                jobs.append(job)
            return collect(self, job, part)
        idle = cp.cuda.Stream(non_blocking=True)
        solver.GpuSolver._collect = watched
        try:
            cp.cuda.runtime.deviceSynchronize()
            anchor = idle.record()
            t0 = time.perf_counter()
            self.results = gpu.solve_many(cases, traceback=True)
            self.call_ms = (time.perf_counter() - t0) * 1e3
        finally:
            solver.GpuSolver._collect = collect
        if len(jobs) != 1 or jobs[0].inputs.trace is None:
            sys.exit(f"{len(jobs)} launches, not one that walks on the device: not a paper set's traced call?")
        self.job = job = jobs[0]
        events = (*job.events[:2], *(p.ready for p in job.parts))
        self.ms = np.array([cp.cuda.get_elapsed_time(anchor, e) for e in events])


def measure_walks(seeds: list[int], out: Path, make=None, gpu=None) -> None:
    """Per seed: a never-seen set's traced call (``make(seed)``, default paper_sets(1, seed)) on
    one solver (``gpu``, default GpuSolver()) with walk clocks (trace_chains compiled with
    WALK_TIMES), after a warm-up of the shipped and the clocked kernels on other sets; then the
    shipped kernels' replay of the same set, whose answers must be the clocked call's. The walk
    records, the trace table's case ids and walk bounds, and both calls' event times go to
    ``out`` (npz)."""
    from splicedalign.gpu import device
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver
    from splicedalign.workloads.spliced.synthetic import paper_sets

    cp = device.cupy()
    make = make or (lambda seed: paper_sets(1, seed))
    gpu = gpu or GpuSolver()
    clock = Clocked("WALK_TIMES", WALK_CAPACITY)
    for k, on in enumerate((False, True, False, True)):  # every kernel compiled, on sets used nowhere else
        clock.on(on)
        gpu.solve_many(make(seeds[0] + 900 + k), traceback=True)
    saved: dict[str, np.ndarray] = {}
    for i, seed in enumerate(seeds):
        cases = make(seed)
        for m in range(len(clock.modules())):  # (a set whose launch differs would compile another module)
            clock.global_array("walk_count", (1,), m).fill(0)
        clock.on(True)
        call = WalkedCall(gpu, cases)
        clock.on(False)
        shipped = WalkedCall(gpu, cases)
        if not same(call.results, shipped.results):
            sys.exit(f"seed {seed}: the clocked walks' answers differ from the shipped kernels'")
        counts = [int(cp.asnumpy(clock.global_array("walk_count", (1,), m))[0]) for m in range(len(clock.modules()))]
        if sum(c > 0 for c in counts) != 1 or max(counts) > WALK_CAPACITY:
            sys.exit(f"seed {seed}: walks recorded per clocked module {counts}: not one module's, or more than "
                     f"WALK_CAPACITY {WALK_CAPACITY}")
        module = int(np.argmax(counts))
        walks = counts[module]
        records = clock.global_array("walk_times", (WALK_CAPACITY, len(WALK_FIELDS)), module)
        info = call.job.inputs.trace.info
        saved[f"w{seed}_records"] = cp.asnumpy(records[:walks])
        saved[f"w{seed}_exon0"] = np.asarray(info.exon0())
        saved[f"w{seed}_bounds"] = np.asarray(info.bounds, dtype=np.int64)
        saved[f"w{seed}_followed"] = np.array(len(call.job.config.followed))
        saved[f"w{seed}_ms"] = call.ms
        saved[f"w{seed}_shipped_ms"] = shipped.ms
        saved[f"w{seed}_call_ms"] = np.array([call.call_ms, shipped.call_ms])
        print(f"seed {seed}: {len(cases)} cases, {walks} walks in {len(info.bounds) - 1} parts; the clocked call "
              f"{call.call_ms:.1f} ms, answers equal to the shipped kernels' replay", flush=True)
        # saved seed by seed: a later seed's failure keeps the earlier ones
        np.savez_compressed(out, seeds=np.array(seeds[:i + 1]), walks=np.array(True), **saved)
    clock.close()


LATE_WALKS = 5  # the last-ending walks whose breakdown the analysis prints
SHARES = ("sweep", "moves", "pred", "other")  # where a walk's time goes (walk_summary)


def walk_summary(d: dict) -> dict:
    """One call's walk clocks (measure_walks' arrays of a seed) read: each walk mapped back to its
    table row and walk part by its case's first exon; GPU time ns put on the event timeline (each
    part's last walk end against its Part.ready event: the offsets' median, their spread tells
    the fit) with the wavefront's end as 0; per part the walks' start and end (ms: min, median,
    max) and shares of their time; the last-ending walks' breakdown; the shares of all walks'
    time; the correlation of a walk's duration with its steps, cells and moves. ``problems``:
    records without a table row, table rows walked other than once."""
    rec = d["records"].astype(np.int64)  # (global timer ns < 2**63)
    f = {k: rec[:, i] for i, k in enumerate(WALK_FIELDS)}
    low = (1 << 32) - 1
    exon0 = f["exon0_n"] >> 32
    table, bounds = np.asarray(d["exon0"]), np.asarray(d["bounds"])
    sorter = np.argsort(table, kind="stable")
    row = sorter[np.minimum(np.searchsorted(table, exon0, sorter=sorter), len(table) - 1)]
    known = table[row] == exon0
    problems = [f"{(~known).sum()} walk records name no table row"] if not known.all() else []
    seen = np.bincount(row[known], minlength=len(table))
    if (seen != 1).any():
        problems.append(f"{(seen == 0).sum()} table rows without a walk record, {(seen > 1).sum()} with several")
    f = {k: v[known] for k, v in f.items()}
    row = row[known]
    part = np.searchsorted(bounds, row, side="right") - 1
    ms = np.asarray(d["ms"], dtype=float)
    parts = len(bounds) - 1
    base = f["start"].min() if len(row) else 0  # (ns from the first start: a float holds them exactly)
    first, last = f["start"] - base, f["end"] - base
    offsets = np.array([last[part == p].max() - ms[2 + p] * 1e6 for p in range(parts) if (part == p).any()])
    origin = np.median(offsets) + ms[1] * 1e6  # the wavefront's end on the walks' timer
    start, end = (first - origin) / 1e6, (last - origin) / 1e6
    dur = (f["end"] - f["start"]).astype(float)
    share = {"sweep": f["sweep"], "moves": f["moves"], "pred": f["pred"]}
    share["other"] = dur - share["sweep"] - share["moves"] - share["pred"]
    walks = {"row": row, "part": part, "n": f["exon0_n"] & low, "sm": f["sm_chain"] >> 32,
             "chain": f["sm_chain"] & low, "strips": f["strips_taken"] >> 32, "taken": f["strips_taken"] & low,
             "cells": f["cells"], "steps": f["steps"], "start": start, "end": end, "ms": dur / 1e6,
             **{k: np.asarray(v, dtype=float) / 1e6 for k, v in share.items()}}
    followed = int(d["followed"]) > 0

    def spread(x):
        return (float(x.min()), float(np.median(x)), float(x.max())) if x.size else (np.nan,) * 3

    def shares(sel):
        total = dur[sel].sum()
        return {k: float(np.asarray(v)[sel].sum() / total) if total else np.nan for k, v in share.items()}
    part_rows = [{"part": p, "walks": int((part == p).sum()), "followed": followed and p == parts - 1,
                  "start": spread(start[part == p]), "end": spread(end[part == p]),
                  "event": float(ms[2 + p] - ms[1]), "shares": shares(part == p)} for p in range(parts)]
    late = np.argsort(end)[::-1][:LATE_WALKS]
    late_rows = [{k: (v[i].item() if hasattr(v[i], "item") else v[i]) for k, v in walks.items()} for i in late]
    for r in late_rows:
        r["bound"] = max(SHARES, key=lambda k: r[k])

    def corr(x):
        x = np.asarray(x, dtype=float)
        return float(np.corrcoef(dur, x)[0, 1]) if len(x) > 1 and x.std() > 0 and dur.std() > 0 else np.nan
    return {"parts": part_rows, "late": late_rows, "shares": shares(np.ones(len(dur), dtype=bool)),
            "corr": {k: corr(walks[k]) for k in ("steps", "cells", "taken")}, "walks": len(dur),
            "fit_us": float(np.ptp(offsets) / 1e3), "problems": problems,
            "wave_ms": float(ms[1] - ms[0]), "shipped_tail": float(np.max(d["shipped_ms"][2:]) - d["shipped_ms"][1])}


def analyse_walks(seed: str, d: dict) -> None:
    s = walk_summary(d)
    pct = lambda x: " ".join(f"{x[k]:4.0%}" for k in SHARES)  # noqa: E731
    tri = lambda x: "/".join(f"{v:.2f}" for v in x)  # noqa: E731
    call, shipped = d["call_ms"]
    print(f"\nseed {seed}: {s['walks']} walks; clocked call {call:.1f} ms (wavefront {s['wave_ms']:.2f} ms on the "
          f"events); walks' timer fitted to the part events within {s['fit_us']:.0f} us; the shipped kernels' "
          f"replay of the set: last walk part {s['shipped_tail']:.2f} ms after its wavefront's end ({shipped:.1f} ms)")
    for problem in s["problems"]:
        print(f"  PROBLEM: {problem}")
    print(f"  ms after the wavefront's end; per part: walks | start min/median/max | end min/median/max | part "
          f"event | shares {'/'.join(SHARES)}")
    for r in s["parts"]:
        print(f"    part {r['part']}{' (followed)' if r['followed'] else ''}: {r['walks']} | {tri(r['start'])} | "
              f"{tri(r['end'])} | {r['event']:.2f} | {pct(r['shares'])}")
    print(f"  the last {len(s['late'])} walks to end: part row n chain strips steps moves cells(M) | start end | "
          f"ms: sweep moves pred other | bound by")
    for r in s["late"]:
        print(f"    {r['part']} {r['row']} {r['n']} {r['chain']} {r['strips']} {r['steps']} {r['taken']} "
              f"{r['cells'] / 1e6:.1f} | {r['start']:.2f} {r['end']:.2f} | {r['sweep']:.2f} {r['moves']:.2f} "
              f"{r['pred']:.2f} {r['other']:.2f} | {r['bound']}")
    print(f"  all walks' time: {pct(s['shares'])} ({'/'.join(SHARES)}); a walk's duration against its steps "
          f"r={s['corr']['steps']:.2f}, cells r={s['corr']['cells']:.2f}, moves r={s['corr']['taken']:.2f}")


def ab(base: Path, seeds: list[int], repeats: int, fed: bool = False, paper_only: bool = False,
       more: tuple[Path, ...] = (), variants: dict | None = None) -> None:
    """Replays (cached plans) of this tree's kernel against ``base`` (another version of
    wavefront.cu, compiled by NVRTC like this one), alternating in one process, answers identical
    to the base's: the paper set score at each seed, traced at the first, 10 paper sets, the
    IL1RAPL1-shaped case (a chain launch) score and traced. Kernel ms (the launches' sum): median
    (all); GPU span median. ``fed``: first the fed calls (fresh solvers) of the paper set at each
    seed, kernel ms and the kernel after its first window's copies (median, all); ``paper_only``:
    no traced, 10-set or IL1RAPL1 replays; ``more``: other versions too (named by their folder);
    ``variants``: also this kernel with other launch.Tuning values ({name: {field: value}}; the
    field "chain_folds": false keeps the long chains' fold tasks where their exons put them (not
    late, none written by entry rows: launch.late_folds before round 8), true places them late)."""
    from splicedalign.workloads.spliced.gpu import launch, solver
    from splicedalign.workloads.spliced.gpu.flat import FlatCases
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver
    from splicedalign.workloads.spliced.synthetic import il1rapl1_case, paper_set, paper_sets

    ours, late_folds = solver.KERNEL_FILE, launch.late_folds  # (every case of a throughput launch late)

    def not_long_chains(cases, tuning=launch.TUNING):
        late = late_folds(cases, tuning)
        late[launch.long_chains(FlatCases.of(cases), tuning)] = False
        return late
    files = {"base": base, "this": ours, **{f.parent.name: f for f in more}}
    plans = dict.fromkeys(files, late_folds)
    tunings = dict.fromkeys(files, launch.TUNING)
    for name, values in (variants or {}).items():
        values = dict(values)
        folds = values.pop("chain_folds", None)
        files[name], plans[name] = ours, not_long_chains if folds is not None and not folds else late_folds
        tunings[name] = launch.tuning_of(values)
    names = tuple(files)

    def use(name: str) -> None:
        solver.KERNEL_FILE, launch.late_folds = files[name], plans[name]
    failures = []
    for seed in seeds if fed else ():
        cases = paper_set(seed)
        want = None
        rows: dict[str, list[tuple[float, float]]] = {k: [] for k in names}
        for r in range(repeats + 1):
            for name in (names if r % 2 == 0 else names[::-1]):
                use(name)
                call = FedCall(cases, tunings[name])
                want = want or call.results
                if r:  # round 0: every variant's kernels compiled and warm
                    rows[name].append((call.kernel_ms, call.kernel_ms - call.window_ms[0]))
                if not same(call.results, want):
                    failures.append(f"paper {seed} fed {name}: answers differ from the base's")
                del call
        print(f"paper {seed} fed: kernel ms median (all) | after its first window median (all)", flush=True)
        for name in names:
            k, w = np.array(rows[name]).T
            print(f"    {name:<6}{np.median(k):7.2f} ({' '.join(f'{x:.2f}' for x in k)}) | {np.median(w):6.2f} "
                  f"({' '.join(f'{x:.2f}' for x in w)})", flush=True)
    works = [(f"paper {seed} score", lambda seed=seed: paper_set(seed), False) for seed in seeds]
    works += [] if paper_only else [
              (f"paper {seeds[0]} traced", lambda: paper_set(seeds[0]), True),
              ("10 sets score", lambda: paper_sets(10, seeds[0]), False),
              ("IL1RAPL1 score", lambda: [il1rapl1_case()], False),
              ("IL1RAPL1 traced", lambda: [il1rapl1_case()], True)]
    for label, make, traced in works:
        cases = make()
        gpus = {}
        for name in names:  # each planned and cached (a variant's plan may differ)
            use(name)
            gpus[name] = GpuSolver(tuning=tunings[name])
            got = gpus[name].solve_many(cases, traceback=traced)
            want = got if name == "base" else want
        ms: dict[str, list[float]] = {k: [] for k in names}
        spans: dict[str, list[float]] = {k: [] for k in names}
        for r in range(repeats + 1):
            for name in (names if r % 2 == 0 else names[::-1]):
                use(name)
                got = gpus[name].solve_many(cases, traceback=traced)
                if r:  # round 0: every variant's kernels compiled and warm
                    ms[name].append(sum(gpus[name].kernel_ms))
                    spans[name].append(gpus[name].span_ms)
                if not same(got, want):
                    failures.append(f"{label} {name}: answers differ from the base's")
        print(f"{label}: kernel ms (sum of launches) median (all); GPU span", flush=True)
        for name in names:
            print(f"    {name:<6}{statistics.median(ms[name]):7.2f} ({' '.join(f'{x:.2f}' for x in ms[name])}); "
                  f"span {statistics.median(spans[name]):.2f}", flush=True)
        del gpus
    solver.KERNEL_FILE, launch.late_folds = ours, late_folds
    print("A/B answers: " + ("identical" if not failures else "; ".join(failures)), flush=True)
    if failures:
        sys.exit(1)


def plain(seed: int, repeats: int) -> None:
    from splicedalign.workloads.spliced.gpu.launch import Tuning
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver
    from splicedalign.workloads.spliced.synthetic import paper_set

    cases = paper_set(seed)
    gpu = GpuSolver(tuning=Tuning(feed_shares=()))
    for _ in range(repeats + 1):
        gpu.solve_many(cases, traceback=False)
        print(f"seed {seed}: kernel {gpu.kernel_ms[0]:.2f} ms", flush=True)


def analyse(path: Path) -> None:
    data = np.load(path)
    if "walks" in data.files:
        for seed in data["seeds"].tolist():
            analyse_walks(str(seed), {k.split("_", 1)[1]: data[k] for k in data.files if k.startswith(f"w{seed}_")})
        return
    keys = ("fed", "s") if "fed" in data.files else ("s",)
    for seed in data["seeds"].tolist():
        for key in keys:
            d = {k.split("_", 1)[1]: data[k] for k in data.files if k.startswith(f"{key}{seed}_")}
            analyse_one(f"{seed}{' fed' if key == 'fed' else ' replay' if len(keys) > 1 else ''}", d)


def analyse_one(seed: str, d: dict) -> None:
    times, tasks = d["times"].astype(np.int64), d["tasks"]
    take, ready, end = times[:, 0], times[:, 1], times[:, 2]
    old = "start" not in d  # clocks before windows were counted: (SM << 48 | ns waited)
    sm = times[:, 3] >> 48
    waited = times[:, 3] & ((1 << (48 if old else 32)) - 1)
    windows = np.zeros_like(waited) if old else (times[:, 3] >> 32) & 0xFFFF
    if (end == 0).any():
        print(f"seed {seed}: {(end == 0).sum()} tasks without clocks")
        return
    t0 = int(d["start"][0]) if not old and int(d["start"][0]) else take.min()
    take, ready, end = (take - t0) / 1e3, (ready - t0) / 1e3, (end - t0) / 1e3  # us
    waited = waited / 1e3
    span = end.max()
    fold = tasks[:, F_KIND] == KIND_FOLD
    # a strip's case by its targets' offset; a fold's by the row it folds (the q-th exon's last)
    case = np.searchsorted(d["tgt_off"], tasks[:, F_TGT], side="right") - 1
    row_case = dict(zip(tasks[~fold, F_OUT_ROW].tolist(), case[~fold].tolist()))
    case[fold] = [row_case.get(r, -1) for r in tasks[fold, F_IN2_ROW].tolist()]
    long = np.isin(case, d["long"])
    plain, clocked = d["ms"]
    print(f"\nseed {seed}: {len(tasks)} tasks ({fold.sum()} folds), {len(d['K'])} cases, {len(d['long'])} long "
          f"chains (K {d['K'][d['long']].tolist()}); kernel ms shipped {np.median(plain):.2f}, clocked "
          f"{np.median(clocked):.2f}; clocked span {span / 1e3:.2f} ms on {len(np.unique(sm))} SMs")
    q = np.quantile(end, [0.5, 0.9, 0.99, 1.0])
    if "windows" in d:  # fed: when each window's first task was taken (ms after the kernel started)
        print("  fed windows (tasks): first taken at " + ", ".join(
            f"{take[a:a + c].min() / 1e3:.2f} ({c})" for a, c in d["windows"].tolist())
            + "; copies done at " + " ".join(f"{x:.2f}" for x in d["window_ms"].tolist()) + " ms (host events)")
    print("  tasks ended by (ms): " + ", ".join(f"{p}% {x / 1e3:.2f}" for p, x in zip((50, 90, 99, 100), q)))
    chains_end = end[long].max() / 1e3 if long.any() else 0.0
    print(f"  last task taken at {take.max() / 1e3:.2f} ms; long chains end {chains_end:.2f}, "
          f"the rest {end[~long].max() / 1e3:.2f} ms")
    # timeline: warps held per tenth of the span, by what they do
    bins = 10
    edges = np.linspace(0, span, bins + 1)
    first_wait = np.where(fold, 0, ready - take)

    def held(a, b, sel):  # mean warps holding [a, b) intervals of tasks sel, per bin
        out = []
        for lo, hi in zip(edges[:-1], edges[1:]):
            ov = np.clip(np.minimum(b[sel], hi) - np.maximum(a[sel], lo), 0, None)
            out.append(ov.sum() / (hi - lo))
        return np.array(out)
    strip = ~fold
    rows = {
        "strips waiting 1st input": held(take, ready, strip),
        "strips after 1st input": held(ready, end, strip),
        "folds": held(take, end, fold),
        "long-chain tasks": held(take, end, long),
    }
    print(f"  warps held per tenth of the span ({span / bins / 1e3:.2f} ms each; {len(np.unique(sm))} SMs):")
    for name, v in rows.items():
        print(f"    {name:<26}" + " ".join(f"{x:6.0f}" for x in v))
    # warp time by kind
    dur = end - take
    total = dur.sum()
    print(f"  warp time {total / 1e3:.0f} warp-ms (mean warps held {total / span:.0f}); by kind: share of warp time"
          f" | waiting for the first input | later windows (folds: probing) | mean task us | tasks")
    kinds = [("folds", fold)] + [(f"strips R={r}", strip & (tasks[:, F_LANE_ROWS] == r))
                                 for r in np.unique(tasks[strip, F_LANE_ROWS])]
    for name, sel in kinds:
        if not sel.any():
            continue
        fw = first_wait[sel].sum() if name != "folds" else (ready - take)[sel].sum()
        print(f"    {name:<14}{dur[sel].sum() / total:6.1%} | {fw / dur[sel].sum():6.1%} | "
              f"{waited[sel].sum() / dur[sel].sum():6.1%} | {dur[sel].mean():7.1f} | {sel.sum()}")
    # strips: useful cells per warp-us by lane rows, steps per us
    n = tasks[:, F_N]
    for r in np.unique(tasks[strip, F_LANE_ROWS]):
        sel = strip & (tasks[:, F_LANE_ROWS] == r)
        run = (end - ready)[sel]
        cells = (tasks[sel, F_ROWS].astype(np.int64) * (n[sel] + 1)).sum()
        head = (32 * r - tasks[sel, F_ROWS]) // r
        steps = ((n[sel] + 4) // 4 + 31 - head)
        print(f"    R={r}: {cells / 1e9:.2f} G cells, {cells / run.sum() / 1e3:.2f} G cells per warp-ms running; "
              f"{steps.sum() / run.sum():.3f} steps per warp-us; mean rows {tasks[sel, F_ROWS].mean():.0f}, "
              f"lanes used {np.mean(32 - head):.1f}")
    # the last 10%: what ran there
    late = end > 0.9 * span
    print(f"  last 10% of the span: {late.sum()} tasks ended there ({(late & long).sum()} of long chains, "
          f"{(late & fold).sum()} folds); warps held at 0.95: "
          f"{((take < 0.95 * span) & (end > 0.95 * span)).sum()}")
    has_in = (tasks[:, F_IN_ROW] >= 0) | (tasks[:, F_IN2_ROW] >= 0)
    print(f"  strips with inputs: first-input wait median {np.median(first_wait[strip & has_in]):.1f} us, "
          f"p90 {np.quantile(first_wait[strip & has_in], 0.9):.1f}; folds first blocks median "
          f"{np.median((ready - take)[fold]):.1f} us")
    critical_path(tasks, take, ready, end, fold, long, windows, waited, d.get("windows"))


FOUND_US = 3.0  # a task whose first input came within this of its take found it there (one poll)


def critical_path(tasks, take, ready, end, fold, long, windows, waited, fed_windows=None) -> None:
    """The path into the last task to end, through each task's input that arrived last (by its
    producer's first blocks: `ready`), back to a task without inputs: its hops by kind, those whose
    task found its input there when a warp took it (taken late: the counter, or in a fed launch its
    window, came after the input), with ``fed_windows`` ((first, count) per window) how much of the
    time from their producer's first input to their take was before their window's first take;
    then the long chains' strips over the span."""
    producer = {r: i for i, r in enumerate(tasks[:, F_OUT_ROW].tolist())}
    for i in np.flatnonzero(tasks[:, F_ENTRY_ROW] >= 0).tolist():  # a strip writing a fold's row
        producer.setdefault(int(tasks[i, F_ENTRY_ROW]), i)
    path = [int(np.argmax(end))]
    while True:
        t = tasks[path[-1]]
        inputs = [producer[r] for r in (int(t[F_IN_ROW]), int(t[F_IN2_ROW]), int(t[F_IN3_ROW]))
                  if r >= 0 and r in producer]
        if not inputs:
            break
        path.append(max(inputs, key=lambda p: ready[p]))
    path = np.array(path[::-1])
    kind = np.where(fold[path], "F", "S")
    lag = np.diff(ready[path])
    found = (ready - take)[path[1:]] < FOUND_US  # the consumer found its input there when taken
    lanes = np.where(fold[path], 0, 32 - (32 * tasks[path, F_LANE_ROWS] - tasks[path, F_ROWS])
                     // np.maximum(tasks[path, F_LANE_ROWS], 1))
    print(f"  critical path: {len(path)} tasks ({fold[path].sum()} folds), first ready at {ready[path[0]] / 1e3:.2f} "
          f"ms, the last task ready {ready[path[-1]] / 1e3:.2f}, ends {end[path[-1]] / 1e3:.2f} "
          f"({end[path[-1]] - ready[path[-1]]:.0f} us); its strips' lanes {lanes[:-1].sum()} "
          f"({lag.sum() / max(lanes[:-1].sum(), 1):.2f} us of path per lane)")
    for k in ("SS", "SF", "FS", "FF"):
        sel = np.array([a + b == k for a, b in zip(kind[:-1], kind[1:])])
        if sel.any():
            print(f"    {k}: {sel.sum()} hops, median {np.median(lag[sel]):.1f} us, {lag[sel].sum() / 1e3:.2f} ms; "
                  f"taken late: {(found & sel).sum()} hops, {lag[found & sel].sum() / 1e3:.2f} ms")
    if fed_windows is not None and found.any():
        first_take = np.array([take[a:a + c].min() for a, c in fed_windows.tolist()])
        window = np.searchsorted(fed_windows[:, 0], path[1:], side="right") - 1
        untaken = np.maximum(take[path[1:]] - ready[path[:-1]], 0)[found]
        before = np.clip(np.minimum(first_take[window], take[path[1:]]) - ready[path[:-1]], 0, None)[found]
        print(f"    taken late: from the producer's first input to the take {untaken.sum() / 1e3:.2f} ms, of it "
              f"before the task's window came {before.sum() / 1e3:.2f} ms; the path's tasks per window "
              f"{np.bincount(window, minlength=len(fed_windows)).tolist()}")
    parts = 10
    print("    path by tenths (ms at, ms of path, us per strip lane): " + "  ".join(
        f"{ready[path[a]] / 1e3:.2f} {lag[a:b].sum() / 1e3:.2f} {lag[a:b].sum() / max(lanes[a:b].sum(), 1):.2f}"
        for a, b in zip(np.linspace(0, len(lag), parts + 1, dtype=int)[:-1],
                        np.linspace(0, len(lag), parts + 1, dtype=int)[1:])))
    strip = ~fold & long
    if not strip.any():
        return
    n, r = tasks[:, F_N], np.maximum(tasks[:, F_LANE_ROWS], 1)
    steps = (n + 4) // 4 + 31 - (32 * r - tasks[:, F_ROWS]) // r
    blocks = (n + 4) // 4
    span = end.max()
    print("  long chains' strips by when their first input came (tenths of the span): steps/us running | "
          "entry windows per strip (blocks per window) | share of the run taking windows | strips")
    for lo, hi in zip(np.linspace(0, span, parts + 1)[:-1], np.linspace(0, span, parts + 1)[1:]):
        sel = strip & (ready >= lo) & (ready < hi)
        if sel.any():
            run = (end - ready)[sel].sum()
            print(f"    {lo / 1e3:5.2f}-{hi / 1e3:5.2f} ms: {steps[sel].sum() / run:5.2f} | {windows[sel].mean():6.1f} "
                  f"({blocks[sel].sum() / max(windows[sel].sum() + sel.sum(), 1):5.1f}) | "
                  f"{waited[sel].sum() / run:5.1%} | {sel.sum()}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="*", default=[2012])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path("tasks.npz"))
    ap.add_argument("--analyse", type=Path, default=None, help="only analyse a saved file")
    ap.add_argument("--plain", action="store_true",
                    help="only the shipped kernel: the first seed's set planned whole, then replayed --repeats "
                         "times (what Nsight Compute wraps: its second wavefront launch is the first replay)")
    ap.add_argument("--ab", type=Path, nargs="+", default=None, metavar="BASE_CU",
                    help="replays with this tree's wavefront.cu against another version of it, and more (see ab)")
    ap.add_argument("--fed", action="store_true", help="fed launches (fresh solvers' first calls) and their replays")
    ap.add_argument("--walks", action="store_true",
                    help="walk clocks (trace_chains, WALK_TIMES) of a never-seen paper set's traced call per seed")
    ap.add_argument("--paper-only", action="store_true", help="--ab: the paper set's calls only")
    ap.add_argument("--variant", nargs="*", default=[], metavar="NAME=JSON",
                    help='--ab: also this kernel with these launch.Tuning values (and "chain_folds": true; see ab)')
    args = ap.parse_args()
    if args.ab is not None:
        variants = {v.split("=", 1)[0]: json.loads(v.split("=", 1)[1]) for v in args.variant}
        ab(args.ab[0], args.seeds, args.repeats, args.fed, args.paper_only, tuple(args.ab[1:]), variants)
        return
    if args.plain:
        plain(args.seeds[0], args.repeats)
        return
    if args.analyse is None and args.walks:
        measure_walks(args.seeds, args.out)
    elif args.analyse is None:
        (measure_fed if args.fed else measure)(args.seeds, args.repeats, args.out)
    analyse(args.analyse or args.out)


if __name__ == "__main__":
    main()
