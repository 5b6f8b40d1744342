"""numba's OpenMP threads spin briefly (core.jit.openmp_team): the threading layer loads with
GOMP_SPINCOUNT=3000 unless the process chose its own wait policy or spin, and no one else sees it;
OpenMP is numba's first layer unless the process named its own."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import pytest

from splicedalign.core import jit

NUMBA_ORDER = ["tbb", "omp", "workqueue"]  # numba's own order of its threading layers


def _fake_parallel() -> tuple[types.ModuleType, list]:
    """A stand-in for numba.np.ufunc.parallel whose _launch_threads records the environment
    it loads the layer with."""
    seen: list = []
    parallel = types.ModuleType("fake_parallel")
    parallel._is_initialized = False
    parallel.config = types.SimpleNamespace(THREADING_LAYER_PRIORITY=list(NUMBA_ORDER))

    def _launch_threads() -> None:
        if parallel._is_initialized:
            return
        seen.append({k: os.environ.get(k) for k in jit.OMP_USER} | {"layers": parallel.config.THREADING_LAYER_PRIORITY})
        parallel._is_initialized = True

    parallel._launch_threads = _launch_threads
    return parallel, seen


def test_layer_loads_with_a_short_spin_and_the_environment_is_restored(monkeypatch):
    for key in jit.OMP_USER + jit.LAYER_USER:
        monkeypatch.delenv(key, raising=False)
    parallel, seen = _fake_parallel()
    jit.openmp_team(parallel)
    wrapped = parallel._launch_threads
    jit.openmp_team(parallel)  # idempotent: not wrapped twice
    assert parallel._launch_threads is wrapped
    parallel._launch_threads()
    parallel._launch_threads()  # loaded once
    assert seen == [{"OMP_WAIT_POLICY": None, "GOMP_SPINCOUNT": "3000", "layers": ["omp", "tbb", "workqueue"]}]
    assert not any(k in os.environ for k in jit.OMP_USER)


@pytest.mark.parametrize("key,value", [("OMP_WAIT_POLICY", "active"), ("GOMP_SPINCOUNT", "300000"),
                                       ("NUMBA_THREADING_LAYER", "tbb"),
                                       ("NUMBA_THREADING_LAYER_PRIORITY", "tbb workqueue omp")])
def test_a_process_that_chose_its_own_keeps_it(monkeypatch, key, value):
    """Its own spin or wait policy (libgomp reads it); its own layer or order (numba reads those
    itself into its config, at import: the wrap leaves numba's order alone)."""
    for k in jit.OMP_USER + jit.LAYER_USER:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv(key, value)
    parallel, seen = _fake_parallel()
    jit.openmp_team(parallel)
    parallel._launch_threads()
    spin = ({k: (value if k == key else None) for k in jit.OMP_USER} if key in jit.OMP_USER
            else {"OMP_WAIT_POLICY": None, "GOMP_SPINCOUNT": "3000"})
    layers = NUMBA_ORDER if key in jit.LAYER_USER else jit.LAYER_PRIORITY
    assert seen == [spin | {"layers": layers}]


def test_libgomp_reads_it_in_a_fresh_process():
    """End to end: numba's own layer launch in a fresh process that imported splicedalign; GNU
    OpenMP prints its settings when loaded (OMP_DISPLAY_ENV)."""
    code = ("import os, splicedalign, numba\n"
            "from numba.np.ufunc import parallel\n"
            "parallel._launch_threads()\n"
            "print(numba.threading_layer(), os.environ.get('GOMP_SPINCOUNT'))\n")
    env = {k: v for k, v in os.environ.items() if k not in jit.OMP_USER}
    env["OMP_DISPLAY_ENV"] = "VERBOSE"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    layer, spin = done.stdout.split()
    if layer != "omp":
        pytest.skip(f"numba's threading layer here is {layer}, not GNU OpenMP")
    assert spin == "None"  # restored: child processes and other libraries do not see it
    assert "GOMP_SPINCOUNT = '3000'" in done.stderr, done.stderr[-2000:]
