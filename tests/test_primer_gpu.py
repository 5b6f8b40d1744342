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


@pytest.mark.parametrize("status", [2, 1])  # CUDA_ERROR_OUT_OF_MEMORY; CUDA_ERROR_INVALID_VALUE
def test_gpu_retry_refused_for_memory_finishes_on_the_cpu(status, monkeypatch, caplog):
    """A shared GPU: the retry's launch refused for want of memory (the driver could not reserve its local memory
    beside another process) leaves its starts to the CPU sweep, same answers and one warning; any other error of the
    launch goes up."""
    import logging

    import cupy

    from splicedalign.workloads.primer.gpu.solver import NAMES, GpuSolver

    solver = GpuSolver()
    kernel = solver._kernel

    def refused(*_args, **_kwargs):
        raise cupy.cuda.driver.CUDADriverError(status)

    monkeypatch.setattr(solver, "_kernel", lambda name: refused if name == NAMES[1] else kernel(name))
    caplog.set_level(logging.INFO, logger="splicedalign")
    p = generate(3000, 4000, 3, seed=5, homologous=0.9, divergence=0.0005, piece=3000)
    if status != 2:
        with pytest.raises(cupy.cuda.driver.CUDADriverError):
            solver.solve(p)
        return
    want, got = solve(p, "sequential"), solver.solve(p)
    assert (got.solutions, got.cells) == (want.solutions, want.cells)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) >= 1 and all("no GPU memory for the retry of" in w for w in warnings), warnings
    assert "CUDA_ERROR_OUT_OF_MEMORY" in warnings[0]


def test_gpu_segments_of_beta():
    """A long β is cut into column segments (one thread each per start): same answers."""
    from splicedalign.workloads.primer.gpu.solver import GpuSolver

    solver = GpuSolver()
    solver.min_segment_overlaps = 1
    p = generate(400, 30000, 40, seed=9, homologous=0.4, divergence=0.2, piece=400)
    assert solver.segments(p.last_start, p.n, p.k)[0] > 10
    want, got = solve(p, "sequential"), solver.solve(p)
    assert (got.solutions, got.cells) == (want.solutions, want.cells)
