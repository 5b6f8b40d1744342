"""CuPy access and kernel loading. CuPy is imported here only, on first use."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from splicedalign.solvers import SolverUnavailable

KERNEL_DIR = Path(__file__).resolve().parents[1] / "kernels"
NVRTC_OPTIONS = ("-std=c++17",)
POISON = -987_654_321  # what unwritten device rows hold in checked runs


@lru_cache(maxsize=None)
def cupy() -> Any:
    """The cupy module, or SolverUnavailable with one line saying why not."""
    try:
        import cupy as cp
    except ImportError:
        raise SolverUnavailable(
            "GPU solvers need CuPy and a CUDA GPU: pip install 'splicedalign[gpu]'"
        ) from None
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDA driver missing or broken
        raise SolverUnavailable(f"GPU solvers need a CUDA GPU: {exc}") from None
    if count == 0:
        raise SolverUnavailable("GPU solvers need a CUDA GPU: none found")
    return cp


@lru_cache(maxsize=None)
def _module(file: str, names: tuple[str, ...]) -> Any:
    cp = cupy()
    return cp.RawModule(code=(KERNEL_DIR / file).read_text(), options=NVRTC_OPTIONS,
                        name_expressions=names)


def function(file: str, name: str, all_names: tuple[str, ...]) -> Any:
    """Kernel ``name`` (a template instance listed in ``all_names``) of kernels/``file``."""
    return _module(file, all_names).get_function(name)


def check(cp: Any) -> None:
    """Raise on any CUDA error of the work queued so far: CuPy checks every launch's return
    code, and a kernel's asynchronous fault surfaces here as CUDARuntimeError."""
    cp.cuda.runtime.deviceSynchronize()


@lru_cache(maxsize=None)
def device_info() -> dict[str, Any]:
    cp = cupy()
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    return {
        "name": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
        "sms": props["multiProcessorCount"],
        "smem_optin": props["sharedMemPerBlockOptin"],
        "cc": f"{props['major']}.{props['minor']}",
        "driver": cp.cuda.runtime.driverGetVersion(),
    }
