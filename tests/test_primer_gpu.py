"""Primer GPU solvers against the CPU ``sequential`` (skipped without a GPU, with the reason)."""

from __future__ import annotations

import numpy as np
import pytest

from splicedalign.gpu.device import unavailable_reason
from splicedalign.workloads.primer import PrimerProblem, solve
from splicedalign.workloads.primer.synthetic import generate

REASON = unavailable_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(REASON is not None, reason=f"no GPU: {REASON}")]


@pytest.mark.parametrize("solver", ["gpu", "primer-paper"])
def test_paper_example(solver):
    assert solve(PrimerProblem("ACTG", "AGCAAG", 2), solver).solutions == ((1, 3), (2, 4))


@pytest.mark.parametrize("solver", ["gpu", "primer-paper"])
@pytest.mark.parametrize("seed", range(8))
def test_random_against_sequential(solver, seed):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(5, 400)), int(rng.integers(5, 600))
    k = int(rng.integers(1, min(m, 150) + 1))
    p = generate(m, n, k, seed=seed, homologous=rng.random(), divergence=0.4 * rng.random(), piece=300)
    want, got = solve(p, "sequential"), solve(p, solver)
    assert (got.solutions, got.cells) == (want.solutions, want.cells)


def test_gpu_deep_active_region_retries():
    """β holds an almost exact copy of α: active regions outgrow the register words (1,024
    rows) and the local-memory retry (8,192 rows): all three paths must agree."""
    p = generate(9000, 12000, 3, seed=5, homologous=0.9, divergence=0.0005, piece=9000)
    want, got = solve(p, "sequential"), solve(p, "gpu")
    assert (got.solutions, got.cells) == (want.solutions, want.cells)


def test_gpu_segments_of_beta():
    """A long β is cut into column segments (one thread each per start): same answers."""
    from splicedalign.workloads.primer.gpu.solver import GpuSolver

    solver = GpuSolver()
    solver.min_segment_overlaps = 1
    p = generate(400, 30000, 40, seed=9, homologous=0.4, divergence=0.2, piece=400)
    assert solver.segments(p.last_start, p.n, p.k)[0] > 10
    want, got = solve(p, "sequential"), solver.solve(p)
    assert (got.solutions, got.cells) == (want.solutions, want.cells)
