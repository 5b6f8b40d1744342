"""scripts/model_spliced_launches.py --chain: the long chains' idle against their windows (chain_idle,
worked by hand) and the log lines it reads (device_spliced's event and cold lines, with and without the
cold line's "steal N ticks, window 0 at X ms; " part: a pattern once skipped every line of the newer form)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from splicedalign.workloads.spliced.gpu.launch import Tuning

SCRIPT = Path(__file__).parents[1] / "scripts" / "model_spliced_launches.py"


@pytest.fixture(scope="module")
def model():
    spec = importlib.util.spec_from_file_location("model_spliced_launches", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def test_chain_idle_by_hand(model):
    """Windows' edges at the shares' sums 0.1, 0.4; a path of 10 ms over the slots."""
    tuning = Tuning(feed_shares=(0.1, 0.3))
    # ahead 0: window 0 holds [0, 0.1) (1 ms, done at 1), window 1 lands at 2 (1 ms idle) and holds [0.1, 0.4)
    # (3 ms, done at 5), window 2 lands at 5 and holds the rest
    assert model.chain_idle([0.0, 2.0, 5.0], 0.0, 10.0, tuning) == pytest.approx(1.0)
    # ahead 0.1: window 0 holds [0, 0.2): done at 2, when window 1 lands
    assert model.chain_idle([0.0, 2.0, 5.0], 0.1, 10.0, tuning) == pytest.approx(0.0)
    # ahead 0.7: window 0 holds [0, 0.8), window 1 the rest, window 2 nothing (its landing not waited for)
    assert model.chain_idle([0.0, 2.0, 50.0], 0.7, 10.0, tuning) == pytest.approx(0.0)
    # ... and past the last slot (0.4 + 0.7 and 0.7 + 0.7 clamped to 1): windows 2 and 3 hold nothing
    assert model.chain_idle([0.0, 2.0, 50.0, 60.0], 0.7, 10.0, Tuning(feed_shares=(0.1, 0.3, 0.3))) == 0.0
    # fewer windows than the shares give: the last logged one holds the rest
    assert model.chain_idle([0.0, 3.0], 0.0, 10.0, tuning) == pytest.approx(2.0)
    with pytest.raises(SystemExit, match="4 windows"):  # more than the shares give: said, not an IndexError
        model.chain_idle([0.0, 1.0, 2.0, 3.0], 0.0, 10.0, tuning)


def test_chains_reads_both_cold_line_forms(model, tmp_path, capsys):
    """One row per process with both an event line and a cold line with two replays: the windows after
    window 0, the kernel's end after window 0 less the 2nd replay, and the idle at ahead 0 / 0.1 / 0.2
    (shares 0.1, 0.3, 0.3: edges 0.1, 0.4, 0.7; a 4 ms path: 1.1 + 0.7 + 0.6, 0.7 + 0.7 + 0.6, 0.3 + 0.7 + 0.6)."""
    kernel = "solve_many 0.0-18.2 | GPU kernel 2.8-17.8 fed 8.2 9.7 11.6 13.4"
    log = tmp_path / "cold.log"
    log.write_text(
        f"  new seed 911100 events 1 set score: feeder 2.7-2.8; {kernel}\n"
        "  cold new seed 911100: 1 set score 18.2 ms (steal 0 ticks, window 0 at 8.2 ms; replay 11.8, 9.4; "
        "GPU span 14.9 ms, kernels [14.9]; host ms split 2.0)\n"
        f"  main seed 911100 events 1 set score: feeder 2.7-2.8; {kernel}\n"
        "  cold main seed 911100: 1 set score 17.0 ms (replay 11.0, 9.0; GPU span 14.9 ms)\n"
        f"  old seed 911100 events 1 set score: feeder 2.7-2.8; {kernel}\n"
        "  cold old seed 911100: 1 set score 17.0 ms (replay 11.0; GPU span 14.9 ms)\n")  # no 2nd replay: no row
    model.chains([str(log)], 4.0, Tuning(feed_shares=(0.1, 0.3, 0.3)))
    rows = capsys.readouterr().out.splitlines()[1:]
    assert rows == ["new 911100: 18.2 | 0.0 1.5 3.4 5.2 | +0.2 | 2.40 / 2.00 / 1.60",
                    "main 911100: 17.0 | 0.0 1.5 3.4 5.2 | +0.6 | 2.40 / 2.00 / 1.60"]
