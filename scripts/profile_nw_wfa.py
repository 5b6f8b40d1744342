"""The wavefront kernel (`gpu`'s WFA, wfa.cu) alone on issue 26's single pairs: per pair, cost
model and output, its score steps, threads, the kernel's time (device events), the host-to-host
time of `WfaSolver.solve` and the time a score step takes, median of --repeats after one warm-up.
With --ncu: one solve only (the first of --cases, the first of --costs; score, or the alignment
with --cigar), for Nsight Compute:

  python3 scripts/profile_nw_wfa.py                       # the table
  ncu --set full -k regex:'^nw_wfa$' -c 1 python3 scripts/profile_nw_wfa.py --ncu --cases 1000000-1
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from splicedalign.core.timing import time_repeats
from splicedalign.workloads.nw.gpu import wfa
from splicedalign.workloads.nw.gpu.solver import WFA_SAMPLE_MIN
from splicedalign.workloads.nw.gpu.wfa import WfaSolver, sampled_score
from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS, case_pair

CASES = ("100000-1", "30368-10", "100000-5", "1000000-1")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ncu", action="store_true", help="one solve (the first case and costs)")
    parser.add_argument("--cigar", action="store_true", help="with --ncu: the alignment too")
    parser.add_argument("--cases", nargs="+", default=list(CASES))
    parser.add_argument("--costs", nargs="+", default=list(ISSUE26_COSTS), choices=sorted(ISSUE26_COSTS))
    parser.add_argument("--affine-cases", nargs="+", default=["100000-1", "30368-10"],
                        help="cases with gap-affine costs too (the others: linear only)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scores", action="store_true", help="score only (no CIGAR rows)")
    parser.add_argument("--threads", type=int, help="threads a block (default: wfa.MAX_THREADS)")
    parser.add_argument("--kernel-file", type=Path, help="another wfa.cu (an earlier version, side by side)")
    parser.add_argument("--host", action="store_true",
                        help="the host's pieces of `gpu`'s choice and launch per case (linear, score), ms")
    args = parser.parse_args()
    if args.threads:
        wfa.MAX_THREADS = wfa.SHARED_THREADS = args.threads
    if args.kernel_file:
        wfa.KERNEL_FILE = args.kernel_file.resolve()
    if args.host:
        return host_pieces(args.cases, args.repeats)
    solver = WfaSolver()
    if args.ncu:
        result = solver.solve(case_pair(args.cases[0]), ISSUE26_COSTS[args.costs[0]], args.cigar, "global",
                              budget_ms=1e4)
        print(f"score {result.score if result else None} stats {solver.stats}")
        return 0
    print(f"{'case':<12} {'costs':<7} {'out':<5} {'steps':>6} {'threads':>7} {'shared':>6} {'kernel ms':>9} "
          f"{'host ms':>8} {'us/step':>7} score bi")
    for name in args.cases:
        pair = case_pair(name)
        for cost_name in args.costs:
            if cost_name != "linear" and name not in args.affine_cases:
                continue
            costs = ISSUE26_COSTS[cost_name]
            expected = sampled_score(pair, costs) if min(pair.n, pair.m) >= WFA_SAMPLE_MIN else None
            for traceback in (False,) if args.scores else (False, True):
                walls, kernels = [], []
                result = None
                for _ in range(args.repeats + 1):
                    t0 = time.perf_counter()
                    result = solver.solve(pair, costs, traceback, "global", budget_ms=2e4, expected=expected)
                    walls.append((time.perf_counter() - t0) * 1e3)
                    kernels.append(solver.stats.get("kernel_ms", 0.0))
                if result is None:
                    print(f"{name:<12} {cost_name:<7} gave up")
                    continue
                steps = solver.stats["steps"][0]
                kernel = statistics.median(kernels[1:])
                print(f"{name:<12} {cost_name:<7} {'cigar' if traceback else 'score':<5} {steps:>6} "
                      f"{solver.stats['threads']:>7} {str(solver.stats['shared']):>6} {kernel:>9.3f} "
                      f"{statistics.median(walls[1:]):>8.3f} {kernel * 1e3 / max(steps, 1):>7.3f} {result.score} "
                      f"{solver.stats.get('bi')}",
                      flush=True)
    return 0


def host_pieces(cases: list[str], repeats: int) -> int:
    """Median ms of each host piece of `gpu`'s single-pair WFA (linear costs, score and CIGAR):
    the fallback's prediction, the divergence sample, the cost model's estimate
    (WfaSolver.estimate_ms, as GpuSolver.try_wfa calls it), the memory budget, WfaSolver.solve's
    own set-up (choice_ms), launch_one's host part until the kernel is queued (host_ms), the
    device's upload and pack before it (upload_ms), the wait's end (synced_ms), launch_one's
    whole (ms) and the kernel's (kernel_ms) (the last solve's)."""
    from splicedalign.gpu import device
    from splicedalign.workloads.nw.gpu.solver import BAND_MIN_CELLS, GpuSolver, fallback_ms

    costs = ISSUE26_COSTS["linear"]
    gpu = GpuSolver()
    gpu.wfa = WfaSolver()
    gpu.wfa.timeline = True  # (upload_ms: the stage's events)
    reps = max(5, 4 * repeats)

    def ms(call) -> float:
        return time_repeats(call, reps)[0].median * 1e3

    print(f"{'case':<12} {'out':<5} {'fallback':>8} {'sample':>7} {'estimate':>8} {'budget':>7} {'gpu.solve':>9} "
          f"{'choice':>7} {'host':>7} {'upload':>7} {'synced':>7} {'launch':>7} {'kernel':>7}")
    for name in cases:
        pair = case_pair(name)
        expected = sampled_score(pair, costs)
        for traceback in (False, True):
            wall = ms(lambda p=pair, tb=traceback: gpu.solve(p, costs, traceback=tb))
            stats = dict(gpu.wfa.stats) if gpu.wfa is not None else {}
            estimate = (gpu.wfa or WfaSolver()).estimate_ms
            print(f"{name:<12} {'cigar' if traceback else 'score':<5} "
                  f"{ms(lambda p=pair, tb=traceback: fallback_ms(p, costs, 'global', tb, BAND_MIN_CELLS)):>8.3f} "
                  f"{ms(lambda p=pair: sampled_score(p, costs)):>7.3f} "
                  f"{ms(lambda p=pair, x=expected, f=estimate: f(p, costs, 'global', x)):>8.3f} "
                  f"{ms(device.memory_budget):>7.3f} {wall:>9.3f} "
                  + " ".join(f"{stats.get(k, 0):>7.3f}" for k in ("choice_ms", "host_ms", "upload_ms", "synced_ms",
                                                                 "ms", "kernel_ms")), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
