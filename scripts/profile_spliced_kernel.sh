#!/usr/bin/env bash
# Where a paper set's wavefront kernel spends its time (a GPU machine; logs under $OUT): the task
# clocks of replays at each seed (scripts/profile_spliced_tasks.py: npz and its analysis), then
# Nsight Compute on the first seed's replayed score kernel (warp states, scheduler, per-instruction
# stall samples), exported as CSV.
#
#   SEEDS="2012 7132700" bash scripts/profile_spliced_kernel.sh
set -uo pipefail
export PYTHONPATH=${PYTHONPATH:-src} PYTHONUNBUFFERED=1
OUT=${OUT:-device_out}
SEEDS=${SEEDS:-2012}
mkdir -p "$OUT"
P="python3 scripts/profile_spliced_tasks.py"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/tasks.log"
$P --seeds $SEEDS --repeats "${REPEATS:-5}" --out "$OUT/tasks.npz" 2>&1 | tee -a "$OUT/tasks.log"
first=${SEEDS%% *}
ncu --clock-control none --section WarpStateStats --section SchedulerStats --section SourceCounters \
    --section LaunchStats --section SpeedOfLight --section Occupancy \
    --kernel-name regex:wavefront --launch-skip 1 --launch-count 1 -o "$OUT/score" -f \
    $P --plain --seeds "$first" --repeats 2 > "$OUT/ncu.log" 2>&1
ncu --import "$OUT/score.ncu-rep" --page details --csv > "$OUT/score_details.csv" 2>&1
ncu --import "$OUT/score.ncu-rep" --page source --csv --print-source sass > "$OUT/score_sass.csv" 2>&1
rm -f "$OUT/score.ncu-rep"
tail -3 "$OUT/ncu.log"
grep -E 'Duration|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued' \
  "$OUT/score_details.csv" | cut -c1-200
