"""One `gpu` (spliced) work of the issue-12 shapes, called repeatedly, with the host stages of
each call: what a profiler (nsys, ncu) wraps. Prints per call its wall time, the launches'
kernel time and ``GpuSolver.timing`` (host seconds by stage). Needs a GPU:
    PYTHONPATH=src python3 benchmarks/spliced_profile.py --work paper-trace [--repeats 3]
The first call is the warm-up (kernel compilation, planning and uploads); profile from the
second (ncu: --launch-skip with the warm-up's launch count).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from splicedalign.gpu import device
from splicedalign.workloads.spliced.gpu.solver import GpuSolver
from splicedalign.workloads.spliced.synthetic import il1rapl1_case, paper_set, paper_sets

WORKS = {
    "paper": (lambda: paper_set(), False),
    "paper-trace": (lambda: paper_set(), True),
    "sets10": (lambda: paper_sets(10), False),
    "il1": (lambda: [il1rapl1_case()], False),
    "il1-trace": (lambda: [il1rapl1_case()], True),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", choices=WORKS, required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cprofile", action="store_true", help="then one more call under cProfile: host functions")
    ap.add_argument("--events", action="store_true",
                    help="per launch, when its kernel ended and each collected part was ready on the GPU (ms after the kernel's start)")
    args = ap.parse_args()
    make, traceback = WORKS[args.work]
    cupy = device.cupy()
    cases = make()
    cells = sum(c.cells for c in cases)
    gpu = GpuSolver()
    jobs = []
    if args.events:
        launch = GpuSolver._launch

        def keep(self, *a, **k):
            jobs.append(launch(self, *a, **k))
            return jobs[-1]
        GpuSolver._launch = keep
    for call in range(args.repeats + 1):
        jobs.clear()
        t = time.perf_counter()
        gpu.solve_many(cases, traceback=traceback)
        wall = time.perf_counter() - t
        stages = " ".join(f"{k} {v * 1e3:.2f}" for k, v in gpu.timing.items())
        kernels = " + ".join(f"{k:.2f}" for k in gpu.kernel_ms)
        label = "warm-up" if call == 0 else f"call {call}"
        print(f"{args.work} {label}: {wall * 1e3:.2f} ms = {cells / wall / 1e9:.0f} GCUPS; kernels {kernels} ms; "
              f"host ms: {stages}", flush=True)
        for i, job in enumerate(jobs):
            start, stop = job.events
            since = lambda e: cupy.cuda.get_elapsed_time(start, e)  # noqa: E731
            ready = ", ".join(f"{since(e):.2f}" for _, e in job.parts)
            print(f"  launch {i}: kernel ends {since(stop):.2f}; parts ready {ready}; done {since(job.done):.2f}")
    if args.cprofile:
        profile = cProfile.Profile()
        profile.runcall(gpu.solve_many, cases, traceback=traceback)
        pstats.Stats(profile).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
