"""Walk clocks (wavefront.cu's trace_chains with -DWALK_TIMES; scripts/profile_spliced_tasks.py
--walks) without a GPU: the analysis of made-up records (ids mapped back to table rows and walk
parts, the timer fitted to the parts' events, the last walks' breakdown), the measurement run end
to end on the fake GPU of the spliced tests (the NumPy kernels; made-up clocks), and the kernel
preprocessed and compiled with and without the define where nvcc exists."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_spliced_gpu_plan import fake_gpu
from test_spliced_gpu_trace import _fake_function_with_trace, _long_chain_cases

from splicedalign.gpu.kernels import CXX_STD, INCLUDE_DIR
from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu import solver as solver_module
from splicedalign.workloads.spliced.gpu.plan import TRACE_CASE_FIELDS

SCRIPT = Path(__file__).parents[1] / "scripts" / "profile_spliced_tasks.py"
KERNEL = Path(solver_module.KERNEL_FILE)
T0 = 1_700_000_000_000_000_000  # the global timer at the made-up calls' anchor event (ns)


@pytest.fixture(scope="module")
def profile():
    spec = importlib.util.spec_from_file_location("profile_spliced_tasks", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def record(profile, exon0, n, start_ms, end_ms, sweep=0.0, moves=0.0, pred=0.0, chain=3, strips=2, taken=100,
           cells=1000, steps=50, sm=7) -> list[int]:
    """One walk_times record (WALK_FIELDS), times in ms after the anchor."""
    ns = lambda ms: int(round(ms * 1e6))  # noqa: E731
    fields = {"start": T0 + ns(start_ms), "end": T0 + ns(end_ms), "sweep": ns(sweep), "moves": ns(moves),
              "pred": ns(pred), "exon0_n": exon0 << 32 | n, "sm_chain": sm << 32 | chain,
              "strips_taken": strips << 32 | taken, "cells": cells, "steps": steps}
    return [fields[k] for k in profile.WALK_FIELDS]


def made_up_call(profile) -> dict:
    """Nine table rows in three walk parts (rows 0-2, 3-5, 6-8; the last followed), their cases'
    first exons not in table order, records in another order. The wavefront ends 20 ms after the
    anchor; each part's event comes when its last walk ends. Row 7 ends last (35 ms) and spent
    7 of its 10 ms sweeping; row 4 ends next (33 ms), 6 of its 8 ms in its moves loops."""
    exon0 = np.array([40, 0, 12, 7, 30, 55, 21, 3, 60], dtype=np.int64)
    walks = {  # row: (start, end, sweep, moves, pred, steps)
        0: (20.5, 22.0, 0.5, 0.5, 0.25, 60), 1: (20.5, 21.0, 0.2, 0.2, 0.05, 20), 2: (20.6, 22.5, 0.9, 0.6, 0.2, 76),
        3: (21.0, 24.0, 1.0, 1.5, 0.25, 120), 4: (25.0, 33.0, 1.0, 6.0, 0.5, 320), 5: (21.0, 23.0, 1.0, 0.5, 0.25, 80),
        6: (22.0, 30.0, 4.0, 3.0, 0.5, 320), 7: (25.0, 35.0, 7.0, 2.0, 0.5, 400), 8: (24.0, 26.0, 1.0, 0.5, 0.25, 80)}
    order = [4, 0, 8, 2, 7, 1, 6, 3, 5]
    records = np.array([record(profile, int(exon0[r]), 1000 + r, *walks[r][:5], steps=walks[r][5], chain=r + 1)
                        for r in order], dtype=np.uint64)
    return {"records": records, "exon0": exon0, "bounds": np.array([0, 3, 6, 9]), "followed": np.array(3),
            "ms": np.array([5.0, 20.0, 22.5, 33.0, 35.0]), "shipped_ms": np.array([4.0, 18.0, 20.0, 29.0, 31.0]),
            "call_ms": np.array([48.0, 40.0])}


def test_walk_summary_of_made_up_records(profile):
    s = profile.walk_summary(made_up_call(profile))
    assert s["problems"] == [] and s["walks"] == 9 and s["fit_us"] == pytest.approx(0.0)
    assert s["wave_ms"] == pytest.approx(15.0) and s["shipped_tail"] == pytest.approx(13.0)
    part = {r["part"]: r for r in s["parts"]}
    assert [part[p]["walks"] for p in range(3)] == [3, 3, 3]
    assert [part[p]["followed"] for p in range(3)] == [False, False, True]
    assert part[0]["start"] == pytest.approx((0.5, 0.5, 0.6)) and part[0]["end"] == pytest.approx((1.0, 2.0, 2.5))
    assert part[2]["end"] == pytest.approx((6.0, 10.0, 15.0)) and part[1]["event"] == pytest.approx(13.0)
    assert part[2]["shares"]["sweep"] == pytest.approx(12.0 / 20.0)
    last, second = s["late"][:2]
    assert (last["row"], last["part"], last["n"], last["chain"], last["bound"]) == (7, 2, 1007, 8, "sweep")
    assert (last["start"], last["end"], last["ms"]) == pytest.approx((5.0, 15.0, 10.0))
    assert (last["sweep"], last["moves"], last["pred"], last["other"]) == pytest.approx((7.0, 2.0, 0.5, 0.5))
    assert (second["row"], second["part"], second["bound"]) == (4, 1, "moves")
    assert [r["row"] for r in s["late"]] == [7, 4, 6, 8, 3]
    total = 1.5 + 0.5 + 1.9 + 3.0 + 8.0 + 2.0 + 8.0 + 10.0 + 2.0
    assert s["shares"]["sweep"] == pytest.approx((0.5 + 0.2 + 0.9 + 1 + 1 + 1 + 4 + 7 + 1) / total)
    assert sum(s["shares"].values()) == pytest.approx(1.0)
    assert s["corr"]["steps"] > 0.95  # the made-up walks' durations follow their steps


def test_walk_summary_reports_missing_and_unknown_walks(profile):
    d = made_up_call(profile)
    stray = np.array([record(profile, 99, 5, 21.0, 22.0)], dtype=np.uint64)
    d["records"] = np.concatenate([d["records"][1:], stray])  # row 4's record lost, a record of no row
    s = profile.walk_summary(d)
    assert s["problems"] == ["1 walk records name no table row", "1 table rows without a walk record, 0 with several"]
    assert s["walks"] == 8 and s["late"][0]["row"] == 7 and 4 not in [r["row"] for r in s["late"]]


def test_analyse_walks_from_a_saved_file(profile, tmp_path, capsys):
    d = made_up_call(profile)
    path = tmp_path / "walks.npz"
    np.savez_compressed(path, seeds=np.array([11]), walks=np.array(True), **{f"w11_{k}": v for k, v in d.items()})
    profile.analyse(path)
    out = capsys.readouterr().out
    assert "seed 11: 9 walks" in out and "PROBLEM" not in out
    assert "part 2 (followed): 3 | 2.00/4.00/5.00 | 6.00/10.00/15.00 | 15.00 |  60%" in out
    late = [line for line in out.splitlines() if line.startswith("    2 7 1007 8 ")]
    assert late and late[0].endswith("| sweep")


@pytest.mark.slow  # (~35 s: six traced calls on the NumPy kernels)
def test_walks_measured_on_the_fake_gpu(profile, monkeypatch, tmp_path, capsys):
    """measure_walks end to end on the fake GPU: a traced call with WALK_TIMES on the walks
    (the fake trace_chains writes a made-up record per walk only then), the shipped kernels'
    replay, the records saved with the trace table's ids and bounds, and analysed with every walk
    mapped back to its table row (cases 2 and 5 followed: the walks in 3 parts)."""
    records = np.zeros((profile.WALK_CAPACITY, len(profile.WALK_FIELDS)), dtype=np.uint64)
    count = np.zeros(1, dtype=np.uint64)
    clocked_walks = []

    def function(file, name, all_names, defines):
        shipped = {k: v for k, v in defines.items() if k != "WALK_TIMES"}
        kernel = _fake_function_with_trace(file, name, all_names, shipped)
        if not name.startswith("trace_chains") or "WALK_TIMES" not in defines:
            return kernel

        def clocked(grid, block, args):
            kernel(grid, block, args)
            table = args[0]
            clocked_walks.append(len(table))
            for row in table.tolist():
                i = int(count[0])
                count[0] += 1
                exon0, n = row[TRACE_CASE_FIELDS.index("exon0")], row[TRACE_CASE_FIELDS.index("n")]
                records[i] = record(profile, exon0, n, 1.0 + i, 2.0 + i, sweep=0.5, moves=0.25, pred=0.1)
        return clocked
    fake_gpu(monkeypatch, function)
    monkeypatch.setattr(solver_module, "kernel_defines", solver_module.kernel_defines)  # restored after
    monkeypatch.setattr(profile.Clocked, "global_array", lambda self, name, shape, module=-1: {
        "walk_times": records, "walk_count": count}[name])
    gpu = solver_module.GpuSolver(tuning=launch.Tuning(throughput_cases=4, walk_shares=(0.2,)))
    out = tmp_path / "walks.npz"
    profile.measure_walks([5], out, make=_long_chain_cases, gpu=gpu)
    assert sum(clocked_walks) == 30  # 10 walks in each of the warm-up's two clocked calls and the measured one
    profile.analyse(out)
    text = capsys.readouterr().out
    print(text)
    assert "seed 5: 10 cases, 10 walks in 3 parts" in text and "answers equal" in text
    assert "seed 5: 10 walks" in text and "PROBLEM" not in text and "part 2 (followed): 2 |" in text


def nvcc_preprocessed(defines: tuple[str, ...]) -> str:
    done = subprocess.run([shutil.which("nvcc"), CXX_STD, f"-I{INCLUDE_DIR}", f"-I{KERNEL.parent}", "-arch=sm_90",
                           "-E", *defines, str(KERNEL)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


WALK_NAMES = ("walk_times", "walk_count", "w_start", "w_sweep", "clock_ns")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_walk_clocks_only_with_their_define():
    """Without WALK_TIMES (nor TASK_TIMES) no walk clock reaches the compiler: the shipped
    variants compile to what they were; with it every piece does."""
    shipped = nvcc_preprocessed(())
    assert "trace_chains" in shipped and not [w for w in WALK_NAMES if w in shipped]
    clocked = nvcc_preprocessed(("-DWALK_TIMES=64",))
    assert all(w in clocked for w in WALK_NAMES)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_walk_clocks_compile_for_sm90(tmp_path):
    """The shipped instances with walk clocks (and with task clocks beside them) build for sm_90
    with every warning an error (without them: test_gpu_nvcc)."""
    done = subprocess.run([shutil.which("nvcc"), CXX_STD, f"-I{INCLUDE_DIR}", f"-I{KERNEL.parent}", "-arch=sm_90",
                           "-cubin", "-Werror", "all-warnings", "-DWALK_TIMES=64", "-DTASK_TIMES=64",
                           "-o", str(tmp_path / "walks.cubin"), str(KERNEL)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
