"""One GPU convention for every workload (gpu.kernels, splicedalign.kernels): each kernel file's
constants come from one Python definition (NVRTC: -D; nvcc: the generated header, kept
current here), every kernel a solver asks for ships in the nvcc build, and the loader takes a
shipped binary only when it was built from these very sources with these very defines."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from splicedalign import kernels as shipped
from splicedalign.gpu import kernels
from splicedalign.workloads.spliced.gpu import launch

FILES = shipped.kernel_files()
WITH_DEFINES = [k for k in FILES if k.defines]
NVCC = shutil.which("nvcc") is not None and shutil.which("c++filt") is not None


def test_every_kernel_file_is_listed_once():
    assert sorted(k.source for k in FILES) == sorted(set(k.source for k in FILES))
    assert {k.source for k in FILES} <= set(kernels.kernel_sources())


@pytest.mark.parametrize("k", WITH_DEFINES, ids=lambda k: f"{k.source.parents[1].name}/{k.source.name}")
def test_generated_header_is_current(k: shipped.KernelFile):
    header = kernels.header_path(k.source)
    assert header.exists() and header.read_text() == kernels.header_text(k.defines, k.origin, k.header_instances), \
        "regenerate: python -m splicedalign.kernels headers"
    assert kernels.header_defines(k.source) == dict(k.defines)


def test_header_lists_each_template_kernels_instances_in_order():
    """A file with listed_instances (nw's wfa.cu) instantiates its shipped variants from its
    header: one list macro a template kernel, its instances' template arguments in the given order."""
    text = kernels.header_text({"A": 1}, "here", ("k<1, true>", "plain", "j<int>", "k<2, false>"))
    assert text.splitlines()[2:] == ["#define A 1", "#define K_INSTANCES(X) \\", "    X(1, true) \\",
                                     "    X(2, false)", "#define J_INSTANCES(X) \\", "    X(int)"]
    wfa = next(k for k in FILES if k.source.name == "wfa.cu")
    assert wfa.listed_instances and "NW_WFA_INSTANCES(NW_WFA)" in wfa.source.read_text()
    assert not re.search(r"^NW_WFA\(", wfa.source.read_text(), re.M)  # no list of its own


@pytest.mark.parametrize("k", WITH_DEFINES, ids=lambda k: f"{k.source.parents[1].name}/{k.source.name}")
def test_kernel_file_reads_its_constants_only_from_the_header(k: shipped.KernelFile):
    """No second definition: nvcc builds include the header, NVRTC gets -D, and no
    ``#ifndef X / #define X`` default can drift from the Python value."""
    source = k.source.read_text()
    assert f'#include "{kernels.header_path(k.source).name}"' in source
    redefined = [name for name in k.defines if re.search(rf"#\s*define\s+{name}\b", source)]
    assert not redefined


def test_shared_limits_are_defined_once():
    """Limits every kernel shares live in the shared header, not in a workload's file."""
    for source in kernels.kernel_sources():
        assert not re.search(r"\bWAIT_LIMIT_CYCLES\s*=", source.read_text()), source


def test_spliced_variants_are_the_shipped_instances():
    """What the spliced solver asks for (every launch configuration) is exactly what
    wavefront.cu's nvcc block instantiates: 16 wavefront kernels per target-end mode, trace per
    wavefront shape (type, rows per lane, profile: a walk recomputes moves as its launch's kernel
    computes them) and mode, gather and the free ends' finals per type, the inputs' encoding, and
    the recomputing int launch's checkpoint kernels (score and walks, per profile and ends mode) at
    the shipped interval."""
    names = next(k.names for k in FILES if k.source.name == "wavefront.cu")
    assert len(names) == 57 and "encode_inputs" in names and sum(n.startswith("wavefront<") for n in names) == 32
    interval = f", {launch.TUNING.checkpoint_blocks}>"
    for kernel in ("wavefront_checkpoints<int, 8, ", "trace_chains_checkpoints<int, 8, "):
        assert sum(n.startswith(kernel) and n.endswith(interval) for n in names) == 4
    assert sum(n.startswith("trace_chains<") for n in names) == 12
    assert sum(n.endswith(", true>") for n in names) == 16 + 6


def _fake_index(tmp_path: Path, source: Path, defines: dict, digest: str | None = None) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "x.fatbin").write_bytes(b"")
    entry = {"source": source.relative_to(kernels.PACKAGE_DIR).as_posix(),
             "digest": digest or kernels.source_digest(source), "defines": defines, "binary": "x.fatbin",
             "archs": list(kernels.ARCHS), "symbols": {"k<int>": "_Z1kIiEvv"}}
    (tmp_path / "index.json").write_text(json.dumps([entry]))
    return tmp_path


def test_loader_takes_a_shipped_binary_only_for_the_same_sources_and_defines(tmp_path, monkeypatch):
    k = WITH_DEFINES[0]
    defines = dict(k.defines)
    found = kernels.shipped_binary(k.source, defines, _fake_index(tmp_path / "a", k.source, defines))
    assert found is not None and found.symbols["k<int>"] == "_Z1kIiEvv"
    other = {**defines, next(iter(defines)): -12345}
    assert kernels.shipped_binary(k.source, other, tmp_path / "a") is None  # other defines: NVRTC
    stale = _fake_index(tmp_path / "b", k.source, defines, digest="0" * 64)
    assert kernels.shipped_binary(k.source, defines, stale) is None  # sources edited since the build
    monkeypatch.setenv(kernels.ENV_SWITCH, "0")
    assert kernels.shipped_binary(k.source, defines, tmp_path / "a") is None
    assert kernels.shipped_binary(k.source, defines, tmp_path / "none") is None


def test_digest_covers_the_headers_a_kernel_file_includes_beside_it(tmp_path):
    """nw's wfa.cu and wfa_cluster.cu share wfa_common.cuh: a binary built before that header
    changed must not be taken for either file (and other kernel files of the folder keep theirs)."""
    gpu = Path(shipped.__file__).parent / "workloads" / "nw" / "gpu"
    for name in ("wfa.cu", "wfa_cluster.cu", "wfa_common.cuh", "batch.cu"):
        shutil.copy(gpu / name, tmp_path / name)
    wfa, cluster, batch = (tmp_path / n for n in ("wfa.cu", "wfa_cluster.cu", "batch.cu"))
    assert kernels.local_headers(wfa) == kernels.local_headers(cluster) == [tmp_path / "wfa_common.cuh"]
    before = {p: kernels.source_digest(p) for p in (wfa, cluster, batch)}
    (tmp_path / "wfa_common.cuh").write_text((tmp_path / "wfa_common.cuh").read_text() + "// changed\n")
    assert kernels.source_digest(wfa) != before[wfa]
    assert kernels.source_digest(cluster) != before[cluster]
    assert kernels.source_digest(batch) == before[batch]


def test_name_expressions_compare_without_spaces():
    assert kernels.normal_name("wavefront<long long, 4, true, 0>") == "wavefront<longlong,4,true,0>"


@pytest.mark.slow
@pytest.mark.skipif(not NVCC, reason="nvcc and c++filt not on PATH (the package then ships no binaries)")
def test_build_ships_every_kernel_the_solvers_ask_for(sm90_build, monkeypatch):
    """nvcc builds each kernel file into a fatbin; its index maps every name a solver asks for
    to a symbol, and nothing else ships. (For sm_90 alone here: the package build adds sm_80
    and PTX, which change neither the names nor the symbols, at three times the compile time.
    The build is the session's sm90_build, which test_gpu_nvcc also reads.)"""
    monkeypatch.setattr(kernels, "ARCHS", ("90",))
    monkeypatch.setattr(kernels, "_current_digest", kernels.source_digest)  # digests follow ARCHS
    assert sm90_build.error is None, sm90_build.error
    index, folder = {e["source"]: e for e in sm90_build.index}, sm90_build.folder
    assert set(index) == {k.source.relative_to(kernels.PACKAGE_DIR).as_posix() for k in FILES}
    for k in FILES:
        entry = index[k.source.relative_to(kernels.PACKAGE_DIR).as_posix()]
        assert set(entry["symbols"]) == {kernels.normal_name(n) for n in k.names}, k.source
        assert entry["defines"] == dict(k.defines) and (folder / entry["binary"]).stat().st_size > 0
        assert kernels.shipped_binary(k.source, k.defines, folder) is not None


@pytest.mark.gpu
def test_shipped_binaries_load_on_this_gpu():
    """On a device with built binaries (python -m splicedalign.kernels build): every listed
    kernel resolves from its shipped binary."""
    from splicedalign.core.errors import SolverUnavailable
    from splicedalign.gpu import device

    try:
        device.cupy()
    except SolverUnavailable as exc:
        pytest.skip(f"no GPU: {exc}")
    if not (kernels.SHIPPED_DIR / "index.json").exists():
        pytest.skip("no shipped binaries here: python -m splicedalign.kernels build")
    for k in FILES:
        binary = kernels.shipped_binary(k.source, k.defines)
        assert binary is not None, f"{k.source.name}: no matching shipped binary (rebuild)"
        module = device._shipped_module(binary.path)
        assert module is not None
        for name in k.names:
            module.get_function(binary.symbols[kernels.normal_name(name)])


# PTX features that need sm_90 (thread-block clusters: ptxas refuses them for sm_80 with "Feature '::cluster'
# requires .target sm_90 or higher", which stopped the whole package build)
SM90_FEATURES = re.compile(r"barrier\.cluster|__cluster_dims__|\bmapa\b|%cluster|shared::cluster")


@pytest.mark.parametrize("k", FILES, ids=lambda k: f"{k.source.parents[1].name}/{k.source.name}")
def test_a_file_built_for_sm80_uses_no_sm90_feature(k: shipped.KernelFile):
    """The package build compiles each kernel file for its archs (``source_archs``: ARCHS unless the
    file names its own): a file whose code (or a header beside it that it includes) uses thread-block
    clusters names sm_90 alone, so the build for ARCHS[0] never sees them (the test suite's nvcc
    builds are for sm_90 only and would not catch it)."""
    archs = kernels.source_archs(k.source)
    assert list(archs) == sorted(archs, key=int) and set(archs) <= set(kernels.ARCHS), archs
    text = "".join(p.read_text() for p in (k.source, *kernels.local_headers(k.source)))
    if SM90_FEATURES.search(text):
        assert min(map(int, archs)) >= 90, f"{k.source.name} uses sm_90 features but is built for {archs}"


def test_nvcc_builds_a_file_for_the_archs_it_names(tmp_path, monkeypatch):
    """A file that names its archs gets SASS for those and PTX for the last; the others get ARCHS; the
    digest (what a shipped binary was built from) follows the archs a file is built for."""
    marked, plain = tmp_path / "marked.cu", tmp_path / "plain.cu"
    marked.write_text("// splicedalign: archs 90 (clusters)\n__global__ void k() {}\n")
    plain.write_text("__global__ void k() {}\n")
    gencode = [a for a in kernels._nvcc_command("nvcc", marked, tmp_path / "o", tmp_path) if a.startswith("-gencode")]
    assert gencode == ["-gencode=arch=compute_90,code=sm_90", "-gencode=arch=compute_90,code=compute_90"]
    assert kernels.source_archs(plain) == kernels.ARCHS
    before = kernels.source_digest(marked), kernels.source_digest(plain)
    monkeypatch.setattr(kernels, "ARCHS", ("90",))
    assert kernels.source_digest(marked) == before[0] and kernels.source_digest(plain) != before[1]
    plain.write_text("// splicedalign: archs 80 90\n__global__ void k() {}\n")
    assert kernels.source_archs(plain) == ("80", "90")


@pytest.mark.slow
@pytest.mark.skipif(not NVCC, reason="nvcc and c++filt not on PATH (the package then ships no binaries)")
def test_package_build_of_the_cluster_kernel(tmp_path):
    """The package's own archs (not the suite's sm_90 alone) for the file that names sm_90: it builds, for
    sm_90 alone (before it named its archs, the sm_80 build failed and with it the whole install step)."""
    source = kernels.PACKAGE_DIR / "workloads/nw/gpu/wfa_cluster.cu"
    (entry,) = kernels.build(tmp_path, [source])
    assert entry["archs"] == ["90"] and (tmp_path / entry["binary"]).stat().st_size > 0


def test_build_without_nvcc_compiles_the_host_code_and_says_why_no_binaries(monkeypatch, tmp_path, capsys):
    """``python -m splicedalign.kernels build`` where the CUDA toolkit is missing: the numba host
    code still goes into numba's cache, one line says the kernels come from NVRTC, exit 0."""
    ran = []
    monkeypatch.setattr(shipped, "compile_host_code", lambda: ran.append(True))
    monkeypatch.setattr(shipped, "compile_bytecode", lambda: ran.append("bytecode") or True)
    monkeypatch.setattr(shipped, "compile_library_bytecode", lambda: ran.append("libraries") or (0, 0))
    monkeypatch.setattr(kernels.shutil, "which", lambda name: None)
    assert shipped.main(["build", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert ran == [True, "bytecode", "libraries"] and out[-1].startswith("no shipped kernels (nvcc and c++filt")
    ran.clear()
    assert shipped.main(["build", "--out", str(tmp_path), "--no-libraries"]) == 0
    assert ran == [True, "bytecode"]
    assert not list(tmp_path.iterdir())


def test_host_step_writes_the_package_bytecode():
    """``compile_bytecode`` (run by ``host`` and ``build``) leaves every module of the package
    with current bytecode for this interpreter, as an installed wheel has: an interpreter that
    may not write bytecode (PYTHONDONTWRITEBYTECODE) then compiles none of them per process."""
    import importlib.util

    assert shipped.compile_bytecode()
    stale = []
    for source in kernels.PACKAGE_DIR.rglob("*.py"):
        cached = Path(importlib.util.cache_from_source(str(source)))
        if not cached.exists() or cached.stat().st_mtime < source.stat().st_mtime:
            stale.append(str(source.relative_to(kernels.PACKAGE_DIR)))
    assert not stale, stale[:5]


def test_host_step_writes_missing_library_bytecode(tmp_path, monkeypatch):
    """``compile_library_bytecode`` (``host`` and ``build`` unless --no-libraries) writes the
    bytecode of an imported module outside the package whose install has none, where Python
    reads it (a fresh interpreter that writes none loads it from there), and leaves present
    bytecode alone; a place it cannot write is counted. (Only this test's own module: the
    process's others, NumPy's included, are left as they are.)"""
    import importlib
    import importlib.util
    import os
    import py_compile
    import subprocess
    import sys

    lib = tmp_path / "lib"
    lib.mkdir()
    source = lib / "shipped_bare.py"
    source.write_text("VALUE = 41 + 1\n")
    monkeypatch.syspath_prepend(str(lib))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # as the image's interpreter
    monkeypatch.delitem(sys.modules, "shipped_bare", raising=False)
    module = importlib.import_module("shipped_bare")
    cached = Path(importlib.util.cache_from_source(module.__file__))
    assert module.VALUE == 42 and not cached.exists()
    assert shipped.compile_library_bytecode([module]) == (1, 0) and cached.exists()
    assert shipped.compile_library_bytecode([module]) == (0, 0)  # nothing missing any more
    # the source changed in place with its size and time kept: a process that reads the
    # bytecode gets the compiled value (41 + 1), one that compiles the source 40 + 1
    stat = source.stat()
    source.write_text("VALUE = 40 + 1\n")
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    out = subprocess.run([sys.executable, "-B", "-c", "import shipped_bare; print(shipped_bare.VALUE)"],
                         env={**os.environ, "PYTHONPATH": str(lib)}, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["42"]
    cached.unlink()

    def read_only(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(py_compile, "compile", read_only)
    assert shipped.compile_library_bytecode([module]) == (0, 1)
