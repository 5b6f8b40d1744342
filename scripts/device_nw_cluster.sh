#!/bin/bash
# One device call for nw_wfa_cluster (issue 26, the 10^6 x 10^6 pair at 1%), logs under $OUT, tables last:
# the cluster kernel's GPU pytest (single pairs of every size against `sequential`, the CPU WFA and pywfa), fresh
# random pairs (seed printed) through the cluster against `sequential` (linear and gap-affine),
# the kernel alone at 10^6 1% with 1, 2 and 3 steps between two cluster barriers (profile_nw_cluster.py; and
# with 8 blocks a cluster, the portable most),
# the kernel alone at 10^6 1% gap-affine (4, 6, 2),
# then device_nw.py --side at 10^6 1% linear and gap-affine: `gpu` against pywfa on one core in the same process,
# same inputs, score and CIGAR. pywfa's wheel in .whl/.
set -u
OUT=${OUT:-device_out}
mkdir -p "$OUT"
if ls .whl/pywfa-*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/pywfa-*.whl \
        && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 240 python3 -m pytest -q -x -p no:cacheprovider tests/test_nw_gpu_wfa_cluster.py >"$OUT/pytest.log" 2>&1
echo "pytest rc $?: $(tail -1 "$OUT/pytest.log")"
grep -E "^(FAIL|E  )" "$OUT/pytest.log" | head -8
timeout 90 python3 scripts/profile_nw_cluster.py --random 40 >"$OUT/random.log" 2>&1
echo "fresh random pairs rc $?: $(head -1 "$OUT/random.log"), $(tail -1 "$OUT/random.log")"
grep "^FAIL" "$OUT/random.log" | head -8
timeout 60 python3 scripts/profile_nw_cluster.py --per 1 2 3 >"$OUT/per.log" 2>&1
timeout 60 python3 scripts/profile_nw_cluster.py --per 3 --cluster 8 >"$OUT/per8.log" 2>&1
timeout 60 python3 scripts/profile_nw_cluster.py --costs affine >"$OUT/affine.log" 2>&1
timeout 150 python3 scripts/device_nw.py --side --skip-check --side-cases 1000000-1 --side-costs linear affine \
    --budget 140 --out "$OUT/side" >"$OUT/side.log" 2>&1
echo "side rc $?"
echo "== nw_wfa_cluster alone, steps a barrier"; cat "$OUT/per.log"; tail -4 "$OUT/per8.log"; cat "$OUT/affine.log"
grep -E "^  (gpu|pywfa) |FAIL" "$OUT/side.log" | cut -c1-300
sed -n '/^| case | costs/,$p' "$OUT/side.log"
