"""nw_wfa_cluster (wfa_cluster.cu) alone on issue 26's 10^6 x 10^6 pair at 1% (``--costs``: linear or affine): per
count of steps between two cluster barriers (``--per``; e caps it), its kernel time (device events),
host-to-host time of ``WfaSolver.solve`` and the time a score step takes, median of --repeats after
one warm-up, score and CIGAR; every answer's score equal, every CIGAR re-scored.

  python3 scripts/profile_nw_cluster.py --per 1 2 3
  python3 scripts/profile_nw_cluster.py --cluster 8    # the portable most (CLUSTER: 16)
  python3 scripts/profile_nw_cluster.py --costs affine  # 4, 6, 2 (a barrier a step: e = 1 reduced)
  python3 scripts/profile_nw_cluster.py --random 200    # fresh random pairs (seed printed) against `sequential`
  python3 scripts/profile_nw_cluster.py --cases 100000-5 30368-10 --letters-global  # the cluster where the
      # letters would fit one block (solve's own choice there: nw_biwfa; without the flag the table says so)

BiWFA (linear costs) steps both directions at once: its us/step is a direction's step (about half the score's).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from splicedalign.workloads.nw import solve
from splicedalign.workloads.nw import wfa as cpu_wfa
from splicedalign.workloads.nw.gpu import wfa, wfa_cluster
from splicedalign.workloads.nw.gpu.solver import WFA_SAMPLE_MIN
from splicedalign.workloads.nw.gpu.wfa import WfaSolver, sampled_score
from splicedalign.workloads.nw.records import Costs, cigar_cost
from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS, case_pair, random_batch

RANDOM_COSTS = (Costs(0, 1, 3), Costs(0, 2, 1), Costs(0, 4, 2, 6), Costs(0, 3, 2, 1))


def fresh_random(count: int) -> int:
    """``count`` fresh random pairs (up to 3,000 letters, seed printed) a cost model, each through
    nw_wfa_cluster (a direction's cap just enough, 40 more, then one short: gave up; ``wfa_cluster.exact_caps``)
    against `sequential`, score and CIGAR re-scored; the failures."""
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"random pairs seed {seed}")
    rng = np.random.default_rng(seed)
    solver = WfaSolver(poison=True)
    fails = 0
    for costs in RANDOM_COSTS:
        g, x, o, e = cpu_wfa.reduced_costs(costs)
        for pair in random_batch(rng, count, 3000, flank=150):
            want = solve(pair, costs, "sequential", False, "global").score
            enough, short = wfa_cluster.exact_caps(want // g, x, o, e)
            for cap, traceback in ((enough, False), (enough, True), (enough + 40, False), (enough + 40, True),
                                   (short, True)):
                if cap < 0:
                    continue
                visits = (2 if wfa_cluster.bidirectional(o) else 1) * wfa.visits_upto(
                    solver.reach(x, o, e, cap + 1), pair.n, pair.m, "global", wfa.wavefront_arrays(o), cap + 1)
                got = solver.launch_one(pair, costs, traceback, "global", cap, visits, 32, cluster=True)
                score = got.score[0]
                ok = score is None if cap < enough else score == want and (
                    not traceback or cigar_cost(got.cigar(0), pair.a, pair.b, costs) == want)
                if not ok:
                    fails += 1
                    print(f"FAIL {pair.name} {pair.n}x{pair.m} {costs} cap {cap} traceback {traceback}: {score} "
                          f"want {want}")
        print(f"random {costs}: {count} pairs, failures so far {fails}")
    return fails


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", nargs="+", default=["1000000-1"])
    parser.add_argument("--per", nargs="+", type=int, default=[wfa_cluster.PER_BARRIER])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--costs", default="linear", choices=sorted(ISSUE26_COSTS))
    parser.add_argument("--random", type=int, default=0, help="fresh random pairs a cost model, then exit")
    parser.add_argument("--cluster", type=int, default=wfa_cluster.CLUSTER,
                        help="blocks a cluster (another than CLUSTER: compiled by NVRTC with it)")
    parser.add_argument("--letters-global", action="store_true",
                        help="solve as if the letters did not fit one block's shared memory: the cluster")
    args = parser.parse_args()
    if args.letters_global:
        wfa.seqs_fit = lambda n, m, shared_bytes=0: False
    wfa_cluster.CLUSTER = wfa_cluster.DEFINES["WFA_CLUSTER"] = args.cluster
    if args.random:
        fails = fresh_random(args.random)
        print(f"failures: {fails}")
        return 1 if fails else 0
    costs = ISSUE26_COSTS[args.costs]
    solver = WfaSolver()
    fails = 0
    print(f"blocks a cluster: {wfa_cluster.CLUSTER}, costs {args.costs} {costs}")
    _, x, o, e = cpu_wfa.reduced_costs(costs)
    halves = o == 0 and hasattr(wfa_cluster, "direction_steps")  # (this tree's BiWFA; main's src: the forward)
    print(f"{'case':<12} {'per':>3} {'out':<5} {'steps':>6} {'threads':>7} {'kernel ms':>9} {'host ms':>8} "
          f"{'us/step':>7} {'score':>9} chosen")
    for name in args.cases:
        pair = case_pair(name)
        guess = sampled_score(pair, costs) if min(pair.n, pair.m) >= WFA_SAMPLE_MIN else None
        scores = set()
        for per in args.per:
            wfa_cluster.PER_BARRIER = per
            for traceback in (False, True):
                kernel, host = [], []
                got = None
                for _ in range(args.repeats + 1):
                    t0 = time.perf_counter()
                    got = solver.solve(pair, costs, traceback, "global", budget_ms=1e4, expected=guess)
                    host.append((time.perf_counter() - t0) * 1e3)
                    kernel.append(solver.stats["kernel_ms"])
                assert got is not None
                chosen = "cluster" if solver.stats["cluster"] else "biwfa" if solver.stats["bi"] else "wfa"
                scores.add(got.score)
                if traceback and cigar_cost(got.cigar, pair.a, pair.b, costs) != got.score:
                    fails += 1
                    print(f"FAIL {name} per {per}: CIGAR does not re-score to {got.score}")
                k_ms, h_ms = statistics.median(kernel[1:]), statistics.median(host[1:])
                steps = solver.stats["steps"][0]  # (the score over the costs' gcd)
                if chosen != "wfa" and (halves or chosen == "biwfa"):
                    steps = (steps + max(x, e)) // 2 + 1  # (about a direction's)
                print(f"{name:<12} {per:>3} {'cigar' if traceback else 'score':<5} {steps:>6} "
                      f"{solver.stats['threads']:>7} {k_ms:>9.3f} {h_ms:>8.3f} {1e3 * k_ms / max(steps, 1):>7.3f} "
                      f"{got.score:>9} {chosen}")
        if len(scores) > 1:
            fails += 1
            print(f"FAIL {name}: scores differ {scores}")
    print(f"failures: {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    raise SystemExit(main())
