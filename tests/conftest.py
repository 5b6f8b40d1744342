"""Shared test fixtures: the golden cases of SPEC §7, vendored in tests/data/golden; the
package's nvcc build for sm_90, once per session; numba's cache filled by warm-up processes
beside xdist's workers (whole-suite runs), which the tests that use their code wait for."""

from __future__ import annotations

import fcntl
import gc
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import REPO, exclusive, session_folder

from splicedalign.core.collection import tune_short_process
from splicedalign.workloads.spliced.records import Exon, Scoring, TestCase

GOLDEN = REPO / "tests" / "data" / "golden" / "cases.json"


def load_golden() -> list[dict]:
    if not GOLDEN.exists():
        pytest.fail(f"golden cases missing: {GOLDEN}")
    return json.loads(GOLDEN.read_text())


def golden_case(g: dict) -> tuple[TestCase, Scoring]:
    case = TestCase(g["name"], g["base"], g["target"], tuple(Exon(f, l) for f, l in g["exons"]))
    return case, Scoring.from_mapping(g["scoring"])


# The compiled code most test modules share, compiled into numba's on-disk cache by processes
# started before xdist's workers: the spliced CPU solvers, which every worker waits for before its
# first test; the spliced GPU solver's host planning (the install step's run), which only the tests
# that run that code wait for (the fixture gpu_host_code): it is the longer one (30-32 CPU s
# against 11), and while every test waited for it both workers idled from the CPU one's end to its
# own (37 -> 58 s into a fresh-clone run at load 6; house14: 36 -> 62 s); and the nw GPU solver's
# host code (kernels' _nw_host: the sample's CPU WFA, the pieces' checks, the CIGAR text, a batch's
# copies), which the nw tests wait for (nw_gpu_host_code) and whose process is also
# test_nw_gpu_batch_host's check that it calls every such function (what it prints). Otherwise
# each worker, and the subprocesses tests start, compiled whatever the cache lacked when they
# first called it, the same function often in two processes at once (cold clone, -n 2: ~15-20 CPU
# s each, part twice). Before the nw one: that check's own process compiled what the nw tests had
# not (14-16 CPU s in the suite) beside the ~24 CPU s the nw tests compiled in a worker
# (wfa_align_codes, _prefix_scores, segments' passes; _prefix_scores twice); with it the four nw
# modules that compiled them (test_nw_gpu_batch_host, _modes, _segments, _batches) took 63 -> 19
# CPU s beside its 35 (whole fresh-clone suites side by side). nw's CPU solvers' own kernels
# (trace_block, _blocks_wavefront) stay out: no worker compiled them twice under --dist
# worksteal, and a warm-up of them only moved that work before the first test (fresh clone, two
# runs each: 364-369 -> 374-382 CPU s, 198-200 -> 200-210 s).
NUMBA_WARM_UP = {
    "spliced_cpu": "from splicedalign.workloads.spliced.records import Scoring\n"
                   "from splicedalign.workloads.spliced.solvers import get_solver\n"
                   "from splicedalign.workloads.spliced.synthetic import tiny_set\n"
                   "for name in ('sequential', 'multicore'):\n"
                   "    get_solver(name).solve_many(tiny_set(0, bases=12), Scoring(), True)\n",
    "gpu_host_code": "from splicedalign.kernels import compile_host_code\n"
                     "compile_host_code('splicedalign.workloads.spliced.gpu.solver')\n",
    # (it prints, as its last line, each numba function of the modules the nw solver's host code
    # calls: the names its code uses and how many signatures it has)
    "nw_gpu_host_code": "import json\n"
                        "from numba.core.registry import CPUDispatcher\n"
                        "from splicedalign import kernels\n"
                        "from splicedalign.workloads.nw import batch_copy, cigar, segments, wfa_kernels\n"
                        "from splicedalign.workloads.nw.gpu import band, wfa\n"
                        "kernels.compile_host_code('splicedalign.workloads.nw.gpu.solver')\n"
                        "print(json.dumps({f'{m.__name__}.{name}': [f.py_func.__code__.co_names, len(f.signatures)]\n"
                        "                  for m in (batch_copy, cigar, segments, wfa_kernels, band, wfa)\n"
                        "                  for name, f in vars(m).items()\n"
                        "                  if isinstance(f, CPUDispatcher) and f.__module__ == m.__name__}))\n",
}
WARM_UP = pytest.StashKey[dict]()
# Cyclic garbage collection in the suite's processes (pytest's, xdist's workers, the warm-ups) set
# as the CLI sets it in its own (core.collection.tune_short_process: a first threshold above the
# ~100 k objects the imports of numpy, numba and the package make), and in a test process what
# collecting the tests made (the package, numba's registries, the test modules) frozen once
# collected, so that a full collection no longer walks it. Numba's compiles make objects by the
# million: with Python's defaults a fresh-clone run's workers and warm-ups spent 18.5 CPU s in the
# collector (the GPU warm-up 4.2 of its 48, 17 full passes), with these 8.8 (fresh clones side by
# side, gc.callbacks probe: workers 13.2 -> 6.7 s, warm-ups 5.3 -> 2.2 s; 590 -> 575 CPU s in all).
GC_SET_UP = "from splicedalign.core.collection import tune_short_process\ntune_short_process()\n"


def pytest_configure(config):
    """The collector set as GC_SET_UP says. On a whole-suite run with xdist workers (CI's), in the
    controller: each NUMBA_WARM_UP started before the workers, which collect the tests beside them
    (~5 s each; collection calls no compiled code). A warm-up holds an exclusive lock on a file of
    its own until it ends (however it ends), and writes its stdout and stderr there; the workers
    wait for it by taking that lock (_wait_for_warm_up), then may read the file."""
    tune_short_process()
    whole = [Path(a).resolve() for a in config.args] in ([], [REPO / "tests"])
    if hasattr(config, "workerinput") or not whole or (getattr(config.option, "numprocesses", 0) or 0) < 2:
        return
    runs = {}
    for name, code in NUMBA_WARM_UP.items():
        fd, lock = tempfile.mkstemp(prefix=f"splicedalign-warm-up-{name}-")
        fcntl.flock(fd, fcntl.LOCK_EX)
        runs[name] = (subprocess.Popen([sys.executable, "-c", GC_SET_UP + code], stdout=fd, stderr=fd), lock)
        os.close(fd)  # the warm-up's copies (its stdout and stderr) hold the lock
    config.stash[WARM_UP] = runs


def pytest_collection_modifyitems(items):
    """The modules that hold slow tests run first (each module's tests together and in order, for
    its module fixtures). Under xdist's worksteal a worker takes a contiguous share of this order
    and an idle one the back half of another's queue, but a test is never split: with the
    pipeline's modules at the back of the first share, one worker ended three fresh-clone runs
    alone on test_pipeline_matrix's main command, 18-51 s after the other (3-5 s with this order,
    where test_spliced_cli_run's planning tests no longer wait ~15 s for the GPU warm-up either)."""
    slow = {item.nodeid.split("::")[0] for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in slow)  # stable


def pytest_collection_finish(session):
    """What collecting the tests made frozen (GC_SET_UP)."""
    gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist's controller, as it starts a worker: the warm-ups' lock files passed on."""
    runs = node.config.stash.get(WARM_UP, {})
    node.workerinput["numba_warm_up"] = {name: lock for name, (_, lock) in runs.items()}


def pytest_sessionfinish(session):
    """In the controller: each warm-up's end waited for (the tests that use its code fail with the
    reason if it failed; this says so once) and its lock file removed."""
    for name, (run, lock) in session.config.stash.get(WARM_UP, {}).items():
        if run.wait():
            session.config.issue_config_time_warning(
                pytest.PytestWarning(f"numba warm-up {name} failed: {Path(lock).read_text()[-300:]}"), 2)
        os.unlink(lock)


def _wait_for_warm_up(config, name: str) -> str | None:
    """In an xdist worker of a whole-suite run: until warm-up ``name`` has ended (its lock free);
    what it wrote (stdout and stderr). Elsewhere None at once."""
    lock = getattr(config, "workerinput", {}).get("numba_warm_up", {}).get(name)
    if not lock:
        return None
    with open(lock) as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        return held.read()


@pytest.fixture(scope="session", autouse=True)
def spliced_cpu_compiled(request) -> None:
    """Every test: the spliced CPU solvers' warm-up ended (whole-suite xdist runs)."""
    _wait_for_warm_up(request.config, "spliced_cpu")


@pytest.fixture(scope="session")
def nw_gpu_host_code(request) -> str:
    """The nw GPU solver's host code (kernels.compile_host_code) run in a fresh process, and what
    it printed (NUMBA_WARM_UP): a whole-suite xdist run's warm-up, its end waited for; else run
    here, where asked for. Every nw test waits for it (_nw_tests_after_their_warm_up)."""
    out = _wait_for_warm_up(request.config, "nw_gpu_host_code")
    if out is None:
        code = GC_SET_UP + NUMBA_WARM_UP["nw_gpu_host_code"]
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        out = done.stdout + done.stderr
    return out


@pytest.fixture(scope="module", autouse=True)
def _nw_tests_after_their_warm_up(request) -> None:
    """An nw module's tests (a test_nw_ module) in a whole-suite xdist run: the nw GPU solver's host
    code warm-up ended (the functions it compiled loaded from the cache, not compiled again beside
    it); waited for (and its output read) once a module, not once a test."""
    if request.module.__name__.startswith("test_nw_"):
        _wait_for_warm_up(request.config, "nw_gpu_host_code")


@pytest.fixture(scope="session")
def gpu_host_code(request) -> None:
    """The spliced GPU solver's host planning (kernels.compile_host_code) in numba's cache where a
    whole-suite xdist run's warm-up compiles it: its end waited for. For tests that run that
    code; any other test runs beside the warm-up."""
    _wait_for_warm_up(request.config, "gpu_host_code")


@pytest.fixture(scope="session")
def golden() -> list[dict]:
    return load_golden()


# nvcc as kernels.build runs it, with its strict checks added; each kernel file's exit status
# and messages go to logs/<source path with - for />.json
STRICT_NVCC = """#!{python}
import json, subprocess, sys
from pathlib import Path
done = subprocess.run([{nvcc!r}, "-Werror", "all-warnings", "--resource-usage", *sys.argv[1:]],
                      capture_output=True, text=True)
name = Path(sys.argv[-1]).relative_to({package!r}).as_posix().replace("/", "-")
Path({logs!r}, name + ".json").write_text(json.dumps({{"returncode": done.returncode, "stderr": done.stderr}}))
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
sys.exit(done.returncode)
"""


@pytest.fixture(scope="session")
def sm90_build(tmp_path_factory) -> SimpleNamespace:
    """``kernels.build`` of every kernel file for sm_90 alone, once per test session (xdist
    workers share it), nvcc with -Werror all-warnings and --resource-usage added: ``folder``
    (fatbins, index.json), ``index`` (None when a build failed), ``error`` (the build's
    message, else None) and ``logs`` (each kernel file's nvcc exit status and messages, by its
    path under the package with - for /)."""
    from splicedalign.gpu import kernels

    root = session_folder(tmp_path_factory.getbasetemp(), "sm90-build")
    folder, logs = root / "out", root / "logs"
    with exclusive(root / "lock"):
        if not (root / "done.json").exists():
            logs.mkdir(exist_ok=True)
            nvcc = root / "nvcc"
            nvcc.write_text(STRICT_NVCC.format(python=sys.executable, nvcc=shutil.which("nvcc"),
                                               package=str(kernels.PACKAGE_DIR), logs=str(logs)))
            nvcc.chmod(nvcc.stat().st_mode | stat.S_IXUSR)
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(kernels, "ARCHS", ("90",))
                patch.setattr(kernels, "_current_digest", kernels.source_digest)  # digests follow ARCHS
                try:
                    kernels.build(folder, nvcc=str(nvcc))
                    error = None
                except RuntimeError as exc:
                    error = str(exc)
            (root / "done.json").write_text(json.dumps({"error": error}))
    error = json.loads((root / "done.json").read_text())["error"]
    index = json.loads((folder / "index.json").read_text()) if error is None else None
    return SimpleNamespace(folder=folder, index=index, error=error,
                           logs={p.stem: json.loads(p.read_text()) for p in logs.glob("*.json")})
