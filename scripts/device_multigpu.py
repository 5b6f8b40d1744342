"""One-GPU check of ``--devices`` (issue 25): on a single GPU, ``--devices 0`` / ``all`` give the
answers of the default path and cost nothing measurable; the split path's threads (two host
threads on the one GPU) give them too. Prints ONE table last.

1. spliced in process: a fresh paper-shaped set (seed printed), score only and traced; the
   default call (a fresh ``gpu`` solver's ``solve_many``) against ``solve_many(devices=...)`` for
   ``0``, ``all`` and a two-way split onto the same GPU (``run_split`` with devices (0, 0)), each
   with a fresh solver, interleaved, median of repeats after a warm-up. Scores and chains must be
   identical.
2. ``splicedalign align --manifest`` on that set in fresh processes, with and without
   ``--devices 0`` / ``all``: outputs identical but for timing fields, wall medians.
3. The same for ``nw --pairs`` (300 pairs of 1-3 kb) and ``sw`` (16 queries against 20,000
   sequences) where those commands take ``--devices`` (a line says which do not).

    python scripts/device_multigpu.py [--seed S] [--repeats R] [--out DIR]

``--scaling`` (a node with several GPUs; issue 25's first target): ten fresh paper-shaped
spliced sets, score only, cold (a fresh solver per call: nothing planned before; kernels loaded
on every GPU by a warm-up), on 1, 2, 4, ... of the visible GPUs, interleaved in one run, median
of repeats; the one-GPU baseline is the same run's ``devices=(0,)``. Answers must be identical.
``--scaling-sw QUERIES`` (issue 25's second target): the query set (CUDASW++ 4.0's
allqueries.fasta) against a Swiss-Prot-shaped database (``scripts/device_sw.py``'s, 570,000
sequences), BLOSUM62 11/1, top 10 with alignments, ``sw``'s ``search_many_on`` on 1, 2, 4 ...
GPUs the same way.
"""

from __future__ import annotations

import argparse
import json
import random
import re
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


def host_share(cases) -> None:
    """Where a cold score call's wall time goes (the solver's host stages): host work holds the
    GIL, so per-device threads overlap only the rest."""
    solver = get_solver("gpu")
    t0 = time.perf_counter()
    solver.solve_many(cases, Scoring(), traceback=False)
    wall = time.perf_counter() - t0
    stages = getattr(solver, "timing", {}) or {}
    parts = ", ".join(f"{k} {v * 1e3:.1f}" for k, v in stages.items() if v)
    ROWS.append(("spliced cold score: host stages (ms)", "default", f"{wall * 1e3:.1f} ms wall", parts or "-"))


def interleaved(variants: dict, repeats: int, want=None) -> tuple[dict, dict]:
    """Each variant's call ``repeats`` times, interleaved (drift hits every variant alike): its
    wall times, and whether every answer equals ``want`` (default: the first answer)."""
    times: dict = {v: [] for v in variants}
    same = dict.fromkeys(variants, True)
    for _ in range(repeats):
        for v, call in variants.items():
            t0 = time.perf_counter()
            got = call()
            times[v].append(time.perf_counter() - t0)
            want = got if want is None else want
            same[v] &= got == want
    return times, same


def in_process(cases, repeats: int) -> None:
    scoring = Scoring()
    fresh_default(cases, scoring, False)  # kernels loaded (compiled on a fresh machine)
    host_share(cases)
    for traceback in (False, True):
        variants = {
            "default": lambda tb=traceback: fresh_default(cases, scoring, tb),
            "--devices 0": lambda tb=traceback: solve_many(cases, scoring, "gpu", tb, devices="0"),
            "--devices all": lambda tb=traceback: solve_many(cases, scoring, "gpu", tb, devices="all"),
            "2 threads, 1 GPU": lambda tb=traceback: two_threads_one_gpu(cases, scoring, tb),
        }
        want = answers(variants["default"]())  # warm-up: kernels loaded
        times, same = interleaved({v: lambda call=call: answers(call()) for v, call in variants.items()},
                                  repeats, want)
        what = f"spliced solve_many, {'traced' if traceback else 'score'}"
        for v in variants:
            ROWS.append((what, v, f"{statistics.median(times[v]) * 1e3:.1f} ms "
                                  f"({min(times[v]) * 1e3:.1f}-{max(times[v]) * 1e3:.1f})",
                         "identical" if same[v] else "DIFFERENT"))


TIMING = re.compile(r"seconds|mcups|gcups|timing|align_seconds")


def answers_of(text: str):
    """A command's JSON output without its timing fields (JSON, or JSON lines)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = [json.loads(line) for line in text.splitlines() if line.strip()]

    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if not TIMING.search(k)}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return strip(data)


def fresh_processes(what: str, argv: list[str], out: Path, repeats: int) -> None:
    """``splicedalign ARGV --solver gpu`` in fresh processes, with and without --devices 0 /
    all, interleaved; outputs equal but for timing fields, wall medians after one warm round."""
    variants = {"default": [], "--devices 0": ["--devices", "0"], "--devices all": ["--devices", "all"]}
    times: dict[str, list[float]] = {v: [] for v in variants}
    outs: dict[str, list] = {v: [] for v in variants}
    for r in range(repeats + 1):
        for v, extra in variants.items():
            target = out / f"{argv[0]}_{r}_{v.replace(' ', '_').strip('-')}.json"
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "splicedalign.cli", "-q", *argv, "--solver", "gpu",
                                   "-o", str(target), *extra], capture_output=True, text=True)
            wall = time.perf_counter() - t0
            if proc.returncode:
                print(proc.stderr[-2000:])
                raise SystemExit(f"{what} {v} exited {proc.returncode}")
            if r:  # the first round warms the file cache and the kernel cache
                times[v].append(wall)
            outs[v].append(answers_of(target.read_text()))
    want = outs["default"][0]
    for v in variants:
        ROWS.append((what, v, f"{statistics.median(times[v]):.2f} s ({min(times[v]):.2f}-{max(times[v]):.2f})",
                     "identical" if all(o == want for o in outs[v]) else "DIFFERENT"))


def nw_pairs(out: Path, seed: int) -> Path:
    """300 pairs of 1-3 kb, the second 5% mutated (substitutions and indels)."""
    rng = random.Random(seed)
    lines = []
    for i in range(300):
        a = "".join(rng.choice("ACGT") for _ in range(rng.randint(1000, 3000)))
        b = "".join(c if rng.random() > 0.05 else rng.choice(["", "A", "C", "G", "T", c + "A"]) for c in a)
        lines += [f">a{i}", a, f">b{i}", b or "A"]
    path = out / "pairs.fa"
    path.write_text("\n".join(lines) + "\n")
    return path


def sw_inputs(out: Path, seed: int) -> tuple[Path, Path]:
    """16 queries of 100-2,000 residues against 20,000 sequences of Swiss-Prot-like lengths."""
    import numpy as np

    from splicedalign.workloads.sw import synthetic
    from splicedalign.workloads.sw.datasets import _text
    from splicedalign.workloads.sw.load import write_fasta

    rng = np.random.default_rng(seed)
    queries = [synthetic.query(int(n), seed + k) for k, n in enumerate(rng.integers(100, 2000, 16))]
    db = synthetic.database(synthetic.scaleup_lengths(rng, 20_000), seed, queries[0], homologs=20)
    write_fasta(out / "queries.fa", [f"q{k}" for k in range(len(queries))], [_text(q.codes) for q in queries])
    write_fasta(out / "db.fa", db.ids, [_text(db.seq(k)) for k in range(len(db))])
    return out / "queries.fa", out / "db.fa"


def other_commands(out: Path, seed: int, repeats: int) -> None:
    """nw --pairs and sw with --devices, where those commands take it."""
    helps = {c: subprocess.run([sys.executable, "-m", "splicedalign.cli", c, "--help"], capture_output=True,
                               text=True).stdout for c in ("nw", "sw", "primer")}
    for command, h in helps.items():
        if "--devices" not in h:
            ROWS.append((command, "--devices", "-", "not plumbed (command takes no --devices)"))
    if "--devices" in helps["nw"]:
        fresh_processes("nw --pairs (300 pairs, 1-3 kb)", ["nw", "--pairs", str(nw_pairs(out, seed)), "--score-only"],
                        out, repeats)
    if "--devices" in helps["sw"]:
        query, db = sw_inputs(out, seed)
        fresh_processes("sw (16 queries x 20,000 seqs)", ["sw", "--query", str(query), "--db", str(db)], out,
                        repeats)


def scaling_rows(what: str, call, cells: int, repeats: int) -> None:
    """``call(k)`` on the first k GPUs for k = 1, 2, 4, 8 (those visible), interleaved: a row
    each with its median time, GCUPS, speed-up over one GPU and whether the answers agree."""
    ks = [k for k in (1, 2, 4, 8) if k <= devices.visible_count()]
    print(f"{what}: {cells:,} cells; GPUs {ks}", flush=True)
    times, same = interleaved({k: lambda k=k: call(tuple(range(k))) for k in ks}, repeats)
    base = statistics.median(times[1])
    for k in ks:
        t = statistics.median(times[k])
        ROWS.append((what, f"{k} GPU(s)", f"{t * 1e3:,.1f} ms = {cells / t / 1e9:,.0f} GCUPS, {base / t:.2f}x",
                     "identical" if same[k] else "DIFFERENT"))


def scaling(seed: int, repeats: int) -> None:
    from splicedalign.workloads.spliced.synthetic import paper_sets, tiny_set

    scoring = Scoring()
    solve_many(tiny_set(seed), scoring, "gpu", False, devices="all")  # kernels loaded on every GPU
    cases = paper_sets(10, seed)
    scaling_rows(f"spliced 10 sets cold ({len(cases)} cases), score",
                 lambda on: answers(solve_many(cases, scoring, "gpu", False, devices=on)),
                 sum(c.cells for c in cases), repeats)


def scaling_sw(queries_path: Path, seed: int, repeats: int, sequences: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import numpy as np
    from device_sw import swissprot_shaped  # the issue-27 benchmark's database

    from splicedalign.workloads.sw import synthetic
    from splicedalign.workloads.sw.load import load_queries
    from splicedalign.workloads.sw.records import Scoring as SwScoring
    from splicedalign.workloads.sw.solvers import search_many_on

    scoring = SwScoring.blast()
    queries = load_queries(str(queries_path), scoring.matrix)
    small = synthetic.database(synthetic.scaleup_lengths(np.random.default_rng(seed), 2000), seed)
    search_many_on("all", "gpu", queries[:2], small, scoring, 10)  # kernels loaded on every GPU
    db = swissprot_shaped(seed, sequences)
    scaling_rows(f"sw {len(queries)} queries x Swiss-Prot-shaped ({len(db):,} sequences), top 10",
                 lambda on: [(r.query, r.hits) for r in search_many_on(on, "gpu", queries, db, scoring, 10)],
                 sum(q.length for q in queries) * db.residues, repeats)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--scaling", action="store_true", help="1, 2, 4 ... GPUs on ten paper-shaped sets")
    ap.add_argument("--scaling-sw", type=Path, metavar="QUERIES",
                    help="1, 2, 4 ... GPUs: these queries against a Swiss-Prot-shaped database")
    ap.add_argument("--sequences", type=int, default=570_000, help="the --scaling-sw database's sequences")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    out = args.out or Path(tempfile.mkdtemp())
    out.mkdir(parents=True, exist_ok=True)
    print(f"device: {device_info()}; visible GPUs: {devices.visible_count()}; seed {seed}", flush=True)
    if args.scaling or args.scaling_sw:
        if args.scaling:
            scaling(seed, args.repeats)
        if args.scaling_sw:
            scaling_sw(args.scaling_sw, seed, args.repeats, args.sequences)
        print_table()
        return
    manifest = Path(write_synthetic("paper", out / "paper", seed))
    reader = CaseFiles()
    cases = [c for e in read_manifest(manifest)
             for c in reader.cases(e.base, e.exons, e.target, e.exon_format, e.case,
                                   STRAND_CHOICES["both"] if e.strand is None else (e.strand,))]
    print(f"paper-shaped set: {len(cases)} case-strands, {sum(c.cells for c in cases):,} cells", flush=True)
    in_process(cases, args.repeats)
    fresh_processes("align --manifest, fresh process", ["align", "--manifest", str(manifest), "--score-only"],
                    out, max(1, args.repeats // 2))
    other_commands(out, seed, max(1, args.repeats // 2))
    print_table()


def print_table() -> None:
    width = max(len(r[0]) for r in ROWS)
    print(f"\n{'what':<{width}}  {'variant':<17} {'time (median, range)':<28} answers")
    for what, variant, t, same in ROWS:
        print(f"{what:<{width}}  {variant:<17} {t:<28} {same}")


if __name__ == "__main__":
    main()
