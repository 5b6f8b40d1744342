"""What a user sees while ``align`` runs and what it reads (no GPU needed): progress lines on
long runs (silenced by -q), a file's warnings said once, synthetic sets without duplicate
intervals, each base and exon table read once per manifest, FASTA read by whole-text byte
operations exactly as line by line, seconds without kernel loading, no heavy module imported
by a CPU align (nor SciPy by numba's set-up, core.jit), a command's own workload imported only,
and the GPU solver's numba host code compiled by the build step (kernels.compile_host_code)."""

from __future__ import annotations

import ctypes
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest
from helpers import console, run_cli

from splicedalign.core import loading, logs
from splicedalign.core.errors import InputError
from splicedalign.core.seqio import parse_fasta
from splicedalign.workloads.spliced import load, synthetic
from splicedalign.workloads.spliced.datasets import write_dataset, write_synthetic


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_synthetic("tiny", tmp_path_factory.mktemp("tiny"))


class Clock:
    """A perf_counter that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_progress_says_cases_rate_and_eta(caplog, monkeypatch):
    monkeypatch.setattr(logs.time, "perf_counter", Clock(1.5))
    caplog.set_level(logging.INFO, logger="splicedalign")
    p = logs.Progress("align [x]", total_cells=4_000_000_000, total_items=10)  # start at 1.5 s
    p.update(1_000_000_000, done_items=3)  # 3.0 s: 1.5 s in, below the 2 s delay: nothing
    p.update(2_000_000_000, done_items=5)  # 4.5 s: 3 s in: the first line
    p.update(3_000_000_000, done_items=8)  # 6.0 s: 1.5 s after it, within the interval: nothing
    p.finish()
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["align [x]: 5/10 cases, 50.0% of 4e+09 cells, 0.667 GCUPS, ETA 3s",
                     "align [x]: done, 10/10 cases, 100.0% of 4e+09 cells, 0.667 GCUPS in 6s"]


def test_short_run_says_nothing(caplog):
    caplog.set_level(logging.INFO, logger="splicedalign")
    p = logs.Progress("quick", 100, 2)
    p.update(50, done_items=1)
    p.finish()
    assert caplog.records == []


def test_durations():
    assert [logs.duration(s) for s in (0.4, 59, 61, 3599, 3600, 7500)] == ["0s", "59s", "1m01s", "59m59s",
                                                                          "1h00m", "2h05m"]


def test_align_progress_on_stderr_silenced_by_q(tiny, monkeypatch):
    # every clock reading 3 s later: each case a "long" run's step
    monkeypatch.setattr(logs.time, "perf_counter", Clock(3.0))
    for solver in ("sequential", "multicore"):
        code, out, err = run_cli("align", "--manifest", str(tiny), "--solver", solver, "--score-only")
        assert code == 0, err
        progress = [line for line in err.splitlines() if line.startswith(f"splicedalign: align [{solver}]: ")]
        assert progress and "/8 cases" in progress[0] and "GCUPS" in progress[0]
        # multicore's poller may first look when its worker thread has finished all 8 (a loaded
        # machine): a line of the whole run has no ETA by design; any earlier line must have one
        head = f"splicedalign: align [{solver}]: 8/8 cases"
        assert "ETA" in progress[0] or (solver == "multicore" and progress[0].startswith(head)), progress[0]
        assert "done, 8/8 cases" in progress[-1]
        code, out, err = run_cli("-q", "align", "--manifest", str(tiny), "--solver", solver, "--score-only")
        assert code == 0 and err == "", err


def test_multicore_on_one_thread_says_its_progress(tiny, monkeypatch):
    """`multicore` where numba has one thread (a 1-CPU machine, NUMBA_NUM_THREADS=1) runs its cases one
    after another: its progress line and its final line as on more threads. Before: no line at all
    (the loop went round the base class's progress)."""
    from splicedalign.workloads.spliced import cpu

    monkeypatch.setattr(logs.time, "perf_counter", Clock(3.0))
    monkeypatch.setattr(cpu.numba, "get_num_threads", lambda: 1)
    code, out, err = run_cli("align", "--manifest", str(tiny), "--solver", "multicore", "--score-only")
    assert code == 0, err
    progress = [line for line in err.splitlines() if line.startswith("splicedalign: align [multicore]: ")]
    assert progress and "/8 cases" in progress[0] and "ETA" in progress[0], err
    assert "done, 8/8 cases" in progress[-1]


def test_duplicate_warning_once_per_file(tmp_path):
    cases = synthetic.tiny_set(bases=1)  # one base, two targets: two cases share the exon table
    root = write_dataset(cases, tmp_path).parent
    table = root / "exons" / "tiny00.tsv"
    lines = table.read_text().splitlines()
    table.write_text("\n".join(lines + lines[1:3]) + "\n")  # two rows repeated
    code, out, err = run_cli("-q", "align", "--manifest", str(root / "cases.tsv"), "--score-only")
    assert code == 0
    assert err.splitlines() == [f"splicedalign: {table}: 2 duplicate exon interval(s) kept "
                                "(they cannot change the score)"]
    assert len(json.loads(out)) == 2


def test_duplicate_warning_once_from_the_reading_process(tmp_path):
    """A fresh ``python -m splicedalign.cli`` reads a manifest in a forked child (core.forked):
    its warning is said once by the parent, with the same output as an in-process align."""
    cases = synthetic.tiny_set(bases=2)
    root = write_dataset(cases, tmp_path).parent
    table = root / "exons" / "tiny00.tsv"
    lines = table.read_text().splitlines()
    table.write_text("\n".join(lines + lines[1:3]) + "\n")
    argv = ["align", "--manifest", str(root / "cases.tsv"), "--score-only", "--solver", "reference"]
    proc = subprocess.run([sys.executable, "-m", "splicedalign.cli", "-q", *argv], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [f"splicedalign: {table}: 2 duplicate exon interval(s) kept "
                                        "(they cannot change the score)"]
    code, out, _ = run_cli("-q", *argv)

    def kept(text):
        return [{k: v for k, v in r.items() if not k.startswith("seconds") and k != "mcups"} for r in json.loads(text)]

    assert code == 0 and kept(proc.stdout) == kept(out) and len(kept(out)) == 4


def test_forked_call_hands_back_its_result_error_and_log_records(caplog, monkeypatch):
    """core.forked: the child's result, its exception (an InputError keeps its fields) and its
    log records, said by the parent in order; in another process unless other threads run, and
    only where the console script enabled it."""
    from splicedalign.core import forked

    assert forked.start(os.getpid)() == os.getpid()  # not enabled: in-process (main() called here)
    monkeypatch.setattr(forked, "ENABLED", True)
    assert forked.start(os.getpid)() != os.getpid() or threading.active_count() > 1

    def talk():
        log = logging.getLogger("splicedalign.forked_test")
        log.warning("one %d", 1)
        log.info("two")
        return [1, "a"]

    with caplog.at_level(logging.INFO, logger="splicedalign"):
        assert forked.start(talk)() == [1, "a"]
    assert [r.getMessage() for r in caplog.records if r.name == "splicedalign.forked_test"] == ["one 1", "two"]
    big = forked.start(lambda: [b"x" * 9_000_000, "y" * 3_000_000])  # written whole while this process goes on
    assert big() == [b"x" * 9_000_000, "y" * 3_000_000]
    with monkeypatch.context() as m:  # no memfd: a temporary file carries the answer
        m.delattr(forked.os, "memfd_create", raising=False)
        assert forked.start(talk)() == [1, "a"]

    def bad():
        raise InputError("x.tsv", "bad row", "3")

    with pytest.raises(InputError) as err:
        forked.start(bad)()
    assert (err.value.source, err.value.where, err.value.problem, str(err.value)) == \
        ("x.tsv", "3", "bad row", "x.tsv:3: bad row")
    parent = os.getpid()

    def dies_in_the_child():
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return "here"

    assert forked.start(dies_in_the_child)() == "here"  # no answer: run in this process
    # a child killed while it writes (part of an answer in the pipe): run in this process too
    with monkeypatch.context() as m:
        m.setattr(forked.pickle, "dumps", lambda obj, protocol=None: b"\x80\x05\x95\x10")
        m.setattr(forked.os, "_exit", lambda code: os.kill(os.getpid(), signal.SIGKILL))
        assert forked.start(lambda: "there" if os.getpid() != parent else "here")() == "here"
    waits = []
    other = threading.Thread(target=lambda: waits.append(forked.start(os.getpid)))
    blocker = threading.Event()
    holder = threading.Thread(target=blocker.wait)
    holder.start()
    other.start()
    other.join()
    blocker.set()
    holder.join()
    assert waits[0]() == os.getpid()  # another thread ran: no fork, the call runs here


@pytest.mark.parametrize("seed", [2012, 5])
def test_synthetic_paper_set_has_no_duplicate_intervals(seed):
    for case in synthetic.paper_set(seed, bases=40):
        intervals = [(e.first, e.last) for e in case.exons]
        assert len(set(intervals)) == len(intervals), (seed, case.name)
        true = [(e.first, e.last) for e in case.exons if e.attrs["true"]]
        assert sorted(true) == sorted(case.meta["true_exons"])  # true exons never moved


def test_distinct_moves_only_repeats():
    taken = {(10, 20)}
    out = synthetic._distinct([(10, 20), (5, 8), (5, 8), (10, 21)], taken, m=100, lo=1, hi=50)
    assert out == [(10, 21), (5, 8), (5, 9), (10, 22)]
    assert synthetic._distinct([(1, 1), (1, 1)], set(), m=1, lo=1, hi=1) == [(1, 1), (1, 1)]  # no room: kept


def test_synthetic_set_aligns_quietly(tiny):
    proc = console("-q", "align", "--manifest", str(tiny), "--solver", "reference", "--score-only")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert len(json.loads(proc.stdout)) == 8


def test_manifest_reads_each_base_once(tiny, monkeypatch):
    reads = []
    real = load.read_single_fasta
    monkeypatch.setattr(load, "read_single_fasta", lambda path, *a: reads.append(str(path)) or real(path, *a))
    code, out, err = run_cli("-q", "align", "--manifest", str(tiny), "--score-only", "--solver", "reference")
    assert code == 0, err
    assert len(reads) == 4 and len(set(reads)) == 4  # 4 bases, 8 cases


def _line_by_line(text: str) -> list[tuple[str, str, str]]:
    """FASTA the obvious way (lines stripped, ';' comments, spaces dropped): the reference."""
    records, header, seq = [], None, []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith(">"):
            if header is not None:
                records.append(header + ("".join(seq),))
            text_ = line[1:].strip()
            header, seq = (text_.split()[0] if text_.split() else "", text_), []
        else:
            seq.append("".join(line.split()))
    if header is not None:
        records.append(header + ("".join(seq),))
    return records


@pytest.mark.parametrize("text", [
    ">a desc\nACGT\nAC\n>b\nNNNN\n", ">a\r\nAC GT\r\n  TT\r\n;comment\r\n>b\r\nnn\r\n",
    "  >a\n  ACGT  \n\t>b x\nAC\n", ">a\nACGT", "\n\n>a\nA\n\n>b x>y;z\nC\n", ";top\n>a\nAC\n", "> a b\nAC\n",
])
def test_fasta_as_read_line_by_line(text):
    got = [(r.id, r.description, r.seq) for r in parse_fasta(text.encode(), "x")]
    assert got == _line_by_line(text)


def test_fasta_random_layouts():
    seed = 20261125
    rng = np.random.default_rng(seed)
    for _ in range(200):
        parts = []
        for r in range(int(rng.integers(1, 5))):
            parts.append(rng.choice(["", " ", "\t"]) + f">r{r} d{r}" + rng.choice(["\n", "\r\n"]))
            for _ in range(int(rng.integers(1, 5))):
                letters = "ACGTNacgt" if rng.random() < 0.7 else "ACGTNacgtRYsw"  # ambiguity codes: the checked path
                line = "".join(rng.choice(list(letters), int(rng.integers(1, 30))))
                parts.append(rng.choice(["", " "]) + line + rng.choice(["\n", "\r\n", " \n"]))
                if rng.random() < 0.2:
                    parts.append(rng.choice(["\n", ";c\n", "  \n"]))
        text = "".join(parts)
        got = [(r.id, r.description, r.seq) for r in parse_fasta(text.encode(), "x")]
        assert got == _line_by_line(text), (seed, text)


@pytest.mark.parametrize("text, where, problem", [
    (">t\nACGT\n>u\nAC\n\nA  C5T\n", "line 6", "non-nucleotide letter '5' at position 5 of record 'u'"),
    ("\n  \nACGT\n>a\nA\n", "line 3", "sequence data before the first '>' header"),
    (">a\n\n>b\nAC\n", "line 1", "record 'a' has no sequence"),
])
def test_fasta_errors_name_the_line(text, where, problem):
    with pytest.raises(InputError) as err:
        parse_fasta(text.encode(), "f.fa")
    assert err.value.where == where and err.value.problem.startswith(problem)


def test_loading_time_left_out_of_seconds():
    from numba import njit

    loading.watch_numba()
    before = loading.seconds()
    njit(lambda x: x + 1)(1)  # compiled now: counted as loading
    assert loading.seconds() > before
    with loading.loading(), loading.loading():  # nested: counted once
        mid = loading.seconds()
    assert loading.seconds() >= mid


def test_record_seconds_exclude_loading(tiny):
    code, out, err = run_cli("-q", "align", "--manifest", str(tiny), "--solver", "sequential")
    assert code == 0, err
    for rec in json.loads(out):
        assert rec["seconds_loading"] >= 0 and rec["seconds"] >= 0
        assert rec["seconds"] == pytest.approx(rec["seconds_score"] + rec["seconds_traceback"], abs=1e-6)


HEAVY = ("cupy", "pandas", "matplotlib", "snakemake", "scipy.linalg", "splicedalign.workloads.sw")


@pytest.mark.parametrize("mode", [["--score-only"], ["--format", "gff3"]])
def test_cpu_align_imports_no_heavy_module(tiny, mode):
    """A CPU align imports no GPU, table or plotting library, nor SciPy's linear algebra (numba's
    BLAS probe, skipped by core.jit; a cached kernel using one of numba's NumPy functions would
    import it as it loads), nor another workload: score only and with gene models (the traceback's
    kernels), the second run with numba's cache filled by the first."""
    probe = ("import sys; from splicedalign.cli import main; "
             f"code = main(['-q', 'align', '--manifest', {str(tiny)!r}, *{mode!r}, '-o', '/dev/null']); "
             f"print(code, sorted(m for m in {HEAVY!r} if m in sys.modules))")
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split(None, 1) == ["0", "[]\n"]


def test_numba_set_up_keeps_linear_algebra_working():
    """After core.jit.start (no SciPy import), a function compiled later with np.dot still
    compiles and runs: numba asks for SciPy's BLAS again when it compiles one."""
    probe = ("import sys, numpy as np, numba; from splicedalign.core import jit; jit.start(); "
             "before = 'scipy.linalg' in sys.modules; "
             "f = numba.njit(lambda a: np.dot(a, a)); "
             "print(before, f(np.arange(3.0)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "5.0"]


CACHED_ANSWERS = r"""
import hashlib, json, sys
import numpy as np
if sys.argv[2] == "lazy":
    from splicedalign.core import jit
    jit.start()
from numba.core.registry import cpu_target
from splicedalign.kernels import compile_host_code
from splicedalign.workloads.spliced import cli
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.solvers import get_solver
import argparse
args = argparse.Namespace(manifest=sys.argv[1], base=None, exons=None, target=None, shift_window=0)
cases = cli._cases(args, ("+", "-"))
answers = {}
for name in ("sequential", "multicore"):
    results = get_solver(name).solve_many(cases, Scoring(), True)
    answers[name] = [(r.score, list(r.chain),
                      [(a.index, a.first, a.last, a.target_start, a.target_end, a.cigar) for a in r.alignment])
                     for r in results]
h = hashlib.sha256()  # the GPU solver's host planning passes (their arrays)
import splicedalign.workloads.spliced.gpu.plan as plan
build = plan.build_plan
def hashed(*a, **k):
    p = build(*a, **k)
    for v in vars(p).values():
        if isinstance(v, np.ndarray):
            h.update(v.tobytes())
    return p
plan.build_plan = hashed
compile_host_code("splicedalign.workloads.spliced.gpu.solver")
print(json.dumps([len(cpu_target.target_context._registries), "numba.np.arrayobj" in sys.modules, answers,
                  h.hexdigest()]))
"""


@pytest.mark.usefixtures("gpu_host_code")  # conftest: the warm-up's planning code
def test_numba_set_up_loads_cached_code_without_the_registries(tiny):
    """After core.jit.start, numba's cache loads skip its implementation registries (none is
    installed) and the modules of the cached code's environments (numba.np.arrayobj & co. not
    imported), and the cached code gives the answers it gives after a full set-up: the CPU
    solvers' scores, chains and alignments, and the GPU solver's planning arrays. The plain
    process runs first, so the cache holds every function when the other loads it."""
    def answers(mode: str) -> list:
        out = subprocess.run([sys.executable, "-c", CACHED_ANSWERS, str(tiny), mode], capture_output=True,
                             text=True, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    plain, lazy = answers("plain"), answers("lazy")
    assert plain[:2] == [plain[0], True] and plain[0] > 0 and lazy[:2] == [0, False]
    assert plain[2:] == lazy[2:]


def test_numba_set_up_imports_masked_arrays_only_when_used():
    """After core.jit.start, numba's type check of an array argument imports no numpy.ma; the
    first real use of np.ma imports it (np.ma then is the module, masked arrays work), and numba
    still refuses a masked array (a function's first call with one)."""
    probe = ("import sys, numpy as np; from splicedalign.core import jit; jit.start(); "
             "import numba; f = numba.njit(lambda a: a.sum()); s = f(np.arange(4)); "
             "before = 'numpy.ma' in sys.modules; m = np.ma.masked_array([1, 2, 3], mask=[0, 1, 0]); "
             "from numba.core.errors import NumbaTypeError\n"
             "try:\n    numba.njit(lambda a: a.sum())(m); refused = False\n"
             "except NumbaTypeError:\n    refused = True\n"
             "print(s, before, type(np.ma).__name__, isinstance(m, np.ma.MaskedArray), int(m.sum()), refused)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["6", "False", "module", "True", "4", "True"]


def test_numba_set_up_leaves_out_what_numba_probes_for(tmp_path):
    """core.jit.start imports numba without SciPy, PyYAML or coverage (numba probes for them),
    without scanning entry points for numba extensions and without numba's LLVM lock events;
    afterwards those modules import as
    usual and code compiled later still gets SciPy's BLAS. With a .numba_config.yaml in the
    working folder, numba still reads it (PyYAML imported)."""
    probe = ("import sys, numpy as np; from splicedalign.core import jit; jit.start(); "
             "import numba.core.entrypoints as e, llvmlite.binding.ffi as ffi; "
             "before = sorted(m for m in ('scipy', 'yaml', 'coverage') if m in sys.modules); "
             "events = [cb for cb in ffi.lib._lock._cblist if cb[0].__module__ == 'numba.core.base']; "
             "import scipy, yaml; f = __import__('numba').njit(lambda a: np.dot(a, a)); "
             "print(before, e._already_initialized, events, f(np.arange(3.0)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "True", "[]", "5.0"]
    (tmp_path / ".numba_config.yaml").write_text("boundscheck: 0\n")
    probe = "import sys; from splicedalign.core import jit; jit.start(); print('yaml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=tmp_path).stdout
    assert out.split() == ["True"]


STALE_CACHE_FILES = r"""
import pickle, sys
from pathlib import Path
from numba.core.serialize import dumps
import gone  # a module an upgrade in place removes (as sw.cpu_simd moved to core.simd)
# cached_index: a signature in its index that names the removed module, beside the real entries
index = next(Path("__pycache__").glob("cached_index.add_one-*.nbi"))
with open(index, "rb") as f:
    version, (stamp, overloads) = pickle.load(f), pickle.loads(f.read())
overloads[((gone.Gone(),), "magic")] = "cached_index.add_one-9.nbc"
index.write_bytes(pickle.dumps(version, protocol=-1) + dumps((stamp, overloads)))
# cached_data: the data file of its one entry names it
data = next(Path("__pycache__").glob("cached_data.add_one-*.nbc"))
data.write_bytes(dumps((gone.Gone(), "library")))
"""


def test_a_stale_numba_cache_file_is_compiled_again(tmp_path):
    """A numba cache index (module cached_index) or data file (cached_data) that names a module no
    longer there, as an upgrade in place leaves it: plain numba fails every call of that function
    (ModuleNotFoundError, the test's premise); in a process that imported splicedalign (before
    numba or after) the function is compiled again and gives its answer, and the cache it saves is
    whole again (plain numba then loads it from there). (Both kinds in each process: 7 processes,
    12 when each kind had its own test.)"""
    for kind in ("index", "data"):
        (tmp_path / f"cached_{kind}.py").write_text("import numba\n\n\n@numba.njit(cache=True)\ndef add_one(x):\n"
                                                    "    return x + 1\n")
    (tmp_path / "gone.py").write_text("class Gone:\n    pass\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
           "PYTHONDONTWRITEBYTECODE": "1"}

    def run(code: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)

    def call(kind: str) -> str:
        return (f"import cached_{kind} as m; r = m.add_one(41); "
                "print(r, m.add_one.stats.cache_hits.get(next(iter(m.add_one.overloads)), 0))")

    both = call("index") + "\n" + call("data")
    assert run(both).stdout.split() == ["42", "0"] * 2  # compiled, saved
    loaded = run(both + "\n" + STALE_CACHE_FILES)  # (the stale files written after the loads: one process)
    assert loaded.returncode == 0 and loaded.stdout.split() == ["42", "1"] * 2  # loaded
    (tmp_path / "gone.py").unlink()
    for kind in ("index", "data"):
        failed = run(call(kind))
        assert failed.returncode != 0 and "ModuleNotFoundError: No module named 'gone'" in failed.stderr, kind
    assert run("import splicedalign; " + both).stdout.split() == ["42", "0"] * 2  # compiled again, saved
    whole = run(both + "\n" + STALE_CACHE_FILES.replace("import gone", "gone = type(sys)('gone'); exec('class Gone: "
                                                           "pass', vars(gone)); sys.modules['gone'] = gone"))
    assert whole.returncode == 0 and whole.stdout.split() == ["42", "1"] * 2  # plain numba: the cache is whole
    assert run("import numba, splicedalign; " + both).stdout.split() == ["42", "0"] * 2  # numba imported first


def test_the_console_script_sets_blas_threads_before_numpy():
    """splicedalign.cli.run sets BLAS_THREADS before NumPy's import: importing the module loads
    no NumPy, and a user's own value is kept."""
    probe = ("import os, sys; import splicedalign.cli as c; print('numpy' in sys.modules); "
             "c.main = lambda: print(os.environ.get('OPENBLAS_NUM_THREADS')) or 0; c.run()")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for given, seen in ((None, "1"), ("3", "3")):
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                             env=env if given is None else {**env, "OPENBLAS_NUM_THREADS": given}).stdout
        assert out.split() == ["False", seen]


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")  # the thread raised
def test_cuda_driver_start_without_a_driver_says_nothing(capfd):
    """gpu.driver.start on a machine without libcuda: a thread that ends quietly (the solver's
    CuPy calls report the missing GPU); None only off Linux."""
    from splicedalign.gpu import driver

    thread = driver.start()
    assert (thread is None) == (not sys.platform.startswith("linux"))
    if thread is not None:
        thread.join(10)
        assert not thread.is_alive()
    assert capfd.readouterr() == ("", "")  # nothing said (a failure in the thread would print it)


class FakeDriver:
    """libcuda as gpu.driver's thread calls it: what it was asked (``calls``), the contexts it
    made current (``current``); cuMemHostAlloc (PINNED_BYTES, portable) gives ``block``, or is
    refused where there is none (the solver then allocates its own)."""

    def __init__(self, block: ctypes.Array | None = None) -> None:
        self.calls: list[str] = []
        self.current: list[int] = []
        self.block = block

    def cuInit(self, flags):  # noqa: N802 - the driver's name
        self.calls.append("cuInit")
        return 0

    def cuDeviceGet(self, device, ordinal):  # noqa: N802
        return 0

    def cuDevicePrimaryCtxRetain(self, context, device):  # noqa: N802
        self.calls.append("context")
        context._obj.value = 1234
        return 0

    def cuCtxSetCurrent(self, context):  # noqa: N802
        self.current.append(context.value)
        return 0

    def cuMemHostAlloc(self, address, nbytes, flags):  # noqa: N802
        from splicedalign.gpu import driver

        assert nbytes.value == driver.PINNED_BYTES and flags == 1  # portable
        self.calls.append("pinned")
        if self.block is None:
            return 1
        address._obj.value = ctypes.addressof(self.block)
        return 0


def test_cuda_driver_thread_loads_libraries_only_after_main_loaded(monkeypatch):
    """gpu.driver's thread starts the driver and context at once, and loads CuPy's libraries
    only once the main thread said main_loaded() (a dlopen takes the loader's one lock: not
    while numba's import loads llvmlite's library)."""
    from splicedalign.gpu import driver

    fake = FakeDriver()  # its pinned block refused: the solver allocates its own
    calls = fake.calls
    monkeypatch.setattr(driver.ctypes, "CDLL", lambda name: fake)
    monkeypatch.setattr(driver, "wheel_libraries", lambda: calls.append("libraries") or [])
    monkeypatch.setattr(driver, "_MAIN_LOADED", threading.Event())
    monkeypatch.setattr(driver, "_pinned", [])
    thread = driver.start()
    assert thread is not None
    thread.join(0.5)
    assert thread.is_alive() and calls == ["cuInit", "context", "pinned"]  # waiting for the main thread
    driver.main_loaded()
    thread.join(10)
    assert not thread.is_alive() and calls == ["cuInit", "context", "pinned", "libraries"]
    assert driver.take_pinned(driver.PINNED_LEAST) is None  # the allocation failed: nothing to take


def test_cuda_driver_thread_pinned_block_taken_once(monkeypatch):
    """The driver thread's page-locked block (made current context, cuMemHostAlloc): taken once
    by the first staging buffer that fits (gpu.device.empty_pinned wraps it without CuPy),
    then every buffer is CuPy's own again."""
    from splicedalign.gpu import device, driver

    block = (ctypes.c_uint8 * driver.PINNED_BYTES)()
    fake = FakeDriver(block)
    current = fake.current
    monkeypatch.setattr(driver.ctypes, "CDLL", lambda name: fake)
    monkeypatch.setattr(driver, "_MAIN_LOADED", threading.Event())
    monkeypatch.setattr(driver, "_pinned", [])
    thread = driver.start()
    for _ in range(1000):  # the block is there once the thread allocated it (it then waits for main_loaded)
        if driver._pinned:
            break
        thread.join(0.01)
    assert current == [1234]
    assert driver.take_pinned(driver.PINNED_BYTES + 1) is None  # too large: left for one that fits
    assert driver.take_pinned(driver.PINNED_LEAST - 1) is None  # small: left for a staging buffer
    rows = driver.PINNED_LEAST // 8
    staged = device.empty_pinned((rows, 2), np.int64)
    assert staged.ctypes.data == ctypes.addressof(block) and staged.shape == (rows, 2)
    staged[:] = 7
    assert (np.frombuffer(block, np.int64, 2 * rows) == 7).all()
    monkeypatch.setattr(device, "cupy", lambda: pytest.fail("the block was taken: CuPy not asked"))
    assert driver.take_pinned(driver.PINNED_LEAST) is None  # taken once
    driver.main_loaded()


def test_cuda_driver_thread_loads_the_libraries_cupy_loads(tmp_path):
    """gpu.driver.wheel_libraries: for a CuPy pip wheel, the cuBLAS libraries of the CUDA
    version it was built for, from the wheels' folder beside it (cuBLASLt first), which the
    driver's thread then loads (mapped into the process); none for another packaging, another
    CUDA major version's files, or where one is missing."""
    site = tmp_path / "site"
    (site / "cupy" / ".data").mkdir(parents=True)
    (site / "cupy" / "__init__.py").write_text("")
    (site / "cupy" / ".data" / "_wheel.json").write_text(json.dumps({"cuda": "13.x", "packaging": "pip"}))
    libs = site / "nvidia" / "cu13" / "lib"
    libs.mkdir(parents=True)
    real = next(p for p in ("/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1",
                            "/lib64/libz.so.1") if os.path.exists(p))
    probe = ("import json, sys; from splicedalign.gpu import driver; paths = driver.wheel_libraries(); "
             "driver._load_libraries(paths); maps = open('/proc/self/maps').read(); "
             "print(json.dumps([[p.split('/site/')[1] for p in paths], [p in maps for p in paths]]))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}

    def found() -> list:
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
        return json.loads(out.stdout)

    for name in ("libcublas.so.13", "libcublasLt.so.13"):
        shutil.copy(real, libs / name)
    assert found() == [["nvidia/cu13/lib/libcublasLt.so.13", "nvidia/cu13/lib/libcublas.so.13"], [True, True]]
    for name in ("libnvrtc.so.13", "libnvrtc-builtins.so.13.0"):  # NVRTC where the wheels have it, builtins first
        shutil.copy(real, libs / name)
    assert found() == [["nvidia/cu13/lib/libcublasLt.so.13", "nvidia/cu13/lib/libcublas.so.13",
                        "nvidia/cu13/lib/libnvrtc-builtins.so.13.0", "nvidia/cu13/lib/libnvrtc.so.13"], [True] * 4]
    (libs / "libcublas.so.13").rename(libs / "libcublas.so.12")
    assert found() == [[], []]
    (libs / "libcublas.so.12").rename(libs / "libcublas.so.13")
    (site / "cupy" / ".data" / "_wheel.json").write_text(json.dumps({"cuda": "13.x", "packaging": "conda"}))
    assert found() == [[], []]


@pytest.mark.usefixtures("gpu_host_code")  # conftest: the warm-up's planning code
def test_host_code_covers_every_compiled_function_of_the_gpu_solver():
    """``python -m splicedalign.kernels host`` (and ``build``) runs every numba function the
    spliced gpu solver's host code has, a fed launch's (feed.py) included: a function added there
    and not reached would compile on a user's first ``align --solver gpu`` (~1 s each on the
    H100 host)."""
    from numba.core.registry import CPUDispatcher

    from splicedalign import kernels
    from splicedalign.workloads.spliced.gpu import feed, flat, outputs, plan

    kernels.compile_host_code("splicedalign.workloads.spliced.gpu.solver")
    functions = {name: f for m in (feed, flat, outputs, plan) for name, f in vars(m).items()
                 if isinstance(f, CPUDispatcher)}
    # one called only by other compiled functions is compiled into them (loaded from the cache
    # with them: no signature of its own)
    callees = {name for f in functions.values() for name in f.py_func.__code__.co_names if name in functions}
    missed = [name for name, f in functions.items() if not f.signatures and name not in callees]
    assert len(functions) >= 15 and not missed, missed


def test_module_run_ends_at_once_with_whole_output(tiny, tmp_path):
    """``python -m splicedalign.cli`` (``cli.run``: os._exit after main) keeps every byte of the
    output and the exit status."""
    def module(*argv):
        return subprocess.run([sys.executable, "-m", "splicedalign.cli", *argv], capture_output=True, text=True)

    proc = module("-q", "align", "--manifest", str(tiny), "--score-only", "--solver", "reference")
    assert proc.returncode == 0 and len(json.loads(proc.stdout)) == 8, proc.stderr
    out = tmp_path / "x.tsv"
    proc = module("-q", "align", "--manifest", str(tiny), "--score-only", "--format", "tsv", "-o", str(out))
    assert proc.returncode == 0 and len(out.read_text().splitlines()) == 9
    proc = module("align", "--manifest", str(tmp_path / "none.tsv"))
    assert proc.returncode == 2 and proc.stderr.strip().endswith("none.tsv: manifest not found")
