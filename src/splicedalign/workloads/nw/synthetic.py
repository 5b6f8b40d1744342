"""Seeded synthetic pairs shaped like paper 002's Table 1 (n x n, n = 48 ... 30,368) plus 10^5
and 10^6: a random sequence against a 10%-mutated copy of it (substitutions 8%, insertions 1%,
deletions 1%, so the second length stays near n) or against an unrelated random sequence.
A pair depends only on (n, kind, seed): the same name is the same pair on every machine."""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.nw.records import Costs, Pair

PAPER_SIZES = (48, 9_024, 15_184, 19_456, 30_368)
LARGE_SIZES = (100_000, 1_000_000)
KINDS = ("mutated", "unrelated")
SEED = 2009  # the paper's year
SUBSTITUTION, INSERTION, DELETION = 0.08, 0.01, 0.01


def random_codes(n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, 4, n, dtype=np.uint8)


def mutate(codes: np.ndarray, rng: np.random.Generator, scale: float = 1.0) -> np.ndarray:
    """A copy with 8% substitutions (to another letter), 1% insertions, 1% deletions (each rate
    times ``scale``: 0.5 gives a 5%-divergent copy)."""
    sub_rate, ins_rate, del_rate = SUBSTITUTION * scale, INSERTION * scale, DELETION * scale
    draw = rng.random(codes.size)
    out = codes.copy()
    sub = draw < sub_rate
    out[sub] = (out[sub] + rng.integers(1, 4, int(sub.sum()), dtype=np.uint8)) % 4
    keep = draw < 1 - del_rate
    insert = (draw >= sub_rate) & (draw < sub_rate + ins_rate)
    pieces = np.where(insert, 2, 1)[keep]
    kept = out[keep]
    result = np.repeat(kept, pieces)
    ends = np.cumsum(pieces) - 1  # an inserted letter goes after its kept letter
    result[ends[pieces == 2]] = random_codes(int(insert[keep].sum()), rng)
    return result


def pair_name(n: int, kind: str) -> str:
    return f"{kind}-{n}"


def make_pair(n: int, kind: str, seed: int = SEED) -> Pair:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    rng = np.random.default_rng([seed, n, KINDS.index(kind)])
    a = random_codes(n, rng)
    b = mutate(a, rng) if kind == "mutated" else random_codes(n, rng)
    return Pair(pair_name(n, kind), "seq1", "seq2", a, b)


def divergent_pair(n: int, percent: float, seed: int = SEED, index: int = 0) -> Pair:
    """A random sequence of length n against a copy ``percent`` % mutated (80% of the changes
    substitutions, 10% insertions, 10% deletions); ``index`` tells apart the pairs of a batch."""
    rng = np.random.default_rng([seed, n, int(round(percent * 100)), index, 7])
    a = random_codes(n, rng)
    return Pair(f"{percent:g}pct-{n}" + (f"-{index}" if index else ""), "seq1", "seq2", a,
                mutate(a, rng, percent / 10.0))


# issue 26's single pairs, by case name (``case_pair``), and its cost models (linear 0/1/3 = the
# paper's, affine x=4 o=6 e=2 = WFA2's): benchmarks/nw.py and scripts/device_nw*.py
ISSUE26_CASES = ("30368-10", "30368-unrelated", "100000-1", "100000-5", "1000000-1")
ISSUE26_COSTS = {"linear": Costs(0, 1, 3), "affine": Costs(0, 4, 2, 6)}


def case_pair(name: str) -> Pair:
    """The pair of a case name: N-unrelated, N-10 (``make_pair``'s 10%-mutated pair) or N-P (a
    copy P% mutated, ``divergent_pair``)."""
    n, kind = name.split("-", 1)
    if kind == "unrelated":
        return make_pair(int(n), "unrelated")
    if kind == "10":
        return make_pair(int(n), "mutated")
    return divergent_pair(int(n), float(kind))


def random_batch(rng: np.random.Generator, count: int, most: int, flank: int = 300) -> list[Pair]:
    """A batch of pairs of every shape a batched solver meets, for correctness checks: lengths
    1 .. most, every sixth pair unrelated, the others copies mutated 1-5 x 1% (``mutate``'s
    mix), every sixth of those with random flanks of up to ``flank`` letters (what prefix and
    infix modes skip), b's letters 0.5% wildcards (never matching)."""
    pairs = []
    for k in range(count):
        a = random_codes(int(rng.integers(1, most)), rng)
        kind = k % 6
        if kind == 0:
            b = random_codes(int(rng.integers(1, most)), rng)
        else:
            b = mutate(a, rng, 0.1 * kind)
            if kind == 5:
                b = np.concatenate([random_codes(int(rng.integers(0, flank)), rng), b,
                                    random_codes(int(rng.integers(0, flank)), rng)])
            if b.size == 0:
                b = np.array([1], dtype=np.uint8)
        b[rng.random(b.size) < 0.005] = 5
        pairs.append(Pair(f"r{k}", "a", "b", a, b))
    return pairs


def paper_pairs(sizes: tuple[int, ...] = PAPER_SIZES, seed: int = SEED) -> list[Pair]:
    return [make_pair(n, kind, seed) for n in sizes for kind in KINDS]


LETTERS = np.frombuffer(b"ACGT", dtype=np.uint8)


def to_fasta(pair: Pair, width: int = 80) -> str:
    """The pair as one FASTA file of two records (seq1, seq2), the paper's input shape."""
    out = []
    for rid, codes in ((f"{pair.name}_1", pair.a), (f"{pair.name}_2", pair.b)):
        text = LETTERS[codes].tobytes().decode("ascii")
        out.append(f">{rid}\n" + "\n".join(text[i:i + width] for i in range(0, len(text), width)))
    return "\n".join(out) + "\n"
