"""The CLI's garbage-collection settings (``core.collection.tune_short_process``): a larger
first threshold, and objects frozen at exit, registered once however often it runs."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import atexit, gc
freezes, freeze = [], gc.freeze
gc.freeze = lambda: freezes.append(freeze())  # counts the freezes at exit
atexit.register(lambda: print(len(freezes), gc.get_freeze_count() > 0, flush=True))  # runs after (LIFO)
from splicedalign.core.collection import SHORT_PROCESS_THRESHOLD, tune_short_process
tune_short_process()
tune_short_process()
print(gc.get_threshold()[0] == SHORT_PROCESS_THRESHOLD, gc.get_freeze_count() == 0)
"""


def test_threshold_set_and_one_freeze_only_at_exit():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True", "1", "True"]
