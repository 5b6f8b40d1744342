"""Test-case builders shared by the test modules (each seeded by its caller)."""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.spliced.records import Exon, TestCase


def random_spliced_case(rng: np.random.Generator, name: str) -> TestCase:
    """A small random spliced case (m < 300, n < 80, up to 11 exons, ~4% N in both)."""
    m = int(rng.integers(1, 300))
    n = int(rng.integers(1, 80))
    exons = []
    for _ in range(int(rng.integers(1, 12))):
        f = int(rng.integers(1, m + 1))
        exons.append(Exon(f, int(rng.integers(f, min(m, f + 120) + 1))))
    alphabet = np.array(list("ACGTN"))
    base = "".join(rng.choice(alphabet, m, p=[0.24, 0.24, 0.24, 0.24, 0.04]))
    target = "".join(rng.choice(alphabet, n, p=[0.24, 0.24, 0.24, 0.24, 0.04]))
    return TestCase(name, base, target, tuple(exons))
