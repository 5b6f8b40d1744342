"""A model of a never-seen 10-set score call's timeline (CPU only, no GPU used): how the `gpu`
solver's launch cutting (launch.Cutter, Tuning.first_launch_share / launch_growth) keeps the GPU
busy, from per-case host costs and per-row kernel costs fitted to ``--cold-events`` logs of
scripts/device_spliced.py. (Its split-ahead variants, a splitter thread the model favoured and the
H100 measured slower, were removed with the solver's; branch spliced-launch8 keeps both.)

Each variant's launches are the real ones (GpuSolver._streamed on fresh ``paper_sets(10, seed + 2)``,
H100-sized free memory); their times come from the fitted model:
- host (one thread, the caller's): the first chunk's split (SPLIT_FIRST cases), each later launch's
  split (its cases), then per launch its set-up, planning and upload (per case), its queueing; after
  launch k is queued the Pending of launch k - 1 (per case); the call ends after the last kernel
  (``END_MS``: collection, results) or after the host's own last work, whichever is later;
- GPU: kernels back to back in launch order, each ``a + g * rows`` ms (its row elements; ``a``: the
  launch's chain-bound tail), starting ``START_MS`` after both its queue and the kernel before.

``--fit LOG ...``: the per-case and per-row costs fitted from the logs' ``events 10 sets score``
lines (launches' cases and rows from their seeds, as above), printed with each launch's numbers.
    PYTHONPATH=src python3 scripts/model_spliced_launches.py --fit /work/.device/14/cold.log --slow 1
    PYTHONPATH=src python3 scripts/model_spliced_launches.py --seeds 8427900 8427910 8427920

``--chain LOG ...``: a second model, of a fed 1-set call's long chains against its windows (feed.py): a chain's
path crosses its slots at a constant rate (``--chain-ms`` for all of them), a slot at relative position x lies in
the window of x - ahead (Tuning.long_chain_ahead; the windows' edges at the sums of ``--chain-tuning``'s
feed_shares, the defaults' without it) and cannot start before that window lands. Per event-logged process
of the logs (``events 1 set score`` and its ``cold`` line): the windows' landings after window 0, the kernel after
window 0 minus the process's second replay (host to host), and the chain's modelled idle at ahead 0 / 0.1 / 0.2.
    PYTHONPATH=src python3 scripts/model_spliced_launches.py --chain /work/.device/2/cold.log
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from dataclasses import dataclass, replace
from functools import cache

import numpy as np

from splicedalign.workloads.spliced.gpu import launch
from splicedalign.workloads.spliced.gpu.solver import SPLIT_FIRST, GpuSolver
from splicedalign.workloads.spliced.records import Scoring
from splicedalign.workloads.spliced.synthetic import paper_sets

FREE = 79 << 30  # an H100's free device memory at a cold call (the row budget binds, not the memory share)
START_MS = 0.3   # a kernel's start after its queue or the kernel before
END_MS = 2.0     # the call's end after its last kernel (the last launch collected, its results)


@dataclass(frozen=True)
class Costs:
    """Host us per case and fixed ms, GPU ms per G row elements and fixed ms (H100 host and GPU)."""
    split_first_us: float = 2.0   # the first chunk (SPLIT_FIRST cases: the objects read cold)
    split_us: float = 1.49         # a later launch's cases
    setup_ms: float = 0.7          # configure, row storage (before planning)
    plan_us: float = 2.40          # build_plan + gathers
    upload_ms: float = 2.03        # staging, pack, send, encode: fixed
    upload_us: float = 0.335       # ... per case
    queue_ms: float = 0.3          # finals and the kernel's queueing
    pending_us: float = 1.64       # a launch's Pending, made after the next one is queued
    kernel_ms: float = 5.84        # a kernel's fixed part (its chain-bound tail)
    kernel_ms_per_grow: float = 24.1  # per G row elements
    # (fitted with --fit /work/.device/14/cold.log /work/.device/8/cold.log: the release check's
    # three H100 processes and split7's two; the first chunk's and the fixed steps' set by hand)


@cache
def launches_of(seed: int, tuning: launch.Tuning) -> list[tuple[int, int]]:
    """(cases, row elements) of each launch of the never-seen 10-set call of ``seed``."""
    cases = paper_sets(10, seed + 2)
    share, _ = launch.memory_split(0, FREE, launch.IN_FLIGHT)
    return [(len(w.sel), launch.launch_rows(sub, tuning.rows_per_lane))
            for w, sub, _, _ in GpuSolver(tuning=tuning)._streamed(cases, Scoring(), FREE, share)]


def simulate(launches: list[tuple[int, int]], costs: Costs) -> dict:
    """The modelled timeline (ms) of a call with these launches: each kernel's (start, end), the
    GPU's idle time between kernels, the call's end."""
    c = costs
    splits, done = [], 0  # each launch's split (ms)
    for n, _ in launches:
        first = max(0, min(SPLIT_FIRST, done + n) - done) if done < SPLIT_FIRST else 0
        splits.append((first * c.split_first_us + (n - first) * c.split_us) / 1e3)
        done += n
    host = gpu = 0.0
    kernels, idle = [], 0.0
    for k, (n, rows) in enumerate(launches):
        host += splits[k]
        host += c.setup_ms + n * c.plan_us / 1e3 + c.upload_ms + n * c.upload_us / 1e3 + c.queue_ms
        start = max(host, gpu) + START_MS
        if kernels:
            idle += max(0.0, start - START_MS - gpu)
        gpu = start + c.kernel_ms + rows / 1e9 * c.kernel_ms_per_grow
        kernels.append((start, gpu))
        if k:
            host += launches[k - 1][0] * c.pending_us / 1e3
    host += launches[-1][0] * c.pending_us / 1e3
    return {"kernels": kernels, "idle": idle, "end": max(gpu + END_MS, host + END_MS)}


EVENTS = re.compile(r"^\s*(\S+) seed (\d+) events 10 sets score: (.*)$")


def fit(paths: list[str], tuning: launch.Tuning) -> Costs:
    """Costs fitted from ``events 10 sets score`` lines (the release check's form: row storage
    before planning): least squares per stage over every launch of every line."""
    rows_of: dict[int, list] = {}
    stages: dict[str, list] = {k: [] for k in ("split", "plan", "upload", "pending", "kernel")}
    for path in paths:
        for line in open(path):
            m = EVENTS.match(line)
            if not m:
                continue
            name, seed, rest = m.group(1), int(m.group(2)), m.group(3)
            host, gpu = rest.split(" | GPU ")
            steps = [(n, float(a), float(b)) for n, a, b in re.findall(r"(\w+) ([\d.]+)-([\d.]+)", host)]
            kern = [(float(a), float(b)) for a, b in re.findall(r"kernel ([\d.]+)-([\d.]+)", gpu)]
            if seed not in rows_of:
                rows_of[seed] = launches_of(seed, tuning)
            made = rows_of[seed]
            launched = [s for s in steps if s[0] == "launch"]
            if len(launched) != len(made) or len(kern) != len(made):
                continue
            print(f"{path} {name} {seed}: end {[s for s in steps if s[0] == 'solve_many'][0][2]}")
            for k, ((_, a, b), (n, rows)) in enumerate(zip(launched, made)):
                inside = {s[0]: s for s in steps if a - 0.01 <= s[1] and s[2] <= b + 0.01}
                before = launched[k - 1][2] if k else 0.0
                pend = sum(s[2] - s[1] for s in steps if s[0] == "pending" and before - 0.01 <= s[1] and s[2] <= a)
                if k == 1:
                    prev = launched[0]
                    mine = [s for s in steps if s[0] == "pending" and prev[2] - 0.01 <= s[1] < launched[2][1]
                            ] if len(launched) > 2 else []
                    if mine:
                        stages["pending"].append((made[0][0], mine[0][2] - mine[0][1]))
                split = a - before - pend
                plan = inside["gathers"][1] - inside["row_storage"][2]
                upload = inside["inputs"][2] - inside["gathers"][1]
                ms = kern[k][1] - kern[k][0]
                if k:
                    stages["split"].append((n, split))
                stages["plan"].append((n, plan))
                stages["upload"].append((n, upload))
                stages["kernel"].append((rows / 1e9, ms))
                print(f"  launch {k}: {n} cases {rows / 1e9:.3f} G rows: split {split:.1f} plan {plan:.1f} "
                      f"upload {upload:.1f} ms, kernel {kern[k][0]:.1f}-{kern[k][1]:.1f} ({ms:.1f} ms), "
                      f"queued {b:.1f}")
    per_case = {k: statistics.median(t / n * 1e3 for n, t in v) for k, v in stages.items() if k != "kernel" and v}
    x, y = np.array(stages["kernel"]).T
    g, a = np.polyfit(x, y, 1)
    up_b, up_a = np.polyfit(*np.array(stages["upload"]).T, 1)
    costs = replace(Costs(), split_us=per_case["split"], plan_us=per_case["plan"], upload_us=up_b * 1e3,
                    upload_ms=up_a, pending_us=per_case.get("pending", Costs.pending_us),
                    kernel_ms=float(a), kernel_ms_per_grow=float(g))
    print("fitted:", {k: round(v, 3) if isinstance(v, float) else v for k, v in vars(costs).items()})
    return costs


VARIANTS = {  # name: Tuning fields
    "main (0.35)": {"first_launch_share": 0.35},
    "0.45": {"first_launch_share": 0.45},
    "0.55": {"first_launch_share": 0.55},
    "0.7": {"first_launch_share": 0.7},
    "0.85": {"first_launch_share": 0.85},
    "0.45 x1.3": {"first_launch_share": 0.45, "launch_growth": 1.3},
    "0.55 x1.3": {"first_launch_share": 0.55, "launch_growth": 1.3},
}


def chain_idle(landed: list[float], ahead: float, path_ms: float, tuning: launch.Tuning) -> float:
    """The ms a long chain's path waits for its windows (--chain): window j (landed[j] ms after
    window 0) holds the chain's slots at relative positions [edge_j + ahead, edge_j+1 + ahead),
    the edges as feed.Feeder sets them with the steps' shares standing for their cells (the other
    cases' share before each step after the first)."""
    edges = np.cumsum(tuning.feed_shares)[:len(landed) - 1]
    if edges.size < len(landed) - 1:
        raise SystemExit(f"a logged fed call has {len(landed)} windows, the Tuning's feed_shares {edges.size + 1} "
                         "at most: give the logs' as --chain-tuning")
    bounds = [0.0] + [min(1.0, e + ahead) for e in edges] + [1.0]
    t = idle = 0.0
    for j, at in enumerate(landed):
        if bounds[j + 1] > bounds[j]:
            idle += max(0.0, at - t)
            t = max(t, at) + path_ms * (bounds[j + 1] - bounds[j])
    return idle


def chains(paths: list[str], path_ms: float, tuning: launch.Tuning) -> None:
    """--chain: each event-logged fed 1-set call of the logs (fed with ``tuning``'s windows) against chain_idle."""
    event = re.compile(r"(\S+) seed (\d+) events 1 set score: .*GPU kernel [\d.]+-([\d.]+) fed ([\d. ]+)$")
    # device_spliced's cold line, with or without its "steal N ticks, window 0 at X ms; " part
    cold = re.compile(r"cold (\S+) seed (\d+): 1 set score ([\d.]+) ms \((?:steal [^;]*; )?replay [\d.]+, ([\d.]+);")
    print("tree seed: cold ms | windows after window 0 | kernel after window 0 - 2nd replay"
          " | chain idle at ahead 0 / 0.1 / 0.2")
    for path in paths:
        ends, calls = {}, {}
        for line in open(path):
            if m := event.search(line.strip()):
                fed = [float(x) for x in m[4].split()]
                ends[m[1], m[2]] = (float(m[3]) - fed[0], [x - fed[0] for x in fed])
            elif m := cold.search(line):
                calls[m[1], m[2]] = (float(m[3]), float(m[4]))
        for key, (after, landed) in ends.items():
            if key in calls:
                idle = " / ".join(f"{chain_idle(landed, a, path_ms, tuning):.2f}" for a in (0.0, 0.1, 0.2))
                print(f"{key[0]} {key[1]}: {calls[key][0]:.1f} | {' '.join(f'{x:.1f}' for x in landed)} | "
                      f"{after - calls[key][1]:+.1f} | {idle}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="*", default=[8427900, 8427910, 8427920])
    ap.add_argument("--fit", nargs="*", default=None, metavar="LOG")
    ap.add_argument("--fit-tuning", default='{"first_launch_share": 0.35}',
                    help="the logs' Tuning fields (JSON): their launches are cut as they were")
    ap.add_argument("--costs", default=None, help="Costs fields (JSON) over the defaults")
    ap.add_argument("--slow", type=float, nargs="*", default=[1.0, 0.75, 1.3],
                    help="host speed factors: every host cost times this")
    ap.add_argument("--chain", nargs="*", default=None, metavar="LOG", help="the fed 1-set calls' chain model")
    ap.add_argument("--chain-ms", type=float, default=8.0, help="--chain: a long chain's path over all its slots")
    ap.add_argument("--chain-tuning", default="{}",
                    help="--chain: the Tuning fields of the logs' fed calls (JSON), "
                         "e.g. '{\"feed_shares\": [0.1, 0.3]}'")
    args = ap.parse_args()
    if args.chain is not None:
        chains(args.chain, args.chain_ms, launch.tuning_of(args.chain_tuning))
        return 0
    costs = Costs(**json.loads(args.costs)) if args.costs else Costs()
    if args.fit is not None:
        try:
            fitted = launch.tuning_of(args.fit_tuning)
        except ValueError as exc:
            ap.error(f"--fit-tuning: {exc}")
        costs = fit(args.fit, fitted)
    host = ("split_first_us", "split_us", "setup_ms", "plan_us", "upload_ms", "upload_us", "queue_ms", "pending_us")
    print(f"{'10 sets, model (ms)':<18}" + "".join(f"{f'host x{s:g}':>26}" for s in args.slow))
    print(f"{'':<18}" + f"{'end (idle) launches':>26}" * len(args.slow))
    for name, fields in VARIANTS.items():
        tuning = launch.tuning_of(fields)
        made = [launches_of(seed, tuning) for seed in args.seeds]
        cells = []
        for s in args.slow:
            c = replace(costs, **{f: getattr(costs, f) * s for f in host})
            runs = [simulate(m, c) for m in made]
            end, idle = (statistics.median(r[k] for r in runs) for k in ("end", "idle"))
            cells.append(f"{end:6.1f} ({idle:4.1f}) {'/'.join(str(n) for n, _ in made[0]):>12}")
        print(f"{name:<18}" + "".join(f"{x:>26}" for x in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
