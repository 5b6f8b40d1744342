"""The CUDA files every workload ships, one convention for all of them (standard library only,
so the package build can load this file by path without the package's dependencies).

Constants the host and a kernel share are defined once, in Python, as a kernel file's
*defines*. NVRTC gets them as ``-D`` macros (``gpu.device.function``); nvcc builds read them
from the generated header ``<stem>.defines.h`` beside the ``.cu`` (written by ``write_header``,
kept current by a test), which the file includes under ``#ifndef __CUDACC_RTC__``. The header
may also list the template instances the host asks for (``<KERNEL>_INSTANCES(X)``), which the
file's nvcc-only block then instantiates from there rather than from a list of its own.

Shipped binaries (no compile stall on a fresh machine): ``build`` compiles each kernel file that
follows this convention with nvcc into one fatbin (SASS for its archs, PTX of the last for newer
GPUs) holding the template instances its nvcc-only block instantiates, and writes ``index.json``
(per file: the digest of the sources it was built from, its defines, the lowered symbol of each
kernel). ``shipped_binary`` finds the binary a request may use: same sources, same defines.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
INCLUDE_DIR = Path(__file__).resolve().parent / "include"  # device helpers every kernel may include
SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"  # built binaries and their index.json
CXX_STD = "-std=c++17"
ARCHS = ("80", "90")  # SASS shipped for these; the last one's PTX for newer GPUs (JIT once by the driver)
# A kernel file that needs a newer GPU than ARCHS[0] names its archs in a line of its own, e.g.
# "// splicedalign: archs 90" (thread-block clusters: sm_90); its solver asks for it only on such GPUs.
ARCHS_MARK = re.compile(r"^// splicedalign: archs ((?:\d+ ?)+)", re.M)
HEADER_SUFFIX = ".defines.h"
ENV_SWITCH = "SPLICEDALIGN_SHIPPED_KERNELS"  # "0": ignore shipped binaries, compile with NVRTC


def kernel_sources() -> list[Path]:
    """Every CUDA file shipped: each workload keeps its kernels beside its GPU host code."""
    return sorted(PACKAGE_DIR.glob("workloads/*/gpu/*.cu"))


# ---- generated headers: the defines nvcc builds read ----------------------------------------

def header_path(source: Path) -> Path:
    return source.with_name(source.stem + HEADER_SUFFIX)


def template_instances(names: Iterable[str]) -> dict[str, list[str]]:
    """{template kernel: the template arguments of each of its instances, in order} of the name
    expressions ``names`` (``nw_biwfa<true>``; plain kernels left out)."""
    out: dict[str, list[str]] = {}
    for name in names:
        if m := re.fullmatch(r"(\w+)<(.+)>", name):
            out.setdefault(m[1], []).append(m[2])
    return out


def header_text(defines: Mapping[str, int], origin: str, instances: Iterable[str] = ()) -> str:
    """``defines`` as a C header; ``origin`` names the Python definition they come from. With
    ``instances`` (name expressions) also, for each template kernel among them, the list macro
    ``<KERNEL>_INSTANCES(X)``: ``X(template arguments)`` an instance, for the nvcc-only block."""
    lines = [f"// Generated from {origin} by `python -m splicedalign.kernels headers`; do not edit.",
             "#pragma once"]
    lines += [f"#define {k} {int(v)}" for k, v in defines.items()]
    for kernel, arguments in template_instances(instances).items():
        lines.append(f"#define {kernel.upper()}_INSTANCES(X) \\")
        lines += [f"    X({a})" + (" \\" if i + 1 < len(arguments) else "") for i, a in enumerate(arguments)]
    return "\n".join(lines) + "\n"


def header_defines(source: Path) -> dict[str, int] | None:
    """The defines a kernel file's generated header holds (None: it has none)."""
    path = header_path(source)
    if not path.exists():
        return None
    return {m[1]: int(m[2]) for m in re.finditer(r"^#define (\w+) (-?\d+)$", path.read_text(), re.M)}


def follows_convention(source: Path) -> bool:
    """Whether ``source`` takes its constants as this module says (a generated header, or no
    constants at all) rather than as ``#ifndef X / #define X`` defaults, which nvcc would
    build with values the host may not use: only such files ship compiled."""
    return header_path(source).exists() or not re.search(r"#ifndef (\w+)\s*\n\s*#define \1\b", source.read_text())


def write_header(source: Path, defines: Mapping[str, int], origin: str, instances: Iterable[str] = ()) -> bool:
    """Write ``source``'s generated header (header_text); True when it changed."""
    path, text = header_path(source), header_text(defines, origin, instances)
    if path.exists() and path.read_text() == text:
        return False
    path.write_text(text)
    return True


# ---- shipped binaries -----------------------------------------------------------------------

def local_headers(source: Path) -> list[Path]:
    """The device headers beside ``source`` that it includes (``#include "name.cuh"``: code a
    workload's kernel files share, e.g. nw's wfa_common.cuh)."""
    names = re.findall(r'^#include "([\w.]+\.cuh)"', source.read_text(), re.M)
    return [source.with_name(name) for name in names if source.with_name(name).exists()]


def source_archs(source: Path) -> tuple[str, ...]:
    """The archs ``source`` is built for: those its ARCHS_MARK line names, else ARCHS."""
    mark = ARCHS_MARK.search(source.read_text())
    return tuple(mark[1].split()) if mark else ARCHS


def source_digest(source: Path) -> str:
    """What a binary of ``source`` was built from: the file, its generated header, the device
    headers beside it that it includes, the shared device headers and the compiler options."""
    h = hashlib.sha256(" ".join((CXX_STD, *source_archs(source))).encode())
    for path in (source, header_path(source), *local_headers(source), *sorted(INCLUDE_DIR.glob("*"))):
        h.update(path.name.encode())
        h.update(path.read_bytes() if path.exists() else b"")
    return h.hexdigest()


def normal_name(expression: str) -> str:
    """A kernel's name expression without spaces: ``wavefront<long long, 4, true, 0>`` and
    the demangler's spelling compare equal."""
    return re.sub(r"\s+", "", expression)


def _nvcc_command(nvcc: str, source: Path, out: Path, keep: Path) -> list[str]:
    archs = source_archs(source)
    gencode = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in archs]
    gencode.append(f"-gencode=arch=compute_{archs[-1]},code=compute_{archs[-1]}")
    return [nvcc, CXX_STD, f"-I{INCLUDE_DIR}", "-fatbin", *gencode, "-keep", f"-keep-dir={keep}",
            "-o", str(out), str(source)]


def _lowered_names(ptx_dir: Path, cxxfilt: str) -> dict[str, str]:
    """{name expression (normal_name) -> lowered symbol} of every kernel entry in the PTX."""
    symbols = sorted({m for p in ptx_dir.glob("*.ptx") for m in re.findall(r"\.entry\s+([\w$]+)", p.read_text())})
    demangled = subprocess.run([cxxfilt], input="\n".join(symbols), capture_output=True, text=True,
                               check=True).stdout.splitlines()
    out = {}
    for symbol, text in zip(symbols, demangled):
        # a name expression names types as the .cu's scope sees them (no anonymous namespace)
        text = text.removeprefix("void ").replace("(anonymous namespace)::", "")
        depth, end = 0, len(text)
        for i, ch in enumerate(text):  # the name ends at the first "(" outside template brackets
            depth += ch == "<"
            depth -= ch == ">"
            if ch == "(" and depth == 0:
                end = i
                break
        out[normal_name(text[:end])] = symbol
    return out


def _build_one(source: Path, out_dir: Path, nvcc: str, cxxfilt: str) -> dict:
    digest = source_digest(source)
    binary = out_dir / f"{source.parents[1].name}-{source.stem}-{digest[:12]}.fatbin"
    with tempfile.TemporaryDirectory() as keep:
        done = subprocess.run(_nvcc_command(nvcc, source, binary, Path(keep)), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"nvcc failed on {source}:\n{done.stderr}")
        symbols = _lowered_names(Path(keep), cxxfilt)
    return {"source": source.relative_to(PACKAGE_DIR).as_posix(), "digest": digest,
            "defines": header_defines(source) or {}, "binary": binary.name, "archs": list(source_archs(source)),
            "symbols": symbols}


def build(out_dir: Path = SHIPPED_DIR, sources: list[Path] | None = None, nvcc: str | None = None,
          jobs: int | None = None) -> list[dict]:
    """Compile every kernel file that follows the convention into ``out_dir`` (fatbins and
    index.json, replacing what was there); returns the index. Raises FileNotFoundError when nvcc
    or c++filt is missing (the package then ships no binaries and NVRTC compiles on first use)."""
    nvcc = nvcc or shutil.which("nvcc")
    cxxfilt = shutil.which("c++filt")
    if not nvcc or not cxxfilt:
        raise FileNotFoundError("nvcc and c++filt are needed to build the shipped kernels")
    sources = [s for s in (sources or kernel_sources()) if follows_convention(s)]
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in (*out_dir.glob("*.fatbin"), out_dir / "index.json"):
        old.unlink(missing_ok=True)
    with ThreadPoolExecutor(jobs or min(4, os.cpu_count() or 1)) as pool:
        index = list(pool.map(lambda s: _build_one(s, out_dir, nvcc, cxxfilt), sources))
    (out_dir / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    return index


@dataclass(frozen=True)
class ShippedBinary:
    path: Path
    symbols: Mapping[str, str]  # normal_name(expression) -> lowered symbol


@cache
def _index(shipped_dir: Path) -> dict[str, dict]:
    path = shipped_dir / "index.json"
    if not path.exists():
        return {}
    return {entry["source"]: entry for entry in json.loads(path.read_text())}


@cache
def _current_digest(source: Path) -> str:
    return source_digest(source)


def shipped_binary(source: Path, defines: Mapping[str, int], shipped_dir: Path = SHIPPED_DIR) -> ShippedBinary | None:
    """The shipped binary built from ``source`` as it is now with exactly ``defines``, or None
    (none shipped, the sources changed since, other defines, or switched off by ENV_SWITCH=0)."""
    if os.environ.get(ENV_SWITCH, "1") == "0":
        return None
    try:
        entry = _index(shipped_dir).get(source.resolve().relative_to(PACKAGE_DIR).as_posix())
    except ValueError:  # a kernel file outside the package
        return None
    if (entry is None or entry["defines"] != dict(defines) or entry["digest"] != _current_digest(source)
            or not (shipped_dir / entry["binary"]).exists()):
        return None
    return ShippedBinary(shipped_dir / entry["binary"], entry["symbols"])


if __name__ == "__main__":  # python src/splicedalign/gpu/kernels.py [OUT_DIR]: what the package build runs
    import sys

    built = build(Path(sys.argv[1]) if len(sys.argv) > 1 else SHIPPED_DIR)
    print(f"{len(built)} kernel files built: " + ", ".join(e["binary"] for e in built))
