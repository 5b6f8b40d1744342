"""Compare two folders of spliced benchmark tables, timing columns aside.

    python scripts/compare_tables.py BEFORE/tables AFTER/tables

Every column of BEFORE's tables must be in AFTER's and equal there, except the timing ones
(seconds, MCUPS, speedups, slower-than shares, spreads and flags, and the fitted numbers of
estimation_accuracy.tsv); columns only AFTER has are listed. Exit status 1 when any differ.
"""

from __future__ import annotations

import re
import sys

import pandas as pd

TABLES = ("cases", "summary", "estimation_accuracy", "parallelism", "scalability", "accuracy")
TIMING = re.compile(r"seconds|mcups|speedup|slower|spread|flag|unreliable|^spearman$|^a$|^c$|^r2$|pct_error")


def main(before: str, after: str) -> int:
    same_all = True
    for name in TABLES:
        a = pd.read_csv(f"{before}/{name}.tsv", sep="\t", dtype=str, keep_default_na=False)
        b = pd.read_csv(f"{after}/{name}.tsv", sep="\t", dtype=str, keep_default_na=False)
        keep = [c for c in a.columns if not TIMING.search(c)]
        missing = [c for c in a.columns if c not in b.columns]
        same = not missing and len(a) == len(b) and a[keep].equals(b[keep])
        same_all &= same
        new = [c for c in b.columns if c not in a.columns]
        print(f"{name:20} {'identical' if same else 'DIFFERENT'}: {len(keep)} of {len(a.columns)} columns, "
              f"{len(a)} rows; missing {missing or 'none'}; new {new or 'none'}")
    return 0 if same_all else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
