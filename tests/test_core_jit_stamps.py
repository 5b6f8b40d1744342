"""A cached numba function's stamp covers the package modules it may inline (core.jit.package_stamps):
numba alone compares a cache with its function's own file, so a checkout that changed plan.py's task
fields but not feed.py loaded feed's compiled passes with the old field offsets."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from splicedalign.core import jit
from splicedalign.workloads.spliced.gpu import feed, plan


def _cached(module):
    """One cached dispatcher of ``module`` (its FunctionCache's index file holds the stamp)."""
    for value in vars(module).values():
        cache = getattr(value, "_cache", None)
        if cache is not None and hasattr(cache, "_cache_file"):
            return value
    raise AssertionError(f"no cached numba function in {module.__name__}")


def test_stamp_folders_are_the_workloads_and_the_shared_layers():
    package = jit.PACKAGE
    assert jit.stamp_folders(feed.__file__) == (package / "workloads" / "spliced", package / "core", package / "gpu")
    assert jit.stamp_folders(jit.__file__) == (package / "core", package / "gpu")
    assert jit.stamp_folders(np.__file__) is None


def test_a_package_functions_stamp_holds_its_folders_digest():
    """The wiring (recover_stale_caches, at the package's import): feed's cached passes are stamped
    with their own file's hash and the digest of the spliced workload, core and gpu, which holds
    plan.py (the task fields feed's passes inline)."""
    stamp = _cached(feed)._cache._cache_file._source_stamp
    assert isinstance(stamp, tuple) and len(stamp) == 2
    assert stamp[1] == jit.folder_digest(jit.stamp_folders(feed.__file__))
    assert Path(plan.__file__).resolve().is_relative_to(jit.stamp_folders(feed.__file__)[0])


def test_folder_digest_changes_with_any_module_of_the_folders(tmp_path, monkeypatch):
    """A module of the folders changed (content, not only its time) gives another digest; a file
    that is not Python does not count."""
    monkeypatch.setattr(jit, "PACKAGE", tmp_path)
    work = tmp_path / "workloads" / "w"
    (work / "gpu").mkdir(parents=True)
    (tmp_path / "core").mkdir()
    (work / "gpu" / "plan.py").write_text("F_ENTRY_ROW = 10\n")
    (work / "gpu" / "feed.py").write_text("from . import plan\n")
    folders = jit.stamp_folders(str(work / "gpu" / "feed.py"))
    assert folders == (work, tmp_path / "core", tmp_path / "gpu")
    before = jit.folder_digest.__wrapped__(folders)
    (work / "notes.txt").write_text("not a module\n")
    assert jit.folder_digest.__wrapped__(folders) == before
    (work / "gpu" / "plan.py").write_text("F_ENTRY_ROW = 11\n")
    assert jit.folder_digest.__wrapped__(folders) != before


def test_a_function_outside_the_package_keeps_numbas_stamp(tmp_path, monkeypatch):
    """A cached function of another package's module: numba's own stamp (its file's hash)."""
    (tmp_path / "elsewhere_mod.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef f(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import elsewhere_mod

    assert elsewhere_mod.f(1) == 2
    assert isinstance(elsewhere_mod.f._cache._cache_file._source_stamp, bytes)
