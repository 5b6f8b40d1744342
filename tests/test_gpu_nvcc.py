"""CI without a GPU: every CUDA kernel file compiles for Hopper (sm_90) with nvcc."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from splicedalign.gpu.kernels import PACKAGE_DIR, follows_convention, kernel_sources

KERNELS = kernel_sources()


def test_every_kernel_file_is_loaded_by_its_host_code_and_every_loaded_file_ships():
    """Only the kernels that ship: each .cu is named by a GPU host module beside it, and each
    name a host module loads is a file kernel_sources() lists (so CI compiles it below)."""
    named = set()
    for host in PACKAGE_DIR.glob("workloads/*/gpu/*.py"):
        for name in re.findall(r'"(\w+\.cu)"', host.read_text()):
            named.add(host.with_name(name))
    assert named == set(KERNELS)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None or shutil.which("c++filt") is None,
                    reason="nvcc and c++filt not on PATH")
@pytest.mark.parametrize("source", KERNELS, ids=lambda p: f"{p.parents[1].name}/{p.name}")
def test_compiles_for_sm90(source: Path, sm90_build):
    """nvcc builds it for sm_90 with every warning an error, and its register-resident rows
    stay in registers: the package's build command (sm90_build, which test_gpu_kernels' build
    test reads too), with -Werror all-warnings and --resource-usage."""
    assert follows_convention(source), "kernels.build leaves out a file off the kernel convention"
    log = sm90_build.logs.get(source.relative_to(PACKAGE_DIR).as_posix().replace("/", "-"))
    assert log is not None, f"not built: {sm90_build.error}"
    stderr = log["stderr"]
    assert log["returncode"] == 0, stderr
    # register-resident rows must stay in registers: no local-memory spills
    assert " 0 bytes spill stores" in stderr or "spill" not in stderr, stderr
    assert "bytes spill stores" not in stderr.replace(" 0 bytes spill stores", "")
