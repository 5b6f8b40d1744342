"""How long numba's OpenMP team takes to run a parallel region after a gap, on this host (CPU only;
issue 22 target 1's 1-set row: a fed call's step 0, the call's first parallel regions after ~2-4 ms of
the caller's serial work, ran 1.0-1.3 ms in some fresh processes and 3.5-5.7 in others on the H100
host, with 0-1 steal ticks; planned on one thread, the next step's first regions took the stall).

In fresh processes (splicedalign imported first: core.jit's GOMP_SPINCOUNT), after a warm-up, for
each gap and each way of spending it, rounds of: the gap, then a "step" of REGIONS small parallel
regions back to back (about a fed step 0's count; each a pass over WORK elements), timed region by
region. Ways of spending the gap:
  idle  the caller sleeps (every vCPU may idle);
  busy  the caller computes (compiled, without the GIL: as the split and set-up keep one CPU busy);
  spin  busy, and THREADS-1 helper threads spin in compiled code without the GIL meanwhile (their
        vCPUs kept running), told to stop just before the step (the premise of keeping the team's
        CPUs awake before step 0; a real design would have to start them without the GIL).
Prints per way and gap: the step's median / p90 / max ms, its first region's, and the host's steal
ticks over the process (/proc/stat). One JSON line per process with the raw times (--json).
    PYTHONPATH=src python3 scripts/probe_team_wake.py --processes 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

PROBE = r"""
import json, sys, threading, time
import splicedalign  # noqa: F401  (core.jit.openmp_team: numba's OpenMP layer first, its team's short spin)
import numba
from splicedalign.core.machine import cpu_ticks
import numpy as np
from numba import njit, prange

REGIONS, WORK, ROUNDS = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
GAPS = [float(g) for g in sys.argv[4].split(",")]
WAYS = sys.argv[5].split(",")

@njit(parallel=True, nogil=True)
def region(a):
    for i in prange(a.size):
        a[i] = a[i] * 3 + 1

@njit(nogil=True)
def spin(flag, out):
    n = 0
    while flag[0] == 0 and n < 2_000_000_000:
        n += 1
    out[0] = n

@njit(nogil=True)
def count(n):  # the caller's busy gap, without the GIL (helpers start at once)
    x = 0
    for i in range(n):
        x = (x * 7 + i) & 0xFFFF
    return x

a = np.ones(WORK, np.int64)
flag, counts = np.zeros(1, np.int64), np.zeros(64, np.int64)
for _ in range(200):
    region(a)
spin(np.ones(1, np.int64), counts)
count(1000)
t = time.perf_counter(); count(10_000_000); PER_S = 10_000_000 / (time.perf_counter() - t)
go = threading.Event()
def helper(k):
    while True:
        go.wait()
        spin(flag, counts[k:])
helpers = [threading.Thread(target=helper, args=(k,), daemon=True) for k in range(numba.get_num_threads() - 1)]
for h in helpers:
    h.start()
time.sleep(0.05)

def busy(seconds):
    count(int(seconds * PER_S))

out, s0 = {}, cpu_ticks()["steal"]
for way in WAYS:
    for gap in GAPS:
        steps = []
        for _ in range(ROUNDS):
            if way == "idle":
                time.sleep(gap)
            elif way == "busy":
                busy(gap)
            else:
                flag[0] = 0
                go.set()
                busy(gap)
                go.clear()  # before the flag: a helper back from spin waits for the next round
                flag[0] = 1
            times = []
            for _ in range(REGIONS):
                t = time.perf_counter()
                region(a)
                times.append((time.perf_counter() - t) * 1e3)
            steps.append(times)
        out[f"{way} {gap * 1e3:g}"] = steps
print(json.dumps({"steal": cpu_ticks()["steal"] - s0, "threads": numba.get_num_threads(),
                  "layer": numba.threading_layer(), "steps": out}))
"""


def p90(v: list[float]) -> float:
    return v[int(0.9 * (len(v) - 1))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--regions", type=int, default=18, help="parallel regions a step (a fed step 0: ~18)")
    ap.add_argument("--work", type=int, default=1 << 14, help="elements a region")
    ap.add_argument("--gaps", default="0.0002,0.001,0.003,0.02,0.3", help="seconds, comma-separated")
    ap.add_argument("--ways", default="idle,busy,spin")
    ap.add_argument("--json", help="also the raw times, one JSON line per process")
    args = ap.parse_args()
    got = []
    for p in range(args.processes):
        done = subprocess.run([sys.executable, "-c", PROBE, str(args.regions), str(args.work), str(args.rounds),
                               args.gaps, args.ways], capture_output=True, text=True, env=dict(os.environ))
        if done.returncode:
            print(f"process {p}: exit {done.returncode}: {done.stderr[-1500:]}")
            continue
        got.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"process {p}: {got[-1]['threads']} threads, layer {got[-1]['layer']}, steal {got[-1]['steal']} ticks")
    if args.json:
        with open(args.json, "w") as f:
            for g in got:
                f.write(json.dumps(g) + "\n")
    if not got:
        return
    print(f"{'way gap(ms)':<14}{'step ms median':>15}{'p90':>8}{'max':>8}{'first region median':>21}{'p90':>8}"
          f"{'max':>8}{'warm region median':>20}")
    for key in got[0]["steps"]:
        steps = [s for g in got for s in g["steps"][key]]
        total = sorted(sum(s) for s in steps)
        first = sorted(s[0] for s in steps)
        warm = statistics.median(x for s in steps for x in s[1:])
        print(f"{key:<14}{statistics.median(total):>15.3f}{p90(total):>8.3f}{total[-1]:>8.3f}"
              f"{statistics.median(first):>21.3f}{p90(first):>8.3f}{first[-1]:>8.3f}{warm:>20.4f}")


if __name__ == "__main__":
    main()
