"""Where a fresh process's first spliced solve spends its extra time (issue 22 targets 1-2).

    python scripts/probe_first_call.py [--gpu] [--cli] [--warm] [--seed S] [--variants ...]

Each variant runs in fresh processes (one per round, variants interleaved), with its
environment (a numba threading layer, OpenMP's wait policy, a thread count, ...). A process:

1. start-up as the CLI does it (``--cli``: ``driver.start()`` for a GPU run, then
   ``driver.start_numba()``), or as a library caller (numba imported by the solver's modules);
   each step timed;
2. with ``--warm``: a warm-up as scripts/device_spliced.py's cold probe makes (the same shapes
   on other seeds: a paper set, then 10 sets), then the never-seen sets made;
3. calls on never-seen paper sets, each a fresh solver (``--gpu``: GpuSolver.solve_many, score,
   the fed launch; else the same host passes: split, feed steps into host staging, the fed
   launch's plan): ``first``, ``second`` right after it, then ``idle 1 s`` and ``idle 50 ms``
   after sleeping that long (a first-call effect shows in ``first`` only; one that comes with
   an idle host shows after the sleeps too).

Each call reports: wall ms, the solver's stages (GPU), the main thread's CPU ms and minor page
faults, the numba calls (compiled passes: count, wall ms, the main thread's CPU ms in them,
the longest), numba cache loads (count, ms), the CPU ms of the process's other threads (OpenMP
workers, CUDA's, ...: /proc/self/task), cgroup CPU throttling, and full garbage collections.
With ``--hog N``, N busy processes run beside each measured one (a loaded host: another job, a
neighbour). Prints the medians per variant last. CPU only without --gpu (runs on the 2-core
machine). Needs the tree's numba cache filled first (``python -m splicedalign.kernels host``, as
scripts/device_first_call.sh runs it): the timed wrappers stand in for the modules' dispatchers, so
a pass that calls another (plan._exon_union calls _prefix) cannot compile here (numba's TypingError
"Untyped global name").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

VARIANTS = {
    "default": {},  # splicedalign's: GOMP_SPINCOUNT=3000 (core.jit.openmp_team)
    "old": {"GOMP_SPINCOUNT": "300000"},  # libgomp's own default spin
    "workqueue": {"NUMBA_THREADING_LAYER": "workqueue"},
    "omp-passive": {"OMP_WAIT_POLICY": "passive"},
    "threads-8": {"NUMBA_NUM_THREADS": "8"},
    "eager-loads": {"PROBE_EAGER_LOADS": "1"},  # with --cli: numba's own cache loads
}

CHILD = r"""
import gc, json, os, resource, sys, threading, time
T0 = time.perf_counter()
args = json.loads(sys.argv[1])
steps = {}

def step(name, t):
    steps[name] = round((time.perf_counter() - t) * 1e3, 2)

t = time.perf_counter()
import numpy as np
step("numpy import", t)
if args["cli"]:
    from splicedalign.gpu import driver
    t = time.perf_counter()
    if args["gpu"]:
        driver.start()
    driver.start_numba()
    if os.environ.get("PROBE_EAGER_LOADS"):  # numba's own cache loads (core.jit's lazy shared bitcode undone)
        from numba.core import codegen
        from splicedalign.core import jit
        if jit._NUMBA_UNSERIALIZE:
            codegen.CPUCodeLibrary._unserialize = classmethod(jit._NUMBA_UNSERIALIZE[0])
            codegen.CPUCodeLibrary._get_module_for_linking = jit._NUMBA_UNSERIALIZE[1]
    step("driver.start + start_numba", t)
t = time.perf_counter()
from splicedalign.workloads.spliced.gpu import feed, flat as flatmod, launch, plan as planmod, solver as solvermod
from splicedalign.workloads.spliced.gpu.feed import Feeder, fed_on_host, load_passes
from splicedalign.workloads.spliced.gpu.flat import FlatCases
from splicedalign.workloads.spliced.gpu.plan import build_plan, byte_profile_ok
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.synthetic import paper_set, paper_sets
step("solver modules import", t)

# ---- instrumentation ---------------------------------------------------------------------
import numba
from numba.core.dispatcher import Dispatcher
import numba.core.caching as caching

calls, loads = [], []

def wrap(d):
    name = d.py_func.__name__
    parallel = bool(d.targetoptions.get("parallel"))
    def run(*a, **k):
        t, c = time.perf_counter(), time.thread_time()
        try:
            return d(*a, **k)
        finally:
            calls.append((name, parallel, time.perf_counter() - t, time.thread_time() - c))
    run.__wrapped__ = d
    return run

mods = [m for n, m in list(sys.modules.items()) if n.startswith("splicedalign.") and m is not None]
wrappers = {}
for m in mods:
    for k, v in list(vars(m).items()):
        if isinstance(v, Dispatcher):
            wrappers.setdefault(id(v), wrap(v))
            setattr(m, k, wrappers[id(v)])

_load = caching.Cache.load_overload
def load_overload(self, sig, target_context):
    t = time.perf_counter()
    try:
        return _load(self, sig, target_context)
    finally:
        loads.append((self._name, time.perf_counter() - t))
caching.Cache.load_overload = load_overload

def task_cpu():
    # {tid: ns on a CPU} of this process's threads (schedstat, else stat's ticks)
    out = {}
    base = "/proc/self/task"
    try:
        tids = os.listdir(base)
    except OSError:
        return out
    tick = os.sysconf("SC_CLK_TCK")
    for tid in tids:
        try:
            with open(f"{base}/{tid}/schedstat") as f:
                out[tid] = int(f.read().split()[0])
                continue
        except (OSError, ValueError, IndexError):
            pass
        try:
            with open(f"{base}/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[tid] = (int(fields[11]) + int(fields[12])) * 10**9 // tick
        except (OSError, ValueError, IndexError):
            pass
    return out

def throttled():
    for path in ("/sys/fs/cgroup/cpu.stat", "/sys/fs/cgroup/cpu/cpu.stat"):
        try:
            with open(path) as f:
                d = dict(line.split() for line in f if line.strip())
            return int(d.get("throttled_usec", int(d.get("throttled_time", 0)) // 1000)), int(d.get("nr_throttled", 0))
        except (OSError, ValueError):
            continue
    return None

from splicedalign.core.machine import cpu_ticks  # the host's CPU ticks by kind since boot

MAIN_TID = str(threading.get_native_id())
scoring = Scoring()

def host_call(cases):
    # the fed launch's host passes, as GpuSolver._split / _fed run them
    timing = {}
    t = time.perf_counter()
    every = FlatCases.of(cases)
    _, work, _, _ = launch.plan_launches(every, scoring, False, 1 << 40, lambda c: True)
    (ctype, sel), = work
    sub = every.select(sel)
    timing["split"] = time.perf_counter() - t
    t = time.perf_counter()
    config = launch.configure(sub, ctype, byte_profile_ok(scoring), False, True)
    load_passes()
    fed_on_host(Feeder.of(sub, config, launch.TUNING))
    timing["plan"] = time.perf_counter() - t
    return timing

def gpu_call(cases):
    gpu = solvermod.GpuSolver()
    gpu.solve_many(cases, traceback=False)
    out = dict(gpu.timing)
    out["span"] = gpu.span_ms / 1e3
    return out

call = gpu_call if args["gpu"] else host_call

def measured(label, cases):
    n_calls, n_loads = len(calls), len(loads)
    cpu0, thr0, gc0 = task_cpu(), throttled(), gc.get_stats()[2]["collections"]
    r0 = resource.getrusage(resource.RUSAGE_THREAD)
    p0, h0 = resource.getrusage(resource.RUSAGE_SELF), cpu_ticks()
    c0, t = time.thread_time(), time.perf_counter()
    stages = call(cases)
    wall = time.perf_counter() - t
    c1 = time.thread_time()
    r1 = resource.getrusage(resource.RUSAGE_THREAD)
    cpu1, thr1 = task_cpu(), throttled()
    p1, h1 = resource.getrusage(resource.RUSAGE_SELF), cpu_ticks()
    host = {k: h1[k] - a for k, a in h0.items()} if h0 and h1 else None
    mine = calls[n_calls:]
    par = [c for c in mine if c[1]]
    others = sum(v - cpu0.get(k, 0) for k, v in cpu1.items() if k != MAIN_TID) / 1e6 if cpu1 else None
    longest = max(mine, key=lambda c: c[2]) if mine else ("-", 0, 0.0, 0.0)
    return {"call": label, "wall": wall * 1e3, "stages": {k: round(v * 1e3, 2) for k, v in stages.items()},
            "main_cpu": (c1 - c0) * 1e3, "minflt": r1.ru_minflt - r0.ru_minflt,
            "numba_n": len(mine), "numba_ms": sum(c[2] for c in mine) * 1e3,
            "numba_cpu": sum(c[3] for c in mine) * 1e3, "parallel_n": len(par),
            "parallel_ms": sum(c[2] for c in par) * 1e3, "parallel_cpu": sum(c[3] for c in par) * 1e3,
            "longest": f"{longest[0]} {longest[2] * 1e3:.1f}",
            "loads_n": len(loads) - n_loads, "loads_ms": sum(x[1] for x in loads[n_loads:]) * 1e3,
            "others_cpu": others, "throttled": None if thr0 is None or thr1 is None else (thr1[0] - thr0[0]) / 1e3,
            "full_gc": gc.get_stats()[2]["collections"] - gc0, "threads": len(cpu1),
            "process_minflt": p1.ru_minflt - p0.ru_minflt, "process_majflt": p1.ru_majflt - p0.ru_majflt,
            "process_cpu": (p1.ru_utime + p1.ru_stime - p0.ru_utime - p0.ru_stime) * 1e3,
            "process_sys": (p1.ru_stime - p0.ru_stime) * 1e3, "host_ticks": host}

seed = args["seed"]
out = {"steps": steps, "calls": []}
if args["warm"]:
    t = time.perf_counter()
    call(paper_set(seed + 7919))
    if args["gpu"]:
        solvermod.GpuSolver().solve_many(paper_sets(10, seed + 7920), traceback=False)
    else:
        every = FlatCases.of(paper_sets(10, seed + 7920))
        _, work, _, _ = launch.plan_launches(every, scoring, False, 1 << 40, lambda c: True)
        ctype, sel = work[0]
        sub = every.select(sel)
        config = launch.configure(sub, ctype, byte_profile_ok(scoring), False, True)
        build_plan(sub, config.rows_per_lane, config.floors, config.late, config.entry)
    step("warm-up", t)
t = time.perf_counter()
sets = [paper_set(seed + i) for i in range(4)]
step("sets made", t)
out["calls"].append(measured("first", sets[0]))
out["calls"].append(measured("second", sets[1]))
time.sleep(1.0)
out["calls"].append(measured("idle 1 s", sets[2]))
time.sleep(0.05)
out["calls"].append(measured("idle 50 ms", sets[3]))
out["layer"] = numba.threading_layer() if any(c[1] for c in calls) else "-"
out["threads"] = numba.get_num_threads()
print(json.dumps(out))
"""


# --wake: how long a parallel region of the team takes after the team was idle for a while (its
# threads asleep): a tiny compiled parallel pass (feed._place on 64 records) after each sleep.
WAKE = r"""
import json, sys, time
import numpy as np
from splicedalign.workloads.spliced.gpu.feed import _place
from splicedalign.workloads.spliced.gpu.plan import NFIELDS
idle, count = float(sys.argv[1]), int(sys.argv[2])
out, at, table = np.zeros((64, NFIELDS), np.int32), np.arange(64), np.ones((64, NFIELDS), np.int32)
_place(out, at, table)
got = []
for _ in range(count):
    time.sleep(idle)
    t = time.perf_counter()
    _place(out, at, table)
    a = time.perf_counter()
    _place(out, at, table)
    got.append(((a - t) * 1e3, (time.perf_counter() - a) * 1e3))
print(json.dumps(got))
"""


def _env(variant: dict[str, str]) -> dict[str, str]:
    """A child's environment: this process's with ``variant``'s settings, this tree's src first."""
    env = dict(os.environ, **variant)
    env["PYTHONPATH"] = str(REPO / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def wake(variants: dict[str, dict[str, str]], idle: float, count: int) -> None:
    """Per variant, a fresh process: the first region after each idle spell and the one right after
    it (ms): median, 90th percentile, max."""
    for name, variant in variants.items():
        env = _env(variant)
        done = subprocess.run([sys.executable, "-c", WAKE, str(idle), str(count)], env=env, capture_output=True,
                              text=True, timeout=120)
        if done.returncode:
            raise SystemExit(f"wake child failed ({name}):\n{done.stderr[-3000:]}")
        got = json.loads(done.stdout.strip().splitlines()[-1])
        for i, what in enumerate(("after idle", "right after")):
            v = sorted(g[i] for g in got)
            print(f"wake {name:<10} {what:<11} (idle {idle} s, {count}x): median {statistics.median(v):.3f} "
                  f"p90 {v[int(0.9 * (len(v) - 1))]:.3f} max {v[-1]:.3f} ms", flush=True)


def child(variant: dict[str, str], args: argparse.Namespace, seed: int) -> dict:
    env = _env(variant)
    spec = json.dumps({"gpu": args.gpu, "cli": args.cli, "warm": args.warm, "seed": seed})
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hog)]
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, spec], env=env, capture_output=True, text=True,
                              timeout=args.timeout)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    if done.returncode:
        raise SystemExit(f"child failed ({variant}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def row(c: dict) -> str:
    st = " ".join(f"{k} {v:.1f}" for k, v in c["stages"].items() if v)
    others = "-" if c["others_cpu"] is None else f"{c['others_cpu']:.0f}"
    thr = "-" if c["throttled"] is None else f"{c['throttled']:.1f}"
    return (f"{c['call']:<11} {c['wall']:7.1f} {c['main_cpu']:7.1f} {c['numba_n']:4d} {c['numba_ms']:7.1f} "
            f"{c['parallel_n']:4d} {c['parallel_ms']:7.1f} {c['parallel_cpu']:7.1f} {c['loads_n']:3d} "
            f"{c['loads_ms']:6.1f} {c['minflt']:6d} {others:>7} {thr:>6} {c['full_gc']:2d}  {c['longest']:<22} {st}")


HEADER = (f"{'call':<11} {'wall':>7} {'mainCPU':>7} {'nb_n':>4} {'nb_ms':>7} {'par':>4} {'par_ms':>7} "
          f"{'parCPU':>7} {'ld':>3} {'ld_ms':>6} {'minflt':>6} {'others':>7} {'thrott':>6} gc  longest numba call"
          "        stages (ms)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", action="store_true", help="GpuSolver.solve_many (needs CuPy and a GPU)")
    ap.add_argument("--cli", action="store_true", help="start-up as the CLI: driver.start() (GPU), start_numba()")
    ap.add_argument("--warm", action="store_true", help="a warm-up first, as device_spliced.py --cold's probe")
    ap.add_argument("--hog", type=int, default=0, help="busy processes beside each one measured (a loaded host)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--variants", nargs="*", default=list(VARIANTS), help=f"of {list(VARIANTS)}, or NAME=K=V,K=V")
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--wake", type=float, default=None, metavar="IDLE_S",
                    help="only the wake-up latency of the idle team, after IDLE_S seconds of idle, --wake-count times")
    ap.add_argument("--wake-count", type=int, default=20)
    ap.add_argument("--json", type=Path, default=None, help="also every process's report here")
    args = ap.parse_args()
    variants = {}
    for v in args.variants:
        if "=" in v:
            name, spec = v.split("=", 1)
            variants[name] = dict(kv.split("=", 1) for kv in spec.split(","))
        else:
            variants[v] = VARIANTS[v]
    if args.wake is not None:
        wake(variants, args.wake, args.wake_count)
        return 0
    seed = args.seed if args.seed is not None else int(time.time()) % 100_000 * 100
    print(f"seed {seed}; {os.cpu_count()} CPUs; gpu={args.gpu} cli={args.cli} warm={args.warm} hog={args.hog}",
          flush=True)
    got: dict[str, list[dict]] = {name: [] for name in variants}
    for r in range(args.rounds):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for name in order:
            got[name].append(child(variants[name], args, seed + 10 * r))
            rep = got[name][-1]
            print(f"round {r} {name} (layer {rep['layer']}, {rep['threads']} threads): start-up "
                  + ", ".join(f"{k} {v:.1f}" for k, v in rep["steps"].items()), flush=True)
            print("  " + HEADER)
            for c in rep["calls"]:
                print("  " + row(c), flush=True)
                print(f"    process: minflt {c['process_minflt']} majflt {c['process_majflt']} "
                      f"CPU {c['process_cpu']:.0f} ms (sys {c['process_sys']:.0f}); host ticks {c['host_ticks']}",
                      flush=True)
    if args.json:
        args.json.write_text(json.dumps(got, indent=1))
    print("\nmedians over rounds (ms): wall / numba-parallel wall / main CPU")
    for name, reps in got.items():
        cells = []
        for i, c in enumerate(reps[0]["calls"]):
            med = {k: statistics.median(r["calls"][i][k] for r in reps) for k in ("wall", "parallel_ms", "main_cpu")}
            cells.append(f"{c['call']} {med['wall']:.1f}/{med['parallel_ms']:.1f}/{med['main_cpu']:.1f}")
        print(f"{name:<12} " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
