"""Test-case builders shared by the test modules (each seeded by its caller)."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import io
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from splicedalign.workloads.spliced.records import Exon, TestCase

REPO = Path(__file__).resolve().parents[1]


def fresh_rng() -> np.random.Generator:
    """A generator from a fresh seed, printed (pytest shows it with a failing test's output)."""
    seed = int(np.random.SeedSequence().entropy % 2**32)
    print("seed", seed)
    return np.random.default_rng(seed)


def random_spliced_case(rng: np.random.Generator, name: str) -> TestCase:
    """A small random spliced case (m < 300, n < 80, up to 11 exons, ~4% N in both)."""
    m = int(rng.integers(1, 300))
    n = int(rng.integers(1, 80))
    exons = []
    for _ in range(int(rng.integers(1, 12))):
        f = int(rng.integers(1, m + 1))
        exons.append(Exon(f, int(rng.integers(f, min(m, f + 120) + 1))))
    alphabet = np.array(list("ACGTN"))
    base = "".join(rng.choice(alphabet, m, p=[0.24, 0.24, 0.24, 0.24, 0.04]))
    target = "".join(rng.choice(alphabet, n, p=[0.24, 0.24, 0.24, 0.24, 0.04]))
    return TestCase(name, base, target, tuple(exons))


def assert_cpu_solvers_match_oracle(case: TestCase, scoring) -> None:
    """Every CPU solver's score, per-exon final scores and alignment against the brute-force
    chain enumerator (tiny cases only)."""
    from splicedalign.workloads.spliced.oracle import alignment_problems, brute_force, brute_force_last_rows
    from splicedalign.workloads.spliced.solvers import SOLVERS, solve

    best, _ = brute_force(case, scoring)
    rows = brute_force_last_rows(case, scoring)
    for name in SOLVERS.cpu_names():
        result = solve(case, scoring, name)
        assert result.score == best, name
        assert result.last_row_scores.tolist() == rows.tolist(), name
        assert alignment_problems(case, result, scoring) == [], name


# --- command line (spliced CLI tests) --------------------------------------------------------
def run_cli(*argv: str) -> tuple[int, str, str]:
    """``splicedalign ARGV`` in this process: (exit status, stdout, stderr)."""
    from splicedalign.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse errors and --help
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


# --- fake GPUs (the --devices tests of every workload) ----------------------------------------
def fake_gpu_devices(monkeypatch, registry, solver_path: str) -> Iterator[list[int]]:
    """Two fake GPUs, and 'fakegpu': the CPU solver at SOLVER_PATH registered in REGISTRY as a GPU
    solver. Yields the devices entered, in order (use as ``yield from`` in a fixture)."""
    from splicedalign.gpu import devices

    local = threading.local()
    used: list[int] = []

    @contextmanager
    def enter(d):
        local.device = d
        used.append(d)
        yield
        local.device = None

    monkeypatch.setattr(devices, "cuda_device", enter)
    monkeypatch.setattr(devices, "visible_count", lambda: 2)
    registry.register("fakegpu", solver_path, gpu=True)
    yield used
    del registry._entries["fakegpu"]


def console(*argv: str, check: bool = False, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The installed console script ``splicedalign ARGV`` (what a user runs)."""
    exe = shutil.which("splicedalign")
    assert exe, "console script splicedalign not installed (pip install -e .)"
    return subprocess.run([exe, *argv], capture_output=True, text=True, check=check, input=stdin)


def session_folder(basetemp: Path, name: str) -> Path:
    """Folder ``name`` that every xdist worker of this test session shares: in the session's
    temporary root (the parent of each worker's basetemp, popen-gwN), or in ``basetemp`` without
    xdist."""
    folder = (basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp) / name
    folder.mkdir(exist_ok=True)
    return folder


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """The file lock ``path`` held while the block runs (other processes wait for it)."""
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def host_build(source: Path, flags: list[str], suffix: str, folder: Path) -> Path:
    """``g++ FLAGS SOURCE`` (a tests/*_emu/*.cpp), built once per test session: every xdist
    worker and test module asking for the same build waits for the first one's and shares it.
    ``folder``: a tmp_path_factory.mktemp folder (its parent is the process's basetemp). Skips
    the test where g++ is missing."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not found: the kernel's host build needs it")
    command = ["g++", *flags, str(source)]
    key = hashlib.sha256("\0".join(command).encode()).hexdigest()[:16]
    builds = session_folder(folder.parent, "host-builds")
    out = builds / f"{source.stem}-{key}{suffix}"
    with exclusive(builds / f"{key}.lock"):
        if not out.exists():
            part = out.with_name(out.name + ".part")
            done = subprocess.run([*command[:-1], "-o", str(part), str(source)], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            part.rename(out)
    return out


def kernel_host_build(source: Path, defines: dict, folder: Path) -> ctypes.CDLL:
    """A .cu kernel's g++ host build (``source``: a tests/*_emu/*.cpp that includes it with the
    CUDA keywords of tests/cuda_emu.h) as a shared library, the kernel's -D macros given (built
    once per session: host_build); skips the test where g++ is missing."""
    flags = ["-O1", "-std=c++20", "-pthread", "-shared", "-fPIC", "-D__CUDACC_RTC__",
             *(f"-D{k}={v}" for k, v in defines.items()), "-I", str(REPO / "src/splicedalign/gpu/include")]
    return ctypes.CDLL(str(host_build(source, flags, ".so", folder)))
