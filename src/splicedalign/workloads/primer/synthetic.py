"""Seeded synthetic instances shaped like the paper's (Tables 1-5, Fig. 10): α random DNA, β
random background holding mutated copies of pieces of α (homologous, as the paper's IL1RAPL1
sequences were), so answers are non-trivial. The same (shape, seed) always gives the same
sequences (numpy's PCG64 generator)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from splicedalign.workloads.primer.records import PrimerProblem

LETTERS = np.frombuffer(b"ACGT", dtype=np.uint8)


@dataclass(frozen=True)
class Shape:
    name: str
    m: int
    n: int
    k: int
    paper: str  # where the paper uses this shape


SHAPES = {s.name: s for s in (
    Shape("table1", 43_606, 241_494, 100, "Tables 1-3, Fig. 7"),
    Shape("table4", 107_280, 2_220_391, 256, "Table 4, Fig. 9"),
    Shape("table5", 107_280, 1_088_386, 100, "Table 5"),
    Shape("huge", 1_000_000, 4_000_000, 100, "Fig. 10, last case"),
)}


def scaled(shape: Shape, factor: int) -> Shape:
    """The shape with m and n divided by ``factor`` (k kept): cells scale by about factor^2."""
    return Shape(f"{shape.name}/{factor}", max(shape.k, shape.m // factor), max(1, shape.n // factor),
                 shape.k, shape.paper)


def mutate(rng: np.random.Generator, piece: np.ndarray, rate: float) -> np.ndarray:
    """Each letter substituted, deleted or followed by an insertion with probability rate/3 each."""
    u = rng.random(piece.size)
    keep = piece[u >= rate / 3].copy()
    u = u[u >= rate / 3]
    sub = u < 2 * rate / 3
    keep[sub] = LETTERS[rng.integers(0, 4, int(sub.sum()))]
    ins = (u >= 2 * rate / 3) & (u < rate)
    out = np.empty(keep.size + int(ins.sum()), dtype=np.uint8)
    where = np.arange(keep.size) + np.concatenate(([0], np.cumsum(ins)[:-1])) if keep.size else np.arange(0)
    out[where] = keep
    mask = np.ones(out.size, dtype=bool)
    mask[where] = False
    out[mask] = LETTERS[rng.integers(0, 4, int(mask.sum()))]
    return out


def generate(m: int, n: int, k: int, seed: int = 1, homologous: float = 0.3, divergence: float = 0.25,
             piece: int = 2000, name: str = "synthetic") -> PrimerProblem:
    """α: m random letters; β: n letters, about ``homologous`` of them copies of random pieces
    of α (length up to ``piece``) mutated at rate ``divergence``, the rest random."""
    rng = np.random.default_rng(seed)
    alpha = LETTERS[rng.integers(0, 4, m)]
    parts, total, target = [], 0, int(homologous * n)
    while total < target:
        length = int(rng.integers(1, min(piece, m) + 1))
        start = int(rng.integers(0, m - length + 1))
        copy = mutate(rng, alpha[start:start + length], divergence)
        parts.append(copy)
        total += copy.size
    background = LETTERS[rng.integers(0, 4, max(0, n - total))]
    cuts = np.sort(rng.integers(0, background.size + 1, len(parts)))
    pieces, prev = [], 0
    for cut, part in zip(cuts, parts):
        pieces += [background[prev:cut], part]
        prev = cut
    pieces.append(background[prev:])
    beta = np.concatenate(pieces)[:n] if pieces else background
    return PrimerProblem(alpha.tobytes().decode(), beta.tobytes().decode(), k,
                         f"{name}_alpha", f"{name}_beta")


def shaped(name: str, factor: int = 1, seed: int = 1) -> PrimerProblem:
    """A paper shape (SHAPES), optionally scaled down by ``factor``."""
    shape = SHAPES[name] if factor == 1 else scaled(SHAPES[name], factor)
    return generate(shape.m, shape.n, shape.k, seed, name=shape.name.replace("/", "_"))
