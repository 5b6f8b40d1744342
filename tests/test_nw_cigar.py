"""The CIGAR text of operation codes and of walks' runs (cigar.py's compiled passes) against Python's own
formatting: every run length across the digit table's edges (1-3 digits from the table, longer by the loop), runs
of one operation next to each other merged, within a walk and across walks, walks with no runs among them."""

from __future__ import annotations

import numpy as np
from helpers import fresh_rng

from splicedalign.workloads.nw.cigar import cigar_string, pieces_cigar, runs_cigar
from splicedalign.workloads.nw.records import OP_LETTERS

EDGES = (1, 2, 9, 10, 11, 99, 100, 101, 998, 999, 1000, 1001, 9999, 10000, 123456, 10**9)


def python_cigar(runs: list[tuple[int, int]]) -> str:
    """(length, op) runs in alignment order, those of one op next to each other merged, as Python writes them."""
    merged: list[list[int]] = []
    for length, op in runs:
        if merged and merged[-1][1] == op:
            merged[-1][0] += length
        else:
            merged.append([length, op])
    return "".join(f"{length}{OP_LETTERS[op]}" for length, op in merged)


def test_cigar_text_every_length_and_merge():
    rng = fresh_rng()
    lengths = [*EDGES, *range(1, 1100), *rng.integers(1, 10**7, 200).tolist()]
    for trial in range(20):
        picked = rng.permutation(lengths)[:400] if trial else np.array(EDGES)
        ops = rng.integers(0, 4, picked.size)
        if trial % 2:  # (neighbours of one op: merged)
            ops[rng.random(picked.size) < 0.3] = 1
        runs = [(int(length), int(op)) for length, op in zip(picked, ops)]
        want = python_cigar(runs)
        # walks: the runs cut into pieces, each written last run first into a room of its own
        cuts = np.sort(rng.choice(np.arange(1, len(runs)), size=min(len(runs) - 1, 7), replace=False))
        walks = np.split(np.arange(len(runs)), cuts)
        each = max(map(len, walks)) + 3
        room = np.zeros(each * len(walks), np.uint32)
        first = np.arange(len(walks), dtype=np.int64) * each
        used = np.array([len(w) for w in walks], np.int64)
        for k, walk in enumerate(walks):
            room[first[k]:first[k] + used[k]] = [(runs[i][0] << 2) | runs[i][1] for i in walk[::-1]]
        assert pieces_cigar(room, first, used) == want, trial
        # walks with no runs among them (first, between, last) change nothing
        empty = rng.integers(0, len(walks) + 1, 3)
        first_e, used_e = np.insert(first, empty, 0), np.insert(used, empty, 0)
        assert pieces_cigar(room, first_e, used_e) == want, trial
        whole = np.array([(length << 2) | op for length, op in runs[::-1]], np.uint32)
        assert runs_cigar(whole) == want, trial
        if sum(length for length, _ in runs) <= 10**6:  # (the operation codes themselves)
            codes = np.concatenate([np.full(length, op, np.int8) for length, op in runs])
            assert cigar_string(codes) == want, trial
    assert cigar_string(np.zeros(1, np.int8)) == "1" + OP_LETTERS[0] and runs_cigar(np.zeros(0, np.uint32)) == ""
    assert pieces_cigar(np.zeros(4, np.uint32), np.zeros(2, np.int64), np.zeros(2, np.int64)) == ""
