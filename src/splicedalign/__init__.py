"""Exact sequence alignment on CPUs and GPUs.

Spliced alignment (Gelfand, Mironov & Pevzner 1996; SPEC.md) is the first workload: for a base
sequence, candidate exons on it and a target (cDNA), find the chain of non-overlapping exons
whose concatenation aligns best (global alignment) to the whole target. The other workloads
of the source papers live beside it in ``splicedalign.workloads``.
"""

from functools import cache

from splicedalign.core.jit import recover_stale_caches

recover_stale_caches()  # numba cache files an upgrade in place left unreadable: recompiled (core.jit)


@cache
def _version() -> str:
    """The version: pyproject.toml's, through the installed package's metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("splicedalign")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        return "unknown (not installed: pip install -e .)"


def __getattr__(name: str) -> str:
    # ``__version__`` looked up when asked for: importlib.metadata costs a fresh process ~0.01-0.03 s
    if name == "__version__":
        return _version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
