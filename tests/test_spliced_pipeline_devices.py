"""The spliced pipeline's solver processes on a node with several GPUs: a GPU job's device has
a reused process of its own that sees that device only (CUDA_VISIBLE_DEVICES set before CUDA
starts there); jobs without a device share today's one process."""

from __future__ import annotations

import os

from splicedalign.workloads.spliced import pipeline


def test_a_device_gets_its_own_process_that_sees_only_it():
    shared = pipeline.solver_process()
    try:
        on_3 = pipeline.solver_process("3")
        assert pipeline.solver_process() is shared and pipeline.solver_process("3") is on_3
        assert on_3 is not shared
        assert on_3.submit(os.getenv, "CUDA_VISIBLE_DEVICES").result(60) == "3"
        assert on_3.submit(os.getpid).result(60) != shared.submit(os.getpid).result(60)
    finally:
        for device in (None, "3"):
            pipeline._SOLVER_PROCESSES.pop(device).shutdown()
