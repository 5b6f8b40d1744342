"""Randomized check of every GPU solver against `sequential`, then the benchmark table (last).

Fresh random cases each run (the seed is printed). Scores and every exon's final score must be
identical; chains are checked with the independent oracle. Timings: median of repeats after a
warm-up (kernel compilation excluded), inputs on the host at the start and results on the host
at the end of each timed call.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from splicedalign.workloads.spliced.records import Exon, Scoring, TestCase
from splicedalign.gpu import device
from splicedalign.workloads.spliced.gpu.paper import Accel1Solver, Accel2Solver
from splicedalign.workloads.spliced.gpu.solver import HANDOFFS, GpuSolver
from splicedalign.workloads.spliced.oracle import alignment_problems
from splicedalign.workloads.spliced.solvers import get_solver
from splicedalign.workloads.spliced.synthetic import Shape, gene_like, il1rapl1_case, paper_set

CHECK_CHUNKS = 4  # the correctness check runs chunked launches (gpu/solver.py CHUNKS), off by default
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


def compare(name, solver, cases, scoring, want, traceback: bool) -> tuple[int, list[str]]:
    try:
        got = solver.solve_many(cases, scoring, traceback=traceback)
    except Exception as exc:  # e.g. a bounded wait ran out: every case of the call fails
        return 0, [f"{name} {len(cases)} cases {scoring}: {type(exc).__name__}: {exc}"]
    bad = []
    for c, w, g in zip(cases, want, got):
        if g.score != w.score or not np.array_equal(g.last_row_scores, w.last_row_scores):
            bad.append(f"{name} {c.name} {scoring}: score {g.score} != {w.score} or last rows differ")
        elif traceback and (p := alignment_problems(c, g, scoring)):
            bad.append(f"{name} {c.name} {scoring}: {p[:2]}")
    return len(cases) - len(bad), bad


def timed(fn, repeats: int) -> float:
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("device_out"))
    ap.add_argument("--random", type=int, default=2_400)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-paper-accels", action="store_true",
                    help="skip accel1/accel2 on the paper set (tens of seconds; docs/gpu.md has them)")
    ap.add_argument("--skip-accels-b", action="store_true",
                    help="skip accel1/accel2 timings on the IL1RAPL1 case (8 s; docs/gpu.md has them)")
    ap.add_argument("--rows-per-lane", type=int, nargs="*", default=[2, 4, 8, 16])
    ap.add_argument("--handoffs", type=int, nargs="*", default=list(HANDOFFS),
                    help="kernel hand-off variants to check and time (gpu/solver.py HANDOFFS)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    log = open(args.out / "check.log", "w")

    def say(*a):
        print(*a, file=log, flush=True)
        print(*a, flush=True)

    info = device.device_info()
    seed = int(time.time_ns() % 2**32)
    say(f"device {info}  seed {seed}")
    rng = np.random.default_rng(seed)
    # gpu-h<H>: hand-off variant H (kernels/wavefront.cu); all run chunked launches (a call of
    # >= 2 * MIN_CHUNK_CASES cases is split), so the overlapped host path is checked too.
    solvers = {"accel1": Accel1Solver(poison=True), "accel2": Accel2Solver(poison=True)}
    for h in args.handoffs:
        solvers[f"gpu-h{h}"] = GpuSolver(poison=True, handoff=h, chunks=CHECK_CHUNKS)
        solvers[f"gpu-h{h}-compare"] = GpuSolver(poison=True, byte_profile=False, handoff=h, chunks=CHECK_CHUNKS)
    sequential = get_solver("sequential")

    # ---- correctness
    t0 = time.perf_counter()
    rand = random_cases(rng, args.random)
    longs = long_cases(rng, 12)
    genes = [c for b in range(6) for c in gene_like(np.random.default_rng([seed, b]),
             Shape(int(rng.integers(5_000, 80_000)), int(rng.integers(2, 150)), int(rng.integers(200, 3_000)), 115), f"g{b}", 2)]
    il1 = il1rapl1_case()
    counts = {k: [0, 0] for k in solvers}
    failures: list[str] = []
    for si, scoring in enumerate(SCORINGS):
        part = rand[si::len(SCORINGS)] + (longs + genes if si < 2 else longs[:3])
        want = sequential.solve_many(part, scoring, traceback=False)
        for name, solver in solvers.items():
            ok, bad = compare(name, solver, part, scoring, want, traceback=True)
            counts[name][0] += ok
            counts[name][1] += len(part)
            failures += bad
    want = sequential.solve_many([il1], Scoring(), traceback=False)
    for name, solver in solvers.items():
        ok, bad = compare(name, solver, [il1], Scoring(), want, traceback=name.startswith("gpu"))
        counts[name][0] += ok
        counts[name][1] += 1
        failures += bad
    say(f"correctness: {time.perf_counter() - t0:.1f} s; failures: {len(failures)}")
    for f in failures[:30]:
        say("  FAIL", f)

    # ---- benchmark
    paper = paper_set()
    cells_a = sum(c.cells for c in paper)
    cells_b = il1.cells
    for R in args.rows_per_lane:
        for h in args.handoffs:
            for k in (1, CHECK_CHUNKS):
                g = GpuSolver(rows_per_lane=R, handoff=h, chunks=k)
                try:
                    g.solve_many(paper, traceback=False)
                    ta = timed(lambda: g.solve_many(paper, traceback=False), 3)
                    ka = sum(g.kernel_ms)  # the chunks' kernels of the last call
                    line = (f"gpu rows/lane {R} handoff {h} chunks {k}: (a) {ta*1e3:.2f} ms (kernels {ka:.2f} ms)"
                            f" {cells_a/ta/1e9:.0f} GCUPS")
                    if k == 1:
                        g.solve(il1, traceback=False)
                        tb = timed(lambda: g.solve(il1, traceback=False), 3)
                        line += f"; (b) {tb*1e3:.2f} ms (kernel {sum(g.kernel_ms):.2f} ms)"
                except Exception as exc:
                    line = f"gpu rows/lane {R} handoff {h} chunks {k}: {type(exc).__name__}: {exc}"
                say(line)
    res = {}
    for h in args.handoffs:
        label = f"gpu-h{h}"
        gpu = GpuSolver(handoff=h)
        try:
            gpu.solve_many(paper, traceback=False)
            res[(label, "a", "score")] = timed(lambda: gpu.solve_many(paper, traceback=False), args.repeats)
            res[(label, "a", "kernel")] = sum(gpu.kernel_ms) / 1e3
            say(f"{label} (a) host stages of the last call (s):", {k: round(v, 4) for k, v in gpu.timing.items()})
            if h == args.handoffs[0]:  # host-bound (trace_chain); the kernel variant changes 0.2 of its 2.4 s
                res[(label, "a", "traceback")] = timed(lambda: gpu.solve_many(paper, traceback=True), 1)
                say(f"{label} (a) traceback host stages (s):", {k: round(v, 4) for k, v in gpu.timing.items()})
            gpu.solve(il1, traceback=False)
            res[(label, "b", "score")] = timed(lambda: gpu.solve(il1, traceback=False), args.repeats)
            res[(label, "b", "kernel")] = sum(gpu.kernel_ms) / 1e3
            res[(label, "b", "traceback")] = timed(lambda: gpu.solve(il1, traceback=True), 3)
        except Exception as exc:
            say(f"{label} benchmark: {type(exc).__name__}: {exc}")
    res[("sequential", "b", "score")] = timed(lambda: sequential.solve(il1, traceback=False), 1)
    res[("sequential", "b", "traceback")] = timed(lambda: sequential.solve(il1, traceback=True), 1)
    res[("sequential", "a", "score")] = timed(lambda: sequential.solve_many(paper, traceback=False), 1)
    for name in () if args.skip_accels_b and args.skip_paper_accels else ("accel1", "accel2"):
        s = solvers[name]
        s.poison = False
        if not args.skip_accels_b:
            res[(name, "b", "score")] = timed(lambda: s.solve(il1, traceback=False), 1)
        if not args.skip_paper_accels:
            res[(name, "a", "score")] = timed(lambda: s.solve_many(paper, traceback=False), 1)
    (args.out / "bench.json").write_text(json.dumps({"|".join(k): v for k, v in res.items()}, indent=1))

    say("")
    say(f"device: {info['name']} (cc {info['cc']}, {info['sms']} SMs), CUDA driver {info['driver']}")
    say(f"(a) paper-shaped set: {len(paper)} cases, {cells_a/1e9:.2f} G cells;"
        f" (b) IL1RAPL1-shaped: m={il1.m:,} n={il1.n:,} K={il1.K:,}, {cells_b/1e6:.0f} M cells")
    say(f"{'solver':<11}{'set':<4}{'mode':<10}{'time ms':>12}{'GCUPS':>10}{'speedup':>10}")
    for (name, s, mode), t in sorted(res.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2])):
        cells = cells_a if s == "a" else cells_b
        base = res.get(("sequential", s, "score" if mode == "kernel" else mode))
        sp = f"{base / t:.1f}" if base else "-"
        say(f"{name:<11}{s:<4}{mode:<10}{t*1e3:>12.2f}{cells/t/1e9:>10.1f}{sp:>10}")
    say("correctness (cases identical to sequential / checked, incl. golden via pytest):")
    for name, (ok, total) in counts.items():
        say(f"  {name}: {ok}/{total}")
    log.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
