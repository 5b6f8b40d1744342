"""One-GPU check of ``--devices`` (issue 25): on a single GPU, ``--devices 0`` / ``all`` give the
answers of the default path and cost nothing measurable; the split path's threads (two host
threads on the one GPU) give them too. Prints ONE table last.

1. spliced in process: a fresh paper-shaped set (seed printed), score only and traced; the
   default call (a fresh ``gpu`` solver's ``solve_many``) against ``solve_many(devices=...)`` for
   ``0``, ``all`` and a two-way split onto the same GPU (``run_split`` with devices (0, 0)), each
   with a fresh solver, interleaved, median of repeats after a warm-up. Scores and chains must be
   identical.
2. ``splicedalign align --manifest`` on that set in fresh processes, with and without
   ``--devices 0`` / ``all``: outputs byte-identical, wall medians.
3. ``nw --pairs`` and ``sw`` with ``--devices`` where those commands take it (skipped with a
   line otherwise).

    python scripts/device_multigpu.py [--seed S] [--repeats R] [--out DIR]

``--scaling`` (a node with several GPUs; issue 25's first target): ten fresh paper-shaped
spliced sets, score only, cold (a fresh solver per call: nothing planned before; kernels loaded
on every GPU by a warm-up), on 1, 2, 4, ... of the visible GPUs, interleaved in one run, median
of repeats; the one-GPU baseline is the same run's ``devices=(0,)``. Answers must be identical.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from splicedalign.gpu import devices
from splicedalign.gpu.device import device_info
from splicedalign.workloads.spliced.datasets import read_manifest, write_synthetic
from splicedalign.workloads.spliced.exons.strand import STRAND_CHOICES
from splicedalign.workloads.spliced.load import CaseFiles
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import case_cost, get_solver, solve_many

ROWS: list[tuple[str, str, str, str]] = []  # (what, variant, time, answers)


def fresh_default(cases, scoring, traceback):
    return get_solver("gpu").solve_many(cases, scoring, traceback=traceback)


def two_threads_one_gpu(cases, scoring, traceback):
    return devices.run_split(cases, [case_cost(c) for c in cases], (0, 0),
                             lambda part: get_solver("gpu").solve_many(part, scoring, traceback=traceback))


def answers(results):
    return [(r.score, r.chain) for r in results]


def in_process(cases, repeats: int) -> None:
    scoring = Scoring()
    for traceback in (False, True):
        variants = {
            "default": lambda tb=traceback: fresh_default(cases, scoring, tb),
            "--devices 0": lambda tb=traceback: solve_many(cases, scoring, "gpu", tb, devices="0"),
            "--devices all": lambda tb=traceback: solve_many(cases, scoring, "gpu", tb, devices="all"),
            "2 threads, 1 GPU": lambda tb=traceback: two_threads_one_gpu(cases, scoring, tb),
        }
        want = answers(variants["default"]())  # warm-up: kernels loaded
        times = {v: [] for v in variants}
        same = dict.fromkeys(variants, True)
        for _ in range(repeats):
            for v, call in variants.items():  # interleaved: drift hits every variant alike
                t0 = time.perf_counter()
                got = call()
                times[v].append(time.perf_counter() - t0)
                same[v] &= answers(got) == want
        what = f"spliced solve_many, {'traced' if traceback else 'score'}"
        for v in variants:
            ROWS.append((what, v, f"{statistics.median(times[v]) * 1e3:.1f} ms "
                                  f"({min(times[v]) * 1e3:.1f}-{max(times[v]) * 1e3:.1f})",
                         "identical" if same[v] else "DIFFERENT"))


def cli(manifest: Path, out: Path, repeats: int) -> None:
    variants = {"default": [], "--devices 0": ["--devices", "0"], "--devices all": ["--devices", "all"]}
    times = {v: [] for v in variants}
    texts: dict[str, set[bytes]] = {v: set() for v in variants}
    for r in range(repeats + 1):
        for v, extra in variants.items():
            target = out / f"align_{r}_{v.replace(' ', '_').strip('-')}.json"
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "splicedalign.cli", "-q", "align", "--manifest", str(manifest),
                                   "--solver", "gpu", "--score-only", "-o", str(target), *extra],
                                  capture_output=True, text=True)
            wall = time.perf_counter() - t0
            if proc.returncode:
                print(proc.stderr[-2000:])
                raise SystemExit(f"align {v} exited {proc.returncode}")
            if r:  # the first round warms the file cache and the kernel cache
                times[v].append(wall)
            texts[v].add(target.read_bytes())
    want = texts["default"]
    for v in variants:
        ROWS.append(("align --manifest, fresh process", v,
                     f"{statistics.median(times[v]):.2f} s ({min(times[v]):.2f}-{max(times[v]):.2f})",
                     "identical" if texts[v] == want and len(want) == 1 else "DIFFERENT"))


def other_commands(out: Path) -> None:
    """nw --pairs and sw with --devices, where those commands take it."""
    helps = {c: subprocess.run([sys.executable, "-m", "splicedalign.cli", c, "--help"], capture_output=True,
                               text=True).stdout for c in ("nw", "sw", "primer")}
    for command, h in helps.items():
        if "--devices" not in h:
            ROWS.append((command, "--devices", "-", "not plumbed (command takes no --devices)"))


def scaling(seed: int, repeats: int) -> None:
    from splicedalign.workloads.spliced.synthetic import paper_sets, tiny_set

    count = devices.visible_count()
    ks = [k for k in (1, 2, 4, 8) if k <= count]
    scoring = Scoring()
    solve_many(tiny_set(seed), scoring, "gpu", False, devices="all")  # kernels loaded on every GPU
    cases = paper_sets(10, seed)
    cells = sum(c.cells for c in cases)
    print(f"ten paper-shaped sets: {len(cases)} cases, {cells:,} cells; GPUs {ks}", flush=True)
    times: dict[int, list[float]] = {k: [] for k in ks}
    want, same = None, dict.fromkeys(ks, True)
    for _ in range(repeats):
        for k in ks:
            t0 = time.perf_counter()
            got = answers(solve_many(cases, scoring, "gpu", False, devices=tuple(range(k))))
            times[k].append(time.perf_counter() - t0)
            want = want or got
            same[k] &= got == want
    base = statistics.median(times[1])
    for k in ks:
        t = statistics.median(times[k])
        ROWS.append(("spliced 10 sets cold, score", f"{k} GPU(s)",
                     f"{t * 1e3:.1f} ms = {cells / t / 1e9:,.0f} GCUPS, {base / t:.2f}x",
                     "identical" if same[k] else "DIFFERENT"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--scaling", action="store_true", help="1, 2, 4 ... GPUs on ten paper-shaped sets")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    out = args.out or Path(tempfile.mkdtemp())
    out.mkdir(parents=True, exist_ok=True)
    print(f"device: {device_info()}; visible GPUs: {devices.visible_count()}; seed {seed}", flush=True)
    if args.scaling:
        scaling(seed, args.repeats)
        print_table()
        return
    manifest = Path(write_synthetic("paper", out / "paper", seed))
    reader = CaseFiles()
    cases = [c for e in read_manifest(manifest)
             for c in reader.cases(e.base, e.exons, e.target, e.exon_format, e.case,
                                   STRAND_CHOICES["both"] if e.strand is None else (e.strand,))]
    print(f"paper-shaped set: {len(cases)} case-strands, {sum(c.cells for c in cases):,} cells", flush=True)
    in_process(cases, args.repeats)
    cli(manifest, out, max(1, args.repeats // 2))
    other_commands(out)
    print_table()


def print_table() -> None:
    width = max(len(r[0]) for r in ROWS)
    print(f"\n{'what':<{width}}  {'variant':<17} {'time (median, range)':<28} answers")
    for what, variant, t, same in ROWS:
        print(f"{what:<{width}}  {variant:<17} {t:<28} {same}")


if __name__ == "__main__":
    main()
