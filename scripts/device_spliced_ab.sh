#!/usr/bin/env bash
# A/B of the spliced CLI (issue 22 target 2) on one GPU machine: this tree against another (main),
# interleaved fresh processes. Run from this tree's root: scripts/device_spliced_ab.sh OTHER_TREE
# Writes logs under $OUT; prints a short table last.
set -u
B=$PWD; M=$(cd "$1" && pwd); OUT=${OUT:-device_out}; mkdir -p "$OUT"; T0=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
# 1. the reading row both ways (no numba, no GPU): this tree and the other, with and without the console's set-up
PYTHONPATH=$B/src timeout 90 python3 scripts/device_spliced_read.py --rounds 7 --bare --src "$B/src" --src "$M/src" > "$OUT/read.log" 2>&1
echo "reading rc=$? [t=$((SECONDS-T0)) s]"; sed -n '/^reading/,$p' "$OUT/read.log"
# 2. install steps of both trees (numba's host code in each tree's cache), then the benchmark's target 2 rows for this tree
for T in "$M" "$B"; do PYTHONPATH=$T/src timeout 120 python3 -m splicedalign.kernels host > "$OUT/host_$(basename "$T").log" 2>&1; echo "kernels host $T rc=$? [t=$((SECONDS-T0)) s]"; done
PYTHONPATH=$B/src timeout 150 python3 benchmarks/spliced_cold.py --targets 2 --repeats 3 --out "$OUT/cold2" > "$OUT/cold2.log" 2>&1
echo "spliced_cold T2 (this tree) rc=$? [t=$((SECONDS-T0)) s]"; sed -n '/^issue 22 targets/,$p' "$OUT/cold2.log"; grep -E "CLI steps" "$OUT/cold2.log" | cut -c1-420
# 3. interleaved CLI walls: gpu score and gff3, this tree vs the other, on one written paper set; outputs compared
timeout 150 python3 - "$M" "$B" "$OUT" <<'PY'
import json, os, statistics, subprocess, sys, tempfile, time
m, b, out = sys.argv[1:]
d = tempfile.mkdtemp()
subprocess.run([sys.executable, "-c", "from splicedalign.workloads.spliced import synthetic; "
                "from splicedalign.workloads.spliced.datasets import write_dataset; "
                f"write_dataset(synthetic.paper_set(4242, 240), '{d}/paper')"], check=True, env={**os.environ, "PYTHONPATH": f"{b}/src"})
rows = {"score": ["--score-only", "-o", "{d}/{n}.json"], "gff3": ["--format", "gff3", "-o", "{d}/{n}.gff3"]}
def align(tree, k):
    n = os.path.basename(tree)
    argv = [a.format(d=d, n=n) for a in rows[k]]
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "splicedalign.cli", "-q", "align", "--manifest", f"{d}/paper/cases.tsv",
                        "--solver", "gpu", *argv], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": f"{tree}/src"})
    if p.returncode:
        raise SystemExit(f"{n} {k}: exit {p.returncode}: {p.stderr[-500:]}")
    return time.perf_counter() - t
for tree in (m, b):
    for k in rows:
        align(tree, k)  # kernel caches (CuPy's), untimed
walls = {}
for r in range(5):
    for tree in ((m, b) if r % 2 == 0 else (b, m)):
        for k in rows:
            walls.setdefault((os.path.basename(tree), k), []).append(align(tree, k))
print("A/B CLI walls (s, median of 5 interleaved, min):")
for (n, k), v in walls.items():
    print(f"  {n:16s} {k:6s} {statistics.median(v):.3f} (min {min(v):.3f})  {[round(x, 3) for x in v]}")
strip = lambda r: {k: v for k, v in r.items() if "seconds" not in k and k != "mcups"}  # timing fields
name = lambda t: os.path.basename(t)
same_json = [strip(r) for r in json.load(open(f"{d}/{name(m)}.json"))] == [strip(r) for r in json.load(open(f"{d}/{name(b)}.json"))]
same_gff3 = open(f"{d}/{name(m)}.gff3").read() == open(f"{d}/{name(b)}.gff3").read()
print(f"  outputs identical: json (timing fields left out) {same_json}, gff3 {same_gff3}")
json.dump({f"{n} {k}": v for (n, k), v in walls.items()}, open(f"{out}/ab.json", "w"))
PY
echo "A/B rc=$? done [t=$((SECONDS-T0)) s]"
