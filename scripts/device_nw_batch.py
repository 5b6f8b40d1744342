"""Device check of `gpu` batches (workloads/nw/gpu/batch.py, the WFA's batch launch) in one call
on the device machine:

1. pytest: the GPU tests of the batch, the wavefront kernel and single pairs (their CPU-model
   tests run without a GPU).
2. Fresh random batches (seed printed) of every mode x cost model against `multicore` (also as a
   PairBatch of letters): scores equal, every CIGAR re-scored over its region; the pairs no band
   takes go to `multicore` here (the band path is what is checked), and how many did is printed.
3. The issue-26 batch: --pairs pairs of ~--length letters at --divergence % (synthetic.divergent_pair)
   with CIGAR, linear 0/1/3 and affine 4/6/2 (--costs), in --modes, `gpu` host to host
   (solve_pairs; median of --repeats after a warm-up on the whole batch) against pywfa on every core by processes
   (same inputs, scores equal; global mode); the time per phase and the band classes.
   The linear global batch also as the user meets it in-process: a PairBatch (one buffer of
   letters in pinned memory) made beforehand; made from the user's strings inside the timing;
   and that with every Result read (its CIGAR included).
4. The linear global batch with the WFA's threads a block varied; the host's pieces alone.
5. --cli N: `nw --pairs FILE --solver gpu --format paf` in a fresh process, beside pywfa on every
   core in a fresh process on the same file (benchmarks/pywfa_pairs.py: our reader, a process
   pool, score and CIGAR of each pair written as TSV); median wall of N after one warm-up each.
A table last. Logs under $OUT when it is set.

    python scripts/device_nw_batch.py [--pairs 2000] [--fresh 60] [--modes global] [--skip-pytest] [--cli 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from splicedalign.core import strmem
from splicedalign.core.errors import SolverUnavailable
from splicedalign.core.timing import time_repeats
from splicedalign.gpu import device
from splicedalign.workloads.nw import batch_copy
from splicedalign.workloads.nw.batches import PairBatch
from splicedalign.workloads.nw.cpu import MulticoreSolver
from splicedalign.workloads.nw.gpu import common, wfa
from splicedalign.workloads.nw.gpu.batch import BatchSolver
from splicedalign.workloads.nw.gpu.solver import GpuSolver
from splicedalign.workloads.nw.peers import A_LETTERS, B_LETTERS, letters, pywfa_model, pywfa_score
from splicedalign.workloads.nw.records import MODES, Costs, cigar_cost
from splicedalign.workloads.nw.solvers import solve_pairs
from splicedalign.workloads.nw.synthetic import ISSUE26_COSTS, divergent_pair, random_batch

ROOT = Path(__file__).resolve().parents[1]
COSTS = {**ISSUE26_COSTS, "bonus": Costs(-1, 2, 3, 2)}
ROWS: list[tuple] = []


def say(*parts) -> None:
    print(*parts, flush=True)


def pytest_step() -> int:
    """The GPU tests of the batch and wavefront paths (their CPU-model tests run without a GPU)."""
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                          "tests/test_nw_gpu_batch.py", "tests/test_nw_gpu_wfa.py", "tests/test_nw_gpu.py"], cwd=ROOT,
                         capture_output=True, text=True)
    say(out.stdout[-3000:], out.stderr[-2000:])
    ROWS.append(("pytest batch", "", out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "?", ""))
    return out.returncode


def strings_of(pairs: list) -> tuple[list[str], list[str]]:
    """Each pair's a and b as letters (the user's strings for ``PairBatch.from_strings``)."""
    return [letters(p.a, A_LETTERS) for p in pairs], [letters(p.b, B_LETTERS) for p in pairs]


def correctness(seed: int, count: int, most: int) -> int:
    say(f"# fresh random batches: seed {seed}, {count} pairs of 1..{most} per mode x cost model")
    rng = np.random.default_rng(seed)
    cpu = MulticoreSolver()
    bands = BatchSolver(cpu.solve, poison=True)
    adaptive = GpuSolver(poison=True)  # the WFA kernel for the pairs it takes, bands for the rest
    failures = 0
    for costs_name, costs in COSTS.items():
        for mode in MODES:
            pairs = random_batch(rng, count, most)
            want = cpu.solve_many(pairs, costs, traceback=False, mode=mode)
            got = bands.solve_many(pairs, costs, traceback=True, mode=mode)
            both = adaptive.solve_many(pairs, costs, traceback=True, mode=mode)
            batch = PairBatch.from_strings(*strings_of(pairs), allocate=common.pinned_bytes)
            from_letters = adaptive.solve_many(batch, costs, traceback=True, mode=mode)
            bad = 0
            for p, w, g in [*zip(pairs, want, got), *zip(pairs, want, both), *zip(pairs, want, from_letters)]:
                ok = g.score == w.score
                try:
                    ok = ok and cigar_cost(g.cigar, p.a, p.b, costs, g.start2, g.end2) == w.score
                except ValueError:
                    ok = False
                if not ok:
                    bad += 1
                    if bad <= 3:
                        say(f"FAIL {p.name} n={p.n} m={p.m} {costs_name} {mode}: gpu {g.score} "
                            f"({g.algorithm}) want {w.score}")
            algorithms = {a: sum(r.algorithm == a for r in both) for a in sorted({r.algorithm for r in both})}
            say(f"{costs_name:7s} {mode:7s} failures {bad}/{3 * count} gpu's algorithms {algorithms} "
                f"band classes {bands.stats.get('main')} single {bands.stats.get('single')}")
            failures += bad
    ROWS.append(("fresh random batches", f"seed {seed}", f"{failures} failures",
                 f"{9 * count} pairs x 3 (bands, gpu, gpu from a PairBatch of letters)"))
    return failures


def median_ms(run, repeats: int) -> float:
    """``run()`` once, then its median wall time of ``repeats`` (ms; core.timing.time_repeats), each
    run's result let go inside its timing (as the pieces' figures in the experiment log were taken)."""
    def dropped() -> None:
        run()

    return time_repeats(dropped, repeats)[0].median * 1e3


def host_pieces(pairs: list, repeats: int) -> None:
    """The host's pieces of a batch on this machine, each alone (median ms of --repeats): the
    gather of the pairs' 2 x count arrays (np.concatenate) into pinned and into pageable memory,
    one memcpy of as many bytes, their copy to the device from each, the lengths, the decoding
    of a 5 MB text from pinned memory, 2,000 Results in bulk."""
    cp = device.cupy()
    arrays = [s for p in pairs for s in (p.a, p.b)]
    total = sum(a.size for a in arrays)
    pinned, pageable, flat = device.empty_pinned(total, np.uint8), np.empty(total, np.uint8), np.concatenate(arrays)
    pageable[:] = flat
    dev = cp.empty(total, cp.uint8)
    text = device.empty_pinned(5 << 20, np.uint8)
    text[:] = ord("7")

    def h2d(source):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        dev.set(source)
        stop.record()
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop)

    strings = strings_of(pairs)
    both = [s for pair in zip(*strings) for s in pair]

    def by_string(strings):
        with knobs({(strmem, "STR_OFFSET"): None}):
            return PairBatch.from_strings(*strings, allocate=common.pinned_bytes).letters

    pieces = {
        f"{len(both)} strings into one pinned buffer (PairBatch.from_strings, filled: by address)":
            lambda: PairBatch.from_strings(*strings, allocate=common.pinned_bytes).letters,
        f"{len(both)} strings into one pinned buffer, string by string": lambda: by_string(strings),
        f"{len(both)} strings joined, then encoded": lambda: "".join(both).encode("latin-1"),
        f"gather {len(arrays)} arrays ({total / 1e6:.0f} MB) into pinned": lambda: np.concatenate(arrays, out=pinned),
        "gather into pageable": lambda: np.concatenate(arrays, out=pageable),
        "one memcpy, pageable -> pinned": lambda: np.copyto(pinned, flat),
        "one memcpy, pageable -> pageable": lambda: np.copyto(pageable, flat),
        "copy to the device from pinned (host wall)": lambda: h2d(pinned),
        "copy to the device from pageable (host wall)": lambda: h2d(pageable),
        "lengths of the pairs": lambda: common.lengths(pairs),
        "decode 5 MB of text from pinned memory": lambda: str(memoryview(text), "ascii"),
        "2,000 Results in bulk": lambda: common.results([1] * 2000, [1] * 2000, "gpu", [0.0] * 2000, ["1="] * 2000,
                                                          [0] * 2000, [1] * 2000, "wfa"),
    }
    for name, piece in pieces.items():
        ms = median_ms(piece, repeats)
        say(f"host piece: {name}: {ms:.2f} ms")
        ROWS.append((f"host piece: {name}", f"{ms:.2f}", "", "", ""))


def host_variants(solver: GpuSolver, pairs: list, repeats: int) -> None:
    """The linear global batch again, as a PairBatch in pinned memory (the kernels' span is then
    their own), with the WFA's threads a block (wfa.BATCH_THREADS) varied: median ms, the
    kernels' span, the host's."""
    costs = COSTS["linear"]
    pairs = PairBatch.from_strings(*strings_of(pairs), allocate=common.pinned_bytes)
    pairs.filled(len(pairs))
    for threads in (256, 128, 64):
        with knobs({(wfa, "BATCH_THREADS"): threads}):
            solve_pairs(solver, pairs, costs, True, "global")  # (a first call allocates)
            runs, spans = [], []
            for _ in range(repeats):
                t0 = time.perf_counter()
                solve_pairs(solver, pairs, costs, True, "global")
                runs.append(time.perf_counter() - t0)
                spans.append(solver.wfa.stats.get("kernel_ms", float("nan")))
        ms = statistics.median(runs) * 1e3
        say(f"variant wfa threads {threads}: {ms:.1f} ms (runs "
            f"{[round(x * 1e3, 1) for x in runs]}), kernel span {statistics.median(spans):.1f} ms, stats "
            f"{ {k: v for k, v in solver.wfa.stats.items() if k != 'steps'} }")
        ROWS.append((f"linear global, wfa threads {threads}", f"{ms:.1f}", "", "",
                     f"kernel span {statistics.median(spans):.1f}"))


@contextmanager
def knobs(settings: dict):
    """Module settings (``{(module, name): value}``: ``batch_copy``'s COPY_THREADS, ``wfa``'s
    BATCH_THREADS, ``strmem``'s STR_OFFSET) set while a variant runs, then set back."""
    before = {key: getattr(*key) for key in settings}
    for (module, name), value in settings.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for (module, name), value in before.items():
            setattr(module, name, value)


def copy_probe(pairs: list, repeats: int) -> None:
    """The strings' copy into one pinned buffer alone (batch_copy.copy_pieces, one piece a thread)
    on 1 .. 12 threads, and into pageable memory: median ms and GB/s of --repeats (is the 40 MB
    copy memory-bound on this host?)."""
    from concurrent.futures import ThreadPoolExecutor

    strings = [s for pair in zip(*strings_of(pairs)) for s in pair]
    sizes = np.array([len(s) for s in strings], np.int64)
    addresses = strmem.str_addresses(strings)
    total = int(sizes.sum())
    starts = np.cumsum(sizes) - sizes
    pinned, pageable = device.empty_pinned(total, np.uint8), np.zeros(total, np.uint8)
    pool = ThreadPoolExecutor(12)
    for into, where in ((pinned, "pinned"), (pageable, "pageable")):
        for threads in ((1, 2, 4, 8, 12) if where == "pinned" else (1, 8)):
            # (the whole batch as chunk threads - 1, which piece_rows cuts into min(threads, 2^c) = threads pieces)
            rows = common.piece_rows(sizes, starts, [(0, len(pairs))] * threads, threads)[-threads:]

            def run(into=into, rows=rows, threads=threads):
                done = np.zeros(threads, np.int64)
                list(pool.map(lambda t: batch_copy.copy_pieces(addresses, sizes, into, rows, np.array([t]), done),
                              range(threads)))
            ms = median_ms(run, repeats)
            if bytes(into) != "".join(strings).encode():
                raise SystemExit("copy probe: wrong bytes")
            name = f"copy {total / 1e6:.0f} MB strings -> {where}, {threads} threads"
            say(f"host piece: {name}: {ms:.2f} ms ({total / ms / 1e6:.1f} GB/s)")
            ROWS.append((f"host piece: {name}", f"{ms:.2f}", "", "", f"{total / ms / 1e6:.1f} GB/s"))
    pool.shutdown()


def user_rows(solver: GpuSolver, pairs: list, repeats: int, peer_ms: float | None) -> None:
    """The linear global batch as the user meets it in-process (module docstring, step 3): median
    ms of --repeats after a warm-up, the WFA launch's stats of the median run, the ratio to pywfa's
    median of the same run; every answer checked against the list-of-pairs run's. Variants (an
    A/B in one run) set module knobs (``knobs``; none now: the copies started before the sample
    measured slower in nw-batch7's call 1, the parallel sample then beside the copying threads)."""
    costs = COSTS["linear"]
    strings = strings_of(pairs)
    want = [(r.score, r.cigar) for r in solve_pairs(solver, pairs, costs, True, "global")]
    ready = PairBatch.from_strings(*strings, allocate=common.pinned_bytes)
    ready.filled(len(ready))  # (filled before: sent in one chunk)

    def read_all(results) -> int:
        return sum(len(r.cigar) for r in results)

    def from_strings():
        return solve_pairs(solver, PairBatch.from_strings(*strings, allocate=common.pinned_bytes), costs, True,
                           "global")

    def every_result():
        results = from_strings()
        read_all(results)
        return results

    def made_before():
        return solve_pairs(solver, ready, costs, True, "global")

    def pair_list():
        return solve_pairs(solver, pairs, costs, True, "global")

    variants: dict[str, tuple] = {
        "PairBatch in pinned memory made before": (made_before, {}),
        "from the strings (chunk c copied by 2^c threads, up to 8)": (from_strings, {}),
        "from the strings, every Result and CIGAR read": (every_result, {}),
        "list of Pair (chunk c copied by 2^c threads, up to 8)": (pair_list, {}),
    }
    for name, (run, settings) in variants.items():
        with knobs(settings):
            results = run()
            if [(r.score, r.cigar) for r in results] != want:
                raise SystemExit(f"{name}: answers differ from the list-of-pairs run's")
            runs, stats = [], []
            for _ in range(repeats):
                t0 = time.perf_counter()
                run()
                runs.append(time.perf_counter() - t0)
                stats.append({k: v for k, v in solver.wfa.stats.items() if k != "steps"})
        ms = statistics.median(runs) * 1e3
        st = stats[sorted(range(len(runs)), key=runs.__getitem__)[len(runs) // 2]]
        say(f"user row: {name}: {ms:.1f} ms (runs {[round(x * 1e3, 1) for x in runs]}); wfa stats {st}")
        ROWS.append((f"linear global, {name}", f"{ms:.1f} (min {min(runs) * 1e3:.1f})",
                     f"{peer_ms:.0f}" if peer_ms else "", f"{peer_ms / ms:.1f}x" if peer_ms else "",
                     f"before the launch {st.get('before_ms', 0):.1f} (sample {st.get('sample_ms', 0):.1f}), "
                     f"staged {st.get('staged_ms', 0):.1f}, kernel span {st.get('kernel_ms', 0):.1f}, "
                     f"launch {st.get('ms', 0):.1f}, wfa batch {st.get('batch_ms', 0):.1f}; in the launch: kernels "
                     f"{st.get('kernels_from_ms', 0):.1f}-{st.get('kernels_to_ms', 0):.1f}, answers back "
                     f"{st.get('waited_ms', 0):.1f}, {st.get('chunks', 0)} chunks; host steps {st.get('host_ms')}, "
                     f"staging {st.get('staging_ms')}, chunks sent {st.get('chunks_sent_ms')}"))


def cli_rows(pairs: list, repeats: int) -> None:
    """Step 5: fresh processes on one FASTA file of the batch (module docstring), in rounds (each
    command once a round, the first round a warm-up): the CLI as a user runs it, the same with
    its steps timed (scripts/probe_nw_cli.py), and with the pairs read in-process (no child)."""
    import tempfile

    folder = Path(tempfile.mkdtemp())
    fasta = folder / "pairs.fa"
    with open(fasta, "w") as handle:
        for p in pairs:
            handle.write(f">{p.name}_1\n{letters(p.a, A_LETTERS)}\n>{p.name}_2\n{letters(p.b, B_LETTERS)}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    nw = ["nw", "--pairs", str(fasta), "--solver", "gpu", "--format", "paf", "-o", str(folder / "gpu.paf"), "-q"]
    probe = [sys.executable, str(ROOT / "scripts" / "probe_nw_cli.py")]
    commands = {
        "nw --pairs --solver gpu --format paf": [sys.executable, "-c", "from splicedalign.cli import run; run()", *nw],
        "the same, steps timed": [*probe, *nw],
        "the same, steps timed, read in-process (no child)": [*probe, "--in-process", *nw],
        "the same, steps timed, profiled": [*probe, "--profile", *nw],
        "pywfa on every core (a process pool)": [sys.executable, str(ROOT / "benchmarks" / "pywfa_pairs.py"),
                                                 str(fasta), str(folder / "pywfa.tsv")],
    }
    runs: dict[str, list[float]] = {name: [] for name in commands}
    for k in range(repeats + 1):
        for name, command in commands.items():
            t0 = time.perf_counter()
            done = subprocess.run(command, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - t0
            if done.returncode:
                raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr[-2000:]}")
            if k:
                runs[name].append(wall)
            lines = done.stderr.splitlines()
            steps = [line for line in lines if line.startswith(("steps:", "stats:"))]
            say(f"cli round {k}: {name}: {wall * 1e3:.0f} ms {' '.join(steps)}")
            if k == repeats:
                say("\n".join(line for line in lines if line.startswith("prof:")))
    medians = {name: statistics.median(r) for name, r in runs.items()}
    for name, median in medians.items():
        say(f"cli: {name}: {median * 1e3:.0f} ms (runs {[round(x * 1e3) for x in runs[name]]})")
    ours = [int(line.split("XC:i:")[1].split("\t")[0]) for line in open(folder / "gpu.paf")]
    theirs = [int(line.split("\t")[2]) for line in open(folder / "pywfa.tsv")]
    if ours != theirs or len(ours) != len(pairs):
        raise SystemExit("cli: the gpu's and pywfa's scores differ")
    peer = medians["pywfa on every core (a process pool)"]
    for name in [name for name in commands if name.startswith(("nw ", "the same, steps timed"))]:
        ROWS.append((f"CLI fresh process, {name}, {len(pairs)} pairs (FASTA {fasta.stat().st_size / 1e6:.0f} MB)",
                     f"{medians[name] * 1e3:.0f}", f"{peer * 1e3:.0f}", f"{peer / medians[name]:.1f}x",
                     "scores equal"))


def benchmark(count: int, length: int, divergence: float, repeats: int, modes: list[str],
              costs_names: list[str], cli: int = 0, variants: bool = True) -> None:
    pairs = [divergent_pair(length, divergence, index=k + 1) for k in range(count)]
    cells = sum(p.cells for p in pairs)
    name = f"{count} x {length} at {divergence:g}%"
    solver = GpuSolver()
    workers = os.cpu_count() or 1
    try:
        import pywfa  # noqa: F401
        pool = ProcessPoolExecutor(workers)
    except ImportError:
        pool = None
    for costs_name in costs_names:
        costs = COSTS[costs_name]
        for mode in modes:
            runs, stats = [], []
            try:
                solve_pairs(solver, pairs[:64], costs, True, mode)  # compile the kernels it uses
                if solver.batch.stats.get("single", 0) > 6:  # no band class certifies these: one by one
                    raise SolverUnavailable(f"{solver.batch.stats['single']} of 64 pairs need a wider band "
                                            "than the widest class (the single-pair path: not timed)")
                solve_pairs(solver, pairs, costs, True, mode)  # the first call's allocations (pinned buffers, pool)
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    results = solve_pairs(solver, pairs, costs, True, mode)
                    runs.append(time.perf_counter() - t0)
                    wfa = solver.wfa.stats if solver.wfa is not None else {}
                    stats.append({**solver.batch.stats, **{f"wfa_{k}": v for k, v in wfa.items() if k != "steps"}})
            except SolverUnavailable as exc:  # pairs no band takes, which `solve` refuses
                say(f"{name} {costs_name} {mode}: n/a: {exc}; stats {solver.batch.stats}")
                ROWS.append((f"{name} {costs_name} {mode}", "n/a", "", "", str(exc)[:80]))
                continue
            ms = statistics.median(runs) * 1e3
            st = stats[sorted(range(len(runs)), key=runs.__getitem__)[len(runs) // 2]]  # the median run's
            for p, r in zip(pairs, results):
                if cigar_cost(r.cigar, p.a, p.b, costs, r.start2, r.end2) != r.score:
                    raise SystemExit(f"{p.name}: the CIGAR does not cost the score ({costs_name} {mode})")
            algorithms = {a: sum(r.algorithm == a for r in results) for a in sorted({r.algorithm for r in results})}
            say(f"{name} {costs_name} {mode}: gpu {ms:.1f} ms (min {min(runs) * 1e3:.1f}; runs "
                f"{[round(x * 1e3, 1) for x in runs]}), "
                f"{cells / (ms / 1e3) / 1e9:.0f} GCUPS of the full tables; stats {st}; algorithms {algorithms}")
            peer, ratio = "", ""
            if mode == "global" and pool is not None:
                jobs = [(letters(p.a, A_LETTERS), letters(p.b, B_LETTERS), pywfa_model(costs), True) for p in pairs]
                list(pool.map(pywfa_score, jobs[:workers]))
                peer_runs = []
                for _ in range(repeats if costs_name == "linear" else min(repeats, 3)):  # (affine: ~2.5 s each)
                    t0 = time.perf_counter()
                    got = list(pool.map(pywfa_score, jobs, chunksize=max(1, len(jobs) // (4 * workers))))
                    peer_runs.append(time.perf_counter() - t0)
                if got != [r.score for r in results]:
                    raise SystemExit(f"{name} {costs_name}: pywfa and gpu disagree")
                peer_ms = statistics.median(peer_runs) * 1e3
                peer, ratio = f"{peer_ms:.0f}", f"{peer_ms / ms:.1f}x"
                say(f"  pywfa {workers} processes: {peer_ms:.0f} ms (runs {[round(x * 1e3) for x in peer_runs]})")
            phases = ", ".join(f"{k[:-3]} {st[k]:.1f}" for k in ("upload_ms", "narrow_ms", "pre_ms", "sweep_ms",
                                                              "text_ms", "main_ms", "wfa_staged_ms", "wfa_kernel_ms",
                                                              "wfa_ms") if k in st)
            ROWS.append((f"{name} {costs_name} {mode}", f"{ms:.1f} (min {min(runs) * 1e3:.1f})", peer, ratio,
                         f"classes {st.get('main')}; single {st.get('single')}; {phases}"))
            if costs_name == "linear" and mode == "global":
                user_rows(solver, pairs, repeats, float(peer) if peer else None)
    if pool is not None:
        pool.shutdown()
    if cli:
        cli_rows(pairs, cli)
    if variants:
        if "global" in modes:
            host_variants(solver, pairs, repeats)
        host_pieces(pairs, repeats)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--length", type=int, default=10_000)
    ap.add_argument("--divergence", type=float, default=5.0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--fresh", type=int, default=60, help="pairs per mode x cost model in step 2")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--skip-pytest", action="store_true")
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="modes of the timed batch")
    ap.add_argument("--costs", nargs="+", choices=("linear", "affine"), default=["linear", "affine"],
                    help="cost models of the timed batch")
    ap.add_argument("--cli", type=int, default=0, help="step 5's repeats (0: no CLI rows)")
    ap.add_argument("--skip-variants", action="store_true", help="no threads variants, no host pieces")
    ap.add_argument("--copy-probe", action="store_true", help="the strings' copy alone on 1 .. 12 threads")
    args = ap.parse_args()
    info = device.device_info()
    say(f"# {info['name']} ({info['sms']} SMs, cc {info['cc']}); {os.cpu_count()} CPUs")
    rc = 0 if args.skip_pytest else pytest_step()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    failures = correctness(seed, args.fresh, 3000)
    if args.copy_probe:
        copy_probe([divergent_pair(args.length, args.divergence, index=k + 1) for k in range(args.pairs)], args.repeats)
    benchmark(args.pairs, args.length, args.divergence, args.repeats, args.modes, args.costs, args.cli,
              not args.skip_variants)
    say(f"\n# {info['name']}")
    say("| case | gpu ms | pywfa all cores ms | pywfa / gpu | notes |")
    say("|---|---|---|---|---|")
    for row in ROWS:
        say("| " + " | ".join(map(str, row)) + " |")
    return 1 if rc or failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
