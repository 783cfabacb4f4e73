#!/usr/bin/env bash
# deploy/slurm/leaderboard.sh [--wait] N [LEADERBOARD FLAGS...]
#
# A leaderboard computed on Slurm in N pieces: an array job of N tasks (leaderboard.sbatch, one
# `clustergym leaderboard FLAGS --shard I/N` each) and, once all succeeded, a merge job
# (`clustergym leaderboard --merge ... --json`) writing leaderboard.json, leaderboard.md and the SVGs
# into DIR = $CLUSTERGYM_LEADERBOARD_DIR (default ./clustergym-leaderboard-ARRAYJOBID), with the
# JSON also in DIR/merge.out. The result is the one-machine run's, wall times aside
# (agents/leaderboard/shard.ts). Prints "ARRAYJOBID MERGEJOBID DIR"; with --wait, returns when the
# merge job ended, with its exit code. Extra sbatch options: $CLUSTERGYM_SBATCH_ARGS.
#
#   deploy/slurm/leaderboard.sh 8 --episodes 200 --seed 3
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WAIT=()
if [[ ${1:-} == --wait ]]; then
  WAIT=(--wait)
  shift
fi
[[ $# -ge 1 && $1 =~ ^[1-9][0-9]*$ ]] || {
  echo "usage: $0 [--wait] N [LEADERBOARD FLAGS...]   (N: the number of pieces, at least 1)" >&2
  exit 2
}
N=$1
shift
read -r -a SB <<<"${CLUSTERGYM_SBATCH_ARGS:-}"
ARRAY=$(sbatch --parsable "${SB[@]}" --array="0-$((N - 1))" "$HERE/leaderboard.sbatch" "$@")
ARRAY=${ARRAY%%;*}
# leaderboard.sbatch's own default, named after the array job
DIR=${CLUSTERGYM_LEADERBOARD_DIR:-${PWD}/clustergym-leaderboard-$ARRAY}
mkdir -p "$DIR/pieces"
read -r -a CG <<<"${CLUSTERGYM:-clustergym}"
MERGE_CMD=$(printf '%q ' "${CG[@]}" leaderboard --merge)"$(printf '%q' "$DIR/pieces")/shard-*-of-$N.json --json --out $(printf '%q' "$DIR")"
MERGE=$(sbatch --parsable "${WAIT[@]}" "${SB[@]}" --job-name=clustergym-leaderboard-merge --dependency="afterok:$ARRAY" --kill-on-invalid-dep=yes \
  --output="$DIR/merge.out" --error="$DIR/merge.err" --wrap "$MERGE_CMD") || status=$?
echo "${ARRAY} ${MERGE%%;*} $DIR"
exit "${status:-0}"
