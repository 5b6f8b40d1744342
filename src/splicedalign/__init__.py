"""Exact sequence alignment on CPUs and GPUs.

Spliced alignment (Gelfand, Mironov & Pevzner 1996; SPEC.md) is the first workload: for a base
sequence, candidate exons on it and a target (cDNA), find the chain of non-overlapping exons
whose concatenation aligns best (global alignment) to the whole target. The other workloads
of the source papers live beside it in ``splicedalign.workloads``.
"""

from importlib.metadata import PackageNotFoundError, version

try:  # one place for the version: pyproject.toml, through the installed package's metadata
    __version__ = version("splicedalign")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "unknown (not installed: pip install -e .)"
