"""The summary of scripts/device_spliced_cold_ab.sh: each arm's `benchmarks/spliced_cold.py --targets 1` processes
(DIR/cold_ARM_ROUND.json, one process each, the same seed for every arm of a round) as medians, then each arm
against the first one round by round (the paper score call, its last window and its kernel's end: ms, paired).

    python3 scripts/cold_ab_summary.py DIR
"""

from __future__ import annotations

import collections
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # (run from a device kit: no install there)
from splicedalign.core.timing import gcups  # noqa: E402


def per_call(run: dict) -> dict[str, float]:
    """One process's figures: GCUPS of the paper and 10-set score calls, the traced / score ratios (time per
    cell), the paper score call's ms, its last window and kernel end (fed clock)."""
    rate = {key: gcups(call["cells"], call["seconds"]) for key, call in run.items() if isinstance(call, dict)}
    fed = run["paper score"].get("fed_ms") or {}
    return {"paper GCUPS": rate["paper score"], "10 sets GCUPS": rate["10 sets score"],
            "1t/1s": rate["paper score"] / rate["paper traced"],
            "10t/10s": rate["10 sets score"] / rate["10 sets traced"],
            "call ms": run["paper score"]["seconds"] * 1e3,
            "last window ms": fed["written"][-1] if fed else float("nan"),
            "kernel end ms": fed.get("ended", float("nan"))}


def main() -> int:
    rows: dict[str, dict[int, dict[str, float]]] = collections.defaultdict(dict)
    for path in sorted(Path(sys.argv[1]).glob("cold_*_*.json")):
        arm, round_ = path.stem[len("cold_"):].rsplit("_", 1)
        rows[arm][int(round_)] = per_call(json.loads(path.read_text())["target1"][0])
    if not rows:
        print("no cold_ARM_ROUND.json files")
        return 1
    keys = list(next(iter(next(iter(rows.values())).values())))
    print("arm      n  " + "  ".join(f"{k:>14}" for k in keys) + "   (medians)")
    for arm, runs in rows.items():
        print(f"{arm:8} {len(runs):2}  " + "  ".join(f"{statistics.median(r[k] for r in runs.values()):14.2f}"
                                                    for k in keys))
        print(f"{'':11}paper GCUPS by round: " + " ".join(f"{runs[r]['paper GCUPS']:.0f}" for r in sorted(runs)))
    base, *others = rows
    for arm in others:
        common = sorted(set(rows[base]) & set(rows[arm]))
        for k in ("call ms", "last window ms", "kernel end ms"):
            d = [rows[arm][r][k] - rows[base][r][k] for r in common]
            if d:
                print(f"{arm} - {base}, {k}: {' '.join(f'{x:+.2f}' for x in d)}; median {statistics.median(d):+.2f}, "
                      f"less in {sum(x < 0 for x in d)} of {len(d)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
