#!/bin/bash
# One device call for issue 26's fair peer side and the single-pair host (nw-peer9), run from a tree
# carried under main's .wt/ (main's own src two folders up, ../../src, for the A/B); logs under $OUT, a
# summary last:
#   1. this tree's GPU pytest of the WFA (tests/test_nw_gpu_wfa*.py) beside device_nw.py --quick (fresh random
#      pairs of every mode and cost model against the CPU solvers);
#   2. the side rows (device_nw.py --side, linear, $SIDE_CASES): main's and this tree's, both timing pywfa in
#      3 fresh processes (peers.time_pywfa; written when main still timed it in its own process), this tree's
#      also with a new aligner a call (pywfa-new);
#   3. GpuSolver.solve host to host, main's src and this tree's in turn (twice each), then a cProfile of
#      300 score solves of 10^5 1% each (scripts/profile_nw_host.py).
# pywfa's sdist and build wheels in .whl/ (scripts/pywfa_native.sh).
set -u
OUT=${OUT:-device_out}
mkdir -p "$OUT"
SIDE_CASES=${SIDE_CASES:-100000-1 30368-10}
BASE=$(realpath ../../src)
HERE=$PWD
# pywfa built on this host, as a user's `pip install pywfa` builds it (-march=native; ~40 s):
# scripts/pywfa_native.sh, its sdist and build wheels in .whl/ (a wheel built on another CPU ran up to 19% slower)
scripts/pywfa_native.sh .whl /tmp/site "$OUT/pywfa_build.log" && export PYTHONPATH=$PYTHONPATH:/tmp/site
{ grep -m1 "model name" /proc/cpuinfo; nproc; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } \
    >"$OUT/host.txt" 2>&1
timeout 100 python3 -m pytest -q -x -p no:cacheprovider tests/test_nw_gpu_wfa.py tests/test_nw_gpu_wfa_cluster.py \
    >"$OUT/pytest.log" 2>&1 &
timeout 60 python3 scripts/device_nw.py --quick --pairs 150 --mode-pairs 200 --budget 35 --out /tmp/quick \
    >"$OUT/quick.log" 2>&1
echo "quick rc $?: $(grep -E "failures" "$OUT/quick.log" | tr '\n' ' ')" >"$OUT/summary.txt"
wait
echo "pytest: $(tail -1 "$OUT/pytest.log")" >>"$OUT/summary.txt"
grep -E "^(FAIL|E  )" "$OUT/pytest.log" "$OUT/quick.log" | head >>"$OUT/summary.txt"
# 2. the side rows, main's then this tree's
(cd ../.. && PYTHONPATH=$BASE:/tmp/site timeout 45 python3 scripts/device_nw.py --side --skip-check \
    --side-cases $SIDE_CASES --side-costs linear --budget 40 --out /tmp/side_main) >"$OUT/side_main.log" 2>&1
echo "side main rc $?" >>"$OUT/summary.txt"
timeout 60 python3 scripts/device_nw.py --side --skip-check --side-cases $SIDE_CASES --side-costs linear \
    --pywfa-new-aligner --budget 55 --out /tmp/side_this >"$OUT/side_this.log" 2>&1
echo "side this rc $?" >>"$OUT/summary.txt"
# 3. the host A/B and the cProfiles
for round in 1 2; do
    (cd ../.. && PYTHONPATH=$BASE timeout 30 python3 "$HERE/scripts/profile_nw_host.py" --tag main$round \
        $([ $round = 2 ] && echo --cprofile 300)) >>"$OUT/host_ab.log" 2>&1
    timeout 30 python3 scripts/profile_nw_host.py --tag this$round $([ $round = 2 ] && echo --cprofile 300) \
        >>"$OUT/host_ab.log" 2>&1
done
{
    echo "== host"; cat "$OUT/host.txt"
    echo "== side main"; grep -E "^  (gpu|pywfa)" "$OUT/side_main.log" | cut -c1-150
    sed -n '/^| case | costs/,$p' "$OUT/side_main.log"
    echo "== side this"; grep -E "^  (gpu|pywfa)|^pywfa:" "$OUT/side_this.log" | cut -c1-200
    sed -n '/^| case | costs/,$p' "$OUT/side_this.log"
    echo "== host A/B (GpuSolver.solve, ms)"; grep -E "^(main|this)[12] " "$OUT/host_ab.log" | grep " ms (" 
} >>"$OUT/summary.txt"
cat "$OUT/summary.txt"
