"""One `gpu` (spliced) work of the issue-12 shapes, called repeatedly, with the host stages of
each call: what a profiler (nsys, ncu) wraps. Prints per call its wall time, the launches'
kernel time and ``GpuSolver.timing`` (host seconds by stage); ``--events``: a timeline of the
host's steps and the GPU's events on one clock (nsys does not run on the device image);
``--taken``: also when each launch's wavefront had handed out a quarter, half, ... of its tasks
(its task counter, sampled from a host thread): a launch whose tasks are all taken long before
it ends is waiting on its dependent chains, not short of work. Needs a GPU:
    PYTHONPATH=src python3 benchmarks/spliced_profile.py --work paper-trace [--repeats 3]
The first call is the warm-up (kernel compilation, planning and uploads); profile from the
second (ncu: --launch-skip with the warm-up's launch count).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import pstats
import threading
import time

import numpy as np

from splicedalign.gpu import device
from splicedalign.workloads.spliced.gpu import outputs
from splicedalign.workloads.spliced.gpu.solver import GpuSolver
from splicedalign.workloads.spliced.synthetic import il1rapl1_case, paper_set, paper_sets

WORKS = {
    "paper": (lambda: paper_set(), False),
    "paper-trace": (lambda: paper_set(), True),
    "sets10": (lambda: paper_sets(10), False),
    "il1": (lambda: [il1rapl1_case()], False),
    "il1-trace": (lambda: [il1rapl1_case()], True),
}


# host steps of a call that the timeline shows (GpuSolver methods, static ones staying static,
# the call itself last; the device check and the row storage's refill at the call's end)
STEPS = tuple((GpuSolver, name) for name in ("solve_many", "_split", "_launch", "_inputs", "_fed", "_collect")) + (
    (outputs, "device_traceback"), (outputs, "results"), (device, "check"), (device.FilledBuffers, "refill"))


def timed_steps(log: list, origin: list) -> None:
    """Wrap STEPS so that each call appends (name, start, end) in ms from origin[0]."""
    for owner, name in STEPS:
        static = isinstance(vars(owner).get(name), staticmethod)
        method = getattr(owner, name)

        def step(*a, _name=name, _method=method, **k):
            t = time.perf_counter()
            try:
                return _method(*a, **k)
            finally:
                log.append((_name, (t - origin[0]) * 1e3, (time.perf_counter() - origin[0]) * 1e3))
        setattr(owner, name, staticmethod(step) if static else step)


def keep_jobs(jobs: list) -> None:
    """Wrap GpuSolver._launch so that each launch it queues appends its job to ``jobs``: a copy
    without its row and move storage, which the solver gives back once it collects the launch
    (kept whole, a 10-set traced call's jobs held ~16-18 GB of moves each and filled an H100 at
    its fourth recording launch: CuPy's OutOfMemoryError with 70.2 GB in use, none free in its pool)."""
    launch = GpuSolver._launch

    def keep(self, *a, **k):
        job = launch(self, *a, **k)
        jobs.append(dataclasses.replace(job, storage=None, moves=None, gathered=None))
        return job
    GpuSolver._launch = keep


class TaskCounters:
    """Samples the task counter of every queued launch (``jobs``, as they are appended) from a
    host thread on a stream of its own, until stopped: (ms from ``origin``, tasks taken)."""

    SHARES = (0.25, 0.5, 0.75, 0.9, 1.0)

    def __init__(self, jobs: list, origin: float):
        cp = device.cupy()
        self.jobs, self.origin, self.samples = jobs, origin, {}
        self.stream = cp.cuda.Stream(non_blocking=True)
        # a pinned destination: a copy to pageable memory would wait for the running kernel
        self.pinned = cp.cuda.alloc_pinned_memory(4)
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        cp = device.cupy()
        value = np.frombuffer(self.pinned, dtype=np.int32, count=1)
        while self.running:
            for job in list(self.jobs):
                cp.cuda.runtime.memcpyAsync(self.pinned.ptr, job.counter.data.ptr, 4,
                                            cp.cuda.runtime.memcpyDeviceToHost, self.stream.ptr)
                self.stream.synchronize()
                self.samples.setdefault(id(job), []).append(((time.perf_counter() - self.origin) * 1e3,
                                                             int(value[0])))
            time.sleep(1e-4)  # leave the calling thread the interpreter

    def stop(self) -> None:
        self.running = False
        self.thread.join()

    def report(self, job) -> str:
        ntasks = job.inputs.plan.tasks.shape[0]
        samples = self.samples.get(id(job), [])
        out = []
        for share in self.SHARES:
            hit = next((t for t, taken in samples if taken >= share * ntasks), None)
            out.append(f"{share:.0%}: {hit:.2f}" if hit is not None else f"{share:.0%}: -")
        return f"{ntasks} tasks, {len(samples)} samples; " + ", ".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", choices=WORKS, required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cprofile", action="store_true", help="then one more call under cProfile: host functions")
    ap.add_argument("--events", action="store_true",
                    help="a timeline of each call on one clock (ms from its start): the host's steps, and per "
                         "launch its kernel's start and end and when each collected part was ready on the GPU")
    ap.add_argument("--taken", action="store_true",
                    help="with --events: when each launch had handed out 25, 50, 75, 90 and all of its tasks")
    args = ap.parse_args()
    args.events |= args.taken
    make, traceback = WORKS[args.work]
    cupy = device.cupy()
    cases = make()
    cells = sum(c.cells for c in cases)
    gpu = GpuSolver()
    jobs, steps, origin = [], [], [0.0]
    if args.events:
        timed_steps(steps, origin)
        keep_jobs(jobs)
    for call in range(args.repeats + 1):
        jobs.clear()
        steps.clear()
        ref = gpu.streams().compute.record()  # the GPU's origin: the compute stream is idle here
        t = origin[0] = time.perf_counter()
        sampler = TaskCounters(jobs, origin[0]) if args.taken else None
        results = gpu.solve_many(cases, traceback=traceback)
        wall = time.perf_counter() - t
        if sampler:
            sampler.stop()
        t = time.perf_counter()
        del results
        freed = time.perf_counter() - t
        stages = " ".join(f"{k} {v * 1e3:.2f}" for k, v in gpu.timing.items())
        kernels = " + ".join(f"{k:.2f}" for k in gpu.kernel_ms)
        label = "warm-up" if call == 0 else f"call {call}"
        print(f"{args.work} {label}: {wall * 1e3:.2f} ms = {cells / wall / 1e9:.0f} GCUPS; kernels {kernels} ms; "
              f"host ms: {stages}; results let go after: {freed * 1e3:.2f} ms", flush=True)
        if args.events:
            print("  host: " + "; ".join(f"{name.strip('_')} {a:.2f}-{b:.2f}" for name, a, b in steps))
            for i, job in enumerate(jobs):
                at = lambda e, ref=ref: cupy.cuda.get_elapsed_time(ref, e)  # noqa: E731
                start, stop, *follower = job.events
                ready = ", ".join(f"{at(e):.2f}" for _, e in job.parts)
                ended = f"; follower ended {at(follower[0]):.2f}" if follower else ""
                print(f"  GPU launch {i}: kernel {at(start):.2f}-{at(stop):.2f}{ended}; parts ready {ready}")
                if sampler:
                    print(f"    tasks taken (share: ms) {sampler.report(job)}")
    if args.cprofile:
        profile = cProfile.Profile()
        profile.runcall(gpu.solve_many, cases, traceback=traceback)
        pstats.Stats(profile).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
