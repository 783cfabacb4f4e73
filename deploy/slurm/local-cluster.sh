#!/usr/bin/env bash
# deploy/slurm/local-cluster.sh start|stop DIR
#
# A whole Slurm cluster on this machine, for trying and testing `clustergym slurm-agent`:
# one slurmctld and NODES emulated nodes (one `slurmd -N nX` each, on its own port,
# NodeAddr=127.0.0.1), every file (slurm.conf, state, spool, logs, pid files) under DIR.
# Needs root (slurmd runs jobs as their user) and Debian's slurm-wlm and munge (installed
# with apt-get when missing).
#
#   start DIR  installs slurm-wlm/munge when missing, creates a munge key when none exists,
#              starts munged when it is not running, writes DIR/slurm.conf, starts slurmctld
#              and the slurmds, waits until sinfo shows every node idle, then prints
#              `export SLURM_CONF=DIR/slurm.conf` on stdout (everything else goes to stderr).
#   stop DIR   kills DIR's slurmctld and slurmds by their pid files and waits for them to
#              exit; idempotent. munged is stopped only when this script started it and no
#              other cluster of this script is still running.
#
# Environment: NODES (default 4), CPUS per node (default 2), MEMORY per node (RealMemory, MB, default
# 1000), PORT_BASE (default 6817: the
# slurmctld port; node k listens on PORT_BASE+k), SLURM_CONF_EXTRA (a file of slurm.conf lines
# appended last: a line whose key the generated file already has replaces the generated line;
# NodeName=/PartitionName= lines replace the generated line of the same name), START_TIMEOUT
# (seconds to wait for idle nodes, default 60), GPUS (emulated GPUs: `n1:v100:2,n3:k80:2` gives node n1
# `Gres=gpu:v100:2` and so on, with `GresTypes=gpu` and a DIR/gres.conf whose `File=` entries are character
# devices made under DIR/dev: slurmd drops GPUs without `File=`, and warns of files that are not devices).
# Several clusters run at once when their DIRs and PORT_BASEs differ (and port ranges do not
# overlap).
set -euo pipefail

usage() {
  echo "usage: $0 start|stop DIR   (env: NODES CPUS MEMORY PORT_BASE SLURM_CONF_EXTRA START_TIMEOUT)" >&2
  exit 2
}

[[ $# -eq 2 ]] || usage
ACTION=$1
DIR=$2
NODES=${NODES:-4}
CPUS=${CPUS:-2}
MEMORY=${MEMORY:-1000}
PORT_BASE=${PORT_BASE:-6817}
START_TIMEOUT=${START_TIMEOUT:-60}
GPUS=${GPUS:-}
[[ -z $GPUS || $GPUS =~ ^n[0-9]+:[A-Za-z0-9_.-]+:[0-9]+(,n[0-9]+:[A-Za-z0-9_.-]+:[0-9]+)*$ ]] || { echo "local-cluster: error: GPUS must look like n1:v100:2,n3:k80:2, found '$GPUS'" >&2; exit 1; }
# Clusters started by this script register here (one file per DIR), so that stop knows
# whether another one still needs munged.
REGISTRY=/run/clustergym-slurm
MUNGE_MARK=$REGISTRY/munged.started-by-local-cluster
# Held (flock) by a start until its nodes are idle and by a stop until it is done, so that a stop does not
# take munged away from a cluster still starting (two clusters started and stopped at once did that).
LOCK=$REGISTRY.lock

log() { echo "local-cluster: $*" >&2; }
die() {
  echo "local-cluster: error: $*" >&2
  exit 1
}

for v in NODES CPUS MEMORY PORT_BASE START_TIMEOUT; do
  [[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a positive integer, found '${!v}'"
done
[[ $NODES -ge 1 ]] || die "NODES must be at least 1, found $NODES"

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
CONF=$DIR/slurm.conf
REG_FILE=$REGISTRY/$(printf '%s' "$DIR" | tr '/' '_')

# lock_registry: waits for the registry's lock (released when this script exits; daemons get fd 9 closed).
lock_registry() {
  exec 9>"$LOCK"
  flock 9
}

# pid_alive PIDFILE: the pid in PIDFILE names a running process.
pid_alive() {
  [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

munged_running() {
  pgrep -x munged >/dev/null 2>&1
}

ensure_packages() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then
    return
  fi
  log "installing slurm-wlm and munge with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || apt-get update >&2
  apt-get install -y -qq --no-install-recommends slurm-wlm munge >&2
  command -v slurmctld >/dev/null || die "slurmctld still missing after apt-get install slurm-wlm"
}

ensure_munged() {
  if [[ ! -s /etc/munge/munge.key ]]; then
    log "creating /etc/munge/munge.key"
    mkdir -p /etc/munge
    if command -v mungekey >/dev/null; then
      mungekey --create --keyfile=/etc/munge/munge.key >&2
    else
      dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=128 status=none
    fi
    chown munge:munge /etc/munge/munge.key 2>/dev/null || true
    chmod 0400 /etc/munge/munge.key
  fi
  if munged_running; then
    return
  fi
  log "starting munged"
  mkdir -p /run/munge /var/log/munge /var/lib/munge "$REGISTRY"
  if id munge >/dev/null 2>&1; then
    chown munge:munge /run/munge /var/log/munge /var/lib/munge
    chmod 0755 /run/munge
    runuser -u munge -- /usr/sbin/munged >&2 9>&- || die "munged failed to start (see /var/log/munge/munged.log)"
  else
    /usr/sbin/munged --force >&2 9>&- || die "munged failed to start (see /var/log/munge/munged.log)"
  fi
  for _ in $(seq 50); do
    [[ -S /run/munge/munge.socket.2 ]] && break
    sleep 0.1
  done
  [[ -S /run/munge/munge.socket.2 ]] || die "munged started but /run/munge/munge.socket.2 did not appear"
  touch "$MUNGE_MARK"
}

# The generated slurm.conf, before SLURM_CONF_EXTRA is merged in.
generated_conf() {
  local host
  host=$(hostname -s)
  cat <<EOF
# Generated by deploy/slurm/local-cluster.sh for $DIR
ClusterName=cg$PORT_BASE
SlurmctldHost=localhost
SlurmctldPort=$PORT_BASE
SlurmdPort=$((PORT_BASE + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
# a released job starts within a fraction of a second (the default waits up to 2 s between passes)
SchedulerParameters=sched_min_interval=100000
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=300
InactiveLimit=0
KillWait=5
Waittime=0
SlurmctldTimeout=30
SlurmdTimeout=60
MailProg=/bin/true
EOF
  local k gres
  [[ -n $GPUS ]] && echo "GresTypes=gpu"
  for ((k = 1; k <= NODES; k++)); do
    gres=$(tr ',' '\n' <<<"$GPUS" | awk -F: -v n="n$k" '$1 == n { printf " Gres=gpu:%s:%s", $2, $3 }')
    echo "NodeName=n$k NodeHostname=$host NodeAddr=127.0.0.1 Port=$((PORT_BASE + k)) CPUs=$CPUS RealMemory=$MEMORY$gres State=UNKNOWN"
  done
  echo "PartitionName=debug Nodes=n[1-$NODES] Default=YES MaxTime=INFINITE State=UP"
}

# merge_conf GENERATED EXTRA: GENERATED with every line whose key EXTRA also sets removed, then
# EXTRA. Keys compare case-insensitively (as Slurm does); for NodeName= and PartitionName=
# lines the key is the name with its value (a NodeName=n1 line replaces the generated n1 line).
merge_conf() {
  awk '
    function keyof(line,   k, eq) {
      sub(/^[ \t]+/, "", line)
      if (line == "" || line ~ /^#/) return ""
      split(line, parts, /[ \t]+/)
      k = parts[1]
      eq = index(k, "=")
      if (eq == 0) return ""
      name = tolower(substr(k, 1, eq - 1))
      if (name == "nodename" || name == "partitionname" || name == "nodeset" || name == "frontendname")
        return tolower(k)
      return name
    }
    FNR == NR { k = keyof($0); if (k != "") extra[k] = 1; next }
    FILENAME == ARGV[2] { k = keyof($0); if (k == "" || !(k in extra)) print; next }
  ' "$2" "$1" >"$3"
  {
    echo "# From SLURM_CONF_EXTRA=$SLURM_CONF_EXTRA"
    cat "$2"
  } >>"$3"
}

start() {
  ensure_packages
  lock_registry
  ensure_munged
  if pid_alive "$DIR/slurmctld.pid"; then
    die "a slurmctld of $DIR is already running (pid $(cat "$DIR/slurmctld.pid")); run '$0 stop $DIR' first"
  fi
  # a port already taken (another cluster, or a slurmctld left behind) would make sbatch talk to it
  local k p
  for ((p = PORT_BASE; p <= PORT_BASE + NODES; p++)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      die "port $p (PORT_BASE=$PORT_BASE + node) is already in use on 127.0.0.1: stop what listens there or choose another PORT_BASE"
    fi
  done
  mkdir -p "$DIR/state" "$DIR/log" "$REGISTRY"
  for ((k = 1; k <= NODES; k++)); do mkdir -p "$DIR/spool/n$k"; done
  generated_conf >"$DIR/slurm.conf.generated"
  rm -f "$DIR/gres.conf"
  if [[ -n $GPUS ]]; then
    # each emulated GPU a character device (as /dev/null: 1,3) under DIR/dev
    local item node type count i
    mkdir -p "$DIR/dev"
    for item in ${GPUS//,/ }; do
      IFS=: read -r node type count <<<"$item"
      for ((i = 0; i < count; i++)); do [[ -c $DIR/dev/$node-gpu$i ]] || mknod "$DIR/dev/$node-gpu$i" c 1 3; done
      echo "NodeName=$node Name=gpu Type=$type File=$DIR/dev/$node-gpu$( ((count > 1)) && echo "[0-$((count - 1))]" || echo 0)" >>"$DIR/gres.conf"
    done
  fi
  if [[ -n ${SLURM_CONF_EXTRA:-} ]]; then
    [[ -r $SLURM_CONF_EXTRA ]] || die "SLURM_CONF_EXTRA=$SLURM_CONF_EXTRA is not a readable file"
    merge_conf "$DIR/slurm.conf.generated" "$SLURM_CONF_EXTRA" "$CONF"
  else
    cp "$DIR/slurm.conf.generated" "$CONF"
  fi
  rm -f "$DIR/slurm.conf.generated"
  echo "$DIR" >"$REG_FILE"
  export SLURM_CONF=$CONF
  # -c: a clean start (no saved jobs of an earlier run in DIR/state).
  slurmctld -c -f "$CONF" >&2 9>&- || fail_start "slurmctld did not start"
  for ((k = 1; k <= NODES; k++)); do
    slurmd -N "n$k" -f "$CONF" >&2 9>&- || fail_start "slurmd -N n$k did not start"
  done
  local deadline=$((SECONDS + START_TIMEOUT)) states=""
  while ((SECONDS < deadline)); do
    states=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u || true)
    if [[ -n $states ]] && [[ $(grep -c ' idle$' <<<"$states") -eq $NODES ]]; then
      log "$NODES nodes idle (slurmctld port $PORT_BASE, slurm.conf $CONF)"
      echo "export SLURM_CONF=$CONF"
      return 0
    fi
    sleep 0.5
  done
  fail_start "nodes not all idle after ${START_TIMEOUT}s; sinfo says: $(tr '\n' ';' <<<"$states")"
}

fail_start() {
  echo "local-cluster: error: $1" >&2
  local f
  for f in "$DIR"/log/*.log; do
    [[ -f $f ]] || continue
    echo "---- tail of $f" >&2
    tail -n 15 "$f" >&2
  done
  stop_daemons
  exit 1
}

# kill_pidfile FILE: TERM the process of FILE, wait up to 10 s, then KILL it.
kill_pidfile() {
  local f=$1 pid
  # a daemon removes its own pid file as it exits: the file may go between the test and the read
  pid=$(cat "$f" 2>/dev/null) || return 0
  [[ -n $pid ]] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "pid $pid ($f) ignored SIGTERM for 10 s; SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
  fi
  rm -f "$f"
}

stop_daemons() {
  local f
  # TERM every slurmd first, then wait for each: one by one, a slurmd takes about a second to exit
  # and hundreds of nodes took minutes to stop
  for f in "$DIR"/slurmd-*.pid; do
    [[ -s $f ]] && kill -TERM "$(cat "$f")" 2>/dev/null || true
  done
  for f in "$DIR"/slurmd-*.pid; do
    [[ -e $f ]] && kill_pidfile "$f"
  done
  kill_pidfile "$DIR/slurmctld.pid"
  rm -f "$REG_FILE"
}

# Another cluster of this script still running (its slurmctld alive)?
other_cluster_running() {
  local f d
  for f in "$REGISTRY"/*; do
    [[ -f $f && $f != "$MUNGE_MARK" && $f != "$REG_FILE" ]] || continue
    d=$(cat "$f")
    if pid_alive "$d/slurmctld.pid"; then return 0; fi
    rm -f "$f"
  done
  return 1
}

stop() {
  lock_registry
  stop_daemons
  if [[ -e $MUNGE_MARK ]] && ! other_cluster_running; then
    if munged_running; then
      log "stopping munged (started by this script, no other cluster running)"
      /usr/sbin/munged --stop >&2 2>/dev/null || runuser -u munge -- /usr/sbin/munged --stop >&2 || true
    fi
    rm -f "$MUNGE_MARK"
  fi
  log "stopped $DIR"
}

case $ACTION in
start) start ;;
stop) stop ;;
*) usage ;;
esac
