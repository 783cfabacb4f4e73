#!/usr/bin/env bash
# deploy/slurm/fleet-server.sh RUN_DIR
#
# One clustergym server on this node: a task of fleet.sbatch's `srun --ntasks-per-node=1` step.
# Binds tcp://HOST:0 (a free port; HOST = $CLUSTERGYM_BIND_HOST, default this node's hostname),
# requires the token in RUN_DIR/token (the batch script wrote it, 0600, on a file system every node
# sees), and publishes its endpoint as RUN_DIR/endpoints/$SLURM_PROCID (written whole, then
# renamed: a reader never sees half of it). Its log is RUN_DIR/server-$SLURM_PROCID.log. It runs
# until the step ends: SIGTERM (scancel, or the batch script's end) stops the server cleanly, and
# the server exits by itself if this script is killed (--parent-pid).
#
# Environment: CLUSTERGYM (the CLI command, default `clustergym`; e.g. "node /path/dist/cli/main.js"),
# CLUSTERGYM_BIND_HOST, CLUSTERGYM_SERVE_ARGS (more `clustergym serve` flags, e.g. "--data-root /data").
set -euo pipefail
[[ $# -eq 1 ]] || {
  echo "usage: $0 RUN_DIR" >&2
  exit 2
}
RUN=$1
read -r -a CG <<<"${CLUSTERGYM:-clustergym}"
read -r -a EXTRA <<<"${CLUSTERGYM_SERVE_ARGS:-}"
HOST=${CLUSTERGYM_BIND_HOST:-$(hostname)}
ID=${SLURM_PROCID:-0}
OUT=$RUN/server-$ID
# an address other than loopback needs --allow-remote; the token keeps others out (docs/protocol.md)
REMOTE=()
case $HOST in
127.* | localhost | ::1) ;;
*) REMOTE=(--allow-remote) ;;
esac
[[ $HOST == *:* ]] && BIND="tcp://[$HOST]:0" || BIND="tcp://$HOST:0"
"${CG[@]}" serve --bind "$BIND" --token-file "$RUN/token" --parent-pid $$ "${REMOTE[@]}" "${EXTRA[@]}" >"$OUT.stdout" 2>"$OUT.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; exit 0' TERM INT
# the bound endpoint is the server's first line of stdout
for ((i = 0; i < 1200; i++)); do
  [[ -s $OUT.stdout ]] && break
  kill -0 "$pid" 2>/dev/null || {
    echo "fleet-server: the server on $(hostname) exited before binding; its log:" >&2
    cat "$OUT.log" >&2
    exit 1
  }
  sleep 0.05
done
[[ -s $OUT.stdout ]] || {
  echo "fleet-server: no endpoint from the server on $(hostname) after 60 s" >&2
  exit 1
}
head -n 1 "$OUT.stdout" >"$RUN/endpoints/.$ID"
mv "$RUN/endpoints/.$ID" "$RUN/endpoints/$ID"
echo "fleet-server: $(hostname) serves $(cat "$RUN/endpoints/$ID") (pid $pid)" >&2
wait $pid
