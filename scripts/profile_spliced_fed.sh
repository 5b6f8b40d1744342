#!/usr/bin/env bash
# The fed paper-set kernel against its replay and against another wavefront.cu, in one device call
# (logs under $OUT): scripts/profile_spliced_tasks.py --ab BASE_CU --fed (fed calls of fresh solvers
# and replays, alternating, both kernels by NVRTC, answers identical), then --fed (task clocks of a
# fed kernel and of its replay: windows' landing, the critical path, the long chains' strips).
#
#   BASE_CU=<another wavefront.cu> [MORE_CU="<more versions>"] [AB_FLAGS='--variant old={"chain_folds":false}'] \
#   SEEDS="2012 6784610" AB_SEEDS="2012 7132700 6784610" bash scripts/profile_spliced_fed.sh
# (AB_FLAGS splits at spaces: JSON without them; "chain_folds": false is main's fold placement before round 8.)
set -uo pipefail
export PYTHONPATH=${PYTHONPATH:-$PWD/src} PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}; mkdir -p "$OUT"; T0=$SECONDS
P="python3 scripts/profile_spliced_tasks.py"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
# shellcheck disable=SC2086  # seeds are meant to split
SPLICEDALIGN_SHIPPED_KERNELS=0 timeout "${AB_LIMIT:-240}" $P --ab "${BASE_CU:?another wavefront.cu}" ${MORE_CU:-} --fed --paper-only ${AB_FLAGS:-} \
  --seeds ${AB_SEEDS:-2012 7132700 6784610} --repeats "${REPEATS:-4}" > "$OUT/ab.log" 2>&1
echo "ab rc=$? [t=$((SECONDS - T0)) s]"
# shellcheck disable=SC2086
timeout "${FED_LIMIT:-200}" $P --fed --seeds ${SEEDS:-2012 6784610} --repeats 2 --out "$OUT/fed.npz" > "$OUT/fed.log" 2>&1
echo "fed profile rc=$? [t=$((SECONDS - T0)) s]"
grep -E "^seed .*(fed|windows)|critical path|    (SS|SF|FS|FF):|fed windows|long chains end|^seed [0-9]+ (fed|replay):" \
  "$OUT/fed.log" | cut -c1-260
tail -30 "$OUT/ab.log"
