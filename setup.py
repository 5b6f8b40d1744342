"""Package build (configuration in pyproject.toml): wheels ship the kernels compiled.

build_py also runs gpu/kernels.py's ``build`` (nvcc: SASS for sm_80 and sm_90, PTX for newer
GPUs) into the wheel's ``splicedalign/gpu/shipped/``. Without nvcc the build goes on and the
package compiles its kernels with NVRTC on first use (cached by CuPy afterwards).

Not for an editable install (``pip install -e``): its wheel holds only a .pth pointing at src/,
and what build_py writes goes to a temporary folder that is thrown away, so the kernels built
there were never used (~35 s, 62 CPU s of nvcc on the 2-core machine, in every ``pip install
-e`` where nvcc is, CI's included). There ``python3 -m splicedalign.kernels build`` builds them
beside the sources (README)."""

import importlib.util
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

KERNELS = Path(__file__).resolve().parent / "src" / "splicedalign" / "gpu" / "kernels.py"


class BuildPyWithKernels(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # set by setuptools (>= 64) for an editable install: see the module's docstring
            return
        spec = importlib.util.spec_from_file_location("splicedalign_build_kernels", KERNELS)
        kernels = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = kernels  # dataclasses look their module up while it executes
        spec.loader.exec_module(kernels)
        out = Path(self.build_lib) / "splicedalign" / "gpu" / "shipped"
        try:
            index = kernels.build(out)
        except (FileNotFoundError, RuntimeError) as exc:
            print(f"warning: no shipped kernels ({exc}); NVRTC compiles them on first use", file=sys.stderr)
            return
        print(f"shipped kernels: {', '.join(e['binary'] for e in index)}")


setup(cmdclass={"build_py": BuildPyWithKernels})
