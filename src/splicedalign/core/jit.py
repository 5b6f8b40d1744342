"""numba's one-time set-up in a command-line process, done on purpose: ``start()`` imports numba
and makes it ready to load its on-disk cache (what a process's first compiled call does
otherwise), leaving out what numba looks for or loads on the way that splicedalign's cached
code never uses. Each was a cost of every fresh ``align`` process:

- SciPy: numba's import checks its version (and its array-maths module, loaded with the
  registries below, asks whether SciPy's BLAS is there: ``ensure_blas`` imports
  ``scipy.linalg``, 0.13-0.17 s on the 2-core machine). splicedalign's compiled code does no
  linear algebra; ``np.dot`` and ``np.linalg`` in code compiled later still find SciPy (numba
  asks again when it compiles them).
- PyYAML: numba reads a ``.numba_config.yaml`` of the working folder with it; imported only
  when there is one (0.18 s under ``-X importtime`` on the H100 host).
- coverage: numba's line reports to a coverage run; imported only when coverage already is
  (a coverage run imports it first).
- numba extensions (the ``numba_extensions`` entry points of every installed distribution, read
  through importlib.metadata at the first compile or cache load): on a host with hundreds of
  distributions a scan of all their metadata, and an extension's own import; the compiled code
  here uses numba's own types only.
- numba's "numba:llvm_lock" events: two event objects around each of the ~3,500 LLVM calls of a
  fresh GPU solve's cache loads (for compile-time reports): ~15% of that first-call CPU time
  (0.067 -> 0.057 s, one thread, 2-core machine).
- numba's implementation registries: a cache load first refreshes the target context
  (``Cache.load_overload``: every registry module imported and ~thousands of implementations
  installed, for typing and lowering), which a load never uses: it rebuilds the cached object
  code, which calls numba's runtime (NRT) and C helpers only, linked by symbol. In a CLI process
  that only loads cached code (a warm cache, the usual case) that was ~0.1 s of ~0.13 s of
  set-up on the 2-core machine (0.17-0.2 s on the H100 host). A compile still refreshes both
  contexts itself (numba's compiler does, on every compile), so code compiled later is unchanged.
- the shared bitcode of each cached function: a load parsed it (``ll.parse_bitcode``, kept for
  linking the function into code compiled later) and walked its functions and globals for the
  names it defines (~250 foreign calls a function): ~60% of a load, and the fed launch's 15
  passes took 43 ms to load on the 2-core machine (17 without). The names come from the object
  code's ELF symbol table instead (the same set: ``tests/test_core_jit_loads.py``), and the
  bitcode is parsed when a compile first links the function (``_get_module_for_linking``).
- ``numpy.ma``: numba's type of an array argument first asks ``isinstance(a, np.ma.MaskedArray)``
  (its first call of each compiled function), and ``np.ma`` imports NumPy's masked arrays: 0.047 s
  of a fresh gpu align on the H100 host (their modules compiled from source there). No masked
  array exists before ``numpy.ma`` is imported, so until then ``np.ma`` is a stand-in whose
  ``MaskedArray`` matches nothing; any other name imports the real module, which then replaces
  the stand-in as ``np.ma`` (Python's import sets it).
- numba's implementation modules named by cached code's environments: a cache load unpickles an
  environment for each function compiled into the entry point (numba's own implementations of
  ``np.argsort``, slicing, ... included), and numba rebuilds each by importing its module for its
  globals: the first loads of a fresh GPU solve imported 21 of numba's modules (``numba.np.arrayobj``,
  ``npyimpl``, ``charseq``, ``unicode``, the sorts, ...) that the loaded code never calls into:
  compiled code reads an environment's globals only in object mode (numba's ``pylowering``),
  which nopython code never is, and takes its constants from the environment's ``consts``, which
  are unpickled as before. The planning's first ``FlatCases.of`` took 0.43-0.48 s with those
  imports and 0.18-0.19 s without (2-core machine, loaded). So an environment of a ``numba.*``
  module not imported yet gets globals that hold only its module's name; every other one (the
  caller's own modules, a numba module imported already) is rebuilt as numba does.

Apart from ``start()``, in every process that imports splicedalign (``recover_stale_caches``,
called by the package's ``__init__``): a numba cache file that can no longer be unpickled is
taken as stale, as numba takes one of an older source or numba version, and the function is
compiled again (its index rewritten on save). numba unpickles an index before it checks the
index's stamp, and its ``save`` reads the index too: an index whose signatures name a module
that an upgrade in place removed or renamed (seen when ``sw.cpu_simd`` moved to ``core.simd``:
``ModuleNotFoundError`` from ``_load_index`` in every process, forever) failed every call of
that function until someone deleted the ``.nbi`` files by hand. And a cached function's stamp
covers the package modules it may inline, not only its own file (``package_stamps``): numba
compares a cache with its function's own file alone, so a checkout that changed ``plan.py``'s
task fields but not ``feed.py`` loaded feed's compiled passes with the old field offsets (the
fed plans' tasks lost their last field: wrong launches, seen in a development checkout after
``git pull`` of round 18's three-input entries).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import struct
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

NUMBA_CONFIG_FILE = ".numba_config.yaml"  # numba.core.config._config_fname, read from the working folder


def _import_numba() -> None:
    """numba imported, with the optional modules it probes for (and splicedalign never uses)
    answering "not installed" while it is: a ``None`` entry in sys.modules makes their import
    raise ImportError, which numba takes as absent. The entries go afterwards, so later imports
    of those modules work as usual."""
    if "numba" in sys.modules:
        return
    skipped = ["scipy", "coverage"] + ([] if os.path.isfile(NUMBA_CONFIG_FILE) else ["yaml"])
    skipped = [name for name in skipped if name not in sys.modules]
    for name in skipped:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import numba  # noqa: F401
    finally:
        for name in skipped:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


def _no_lock_events() -> None:
    """llvmlite's lock callbacks that numba.core.base registered (its llvm_lock events) removed."""
    import llvmlite.binding.ffi as ffi

    lock = getattr(ffi.lib, "_lock", None)
    callbacks = getattr(lock, "_cblist", None)
    if isinstance(callbacks, list):
        callbacks[:] = [cb for cb in callbacks if getattr(cb[0], "__module__", None) != "numba.core.base"]


def _load_overload(self, sig, target_context):  # noqa: ANN001, ANN202 - numba's Cache.load_overload
    """numba's ``Cache.load_overload`` without its ``target_context.refresh()`` (see the module's
    docstring): the cached overload for ``sig``, or None (then numba compiles, refreshing)."""
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)


def _loads_without_registries() -> None:
    """Cache loads made ready without the registries: the target context made (numba's global
    helper symbols, the C maths functions), the runtime (NRT) started and its symbols added,
    the hash secret's symbols added (numba.cpython.hashing adds them when imported); the
    parallel backend's symbols come with each parallel function's load (its reload hook)."""
    import numba.core.caching as caching
    import numba.cpython.hashing  # noqa: F401 - its symbols, for cached code that hashes
    from numba.core.registry import cpu_target
    from numba.core.runtime import rtsys

    rtsys.initialize(cpu_target.target_context)
    if all(hasattr(caching.Cache, name) for name in ("_guard_against_spurious_io_errors", "_load_overload")):
        caching.Cache.load_overload = _load_overload  # type: ignore[method-assign]
    # (else a numba whose cache is built otherwise: its own loads, refresh included)


def _rebuild_env(modname, consts, env_name):  # noqa: ANN001, ANN202 - numba.core.environment._rebuild_env
    """numba's ``_rebuild_env`` (what an unpickled Environment calls) without importing a
    ``numba.*`` module that is not imported yet (see the module's docstring)."""
    if not (isinstance(modname, str) and modname.startswith("numba.") and modname not in sys.modules):
        return _NUMBA_REBUILD_ENV[0](modname, consts, env_name)
    from numba.core import environment

    env = environment.lookup_environment(env_name)
    if env is None:
        env = environment.Environment({"__name__": modname})
        env.consts[:] = consts
        env.env_name = env_name
        environment.Environment._memo[env_name] = env
    return env


_NUMBA_REBUILD_ENV: list[Callable[..., Any]] = []  # numba's own, once _rebuild_env replaces it


def _environments_without_imports() -> None:
    """numba's environment rebuild replaced by _rebuild_env (pickle finds the function by its
    name in numba.core.environment), where numba's has the shape it wraps."""
    from numba.core import environment

    rebuild = getattr(environment, "_rebuild_env", None)
    if rebuild is None or rebuild is _rebuild_env or not hasattr(environment, "lookup_environment"):
        return
    if rebuild.__code__.co_varnames[:3] != ("modname", "consts", "env_name"):
        return  # another numba's rebuild: its own
    _NUMBA_REBUILD_ENV[:] = [rebuild]
    environment._rebuild_env = _rebuild_env


_ELF_HEADER = b"\x7fELF\x02\x01"  # 64-bit, little-endian
_SHT_SYMTAB, _SHN_UNDEF, _STT_SECTION, _STT_FILE = 2, 0, 3, 4


def elf_defined_symbols(obj: bytes) -> set[str] | None:
    """The names an ELF relocatable object (64-bit, little-endian: numba's object code on x86-64
    and aarch64 Linux) defines: every symbol of its symbol table with a section and a name,
    sections' and the file's own entries left out; None for any other format."""
    if obj[:6] != _ELF_HEADER:
        return None
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQII", obj, shoff + i * shentsize) for i in range(shnum)]
    names: set[str] = set()
    for _, kind, _, _, offset, size, link, _ in sections:
        if kind != _SHT_SYMTAB:
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size - 23, 24):
            name, info, _, section = struct.unpack_from("<IBBH", obj, at)
            if section != _SHN_UNDEF and name and (info & 0xF) not in (_STT_SECTION, _STT_FILE):
                start = strings + name
                names.add(obj[start:obj.index(b"\0", start)].decode())
    return names


def _unserialize(cls, codegen, state):  # noqa: ANN001, ANN202 - numba's CPUCodeLibrary._unserialize
    """numba's library rebuild from object code, its shared bitcode kept unparsed and the names
    it defines read from the object code (see the module's docstring); any other kind, or an
    object that is not ELF, numba's own."""
    name, kind, data = state
    names = elf_defined_symbols(data[0]) if kind == "object" else None
    if names is None:
        return _NUMBA_UNSERIALIZE[0](cls, codegen, state)
    object_code, shared_bitcode = data
    self = codegen.create_library(name)
    self.enable_object_caching()
    self._set_compiled_object(object_code)
    self._shared_bitcode = shared_bitcode
    self._finalize_final_module()
    codegen._engine._defined_symbols |= names
    return self


def _module_for_linking(self):  # noqa: ANN001, ANN202 - numba's CPUCodeLibrary._get_module_for_linking
    """numba's, the shared bitcode of a library rebuilt by _unserialize parsed first."""
    if self._shared_module is None and getattr(self, "_shared_bitcode", None) is not None:
        import llvmlite.binding as ll

        self._shared_module = ll.parse_bitcode(self._shared_bitcode)
        self._shared_bitcode = None
    return _NUMBA_UNSERIALIZE[1](self)


_NUMBA_UNSERIALIZE: list[Callable[..., Any]] = []  # numba's _unserialize and _get_module_for_linking


def _lazy_shared_bitcode() -> None:
    """Cached libraries rebuilt by _unserialize (where numba's CPUCodeLibrary has the pieces it
    replaces; else numba's own)."""
    from numba.core import codegen

    library = getattr(codegen, "CPUCodeLibrary", None)
    engine = getattr(codegen, "JitEngine", None)
    if (library is None or engine is None or _NUMBA_UNSERIALIZE
            or not all(hasattr(library, n) for n in ("_unserialize", "_get_module_for_linking", "_set_compiled_object",
                                                      "enable_object_caching", "_finalize_final_module"))
            or not hasattr(engine, "_load_defined_symbols")):
        return
    _NUMBA_UNSERIALIZE[:] = [library._unserialize.__func__, library._get_module_for_linking]
    library._unserialize = classmethod(_unserialize)
    library._get_module_for_linking = _module_for_linking


class _NoMaskedArray:
    """What ``np.ma.MaskedArray`` is while numpy.ma is not imported: a class with no instance."""


class _MaskedArraysLater(types.ModuleType):
    """``np.ma`` until numpy.ma is imported (see the module's docstring)."""

    def __getattr__(self, name: str):  # noqa: ANN204 - any attribute of numpy.ma
        if name == "MaskedArray" and "numpy.ma" not in sys.modules:
            return _NoMaskedArray
        return getattr(importlib.import_module("numpy.ma"), name)


def _masked_arrays_later() -> None:
    """``np.ma`` a _MaskedArraysLater while numpy.ma is not imported."""
    import numpy as np

    if "numpy.ma" not in sys.modules and "ma" not in vars(np):
        np.ma = _MaskedArraysLater("numpy.ma")


def start() -> None:
    """numba imported and made ready to load its cache in a command-line process (idempotent;
    thread-safe: under numba's compiler lock, which every compile and cache load takes). Cache
    loads skip the implementation registries (a compile loads them), third-party numba
    extensions are not loaded in this process, compile-time reports have no LLVM lock times,
    cached code's environments import none of numba's implementation modules, cached code's
    shared bitcode is parsed only when linked, and NumPy's masked arrays are imported when first
    used, not by numba's type checks."""
    _import_numba()
    import numba.core.base  # noqa: F401 - registers the lock events that _no_lock_events removes
    import numba.core.entrypoints as entrypoints
    from numba.core.compiler_lock import global_compiler_lock

    with global_compiler_lock:
        _no_lock_events()
        entrypoints._already_initialized = True  # init_all(): no scan of every distribution's entry points
        _loads_without_registries()
        _environments_without_imports()
        _lazy_shared_bitcode()
    _masked_arrays_later()


# ---- stale cache files (every process that imports splicedalign) -----------------------------

CACHING_MODULE = "numba.core.caching"


def _tolerant_cache_files(caching: types.ModuleType) -> None:
    """numba's ``IndexDataCacheFile`` made to take an index or data file it cannot unpickle as
    stale (see the module's docstring): the index as empty (numba's answer for an index of
    another source stamp or numba version), a data file as missing (numba's ``load`` takes an
    OSError as a file removed under it: a miss, and the save that follows the compile rewrites
    it). Errors reading the file itself stay numba's."""
    files = getattr(caching, "IndexDataCacheFile", None)
    load_index, load_data = getattr(files, "_load_index", None), getattr(files, "_load_data", None)
    if files is None or load_index is None or load_data is None or getattr(files, "_stale_taken", False):
        return  # another numba (its own reads), or done already

    def _load_index(self):  # noqa: ANN001, ANN202 - numba's method
        try:
            return load_index(self)
        except OSError:
            raise
        except Exception:  # noqa: BLE001 - unpicklable: stale
            return {}

    def _load_data(self, name):  # noqa: ANN001, ANN202 - numba's method
        try:
            return load_data(self, name)
        except OSError:
            raise
        except Exception as exc:  # noqa: BLE001 - unpicklable: stale, a miss
            raise OSError(f"stale numba cache file {name}: {type(exc).__name__}: {exc}") from exc

    files._load_index, files._load_data = _load_index, _load_data
    files._stale_taken = True


PACKAGE = Path(__file__).resolve().parent.parent  # splicedalign/


@functools.cache
def stamp_folders(py_file: str) -> tuple[Path, ...] | None:
    """The package folders whose modules a compiled function of ``py_file`` may inline or read
    constants of: its workload's (for a file under ``workloads/NAME``) and the shared layers'
    (``core``, ``gpu``); None for a file outside splicedalign. The package's top-level modules
    count too (``folder_digest``)."""
    try:
        rel = Path(py_file).resolve().relative_to(PACKAGE)
    except (ValueError, OSError):
        return None
    own = (PACKAGE / "workloads" / rel.parts[1],) if len(rel.parts) > 2 and rel.parts[0] == "workloads" else ()
    return own + (PACKAGE / "core", PACKAGE / "gpu")


@functools.cache
def folder_digest(folders: tuple[Path, ...]) -> bytes:
    """SHA-256 over the names and contents of the ``.py`` files under ``folders`` and of the
    package's top-level ones, once a process (~3 ms for the spliced workload's: 65 files)."""
    files = sorted({p for folder in folders for p in folder.rglob("*.py")} | set(PACKAGE.glob("*.py")))
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.digest()


def package_stamps(caching: types.ModuleType) -> None:
    """numba's source stamp of a cached splicedalign function (its own file's hash) made to
    cover its ``stamp_folders`` too (``folder_digest``): an index written for other sources of
    those modules is stale, compiled again and rewritten, as numba does for its own file."""
    mixin = getattr(caching, "_SourceFileBackedLocatorMixin", None)
    stamp = getattr(mixin, "get_source_stamp", None)
    if mixin is None or stamp is None or getattr(mixin, "_package_stamps", False):
        return  # another numba, or done already

    def get_source_stamp(self):  # noqa: ANN001, ANN202 - numba's method
        own = stamp(self)
        folders = stamp_folders(getattr(self, "_py_file", ""))
        try:
            return own if folders is None else (own, folder_digest(folders))
        except OSError:  # a module of the folders unreadable: a stamp no index has (compiled, not loaded)
            return (own, None)

    mixin.get_source_stamp = get_source_stamp
    mixin._package_stamps = True


def _caching(caching: types.ModuleType) -> None:
    """Both of this module's changes to numba's caching (module docstring)."""
    _tolerant_cache_files(caching)
    package_stamps(caching)


class _AfterImport:
    """A meta-path finder for one module: the module found and loaded as usual by the finders
    after it, then ``then(module)`` called; it takes itself off sys.meta_path when used."""

    def __init__(self, name: str, then: Callable[[types.ModuleType], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path=None, target=None):  # noqa: ANN001, ANN201 - the finder protocol
        if fullname != self.name:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:
            return spec

        def exec_then(module: types.ModuleType) -> None:
            exec_module(module)
            self.then(module)

        loader.exec_module = exec_then
        return spec


def _after_import(name: str, then: Callable[[types.ModuleType], None]) -> None:
    """``then(module)`` once module ``name`` is imported (now, where it is already)."""
    module = sys.modules.get(name)
    if module is not None:
        then(module)
    elif not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, then))


def recover_stale_caches() -> None:
    """Stale numba cache files recompiled instead of failing, and cached functions' stamps
    covering the modules they inline (see the module's docstring), from
    numba's first import on (now, where it is imported already); numba's OpenMP layer tried first and its
    threads made to spin briefly (``openmp_team``). Imports nothing itself."""
    _after_import(CACHING_MODULE, _caching)
    _after_import(PARALLEL_MODULE, openmp_team)


# ---- how long the parallel passes' idle threads spin (every process that imports splicedalign) ----

PARALLEL_MODULE = "numba.np.ufunc.parallel"  # its _launch_threads loads the threading layer, once
# GNU OpenMP's idle threads (numba's "omp" layer, its first choice where libgomp is there; one
# thread per CPU) spin 300,000 rounds by default at every barrier and after every parallel region
# before they sleep: milliseconds of every CPU after each region. 3,000 rounds still bridge the
# gaps between one planning call's regions: a paper set's fed planning took the same on the H100
# host (plan 9.0 / 8.7 / 12.7 / 10.3 ms against 9.8 / 8.5 / 9.6 / 12.6; OMP_WAIT_POLICY=passive,
# a sleep at every barrier: 12.4-15.4), the idle threads burned a third of the CPU (78-90 ms a call
# against 225-315), and waking the team after 0.3 s idle never took over 0.3 ms in 30 tries (the
# default: 3 of 30 over 3 ms). Where another thread or process wants a core, the default's spinning
# team stalls whole until the member that lost its core runs again: the fed planning of a paper set
# on the loaded 2-core machine (2 threads) took 74-350 ms a call, 21-37 with 3,000 rounds.
OMP_SPIN = {"GOMP_SPINCOUNT": "3000"}
OMP_USER = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")  # a process that sets either keeps its own
# numba takes its TBB layer first where the `tbb` package is installed; every figure of this
# project was measured on the OpenMP layer, and TBB's was slower where measured (a never-seen
# paper set's fed planning on the H100 host, 10 fresh processes each: 777 against 905 GCUPS, 10
# sets 1,498 against 1,559): OpenMP first, TBB and the workqueue after it as numba's fallbacks.
LAYER_PRIORITY = ["omp", "tbb", "workqueue"]
LAYER_USER = ("NUMBA_THREADING_LAYER", "NUMBA_THREADING_LAYER_PRIORITY")  # a process's own choice


def openmp_team(parallel: types.ModuleType) -> None:
    """numba's ``_launch_threads`` of ``parallel`` wrapped so that the threading layer loads
    with OMP_SPIN in the environment (libgomp reads it once, when loaded), restored afterwards:
    no other library or child process sees it. Not where the process sets OMP_USER itself, nor
    after the layer was loaded (idempotent). The layers are tried in LAYER_PRIORITY's order
    unless the process named its own (LAYER_USER)."""
    launch = getattr(parallel, "_launch_threads", None)
    if launch is None or getattr(launch, "_openmp_team", False):
        return

    def _launch_threads() -> None:
        if getattr(parallel, "_is_initialized", False):
            return launch()
        if not any(k in os.environ for k in LAYER_USER):
            parallel.config.THREADING_LAYER_PRIORITY = list(LAYER_PRIORITY)
        if any(k in os.environ for k in OMP_USER):
            return launch()
        os.environ.update(OMP_SPIN)
        try:
            return launch()
        finally:
            for k in OMP_SPIN:
                os.environ.pop(k, None)

    _launch_threads._openmp_team = True  # type: ignore[attr-defined]
    parallel._launch_threads = _launch_threads  # type: ignore[attr-defined]
