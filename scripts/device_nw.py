"""Device check of the nw GPU solvers (run by `bash scripts/device_check.sh nw` on the device machine).

1. Correctness: fresh random pairs (seed printed) of varied, often unequal lengths, sometimes
   with wildcards and non-default costs, against `sequential`: `gpu` with alignment (CIGAR
   re-scored), every compiled `gpu` variant score-only, `nw-tiles`; checkpoints poisoned first.
   Then large pairs against `multicore`.
   Then fresh random pairs of every mode (global, prefix, infix) and cost model (linear, affine,
   with and without a match bonus) against the reference: `multicore` (WFA or DP, batch too),
   `sequential` and, where they take them, the GPU solvers (a refusal is counted, not failed).
2. Benchmark (skipped with --quick; benchmarks/nw.py holds the side by side with the peers):
   paper 002 shapes, 10^5, 10^6 (mutated and unrelated), both GPU solvers, the CPU solvers
   where affordable. Median after warm-up. Table printed last.
A time budget keeps the whole run inside the device call: later benchmark rows are skipped
(and listed) when the predicted time would not fit.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.timing import gcups, repeats_for, time_repeats
from splicedalign.gpu import device
from splicedalign.workloads.nw.cpu import MulticoreSolver, SequentialSolver
from splicedalign.workloads.nw.gpu.paper import TilesSolver
from splicedalign.workloads.nw.gpu.solver import ROWS_PER_LANE, TRACES, WFA_SAMPLE_MIN, GpuSolver
from splicedalign.workloads.nw.peers import PROCESSES, PywfaJob, PywfaTiming, time_pywfa
from splicedalign.workloads.nw.records import MODES, Costs, Pair, cigar_cost
from splicedalign.workloads.nw.reference import ReferenceSolver
from splicedalign.workloads.nw.solvers import solve_pairs
from splicedalign.workloads.nw.synthetic import (
    ISSUE26_CASES,
    ISSUE26_COSTS,
    KINDS,
    PAPER_SIZES,
    case_pair,
    make_pair,
    mutate,
    random_codes,
)

T0 = time.perf_counter()
# hand-off variants tried (strips.cu PUBLISH / WINDOW_MIN); the first is the original (2, 1)
HANDOFFS = ({"PUBLISH": 2, "WINDOW_MIN": 1}, {"PUBLISH": 8, "WINDOW_MIN": 8}, {"PUBLISH": 16, "WINDOW_MIN": 16},
            {"PUBLISH": 32, "WINDOW_MIN": 32})


def elapsed() -> float:
    return time.perf_counter() - T0


def random_pair(rng: np.random.Generator, k: int, most: int) -> tuple[Pair, Costs]:
    n = int(math.exp(rng.uniform(0, math.log(most))))
    a = random_codes(n, rng)
    if rng.random() < 0.6:
        b = mutate(a, rng)
        if b.size == 0:
            b = random_codes(1, rng)
    else:
        m = n if rng.random() < 0.3 else int(math.exp(rng.uniform(0, math.log(most))))
        b = random_codes(m, rng)
    if rng.random() < 0.1:  # wildcards: never match
        a[rng.random(a.size) < 0.02] = 4
        b[rng.random(b.size) < 0.02] = 5
    roll = rng.random()
    if roll < 0.6:
        costs = Costs()
    elif roll < 0.95:
        costs = Costs(int(rng.integers(-2, 2)), int(rng.integers(0, 6)), int(rng.integers(0, 7)))
    else:
        costs = Costs(0, 150, 200)  # costs outside a byte: the compare path
    return Pair(f"r{k}", "a", "b", a, b), costs


def correctness(args: argparse.Namespace, log) -> list[str]:
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    log(f"correctness seed {seed}")
    rng = np.random.default_rng(seed)
    seq = SequentialSolver()
    main = GpuSolver(poison=True)  # cost-adaptive: the WFA kernel for similar pairs
    # the whole-table kernels' variants: without the WFA (else they would rarely run)
    variants = [GpuSolver(rows_per_lane=r, prmt=p, poison=True, handoff=h, use_wfa=False)
                for r in ROWS_PER_LANE for p in (True, False) for h in HANDOFFS]
    aligners = [GpuSolver(rows_per_lane=r, poison=True, trace=t, whole_codes=False, use_wfa=False)
                for r in ROWS_PER_LANE for t in TRACES]
    tight = GpuSolver(rows_per_lane=4, poison=True, cols_every=8, whole_codes=False, use_wfa=False)
    tiles = TilesSolver()
    fails: list[str] = []
    checked = 0
    for k in range(args.pairs):
        pair, costs = random_pair(rng, k, args.most)
        want = seq.solve(pair, costs, traceback=False).score
        runs = [(main, True), (variants[k % len(variants)], False), (aligners[k % len(aligners)], True)]
        if k % 3 == 0:
            runs.append((tiles, k % 15 == 0))
        if k % 7 == 0:
            runs.append((tight, True))
        for solver, tb in runs:
            got = solver.solve(pair, costs, traceback=tb)
            label = (f"{solver.name}(R={getattr(solver, 'rows_per_lane', '-')}, prmt={getattr(solver, 'prmt', '-')}, "
                     f"trace={getattr(solver, 'trace_on', '-')}, {getattr(solver, 'defines', '')})")
            if got.score != want:
                fails.append(f"pair {k} {pair.n}x{pair.m} {costs}: {label} score {got.score} != {want}")
            elif tb and cigar_cost(got.cigar, pair.a, pair.b, costs) != want:
                fails.append(f"pair {k} {pair.n}x{pair.m} {costs}: {label} CIGAR costs "
                             f"{cigar_cost(got.cigar, pair.a, pair.b, costs)} != {want}")
        checked += 1
    log(f"random pairs checked: {checked} (lengths 1..{args.most}), failures: {len(fails)}")
    fails += modes_and_costs(rng, args, log, main, tiles)
    multi = MulticoreSolver()
    big = [make_pair(30_368, kind) for kind in KINDS]
    big.append(Pair("unequal-40000x70000", "a", "b", random_codes(40_000, rng), random_codes(70_000, rng)))
    big.append(make_pair(100_000, "mutated"))
    for pair in big:
        want = multi.solve(pair, Costs(), traceback=False).score
        for solver, tb in ((main, True), (GpuSolver(band_min_cells=0, poison=True, use_wfa=False), True),
                           (GpuSolver(rows_per_lane=8, whole_codes=False, use_wfa=False), True),
                           (GpuSolver(rows_per_lane=16, whole_codes=False, use_wfa=False), True),
                           (GpuSolver(rows_per_lane=16, handoff=HANDOFFS[-1], use_wfa=False), False)):
            got = solver.solve(pair, Costs(), traceback=tb)
            ok = got.score == want and (not tb or cigar_cost(got.cigar, pair.a, pair.b, Costs()) == want)
            if not ok:
                fails.append(f"{pair.name}: {solver.name} R={solver.rows_per_lane} gave {got.score}, want {want}")
        log(f"large {pair.name} {pair.n}x{pair.m}: score {want} checked ({elapsed():.0f} s)")
    return fails


class ForcedWfa:
    """`gpu`'s wavefront kernel alone, whatever the pair (SolverUnavailable for costs it does not take)."""

    name = "gpu-wfa"

    def __init__(self) -> None:
        from splicedalign.workloads.nw.gpu.wfa import WfaSolver, applies

        self.solver, self.applies = WfaSolver(poison=True), applies

    def solve(self, pair: Pair, costs: Costs, traceback: bool = True, mode: str = "global"):
        if not self.applies(costs) or pair.n == 0 or pair.m == 0:
            raise SolverUnavailable("not the WFA's costs")
        from splicedalign.workloads.nw.gpu.wfa import sampled_score

        expected = sampled_score(pair, costs) if min(pair.n, pair.m) >= WFA_SAMPLE_MIN else None
        got = self.solver.solve(pair, costs, traceback, mode, budget_ms=1e4, expected=expected)
        if got is None:
            raise SolverUnavailable("the WFA gave up")
        return got


def modes_and_costs(rng: np.random.Generator, args: argparse.Namespace, log, gpu: GpuSolver,
                    tiles: TilesSolver) -> list[str]:
    """Every mode x cost model: multicore, sequential, the GPU solvers against the reference."""
    fails: list[str] = []
    refused: dict[str, int] = {}
    reference, seq, multi = ReferenceSolver(), SequentialSolver(), MulticoreSolver()
    banded = GpuSolver(poison=True, band_min_cells=0, use_wfa=False)  # bands on every size (default: from 2e11 cells)
    forced = ForcedWfa()  # the WFA kernel on every pair whose costs it takes
    batch: list[tuple[Pair, Costs, str, int]] = []
    for k in range(args.mode_pairs):
        pair, _ = random_pair(rng, k, 400 if k % 4 else 3000)  # > 256 rows: several nw_band strips
        mode = MODES[k % 3]
        roll = k % 4
        costs = (Costs(0, int(rng.integers(1, 5)), int(rng.integers(1, 5))) if roll == 0 else
                 Costs(0, 4, 2, 6) if roll == 1 else
                 Costs(0, int(rng.integers(1, 7)), int(rng.integers(1, 4)), int(rng.integers(1, 9))) if roll == 2 else
                 Costs(int(rng.integers(-2, 1)), int(rng.integers(0, 5)), int(rng.integers(0, 4)),
                       int(rng.integers(0, 6))))
        want = reference.solve(pair, costs, traceback=False, mode=mode).score
        batch.append((pair, costs, mode, want))
        for solver in (multi, seq, gpu, banded, tiles, forced):
            try:
                got = solver.solve(pair, costs, traceback=True, mode=mode)
            except SolverUnavailable:
                refused[solver.name] = refused.get(solver.name, 0) + 1
                continue
            if got.score != want or cigar_cost(got.cigar, pair.a, pair.b, costs, got.start2, got.end2) != want:
                fails.append(f"mode pair {k} {pair.n}x{pair.m} {mode} {costs}: {solver.name} "
                             f"(band_min_cells {getattr(solver, 'band_min_cells', '-')}) {got.score} != {want}")
    for costs, mode in ((Costs(0, 4, 2, 6), "infix"), (Costs(), "global")):
        pairs = [p for p, c, md, _ in batch[:60]]
        wants = [reference.solve(p, costs, traceback=False, mode=mode).score for p in pairs]
        got = solve_pairs(multi, pairs, costs, True, mode)
        if [r.score for r in got] != wants:
            fails.append(f"multicore batch {mode} {costs}: scores differ from the reference")
    log(f"modes x cost models: {args.mode_pairs} pairs checked (seeded with the run), failures {len(fails)}, "
        f"refused (SolverUnavailable) {refused}")
    return fails


def bench(args: argparse.Namespace, log) -> tuple[list[dict], list[str]]:
    rows: list[dict] = []
    skipped: list[str] = []
    solvers = {"gpu": GpuSolver(), "nw-tiles": TilesSolver(), "sequential": SequentialSolver(),
               "multicore": MulticoreSolver()}
    rate: dict[tuple[str, bool], float] = {}  # GCUPS seen so far, to predict the next size

    def measure(name: str, solver, pair: Pair, traceback: bool, repeats: int, label: str = "") -> None:
        key = (name + label, traceback)
        predicted = pair.cells / (rate.get(key, 0.0) * 1e9) if rate.get(key) else 0.0
        if elapsed() + predicted * (repeats + 1) > args.budget:
            skipped.append(f"{name}{label} {pair.name} {'align' if traceback else 'score'} "
                           f"(predicted {predicted:.2f} s each)")
            return
        try:
            timing, result = time_repeats(lambda: solver.solve(pair, Costs(), traceback=traceback), repeats, 1)
        except SolverUnavailable as exc:  # e.g. nw-tiles refusing a table larger than the device
            skipped.append(f"{name}{label} {pair.name}: {exc}")
            log(f"  {name}{label} {pair.name}: n/a: {exc}")
            return
        if pair.cells >= 10**7:  # tiny pairs measure launch latency, not a rate to extrapolate from
            rate[key] = gcups(pair.cells, timing.median)
        rows.append({"solver": name + label, "case": pair.name, "n": pair.n, "m": pair.m, "cells": pair.cells,
                     "mode": "align" if traceback else "score", "score": result.score,
                     "seconds": timing.median, "spread": timing.spread,
                     "kernel_ms": getattr(solver, "kernel_ms", None),
                     "walk_ms": getattr(solver, "walk_ms", None) if traceback else None,
                     "gcups": gcups(pair.cells, timing.median)})
        log(f"  {name}{label} {pair.name} {rows[-1]['mode']}: {timing.median * 1e3:.3f} ms "
            f"({rows[-1]['gcups']:.1f} GCUPS, kernel {rows[-1]['kernel_ms']}, walk {rows[-1]['walk_ms']})"
            f" [{elapsed():.0f} s]")

    sizes = PAPER_SIZES + (100_000, 1_000_000)
    for n in sizes:
        for kind in KINDS:
            pair = make_pair(n, kind)
            reps = 5 if n <= 100_000 else 2
            measure("gpu", solvers["gpu"], pair, False, reps)
            measure("gpu", solvers["gpu"], pair, True, 3 if n <= 100_000 else 1)
            if n <= 100_000 and kind == "mutated":
                measure("nw-tiles", solvers["nw-tiles"], pair, False, 3 if n <= 30_368 else 1)
            if n == 30_368:
                measure("gpu", GpuSolver(trace="host", whole_codes=False), pair, True, 3, "[trace=host]")
            if n in (9_024, 30_368) and kind == "mutated":
                measure("nw-tiles", solvers["nw-tiles"], pair, True, 1)
                measure("sequential", solvers["sequential"], pair, False, 1)
                measure("multicore", solvers["multicore"], pair, False, 1)
    # variants of ours: rows per lane x hand-off (score), rows per lane (alignment)
    for n in (30_368, 1_000_000):
        pair = make_pair(n, "mutated")
        big = n > 100_000
        for r in ROWS_PER_LANE:
            for h in HANDOFFS:
                if big and (r == 4 or h["PUBLISH"] < 16):
                    continue
                label = f"[R={r},P={h['PUBLISH']},W={h['WINDOW_MIN']}]"
                measure("gpu", GpuSolver(rows_per_lane=r, handoff=h), pair, False, 1 if big else 5, label)
            if not (big and r == 4):
                measure("gpu", GpuSolver(rows_per_lane=r, whole_codes=False), pair, True, 1 if big else 3, f"[R={r}]")
    return rows, skipped


def gpu_repeats(one: float) -> int:
    """A GPU side row's timed repeats (``one``: the seconds of a call after the warm-up): at least 15
    and enough for ~0.2 s (more than pywfa's a process: the GPU's row has one process), 3 past 1 s.
    (Sized from the warm-up call, which loads kernels, 10^5 1% got 15 repeats, median 0.98 ms, against
    0.76 ms over 200 calls in another process of the same H100 call: the host's first calls ran slower.)"""
    return 3 if one > 1.0 else repeats_for(0.2, one, 15, 400)


def side_by_side(args: argparse.Namespace, log) -> tuple[list[dict], list[str]]:
    """issue 26's GPU single-pair targets: `gpu` (cost-adaptive) against pywfa on one core, same
    inputs, score and CIGAR; every score equal, every CIGAR (ours and pywfa's) re-scored.
    pywfa: ``peers.time_pywfa`` (the benchmarks' one definition): ``--pywfa-processes`` fresh
    processes one after another, each a warm-up call and then enough repeats for 50 ms (at least
    5) of every row, its aligner kept across the calls; a row's time is the median of the
    processes' medians, its spread their min .. max. `gpu`: host to host in this process, a
    warm-up, one call to size the repeats, then ``gpu_repeats``: the median and the min .. max. The ratio is of
    the two medians. Also `gpu` with the whole table (adaptive=False) for the band's gain."""
    rows: list[dict] = []
    fails: list[str] = []
    gpu, whole = GpuSolver(), GpuSolver(adaptive=False, whole_codes=False, use_wfa=False)
    banded = GpuSolver(band_min_cells=0, use_wfa=False)
    banded4 = GpuSolver(band_min_cells=0, band_rows=4, use_wfa=False)  # nw_band with R = 4 (strips of 128 rows)
    forced = ForcedWfa()  # the WFA kernel whatever `gpu` would choose
    pairs = {name: case_pair(name) for name in args.side_cases}
    todo = [(name, cost_name, traceback) for name in args.side_cases for cost_name in args.side_costs
            for traceback in (False, True)
            if cost_name == "linear" or max(pairs[name].n, pairs[name].m) <= args.side_affine_max]
    peer: dict[tuple[str, str, bool, str], PywfaTiming] = {}
    kinds = [("pywfa", True)] + ([("pywfa-new", False)] if args.pywfa_new_aligner else [])
    jobs = [(label, row, PywfaJob(pairs[row[0]].a, pairs[row[0]].b, ISSUE26_COSTS[row[1]], row[2], reuse))
            for label, reuse in kinds for row in todo]
    t = time.perf_counter()
    try:
        timed = time_pywfa([job for _, _, job in jobs], processes=args.pywfa_processes)
        peer = {(*row, label): timing for (label, row, _), timing in zip(jobs, timed)}
        log(f"pywfa: {len(jobs)} rows in {args.pywfa_processes} fresh processes, {time.perf_counter() - t:.1f} s")
    except SolverUnavailable as exc:
        log(f"pywfa n/a: {exc}")
    except RuntimeError as exc:  # a process failed, disagreed on a score, or a CIGAR did not cost its score
        fails.append(f"pywfa: {exc}")
    for name, cost_name, traceback in todo:
        pair, costs = pairs[name], ISSUE26_COSTS[cost_name]
        scores = {}
        for label, _ in kinds:
            timing = peer.get((name, cost_name, traceback, label))
            if timing is None:
                continue
            scores[label] = timing.score
            rows.append({"case": name, "costs": cost_name, "solver": label, "mode": "align" if traceback else "score",
                         "ms": timing.wall.median * 1e3, "low_ms": timing.wall.min * 1e3,
                         "high_ms": timing.wall.max * 1e3,
                         "process_ms": [round(v * 1e3, 3) for v in timing.wall.runs],
                         "repeats": list(timing.repeats), "cpu_ms": timing.cpu.median * 1e3,
                         "tuples_ms": timing.tuples_seconds * 1e3,
                         "algorithm": "wfa", "score": timing.score})
            log(f"  {label:<9} {name:<16} {cost_name:<6} {rows[-1]['mode']:<5} {rows[-1]['ms']:10.3f} ms "
                f"(processes {rows[-1]['process_ms']}, repeats {rows[-1]['repeats']}, CPU {rows[-1]['cpu_ms']:.3f}, "
                f"its tuples {rows[-1]['tuples_ms']:.3f} not counted) score {timing.score}")
        runs = [("gpu", gpu)] + (
            [("gpu-whole", whole), ("gpu-band", banded), ("gpu-band-R4", banded4)] if args.whole else []) + (
            [("gpu-wfa", forced)] if args.force_wfa and "unrelated" not in name else [])
        for label, solver in runs:
            if elapsed() > args.budget:
                continue
            try:
                solver.solve(pair, costs, traceback=traceback)  # warm-up (kernels loaded, first-call costs)
                t = time.perf_counter()
                solver.solve(pair, costs, traceback=traceback)  # (sizes the repeats)
                one = time.perf_counter() - t
                timing, result = time_repeats(
                    lambda s=solver, p=pair, c=costs, tb=traceback: s.solve(p, c, traceback=tb), gpu_repeats(one), 0)
            except SolverUnavailable as exc:
                log(f"  {label} {name} {cost_name}: n/a: {exc}")
                continue
            scores[label] = result.score
            if traceback and cigar_cost(result.cigar, pair.a, pair.b, costs) != result.score:
                fails.append(f"{label} {name} {cost_name}: CIGAR does not re-score to {result.score}")
            band = getattr(solver, "band", None)
            stats_of = solver.solver if isinstance(solver, ForcedWfa) else solver
            row = {"case": name, "costs": cost_name, "solver": label, "mode": "align" if traceback else "score",
                   "ms": timing.median * 1e3, "low_ms": timing.min * 1e3, "high_ms": timing.max * 1e3,
                   "repeats": len(timing.runs), "algorithm": result.algorithm, "score": result.score,
                   "passes": getattr(solver, "passes", None),
                   "band": None if band is None or band.full else band.hi - band.lo + 1,
                   "kernel_ms": getattr(solver, "kernel_ms", None),
                   "pass_ms": [round(x, 2) for x in getattr(solver, "pass_ms", [])],
                   "walk_ms": getattr(solver, "walk_ms", None) if traceback else None,
                   "codes_ms": getattr(solver, "codes_ms", None) if traceback else None,
                   "wfa": wfa_stats(stats_of) if result.algorithm == "wfa" else None}
            rows.append(row)
            log(f"  {label:<9} {name:<16} {cost_name:<6} {row['mode']:<5} {row['ms']:10.3f} ms "
                f"({row['low_ms']:.3f}-{row['high_ms']:.3f}, {row['repeats']} repeats) {row['algorithm']:<5} "
                f"passes {row['passes']} {row['pass_ms']} band {row['band']} kernel {row['kernel_ms']} "
                f"codes {row['codes_ms']} walk {row['walk_ms']} score {result.score} wfa {row['wfa']} "
                f"[{elapsed():.0f} s]")
        if len(set(scores.values())) > 1:
            fails.append(f"{name} {cost_name}: scores differ {scores}")
    return rows, fails


def wfa_stats(solver) -> dict | None:
    """The last WFA launch of a `gpu` solver: steps, kernel ms, threads, ring in shared memory."""
    stats = getattr(solver, "stats", None) if hasattr(solver, "launch") else getattr(
        getattr(solver, "wfa", None), "stats", None)
    if not stats:
        return None
    return {"steps": stats.get("steps", [None])[0], "kernel_ms": round(stats.get("kernel_ms", 0.0), 3),
            "ms": round(stats.get("ms", 0.0), 3), "threads": stats.get("threads"), "shared": stats.get("shared"),
            "choice_ms": round(stats.get("choice_ms", 0.0), 3), "host_ms": round(stats.get("host_ms", 0.0), 3)}


def side_table(rows: list[dict], log) -> None:
    """The side rows as a table: each time its median (min-max: gpu's repeats, pywfa's process
    medians), the ratio of pywfa's median to gpu's."""
    log("\n| case | costs | gpu score ms (min-max; algorithm, passes, band) | gpu CIGAR ms (min-max; walk) "
        "| pywfa 1 core score ms (process min-max) | pywfa CIGAR ms (process min-max) "
        "| gpu whole table score / CIGAR ms | gpu bands score / CIGAR ms | ratio pywfa / gpu score, CIGAR |")
    log("|---|---|---|---|---|---|---|---|---|")
    keyed = {(r["case"], r["costs"], r["solver"], r["mode"]): r for r in rows}
    fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
    ratio = lambda a, b: "-" if a is None or b is None else f"{a / b:.1f}x"  # noqa: E731
    for case, costs in dict.fromkeys((r["case"], r["costs"]) for r in rows):
        def get(solver, mode, case=case, costs=costs):
            return keyed.get((case, costs, solver, mode))

        def ms(solver, mode):
            r = get(solver, mode)
            return r["ms"] if r else None

        def spread(solver, mode):
            r = get(solver, mode)
            return "-" if r is None else f"{r['ms']:.2f} ({r['low_ms']:.2f}-{r['high_ms']:.2f})"

        r, ra = get("gpu", "score"), get("gpu", "align")
        log(f"| {case} | {costs} | {spread('gpu', 'score')}; {r['algorithm'] if r else '-'}, "
            f"{r['passes'] if r else '-'}, {r['band'] if r else '-'} | {spread('gpu', 'align')}; "
            f"{fmt(ra['walk_ms']) if ra else '-'} | {spread('pywfa', 'score')} | {spread('pywfa', 'align')} "
            f"| {fmt(ms('gpu-whole', 'score'))} / {fmt(ms('gpu-whole', 'align'))} "
            f"| {fmt(ms('gpu-band', 'score'))} / {fmt(ms('gpu-band', 'align'))} "
            f"| {ratio(ms('pywfa', 'score'), ms('gpu', 'score'))}, {ratio(ms('pywfa', 'align'), ms('gpu', 'align'))} |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path("device_out"))
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--most", type=int, default=2500, help="longest random sequence")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--budget", type=float, default=270.0, help="seconds for the whole script")
    parser.add_argument("--skip-check", action="store_true")
    parser.add_argument("--mode-pairs", type=int, default=400, help="random pairs of the modes x cost models check")
    parser.add_argument("--quick", action="store_true", help="correctness only (no benchmark sweep)")
    parser.add_argument("--side", action="store_true",
                        help="the side by side with pywfa (issue 26) instead of the sweep")
    parser.add_argument("--side-cases", nargs="+", default=list(ISSUE26_CASES))
    parser.add_argument("--side-costs", nargs="+", default=list(ISSUE26_COSTS), choices=sorted(ISSUE26_COSTS))
    parser.add_argument("--side-affine-max", type=int, default=10**9,
                        help="side by side: longer pairs with linear costs only")
    parser.add_argument("--force-wfa", action="store_true",
                        help="side by side: also the WFA kernel alone (not on unrelated pairs)")
    parser.add_argument("--pywfa-processes", type=int, default=PROCESSES,
                        help="side by side: fresh processes timing pywfa (the median of their medians)")
    parser.add_argument("--pywfa-new-aligner", action="store_true",
                        help="side by side: also pywfa with a new aligner a call (pywfa-new rows)")
    parser.add_argument("--whole", action="store_true",
                        help="side by side: also gpu with the whole table and with bands at every size")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    logfile = open(args.out / "device_nw.log", "w")

    def log(text: str) -> None:
        print(text, flush=True)
        logfile.write(text + "\n")
        logfile.flush()

    info = device.device_info()
    log(f"device: {info}")
    fails = [] if args.skip_check else correctness(args, log)
    for f in fails[:20]:
        log("FAIL " + f)
    log(f"correctness done at {elapsed():.0f} s")
    side_rows: list[dict] = []
    if args.side:
        side_rows, side_fails = side_by_side(args, log)
        fails += side_fails
        for f in side_fails:
            log("FAIL " + f)
    rows, skipped = ([], ["benchmark (--quick or --side)"]) if args.quick or args.side else bench(args, log)
    try:
        import pywfa  # noqa: F401
        peer = "pywfa: installed (see benchmarks/nw.py)"
    except ImportError:
        peer = "pywfa: n/a (not installed on the device)"
    (args.out / "device_nw.json").write_text(json.dumps({"device": info, "fails": fails, "rows": rows,
                                                         "side": side_rows, "skipped": skipped}, indent=1))
    log("\nskipped: " + ("; ".join(skipped) if skipped else "none"))
    log(peer)
    log(f"\n{info['name']}  correctness failures: {len(fails)}")
    log(f"{'solver':<24} {'case':<18} {'mode':<5} {'ms':>11} {'kernel ms':>10} {'walk ms':>8} {'GCUPS':>8}")
    for r in rows:
        kernel = "-" if r["kernel_ms"] is None else f"{r['kernel_ms']:.3f}"
        walk = "-" if r["walk_ms"] is None else f"{r['walk_ms']:.2f}"
        log(f"{r['solver']:<24} {r['case']:<18} {r['mode']:<5} {r['seconds'] * 1e3:>11.3f} {kernel:>10} {walk:>8} "
            f"{r['gcups']:>8.1f}")
    if side_rows:
        side_table(side_rows, log)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
