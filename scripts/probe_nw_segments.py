"""segments.py's pieces on the GPU (``GpuSolver.try_segments``) on issue 26's single pairs, beside the same
solver without them (``use_segments=False``: main's path, the one-block BiWFA) in the same process: per case,
mode and output the algorithm each chose, its score (equal: checked), the pieces' rounds, merges and pieces
solved, and host-to-host ms (median of --repeats after a warm-up, the two solvers alternating), with
``WfaSolver.solve_pieces``' own ms per round (of the last timed call: host to the plan, uploads and
allocations, launches; the pack and sweep on the device; the round; then the solve's host ms before the
pieces (the stage, the sample), in them (every round and the seams), and the CIGAR's text).
--threads: a piece's block (wfa.PIECE_THREADS); --rows: a piece's rows (segments.ROWS); --speculate-max:
the pieces up to which the first round also solves every two neighbours as one.

  python3 scripts/probe_nw_segments.py --cases 100000-1 30368-10 100000-5 1000000-1 30368-unrelated
"""

from __future__ import annotations

import argparse
import statistics
import time

from splicedalign.workloads.nw import segments
from splicedalign.workloads.nw.gpu import solver as solver_module
from splicedalign.workloads.nw.gpu import wfa
from splicedalign.workloads.nw.gpu.solver import GpuSolver
from splicedalign.workloads.nw.records import cigar_cost
from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS, case_pair


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", nargs="+", default=["100000-1", "30368-10", "100000-5", "1000000-1"])
    parser.add_argument("--modes", nargs="+", default=["global"], choices=segments.MODES)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--costs", default="linear", choices=sorted(ISSUE26_COSTS))
    parser.add_argument("--threads", type=int, help="a piece's block (default: wfa.PIECE_THREADS)")
    parser.add_argument("--rows", type=int, help="rows of a piece (default: segments.ROWS)")
    parser.add_argument("--speculate-max", type=int, help="pieces up to which the first round speculates "
                        "(default: solver.SEGMENTS_SPECULATE; 0: never)")
    args = parser.parse_args()
    if args.threads:
        wfa.PIECE_THREADS = args.threads  # (read by GpuSolver.try_segments at each call)
    if args.rows:
        segments.ROWS = args.rows
    if args.speculate_max is not None:
        solver_module.SEGMENTS_SPECULATE = args.speculate_max  # (read by GpuSolver.try_segments at each call)
    costs = ISSUE26_COSTS[args.costs]
    ours, base = GpuSolver(), GpuSolver(use_segments=False)
    print(f"{'case':<16} {'mode':<6} {'out':<5} {'chose':<9} {'base':<9} {'score':>7} {'ms':>8} {'base ms':>8} "
          f"{'x':>5}  rounds merges solved  pieces_ms")
    failures = 0
    for name in args.cases:
        pair = case_pair(name)
        for mode in args.modes:
            for traceback in (False, True):
                got, want = ours.solve(pair, costs, traceback, mode), base.solve(pair, costs, traceback, mode)
                ok = got.score == want.score and (not traceback or cigar_cost(
                    got.cigar, pair.a, pair.b, costs, got.start2, got.end2) == got.score)
                failures += not ok
                times: dict[str, list[float]] = {"ours": [], "base": []}
                for _ in range(args.repeats):
                    for key, solver in (("ours", ours), ("base", base)):
                        t0 = time.perf_counter()
                        solver.solve(pair, costs, traceback, mode)
                        times[key].append((time.perf_counter() - t0) * 1e3)
                trace, stats = ours.stats_segments, (ours.wfa.stats if ours.wfa else {})
                rounds_ms = [[round(v, 3) for v in r] for r in stats.get("pieces", [])]
                pieces_ms = [rounds_ms] + [round(stats.get(k, 0.0), 3) for k in (
                    "segments_from_ms", "segments_ms", "text_ms")] if trace is not None else "-"
                mine, theirs = statistics.median(times["ours"]), statistics.median(times["base"])
                rounds = "-" if trace is None else f"{trace.rounds} {trace.merges} {trace.solved} {trace.why}"
                print(f"{name:<16} {mode:<6} {'cigar' if traceback else 'score':<5} {got.algorithm:<9} "
                      f"{want.algorithm:<9} {got.score:>7} {mine:>8.3f} {theirs:>8.3f} {theirs / mine:>5.2f}  "
                      f"{rounds}  {pieces_ms}{'' if ok else '  FAIL'}")
    print(f"failures {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
