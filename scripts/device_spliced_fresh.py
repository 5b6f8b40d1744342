"""A fed launch (spliced/gpu/feed.py) on a machine whose numba cache lacks the host code: the
case where a fresh H100 machine's first fed call failed "a wavefront wait ran out" (the feed's
passes compiled while its kernel waited).

Two fresh copies of ``src``, each with an empty numba cache of its own (NUMBA_CACHE_DIR):
in the first, a fed call in a fresh process with no install step (its passes compile before
its kernel starts: slow, and exact); in the second, the install step (``python -m
splicedalign.kernels host``), then a fed call in a fresh process (nothing left to compile).
Each call's answers are compared with a planned-whole call's in the same process. One table
last.

    python scripts/device_spliced_fresh.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

# A fresh process: the first call of a fed solver on a paper set (wall ms, whether it was fed),
# then the same cases planned whole by another solver: the answers must be equal.
PROBE = r"""
import json, sys, time
from splicedalign.workloads.spliced.gpu import solver as gpu_solver
from splicedalign.workloads.spliced.gpu.launch import FED_SHARES, Tuning
from splicedalign.workloads.spliced.synthetic import paper_set
cases = paper_set(int(sys.argv[1]))
fed_calls = []
fed = gpu_solver.GpuSolver._fed
gpu_solver.GpuSolver._fed = lambda self, *a: (fed_calls.append(1), fed(self, *a))[1]
t = time.perf_counter()
got = gpu_solver.GpuSolver(tuning=Tuning(feed_shares=FED_SHARES)).solve_many(cases, traceback=False)
first = time.perf_counter() - t
want = gpu_solver.GpuSolver(tuning=Tuning(feed_shares=())).solve_many(cases, traceback=False)
same = all(g.score == w.score and (g.last_row_scores == w.last_row_scores).all() for g, w in zip(got, want))
print(json.dumps({"first_ms": first * 1e3, "fed": len(fed_calls), "same": same}))
"""


def copy_of(src: Path, into: Path) -> Path:
    """``src`` copied without any cache or bytecode."""
    shutil.copytree(src, into, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "*.pyc"))
    return into


def env(src: Path) -> dict:
    """A process's environment with the package from ``src`` and numba's cache beside it."""
    return dict(os.environ, PYTHONPATH=str(src), NUMBA_CACHE_DIR=str(src.parent / "numba_cache"))


def probe(src: Path, seed: int, log) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, str(seed)], env=env(src), capture_output=True, text=True)
    log.write(done.stdout + done.stderr)
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("device_out"))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    seed = int(time.time()) % 10_000 + 17
    rows = []
    with tempfile.TemporaryDirectory() as tmp, open(args.out / "fresh.log", "w") as log:
        bare = copy_of(SRC, Path(tmp) / "bare" / "src")
        rows.append(("fed call, empty cache, no install step", probe(bare, seed, log)))
        installed = copy_of(SRC, Path(tmp) / "installed" / "src")
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "splicedalign.kernels", "host", "--no-libraries"],
                              env=env(installed), capture_output=True, text=True)
        log.write(done.stdout + done.stderr)
        rows.append((f"install step (rc {done.returncode})", {"first_ms": (time.perf_counter() - t) * 1e3}))
        rows.append(("fed call after the install step", probe(installed, seed + 1, log)))
        rows.append(("again, another fresh process", probe(installed, seed + 2, log)))
    print(f"fresh numba cache, fed launches (paper sets of seeds {seed}..{seed + 2}):")
    failed = False
    for name, got in rows:
        failed |= "error" in got or got.get("same") is False or got.get("fed") == 0
        print(f"  {name:<42} " + ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                                             for k, v in got.items()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
