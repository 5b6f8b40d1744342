#!/bin/bash
# One device call for the dp CIGAR (issue 26's 10^5 5% and 30,368 10% gap-affine rows: nw_band + nw_band_walk),
# run from a tree carried under main's .wt/ (main's own src two folders up, ../../src, for the A/B); logs under
# $OUT, a summary last:
#   1. this tree's GPU pytest of the DP solver (tests/test_nw_gpu.py) beside device_nw.py --quick (fresh random
#      pairs of every mode and cost model against the CPU solvers, the large pairs through nw_band's walk);
#   2. the gap-affine side rows ($SIDE_CASES): main's gpu (no pywfa there), then this tree's beside pywfa built
#      on this host (scripts/pywfa_native.sh: its sdist and build wheels in .whl/), 3 fresh processes.
set -u
OUT=${OUT:-device_out}
mkdir -p "$OUT"
SIDE_CASES=${SIDE_CASES:-100000-5 30368-10}
BASE=$(realpath ../../src)
scripts/pywfa_native.sh .whl /tmp/site "$OUT/pywfa_build.log" &
build=$!
{ grep -m1 "model name" /proc/cpuinfo; nproc; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } \
    >"$OUT/host.txt" 2>&1
timeout 120 python3 -m pytest -q -x -p no:cacheprovider tests/test_nw_gpu.py >"$OUT/pytest.log" 2>&1 &
tests=$!
timeout 100 python3 scripts/device_nw.py --quick --pairs 100 --mode-pairs 150 --out /tmp/quick >"$OUT/quick.log" 2>&1
echo "quick rc $?: $(grep -E "failures" "$OUT/quick.log" | tr '\n' ' ')" >"$OUT/summary.txt"
wait $tests
echo "pytest: $(tail -1 "$OUT/pytest.log")" >>"$OUT/summary.txt"
grep -E "^(FAIL|E  )" "$OUT/pytest.log" "$OUT/quick.log" | head >>"$OUT/summary.txt"
(cd ../.. && PYTHONPATH=$BASE timeout 60 python3 scripts/device_nw.py --side --skip-check --side-cases $SIDE_CASES \
    --side-costs affine --pywfa-processes 1 --budget 50 --out /tmp/side_main) >"$OUT/side_main.log" 2>&1
echo "side main rc $?" >>"$OUT/summary.txt"
wait $build && export PYTHONPATH=$PYTHONPATH:/tmp/site
echo "pywfa build: $(tail -1 "$OUT/pywfa_build.log")" >>"$OUT/summary.txt"
timeout 90 python3 scripts/device_nw.py --side --skip-check --side-cases $SIDE_CASES --side-costs affine \
    --budget 85 --out /tmp/side_this >"$OUT/side_this.log" 2>&1
echo "side this rc $?" >>"$OUT/summary.txt"
{
    echo "== host"; cat "$OUT/host.txt"
    echo "== side main (gpu only)"; grep -E "^  gpu" "$OUT/side_main.log" | cut -c1-220
    echo "== side this"; grep -E "^  (gpu|pywfa)|^pywfa" "$OUT/side_this.log" | cut -c1-220
    sed -n '/^| case | costs/,$p' "$OUT/side_this.log"
} >>"$OUT/summary.txt"
cat "$OUT/summary.txt"
