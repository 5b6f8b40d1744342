"""Device check of the spliced GPU solvers: every GPU solver against `sequential` on fresh
random cases (seed printed; every scoring with global and with free target ends), then the
issue-12 GPU targets; ONE table comes last.

Scores and every exon's final score must be identical to `sequential`'s; chains are checked
with the independent oracle (ties may pick another optimal chain). Timings: median of repeats
after a warm-up (kernel compilation excluded), inputs on the host at the start and results on
the host at the end of each timed call.

``--cold [NAME=SRC ...]``: issue 22 target 1, a never-seen paper-shaped set solved by the first
``solve_many`` of a fresh solver in a process whose kernels are compiled, in fresh processes
on fresh seeds (this tree, and baseline trees' ``src`` alternating with it: their answers
must be identical). ``--host``: the host planning's parts on fresh paper sets (CPU only).
``--shared-gpu``: issue 22 target 4, the paper set solved exactly while
another process holds 70 GiB of the GPU; a case that cannot fit is one line (exit 3).
``--ab NAME=JSON ...``: issue 22 target 1's 1-set row in ONE process (kernels compiled and
warmed): rounds of fresh paper sets, each variant's fresh solver (launch.Tuning fields) taking
a never-seen set in turn (the order alternating), and the default's traced call on another.
``--orders A ...``: the kernel of a paper set's replay in other launch orders of its planned
tasks (same rows and letters): its long chains' tasks ending at A of the order (1: the planned
order's interleaving), the others as planned; answers must be the planned order's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np

from splicedalign.core.timing import gcups as gcups_of
from splicedalign.core.timing import time_repeats
from splicedalign.gpu import device
from splicedalign.workloads.spliced.gpu.launch import FED_SHARES, Tuning, tuning_of
from splicedalign.workloads.spliced.gpu.paper import Accel1Solver, Accel2Solver
from splicedalign.workloads.spliced.gpu.solver import GpuSolver
from splicedalign.workloads.spliced.oracle import alignment_problems
from splicedalign.workloads.spliced.records import TARGET_ENDS, Exon, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import GLOBAL_ENDS_ONLY, get_solver
from splicedalign.workloads.spliced.synthetic import Shape, gene_like, il1rapl1_case, paper_set, paper_sets

SCORINGS = (Scoring(), Scoring(2, -3, 1), Scoring(100, -50, 70), Scoring(1, -1, 0))


def seq(rng, length: int, n_rate: float = 0.02) -> str:
    s = rng.choice(np.array(list("ACGT")), length)
    s[rng.random(length) < n_rate] = "N"
    return "".join(s)


def exon_set(rng, m: int, kind: str) -> list[Exon]:
    K = int(rng.integers(1, 40))
    if kind == "one_exon":
        f = int(rng.integers(1, m + 1))
        return [Exon(f, int(rng.integers(f, m + 1)))]
    if kind == "length_one":
        return [Exon(f, f) for f in rng.integers(1, m + 1, K).tolist()]
    if kind == "one_group":  # all exons share position c: one big group
        c = int(rng.integers(1, m + 1))
        return [Exon(int(rng.integers(1, c + 1)), int(rng.integers(c, m + 1))) for _ in range(K)]
    if kind == "nested_duplicate":
        f = int(rng.integers(1, (m + 1) // 2 + 1))  # m = 1 must still give f = 1
        out = [Exon(f, m)]
        for _ in range(K):
            a = int(rng.integers(out[-1].first, out[-1].last + 1))
            out.append(Exon(a, int(rng.integers(a, out[-1].last + 1))))
        return out + out[: int(rng.integers(1, len(out) + 1))]
    out = []
    for _ in range(K):
        f = int(rng.integers(1, m + 1))
        out.append(Exon(f, int(rng.integers(f, min(m, f + int(rng.integers(1, 300))) + 1))))
    return out


KINDS = ("random", "one_exon", "length_one", "one_group", "nested_duplicate", "target_one")


def random_cases(rng, count: int) -> list[TestCase]:
    cases = []
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        m = int(rng.integers(1, 2_000))
        n = 1 if kind == "target_one" else int(rng.integers(1, 400))
        cases.append(TestCase(f"{kind}{i}", seq(rng, m), seq(rng, n), tuple(exon_set(rng, m, kind))))
    return cases


def long_cases(rng, count: int) -> list[TestCase]:
    """Exons and targets longer than 1,024 (tiling in the paper kernels, many strips in ours)."""
    cases = []
    for i in range(count):
        m = int(rng.integers(3_000, 12_000))
        n = int(rng.integers(1_025, 3_000))
        exons = [Exon(f, min(m, f + int(rng.integers(1_025, 2_500)))) for f in rng.integers(1, m - 1_100, 6).tolist()]
        exons += exon_set(rng, m, "random")
        cases.append(TestCase(f"long{i}", seq(rng, m), seq(rng, n), tuple(exons)))
    return cases


def compare(name, solver, cases, scoring, want, traceback: bool, same=None) -> tuple[int, list[str], list]:
    """(cases right, failures, results). ``same``: results whose chains and alignments these
    must equal exactly (the device traceback makes the host traceback's choices)."""
    try:
        got = solver.solve_many(cases, scoring, traceback=traceback)
    except Exception as exc:  # e.g. a bounded wait ran out: every case of the call fails
        return 0, [f"{name} {len(cases)} cases {scoring}: {type(exc).__name__}: {exc}"], []
    bad = []
    for i, (c, w, g) in enumerate(zip(cases, want, got)):
        try:
            problems = alignment_problems(c, g, scoring) if traceback else []
        except Exception as exc:  # e.g. an unwritten (poisoned) op byte
            problems = [f"{type(exc).__name__}: {exc}"]
        if g.score != w.score or not np.array_equal(g.last_row_scores, w.last_row_scores):
            bad.append(f"{name} {c.name} {scoring}: score {g.score} != {w.score} or last rows differ")
        elif problems:
            bad.append(f"{name} {c.name} {scoring}: {problems[:2]}")
        elif same and (g.chain, g.alignment) != (same[i].chain, same[i].alignment):
            bad.append(f"{name} {c.name} {scoring}: chain/alignment differ from the host traceback's")
    return len(cases) - len(bad), bad, got


def timed(fn, repeats: int, before=None) -> float:
    """Median seconds of ``repeats`` calls after one warm-up call (``before`` runs untimed
    before each; core.timing.time_repeats)."""
    return time_repeats(fn, repeats, before=before)[0].median


def chained(case: TestCase, times: int) -> TestCase:
    """``case``'s base repeated ``times`` times, its exons in every copy: a dependent chain
    ``times`` as long, same target."""
    m = case.m
    exons = tuple(Exon(e.first + i * m, e.last + i * m) for i in range(times) for e in case.exons)
    return TestCase(f"{case.name}x{times}", case.base * times, case.target, exons)


def correctness(args, say, seed: int) -> tuple[dict, list[str]]:
    rng = np.random.default_rng(seed)
    solvers = {"accel1": Accel1Solver(poison=True), "accel2": Accel2Solver(poison=True),
               "gpu": GpuSolver(poison=True, device_trace=False),
               "gpu-compare": GpuSolver(poison=True, byte_profile=False, device_trace=False),
               "gpu-trace": GpuSolver(poison=True, device_trace=True),
               "gpu-trace-compare": GpuSolver(poison=True, byte_profile=False, device_trace=True),
               # the recording kernel's moves (Tuning.recompute off: walks that read every strip's)
               "gpu-trace-record": GpuSolver(poison=True, device_trace=True, tuning=Tuning(recompute=False)),
               # walks sweeping from column 0 (Tuning.checkpoint_blocks 0: no checkpoints), and from checkpoints
               # every column block (1: short targets start from them and back off too)
               "gpu-trace-ck0": GpuSolver(poison=True, device_trace=True, tuning=Tuning(checkpoint_blocks=0)),
               "gpu-trace-ck1": GpuSolver(poison=True, device_trace=True, tuning=Tuning(checkpoint_blocks=1))}
    # fed launches (score only, never-seen cases: feed.py), then the same cases again (the fed
    # plan replayed as a planned launch), then traced (the fed plan recording moves, walked)
    fed = GpuSolver(poison=True, device_trace=True, tuning=Tuning(feed_shares=FED_SHARES))
    # traced calls on never-seen cases fed too (Tuning.feed_record: the recording launch, its
    # follower after window 0, the walks behind): the device traceback's choices, exactly
    fed_record = GpuSolver(poison=True, device_trace=True,
                           tuning=Tuning(feed_shares=FED_SHARES, feed_record=True, recompute=False))
    # the device traceback must make exactly the host traceback's choices
    same_as = {"gpu-trace": "gpu", "gpu-trace-compare": "gpu-compare", "gpu-trace-record": "gpu",
               "gpu-trace-ck0": "gpu", "gpu-trace-ck1": "gpu"}
    sequential = get_solver("sequential")
    t0 = time.perf_counter()
    rand = random_cases(rng, args.random)
    longs = long_cases(rng, 12)
    genes = [c for b in range(6) for c in gene_like(np.random.default_rng([seed, b]),
             Shape(int(rng.integers(5_000, 80_000)), int(rng.integers(2, 150)), int(rng.integers(200, 3_000)), 115),
             f"g{b}", 2)]
    il1 = il1rapl1_case()
    counts = {k: [0, 0] for k in solvers}
    failures: list[str] = []
    # every scoring in both target-end modes (SPEC section 2, free ends), each on half the cases
    for si, base_scoring in enumerate(SCORINGS):
        for mi, ends in enumerate(TARGET_ENDS):
            scoring = Scoring(base_scoring.match, base_scoring.mismatch, base_scoring.gap, ends)
            part = (rand[si::len(SCORINGS)] + (longs + genes if si < 2 else longs[:3]))[mi::len(TARGET_ENDS)]
            want = sequential.solve_many(part, scoring, traceback=False)
            got = {}
            for name, solver in solvers.items():
                if scoring.free_ends and solver.name in GLOBAL_ENDS_ONLY:  # switched off: refuses them
                    continue
                ok, bad, got[name] = compare(name, solver, part, scoring, want, traceback=True,
                                             same=got.get(same_as.get(name, "")))
                counts[name][0] += ok
                counts[name][1] += len(part)
                failures += bad
            fed.clear_cache()
            for traceback in (False, False, True):
                if traceback and scoring.free_ends:
                    continue
                ok, bad, _ = compare("gpu-fed", fed, part, scoring, want, traceback=traceback,
                                     same=got.get("gpu") if traceback else None)
                counts.setdefault("gpu-fed", [0, 0])[0] += ok
                counts["gpu-fed"][1] += len(part)
                failures += bad
            fed_record.clear_cache()
            for _ in range(2):  # fed, then the cached plan replayed
                ok, bad, _ = compare("gpu-fed-record", fed_record, part, scoring, want, traceback=True,
                                     same=got.get("gpu-trace"))
                counts.setdefault("gpu-fed-record", [0, 0])[0] += ok
                counts["gpu-fed-record"][1] += len(part)
                failures += bad
    want = sequential.solve_many([il1], Scoring(), traceback=False)
    got = {}
    for name, solver in solvers.items():
        ok, bad, got[name] = compare(name, solver, [il1], Scoring(), want, traceback=name.startswith("gpu"),
                                     same=got.get(same_as.get(name, "")))
        counts[name][0] += ok
        counts[name][1] += 1
        failures += bad
    say(f"correctness: {time.perf_counter() - t0:.1f} s; failures: {len(failures)}")
    for f in failures[:30]:
        say("  FAIL", f)
    return counts, failures


def targets(args, say) -> list[tuple[str, float, str, float, bool]]:
    """(target, measured value, "<=" or ">=", bound, note) for the GPU performance targets 1-3
    (data-set throughput, traceback cost, one large case; docs/gpu.md)."""
    gpu = GpuSolver(device_trace=True)
    host_trace = GpuSolver(device_trace=False)
    paper = paper_set()
    sets10 = paper_sets(10)
    il1 = il1rapl1_case()
    il8 = chained(il1, 8)
    cells = {"a": sum(c.cells for c in paper), "a10": sum(c.cells for c in sets10)}
    r = args.repeats
    out = []
    stages = {}

    def run(key, fn, repeats, before=None):
        t = timed(fn, repeats, before)
        stages[key] = ({k: round(v * 1e3, 1) for k, v in gpu.timing.items()}, [round(k, 2) for k in gpu.kernel_ms])
        return t

    # cold: the plan is built and uploaded in the timed call; warm: the same case list again
    # (plan and device inputs cached by the solver, as when a data set is solved repeatedly)
    tc = run("paper score cold", lambda: gpu.solve_many(paper, traceback=False), r, gpu.clear_cache)
    ta = run("paper score", lambda: gpu.solve_many(paper, traceback=False), r)
    t10 = run("10 sets score", lambda: gpu.solve_many(sets10, traceback=False), max(1, r // 2))
    tat = run("paper traceback", lambda: gpu.solve_many(paper, traceback=True), r)
    tb = run("IL1RAPL1 score", lambda: gpu.solve(il1, traceback=False), r)
    tbt = run("IL1RAPL1 traceback", lambda: gpu.solve(il1, traceback=True), r)
    # the host traceback (DEVICE_TRACE off), for comparison
    tah = timed(lambda: host_trace.solve_many(paper, traceback=True), max(1, r // 2))
    tbh = timed(lambda: host_trace.solve(il1, traceback=True), r)
    t8 = run("IL1RAPL1x8 score", lambda: gpu.solve(il8, traceback=False), max(1, r // 2))
    for key, (st, kms) in stages.items():
        say(f"  {key}: host stages ms {st}; kernels ms {kms}")
    out.append(("1 paper set score GCUPS", cells["a"] / ta / 1e9, ">=", 1_000, f"{ta*1e3:.1f} ms"))
    out.append(("1 (same, cold: plan+upload)", cells["a"] / tc / 1e9, ">=", 1_000, f"{tc*1e3:.1f} ms"))
    out.append(("1 10 paper sets score GCUPS", cells["a10"] / t10 / 1e9, ">=", 2_000, f"{t10*1e3:.1f} ms"))
    out.append(("2 paper set traceback / score", tat / ta, "<=", 2.0, f"{tat*1e3:.1f} ms"))
    out.append(("2 (same, host traceback)", tah / ta, "<=", 2.0, f"{tah*1e3:.1f} ms"))
    out.append(("2 IL1RAPL1 traceback / score", tbt / tb, "<=", 1.5, f"{tbt*1e3:.1f} ms"))
    out.append(("2 (same, host traceback)", tbh / tb, "<=", 1.5, f"{tbh*1e3:.1f} ms"))
    out.append(("3 IL1RAPL1 score ms", tb * 1e3, "<=", 10.0, f"{il1.cells/tb/1e9:.1f} GCUPS"))
    out.append(("3 IL1RAPL1x8 score ms", t8 * 1e3, "<=", 80.0, f"{il8.cells/t8/1e9:.1f} GCUPS"))
    return out


# One process of the cold measurement: kernels compiled, the pinned staging buffer and CuPy's pools
# grown by a warm-up solver on other cases of the measured shapes (1 set score and traced, 10
# sets score and traced; as benchmarks/spliced_cold.py), then per work a fresh solver's first call on
# never-seen cases (cells counted after it: counting them fills the cases' cached arrays) and the
# same call again (a replay). argv[2] "keep": glibc keeps freed memory (M_TRIM_THRESHOLD) and
# serves allocations up to 32 MiB from its heap (M_MMAP_THRESHOLD), so that planning reuses pages
# the warm-up touched instead of faulting fresh ones in.
COLD_PROBE = r"""
import ctypes, hashlib, json, sys, time
if sys.argv[2] == "keep":
    libc = ctypes.CDLL("libc.so.6")
    assert libc.mallopt(-1, 2**31 - 1) and libc.mallopt(-3, 32 << 20)  # M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
from splicedalign.workloads.spliced.gpu.solver import GpuSolver
from splicedalign.workloads.spliced.synthetic import paper_set, paper_sets
seed = int(sys.argv[1])
if sys.argv[3]:  # Tuning fields (JSON) of this variant
    from splicedalign.workloads.spliced.gpu.launch import tuning_of
    tuning = tuning_of(sys.argv[3])
    _solver = GpuSolver
    GpuSolver = lambda: _solver(tuning=tuning)
wanted = json.loads(sys.argv[5])  # the works measured (COLD_WORKS' names); the warm-up of their shapes only
warm = GpuSolver()
for traceback in (False, True)[:1 + ("1 set traced" in wanted)]:
    warm.solve_many(paper_set(seed + 7919), traceback=traceback)
if "10 sets score" in wanted or "10 sets traced" in wanted:
    warm.solve_many(paper_sets(10, seed + 7920), traceback=False)
if "10 sets traced" in wanted:
    warm.solve_many(paper_sets(10, seed + 7920), traceback=True)
del warm
works = {"1 set score": lambda: (paper_set(seed), False), "1 set traced": lambda: (paper_set(seed + 1), True),
         "10 sets score": lambda: (paper_sets(10, seed + 2), False),
         "10 sets traced": lambda: (paper_sets(10, seed + 12), True)}  # only the wanted made (10 sets: seconds)
works = {k: make() for k, make in works.items() if k in wanted}
from splicedalign.core.machine import cpu_ticks  # "steal": ticks this KVM guest's vCPUs were ready, not run
out = {}
steps, origin, jobs = [], [0.0], []
if sys.argv[4] == "events":  # the host's steps and the kernels on one clock (benchmarks/spliced_profile.py)
    import os
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(os.environ["PYTHONPATH"])), "benchmarks"))
    import spliced_profile
    from spliced_profile import keep_jobs, timed_steps
    from splicedalign.gpu import device
    from splicedalign.workloads.spliced.gpu import feed, solver
    # a fed launch's parts too (those a tree has): its set-up, each step's passes, the finals' gather, the
    # replays' plan and uploads, the results made ready
    more = ((solver.GpuSolver, "_feeder"), (solver.GpuSolver, "_row_storage"), (solver.GpuSolver, "_staging"),
            (feed, "plan_tasks"), (feed, "_encode_step"), (feed.Feeder, "_window"), (solver, "_send_finals_at"),
            (solver.GpuSolver, "_finals"), (feed.Feeder, "plan"), (device.PinnedBuffers, "upload"),
            (solver.outputs, "pending"), (solver.outputs, "scores"), (device, "pack"),
            (device.PinnedBuffers, "_staging"), (device.PinnedBuffers, "_send"), (feed.Feeder, "_followed"),
            (solver.GpuSolver, "_follow"), (feed.Feeder, "walked"), (solver.GpuSolver, "_trace_launch"),
            (solver.GpuSolver, "_split_chunk"), (solver.GpuSolver, "_queue"), (solver.GpuSolver, "_encode"),
            (solver.GpuSolver, "_rest"), (solver, "build_plan"), (solver, "_followed"), (solver, "_walk_records"))
    spliced_profile.STEPS += tuple((o, n) for o, n in more if hasattr(o, n))
    timed_steps(steps, origin)
    keep_jobs(jobs)
for key, (cases, traceback) in works.items():
    gpu = GpuSolver()
    steps.clear(), jobs.clear()
    if sys.argv[4] == "events":
        ref = gpu.streams().compute.record()
    stolen = cpu_ticks()["steal"]
    t = origin[0] = time.perf_counter()
    results = gpu.solve_many(cases, traceback=traceback)
    cold = time.perf_counter() - t
    stolen = cpu_ticks()["steal"] - stolen
    fed0 = None
    if sys.argv[4] == "events":
        import cupy
        at = lambda e: cupy.cuda.get_elapsed_time(ref, e)
        timeline = "; ".join(f"{n.strip('_')} {a:.1f}-{b:.1f}" for n, a, b in steps)
        timeline += " | GPU " + "; ".join(f"kernel {at(j.events[0]):.1f}-{at(j.events[1]):.1f}"
                                         + ("" if not j.feeds else " fed " + " ".join(f"{at(e):.1f}" for e in j.feeds))
                                         + (f" follower to {at(j.events[2]):.1f}" if len(j.events) > 2 else "")
                                         + "".join(f" walk {at(p.ready):.1f}" for p in j.parts if j.traced is not None)
                                         for j in jobs)
        print(f"events {key}: {timeline}", file=sys.stderr)
        fed0 = next((at(j.feeds[0]) for j in jobs if j.feeds), None)  # window 0 at the kernel, ms from the start
    stages = dict(gpu.timing)
    span, kernels = getattr(gpu, "span_ms", 0.0), [round(k, 1) for k in gpu.kernel_ms]
    def digest(results):
        h = hashlib.sha1()
        for r in results:
            h.update(f"{r.case} {r.score} {r.chain} {r.alignment} {r.last_row_scores.tolist()}".encode())
        return h.hexdigest()[:16]
    replays, again = [], set()  # the first replay, then one more (a fed call's plan for replays: made by the first)
    for _ in range(2):
        t = time.perf_counter()
        replayed = gpu.solve_many(cases, traceback=traceback)
        replays.append(time.perf_counter() - t)
        again.add(digest(replayed))
    out[key] = {"cold": cold, "replay": replays[0], "replay2": replays[1], "cells": sum(c.cells for c in cases),
                "stages": stages, "digest": digest(results), "replays_same": again == {digest(results)}, "span": span,
                "kernels": kernels, "steal": stolen, "fed0": fed0}
print(json.dumps(out))
"""


COLD_WORKS = ("1 set score", "1 set traced", "10 sets score", "10 sets traced")  # what a --cold process measures


def cold(args, say) -> tuple[list, list[str]]:
    """(table rows, failures) of the cold measurement: this tree against ``args.cold`` (a
    baseline's src, or none), alternating processes, one fresh seed each."""
    mine = str(Path(__file__).resolve().parents[1] / "src")
    trees = {"new": mine} | {name: str(Path(path).resolve()) for name, path in (t.split("=", 1) for t in args.cold)}
    if args.cold_keep:
        trees["new+keep"] = mine
    variants = dict(args.cold_tuning)
    trees |= {name: mine for name in variants}
    envs = {name: json.loads(v) for name, v in (t.split("=", 1) for t in args.cold_env)}
    trees |= {name: mine for name in envs}
    runs: dict[str, list[dict]] = {k: [] for k in trees}
    failures = []
    failed: set[str] = set()  # trees whose process failed: not run again
    works = list(args.cold_works)
    base_seed = int(time.time()) % 100_000 * 100
    for i in range(args.cold_seeds):
        seed = base_seed + 10 * i
        order = list(trees) if i % 2 == 0 else list(reversed(trees))
        digests = {}
        for name in order:
            if name in failed:
                continue
            env = dict(os.environ, PYTHONPATH=trees[name], **envs.get(name, {}))
            keep = "keep" if name.endswith("+keep") else "-"
            events = "events" if args.cold_events else "-"
            try:
                done = subprocess.run([sys.executable, "-c", COLD_PROBE, str(seed), keep, variants.get(name, ""),
                                       events, json.dumps(works)], env=env, capture_output=True, text=True,
                                      timeout=args.cold_timeout)
            except subprocess.TimeoutExpired as exc:  # (its output as bytes, even with text=True)
                said = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
                done = subprocess.CompletedProcess(exc.cmd, -9, "", f"{said}\nprocess cut off after "
                                                   f"{args.cold_timeout:g} s")
            if done.returncode:  # said at once (a call cut off by its time limit keeps it), with its traceback
                failures.append(f"cold {name} seed {seed}: {done.stderr.strip().splitlines()[-1:]}")
                say(f"  FAIL {failures[-1]} (no more processes of {name})")
                for line in done.stderr.strip().splitlines()[-12:]:
                    say(f"    {line[:300]}")
                failed.add(name)  # a hang or failure costs its wait once, not every seed's
                continue
            for line in done.stderr.splitlines():
                if line.startswith("events "):
                    say(f"  {name} seed {seed} {line}")
            got = json.loads(done.stdout.strip().splitlines()[-1])
            runs[name].append(got)
            failures += [f"cold {name} seed {seed} {k}: a replay's answers differ from the cold call's"
                         for k, v in got.items() if not v.get("replays_same", True)]
            digests[name] = {k: v["digest"] for k, v in got.items()}
            say(f"  cold {name} seed {seed}: " + "; ".join(
                f"{k} {v['cold'] * 1e3:.1f} ms (steal {v.get('steal')} ticks, window 0 at "
                f"{float('nan') if v.get('fed0') is None else v['fed0']:.1f} ms; replay {v['replay'] * 1e3:.1f}, "
                f"{v.get('replay2', float('nan')) * 1e3:.1f}; GPU span {v.get('span', 0):.1f} ms, "
                f"kernels {v.get('kernels')}; host ms "
                + ", ".join(f"{s} {t * 1e3:.1f}" for s, t in v["stages"].items()) + ")" for k, v in got.items()))
        if len(set(map(str, digests.values()))) > 1:
            failures.append(f"cold seed {seed}: answers differ between trees {digests}")
            say(f"  FAIL {failures[-1]}")
        else:
            say(f"  cold seed {seed}: answers equal in {len(digests)} trees/variants ({', '.join(digests)})")
    rows = []
    for name, got in runs.items():
        if not got:
            continue
        med = {k: statistics.median(g[k]["cold"] for g in got) for k in got[0]}
        # each seed's sets have their own cells (a paper set: 12.8-17.4 Gcells across seeds), so a row is the
        # median of the seeds' own GCUPS, and traced / score compares time per cell (the traced set is another)
        gcups = {k: statistics.median(gcups_of(g[k]["cells"], g[k]["cold"]) for g in got) for k in got[0]}
        if "1 set score" in med:
            rows.append((f"1 cold 1 set score GCUPS ({name})", gcups["1 set score"], ">=",
                         1_000, f"{med['1 set score'] * 1e3:.1f} ms"))
            one = [g["1 set score"] for g in got]
            fed0 = [o["fed0"] for o in one if o.get("fed0") is not None]
            if fed0:
                rows.append((f"  1 set window 0 at ms ({name})", statistics.median(fed0), "<=", 1e9,
                             f"max {max(fed0):.1f}"))
            calm = [o["cold"] * 1e3 for o in one if o.get("steal") == 0]
            if calm:  # the processes whose call no vCPU lost to the host
                rows.append((f"  1 set ms, no steal ({name})", statistics.median(calm), "<=", 1e9,
                             f"{len(calm)} of {len(got)}"))
            rows.append((f"  replay 1 set score ms ({name})", statistics.median(o["replay"] for o in one) * 1e3,
                         "<=", 1e9, f"2nd {statistics.median(o['replay2'] for o in one) * 1e3:.1f}"))
        if "10 sets score" in med:
            rows.append((f"1 cold 10 sets GCUPS ({name})", gcups["10 sets score"], ">=",
                         1_500, f"{med['10 sets score'] * 1e3:.1f} ms"))
        if "10 sets traced" in med and "10 sets score" in med:
            rows.append((f"1 cold 10 sets traced / score, per cell ({name})",
                         gcups["10 sets score"] / gcups["10 sets traced"], "<=", 2.0,
                         f"{med['10 sets traced'] * 1e3:.1f} ms, {gcups['10 sets traced']:.0f} GCUPS"))
        if "1 set traced" in med and "1 set score" in med:
            rows.append((f"1 cold traced / score, per cell ({name})", gcups["1 set score"] / gcups["1 set traced"],
                         "<=", 2.0, f"{med['1 set traced'] * 1e3:.1f} ms, {gcups['1 set traced']:.0f} GCUPS"))
    return rows, failures


def host_parts(args, say) -> tuple[list, list[str]]:
    """The host's planning of never-seen work, part by part and pass by pass (CPU only): what a
    cold call spends before its kernel can start. A paper set, and the first launch of 10 sets."""
    from splicedalign.workloads.spliced.gpu import launch, plan
    from splicedalign.workloads.spliced.gpu.flat import FlatCases

    passes = ("_exon_union", "checked_letters", "_exon_order", "_case_counts", "_interleave", "_write_tasks")
    spent: dict[str, float] = {}

    def timed(name: str):
        f = getattr(plan, name)

        def run(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
        return run

    for name in passes:  # each pass of build_plan timed where plan.py calls it
        setattr(plan, name, timed(name))

    def parts(cases) -> dict[str, float]:
        spent.clear()
        out, t = {}, time.perf_counter()
        flat = FlatCases.of(cases)
        out["flatten"], t = time.perf_counter() - t, time.perf_counter()
        config = launch.configure(flat, "int", True, True, True)
        out["configure"], t = time.perf_counter() - t, time.perf_counter()
        planned = plan.build_plan(flat, config.rows_per_lane, config.floors, config.late, config.entry)
        out["build_plan"], t = time.perf_counter() - t, time.perf_counter()
        out |= {f"  {k}": v for k, v in spent.items()}
        plan.trace_inputs(planned, None, launch.walks(flat, config.followed))
        out["trace_inputs"], t = time.perf_counter() - t, time.perf_counter()
        plan.followed_tasks(planned, config.followed, config.least)
        out["followed_tasks"] = time.perf_counter() - t
        return out

    def first_launch(cases):
        flat = FlatCases.of(cases)
        _, work, _, _ = launch.plan_launches(flat, Scoring(), False, 60 << 30, lambda ctype: True)
        return [flat.cases[i] for i in work[0][1]]

    parts(paper_set(int(time.time()) % 1000 + 5, bases=40))  # compiled code loaded
    for label, make in (("a fresh paper set", lambda i: paper_set(int(time.time()) % 1000 + 11 + i)),
                        ("the first launch of 10 fresh sets",
                         lambda i: first_launch(paper_sets(10, int(time.time()) % 1000 + 50 + 10 * i)))):
        got = [parts(make(i)) for i in range(3)]
        say(f"  host parts of {label}, ms (3 of them; {len(make(0))} cases):")
        for k in got[0]:
            say(f"    {k:<18}" + " / ".join(f"{g.get(k, 0.0) * 1e3:6.2f}" for g in got))
    return [], []


def ab(args, say) -> tuple[list, list[str]]:
    """(rows, failures) of --ab: the first call of a fresh solver of each variant (the default
    and ``args.ab``'s Tuning fields) on a never-seen paper set, score only, in one process,
    ``args.ab_rounds`` rounds (variants in turn, the order reversed every other round; each
    call its own fresh set: a set's case objects cache arrays once asked), then the default's
    traced call on a fresh set; median ms and GCUPS; the answers of each variant are checked
    against the default's on one shared set at the end."""
    variants = {"default": Tuning()} | {k: tuning_of(v) for k, v in args.ab}
    seed = int(time.time()) % 10_000 * 100 + 11
    for tuning in variants.values():  # kernels compiled, pools grown, compiled passes loaded
        GpuSolver(tuning=tuning).solve_many(paper_set(seed), traceback=False)
    GpuSolver().solve_many(paper_set(seed + 1), traceback=True)
    ms: dict[str, list[float]] = {k: [] for k in variants}
    gcups: dict[str, list[float]] = {k: [] for k in variants}
    traced: list[float] = []
    traced_gcups: list[float] = []
    n = 2
    for r in range(args.ab_rounds):
        for name in (list(variants) if r % 2 == 0 else list(reversed(variants))):
            cases = paper_set(seed + n)
            n += 1
            gpu = GpuSolver(tuning=variants[name])
            t = time.perf_counter()
            gpu.solve_many(cases, traceback=False)
            took = time.perf_counter() - t
            ms[name].append(took * 1e3)
            gcups[name].append(gcups_of(sum(c.cells for c in cases), took))
        cases = paper_set(seed + n)
        n += 1
        t = time.perf_counter()
        GpuSolver().solve_many(cases, traceback=True)
        took = time.perf_counter() - t
        traced.append(took * 1e3)
        traced_gcups.append(gcups_of(sum(c.cells for c in cases), took))
    cases = paper_set(seed + n)
    want = [(r.score, r.last_row_scores.tolist()) for r in GpuSolver(tuning=Tuning(feed_shares=())).solve_many(
        cases, traceback=False)]
    failures = [f"ab {name}: answers differ from a planned-whole launch's (seed {seed + n})" for name, tuning in
                variants.items() if [(r.score, r.last_row_scores.tolist()) for r in GpuSolver(tuning=tuning).solve_many(
                    cases, traceback=False)] != want]
    # traced: the default's launches against launches of half its move budget (more of them)
    halves = Tuning(move_budget=Tuning().move_budget // 2)
    got, two = (GpuSolver(tuning=t).solve_many(cases, traceback=True) for t in (Tuning(), halves))
    if [(r.score, r.chain) for r in got] != [(r.score, r.chain) for r in two]:
        failures.append(f"ab: traced answers differ between move budgets (seed {seed + n})")
    say(f"  ab: first call of a fresh solver on a never-seen paper set, {args.ab_rounds} rounds (seeds {seed}+), "
        f"ms median (min) / GCUPS median:")
    rows = []
    for name in variants:
        med = statistics.median(ms[name])
        say(f"    {name:<12}{med:7.1f} ({min(ms[name]):.1f})  {statistics.median(gcups[name]):7.1f} GCUPS   "
            + " ".join(f"{x:.1f}" for x in ms[name]))
        rows.append((f"1 set score GCUPS, in process ({name})", statistics.median(gcups[name]), ">=", 1_000,
                     f"{med:.1f} ms"))
    # per cell: each call solves its own set (12.8-17.4 Gcells across seeds)
    ratio = statistics.median(gcups["default"]) / statistics.median(traced_gcups)
    say(f"    traced (default) {statistics.median(traced):.1f} ms median: {ratio:.2f}x the default's score a cell")
    rows.append(("1 set traced / score a cell, in process", ratio, "<=", 2.0, f"{statistics.median(traced):.1f} ms"))
    return rows, failures


def orders(args, say) -> tuple[list, list[str]]:
    """(rows, failures) of --orders: the replayed kernel (median ms of --repeats, interleaved) of
    one fresh paper set planned whole, its tasks reordered (a stable sort by each task's
    relative position in its case, scaled by A for the long chains: each case's own order kept,
    so every producer still comes first)."""
    from splicedalign.workloads.spliced.gpu import launch
    from splicedalign.workloads.spliced.gpu.plan import KIND_FOLD, TASK_FIELDS

    cp = device.cupy()
    seed = int(time.time()) % 10_000 + 31
    cases = paper_set(seed)
    gpu = GpuSolver()
    want = gpu.solve_many(cases, traceback=False)
    (_, inputs), = gpu._cache.items()
    plan, planned = inputs.plan, inputs.tasks
    tasks = plan.tasks
    F = {k: i for i, k in enumerate(TASK_FIELDS)}
    case_of = np.searchsorted(plan.tgt_off, tasks[:, F["tgt"]])
    strips = tasks[:, F["kind"]] != KIND_FOLD
    row_case = dict(zip(tasks[strips, F["out_row"]].tolist(), case_of[strips].tolist()))
    folds = np.flatnonzero(~strips)
    case_of[folds] = [row_case[r] for r in tasks[folds, F["in2_row"]].tolist()]
    by_case = np.argsort(case_of, kind="stable")
    counts = np.bincount(case_of, minlength=len(plan.n))
    pos = np.empty(len(tasks), np.int64)
    pos[by_case] = np.arange(len(tasks)) - np.repeat(np.cumsum(counts) - counts, counts)
    x = (pos + 0.5) / counts[case_of]
    long = np.zeros(len(plan.n), bool)
    long[launch.long_chains(plan.flat)] = True
    variants = {"planned": planned}
    for a in args.orders:
        key = np.where(long[case_of], x * a, x)
        variants[f"long chains end {a:g}"] = cp.asarray(tasks[np.argsort(key, kind="stable")])
    got: dict[str, list[float]] = {k: [] for k in variants}
    failures = []
    for _ in range(args.repeats):
        for name, device_tasks in variants.items():
            inputs.tasks = device_tasks
            results = gpu.solve_many(cases, traceback=False)
            got[name].append(gpu.kernel_ms[0])
            if any(r.score != w.score or not np.array_equal(r.last_row_scores, w.last_row_scores)
                   for r, w in zip(results, want)):
                failures.append(f"orders seed {seed} {name}: answers differ from the planned order's")
    say(f"  orders (seed {seed}, {int(long.sum())} long chains, {len(tasks)} tasks), kernel ms median (min):")
    for name, ms in got.items():
        say(f"    {name:<24}{statistics.median(ms):7.2f} ({min(ms):.2f})")
    return [], failures


# Another process holding GPU memory: it allocates what it is told, says so, waits for stdin.
HOLDER = r"""
import sys
import cupy as cp
held = cp.empty(int(sys.argv[1]), dtype=cp.uint8)
held.fill(1)
cp.cuda.runtime.deviceSynchronize()
print("held", flush=True)
sys.stdin.read()
"""


def shared_gpu(args, say) -> tuple[list, list[str]]:
    """Issue 22 target 4: the paper set, score and traced, solved while another process holds
    70 GiB: the same answers as with the GPU to itself; a case that cannot fit its cap is one
    line (GpuMemoryError; the CLI exits 3)."""
    from splicedalign.core.errors import GpuMemoryError

    cp = device.cupy()
    paper = paper_set(int(time.time()) % 10_000 + 3)
    want = {tb: GpuSolver().solve_many(paper, traceback=tb) for tb in (False, True)}
    cp.get_default_memory_pool().free_all_blocks()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(70 << 30)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    failures = []
    rows = []
    try:
        if holder.stdout.readline().strip() != "held":
            return [], ["shared GPU: the holder could not take 70 GiB"]
        free, total = cp.cuda.runtime.memGetInfo()
        say(f"  shared GPU: another process holds 70 GiB; free {free / 2**30:.1f} of {total / 2**30:.1f} GiB")
        for tb in (False, True):
            gpu = GpuSolver()
            t = time.perf_counter()
            try:
                got = gpu.solve_many(paper, traceback=tb)
            except Exception as exc:  # noqa: BLE001 - reported as the check's failure
                failures.append(f"shared GPU traceback={tb}: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            took = time.perf_counter() - t
            same = all((g.score, g.chain) == (w.score, w.chain) and np.array_equal(g.last_row_scores, w.last_row_scores)
                       for g, w in zip(got, want[tb]))
            if not same:
                failures.append(f"shared GPU traceback={tb}: answers differ")
            say(f"  shared GPU traceback={tb}: {len(gpu.kernel_ms)} launch(es), {took * 1e3:.0f} ms, "
                f"same answers {same}")
            rows.append((f"4 70 GiB held: paper {'traced' if tb else 'score'} exact", float(same), ">=", 1,
                         f"{len(gpu.kernel_ms)} launches"))
        try:
            GpuSolver(memory_cap=1 << 20).solve_many(paper[:1], traceback=False)
            failures.append("shared GPU: a case larger than its cap did not raise GpuMemoryError")
        except GpuMemoryError as exc:
            say(f"  cap 1 MiB: {exc}")
            rows.append(("4 cannot fit: one line", float("\n" not in str(exc)), ">=", 1, "GpuMemoryError"))
    finally:
        holder.kill()
        holder.wait()
    return rows, failures


def threading_layers() -> list[str]:
    """The numba threading layers this machine can load (the planning passes run on one)."""
    import importlib

    out = []
    for name, module in (("tbb", "tbbpool"), ("omp", "omppool"), ("workqueue", "workqueue")):
        try:
            importlib.import_module(f"numba.np.ufunc.{module}")
            out.append(name)
        except ImportError:
            pass
    return out


def named_tuning(text: str) -> tuple[str, str]:
    """(NAME, JSON) of a --cold-tuning / --ab variant, its Tuning fields checked here
    (launch.tuning_of) rather than in the device call's processes."""
    name, _, fields = text.partition("=")
    try:
        tuning_of(fields)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
    return name, fields


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("device_out"))
    ap.add_argument("--random", type=int, default=2_400)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-targets", action="store_true")
    ap.add_argument("--skip-correctness", action="store_true",
                    help="no random cases (for a host-only change: --cold's answer digests against a baseline "
                         "tree stand in)")
    ap.add_argument("--cold", nargs="*", default=None, metavar="NAME=SRC",
                    help="also the cold-call measurement (issue 22 target 1), against the baseline trees' src given")
    ap.add_argument("--host", action="store_true", help="also time the host planning's parts (no GPU needed)")
    ap.add_argument("--cold-seeds", type=int, default=3)
    ap.add_argument("--cold-timeout", type=float, default=60.0,
                    help="seconds a --cold process may run; one that fails or runs out is not run again")
    ap.add_argument("--cold-works", nargs="+", choices=COLD_WORKS, default=list(COLD_WORKS),
                    help="the cold works measured (default all; a process warms up the shapes of these only)")
    ap.add_argument("--cold-keep", action="store_true",
                    help="also this tree with glibc keeping freed memory (the cold probe's 'keep')")
    ap.add_argument("--cold-tuning", nargs="*", type=named_tuning, default=[], metavar="NAME=JSON",
                    help="also this tree with other launch.Tuning fields (JSON): 'r4={\"rows_per_lane\": 4}'")
    ap.add_argument("--cold-env", nargs="*", default=[], metavar="NAME=JSON",
                    help="also this tree in processes with these environment variables (JSON): "
                         "'spin={\"OMP_WAIT_POLICY\": \"ACTIVE\"}'")
    ap.add_argument("--cold-events", action="store_true",
                    help="also the host's steps and the kernels of every tree's and variant's cold calls on one "
                         "clock")
    ap.add_argument("--shared-gpu", action="store_true", help="also the shared-GPU check (issue 22 target 4)")
    ap.add_argument("--ab", nargs="*", type=named_tuning, default=None, metavar="NAME=JSON",
                    help="also the 1-set first call in one process: the default against these Tuning variants")
    ap.add_argument("--ab-rounds", type=int, default=5)
    ap.add_argument("--orders", nargs="*", type=float, default=None, metavar="A",
                    help="also the paper set's replayed kernel with its long chains ending at A of the order")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    log = open(args.out / "check.log", "w")

    def say(*a):
        print(*a, file=log, flush=True)
        print(*a, flush=True)

    info = device.device_info()
    seed = int(time.time_ns() % 2**32)
    say(f"device {info}  seed {seed}")
    counts, failures = ({}, []) if args.skip_correctness else correctness(args, say, seed)
    try:  # set by the first parallel pass: none has run when the correctness part is skipped
        layer = numba.threading_layer()
    except ValueError:
        layer = "not started yet"
    say(f"host planning: numba {numba.__version__}, threading layer {layer} of "
        f"{', '.join(threading_layers())} available, {numba.get_num_threads()} threads")
    rows = [] if args.skip_targets else targets(args, say)
    for wanted, check in ((args.host, host_parts), (args.ab is not None, ab), (args.orders is not None, orders),
                          (args.cold is not None, cold),
                          (args.shared_gpu, shared_gpu)):
        if wanted:
            more, bad = check(args, say)
            rows += more
            failures += bad
            for f in bad:
                say("  FAIL", f)
    (args.out / "targets.json").write_text(json.dumps(rows, indent=1))

    say("")
    say(f"device: {info['name']} (cc {info['cc']}, {info['sms']} SMs), CUDA driver {info['driver']}; seed {seed}")
    say(f"{'issue-12/22 GPU target':<40}{'measured':>10}  {'bound':<9}{'':<7}{'':>14}")
    for name, value, op, bound, note in rows:
        met = value >= bound if op == ">=" else value <= bound
        say(f"{name:<40}{value:>10.2f}  {op} {bound:<6g}{'met' if met else 'MISSED':<7}{note:>14}")
    say("correctness (cases identical to sequential, chains valid / checked; golden via pytest):")
    say("  " + "   ".join(f"{name}: {ok}/{total}" for name, (ok, total) in counts.items()))
    log.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
