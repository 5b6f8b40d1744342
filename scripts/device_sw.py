"""Device check of the sw GPU solvers: fresh random query/database pairs against `sequential`
(every compiled (R, T) shape, 16- and 32-bit lanes, multi-pass queries, a profile too large for
shared memory, scores above 16 bits), then the benchmark: paper 003 Table III beside the
published values, and the scale-up database. Full numbers go to OUT/sw_device.json; the table
comes last on stdout. Run from the repository root: PYTHONPATH=src python3 scripts/device_sw.py
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numba
import numpy as np

from splicedalign.core.timing import gcups, time_repeats
from splicedalign.gpu import device
from splicedalign.workloads.sw import synthetic
from splicedalign.workloads.sw.gpu.device_db import DeviceDatabase, to_device
from splicedalign.workloads.sw.gpu.paper import SwScanSolver
from splicedalign.workloads.sw.gpu.plan import SHAPES
from splicedalign.workloads.sw.gpu.solver import GpuSolver
from splicedalign.workloads.sw.matrices import encode
from splicedalign.workloads.sw.records import Database, Query, Scoring
from splicedalign.workloads.sw.solvers import SOLVERS

# paper 003 Table III, ms: CUDASW++ kernel 1, kernel 2, single CPU thread, proposed (C1060)
PUBLISHED = {128: (9.09, 6.18, 69.69, 1.65), 256: (12.80, 6.67, 135.71, 2.71), 512: (20.36, 10.00, 233.25, 4.93),
             1024: (34.14, 16.86, 482.53, 9.66), 2048: (65.35, 25.70, 872.98, 19.14),
             4096: (126.00, 44.80, 2244.11, 38.26), 8192: (246.88, 85.70, 4680.05, 76.13)}


def random_round(rng: np.random.Generator, m: int, count: int, max_len: int) -> tuple[Query, Database]:
    """A query of m letters (all 24 codes, mostly the 20 amino acids) and ``count`` sequences
    of 1..max_len letters, a fifth of them mutated windows of the query."""
    q = synthetic.residues(rng, m)
    odd = rng.random(m) < 0.03
    q[odd] = rng.integers(0, 24, int(odd.sum()))
    seqs = []
    for _ in range(count):
        n = int(rng.integers(1, max_len + 1))
        if rng.random() < 0.2:
            a = int(rng.integers(0, m))
            s = synthetic.mutate(rng, q[a: a + n], float(rng.uniform(0.05, 0.5)))
            seqs.append(s if s.size else synthetic.residues(rng, 1))
        else:
            seqs.append(synthetic.residues(rng, n))
    return Query("q", q), Database.from_codes([f"s{k}" for k in range(count)], seqs)


def correctness(seed: int, rounds: int, log) -> dict:
    rng = np.random.default_rng(seed)
    seq = SOLVERS.get("sequential")
    scan = SwScanSolver()
    pairs, checks, bad = 0, 0, []
    cases = []
    for r in range(rounds):
        m = int(rng.choice([rng.integers(1, 64), rng.integers(64, 600), rng.integers(600, 2500)], p=[0.25, 0.55, 0.2]))
        cases.append((f"random{r}", *random_round(rng, m, int(rng.integers(30, 90)), int(rng.choice([200, 1500, 5000])))))
    # a profile too large for shared memory (global variant) and several passes
    cases.append(("long-query", *random_round(rng, 6000, 24, 3000)))
    # scores above 16 bits: the 32-bit launch beside 16-bit pairs of the same database
    core = np.concatenate([synthetic.residues(rng, 300), encode("W" * 3000), synthetic.residues(rng, 300)])
    over = [core, synthetic.mutate(rng, core, 0.02), synthetic.residues(rng, 80), core[:2500], synthetic.residues(rng, 4000)]
    cases.append(("over16", Query("w", core), Database.from_codes([f"o{k}" for k in range(len(over))], over)))
    for k, (name, q, db) in enumerate(cases):
        want = seq.scores(q, db, Scoring())
        solvers = [("gpu", GpuSolver()), (f"gpu{SHAPES[k % len(SHAPES)]}", GpuSolver(SHAPES[k % len(SHAPES)])),
                   ("sw-scan", scan)]
        if k % 3 == 0 or name == "over16":
            solvers.append(("gpu-32bit", GpuSolver(wide_only=True)))
        for label, solver in solvers:
            got = solver.scores(q, db, Scoring())
            checks += len(db)
            wrong = np.flatnonzero(got != want)
            if wrong.size:
                bad.append({"case": name, "solver": label, "m": q.length, "wrong": int(wrong.size),
                            "first": [int(wrong[0]), int(got[wrong[0]]), int(want[wrong[0]]), int(db.lengths[wrong[0]])]})
                log(f"MISMATCH {bad[-1]}")
        pairs += len(db)
        if name == "over16":
            log(f"over16: max score {int(want.max())} (> 32767: {bool(want.max() > 32767)})")
    return {"seed": seed, "pairs": pairs, "checks": checks, "mismatches": bad}


def timed(solver, q, db, repeats, warmup=1):
    timing, scores = time_repeats(lambda: solver.scores(q, db, Scoring()), repeats, warmup)
    return timing.median, scores


def benchmark(log) -> dict:
    out: dict = {"table3": [], "scaleup": {}}
    seq = SOLVERS.get("sequential")
    scan, gpu = SwScanSolver(), GpuSolver()
    for L in synthetic.PAPER_LENGTHS:
        q, db = synthetic.paper_case(L)
        cells = q.length * db.residues
        t_seq, want = timed(seq, q, db, 1 if L >= 2048 else 3)
        t_scan, s_scan = timed(scan, q, db, 5)
        t_gpu, s_gpu = timed(gpu, q, db, 5)
        same = bool(np.array_equal(s_scan, want) and np.array_equal(s_gpu, want))
        row = {"length": L, "cells": cells, "sequential_ms": 1e3 * t_seq, "sw-scan_ms": 1e3 * t_scan,
               "gpu_ms": 1e3 * t_gpu, "same": same, "published_ms": dict(zip(("cudasw1", "cudasw2", "cpu", "paper"),
                                                                            PUBLISHED[L]))}
        out["table3"].append(row)
        log(json.dumps(row))
    q, db = synthetic.scaleup_case()
    cells = q.length * db.residues
    sc = out["scaleup"]
    sc.update({"sequences": len(db), "residues": db.residues, "query": q.length, "cells": cells,
               "mean_length": float(db.lengths.mean())})
    cp = device.cupy()
    ddb = DeviceDatabase.upload(cp, db)
    t, want = timed(gpu, q, db, 5)
    sc["gpu_host_to_host_s"] = t

    def plain_upload():  # the pageable copy the staged upload replaces (same run, for the ratio)
        cp.asarray(db.codes)
        cp.cuda.Stream.null.synchronize()

    sc["upload_pageable_s"] = time_repeats(plain_upload, 5, 1)[0].median
    sc["upload_staged_s"] = time_repeats(lambda: to_device(cp, db.codes), 5, 1)[0].median
    assert np.array_equal(cp.asnumpy(to_device(cp, db.codes)), db.codes)
    timing, s = time_repeats(lambda: gpu.scores_resident(q, db, ddb, Scoring()), 10, 2)
    sc["gpu_resident_s"] = timing.median
    sc["gpu_resident_spread"] = timing.spread
    assert np.array_equal(s, want)
    from cupyx.profiler import benchmark as cupy_benchmark  # device time: events around the call

    perf = cupy_benchmark(lambda: gpu.scores_resident(q, db, ddb, Scoring()), n_repeat=10, n_warmup=2)
    sc["gpu_resident_device_s"] = float(np.median(perf.gpu_times))
    wide = GpuSolver(wide_only=True)
    timing, s = time_repeats(lambda: wide.scores_resident(q, db, ddb, Scoring()), 5, 1)
    sc["gpu32_resident_s"] = timing.median
    sc["same_32"] = bool(np.array_equal(s, want))
    sc["shapes"] = {}
    for shape in SHAPES:
        for wide_only in (False, True):
            solver = GpuSolver(shape, wide_only)
            timing, s = time_repeats(lambda: solver.scores_resident(q, db, ddb, Scoring()), 3, 1)
            sc["shapes"][f"{shape[0]}x{shape[1]}{'-32' if wide_only else ''}"] = {
                "gcups": gcups(cells, timing.median), "same": bool(np.array_equal(s, want))}
    for m in (128, 1000):
        qm = synthetic.query(m, 7)
        timing, _ = time_repeats(lambda: gpu.scores_resident(qm, db, ddb, Scoring()), 5, 1)
        sc[f"gpu_resident_q{m}_gcups"] = gcups(m * db.residues, timing.median)
    t, s = timed(scan, q, db, 1)
    sc["sw-scan_s"] = t
    sc["same_scan"] = bool(np.array_equal(s, want))
    mc = SOLVERS.get("multicore")
    t, s = timed(mc, q, db, 1)
    sc["multicore_s"] = t
    sc["multicore_threads"] = numba.config.NUMBA_NUM_THREADS
    sc["same_multicore"] = bool(np.array_equal(s, want))
    sub = db.subset(0, min(4000, len(db)))
    t, _ = timed(seq, q, sub, 1)
    sc["sequential_gcups_subset"] = gcups(q.length * sub.residues, t)
    log(json.dumps(sc))
    return out


def table(res: dict) -> str:
    lines = ["Table III (query 128 vs 100 seqs; ms, host to host; published on C1060 / Core 2)",
             "len   seq(1 thr)  sw-scan     gpu   | paper: cpu    proposed  cudasw1  cudasw2 | same"]
    for r in res["bench"]["table3"]:
        p = r["published_ms"]
        lines.append(f"{r['length']:<5} {r['sequential_ms']:10.2f} {r['sw-scan_ms']:8.2f} {r['gpu_ms']:8.2f} |"
                     f" {p['cpu']:10.2f} {p['paper']:8.2f} {p['cudasw1']:8.2f} {p['cudasw2']:8.2f} | {r['same']}")
    sc = res["bench"]["scaleup"]
    c = sc["cells"]
    lines += [f"scale-up: {sc['sequences']} seqs, mean {sc['mean_length']:.0f}, query {sc['query']}, {c:.3g} cells",
              f"  gpu host-to-host {sc['gpu_host_to_host_s'] * 1e3:.1f} ms = {gcups(c, sc['gpu_host_to_host_s']):.0f} GCUPS;"
              f" db resident {sc['gpu_resident_s'] * 1e3:.2f} ms = {gcups(c, sc['gpu_resident_s']):.0f} GCUPS"
              f" (32-bit lanes {gcups(c, sc['gpu32_resident_s']):.0f})",
              f"  upload of the codes: staged {sc['upload_staged_s'] * 1e3:.2f} ms, pageable"
              f" {sc['upload_pageable_s'] * 1e3:.2f} ms",
              f"  device time (events) {sc['gpu_resident_device_s'] * 1e3:.2f} ms ="
              f" {gcups(c, sc['gpu_resident_device_s']):.0f} GCUPS",
              "  shapes (GCUPS resident): " + ", ".join(f"{k} {v['gcups']:.0f}{'' if v['same'] else ' WRONG'}"
                                                         for k, v in sc["shapes"].items()),
              f"  gpu resident q128 {sc['gpu_resident_q128_gcups']:.0f}, q1000 {sc['gpu_resident_q1000_gcups']:.0f} GCUPS",
              f"  sw-scan {gcups(c, sc['sw-scan_s']):.1f} GCUPS; multicore ({sc['multicore_threads']} thr)"
              f" {gcups(c, sc['multicore_s']):.1f}; sequential {sc['sequential_gcups_subset']:.2f}"
              f" (4,000-seq subset); all same: {sc['same_32'] and sc['same_scan'] and sc['same_multicore']}"]
    corr = res["correctness"]
    lines.append(f"correctness: {corr['pairs']} fresh pairs ({corr['checks']} solver checks) vs sequential, "
                 f"seed {corr['seed']}: {len(corr['mismatches'])} mismatching runs")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("device_out"))
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    ap.add_argument("--rounds", type=int, default=24)
    ap.add_argument("--skip-bench", action="store_true")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    logf = open(args.out / "sw_device.log", "w")

    def log(msg: str) -> None:
        print(msg, file=logf, flush=True)
        print(msg, file=sys.stderr, flush=True)

    log(json.dumps(device.device_info()))
    t0 = time.time()
    res = {"device": device.device_info(), "correctness": correctness(args.seed, args.rounds, log)}
    log(f"correctness done in {time.time() - t0:.1f} s")
    if not args.skip_bench:
        res["bench"] = benchmark(log)
    (args.out / "sw_device.json").write_text(json.dumps(res, indent=1))
    if "bench" in res:
        print(table(res))
    print(f"device: {res['device']['name']}; mismatching runs: {len(res['correctness']['mismatches'])}")
    return 1 if res["correctness"]["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
