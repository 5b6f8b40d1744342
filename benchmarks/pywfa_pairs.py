"""pywfa (WFA2-lib) over the pairs of an `nw --pairs` file on every core, as a user of pywfa
would run it: the file read by our reader, a process pool of one worker a core, each pair
aligned end to end with linear costs 0/1/3 and its CIGAR made; each pair's ids, score and
CIGAR written as TSV. The CLI peer of scripts/device_nw_batch.py --cli (timed there in a fresh
process beside `splicedalign nw --pairs FILE --solver gpu`).

    python benchmarks/pywfa_pairs.py PAIRS_FILE OUT_TSV
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor

from splicedalign.workloads.nw.pairs import read_pairs
from splicedalign.workloads.nw.peers import pywfa_aligned, pywfa_model
from splicedalign.workloads.nw.records import Costs


def pywfa_pair(job: tuple[str, str, dict]) -> tuple[int, str]:
    """One pair (a's letters, b's, ``pywfa_model``): its score and pywfa's CIGAR."""
    aligner = pywfa_aligned(*job, True)
    return -int(aligner.score), aligner.cigarstring


def main(path: str, out: str) -> int:
    records = read_pairs(path)
    model = pywfa_model(Costs(0, 1, 3))
    jobs = [(first.seq, second.seq, model) for first, second in records]
    workers = os.cpu_count() or 1
    with ProcessPoolExecutor(workers) as pool:
        got = list(pool.map(pywfa_pair, jobs, chunksize=max(1, len(jobs) // (4 * workers))))
    with open(out, "w") as handle:
        handle.writelines(f"{first.id}\t{second.id}\t{score}\t{cigar}\n"
                          for (first, second), (score, cigar) in zip(records, got))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:3]))
