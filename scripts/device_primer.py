"""Device check + benchmark of the primer GPU solvers (run by `bash scripts/device_check.sh primer`).

1. Correctness: the paper's example and >= 1,000 fresh random cases (seeded, seed printed):
   `gpu` and `primer-paper` against the CPU `sequential` (solutions and cells); plus deep
   cases that force the `gpu` retry paths.
2. Benchmark (median of repeats after warm-up): `gpu` on the paper's Table-1 shape and larger,
   `primer-paper` on scaled shapes, `sequential`/`multicore` on a scaled shape (seconds
   extrapolated to Table 1 by cells, marked). Writes table + JSON under --out."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np

from splicedalign.gpu.device import device_info
from splicedalign.workloads.primer import PrimerProblem, solve
from splicedalign.workloads.primer.bench import add_speedups, check_agreement, format_table, measure
from splicedalign.workloads.primer.gpu.solver import GpuSolver
from splicedalign.workloads.primer.synthetic import generate, shaped


def correctness(cases: int, seed: int, log) -> dict:
    rng = np.random.default_rng(seed)
    bad = []
    assert solve(PrimerProblem("ACTG", "AGCAAG", 2), "gpu").solutions == ((1, 3), (2, 4))
    assert solve(PrimerProblem("ACTG", "AGCAAG", 2), "primer-paper").solutions == ((1, 3), (2, 4))
    t0 = time.perf_counter()
    for i in range(cases):
        m, n = int(rng.integers(5, 400)), int(rng.integers(5, 700))
        k = int(rng.integers(1, min(m, 160) + 1))
        p = generate(m, n, k, seed=int(rng.integers(1 << 30)), homologous=rng.random(),
                     divergence=0.4 * rng.random(), piece=int(rng.integers(10, 400)))
        if i % 5 == 0:
            p = PrimerProblem(p.alpha[:3] + "N" + p.alpha[4:], p.beta[:1] + "Y" + p.beta[2:], k)
        want = solve(p, "sequential")
        for name in ("gpu", "primer-paper"):
            got = solve(p, name)
            if (got.solutions, got.cells) != (want.solutions, want.cells):
                bad.append((i, name, m, n, k))
                log(f"MISMATCH case {i} {name} m={m} n={n} k={k}")
    deep = 0
    for s, (m, n) in enumerate(((9000, 12000), (3000, 5000))):  # regions beyond 1,024 / 8,192 rows
        p = generate(m, n, 3 + 20 * s, seed=s, homologous=0.9, divergence=0.001 * s, piece=m)
        want, got = solve(p, "sequential"), solve(p, "gpu")
        deep += 1
        if (got.solutions, got.cells) != (want.solutions, want.cells):
            bad.append(("deep", s))
            log(f"MISMATCH deep case {s}")
    segmented = GpuSolver()
    segmented.min_segment_overlaps = 1  # as many column segments as the overlap allows
    for i in range(40):  # long beta: the `gpu` launch cuts it into segments
        m, n = int(rng.integers(50, 500)), int(rng.integers(3000, 40000))
        k = int(rng.integers(1, min(m, 80) + 1))
        p = generate(m, n, k, seed=int(rng.integers(1 << 30)), homologous=0.5 * rng.random(),
                     divergence=0.3 * rng.random(), piece=int(rng.integers(10, 500)))
        want, got = solve(p, "sequential"), segmented.solve(p)
        deep += 1
        if (got.solutions, got.cells) != (want.solutions, want.cells):
            bad.append(("segmented", i, m, n, k))
            log(f"MISMATCH segmented case {i} m={m} n={n} k={k}")
    log(f"correctness: {cases} random cases x 2 solvers + {deep} deep/segmented, seed {seed}: "
        f"{len(bad)} mismatches ({time.perf_counter() - t0:.1f} s)")
    return {"cases": cases, "deep": deep, "seed": seed, "mismatches": bad}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    ap.add_argument("--budget", type=float, default=240.0, help="skip optional benchmarks past this many seconds")
    ap.add_argument("--paper-scale", type=int, default=4)
    ap.add_argument("--cpu-scale", type=int, default=8)
    ap.add_argument("--no-large", action="store_true", help="skip primer-paper on Table 1 and gpu on Tables 4/5")
    ap.add_argument("--threads", type=int, nargs="*", default=[],
                    help="also time multicore with these thread counts (scaling)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    logf = open(args.out / "device_primer.log", "w")

    def log(msg: str) -> None:
        line = f"[{time.perf_counter() - start:6.1f}s] {msg}"
        print(line, file=sys.stderr, flush=True)
        print(line, file=logf, flush=True)

    info = device_info()
    log(f"device {info}; numba threads {numba.get_num_threads()}")
    check = correctness(args.cases, args.seed, log)
    rows, results = [], {}

    def bench(case: str, problem: PrimerProblem, solver: str, repeats: int, warmup: int) -> None:
        row, result = measure(case, problem, solver, repeats, warmup)
        rows.append(row)
        results.setdefault(case, {})[solver] = result
        log(f"{case} {solver}: {row.seconds:.4g} s, {row.gcups:.3g} GCUPS, {len(result.solutions)} solutions")

    table1 = shaped("table1")
    bench("table1", table1, "gpu", 3, 1)  # kernels were compiled by the correctness step
    cpu_case = f"table1/{args.cpu_scale}"
    small = shaped("table1", args.cpu_scale)
    bench(cpu_case, small, "gpu", 3, 1)
    bench(cpu_case, small, "sequential", 1, 0)  # numba compiled by the correctness step
    bench(cpu_case, small, "multicore", 3, 1)
    all_threads = numba.get_num_threads()
    for t in args.threads:
        numba.set_num_threads(t)
        row, result = measure(cpu_case, small, "multicore", 3, 1)
        log(f"{cpu_case} multicore {t} threads: {row.seconds:.4g} s")
        rows.append(replace(row, solver=f"multicore-{t}t"))
    numba.set_num_threads(all_threads)
    paper_case = f"table1/{args.paper_scale}"
    paper_problem = shaped("table1", args.paper_scale)
    bench(paper_case, paper_problem, "gpu", 3, 1)
    bench(paper_case, paper_problem, "primer-paper", 1, 0)
    paper_seconds = rows[-1].seconds
    left = args.budget - (time.perf_counter() - start) - 30
    if not args.no_large and paper_seconds * args.paper_scale ** 2 * 1.5 < left:
        bench("table1", table1, "primer-paper", 1, 0)
    for name in () if args.no_large else ("table5", "table4"):
        if time.perf_counter() - start < args.budget - 60:
            bench(name, shaped(name), "gpu", 1, 0)
    for case, by_solver in results.items():
        check_agreement(case, by_solver)
    # extrapolate the CPU and paper-kernel seconds to Table 1 by cells (gpu computed its cells)
    full_cells = results["table1"]["gpu"].cells
    for r in list(rows):
        measured_full = any(x.case == "table1" and x.solver == r.solver for x in rows)
        if r.case in (cpu_case, paper_case) and r.solver != "gpu" and not measured_full:
            f = full_cells / r.cells
            rows.append(replace(r, case="table1", m=table1.m, n=table1.n, cells=full_cells,
                                comparisons=round(r.comparisons * f), seconds=r.seconds * f,
                                seconds_min=r.seconds_min * f, seconds_max=r.seconds_max * f,
                                solutions=len(results["table1"]["gpu"].solutions), extrapolated=True))
    add_speedups(rows)
    table = format_table(rows)
    (args.out / "primer_device_table.txt").write_text(table + "\n")
    (args.out / "primer_device.json").write_text(json.dumps(
        {"device": info, "numba_threads": numba.get_num_threads(), "correctness": check,
         "rows": [r.as_dict() for r in rows]}, indent=1, default=str))
    log("done")
    print(table)
    return 1 if check["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
