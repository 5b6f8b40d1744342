#!/bin/bash
# One device call for infix mode's gap start (nw_wfa's gap_start; docs/experiments/nw-gpu.md), logs under
# $OUT, the summary last: the WFA's GPU pytest (nw_wfa's, with fresh random infix pairs with and without the
# gap start against the CPU WFA, and the cluster's: wfa_common.cuh's walk back changed), the kernels' registers
# and spills (nvcc sm_90) in main's tree (the run's root, two folders up) and this one, then the kernel alone
# (profile_nw_wfa.py: score and CIGAR) on 10^5 1% and 30,368 10% gap-affine and 10^5 1% linear, main's and
# this tree's processes in turn, twice.
set -u
OUT=${OUT:-device_out}
mkdir -p "$OUT"
MAIN=$(cd ../.. && pwd)
PYTHONPATH=$PWD/src timeout 240 python3 -m pytest -q -s -p no:cacheprovider tests/test_nw_gpu_wfa.py \
    tests/test_nw_gpu_wfa_cluster.py >"$OUT/pytest.log" 2>&1
echo "pytest rc $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^seed|^(FAIL|E  )" "$OUT/pytest.log" | head -20
registers() {  # entry function, registers, spill bytes (stores + loads) of wfa.cu and wfa_cluster.cu in tree $1
    for f in wfa wfa_cluster; do
        nvcc -arch=sm_90 -std=c++17 -I "$1/src/splicedalign/gpu/include" -cubin --resource-usage -o /tmp/regs.cubin \
            "$1/src/splicedalign/workloads/nw/gpu/$f.cu" 2>&1 | grep -E "Compiling entry|spill stores|Used [0-9]+ reg" \
            | paste - - - | sed -E "s/.*entry function '([^']+)'.* ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads.*Used ([0-9]+) registers.*/\1 \4 \2+\3/"
    done | c++filt | sed -E 's/^void //; s/\(.*\)//' | grep -v pack
}
registers "$MAIN" >"$OUT/registers_main.txt"
registers . >"$OUT/registers_this.txt"
echo "== registers: main (kernel regs spill-stores+loads), then this"
paste "$OUT/registers_main.txt" "$OUT/registers_this.txt"
for round in 1 2; do
    for tree in main this; do
        root=.
        [ $tree = main ] && root=$MAIN
        (cd "$root" && PYTHONPATH=$root/src timeout 90 python3 "$root/scripts/profile_nw_wfa.py" --cases 100000-1 30368-10 \
            --costs affine linear --affine-cases 100000-1 30368-10 --repeats 5) >"$OUT/kernel_${tree}_$round.log" 2>&1
    done
done
for f in "$OUT"/kernel_*.log; do echo "== $(basename "$f" .log)"; grep -vE "^case" "$f" | grep -E "100000-1|30368-10"; done
