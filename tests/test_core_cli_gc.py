"""The CLI's garbage-collection settings (``splicedalign.cli.tune_gc``): a larger first threshold,
and objects frozen at exit, registered once however often ``main`` runs in a process."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import atexit, gc
freezes, freeze = [], gc.freeze
gc.freeze = lambda: freezes.append(freeze())  # counts the freezes at exit
atexit.register(lambda: print(len(freezes), gc.get_freeze_count() > 0, flush=True))  # runs after (LIFO)
from splicedalign.cli import GC_THRESHOLD, tune_gc
tune_gc()
tune_gc()
print(gc.get_threshold()[0] == GC_THRESHOLD, gc.get_freeze_count() == 0)
"""


def test_threshold_set_and_one_freeze_only_at_exit():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True", "1", "True"]
