"""Where a paper set's wavefront kernel spends its time, task by task (a GPU machine; the
analysis alone runs anywhere on a saved file).

Per seed: a fresh paper set solved (score), then its replays (the cached plan: the same tasks,
rows and letters) timed with the shipped kernel (median of --repeats), then with the kernel
compiled with task clocks (wavefront.cu, TASK_TIMES; NVRTC): for every task, when a warp took
it, when its first input blocks had arrived, when it ended, its SM and how long it waited for
inputs after its first window. Answers of the clocked kernel must be the shipped one's. The
clocks, the launched task list and the cases' shapes go to ``--out`` (npz); ``--analyse FILE``
prints the analysis of such a file. ``--ab BASE_CU``: replays of this tree's kernel against
another version of wavefront.cu (``ab``).

* the timeline: tasks in flight (warps held) per tenth of the kernel, split into strips waiting
  for their first input, strips running, folds;
* the tail: when 50 / 90 / 99 / 100% of the tasks had ended, and what ran in the last 10%;
* warp time by kind (strips by lane rows, folds) and its share spent waiting;
* the long chains' (launch.long_chains) last task against everyone else's.

    PYTHONPATH=src python3 scripts/profile_spliced_tasks.py --seeds 2012 7132700 --out tasks.npz
    PYTHONPATH=src python3 scripts/profile_spliced_tasks.py --analyse tasks.npz
    PYTHONPATH=src SPLICEDALIGN_SHIPPED_KERNELS=0 python3 scripts/profile_spliced_tasks.py --ab main_wavefront.cu
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

from splicedalign.workloads.spliced.gpu.plan import (
    F_IN2_ROW,
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


def measure(seeds: list[int], repeats: int, out: Path) -> None:
    from splicedalign.gpu import device
    from splicedalign.workloads.spliced.gpu import launch, solver
    from splicedalign.workloads.spliced.gpu.solver import KERNEL_FILE, GpuSolver
    from splicedalign.workloads.spliced.synthetic import paper_set

    cp = device.cupy()
    shipped, function = solver.kernel_defines, device.function
    looked_up: list[tuple] = []  # (all names, defines) of each kernel the solver asks for

    def spy(source, name, all_names, defines=None):
        looked_up.append((all_names, defines or {}))
        return function(source, name, all_names, defines)

    def clocks(on: bool) -> None:
        solver.kernel_defines = (lambda: {**shipped(), "TASK_TIMES": CAPACITY}) if on else shipped

    device.function = spy
    saved: dict[str, np.ndarray] = {}
    for seed in seeds:
        cases = paper_set(seed)
        gpu = GpuSolver()
        want = gpu.solve_many(cases, traceback=False)  # cold: planned (fed), cached
        (_, inputs), = gpu._cache.items()
        clocks(True)
        gpu.solve_many(cases, traceback=False)  # the clocked kernel compiled
        names, defines = looked_up[-1]
        times = cp.ndarray((CAPACITY, 4), dtype=cp.uint64,
                           memptr=device._module(KERNEL_FILE, names, tuple(sorted(defines.items()))).get_global(
                               "task_times"))
        plain, clocked = [], []
        for _ in range(repeats):
            clocks(False)
            gpu.solve_many(cases, traceback=False)
            plain.append(gpu.kernel_ms[0])
            clocks(True)
            times.fill(0)
            got = gpu.solve_many(cases, traceback=False)
            clocked.append(gpu.kernel_ms[0])
            if not same(got, want):
                sys.exit(f"seed {seed}: the clocked kernel's answers differ from the shipped one's")
        clocks(False)
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
    device.function = function
    np.savez_compressed(out, seeds=np.array(seeds), **saved)


def same(got, want) -> bool:
    """Whether two calls' results are the same: scores, last rows, chains, alignments."""
    return all(r.score == w.score and np.array_equal(r.last_row_scores, w.last_row_scores) and r.chain == w.chain
               and r.alignment == w.alignment for r, w in zip(got, want)) and len(got) == len(want)


def ab(base: Path, seeds: list[int], repeats: int) -> None:
    """Replays (cached plans) of this tree's kernel as configured against ``base`` (another
    version of wavefront.cu, compiled by NVRTC like this one) with every throughput launch at all
    the blocks per SM that fit (as before Tuning.score_blocks_per_sm), alternating in one process,
    answers identical to the base's: the paper set score at each seed, traced at the first, 10
    paper sets, the IL1RAPL1-shaped case (a chain launch) score and traced. Kernel ms (the
    launches' sum): median (all); GPU span median."""
    import dataclasses

    from splicedalign.workloads.spliced.gpu import solver
    from splicedalign.workloads.spliced.gpu.plan import BLOCKS_PER_SM
    from splicedalign.workloads.spliced.gpu.solver import GpuSolver
    from splicedalign.workloads.spliced.synthetic import il1rapl1_case, paper_set, paper_sets

    ours = solver.KERNEL_FILE
    names = ("base", "this")
    works = [(f"paper {seed} score", lambda seed=seed: paper_set(seed), False) for seed in seeds]
    works += [(f"paper {seeds[0]} traced", lambda: paper_set(seeds[0]), True),
              ("10 sets score", lambda: paper_sets(10, seeds[0]), False),
              ("IL1RAPL1 score", lambda: [il1rapl1_case()], False),
              ("IL1RAPL1 traced", lambda: [il1rapl1_case()], True)]
    failures = []
    for label, make, traced in works:
        cases = make()
        gpu = GpuSolver()
        tunings = {"base": dataclasses.replace(gpu.tuning, score_blocks_per_sm=BLOCKS_PER_SM), "this": gpu.tuning}
        files = {"base": base, "this": ours}

        def use(name: str, gpu=gpu, files=files, tunings=tunings) -> None:
            solver.KERNEL_FILE, gpu.tuning = files[name], tunings[name]
        use("base")
        want = gpu.solve_many(cases, traceback=traced)  # planned and cached (blocks per SM are no part of a plan)
        ms: dict[str, list[float]] = {k: [] for k in names}
        spans: dict[str, list[float]] = {k: [] for k in names}
        for r in range(repeats + 1):
            for name in (names if r % 2 == 0 else names[::-1]):
                use(name)
                got = gpu.solve_many(cases, traceback=traced)
                if r:  # round 0: every variant's kernels compiled and warm
                    ms[name].append(sum(gpu.kernel_ms))
                    spans[name].append(gpu.span_ms)
                if not same(got, want):
                    failures.append(f"{label} {name}: answers differ from the base's")
        print(f"{label}: kernel ms (sum of launches) median (all); GPU span", flush=True)
        for name in names:
            print(f"    {name:<6}{statistics.median(ms[name]):7.2f} ({' '.join(f'{x:.2f}' for x in ms[name])}); "
                  f"span {statistics.median(spans[name]):.2f}", flush=True)
    solver.KERNEL_FILE = ours
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
    for seed in data["seeds"].tolist():
        d = {k.split("_", 1)[1]: data[k] for k in data.files if k.startswith(f"s{seed}_")}
        analyse_one(seed, d)


def analyse_one(seed: int, d: dict) -> None:
    times, tasks = d["times"].astype(np.int64), d["tasks"]
    take, ready, end = times[:, 0], times[:, 1], times[:, 2]
    sm, waited = times[:, 3] >> 48, times[:, 3] & ((1 << 48) - 1)
    if (end == 0).any():
        print(f"seed {seed}: {(end == 0).sum()} tasks without clocks")
        return
    t0 = take.min()
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
    print(f"  warps held per tenth of the span ({span / bins / 1e3:.2f} ms each; "
          f"{len(np.unique(sm))} SMs x 24 = {24 * len(np.unique(sm))} slots):")
    for name, v in rows.items():
        print(f"    {name:<26}" + " ".join(f"{x:6.0f}" for x in v))
    # warp time by kind
    dur = end - take
    total = dur.sum()
    print(f"  warp time {total / 1e3:.0f} warp-ms (mean warps held {total / span:.0f}); by kind: share of warp time"
          f" | waiting for the first input | waiting later | mean task us | tasks")
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="*", default=[2012])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path("tasks.npz"))
    ap.add_argument("--analyse", type=Path, default=None, help="only analyse a saved file")
    ap.add_argument("--plain", action="store_true",
                    help="only the shipped kernel: the first seed's set planned whole, then replayed --repeats "
                         "times (what Nsight Compute wraps: its second wavefront launch is the first replay)")
    ap.add_argument("--ab", type=Path, default=None, metavar="BASE_CU",
                    help="replays with this tree's wavefront.cu against another version of it (see ab)")
    args = ap.parse_args()
    if args.ab is not None:
        ab(args.ab, args.seeds, args.repeats)
        return
    if args.plain:
        plain(args.seeds[0], args.repeats)
        return
    if args.analyse is None:
        measure(args.seeds, args.repeats, args.out)
    analyse(args.analyse or args.out)


if __name__ == "__main__":
    main()
