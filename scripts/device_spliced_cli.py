"""Where a fresh ``splicedalign align --manifest`` process spends its time on the GPU host
(issue 22 target 2): import profiles, each start-up step timed alone (no threads), whether the
CUDA driver's start holds the interpreter, and the wall time of fresh processes that order the
set-up differently. Writes logs under OUT, prints a short table last.

    python scripts/device_spliced_cli.py --out $OUT [--seed S] [--rounds 3]
    python scripts/device_spliced_cli.py --out $OUT --profile [--ab OTHER_SRC]

--profile: a fresh gpu align (score, gff3) under cProfile (stats files and their top lines), each
cached numba function's first call (its cache load) in a fresh align, the align's import
profile; with --ab, the CLI rows' wall times interleaved with another tree's ``src`` (e.g.
main's) on the same machine.

Steps of the serial probe (fresh process, nothing on threads): interpreter start to the
first line, numpy, the CLI's modules (parser of ``align``), reading the manifest's cases,
``import cupy``, the CUDA driver and context (cudaGetDeviceCount, cudaMemGetInfo), the solver
module (numba's import), numba's registries (core.jit.start), the solve (with the GPU solver's
own stages) and the output.
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

SERIAL = r"""
import time, sys
t0 = time.perf_counter(); w0 = time.time()
steps = {"interpreter start": w0 - float(sys.argv[1])}
def lap(what, t=[t0]):
    now = time.perf_counter(); steps[what] = now - t[0]; t[0] = now
import numpy; lap("numpy")
import json
from splicedalign.cli import _command, parser
from splicedalign.core.collection import tune_short_process
tune_short_process()
argv = sys.argv[3:]
args = parser(_command(argv)).parse_args(argv)
from splicedalign.workloads.spliced import cli
from splicedalign.workloads.spliced.exons.strand import STRAND_CHOICES, best_per_strand_set
from splicedalign.workloads.spliced.output import FORMATTERS, Solved
from splicedalign.workloads.spliced.records import Scoring
lap("CLI modules")
order = sys.argv[2]
def read():
    global cases
    cases = cli._cases(args, STRAND_CHOICES[args.strand]); lap("reading")
def gpu():
    import cupy; lap("import cupy")
    cupy.cuda.runtime.getDeviceCount(); lap("cudaGetDeviceCount (driver)")
    cupy.cuda.runtime.memGetInfo(); lap("cudaMemGetInfo (context)")
def solver_module():
    from splicedalign.workloads.spliced.solvers import SOLVERS
    import importlib
    importlib.import_module(SOLVERS.entry(args.solver).target.split(":")[0]); lap("solver module (numba import)")
    from splicedalign.core import jit
    jit.start(); lap("numba registries (jit.start)")
for step in order.split(","):
    {"read": read, "gpu": gpu, "solver": solver_module}[step]()
from splicedalign.workloads.spliced.solvers import SOLVERS
solver = SOLVERS.get(args.solver)
scoring = Scoring()
results = solver.solve_many(cases, scoring, traceback=not args.score_only); lap("solve")
solved = [Solved(c, r, s) for c, r, s in best_per_strand_set(cases, results)]
text = FORMATTERS[args.format](solved, scoring); lap("output formatting")
from splicedalign.core.commandline import write_output
write_output(args.output, text); lap("writing")
print(json.dumps({"steps": steps, "stages": getattr(solver, "timing", {}),
                  "total": time.time() - float(sys.argv[1])}))
sys.stdout.flush()
import os; os._exit(0)
"""

# A pure-Python loop timed alone: beside a thread, it slows by what that thread holds the
# interpreter for. Does the driver's start hold it? The loop beside a
# thread that starts the driver and the primary context with ctypes (cuInit,
# cuDevicePrimaryCtxRetain: ctypes lets the interpreter go during a foreign call), then how
# long CuPy's first context call takes after that.
SPIN = r"""
import ctypes, json, sys, threading, time
def spin(n=3_000_000):
    t = time.perf_counter(); x = 0
    for i in range(n): x += i
    return time.perf_counter() - t
out = {"spin alone": spin()}
"""

DRIVER = SPIN + r"""
def drv():
    t = time.perf_counter()
    lib = ctypes.CDLL("libcuda.so.1")
    out["dlopen libcuda"] = time.perf_counter() - t
    assert lib.cuInit(0) == 0
    out["cuInit"] = time.perf_counter() - t
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    assert lib.cuDeviceGet(ctypes.byref(dev), 0) == 0
    assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    out["primary context"] = time.perf_counter() - t
th = threading.Thread(target=drv)
t = time.perf_counter(); th.start()
out["spin beside the driver thread"] = spin()
th.join(); out["driver thread wall"] = time.perf_counter() - t
t = time.perf_counter(); import cupy; out["import cupy"] = time.perf_counter() - t
t = time.perf_counter(); cupy.cuda.runtime.getDeviceCount(); cupy.cuda.runtime.memGetInfo()
out["cupy context calls after it"] = time.perf_counter() - t
print(json.dumps(out))
"""

# CuPy's own start beside a spinning loop: which parts hold the interpreter.
CUPY_GIL = SPIN + r"""
def start():
    t = time.perf_counter(); import cupy; out["import cupy"] = time.perf_counter() - t
    t = time.perf_counter(); cupy.cuda.runtime.getDeviceCount(); cupy.cuda.runtime.memGetInfo()
    out["context"] = time.perf_counter() - t
th = threading.Thread(target=start); t = time.perf_counter(); th.start()
out["spin beside cupy's start"] = spin(); th.join(); out["cupy thread wall"] = time.perf_counter() - t
print(json.dumps(out))
"""


# A fresh align as the console script runs it (cli.run without its os._exit before the stats),
# under cProfile; argv: stats file, then the command line.
PROFILED = r"""
import cProfile, os, sys
stats = sys.argv.pop(1)
pr = cProfile.Profile(); pr.enable()
from splicedalign import cli
cli.set_up_process()
code = cli.main(sys.argv[1:])
pr.disable(); pr.dump_stats(stats)
sys.stdout.flush(); os._exit(code)
"""

# A fresh align with each cached numba function's first call (numba's Dispatcher.compile: a
# cache load when the cache holds it) timed; numba set up first (core.jit), so no forked reading.
LOADS = r"""
import json, os, sys, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from splicedalign.core import jit
jit.start()
import numba.core.dispatcher as nd
loads, compile_ = {}, nd.Dispatcher.compile
def timed(self, sig):
    t = time.perf_counter()
    try:
        return compile_(self, sig)
    finally:
        name = self.py_func.__module__.rsplit(".", 1)[-1] + "." + self.py_func.__qualname__
        loads[name] = loads.get(name, 0.0) + time.perf_counter() - t
nd.Dispatcher.compile = timed
from splicedalign import cli
cli.main(sys.argv[1:])
print(json.dumps({k: round(v * 1000, 1) for k, v in sorted(loads.items(), key=lambda kv: -kv[1])}))
sys.stdout.flush(); os._exit(0)
"""


# The console script, optionally with numba's registries loaded at set-up as core.jit did before
# its cache loads skipped them (argv[1]: "registries", "nowheel": cuBLAS loaded by CuPy's import,
# "envimports": cached code's environments importing their numba modules, or "as is"): an A/B of
# that on one machine.
CONSOLE = r"""
import os, sys
variant = sys.argv.pop(1)
if variant == "registries":
    from splicedalign.core import jit
    start = jit.start
    def refreshing():
        start()
        import numba.np.linalg as linalg
        from numba.core.registry import cpu_target
        def no_blas():
            raise ImportError("not asked at start-up")
        asked, linalg.ensure_blas = linalg.ensure_blas, no_blas
        try:
            cpu_target.target_context.refresh()
            cpu_target.typing_context.refresh()
        finally:
            linalg.ensure_blas = asked
    jit.start = refreshing
elif variant == "nowheel":  # cuBLAS loaded by CuPy's import, not by the driver's thread beforehand
    from splicedalign.gpu import driver
    driver.wheel_libraries = lambda: []
elif variant == "envimports":  # cached code's environments import their numba modules, as numba does
    from splicedalign.core import jit
    jit._environments_without_imports = lambda: None
from splicedalign import cli
cli.run()
"""


# Every module a gpu align imports (this process's, after running one) compiled into the bytecode
# cache Python reads (sys.pycache_prefix when PYTHONPYCACHEPREFIX is set): what an installed
# environment has, written here where the image's interpreter writes none.
COMPILE_IMPORTED = r"""
import importlib.util, os, py_compile, sys
from splicedalign import cli
cli.main(sys.argv[1:])
done = 0
for module in list(sys.modules.values()):
    source = getattr(module, "__file__", None) or ""
    if source.endswith(".py") and os.path.exists(source):
        py_compile.compile(source, cfile=importlib.util.cache_from_source(source), quiet=2)
        done += 1
print(done)
os._exit(0)
"""


def env(**extra: str) -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), *filter(None, [e.get("PYTHONPATH")])])
    e.update(extra)
    return e


def run(cmd: list[str], log: Path | None = None, **extra: str) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env(**extra))
    wall = time.perf_counter() - t
    if log is not None:
        log.write_text(proc.stdout + proc.stderr)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd[:6])}...: exit {proc.returncode}: {proc.stderr[-1500:]}")
    return wall, proc


def importtime(code_or_argv: list[str], log: Path, top: int = 25) -> list[tuple[int, str]]:
    """The modules with the largest cumulative import time (us), written whole to ``log``."""
    _, proc = run([sys.executable, "-X", "importtime", *code_or_argv])
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cum, name = line.split("|")
            try:
                rows.append((int(cum), name.rstrip()))
            except ValueError:
                pass
    log.write_text(proc.stderr)  # in import order: the nesting shows who imports what
    return sorted(rows, reverse=True)[:top]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=7_100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-gpu", action="store_true", help="a dry run on a machine without CuPy (CPU rows only)")
    ap.add_argument("--blas", action="store_true",
                    help="only: the import profile of a gpu align, and NumPy's import and the gpu align with "
                         "OpenBLAS's thread per CPU against the console script's one thread (interleaved)")
    ap.add_argument("--profile", action="store_true", help="only: profiles of a fresh gpu align (see above)")
    ap.add_argument("--ab", help=(
        "with --profile: CLI walls interleaved with, comma-separated: another tree's src (a path), "
        "'registries': with numba's registries loaded at set-up, 'nowheel': cuBLAS loaded by CuPy's import, "
        "not the driver's thread, 'envimports': cached code's environments importing their numba modules, "
        "'libraries': with every imported module's bytecode (a cache), or 'bytecode': without the package's "
        "bytecode and with every imported module's (walls only)"))
    ap.add_argument("--multicore", action="store_true", help="with --profile: the multicore gff3 row too")
    args = ap.parse_args()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(REPO / "src"))
    from splicedalign.workloads.spliced import synthetic
    from splicedalign.workloads.spliced.datasets import write_dataset

    data = Path("/tmp/spliced_cli_probe")
    manifest = write_dataset(synthetic.paper_set(args.seed), data / "paper")
    m = str(manifest)
    cli = [sys.executable, "-m", "splicedalign.cli", "-q", "align", "--manifest", m]
    score = ["--solver", "gpu", "--score-only", "-o", os.devnull]
    gff3 = ["--solver", "gpu", "--format", "gff3", "-o", os.devnull]
    multicore = ["--solver", "multicore", "--format", "gff3", "-o", os.devnull]
    lines: list[str] = [f"seed {args.seed}; {os.cpu_count()} CPUs"]
    if args.blas:
        return blas_rows(cli + score, args.rounds, lines, out)
    if args.profile:
        rows = {"score": score, "gff3": gff3, **({"multicore": multicore} if args.multicore else {})}
        return profile_rows(m, rows, args, lines, out)
    t = time.perf_counter()
    for argv in (multicore,) if args.no_gpu else (gff3, score, multicore):  # numba's cache, kernels (untimed)
        run(cli + argv)
    lines.append(f"warm-ups (caches filled) {time.perf_counter() - t:.1f} s")
    print(lines[-1], flush=True)
    # numba's cache of this host's CPU, for a later call on the same kind of host to carry
    caches = [str(p.relative_to(REPO)) for p in (REPO / "src").rglob("__pycache__/*.nb[ic]")]
    subprocess.run(["tar", "czf", str(out / "numba_cache.tgz"), "-C", str(REPO), *caches], check=False)

    probes = [("multicore gff3", "read,solver", ["--solver", "multicore", "--format", "gff3", "-o", os.devnull])]
    if args.no_gpu:
        serial_rows(probes, m, args.rounds, lines, out)
        return finish(lines, out)

    for what, argv in (("import cupy", ["-c", "import cupy"]),
                       ("align gpu score", ["-m", "splicedalign.cli", "-q", "align", "--manifest", m, *score])):
        top = importtime(argv, out / f"importtime_{what.replace(' ', '_')}.txt")
        lines.append(f"importtime {what}: " + ", ".join(f"{n.strip()} {c / 1e6:.3f}" for c, n in top[:14]))
        print(lines[-1], flush=True)

    for name, code in (("driver", DRIVER), ("cupy_gil", CUPY_GIL)):
        res = [json.loads(run([sys.executable, "-c", code])[1].stdout) for _ in range(2)]
        lines.append(f"{name}: " + json.dumps([{k: round(v, 4) for k, v in r.items()} for r in res]))
        print(lines[-1], flush=True)

    serial_rows([("gpu score", "read,gpu,solver", score), ("gpu score", "gpu,solver,read", score),
                 ("gpu gff3", "read,gpu,solver", gff3), *probes], m, args.rounds, lines, out)

    walls: dict[str, list[float]] = {"cli score": [], "cli gff3": []}
    for _ in range(args.rounds):
        walls["cli score"].append(run(cli + score)[0])
        walls["cli gff3"].append(run(cli + gff3)[0])
    lines.append("CLI as it is: " + ", ".join(f"{k} {statistics.median(v):.3f} (min {min(v):.3f})"
                                             for k, v in walls.items()))
    print(lines[-1], flush=True)
    return finish(lines, out)


def blas_rows(align: list[str], rounds: int, lines: list[str], out: Path) -> int:
    """What OpenBLAS's threads cost a fresh process: ``import numpy`` and a gpu align, with a
    thread per CPU (OPENBLAS_NUM_THREADS = the CPU count, OpenBLAS's default) and with the
    console script's one, interleaved; and the align's import profile (as the console script runs)."""
    run(align)  # kernels and numba's cache loaded once (untimed)
    top = importtime(align[1:], out / "importtime_align_gpu_score.txt")
    lines.append("importtime align gpu score: " + ", ".join(f"{n.strip()} {c / 1e6:.3f}" for c, n in top[:16]))
    per_cpu = {"OPENBLAS_NUM_THREADS": str(os.cpu_count())}
    times: dict[str, list[float]] = {k: [] for k in ("numpy, a thread per CPU", "numpy, one thread",
                                                    "align, a thread per CPU", "align, one thread")}
    numpy = [sys.executable, "-c", "import time; t = time.perf_counter(); import numpy; print(time.perf_counter() - t)"]
    for _ in range(rounds):
        times["numpy, a thread per CPU"].append(float(run(numpy, **per_cpu)[1].stdout))
        times["numpy, one thread"].append(float(run(numpy, OPENBLAS_NUM_THREADS="1")[1].stdout))
        times["align, a thread per CPU"].append(run(align, **per_cpu)[0])
        times["align, one thread"].append(run(align)[0])
    lines.append("OpenBLAS threads (medians, s): "
                 + ", ".join(f"{k} {statistics.median(v):.3f}" for k, v in times.items()))
    return finish(lines, out)


def profile_rows(m: str, rows: dict[str, list[str]], args: argparse.Namespace, lines: list[str], out: Path) -> int:
    """--profile: cProfile and numba's first calls of fresh gpu aligns, the import profile, and
    with --ab the CLI rows' walls interleaved with another tree's."""
    import pstats

    this = str(REPO / "src")
    console = [sys.executable, "-c", CONSOLE]
    variants = {"this": (this, "as is")}  # name: (src, CONSOLE variant)
    extra: dict[str, dict[str, str]] = {}  # a variant's environment
    abs_ = [ab for ab in (args.ab or "").split(",") if ab]
    for ab in abs_:
        if ab in ("registries", "nowheel", "envimports"):
            variants[ab] = (this, ab)
        elif ab == "bytecode":  # no bytecode of splicedalign (a cache with none), and of everything imported
            none = tempfile.mkdtemp(prefix="pyc_none_")
            variants["no package bytecode"] = (this, "as is")
            extra["no package bytecode"] = {"PYTHONPYCACHEPREFIX": none}
        elif ab != "libraries":
            variants["other"] = (str(Path(ab).resolve()), "as is")
        if ab in ("bytecode", "libraries"):
            variants["all bytecode"] = (this, "as is")
            extra["all bytecode"] = {"PYTHONPYCACHEPREFIX": tempfile.mkdtemp(prefix="pyc_every_")}
    align = [sys.executable, "-m", "splicedalign.cli", "-q", "align", "--manifest", m]
    t = time.perf_counter()
    for src in {v[0] for v in variants.values()}:
        for argv in rows.values():
            run(align + argv, PYTHONPATH=src)  # numba's cache, CuPy's kernels (untimed)
    if "all bytecode" in extra:
        for argv in rows.values():
            done = run([sys.executable, "-c", COMPILE_IMPORTED, "-q", "align", "--manifest", m, *argv],
                       **extra["all bytecode"])[1].stdout.strip()
        lines.append(f"bytecode of the {done} modules a gpu align imports written to a cache")
    same = []  # each variant's outputs (score json, gff3) against this tree's as is
    for name, (src, variant) in variants.items():
        for row, argv in rows.items():
            if row == "multicore":
                continue
            path = out / f"out_{row}_{name.replace(' ', '_')}"
            run(console[:3] + [variant] + align[3:] + argv[:-1] + [str(path)], PYTHONPATH=src, **extra.get(name, {}))
            if not (path.exists() and _answers(path) == _answers(out / f"out_{row}_this")):
                same.append(f"{row} [{name}]")
    lines.append(f"outputs (score json, gff3) of every variant identical to this tree's: {not same} {same}")
    print(lines[-1], flush=True)
    writes = run([sys.executable, "-c", "import sys; print(sys.flags.dont_write_bytecode, sys.pycache_prefix)"])
    lines.append(f"warm-ups {time.perf_counter() - t:.1f} s; dont_write_bytecode, pycache_prefix: "
                 f"{writes[1].stdout.strip()}")
    print(lines[-1], flush=True)
    for what in ("score", "gff3") if "bytecode" not in abs_ else ():
        stats = out / f"cprofile_gpu_{what}.pstats"
        run([sys.executable, "-c", PROFILED, str(stats), "-q", "align", "--manifest", m, *rows[what]])
        text = out / f"cprofile_gpu_{what}.txt"
        with text.open("w") as f:
            p = pstats.Stats(str(stats), stream=f)
            p.sort_stats("cumulative").print_stats(80)
            p.sort_stats("tottime").print_stats(50)
        lines.append(f"cprofile gpu {what}: {text.name}")
        loads = json.loads(run([sys.executable, "-c", LOADS, "-q", "align", "--manifest", m,
                                *rows[what]])[1].stdout.strip().splitlines()[-1])
        lines.append(f"numba first calls, gpu {what} (ms, sum {sum(loads.values()):.0f}): {json.dumps(loads)}")
        print(lines[-1], flush=True)
    if "bytecode" not in abs_:
        top = importtime(align[1:] + rows["score"], out / "importtime_align_gpu_score.txt")
        lines.append("importtime align gpu score: " + ", ".join(f"{n.strip()} {c / 1e6:.3f}" for c, n in top[:16]))
    walls: dict[str, list[float]] = {f"{row} [{name}]": [] for row in rows for name in variants}
    for _ in range(args.rounds):
        for row, argv in rows.items():
            for name, (src, variant) in variants.items():
                walls[f"{row} [{name}]"].append(run(console[:3] + [variant] + align[3:] + argv, PYTHONPATH=src,
                                                    **extra.get(name, {}))[0])
    lines.append("CLI walls (s, median/min, interleaved): " + ", ".join(
        f"{k} {statistics.median(v):.3f}/{min(v):.3f}" for k, v in walls.items()))
    (out / "walls.json").write_text(json.dumps(walls, indent=1))
    return finish(lines, out)


def _answers(path: Path) -> object:
    """An align's output without its timings (json: seconds*, mcups* and *_ms dropped; other formats whole)."""
    text = path.read_text()
    if not text.startswith("["):
        return text
    timing = {k for rec in json.loads(text) for k in rec if "seconds" in k or "mcups" in k or k.endswith("_ms")}
    return [{k: v for k, v in rec.items() if k not in timing} for rec in json.loads(text)]


def finish(lines: list[str], out: Path) -> int:
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n# summary\n" + "\n".join(lines))
    return 0


def serial_rows(probes, m: str, rounds: int, lines: list[str], out: Path) -> None:
    """Each probe (what, step order, align flags): fresh processes running the steps one by one."""
    serial = {}
    for what, order, argv in probes:
        key = f"{what} [{order}]"
        runs = serial[key] = [json.loads(run([sys.executable, "-c", SERIAL, repr(time.time()), order, "align",
                                              "--manifest", m, *argv])[1].stdout) for _ in range(rounds)]
        med = {k: statistics.median(r["steps"][k] for r in runs) for k in runs[0]["steps"]}
        stages = {k: round(statistics.median(r["stages"].get(k, 0) for r in runs), 4) for k in runs[0]["stages"]}
        lines.append(f"serial {key} (medians of {rounds}): total {statistics.median(r['total'] for r in runs):.3f}; "
                     + ", ".join(f"{k} {v:.3f}" for k, v in med.items())
                     + (f"; solver stages {stages}" if stages else ""))
        print(lines[-1], flush=True)
    (out / "serial.json").write_text(json.dumps(serial, indent=1))


if __name__ == "__main__":
    sys.exit(main())
