"""Device check of issue 24 (gene models): free target ends on the GPU solvers, and what the
richer candidate sources cost on the GPU for the bundled set; ONE table comes last.

1. Exactness: accel1 and accel2 (free ends: the chain-start term of their kernel, the final
   maximum and the traceback on the host) against ``sequential`` on the golden cases and on
   fresh random cases (seed printed), in both target-end modes: scores, every exon's final
   score and the traced chain identical, the chain checked by the oracle; ``gpu`` likewise
   (its FREE kernels); a solver switched off for free ends (solvers.GLOBAL_ENDS_ONLY) only
   with global ends, and its one-line refusal of free ends.
2. Cost of richer candidates: the ``gpu`` solver on the bundled set's 16 cases (global ends,
   traceback on), candidates as shipped (AUGUSTUS) versus merged with their shifted splice
   boundaries (exons.merged: ±3 bp GT/GC-AG, and ±10 bp GT/GC/AT-AG/AC); fresh case objects
   each repeat (no cached plan), median of 5 after a warm-up; K and cells per source.

Usage: python scripts/device_genemodels.py --out DIR [--seed N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from splicedalign.core.errors import InputError
from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.datasets import bundled_manifest, read_manifest
from splicedalign.workloads.spliced.exons.merged import ShiftParams, richer_candidates
from splicedalign.workloads.spliced.oracle import alignment_problems
from splicedalign.workloads.spliced.records import Exon, Scoring, TestCase
from splicedalign.workloads.spliced.solvers import GLOBAL_ENDS_ONLY, get_solver

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "golden" / "cases.json"
SHIFTS = {"augustus": None, "+shifted3": ShiftParams(),
          "+shifted10-wide": ShiftParams(10, ("GT", "GC", "AT"), ("AG", "AC"))}


def golden_cases() -> list[tuple[TestCase, Scoring]]:
    out = []
    for g in json.loads(GOLDEN.read_text()):
        case = TestCase(g["name"], g["base"], g["target"], tuple(Exon(f, l) for f, l in g["exons"]))
        out.append((case, Scoring.from_mapping(g["scoring"])))
    return out


def random_cases(rng: np.random.Generator, count: int) -> list[TestCase]:
    cases = []
    for i in range(count):
        shape = synthetic.Shape(m=int(rng.integers(300, 3000)), K=int(rng.integers(1, 30)),
                                n=int(rng.integers(1, 500)), exon_mean=float(rng.integers(5, 150)))
        cases += synthetic.gene_like(rng, shape, f"r{i}")
    return cases


def compare(name: str, cases, scorings, log) -> tuple[int, int]:
    """(cases checked, failures) of solver ``name`` against sequential."""
    ref, solver, fails = get_solver("sequential"), get_solver(name), 0
    for case, scoring in zip(cases, scorings):
        want = ref.solve(case, scoring)
        try:
            got = solver.solve(case, scoring)
        except Exception as exc:  # noqa: BLE001 - every failure is reported, none hides
            print(f"FAIL {name} {case.name} {scoring}: {type(exc).__name__}: {exc}", file=log)
            fails += 1
            continue
        problems = alignment_problems(case, got, scoring)
        same = (got.score == want.score and got.last_row_scores.tolist() == want.last_row_scores.tolist()
                and got.chain == want.chain)
        if problems or not same:
            fails += 1
            print(f"FAIL {name} {case.name} {scoring}: score {got.score} vs {want.score}, chain {got.chain} vs"
                  f" {want.chain}, {problems[:3]}", file=log)
    return len(cases), fails


def bundled(shift: ShiftParams | None) -> list[TestCase]:
    out = []
    for e in read_manifest(bundled_manifest()):
        c = e.load()
        exons = c.exons if shift is None else tuple(richer_candidates(c.base, c.exons, shift))
        out.append(TestCase(c.name, c.base, c.target, tuple(exons), c.base_id, c.target_id, c.meta))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    p.add_argument("--random", type=int, default=40, help="fresh random cases per mode")
    p.add_argument("--dry-run", action="store_true", help="on a machine without GPU: multicore stands in for the GPU"
                   " solvers (checks the script, not the device)")
    args = p.parse_args()
    name = (lambda s: "multicore") if args.dry_run else (lambda s: s)
    args.out.mkdir(parents=True, exist_ok=True)
    log = open(args.out / "device_genemodels.log", "w")
    print(f"seed {args.seed}", flush=True)
    rng = np.random.default_rng(args.seed)
    rows, fails = [], 0

    golden = golden_cases()
    fresh = random_cases(rng, args.random)
    fresh_scorings = [Scoring(int(rng.integers(1, 4)), -int(rng.integers(0, 4)), int(rng.integers(0, 4)))
                      for _ in fresh]
    for ends in ("global", "free"):
        for solver in ("accel1", "accel2", "gpu"):
            if solver in GLOBAL_ENDS_ONLY and ends == "free":
                continue
            for label, cases, scorings in (("golden", [c for c, _ in golden], [s for _, s in golden]),
                                           ("random", fresh, fresh_scorings)):
                modes = [Scoring(s.match, s.mismatch, s.gap, ends) for s in scorings]
                t0 = time.perf_counter()
                n, f = compare(name(solver), cases, modes, log)
                fails += f
                rows.append({"check": f"{solver} {label} {ends}", "cases": n, "failures": f,
                             "seconds": round(time.perf_counter() - t0, 2)})
                print(rows[-1], flush=True)
    refusals = {}
    for solver in sorted(GLOBAL_ENDS_ONLY):  # solvers switched off for free ends refuse them in one line
        try:
            if args.dry_run:
                from splicedalign.workloads.spliced.base import refuse_free_ends
                refuse_free_ends(Scoring(target_ends="free"), solver)
            get_solver(name(solver)).solve(golden[0][0], Scoring(target_ends="free"))
            refused = "no: it solved"
        except InputError as exc:
            refused = "yes: " + str(exc)
        fails += not refused.startswith("yes")
        rows.append({"check": f"{solver} refuses free ends in one line", "cases": 1,
                     "failures": int(not refused.startswith("yes")), "seconds": 0.0})
        refusals[solver] = refused
        print(refused, flush=True)

    gpu, timing = get_solver(name("gpu")), []
    for label, shift in SHIFTS.items():
        sample = bundled(shift)
        gpu.solve_many(sample, Scoring())  # warm-up: kernels compiled for this shape of batch
        runs = []
        for _ in range(5):
            cases = bundled(shift)  # fresh case objects: no cached plan
            t0 = time.perf_counter()
            results = gpu.solve_many(cases, Scoring(), traceback=True)
            runs.append(time.perf_counter() - t0)
        want = get_solver("sequential").solve_many(sample, Scoring())
        same = [r.score for r in results] == [w.score for w in want]
        fails += not same
        timing.append({"candidates": label, "K": sum(c.K for c in sample), "cells": sum(c.cells for c in sample),
                       "gpu_ms": round(1e3 * float(np.median(runs)), 2), "equal_to_sequential": same,
                       "K_per_case": [c.K for c in sample]})
        print(timing[-1], flush=True)
    base_ms = timing[0]["gpu_ms"]
    for t in timing:
        t["cost_vs_augustus"] = round(t["gpu_ms"] / base_ms, 2)
    (args.out / "device_genemodels.json").write_text(json.dumps({"seed": args.seed, "checks": rows, "timing": timing,
                                                                 "refusals": refusals}, indent=1))
    print("\ncheck | cases | failures | seconds")
    for r in rows:
        print(f"{r['check']} | {r['cases']} | {r['failures']} | {r['seconds']}")
    print("\ncandidates (bundled, 16 cases, gpu, global ends, traceback) | K | cells | ms (median of 5)"
          " | x AUGUSTUS | equal")
    for t in timing:
        print(f"{t['candidates']} | {t['K']} | {t['cells']} | {t['gpu_ms']} | {t['cost_vs_augustus']}"
              f" | {t['equal_to_sequential']}")
    print(f"\nseed {args.seed}; failures {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
