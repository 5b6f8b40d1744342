#!/bin/bash
# One device call for `gpu`'s wavefront kernel (issue 26, single pairs), logs under $OUT, tables last.
#   bash scripts/device_nw_wfa.sh probe   pytest of the WFA's GPU tests (the kernel against `sequential`,
#                                         every mode x cost model, single pairs and batches; `gpu`'s choice),
#                                         profile_nw_wfa.py (the kernel alone: steps, kernel ms, us a score
#                                         step), Nsight Compute on one nw_wfa launch (10^5 1%, linear, score)
#   bash scripts/device_nw_wfa.sh single  the same pytest beside device_nw.py --quick (fresh random pairs of every
#                                         mode and cost model), the side by side (linear; affine up to 10^5),
#                                         the host's pieces of a single pair (profile_nw_wfa.py --host), then ab
#   bash scripts/device_nw_wfa.sh ab      the kernel alone (score and CIGAR) of main's tree (the run's root, two
#                                         folders up) against this one's
#   bash scripts/device_nw_wfa.sh check   (DEADLINE=S: every step cut to end by S s) the same pytest and quick check, the kernels alone against main's
#                                         (linear 10^5 1%, 30,368 10%, 10^5 5%, 10^6 1%; affine 10^5 1%), the
#                                         side by side, then Nsight Compute of nw_wfa: NCU_RUNS, runs
#                                         "TREE CASE [--cigar]" apart by ';' (TREE: this or main; linear), by default
#                                         this tree's on 10^5 1% with the CIGAR. CLUSTER=1: the cluster's GPU pytest
#                                         too, its fresh random pairs (profile_nw_cluster.py --random 40) and its
#                                         kernel alone at 10^6 1% gap-affine. SIDE_CASES (linear) and
#                                         SIDE_AFFINE_CASES (gap-affine) name the side rows; SIDE_MAIN=1 main's too;
#                                         HOST=1 the host's pieces of HOST_CASES (score) in both trees
#   bash scripts/device_nw_wfa.sh final [OLD.cu]
#                                         the same pytest, device_nw.py --side: `gpu` (cost-adaptive) against
#                                         pywfa on one core, same process, same inputs (10^6: linear costs
#                                         only), then the kernel alone (score, linear, 10^5 1% and 5%) with
#                                         1,024 threads and with an earlier wfa.cu OLD.cu
# pywfa's sdist and build wheels in .whl/ (scripts/pywfa_native.sh).
set -u
OUT=${OUT:-device_out}
WHAT=${1:-final}
OLD=${2:-}
mkdir -p "$OUT"
# pywfa built on this host, as a user's `pip install pywfa` builds it (-march=native; ~40 s):
# scripts/pywfa_native.sh, its sdist and build wheels in .whl/ (a wheel built on another CPU ran up to 19% slower)
scripts/pywfa_native.sh .whl /tmp/site "$OUT/pywfa_build.log" && export PYTHONPATH=$PYTHONPATH:/tmp/site
cap() {  # seconds a step may take: $1, or what is left of DEADLINE (seconds from the script's start) less 15
    local left=$(( ${DEADLINE:-100000} - SECONDS - 15 ))
    echo $(( $1 < left ? $1 : (left > 1 ? left : 1) ))
}
tests_and_quick() {  # the WFA's GPU pytest (CLUSTER=1: the cluster's too) beside device_nw.py --quick (fresh
    # random pairs) and, CLUSTER=1, the cluster's fresh random pairs
    local files=tests/test_nw_gpu_wfa.py
    [ "${CLUSTER:-0}" = 1 ] && files="$files tests/test_nw_gpu_wfa_cluster.py"
    echo "shipped binaries: $(ls src/splicedalign/gpu/shipped/*.fatbin 2>/dev/null | wc -l) (none: every kernel NVRTC, -I its folder)"
    timeout $(cap 240) python3 -m pytest -q -p no:cacheprovider $files >"$OUT/pytest.log" 2>&1 &
    timeout $(cap 60) python3 scripts/device_nw.py --quick --pairs 150 --mode-pairs 200 --budget 45 --out "$OUT/quick" \
        >"$OUT/quick.log" 2>&1
    echo "quick rc $?: $(grep -E "failures" "$OUT/quick.log" | tr '\n' ' ')"
    if [ "${CLUSTER:-0}" = 1 ]; then
        timeout $(cap 90) python3 scripts/profile_nw_cluster.py --random 40 >"$OUT/random.log" 2>&1
        echo "cluster random rc $?: $(head -1 "$OUT/random.log"), $(tail -1 "$OUT/random.log")"
        grep "^FAIL" "$OUT/random.log" | head -4
    fi
    wait
    echo "pytest: $(tail -1 "$OUT/pytest.log")"
    grep -E "^(FAIL|E  )" "$OUT/pytest.log" "$OUT/quick.log" | head
}
side_by_side() {  # device_nw.py --side against pywfa: linear on SIDE_CASES, gap-affine on SIDE_AFFINE_CASES;
    # $1: the tree's root, $2: its log's name (each a process of its own)
    local src
    src=$(cd "$1" && pwd)/src
    (cd "$1" && PYTHONPATH=$src:/tmp/site timeout $(cap 90) python3 scripts/device_nw.py --side --skip-check \
        --side-cases ${SIDE_CASES:-100000-1 30368-10 100000-5 1000000-1} --side-costs linear --budget 80 \
        --out "$OUT/$2") >"$OUT/$2.log" 2>&1
    echo "$2 linear rc $?"
    [ -n "${SIDE_AFFINE_CASES-100000-1}" ] || return 0
    (cd "$1" && PYTHONPATH=$src:/tmp/site timeout $(cap 90) python3 scripts/device_nw.py --side --skip-check \
        --side-cases ${SIDE_AFFINE_CASES-100000-1} --side-costs affine --budget 80 --out "$OUT/$2_affine") \
        >>"$OUT/$2.log" 2>&1
    echo "$2 affine rc $?"
}
kernels_ab() {  # the kernel alone, main's tree (two folders up: the run's root) against this one's:
    # linear on the cases $1, affine on 10^5 1% (timeout $2 s)
    local cases="--cases $1 --costs linear"
    (cd ../.. && PYTHONPATH=src timeout $(cap 60) python3 scripts/profile_nw_wfa.py $cases) >"$OUT/ab_main.log" 2>&1
    timeout $(cap 60) python3 scripts/profile_nw_wfa.py $cases >"$OUT/ab_this.log" 2>&1
    (cd ../.. && PYTHONPATH=src timeout $(cap "$2") python3 scripts/profile_nw_wfa.py --cases 100000-1 --costs affine) \
        >"$OUT/ab_main_affine.log" 2>&1
    timeout $(cap "$2") python3 scripts/profile_nw_wfa.py --cases 100000-1 --costs affine >"$OUT/ab_this_affine.log" 2>&1
}
if [ "$WHAT" = single ]; then
    tests_and_quick
    side_by_side . side
    timeout $(cap 30) python3 scripts/profile_nw_wfa.py --host --cases 100000-1 30368-10 1000000-1 >"$OUT/host.log" 2>&1
    cat "$OUT/host.log"
    grep -E "^  (gpu|pywfa) " "$OUT/side.log" | cut -c1-250
    sed -n '/^| case | costs/,$p' "$OUT/side.log"
    WHAT=ab  # then the kernels alone against main's
fi
if [ "$WHAT" = check ]; then
    HERE=$PWD  # (this tree's profile script drives main's kernels too: --ncu --cigar)
    BACK=$(cd "$OUT" && pwd)  # (at most 8 files come back: the logs go to a folder of their own, a few back)
    OUT=$(mktemp -d)
    tests_and_quick >"$OUT/checks.txt"
    kernels_ab "${KAB_CASES:-100000-1 30368-10 100000-5 1000000-1}" 30
    if [ "${CLUSTER:-0}" = 1 ]; then  # the cluster alone at 10^6 1% gap-affine (main's has linear costs only)
        timeout $(cap 60) python3 scripts/profile_nw_cluster.py --costs affine >"$OUT/ab_this_cluster_affine.log" 2>&1
    fi
    [ "${SIDE_MAIN:-0}" = 1 ] && side_by_side ../.. side_main >>"$OUT/checks.txt"  # main's, same cases (first)
    [ "${SIDE:-1}" = 1 ] && side_by_side . side >>"$OUT/checks.txt"  # (SIDE=0: none)
    if [ "${HOST:-0}" = 1 ]; then  # the host's pieces of a single pair, main's tree and this one's (HOST=1)
        (cd ../.. && PYTHONPATH=src timeout $(cap 40) python3 scripts/profile_nw_wfa.py --host --cases ${HOST_CASES:-100000-1}) \
            >"$OUT/host_main.log" 2>&1
        timeout $(cap 40) python3 scripts/profile_nw_wfa.py --host --cases ${HOST_CASES:-100000-1} >"$OUT/host_this.log" 2>&1
    fi
    if [ "${NCU:-1}" = 1 ] && command -v ncu >/dev/null; then  # (NCU=0: none)
        IFS=';' read -ra RUNS <<<"${NCU_RUNS:-this 100000-1 --cigar}"
        for run in "${RUNS[@]}"; do
            set -- $run
            tag="ncu_$1_$2${3:+_cigar}"
            root=.
            [ "$1" = main ] && root=../..
            (cd $root && PYTHONPATH=$( [ "$1" = main ] && echo src || echo "$PYTHONPATH" ) timeout $(cap 60) ncu --set full \
                -k regex:'^nw_(bi)?wfa$' -c 1 -o "$OUT/$tag" python3 "$HERE/scripts/profile_nw_wfa.py" --ncu --cases "$2" \
                ${3:-}) \
                >"$OUT/$tag.run.txt" 2>&1
            ncu -i "$OUT/$tag.ncu-rep" --page details --print-details all >"$OUT/$tag.txt" 2>&1
            ncu -i "$OUT/$tag.ncu-rep" --page source --csv --print-source sass >"$OUT/$tag.sass.csv" 2>&1
            echo "== $tag"
            grep -E "Duration|Elapsed Cycles|Executed Ipc A|Issue Slots Busy|Warp Cycles Per Issued|Executed Instructions  |Registers Per|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|L1/TEX Cache Throughput" \
                "$OUT/$tag.txt" | head -16
        done
    fi
    for f in ab_main ab_this ab_main_affine ab_this_affine ab_this_cluster_affine host_main host_this; do
        [ -f "$OUT/$f.log" ] && { echo "== $f"; tail -9 "$OUT/$f.log"; }
    done
    for f in side_main side; do
        [ -f "$OUT/$f.log" ] && { echo "== $f"; grep -E "FAIL|n/a" "$OUT/$f.log" | cut -c1-200
            grep -E "^\| [0-9]" "$OUT/$f.log"; }
    done
    cat "$OUT"/ab_*.log "$OUT"/host_*.log >"$BACK/kernels.log" 2>/dev/null
    cat "$OUT"/ncu_*.txt >"$BACK/ncu.txt" 2>/dev/null
    cp "$OUT/pytest.log" "$OUT/quick.log" "$BACK/" 2>/dev/null
    cp "$OUT/random.log" "$BACK/cluster_random.log" 2>/dev/null
    cat "$OUT"/side*.log >"$BACK/side.log" 2>/dev/null
    echo "== checks"; cat "$OUT/checks.txt"  # (last: the call's tail keeps it)
    exit 0
fi
if [ "$WHAT" = ab ]; then
    kernels_ab "100000-1 30368-10 100000-5" 40
    for f in ab_main ab_this ab_main_affine ab_this_affine; do echo "== $f"; tail -7 "$OUT/$f.log"; done
    exit 0
fi
python3 -m pytest -q -x -p no:cacheprovider tests/test_nw_gpu_wfa.py >"$OUT/pytest.log" 2>&1
echo "pytest rc $?: $(tail -1 "$OUT/pytest.log")"
SHORT="--scores --costs linear --cases 100000-1 100000-5"
if [ "$WHAT" = final ]; then
    python3 scripts/device_nw.py --side --skip-check --side-cases 100000-1 30368-10 100000-5 1000000-1 \
        --side-affine-max 100000 --budget 100 --out "$OUT/side" >"$OUT/side.log" 2>&1
    echo "side rc $?"
    grep -E "FAIL" "$OUT/side.log" | head
    python3 scripts/profile_nw_wfa.py $SHORT --threads 1024 >"$OUT/profile_1024.log" 2>&1
    [ -n "$OLD" ] && python3 scripts/profile_nw_wfa.py $SHORT --kernel-file "$OLD" >"$OUT/profile_old.log" 2>&1
else
    python3 scripts/profile_nw_wfa.py >"$OUT/profile.log" 2>&1
    echo "profile rc $?"
fi
if [ "$WHAT" = probe ] && command -v ncu >/dev/null; then
    # the kernel's name without its template arguments is nw_wfa (nw_wfa_pack runs first)
    timeout $(cap 90) ncu --set full -k regex:'^nw_(bi)?wfa$' -c 1 -o "$OUT/nw_wfa" python3 scripts/profile_nw_wfa.py --ncu \
        >"$OUT/ncu_run.txt" 2>&1
    echo "ncu rc $?"
    ncu -i "$OUT/nw_wfa.ncu-rep" --page details >"$OUT/ncu.txt" 2>&1
    ncu -i "$OUT/nw_wfa.ncu-rep" --page source --csv --print-source sass >"$OUT/ncu_sass.csv" 2>&1
    grep -E "Duration|Elapsed Cycles|Executed Ipc A|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Executed Instructions  |Registers" \
        "$OUT/ncu.txt" | head -24
fi
for f in profile profile_1024 profile_old; do [ -f "$OUT/$f.log" ] && { echo "== $f"; cat "$OUT/$f.log"; }; done
if [ "$WHAT" = final ]; then
    grep -E "^  (gpu|pywfa|gpu-wfa) " "$OUT/side.log" | cut -c1-160
    sed -n '/^| case | costs/,$p' "$OUT/side.log"
fi
exit 0
