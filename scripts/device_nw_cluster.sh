#!/bin/bash
# One device call for nw_wfa_cluster (issue 26, the 10^6 x 10^6 pair at 1%), logs under $OUT (4 files), tables last:
# the kernel alone at 10^6 1% (profile_nw_cluster.py: linear with 1 and 3 steps a barrier, gap-affine (4, 6, 2)),
# this tree's first (it stops there if that fails), then ALT's (another tree's src, when set) and main's (BASE, when
# set: e.g. BASE=$(realpath ../../src) with this tree carried under .wt/NAME) in the same call;
# correctness: the cluster's GPU pytest and fresh random pairs (seed printed) against `sequential` (linear and
# gap-affine) of this tree and ALT, this tree's GPU pytest of nw_wfa / nw_biwfa and device_nw.py --quick;
# then device_nw.py --side at 10^6 1% of the tree (this or ALT) whose linear score kernel was the faster: `gpu`
# against pywfa on one core, same inputs, score and CIGAR (linear: 3 fresh pywfa processes; gap-affine:
# SIDE_AFFINE_PROCESSES, 1 by default: ~1.3 / 1.9 s a pywfa call). pywfa's sdist and build wheels in .whl/.
set -u
OUT=${OUT:-device_out}
mkdir -p "$OUT"
TREE=$PWD/src
BASE=${BASE:-}
ALT=${ALT:-}  # another tree's src measured beside this one (its kernels and correctness)
# pywfa built on this host, as a user's `pip install pywfa` builds it (-march=native; ~40 s): scripts/pywfa_native.sh
# (a wheel built on another CPU ran the gap-affine rows up to 19% slower)
scripts/pywfa_native.sh .whl /tmp/site "$OUT/pywfa_build.log" && export PYTHONPATH=$PYTHONPATH:/tmp/site
nvidia-smi --query-gpu=name --format=csv,noheader
CHECK=$OUT/check.log KERNELS=$OUT/kernels.log SIDE=$OUT/side.log
kernels() {  # the kernel alone at 10^6 1%, src $1 (linear 1 and 3 steps a barrier, or gap-affine: $2)
    local what="--per 1 3"
    [ "$2" = affine ] && what="--costs affine"
    echo "== $1 $2" >>"$KERNELS"
    PYTHONPATH=$1:/tmp/site timeout 60 python3 scripts/profile_nw_cluster.py $what >>"$KERNELS" 2>&1
}
kernels "$TREE" linear || { echo "this tree's kernel failed: stopping"; tail -20 "$KERNELS"; exit 1; }
for src in $ALT $BASE; do kernels "$src" linear; done
for src in $TREE $ALT $BASE; do kernels "$src" affine; done
# MORE_CASES (e.g. "100000-5 30368-10"): this tree's linear rows of pairs whose letters fit one block, as solve
# chooses (nw_biwfa) and through the cluster (--letters-global), kernel and host to host
if [ -n "${MORE_CASES:-}" ]; then
    for flag in "" --letters-global; do
        echo "== $TREE linear-more $flag" >>"$KERNELS"
        PYTHONPATH=$TREE:/tmp/site timeout 60 python3 scripts/profile_nw_cluster.py --cases $MORE_CASES $flag \
            >>"$KERNELS" 2>&1
    done
fi
correct() {  # the cluster's GPU pytest and fresh random pairs, src $1
    PYTHONPATH=$1:/tmp/site timeout 100 python3 -m pytest -q -x -p no:cacheprovider tests/test_nw_gpu_wfa_cluster.py \
        >>"$CHECK" 2>&1
    echo "pytest cluster ($1) rc $?: $(tail -1 "$CHECK")"
    PYTHONPATH=$1:/tmp/site timeout 90 python3 scripts/profile_nw_cluster.py --random "${RANDOM_PAIRS:-30}" \
        >"$OUT/random.tmp" 2>&1
    echo "fresh random pairs ($1) rc $?: $(head -1 "$OUT/random.tmp"), $(tail -1 "$OUT/random.tmp")"
    grep "^FAIL" "$OUT/random.tmp" | head -8
    cat "$OUT/random.tmp" >>"$CHECK" && rm "$OUT/random.tmp"
}
for src in $TREE $ALT; do correct "$src"; done
timeout 150 python3 -m pytest -q -x -p no:cacheprovider tests/test_nw_gpu_wfa.py >>"$CHECK" 2>&1
echo "pytest wfa rc $?: $(tail -1 "$CHECK")"
grep -E "^(FAIL|E  )" "$CHECK" | head -8
timeout 120 python3 scripts/device_nw.py --quick --pairs 150 --mode-pairs 200 --budget 110 >"$OUT/quick.tmp" 2>&1
echo "quick rc $?"
grep -E "checked|correctness failures|^FAIL" "$OUT/quick.tmp" | head -8
cat "$OUT/quick.tmp" >>"$CHECK" && rm "$OUT/quick.tmp"
# the side rows of the tree (this or ALT) whose linear score kernel (3 steps a barrier) is the faster
SIDE_SRC=$(python3 - "$KERNELS" "$TREE" "${ALT:-}" <<'PICK'
import sys
times, src = {}, None
for line in open(sys.argv[1]):
    if line.startswith("== "):
        src, kind = line.split()[1:3]
    elif line.startswith("1000000-1") and kind == "linear" and line.split()[1:3] == ["3", "score"]:
        times[src] = float(line.split()[5])
pick = min((s for s in sys.argv[2:] if s in times), key=times.get, default=sys.argv[2])
print(pick)
PICK
)
echo "side rows of $SIDE_SRC"
PYTHONPATH=$SIDE_SRC:/tmp/site timeout 60 python3 scripts/device_nw.py --side --skip-check --side-cases 1000000-1 \
    --side-costs linear --budget 55 --out /tmp/side_linear >"$SIDE" 2>&1
echo "side linear rc $?"
if [ "${SIDE_AFFINE:-1}" = 1 ]; then  # (SIDE_AFFINE=0: the gap-affine kernels alone above, no side row)
    PYTHONPATH=$SIDE_SRC:/tmp/site timeout 90 python3 scripts/device_nw.py --side --skip-check --side-cases \
        1000000-1 --side-costs affine --pywfa-processes "${SIDE_AFFINE_PROCESSES:-1}" --budget 85 \
        --out /tmp/side_affine >>"$SIDE" 2>&1
    echo "side affine rc $?"
fi
echo "== nw_wfa_cluster alone (this tree, ALT, main's src)"
grep -E "^(==|case|[0-9]+-[0-9]+ |FAIL|failures|Traceback|[A-Za-z]*Error)" "$KERNELS"
grep -E "^  (gpu|pywfa) |FAIL" "$SIDE" | cut -c1-300
grep -E "^\| (case|[0-9])" "$SIDE"
