"""Two threads planning at once (a solver per GPU) never wait on each other's batch: a batch's
exon layout takes flat.PARALLEL, and no lock shared by every batch is held around it (Python < 3.12's
functools.cached_property held one, and two threads deadlocked)."""

from __future__ import annotations

import os
import subprocess
import sys

SCENARIO = r"""
import threading, time
import numpy as np
from splicedalign.workloads.spliced import synthetic
from splicedalign.workloads.spliced.gpu.flat import PARALLEL, FlatCases, _is_run

every = FlatCases.of(synthetic.tiny_set(bases=3))
backwards = np.arange(len(every))[::-1]
a, b = every.select(backwards), every.select(backwards)  # two batches whose layout is a compiled pass
assert not _is_run(a.source) and not _is_run(b.source)
every.select(backwards).first  # compiled (or loaded) before the threads start

def planner():  # holds PARALLEL, as plan_tasks does, while the other thread is inside b's layout
    with PARALLEL:
        other = threading.Thread(target=lambda: b.first, daemon=True)
        other.start()
        time.sleep(0.5)  # the other thread now waits for PARALLEL inside b's layout
        a.first  # another batch's layout: must not wait for the other thread
    other.join()

t = threading.Thread(target=planner, daemon=True)
t.start()
t.join(30)
assert not t.is_alive(), "deadlock"
assert (a.first == b.first).all() and (a.order == b.order).all()
print("ok")
"""


def test_two_threads_lay_out_batches_at_once():
    done = subprocess.run([sys.executable, "-c", SCENARIO], capture_output=True, text=True, timeout=240,
                          env=dict(os.environ))
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_a_splitter_thread_splits_while_the_planner_holds_the_lock():
    """A thread marked by flat.unlocked_passes (GpuSolver._split_ahead's splitter) splits a batch
    (FlatCases.of: its compiled passes) while another thread holds PARALLEL, on numba's thread-safe
    layers; the same arrays as the split on the caller's thread. Unmarked, it waits for the lock."""
    import threading

    import numba
    import numpy as np

    from splicedalign.workloads.spliced import synthetic
    from splicedalign.workloads.spliced.gpu.flat import PARALLEL, FlatCases, unlocked_passes

    cases = synthetic.tiny_set(bases=3)
    want = FlatCases.of(cases)  # (compiled or loaded, a layer chosen)
    if numba.threading_layer() not in ("omp", "tbb"):
        import pytest

        pytest.skip(f"numba's {numba.threading_layer()} layer is not thread-safe: the split takes the lock")
    for marked in (True, False):
        got: list = []

        def split(marked=marked, got=got) -> None:
            numba.set_num_threads(1)
            if marked:
                unlocked_passes()
            got.append(FlatCases.of(cases))

        with PARALLEL:
            thread = threading.Thread(target=split, daemon=True)
            thread.start()
            thread.join(10 if marked else 0.5)
            assert thread.is_alive() != marked
        thread.join(30)
        assert all((np.asarray(getattr(got[0], k)) == np.asarray(getattr(want, k))).all()
                   for k in ("first", "last", "order", "exon_start", "n"))
