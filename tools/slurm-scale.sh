#!/usr/bin/env bash
# tools/slurm-scale.sh [NODE_COUNTS] [JOBS] [REPLAY_NODES]
#
# How many emulated nodes (slurmd processes) this machine holds, and a live replay of a sleep workload
# against the Slurm engine (docs/slurm.md, "Scale"). Needs root, Debian's slurm-wlm and munge, and a
# built tree (npm run build). Defaults: NODE_COUNTS "16 64 128 256", JOBS 200, REPLAY_NODES 16.
#
# For each count: deploy/slurm/local-cluster.sh start (PORT_BASE 9017), the seconds until every node
# is idle, the resident memory of slurmctld and of all slurmd (from /proc), then stop. Then a cluster of
# REPLAY_NODES nodes replays JOBS sleep jobs of 2-10 s on 1-4 whole nodes (load 1.2) with
# `clustergym slurm-replay --live` and prints the engine-vs-Slurm table. Every cluster is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNTS=${1:-16 64 128 256}
JOBS=${2:-200}
RNODES=${3:-16}
WORK=$(mktemp -d /tmp/cg-slurm-scale.XXXXXX)
EXTRA=$WORK/extra.conf
DIRS=()
cleanup() {
  for d in "${DIRS[@]}"; do bash deploy/slurm/local-cluster.sh stop "$d" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

rss_mb() { # sum of VmRSS (MB) of the pids in the given pid files
  local kb=0 f p
  for f in "$@"; do
    [[ -s $f ]] || continue
    p=$(cat "$f")
    kb=$((kb + $(awk '/VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)))
  done
  echo $((kb / 1024))
}

echo "nodes  start_s  slurmctld_MB  slurmd_total_MB  slurmd_each_MB"
for n in $COUNTS; do
  cat >"$EXTRA" <<CONF
SchedulerParameters=bf_interval=1
PriorityType=priority/basic
MinJobAge=3600
PartitionName=debug Nodes=n[1-$n] Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE
CONF
  d=$WORK/c$n
  DIRS+=("$d")
  t0=$(date +%s.%N)
  if NODES=$n CPUS=2 PORT_BASE=9017 START_TIMEOUT=300 SLURM_CONF_EXTRA=$EXTRA bash deploy/slurm/local-cluster.sh start "$d" >/dev/null 2>"$WORK/start-$n.log"; then
    t1=$(date +%s.%N)
    ctld=$(rss_mb "$d/slurmctld.pid")
    slurmd=$(rss_mb "$d"/slurmd-*.pid)
    printf '%5d  %7.1f  %12d  %15d  %14.1f\n' "$n" "$(echo "$t1 - $t0" | bc)" "$ctld" "$slurmd" "$(echo "scale=1; $slurmd / $n" | bc)"
  else
    printf '%5d  failed to start (see %s)\n' "$n" "$WORK/start-$n.log"
  fi
  bash deploy/slurm/local-cluster.sh stop "$d" >/dev/null 2>&1 || true
done

cat >"$EXTRA" <<CONF
SchedulerParameters=bf_interval=1
PriorityType=priority/basic
MinJobAge=3600
PartitionName=debug Nodes=n[1-$RNODES] Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE
CONF
d=$WORK/replay
DIRS+=("$d")
NODES=$RNODES CPUS=2 PORT_BASE=9017 SLURM_CONF_EXTRA=$EXTRA bash deploy/slurm/local-cluster.sh start "$d" >/dev/null
node dist/tools/slurmSleepTrace.js "$JOBS" 200 2 10 4 "$RNODES" 1.2 2 >"$WORK/w.swf"
echo
echo "replay: $JOBS jobs of 2-10 s on 1-4 of $RNODES nodes (tools/slurmSleepTrace.js $JOBS 200 2 10 4 $RNODES 1.2 2)"
t0=$(date +%s)
SLURM_CONF=$d/slurm.conf node dist/cli/main.js slurm-replay "$WORK/w.swf" --slurm-conf "$d/slurm.conf" --live --out "$WORK/replay-out" 2>/dev/null
echo "live replay wall time: $(($(date +%s) - t0)) s; outputs in $WORK/replay-out"
bash deploy/slurm/local-cluster.sh stop "$d" >/dev/null 2>&1
