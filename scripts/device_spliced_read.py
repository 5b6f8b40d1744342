"""Where a fresh process's reading of a paper-shaped manifest goes on the GPU host (issue 22
target 2, the reading row of ``benchmarks/spliced_cold.py``): the host's cost of each kind of
system call on files in its temporary folder, of a page fault, then the reading probe itself
(``cli._cases`` in a fresh process, as spliced_cold's READ_PROBE) with its CPU time, system
time, page faults and each reading step, for one or more source trees interleaved (A/B on the
same machine). Prints a short table last.

    python scripts/device_spliced_read.py [--seed S] [--rounds 5] [--src DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# per-call cost of the system calls a reading makes, on small files of the temporary folder
SYSCALLS = r"""
import json, os, sys, time
folder = sys.argv[1]
names = [os.path.join(folder, f"f{i}.fa") for i in range(1000)]
data = b">x\n" + b"ACGT" * 2000 + b"\n"
for n in names:
    with open(n, "wb") as h:
        h.write(data)
out = {}
def per(label, f, reps=1):
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        for n in names:
            f(n)
        best = min(best, time.perf_counter() - t)
    out[label] = best / len(names) * 1e6
per("getppid (us)", lambda n: os.getppid())
def oc(n):
    os.close(os.open(n, os.O_RDONLY))
per("open+close (us)", oc)
fds = [os.open(n, os.O_RDONLY) for n in names]
t = time.perf_counter()
for fd in fds:
    os.fstat(fd)
out["fstat (us)"] = (time.perf_counter() - t) / len(fds) * 1e6
t = time.perf_counter()
for fd in fds:
    os.read(fd, 1 << 16)
out["read 8 KB (us)"] = (time.perf_counter() - t) / len(fds) * 1e6
buf = bytearray(1 << 16)
for fd in fds:
    os.lseek(fd, 0, 0)
t = time.perf_counter()
for fd in fds:
    os.readv(fd, [buf])
out["readv 8 KB into a buffer (us)"] = (time.perf_counter() - t) / len(fds) * 1e6
for fd in fds:
    os.close(fd)
per("stat (us)", os.stat)
t = time.perf_counter()
with os.scandir(folder) as it:
    listing = {e.name: e.is_file() for e in it}
out["scandir of 1000 (ms)"] = (time.perf_counter() - t) * 1e3
# page faults: a fresh 64 MB filled, against the same memory filled again
import numpy as np
t = time.perf_counter()
a = np.empty(64 << 20, np.uint8); a.fill(1)
first = time.perf_counter() - t
t = time.perf_counter()
a.fill(2)
again = time.perf_counter() - t
out["page fault (us, 4 KB)"] = (first - again) / ((64 << 20) / 4096) * 1e6
out["fill 64 MB touched (ms)"] = again * 1e3
print(json.dumps(out))
"""

# the reading row's probe (spliced_cold READ_PROBE) with its steps and the process's counts
PROBE = r"""
import argparse, collections, json, resource, sys, time
if "bare" not in sys.argv[2]:  # as the console script (BLAS threads), spliced_cold's READ_PROBE
    from splicedalign.cli import set_up_process
    set_up_process()
from splicedalign.core.collection import tune_short_process
from splicedalign.workloads.spliced import cli, load
from splicedalign.core import seqio
tune_short_process()  # as the CLI
steps = collections.Counter()
def timed(mod, name, label):
    f = getattr(mod, name)
    def w(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            steps[label] += time.perf_counter() - t
    setattr(mod, name, w)
if sys.argv[2] == "steps":
    timed(cli, "manifest_rows" if hasattr(cli, "manifest_rows") else "read_manifest", "manifest")
    timed(load, "read_exons", "exon tables")
    timed(load, "read_single_fasta", "bases")
    timed(load, "read_fasta", "targets")
    timed(seqio, "read_bytes", "of them: file bytes")
args = argparse.Namespace(manifest=sys.argv[1], base=None, exons=None, target=None)
r0 = resource.getrusage(resource.RUSAGE_SELF)
t = time.perf_counter()
if sys.argv[2].startswith("threads"):  # a prototype: every file's bytes read on k threads first
    import os, threading
    from splicedalign.workloads.spliced.datasets import read_manifest
    entries = read_manifest(sys.argv[1])
    files = list(dict.fromkeys(str(p) for e in entries for p in (e.base, e.exons, e.target)))
    got, k = {}, int(sys.argv[2][7:])
    def part(names):
        for n in names:
            fd = os.open(n, os.O_RDONLY)
            try:
                got[n] = os.read(fd, os.fstat(fd).st_size)
            finally:
                os.close(fd)
    threads = [threading.Thread(target=part, args=(files[i::k],)) for i in range(k)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    plain = seqio.read_bytes
    seqio.read_bytes = lambda p: got.get(str(p)) or plain(p)
cases = cli._cases(args, ("+", "-"))
wall = time.perf_counter() - t
r1 = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": wall, "user": r1.ru_utime - r0.ru_utime, "system": r1.ru_stime - r0.ru_stime,
                  "minor faults": r1.ru_minflt - r0.ru_minflt, "cases": len(cases),
                  "steps": {k: round(v * 1e3, 2) for k, v in steps.items()}}))
"""

# the CLI's solver set-up for the gpu solver, step by step (after the CLI's own imports)
SETUP = r"""
import json, time
from splicedalign.workloads.spliced import cli
t = time.perf_counter(); import numba; a = time.perf_counter()
from splicedalign.core import jit
jit.start(); b = time.perf_counter()
import splicedalign.workloads.spliced.gpu.solver; c = time.perf_counter()
print(json.dumps({"numba import": a - t, "jit.start": b - a, "gpu solver module": c - b}))
"""

# which CUDA libraries CuPy's import loads, and what loading NVRTC and a first pinned buffer cost after it
NVRTC = r"""
import json, time
def libs():
    with open("/proc/self/maps") as f:
        return sorted({line.split()[-1].rsplit("/", 1)[-1] for line in f if ".so" in line and "/" in line
                       and any(k in line for k in ("nvrtc", "cublas", "cudart", "nvJit", "curand", "cusparse"))})
t = time.perf_counter(); import cupy; cupy.cuda.runtime.getDeviceCount(); out = {"import cupy": time.perf_counter() - t}
out["after import"] = libs()
t = time.perf_counter(); v = cupy.cuda.nvrtc.getVersion(); out["nvrtc getVersion"] = time.perf_counter() - t
out["after nvrtc"] = libs()
t = time.perf_counter(); m = cupy.cuda.alloc_pinned_memory(1 << 24); out["pinned 16 MB"] = time.perf_counter() - t
t = time.perf_counter(); m2 = cupy.cuda.alloc_pinned_memory(1 << 25); out["pinned 32 MB more"] = time.perf_counter() - t
print(json.dumps(out))
"""


def python(code: str, *argv: str, src: str | None = None) -> dict:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env)
    if proc.returncode:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=int(time.time()) % 1_000_000 * 100)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--src", action="append", help="source trees to compare (default: this one's)")
    ap.add_argument("--threads", type=int, nargs="*", default=[],
                    help="also the first tree with every file's bytes read on that many threads first")
    ap.add_argument("--bare", action="store_true",
                    help="also each tree's probe without the console script's set-up (NumPy's BLAS threads)")
    ap.add_argument("--setup", action="store_true", help="also the gpu solver's set-up steps")
    args = ap.parse_args()
    srcs = args.src or [str(REPO / "src")]
    sys.path.insert(0, srcs[0])
    sys.path.insert(0, str(REPO / "benchmarks"))
    from spliced_cold import input_bytes

    from splicedalign.workloads.spliced import synthetic
    from splicedalign.workloads.spliced.datasets import write_dataset

    data = Path(tempfile.mkdtemp(prefix="spliced_read_"))
    print(f"# seed {args.seed}; {os.cpu_count()} CPUs; data in {data}; python {sys.version.split()[0]}", flush=True)
    calls = data / "calls"
    calls.mkdir()
    print("system calls:", json.dumps({k: round(v, 2) for k, v in python(SYSCALLS, str(calls)).items()}), flush=True)
    manifest = write_dataset(synthetic.paper_set(args.seed + 100, 240), data / "paper")
    mb = input_bytes(manifest) / 1e6
    runs: dict[str, list[dict]] = {s: [] for s in srcs}
    for r in range(args.rounds):
        for s in srcs if r % 2 == 0 else srcs[::-1]:
            runs[s].append(python(PROBE, str(manifest), "plain", src=s))
            if args.bare:
                runs.setdefault(f"{s} bare", []).append(python(PROBE, str(manifest), "plain bare", src=s))
    for k in args.threads:
        runs[f"{srcs[0]} threads {k}"] = [python(PROBE, str(manifest), f"threads{k}", src=srcs[0])
                                          for _ in range(args.rounds)]
    if args.setup:
        try:
            print("cupy/nvrtc:", json.dumps([python(NVRTC) for _ in range(2)]), flush=True)
        except RuntimeError as exc:
            print("cupy/nvrtc probe failed:", str(exc)[-300:], flush=True)
        for s in srcs:
            print(f"solver set-up {s}:", json.dumps([python(SETUP, src=s) for _ in range(3)]), flush=True)
    for s in srcs:
        steps = [python(PROBE, str(manifest), "steps", src=s) for _ in range(2)]
        print(f"steps {s}:", json.dumps(steps), flush=True)
    print(f"\nreading {mb:.1f} MB, fresh processes, medians of {args.rounds} (interleaved)")
    print(f"{'tree':40s} {'wall s':>7s} {'MB/s':>6s} {'user s':>7s} {'sys s':>7s} {'faults':>7s}")
    for s in runs:
        med = {k: statistics.median(x[k] for x in runs[s]) for k in ("wall", "user", "system", "minor faults")}
        print(f"{s[-40:]:40s} {med['wall']:7.3f} {mb / med['wall']:6.0f} {med['user']:7.3f} {med['system']:7.3f}"
              f" {med['minor faults']:7.0f}  walls {[round(x['wall'], 3) for x in runs[s]]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
