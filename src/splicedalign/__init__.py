"""Exact sequence alignment on CPUs and GPUs.

Spliced alignment (Gelfand, Mironov & Pevzner 1996; SPEC.md) is the first workload: for a base
sequence, candidate exons on it and a target (cDNA), find the chain of non-overlapping exons
whose concatenation aligns best (global alignment) to the whole target. The other workloads
of the source papers live beside it in ``splicedalign.workloads``.
"""

__version__ = "0.2.0"
