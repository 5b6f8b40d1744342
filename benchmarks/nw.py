"""Benchmark of the nw solvers side by side with the peers, same inputs, same run; a markdown
table last. Per pair case, cost model (linear 0/1/3 = the paper's, affine x=4 o=6 e=2 = WFA2's)
and solver, score only and with the alignment: ours --repeats rounds after --warmup, interleaved
(each round runs every solver once in turn, in this process, so other load weighs on all
alike), the medians of wall-clock and CPU time, the algorithm our solver chose, and each time
divided by pywfa's median (below 1: faster than WFA2 on one core). All solvers must agree on
each score (else it stops naming the case); every CIGAR (ours and pywfa's) is re-scored.

Peers: pywfa (WFA2-lib on one core, timed by ``peers.time_pywfa``, the one definition shared with
scripts/device_nw.py's side rows: --pywfa-processes fresh processes, each a warm-up call and then
enough repeats for 50 ms (at least 5) of ``aligner.wavefront_align(text, pattern)`` with its aligner
kept, exact (no heuristic), memory mode high, its CIGAR made inside WFA2 and not turned into Python
objects; the row's wall time is the median of the processes' medians, with their min-max; for
batches also all cores by processes), edlib (unit costs 0/1/1 only: a different problem, shown for
reference), parasail (affine, nw_scan_32; only pairs up to --parasail-max letters: its table is
quadratic). pywfa is timed as installed: build it on the host that runs the benchmark, as `pip install
pywfa` from source does (-march=native; scripts/pywfa_native.sh where the host has no network), not a
wheel built on another CPU (the H100 host's gap-affine rows ran 5-19% faster natively: docs/gpu-nw.md).

  python benchmarks/nw.py                                         # the issue-26 pairs, CPU solvers
  python benchmarks/nw.py --cases 30368-10 100000-1 --solvers multicore gpu pywfa
  python benchmarks/nw.py --cases none --batch 2000               # 2,000 pairs of ~10 kb at 5%
  python benchmarks/nw.py --cases none --batch 16 --solvers sequential multicore --dp-max-cells 2e9

In a batch, multicore also runs on one thread (its scaling on the cores) and sequential (the DP)
only while the batch's cells stay under --dp-max-cells.

Cases: N-unrelated, or N-P: a random sequence against a copy P% mutated (N-10 is the paper's
10%-mutated pair of synthetic.make_pair)."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numba

from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.machine import cpu_model
from splicedalign.core.timing import time_interleaved
from splicedalign.workloads.nw.cpu import MulticoreSolver
from splicedalign.workloads.nw.peers import (
    A_LETTERS,
    B_LETTERS,
    PROCESSES,
    PywfaJob,
    PywfaTiming,
    letters,
    pywfa_model,
    pywfa_score,
    time_pywfa,
)
from splicedalign.workloads.nw.records import Costs, Pair, cigar_cost
from splicedalign.workloads.nw.solvers import SOLVERS, solve_pairs
from splicedalign.workloads.nw.synthetic import ISSUE26_CASES, ISSUE26_COSTS, case_pair, divergent_pair
from splicedalign.workloads.nw.wfa import wfa_align

COSTS = ISSUE26_COSTS


class Table:
    HEAD = ("case", "costs", "solver", "mode", "wall ms", "CPU ms", "algorithm", "CPU / pywfa's", "wall / pywfa's")

    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def add(self, *row) -> None:
        row = row + ("",) * (len(self.HEAD) - len(row))
        self.rows.append(row)
        print("| " + " | ".join(map(str, row)) + " |", file=sys.stderr, flush=True)

    def print(self) -> None:
        print("| " + " | ".join(self.HEAD) + " |")
        print("|" + "---|" * len(self.HEAD))
        for row in self.rows:
            print("| " + " | ".join(map(str, row)) + " |")


def _pywfa_bytes(pair: Pair, costs: Costs) -> int:
    """About what pywfa keeps for a CIGAR (WFA2's high-memory mode: 4 bytes a diagonal of each
    of M, I and D, i.e. 4 a visit as wfa counts them): 30,368 unrelated affine ~14 GB, which
    would take down a small machine."""
    answer = wfa_align(pair.a, pair.b, costs, "global", False, 1 << 62)
    return 4 * answer.visited


def _pywfa_rows(pair: Pair, costs: Costs, args: argparse.Namespace) -> dict[bool, PywfaTiming | str]:
    """pywfa's timing of the pair, score and with the CIGAR (``peers.time_pywfa``: the benchmarks'
    one definition, --pywfa-processes fresh processes), or why there is none, by traceback."""
    try:
        import pywfa  # noqa: F401
    except ImportError:
        return {False: "n/a: not installed", True: "n/a: not installed"}
    need = _pywfa_bytes(pair, costs)
    wanted = [tb for tb in (False, True) if not tb or need <= args.pywfa_max_bytes]
    got: dict[bool, PywfaTiming | str] = {True: f"skipped: its wavefronts ~{need / 2**30:.0f} GiB"}
    timed = time_pywfa([PywfaJob(pair.a, pair.b, costs, tb) for tb in wanted], processes=args.pywfa_processes)
    got.update(zip(wanted, timed))
    return got


def run_pair(pair: Pair, cost_name: str, args: argparse.Namespace, table: Table) -> None:
    """Every solver on the pair, score only and with the alignment: ours interleaved in this
    process (each repeat runs every solver once in turn), medians of wall and CPU time; pywfa in
    fresh processes (``_pywfa_rows``), its median of their medians with their min-max; each
    time's ratio to pywfa's median."""
    costs = COSTS[cost_name]
    peer = _pywfa_rows(pair, costs, args) if "pywfa" in args.solvers else {}
    for traceback in (False, True):
        mode = "align" if traceback else "score"
        calls, algorithm = {}, {}
        for name in args.solvers:
            if name == "sequential" and pair.cells > args.dp_max_cells:
                table.add(pair.name, cost_name, name, mode, f"skipped (> {args.dp_max_cells:.0e} cells)", "", "dp")
            elif name == "pywfa":
                continue  # (timed apart: peer)
            elif name == "parasail":
                if pair.n > args.parasail_max or pair.m > args.parasail_max or traceback:
                    continue
                try:
                    import parasail
                except ImportError:
                    table.add(pair.name, cost_name, name, mode, "n/a: not installed")
                    continue
                matrix = parasail.matrix_create("ACGT", 0, -costs.mismatch)
                sa, sb = letters(pair.a, A_LETTERS), letters(pair.b, B_LETTERS)
                calls["parasail nw_scan_32"] = lambda sa=sa, sb=sb, matrix=matrix: -parasail.nw_scan_32(
                    sa, sb, costs.gap_open + costs.indel, costs.indel, matrix).score
                algorithm["parasail nw_scan_32"] = "dp"
            elif name == "edlib":
                if cost_name != "linear":
                    continue
                try:
                    import edlib
                except ImportError:
                    table.add(pair.name, "unit", name, mode, "n/a: not installed")
                    continue
                sa, sb = letters(pair.a, A_LETTERS), letters(pair.b, B_LETTERS)
                task = "path" if traceback else "distance"
                calls[name] = lambda sa=sa, sb=sb, task=task: edlib.align(sa, sb, mode="NW", task=task)
                algorithm[name] = "bit-parallel (unit costs 0/1/1: edlib's own problem)"
            else:
                try:
                    solver = SOLVERS.get(name)
                    small = Pair("warm", "a", "b", pair.a[:64], pair.b[:64])
                    solver.solve(small, costs, traceback)  # compiles, or refuses
                except SolverUnavailable as exc:
                    table.add(pair.name, cost_name, name, mode, f"n/a: {str(exc)[:60]}")
                    continue
                calls[name] = lambda solver=solver, traceback=traceback: solver.solve(pair, costs, traceback)
        timed = time_interleaved(calls, args.repeats, args.warmup)
        scores = {}
        for name, (_, _, result) in timed.items():
            if name == "edlib":
                continue
            if isinstance(result, int):
                scores[name] = result
                continue
            if traceback and cigar_cost(result.cigar, pair.a, pair.b, costs) != result.score:
                sys.exit(f"{pair.name}: {name}'s CIGAR does not cost its score")
            scores[name], algorithm[name] = result.score, result.algorithm
        if len(set(scores.values())) > 1:
            sys.exit(f"{pair.name} ({cost_name}, {mode}): solvers disagree: {scores}")
        timing = peer.get(traceback)
        if isinstance(timing, str):
            table.add(pair.name, cost_name, "pywfa", mode, timing)
            timing = None
        elif timing is not None:
            if scores and set(scores.values()) != {timing.score}:
                sys.exit(f"{pair.name} ({cost_name}, {mode}): pywfa's {timing.score} differs: {scores}")
            table.add(pair.name, cost_name, "pywfa", mode,
                      f"{timing.wall.median * 1e3:.2f} ({timing.wall.min * 1e3:.2f}-{timing.wall.max * 1e3:.2f})",
                      f"{timing.cpu.median * 1e3:.2f}", "wfa", "1.00", "1.00")
        for name, (wall, cpu, _) in timed.items():
            ratios = ((f"{cpu.median / timing.cpu.median:.2f}", f"{wall.median / timing.wall.median:.2f}") if timing
                      else ())
            table.add(pair.name, cost_name, name, mode, f"{wall.median * 1e3:.2f}", f"{cpu.median * 1e3:.2f}",
                      algorithm[name], *ratios)


def run_batch(args: argparse.Namespace, table: Table) -> None:
    pairs = [divergent_pair(args.batch_length, args.batch_divergence, index=k + 1) for k in range(args.batch)]
    name = f"batch {args.batch} x {args.batch_length} at {args.batch_divergence:g}%"
    for cost_name in args.costs:
        costs = COSTS[cost_name]
        model = pywfa_model(costs)
        jobs = [(letters(p.a, A_LETTERS), letters(p.b, B_LETTERS), model, True) for p in pairs]
        times: dict[str, float] = {}
        scores: dict[str, list[int]] = {}
        variants = []  # (row name, registry name): multicore also on one thread (its scaling)
        for solver_name in args.solvers:
            if solver_name in ("edlib", "parasail"):
                continue
            if solver_name == "sequential" and sum(p.cells for p in pairs) > args.dp_max_cells:
                table.add(name, cost_name, solver_name, "align", f"skipped (> {args.dp_max_cells:.0e} cells)", "",
                          "dp")
                continue
            variants.append((solver_name, solver_name))
            if solver_name == "multicore":
                variants.append(("multicore, 1 thread", solver_name))
        for solver_name, registered in variants:
            if solver_name == "pywfa":
                try:
                    import pywfa  # noqa: F401
                except ImportError:
                    table.add(name, cost_name, "pywfa", "align", "n/a: not installed")
                    continue
                if args.batch_pywfa == "both":
                    runs = []
                    for _ in range(args.batch_repeats):
                        t0 = time.perf_counter()
                        got = [pywfa_score(j) for j in jobs]
                        runs.append(time.perf_counter() - t0)
                    times["pywfa"], scores["pywfa"] = statistics.median(runs), got
                workers = os.cpu_count() or 1
                with ProcessPoolExecutor(workers) as pool:
                    list(pool.map(pywfa_score, jobs[:workers]))  # start the workers
                    runs = []
                    for _ in range(args.batch_repeats):
                        t0 = time.perf_counter()
                        got = list(pool.map(pywfa_score, jobs, chunksize=max(1, len(jobs) // (4 * workers))))
                        runs.append(time.perf_counter() - t0)
                times[f"pywfa {workers} processes"], scores["pywfa all"] = statistics.median(runs), got
                continue
            try:
                solver = SOLVERS.get(registered) if solver_name == registered else MulticoreSolver(threads=1)
                solve_pairs(solver, pairs[:2], costs, True)  # warm-up (compilation)
                runs = []
                for _ in range(args.batch_repeats):
                    t0 = time.perf_counter()
                    results = solve_pairs(solver, pairs, costs, True)
                    runs.append(time.perf_counter() - t0)
            except SolverUnavailable as exc:
                table.add(name, cost_name, solver_name, "align", f"n/a: {str(exc)[:60]}")
                continue
            for p, r in zip(pairs, results):
                if cigar_cost(r.cigar, p.a, p.b, costs) != r.score:
                    sys.exit(f"{p.name}: {solver_name}'s CIGAR does not cost its score")
            times[solver_name] = statistics.median(runs)
            scores[solver_name] = [r.score for r in results]
            algorithms = sorted({r.algorithm for r in results})
            table.add(name, cost_name, solver_name, "align", f"{times[solver_name] * 1e3:.1f}", "-",
                      "+".join(algorithms))
        if len({tuple(v) for v in scores.values()}) > 1:
            sys.exit(f"{name} ({cost_name}): solvers disagree")
        # the ratios: to pywfa on one core, or on every core when it ran alone (--batch-pywfa processes)
        base = times.get("pywfa", next((v for k, v in times.items() if k.startswith("pywfa ")), None))
        for key, seconds in times.items():
            if key.startswith("pywfa"):
                table.add(name, cost_name, key, "align", f"{seconds * 1e3:.1f}", "-", "wfa", "",
                          f"{seconds / base:.2f}" if base else "")
        for row_index, row in enumerate(table.rows):
            if row[0] == name and row[1] == cost_name and row[2] in times and base and not row[2].startswith("pywfa"):
                table.rows[row_index] = row[:8] + (f"{times[row[2]] / base:.2f}",)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="+", default=list(ISSUE26_CASES), help="pair cases (N-P or N-unrelated); 'none'")
    ap.add_argument("--costs", nargs="+", choices=sorted(COSTS), default=["linear", "affine"])
    ap.add_argument("--solvers", nargs="+", default=["sequential", "multicore", "pywfa", "edlib", "parasail"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--dp-max-cells", type=float, default=1e9, help="sequential (the DP) only up to this size")
    ap.add_argument("--parasail-max", type=int, default=10_000)
    ap.add_argument("--pywfa-processes", type=int, default=PROCESSES,
                    help="fresh processes timing pywfa on a pair (the median of their medians)")
    ap.add_argument("--pywfa-max-bytes", type=float, default=4 * 2**30,
                    help="skip pywfa with a CIGAR where its wavefronts would take more (default 4 GiB)")
    ap.add_argument("--batch", type=int, default=0, help="also a batch of this many pairs")
    ap.add_argument("--batch-length", type=int, default=10_000)
    ap.add_argument("--batch-divergence", type=float, default=5.0)
    ap.add_argument("--batch-repeats", type=int, default=3)
    ap.add_argument("--batch-pywfa", choices=("both", "processes"), default="both",
                    help="pywfa on one core and on every core by processes, or the processes alone (the ratios "
                         "then to them; one core takes ~5 s linear, ~40 s affine on the issue-26 batch)")
    args = ap.parse_args(argv)
    print(f"# {cpu_model()}; cpus={os.cpu_count()} numba threads={numba.get_num_threads()}", file=sys.stderr)
    table = Table()
    for case in args.cases:
        if case == "none":
            continue
        pair = case_pair(case)
        for cost_name in args.costs:
            run_pair(pair, cost_name, args, table)
    if args.batch:
        run_batch(args, table)
    table.print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
