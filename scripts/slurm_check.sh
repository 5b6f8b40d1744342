#!/usr/bin/env bash
# The benchmark pipeline on a real one-node SLURM cluster, started here from nothing and
# stopped again: munge, MariaDB + slurmdbd (so sacct lists the jobs), slurmctld and slurmd,
# all started directly (no systemd) with generated configuration and every state file under
# WORK; then the bundled spliced data set end to end through profiles/slurm
# (snakemake-executor-plugin-slurm) and once locally with the same config, the two compared.
#
#   bash scripts/slurm_check.sh [--install]      # WORK=/tmp/slurm-check by default
#
# --install first installs what is missing: Debian slurm-wlm, slurmdbd, munge, mariadb-server
# (apt-get) and the `cluster` extra's snakemake-executor-plugin-slurm (pip). Without it a
# missing piece ends the script with exit status 77 and one line saying what is missing.
#
# The node declares one GPU as a generic resource without a device behind it (gres.conf with
# /dev/null), so the GPU solver's jobs are submitted as Snakemake plans them, with gpu=1
# (sbatch --gpus=1), and scheduled; without CUDA they record "n/a" as on any GPU-less node.
#
# Environment: WORK (state, logs, both runs), SOLVERS (default "sequential, gpu"), REPEATS (1),
# CPUS (slurmd's CPUs, default 2), PORT_BASE (default 16817: slurmctld, +1 slurmd, +2 slurmdbd,
# +3 MariaDB). Prints a summary last (also WORK/summary.txt): jobs (sacct), wall times, whether
# the results are identical. Exit status 0 only when every job completed and they are.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/slurm-check}
SOLVERS=${SOLVERS:-"sequential, gpu"}
REPEATS=${REPEATS:-1}
CPUS=${CPUS:-2}
PORT_BASE=${PORT_BASE:-16817}
CLUSTER=splicedcheck
say() { printf '== slurm_check %s: %s\n' "$(date +%H:%M:%S)" "$*"; }

if [[ ${1:-} == --install ]]; then
    say "installing slurm-wlm slurmdbd munge mariadb-server (apt-get), snakemake-executor-plugin-slurm (pip)"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        slurm-wlm slurmdbd munge mariadb-server >/dev/null
    python3 -c 'import snakemake_executor_plugin_slurm' 2>/dev/null ||
        python3 -m pip install -q 'snakemake-executor-plugin-slurm>=1'
fi
missing=()
for tool in munged mariadbd mariadb-install-db slurmdbd slurmctld slurmd sbatch sacct sacctmgr sinfo snakemake; do
    command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] || missing+=("$tool")
done
python3 -c 'import snakemake_executor_plugin_slurm' 2>/dev/null || missing+=(snakemake-executor-plugin-slurm)
if ((${#missing[@]})); then
    echo "slurm_check: not available here: ${missing[*]} (bash scripts/slurm_check.sh --install adds them)" >&2
    exit 77
fi
export PATH=/usr/sbin:$PATH

HOST=$(hostname -s)
rm -rf "$WORK"
mkdir -p "$WORK"/{state,spool,log,run,db,local,slurm}
RUN=$WORK/run LOG=$WORK/log
# SLURM's configuration goes where Debian's SLURM looks for it, /etc/slurm, as on a real
# node: the executor plugin's job steps drop SLURM_* variables, SLURM_CONF too, before srun.
# Files there that another setup wrote are left alone (the script stops); ours are removed
# at the end.
ETC=/etc/slurm
MARK="# written by splicedalign scripts/slurm_check.sh (removed when it ends)"
mkdir -p "$ETC"
for f in slurm.conf slurmdbd.conf gres.conf; do
    if [[ -e $ETC/$f ]] && [[ $(head -n 1 "$ETC/$f") != "$MARK" ]]; then
        echo "slurm_check: $ETC/$f exists (a SLURM set up here already?): not touching it" >&2
        exit 1
    fi
done
export SLURM_CONF=$ETC/slurm.conf
MUNGE_SOCKET=$RUN/munge.socket
DB_PORT=$((PORT_BASE + 3))

# ---- stop exactly the daemons started here (their pid files), whatever happens
stop_daemons() {
    for pidfile in "$RUN"/slurmd.pid "$RUN"/slurmctld.pid "$RUN"/slurmdbd.pid "$RUN"/mariadbd.pid "$RUN"/munged.pid; do
        [[ -s $pidfile ]] || continue
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$pid" 2>/dev/null || true
    done
}
finish() {
    stop_daemons
    for f in slurm.conf slurmdbd.conf gres.conf; do
        [[ -e $ETC/$f ]] && [[ $(head -n 1 "$ETC/$f") == "$MARK" ]] && rm -f "$ETC/$f"
    done
    return 0
}
trap finish EXIT

wait_for() { # SECONDS DESCRIPTION COMMAND...
    local limit=$1 what=$2
    shift 2
    local end=$((SECONDS + limit))
    while ((SECONDS < end)); do timeout 5 "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
    echo "slurm_check: $what did not come up in ${limit} s; logs in $LOG" >&2
    tail -n 5 "$LOG"/*.log >&2 || true
    exit 1
}

# ---- munge: a fresh key for this cluster only
say "munged"
dd if=/dev/urandom bs=1 count=1024 of="$RUN/munge.key" status=none
chmod 400 "$RUN/munge.key"
munged --force --key-file="$RUN/munge.key" --socket="$MUNGE_SOCKET" --pid-file="$RUN/munged.pid" \
    --log-file="$LOG/munged.log" --seed-file="$RUN/munged.seed"
wait_for 10 munged munge --socket="$MUNGE_SOCKET" -n

# ---- MariaDB for slurmdbd: a private data folder, TCP on 127.0.0.1 only, no grant tables
say "mariadbd (port $DB_PORT)"
mariadb-install-db --no-defaults --datadir="$WORK/db" --user=root --skip-test-db >"$LOG/mariadb-install.log" 2>&1
mariadbd --no-defaults --datadir="$WORK/db" --user=root --bind-address=127.0.0.1 --port="$DB_PORT" \
    --socket="$RUN/mysqld.sock" --pid-file="$RUN/mariadbd.pid" --skip-grant-tables \
    --innodb-buffer-pool-size=32M --log-error="$LOG/mariadbd.log" &
wait_for 30 mariadbd mariadb --no-defaults --socket="$RUN/mysqld.sock" -e 'select 1'

common_auth="AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET"

cat >"$ETC/slurmdbd.conf" <<EOF
$MARK
$common_auth
DbdHost=localhost
DbdPort=$((PORT_BASE + 2))
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=root
StorageLoc=slurm_acct_db
PidFile=$RUN/slurmdbd.pid
LogFile=$LOG/slurmdbd.log
EOF
chmod 600 "$ETC/slurmdbd.conf"

MEM_MB=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
cat >"$ETC/slurm.conf" <<EOF
$MARK
ClusterName=$CLUSTER
SlurmctldHost=$HOST
SlurmctldPort=$PORT_BASE
SlurmdPort=$((PORT_BASE + 1))
SlurmUser=root
SlurmdUser=root
$common_auth
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$((PORT_BASE + 2))
AccountingStoragePass=$MUNGE_SOCKET
AccountingStorageTRES=gres/gpu
JobAcctGatherType=jobacct_gather/linux
JobCompType=jobcomp/none
MinJobAge=300
NodeName=$HOST CPUs=$CPUS RealMemory=$MEM_MB Gres=gpu:1 State=UNKNOWN
PartitionName=main Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
# one GPU as a generic resource with no device behind it (see the header)
printf '%s\nNodeName=%s Name=gpu File=/dev/null\n' "$MARK" "$HOST" >"$ETC/gres.conf"

say "slurmdbd, slurmctld, slurmd (cluster $CLUSTER, node $HOST: $CPUS CPUs, gres gpu:1)"
slurmdbd
wait_for 30 slurmdbd sacctmgr -n list cluster
sacctmgr -i add cluster "$CLUSTER" >/dev/null
sacctmgr -i add account check Cluster="$CLUSTER" Description=slurm_check Organization=splicedalign >/dev/null
sacctmgr -i add user "$(id -un)" Account=check Cluster="$CLUSTER" >/dev/null
slurmctld -i
wait_for 30 slurmctld scontrol ping
slurmd
wait_for 30 "node $HOST" bash -c "sinfo -h -N -o %T | grep -qE '^(idle|mixed)'"
say "cluster up: $(sinfo -h -o '%P %D %T %c CPUs %G')"

# ---- the same config twice: locally and through profiles/slurm
cat >"$WORK/config.yaml" <<EOF
workloads: [spliced]
spliced:
  solvers: [$SOLVERS]
  repeats: $REPEATS
EOF
configs=(--configfile "$REPO/config/config.yaml" "$WORK/config.yaml")

say "local run: snakemake --cores $CPUS"
t0=$(date +%s.%N)
timeout 900 snakemake -s "$REPO/Snakefile" -d "$WORK/local" "${configs[@]}" --workflow-profile "$REPO/profiles/default" \
    --cores "$CPUS" >"$LOG/snakemake-local.log" 2>&1 || { tail -n 30 "$LOG/snakemake-local.log"; exit 1; }
t1=$(date +%s.%N)

say "SLURM run: snakemake --executor slurm --workflow-profile profiles/slurm"
timeout 900 snakemake -s "$REPO/Snakefile" -d "$WORK/slurm" "${configs[@]}" --executor slurm \
    --workflow-profile "$REPO/profiles/slurm" --jobs "$CPUS" --slurm-init-seconds-before-status-checks 5 >"$LOG/snakemake-slurm.log" 2>&1 ||
    { tail -n 40 "$LOG/snakemake-slurm.log"; exit 1; }
t2=$(date +%s.%N)

sacct -X -n -P --format=JobID,JobName,State,Elapsed,AllocTRES,Comment -S now-1days >"$WORK/sacct.tsv"
say "sacct -X (first lines):"
head -n 5 "$WORK/sacct.tsv" | sed 's/^/    /'

# ---- compare: every record's answer (score, chain, alignment, model numbers; not timings)
# and the tables that carry no timing; count what sacct saw
python3 - "$WORK" "$t0" "$t1" "$t2" <<'EOF' | tee "$WORK/summary.txt"
import json, sys
from pathlib import Path

work, t0, t1, t2 = Path(sys.argv[1]), *map(float, sys.argv[2:])
TIMING = ("seconds", "mcups", "device")


def answers(run: Path) -> dict[str, object]:
    (root,) = (run / "results" / "spliced").iterdir()
    out = {}
    for path in sorted([*root.glob("cases/*/*.json"), *root.glob("batch/*.json")]):
        record = json.loads(path.read_text())
        out[str(path.relative_to(root))] = {k: v for k, v in record.items() if not k.startswith(TIMING)}
    for name in ("cases.tsv", "tables/accuracy.tsv"):
        out[name] = (root / name).read_text()
    return out


local, slurm = answers(work / "local"), answers(work / "slurm")
differ = sorted(k for k in local.keys() | slurm.keys() if local.get(k) != slurm.get(k))
rows = [line.split("|") for line in (work / "sacct.tsv").read_text().splitlines() if line]
states = {}
for row in rows:
    states[row[2]] = states.get(row[2], 0) + 1
gpu_jobs = [r for r in rows if "gres/gpu=1" in r[4]]
records = sum(k.endswith(".json") for k in local)
print(f"slurm_check: {len(rows)} SLURM jobs in sacct ({', '.join(f'{n} {s}' for s, n in sorted(states.items()))}), "
      f"{len(gpu_jobs)} with gres/gpu=1")
print(f"slurm_check: wall local {t1 - t0:.1f} s, SLURM {t2 - t1:.1f} s")
print(f"slurm_check: {records} records and 2 tables compared: "
      + ("identical" if not differ else f"{len(differ)} differ: {', '.join(differ[:5])}"))
ok = rows and set(states) == {"COMPLETED"} and not differ
sys.exit(0 if ok else 1)
EOF
