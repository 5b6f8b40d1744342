"""Seeded synthetic protein data: the paper's Table III shapes and a scale-up database.

Residues are drawn with the amino-acid composition of UniProtKB/Swiss-Prot (release
statistics, percent, rounded; sums to 100); lengths of the scale-up database are log-normal
with mean ~350 and median ~300 like Swiss-Prot's (clipped to 20..35,000). A few database
sequences are mutated copies of a piece of the query (20% substitutions, occasional indels), so
a search has real hits. Same seed, same data.
"""

from __future__ import annotations

import numpy as np

from splicedalign.workloads.sw.matrices import matrix
from splicedalign.workloads.sw.records import Database, Query

COMPOSITION = {  # Swiss-Prot amino-acid composition, %
    "A": 8.25, "R": 5.53, "N": 4.06, "D": 5.45, "C": 1.37, "Q": 3.93, "E": 6.75, "G": 7.07,
    "H": 2.27, "I": 5.96, "L": 9.66, "K": 5.84, "M": 2.42, "F": 3.86, "P": 4.70, "S": 6.56,
    "T": 5.34, "W": 1.08, "Y": 2.92, "V": 6.87,
}
PAPER_LENGTHS = (128, 256, 512, 1024, 2048, 4096, 8192)  # paper 003 Table III
PAPER_QUERY = 128
PAPER_DBSEQS = 100
SCALEUP_SEQS = 100_000
SEED = 3  # paper 003


def _codes_and_weights() -> tuple[np.ndarray, np.ndarray]:
    letters = matrix("blosum62")[0]
    codes = np.array([letters.index(a) for a in COMPOSITION], dtype=np.uint8)
    weights = np.array(list(COMPOSITION.values()), dtype=np.float64)
    return codes, weights / weights.sum()


def residues(rng: np.random.Generator, n: int) -> np.ndarray:
    codes, p = _codes_and_weights()
    return codes[rng.choice(codes.size, size=n, p=p)]


def mutate(rng: np.random.Generator, seq: np.ndarray, rate: float = 0.2) -> np.ndarray:
    """Substitutions at ``rate``; deletions and insertions of single letters at rate / 20 each."""
    out = seq.copy()
    hit = rng.random(out.size) < rate
    out[hit] = residues(rng, int(hit.sum()))
    out = out[rng.random(out.size) >= rate / 20]
    ins = int(rng.binomial(out.size, rate / 20))
    return np.insert(out, rng.integers(0, out.size + 1, ins), residues(rng, ins))


def query(length: int, seed: int = SEED) -> Query:
    return Query(f"query{length}", residues(np.random.default_rng([seed, length]), length))


def database(lengths: np.ndarray, seed: int, homologs_of: Query | None = None, homologs: int = 0,
             prefix: str = "seq") -> Database:
    """Random sequences of the given lengths; the first ``homologs`` of them are replaced by
    mutated copies of a window of the query (their length kept where the query allows)."""
    rng = np.random.default_rng(seed)
    seqs = np.split(residues(rng, int(np.sum(lengths))), np.cumsum(lengths)[:-1])
    if homologs_of is not None:
        q = homologs_of.codes
        for k in rng.choice(len(seqs), size=min(homologs, len(seqs)), replace=False):
            n = min(int(lengths[k]), q.size)
            start = int(rng.integers(0, q.size - n + 1))
            seqs[k] = mutate(rng, q[start: start + n])
    return Database.from_codes([f"{prefix}{k + 1}" for k in range(len(seqs))], seqs)


def paper_case(length: int, seed: int = SEED) -> tuple[Query, Database]:
    """Table III: query of 128 against 100 sequences of ``length``."""
    q = query(PAPER_QUERY, seed)
    return q, database(np.full(PAPER_DBSEQS, length), seed * 1_000_003 + length, q, homologs=2,
                       prefix=f"len{length}_")


def scaleup_lengths(rng: np.random.Generator, count: int) -> np.ndarray:
    return np.clip(np.round(rng.lognormal(np.log(300.0), 0.55, count)), 20, 35_000).astype(np.int64)


def scaleup_case(count: int = SCALEUP_SEQS, query_length: int = 350, seed: int = SEED) -> tuple[Query, Database]:
    """A query of ``query_length`` against ``count`` sequences of Swiss-Prot-like lengths."""
    q = query(query_length, seed)
    lengths = scaleup_lengths(np.random.default_rng([seed, count]), count)
    return q, database(lengths, seed * 7 + count, q, homologs=max(1, count // 1000), prefix="db")
