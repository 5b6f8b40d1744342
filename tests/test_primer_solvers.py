"""Primer solvers (SPEC-workloads A): the paper's worked example, a brute-force enumerator of
substrings on tiny inputs (hypothesis), agreement of every CPU solver on larger homologous
instances (several 64-row words, ambiguity letters), the edlib oracle, and the GPU kernels'
device code built for the host with g++ (tests/primer_emu) against the CPU per-start sweep."""

from __future__ import annotations

import importlib.util
import subprocess
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from helpers import host_build
from hypothesis import given, settings
from hypothesis import strategies as st

from splicedalign.core.errors import InputError
from splicedalign.gpu import device
from splicedalign.workloads.primer import PrimerProblem, solve
from splicedalign.workloads.primer import cpu_kernels as K
from splicedalign.workloads.primer.records import result_from_prefixes
from splicedalign.workloads.primer.synthetic import generate

CPU = ("reference", "conventional", "alternative", "sequential", "multicore")
EMU = Path(__file__).parent / "primer_emu"


@cache
def edit_distance(a: str, b: str) -> int:
    """Plain edit distance; letters other than ACGT never match (not even themselves)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j - 1] + (x != y or x not in "ACGT"), prev[j] + 1, cur[j - 1] + 1))
        prev = cur
    return prev[-1]


def brute_force(alpha: str, beta: str, k: int) -> list[tuple[int, int]]:
    """SPEC-workloads A by enumeration: every substring of β (the empty one included)."""
    subs = {beta[i:j] for i in range(len(beta) + 1) for j in range(i, len(beta) + 1)}
    out = []
    for r in range(1, len(alpha) - k + 2):
        ends = [e for e in range(r, len(alpha) + 1) if min(edit_distance(alpha[r - 1:e], s) for s in subs) >= k]
        if not ends:
            break
        out.append((r, ends[0]))
    return out


def test_paper_example():
    problem = PrimerProblem("ACTG", "AGCAAG", 2)
    for name in CPU:
        result = solve(problem, name)
        assert result.solutions == ((1, 3), (2, 4)), name
        # rows: r=1 c=2 (3 rows), r=2 c=2 (3 rows), r=3 stops with c=2 (2 rows); n = 6
        assert result.cells == 6 * (3 + 3 + 2), name
    assert solve(problem, "conventional").comparisons == 48


def test_lowercase_and_ambiguity_letters():
    assert solve(PrimerProblem("actg", "agcaag", 2)).solutions == ((1, 3), (2, 4))
    # N never matches, not even N: alpha NN is 2 edits from everything
    assert solve(PrimerProblem("NN", "NNNN", 2), "reference").solutions == ((1, 2),)
    assert solve(PrimerProblem("NN", "NNNN", 2), "sequential").solutions == ((1, 2),)


@pytest.mark.parametrize("k", [0, -1, 5])
def test_bad_k(k):
    with pytest.raises(InputError):
        PrimerProblem("ACTG", "ACGT", k)


@settings(max_examples=60, deadline=None)
@given(alpha=st.text("ACGTN", min_size=1, max_size=7), beta=st.text("ACGTN", min_size=1, max_size=6),
       data=st.data())
def test_brute_force(alpha, beta, data):
    k = data.draw(st.integers(1, len(alpha)))
    want = brute_force(alpha, beta, k)
    problem = PrimerProblem(alpha, beta, k)
    cells = {solve(problem, name).cells for name in CPU}
    for name in CPU:
        assert list(solve(problem, name).solutions) == want, name
    assert len(cells) == 1  # cells are a property of the instance


@pytest.mark.parametrize("seed", range(6))
def test_solvers_agree_on_homologous_instances(seed):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(60, 300)), int(rng.integers(60, 500))
    k = int(rng.integers(1, min(m, 140) + 1))
    problem = generate(m, n, k, seed=seed, homologous=0.5, divergence=0.05 + 0.3 * rng.random(), piece=200)
    if seed % 2:  # ambiguity letters in both
        problem = PrimerProblem(problem.alpha[:10] + "N" + problem.alpha[11:], "R" + problem.beta[1:], k)
    results = {name: solve(problem, name) for name in CPU[1:] + (("edlib",) if _has_edlib() else ())}
    first = results["conventional"]
    for name, result in results.items():
        assert (result.solutions, result.cells) == (first.solutions, first.cells), (seed, name)
    assert results["conventional"].comparisons == first.cells


def test_reference_agrees_on_a_mid_instance():
    problem = generate(90, 150, 12, seed=3, homologous=0.6, divergence=0.1, piece=60)
    assert solve(problem, "reference").solutions == solve(problem, "sequential").solutions


def _has_edlib() -> bool:
    return importlib.util.find_spec("edlib") is not None


@pytest.mark.skipif(not _has_edlib(), reason="edlib not installed (pip install 'splicedalign[peers]')")
def test_edlib_oracle_on_paper_example():
    assert solve(PrimerProblem("ACTG", "AGCAAG", 2), "edlib").solutions == ((1, 3), (2, 4))


def test_result_stops_at_first_start_without_answer():
    problem = PrimerProblem("ACGTACGT", "TTTT", 2)
    prefixes = np.array([2, 7, 1, 1, 1, 1, 1])  # start 2: 2 + 7 > 8 stops
    result = result_from_prefixes(problem, prefixes, 0, "x")
    assert result.solutions == ((1, 3),)
    assert result.cells == 4 * (3 + 7)


# ---- GPU device code, built for the host (no GPU needed) --------------------------------------
def _build(tmp_path_factory, source: str, std: str) -> Path:
    return host_build(EMU / source, ["-O2", f"-std={std}", "-pthread", "-Wno-unknown-pragmas"], "",
                      tmp_path_factory.mktemp("emu"))


def _run(exe: Path, problem: PrimerProblem) -> list[list[int]]:
    head = f"{problem.m} {problem.n} {problem.k} ".encode()
    stdin = head + problem.alpha_codes.tobytes() + problem.beta_codes.tobytes()
    out = subprocess.run([str(exe)], input=stdin, capture_output=True, check=True).stdout.decode()
    return [[int(x) for x in line.split()] for line in out.splitlines()]


def _emu_cases(count: int, seed: int, max_m: int, max_n: int, max_k: int):
    rng = np.random.default_rng(seed)
    for i in range(count):
        m, n = int(rng.integers(5, max_m)), int(rng.integers(5, max_n))
        k = int(rng.integers(1, min(m, max_k) + 1))
        p = generate(m, n, k, seed=seed * 100 + i, homologous=rng.random(), divergence=0.4 * rng.random(),
                     piece=max_m)
        if i % 3 == 0:
            p = PrimerProblem(p.alpha, p.beta[:2] + "N" + p.beta[3:], k)
        yield p


def test_gpu_kernel_on_host(tmp_path_factory):
    exe = _build(tmp_path_factory, "bitparallel_host.cpp", "c++17")
    long = generate(300, 6000, 40, seed=4, homologous=0.5, divergence=0.15, piece=300)  # 4-5 segments
    for p in [long, *_emu_cases(12, 11, 400, 500, 130)]:
        nw = p.m // K.W + 2
        buf = (np.empty(4 * nw, np.uint64), np.empty(nw, np.uint64), np.empty(nw, np.uint64), np.empty(nw, np.int64))
        want = [K.bitparallel_prefix(p.alpha_codes, r0, p.beta_codes, p.k, p.k - 1, *buf)[0]
                for r0 in range(p.last_start)]
        for got in _run(exe, p):  # MAXB 2 (overflows: -2), 16 in registers, 128 in local memory
            assert all(g in (w, -2) for g, w in zip(got, want)) and len(got) == len(want), (p.m, p.n, p.k)
        assert _run(exe, p)[1] == want or max(want) > 16 * 64


def test_paper_kernel_on_host(tmp_path_factory):
    exe = _build(tmp_path_factory, "paper_host.cpp", "c++20")
    for p in _emu_cases(3, 12, 90, 120, 40):  # 32-thread tiles: k and n cross tile boundaries
        L = np.empty(p.n + p.k + 2, dtype=np.int32)
        want = [K.alternative_prefix(p.alpha_codes, r0, p.beta_codes, p.k, L)[0] for r0 in range(p.last_start)]
        assert _run(exe, p)[0] == want, (p.m, p.n, p.k)


# ---- primer-paper's host path (paper.py) on the CPU ------------------------------------------
class _Host(np.ndarray):
    def get(self):
        return np.array(self)


class _PaperModel:
    """primer_paper's contract: out[i] = the prefix of start first + i (alternative_prefix), its
    comparisons added to comps; a launch's dynamic shared memory within the kernel's limit."""

    def __init__(self, launches: list) -> None:
        self.launches = launches

    def __call__(self, grid, block, args, shared_mem=0):
        limit = getattr(self, "max_dynamic_shared_size_bytes", device.SHARED_MEMORY_DEFAULT)
        self.launches.append((shared_mem, limit))
        alpha, _m, beta, n, k, first, out, comps = args
        L = np.empty(int(n) + int(k) + 2, dtype=np.int32)
        for i in range(grid[0]):
            out[i], c = K.alternative_prefix(np.asarray(alpha), int(first) + i, np.asarray(beta), int(k), L)
            comps[0] += c


@pytest.mark.parametrize("m, n, k", [(60, 80, 5), (2150, 120, 2100)])  # k 2100: beyond 48 KiB of shared memory
def test_paper_solver_host_path_on_a_kernel_model(monkeypatch, m, n, k):
    from types import SimpleNamespace

    from splicedalign.workloads.primer.gpu.paper import PaperSolver

    def wrap(a, dtype=None):
        return np.array(a, dtype=dtype).view(_Host)

    cp = SimpleNamespace(asarray=wrap, asnumpy=np.asarray, int32=np.int32, uint64=np.uint64,
                         zeros=lambda shape, dtype: wrap(np.zeros(shape, dtype)),
                         full=lambda shape, value, dtype: wrap(np.full(shape, value, dtype)),
                         cuda=SimpleNamespace(runtime=SimpleNamespace(deviceSynchronize=lambda: None)))
    launches: list = []
    monkeypatch.setattr(device, "cupy", lambda: cp)
    monkeypatch.setattr(device, "function", lambda source, name, names, defines: _PaperModel(launches))
    p = generate(m, n, k, seed=k, homologous=0.6, divergence=0.1, piece=m)
    solver = PaperSolver()
    solver.batch = 4  # batches end within the starts
    got, want = solver.solve(p), solve(p, "sequential")
    assert (got.solutions, got.cells) == (want.solutions, want.cells)
    assert launches and all(smem <= limit for smem, limit in launches)
    assert (max(smem for smem, _ in launches) > device.SHARED_MEMORY_DEFAULT) == (k > 2000)
