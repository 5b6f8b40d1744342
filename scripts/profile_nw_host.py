"""The host around `gpu`'s single-pair call (issue 26): `GpuSolver().solve` host to host on a few
pairs (linear costs, score and CIGAR), a warm-up then --repeats calls (core.timing.time_repeats),
median (min-max) ms with the last call's kernel ms and the WFA's host pieces (wfa.py's stats: the
choice's, launch_one's host until queued, the device's upload and pack, its idle wait after them for
the host's choice, the wait's end, the solve);
then, with --cprofile N, N score solves of the first case under cProfile (each function's calls
and time a solve, top by own time): where the host time between the kernel and the caller goes,
and how many CuPy / CUDA calls a solve makes. Run with either tree's src (the A/B of
scripts/device_nw_peer.sh and device_nw_host.sh):

  python3 scripts/profile_nw_host.py --cases 100000-1 30368-10 --cprofile 300
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats

from splicedalign.core.timing import time_repeats
from splicedalign.workloads.nw.gpu.solver import GpuSolver
from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS, case_pair


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", nargs="+", default=["100000-1", "30368-10"])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--cprofile", type=int, default=0, help="score solves of the first case under cProfile")
    parser.add_argument("--tag", default="", help="a label for the rows (the tree)")
    args = parser.parse_args()
    costs = ISSUE26_COSTS["linear"]
    gpu = GpuSolver()
    for name in args.cases:
        pair = case_pair(name)
        for traceback in (False, True):
            timing, _ = time_repeats(lambda p=pair, tb=traceback: gpu.solve(p, costs, traceback=tb), args.repeats)
            stats = gpu.wfa.stats if gpu.wfa is not None else {}
            pieces = " ".join(f"{k} {stats[k]:.3f}" for k in ("choice_ms", "host_ms", "upload_ms", "idle_ms",
                                                               "synced_ms", "ms", "kernel_ms") if k in stats)
            kernel = "-" if gpu.kernel_ms is None else f"{gpu.kernel_ms:.3f}"  # (segments: known with a timeline)
            print(f"{args.tag} {name:<10} {'cigar' if traceback else 'score'} {timing.median * 1e3:.3f} ms "
                  f"({timing.min * 1e3:.3f}-{timing.max * 1e3:.3f}, {len(timing.runs)} calls) "
                  f"kernel {kernel} | {pieces}",
                  flush=True)
    if args.cprofile:
        pair = case_pair(args.cases[0])
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.cprofile):
            gpu.solve(pair, costs, traceback=False)
        profile.disable()
        text = io.StringIO()
        stats_of = pstats.Stats(profile, stream=text)
        stats_of.sort_stats("tottime").print_stats(30)
        print(f"{args.tag} cProfile of {args.cprofile} score solves of {args.cases[0]} (divide calls and times by it)")
        print(text.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
