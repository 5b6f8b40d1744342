"""Block-scheduling model of `gpu`'s launches on a Swiss-Prot-shaped database (the numbers behind
solver.STREAMS and docs/gpu-sw.md's streaming paragraph; CPU only, a few seconds): blocks of 64
sequences, longest first, a block's time its longest sequence (+ 8 steps of fill) x the query's
passes, 264 blocks resident at once (132 SMs x 2), each free slot taking the next block of the
earliest launch whose stream predecessor is done. Prints the kernel time of 4 queries (2, 3, 3,
3 passes: q464 ... q729) relative to its resident share, by chunks and streams.

  PYTHONPATH=src python3 scripts/sw_stream_model.py [--sequences 570000] [--seed 1]
"""

from __future__ import annotations

import argparse
import heapq

import numpy as np

from splicedalign.workloads.sw import synthetic

SLOTS, PER_BLOCK, FILL = 264, 64, 8


def blocks(lengths: np.ndarray, passes: int) -> np.ndarray:
    return (np.sort(lengths)[::-1][::PER_BLOCK] + FILL) * passes


def makespan(launches: list[np.ndarray], streams: int) -> float:
    """Launch i runs on stream i % streams, after launch i - streams has finished."""
    n = len(launches)
    nxt, running, done = [0] * n, [0] * n, [np.inf] * n
    free, events, t = SLOTS, [], 0.0
    while True:
        ready = [i for i in range(n) if nxt[i] < len(launches[i]) and (i < streams or done[i - streams] <= t)]
        if ready and free:
            i = ready[0]
            heapq.heappush(events, (t + launches[i][nxt[i]], i))
            nxt[i], running[i], free = nxt[i] + 1, running[i] + 1, free - 1
            continue
        if not events:
            return t
        t, i = heapq.heappop(events)
        running[i], free = running[i] - 1, free + 1
        if not running[i] and nxt[i] == len(launches[i]):
            done[i] = t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sequences", type=int, default=570_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    lengths = synthetic.scaleup_lengths(np.random.default_rng([args.seed, args.sequences]), args.sequences)
    passes = (2, 3, 3, 3)
    fair = sum(blocks(lengths, p).sum() for p in passes) / SLOTS
    print(f"{args.sequences} sequences, {lengths.sum()} residues, longest {lengths.max()}")
    print(f"resident, one stream: {makespan([blocks(lengths, p) for p in passes], 1) / fair:.2f}")
    for chunks in (8, 5, 4):
        launches = [blocks(part, p) for part in np.array_split(lengths, chunks) for p in passes]
        print(f"{chunks} chunks: " + ", ".join(f"{s} stream{'s' if s > 1 else ''} {makespan(launches, s) / fair:.2f}"
                                               for s in (1, 2, 4)))


if __name__ == "__main__":
    main()
