"""Two threads planning at once (a solver per GPU) never wait on each other's batch: a batch's
exon layout takes flat.PARALLEL, and no lock shared by every batch is held around it (Python < 3.12's
functools.cached_property held one, and two threads deadlocked)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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


@pytest.mark.usefixtures("gpu_host_code")  # conftest: the warm-up's planning code
def test_two_threads_lay_out_batches_at_once():
    done = subprocess.run([sys.executable, "-c", SCENARIO], capture_output=True, text=True, timeout=240,
                          env=dict(os.environ))
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
