"""Seeded, deterministic synthetic test cases shaped like the paper's data.

A gene-like case: a random base sequence holding true exons (non-overlapping, in order),
false candidate exons arranged in clusters of mutually overlapping alternatives (the way a
gene finder reports alternative boundaries: shared core, shifted ends), and a target made by
mutating the concatenation of the true exons (substitutions and short indels), as the cDNA of
a homologous gene from another species would differ.

The shapes (distributions and constants below) are part of the project's benchmark contract:
changing them changes every benchmark table, so do so only deliberately.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from splicedalign.workloads.spliced.records import CaseSet, CaseSetMaker, Exon, TestCase

LETTERS = np.frombuffer(b"ACGT", dtype=np.uint8)

# Paper Tables I-II (SPEC §6): (min, mean, max) of each per-base quantity.
PAPER_BASE_LENGTH = (2_848, 42_181, 575_746)
PAPER_EXONS_PER_BASE = (2, 55, 622)
PAPER_EXON_LENGTH = (1, 149, 4_778)
PAPER_TARGET_LENGTH = (189, 1_460, 8_652)
PAPER_BASES, PAPER_CASES, PAPER_MAX_TARGETS = 240, 1_010, 5

# IL1RAPL1 with ±400 kb (paper section VII).
IL1RAPL1_M, IL1RAPL1_N, IL1RAPL1_K, IL1RAPL1_EXON_SUM = 2_168_787, 2_355, 1_878, 253_000

MEAN_CLUSTER = 1.7  # mean number of mutually overlapping alternatives per exon locus
# Alternatives widen their core by up to a third on each side, so false exons come out about
# a third longer than drawn: draws use mean / WIDENING to land on the wanted mean length.
WIDENING = 1.3
DIVERGENCE = (0.05, 0.10, 0.15, 0.20, 0.25)  # per-letter substitution rate of target 1..5
INDEL_RATE = 0.01  # per-letter rate of a 1-3 letter insertion or deletion in a target


@dataclass(frozen=True)
class Shape:
    """Parameters of one gene-like case."""

    m: int  # base length
    K: int  # candidate exons, true ones included
    n: int  # approximate target length (= total length of the true exons)
    exon_mean: float  # mean exon length (log-normal, clipped to exon_range)
    exon_range: tuple[int, int] = (1, PAPER_EXON_LENGTH[2])
    mean_cluster: float = MEAN_CLUSTER


def random_dna(rng: np.random.Generator, length: int) -> str:
    return LETTERS[rng.integers(0, 4, size=length)].tobytes().decode()


def _lognormal_int(rng: np.random.Generator, mean: float, lo: int, hi: int, size: int | None = None,
                   sigma: float = 1.0):
    mu = np.log(mean) - sigma**2 / 2
    if size is None:  # one draw: Python's round() rounds half to even as np.rint does (~10x faster)
        return min(max(round(rng.lognormal(mu, sigma)), lo), hi)
    x = np.rint(rng.lognormal(mu, sigma, size)).astype(np.int64)
    return np.clip(x, lo, hi)


def mutate(rng: np.random.Generator, seq: str, substitution: float, indel: float = INDEL_RATE) -> str:
    """Substitutions at rate ``substitution``; at rate ``indel`` a 1-3 letter insertion or deletion."""
    a = np.frombuffer(seq.encode(), dtype=np.uint8).copy()
    subst = rng.random(a.size) < substitution
    a[subst] = LETTERS[(np.searchsorted(LETTERS, a[subst]) + rng.integers(1, 4, subst.sum())) % 4]
    out, pos = [], 0
    for p in np.flatnonzero(rng.random(a.size) < indel).tolist():
        if p < pos:
            continue
        out.append(a[pos:p])
        size = int(rng.integers(1, 4))
        if rng.random() < 0.5:
            out.append(LETTERS[rng.integers(0, 4, size)])
            pos = p
        else:
            pos = p + size
    out.append(a[pos:])
    mutated = np.concatenate(out).tobytes().decode()
    return mutated or seq[:1]


def _cluster(rng: np.random.Generator, core_first: int, core_last: int, size: int, m: int,
             lo: int, hi: int) -> list[tuple[int, int]]:
    """``size`` intervals that all contain [core_first, core_last] (so they pairwise overlap)."""
    out = []
    L = core_last - core_first + 1
    # every interval's two widenings in one call, in the order the draws one at a time took them (the same values:
    # a bounded draw takes one value of the generator either way; checked on cases of many seeds, byte for byte)
    widen = rng.integers(0, max(1, L // 3) + 1, 2 * size).tolist()
    for i in range(size):
        f = core_first - widen[2 * i]
        l = core_last + widen[2 * i + 1]
        f, l = max(1, f), min(m, l)
        l = min(l, f + hi - 1)
        out.append((f, max(f + lo - 1, l)))
    return out


def _distinct(intervals: list[tuple[int, int]], taken: set[tuple[int, int]], m: int, lo: int,
              hi: int) -> list[tuple[int, int]]:
    """``intervals`` with each one that repeats an earlier one or one of ``taken`` moved to the
    nearest free interval (an end moved by 1, 2, ... letters, within 1..m and lengths lo..hi): a
    gene finder reports each interval once. Deterministic (no draw), so a seed's other
    intervals, its base and its targets stay as they were."""
    out = []
    for f, l in intervals:
        d = 0
        while (f, l) in taken and d < m:
            d += 1
            for g, k in ((f, l + d), (f - d, l), (f, l - d), (f + d, l)):
                if 1 <= g <= k <= m and lo <= k - g + 1 <= hi and (g, k) not in taken:
                    f, l = g, k
                    break
        taken.add((f, l))
        out.append((f, l))
    return out


def gene_like(rng: np.random.Generator, shape: Shape, name: str = "case",
              targets: int = 1) -> list[TestCase]:
    """``targets`` test cases sharing one base and its candidate exons (one per homolog)."""
    lo, hi = shape.exon_range
    m, K = shape.m, max(1, shape.K)
    # True exons: lengths drawn until they cover the target length, then spread over the base.
    lengths: list[int] = []
    while sum(lengths) < shape.n and len(lengths) < K:
        lengths.append(int(_lognormal_int(rng, shape.exon_mean, lo, hi)))
    if sum(lengths) < shape.n:  # few exons: the last true exon covers the rest of the gene
        lengths[-1] = min(hi, lengths[-1] + shape.n - sum(lengths))
    excess = sum(lengths) - shape.n
    if excess > 0 and lengths[-1] - excess >= lo:
        lengths[-1] -= excess
    total = sum(lengths)
    if total > m:  # the base must hold the gene; shrink exons proportionally
        lengths = [max(lo, L * m // (2 * total)) for L in lengths]
        total = sum(lengths)
    slack = m - total
    gaps = np.sort(rng.integers(0, slack + 1, size=len(lengths)))
    true = []
    offset = 1
    for L, g in zip(lengths, np.diff(np.concatenate(([0], gaps)))):
        offset += int(g)
        true.append((offset, offset + L - 1))
        offset += L
    # False exons: clusters of alternatives; a true exon is the core of some clusters.
    false: list[tuple[int, int]] = []
    p = 1.0 / shape.mean_cluster
    budget = K - len(true)
    true_cores = iter(rng.permutation(len(true)))
    while len(false) < budget:
        size = min(int(rng.geometric(p)), budget - len(false))
        core = next(true_cores, None)
        if core is not None and size > 1:
            f, l = true[core]
            false += _cluster(rng, f, l, size - 1, m, lo, hi)
            continue
        L = int(_lognormal_int(rng, shape.exon_mean, lo, hi))
        f = int(rng.integers(1, max(2, m - L + 2)))
        false += _cluster(rng, f, min(m, f + L - 1), size, m, lo, hi)
    false = _distinct(false, set(true), m, lo, hi)
    base = random_dna(rng, m)
    order = rng.permutation(len(true) + len(false))  # as a gene finder lists them: any order
    bounds = np.array(true + false, dtype=np.int64).reshape(-1, 2)[order]
    exons = tuple(Exon(f, l, {"true": int(i < len(true))}) for (f, l), i in zip(bounds.tolist(), order.tolist()))
    gene = "".join(base[f - 1 : l] for f, l in true)
    cases = []
    for t in range(targets):
        target = mutate(rng, gene, DIVERGENCE[t % len(DIVERGENCE)])
        cases.append(TestCase(
            f"{name}_t{t + 1}" if targets > 1 else name, base, target, exons,
            base_id=name, target_id=f"{name}_homolog{t + 1}",
            meta={"true_exons": tuple(true), "divergence": DIVERGENCE[t % len(DIVERGENCE)]}, exon_bounds=bounds,
        ))
    return cases


def paper_shapes(seed: int = 2012, bases: int = PAPER_BASES) -> list[tuple[Shape, int]]:
    """(shape, targets) per base, reproducing SPEC §6; the first bases carry the extremes."""
    rng = np.random.default_rng(seed)
    m = _lognormal_int(rng, PAPER_BASE_LENGTH[1], PAPER_BASE_LENGTH[0], PAPER_BASE_LENGTH[2], bases)
    K = _lognormal_int(rng, PAPER_EXONS_PER_BASE[1], PAPER_EXONS_PER_BASE[0], PAPER_EXONS_PER_BASE[2], bases)
    n = _lognormal_int(rng, PAPER_TARGET_LENGTH[1], PAPER_TARGET_LENGTH[0], PAPER_TARGET_LENGTH[2], bases,
                       sigma=0.6)
    # Targets per base: 1,010 over 240 bases (4.2 each), at most 5.
    targets = np.full(bases, PAPER_MAX_TARGETS)
    deficit = PAPER_MAX_TARGETS * bases - round(PAPER_CASES * bases / PAPER_BASES)
    for i in rng.permutation(bases):
        if deficit <= 0:
            break
        take = min(deficit, int(rng.integers(1, PAPER_MAX_TARGETS)))
        targets[i] -= take
        deficit -= take
    if bases >= 3:  # the extremes of Tables I-II
        m[0], K[0], n[0] = PAPER_BASE_LENGTH[2], PAPER_EXONS_PER_BASE[2], PAPER_TARGET_LENGTH[2]
        m[1], K[1], n[1] = PAPER_BASE_LENGTH[0], PAPER_EXONS_PER_BASE[0], PAPER_TARGET_LENGTH[0]
    n = np.minimum(n, m // 2)
    return [
        (Shape(int(m[i]), int(K[i]), int(n[i]), PAPER_EXON_LENGTH[1] / WIDENING), int(targets[i]))
        for i in range(bases)
    ]


def paper_set(seed: int = 2012, bases: int = PAPER_BASES) -> CaseSet:
    """The paper-shaped data set: 240 bases, 1,010 cases (fewer with ``bases``), with its
    columns (records.CaseSet; the cases of a base share its base and exon list)."""
    made = CaseSetMaker()
    for b, (shape, targets) in enumerate(paper_shapes(seed, bases)):
        rng = np.random.default_rng([seed, b])
        made.add(gene_like(rng, shape, name=f"p{b:03d}", targets=targets))
    return made.made()


def paper_sets(count: int, seed: int = 2012, bases: int = PAPER_BASES) -> CaseSet:
    """``count`` paper-shaped sets of consecutive seeds from ``seed``, in one CaseSet."""
    return CaseSet.join([paper_set(seed + s, bases) for s in range(count)])


def tiny_set(seed: int = 7, bases: int = 4) -> list[TestCase]:
    """A few small gene-like cases (m 2-6 kb, n 200-500), for smoke tests and the CI pipeline."""
    cases = []
    for b in range(bases):
        rng = np.random.default_rng([seed, b])
        shape = Shape(m=int(rng.integers(2_000, 6_000)), K=int(rng.integers(6, 20)),
                      n=int(rng.integers(200, 500)), exon_mean=90)
        cases += gene_like(rng, shape, name=f"tiny{b:02d}", targets=2)
    return cases


def il1rapl1_case(seed: int = 1878) -> TestCase:
    """The IL1RAPL1-shaped case: m = 2,168,787, n ≈ 2,355, 1,878 exons, Σ|b| ≈ 253,000."""
    rng = np.random.default_rng(seed)
    shape = Shape(IL1RAPL1_M, IL1RAPL1_K, IL1RAPL1_N, exon_mean=IL1RAPL1_EXON_SUM / IL1RAPL1_K / WIDENING,
                  mean_cluster=1.6)
    return gene_like(rng, shape, name="il1rapl1")[0]
