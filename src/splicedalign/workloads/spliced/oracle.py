"""Independent checks of a solver's answer: global alignment of a chain's concatenation,
chain validity, the score an alignment spells out, and brute-force enumeration of every
chain (tiny inputs only). None of this shares code with the solvers' recurrence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations

import numpy as np
from numba import njit

from splicedalign.core.alphabet import encode_base, encode_target
from splicedalign.workloads.spliced.records import Result, Scoring, TestCase


@njit(cache=True)
def _nw(a, b, match, mismatch, gap, free):
    """Last row of the alignment of all of a against b; with ``free`` the letters of b before
    the alignment cost nothing (first row 0)."""
    n = b.shape[0]
    prev = np.empty(n + 1, dtype=np.int64)
    for j in range(n + 1):
        prev[j] = 0 if free else -gap * j
    cur = np.empty_like(prev)
    for i in range(1, a.shape[0] + 1):
        cur[0] = -gap * i
        for j in range(1, n + 1):
            w = match if a[i - 1] == b[j - 1] else mismatch
            cur[j] = max(prev[j - 1] + w, prev[j] - gap, cur[j - 1] - gap)
        prev, cur = cur, prev
    return prev


def global_score(a: str, b: str, scoring: Scoring) -> int:
    """Score of a (may be empty) against b: Needleman-Wunsch with global target ends; with free
    target ends all of a against any substring of b (b's unaligned ends cost nothing)."""
    row = _nw(encode_base(a), encode_target(b), scoring.match, scoring.mismatch, scoring.gap, scoring.free_ends)
    return int(row.max() if scoring.free_ends else row[-1])


def concatenation(case: TestCase, chain: Sequence[int]) -> str:
    return "".join(case.base[case.exons[k].first - 1 : case.exons[k].last] for k in chain)


def is_valid_chain(case: TestCase, chain: Sequence[int]) -> bool:
    """Non-empty, indices in range, each exon ending before the next one starts."""
    if not chain or any(not 0 <= k < case.K for k in chain):
        return False
    return all(case.exons[a].last < case.exons[b].first for a, b in zip(chain, chain[1:]))


def chain_score(case: TestCase, chain: Sequence[int], scoring: Scoring) -> int:
    return global_score(concatenation(case, chain), case.target, scoring)


def alignment_problems(case: TestCase, result: Result, scoring: Scoring) -> list[str]:
    """What is wrong with a result's chain and alignment (empty list: nothing)."""
    problems = []
    chain = result.chain or ()
    if not is_valid_chain(case, chain):
        return [f"invalid chain {chain}"]
    if (s := chain_score(case, chain, scoring)) != result.score:
        problems.append(f"chain's global score {s} != reported {result.score}")
    if result.alignment is None:
        return problems + ["no alignment"]
    expect_t, total = 1, 0
    for a in result.alignment:
        ops = [(int(c), o) for c, o in re.findall(r"(\d+)([=XDI])", a.cigar)]
        if "".join(f"{c}{o}" for c, o in ops) != a.cigar:
            problems.append(f"malformed CIGAR {a.cigar!r}")
            continue
        if a is result.alignment[0] and scoring.free_ends:
            expect_t = a.target_start  # free leading target letters: the span starts anywhere
        if a.target_start != expect_t:
            problems.append(f"exon {a.index} target span starts at {a.target_start}, expected {expect_t}")
        i, j = a.first, a.target_start
        for count, op in ops:
            for _ in range(count):
                if op in "=X":
                    same = case.base_codes[i - 1] == case.target_codes[j - 1]
                    if same != (op == "="):
                        problems.append(f"exon {a.index}: op {op} at base {i}, target {j}")
                    total += scoring.match if same else scoring.mismatch
                    i, j = i + 1, j + 1
                elif op == "D":
                    total -= scoring.gap
                    i += 1
                else:
                    total -= scoring.gap
                    j += 1
        if i != a.last + 1 or j != a.target_end + 1:
            problems.append(f"exon {a.index}: CIGAR covers base ..{i - 1}, target ..{j - 1}")
        expect_t = a.target_end + 1
    if not scoring.free_ends and expect_t != case.n + 1:
        problems.append(f"alignment covers target 1..{expect_t - 1}, not 1..{case.n}")
    if scoring.free_ends and not 1 <= result.alignment[0].target_start <= expect_t <= case.n + 1:
        problems.append(f"alignment covers target {result.alignment[0].target_start}..{expect_t - 1},"
                        f" not within 1..{case.n}")
    if total != result.score:
        problems.append(f"alignment spells score {total} != reported {result.score}")
    return problems


def brute_force(case: TestCase, scoring: Scoring) -> tuple[int, tuple[int, ...]]:
    """Best score over every chain (and one chain reaching it). Exponential: tiny K only."""
    best: tuple[int, tuple[int, ...]] | None = None
    by_first = sorted(range(case.K), key=lambda k: (case.exons[k].first, case.exons[k].last))
    for size in range(1, case.K + 1):
        for chain in combinations(by_first, size):
            if is_valid_chain(case, chain):
                s = chain_score(case, chain, scoring)
                if best is None or s > best[0]:
                    best = (s, chain)
    assert best is not None  # any single exon is a chain
    return best


def brute_force_last_rows(case: TestCase, scoring: Scoring) -> np.ndarray:
    """Each exon's final score (input order): the best chain ending with exon k (S(last(k), n, k),
    or with free target ends its maximum over j)."""
    out = np.empty(case.K, dtype=np.int64)
    for k in range(case.K):
        preds = [l for l in range(case.K) if case.exons[l].last < case.exons[k].first]
        preds.sort(key=lambda l: (case.exons[l].first, case.exons[l].last))
        best = chain_score(case, (k,), scoring)
        for size in range(1, len(preds) + 1):
            for chain in combinations(preds, size):
                if is_valid_chain(case, chain + (k,)):
                    best = max(best, chain_score(case, chain + (k,), scoring))
        out[k] = best
    return out
