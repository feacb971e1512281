#!/usr/bin/env bash
# Builds a world on a Slurm cluster: loops `orogen plan PLAN-ARGS > jobs`
# and `sbatch --wait --array=1-<lines> orogen-array.sbatch jobs` until the
# plan prints nothing. Run it on a login node.
#
#   deploy/slurm/orogen-farm.sh --recipe /shared/r.ron --size 32769 \
#     --tiles 1x32 --out /shared/world --program orogen
#
# OROGEN        the orogen program here (default: orogen on the PATH)
# JOBS_DIR      where the jobs files go; every node must read it (default: .)
# MAX_PARALLEL  most array tasks running at once (default: 64)
# SBATCH_OPTS   more sbatch options (partition, account, …)
# A failed task leaves its window unbuilt: the next plan lists it again;
# after 3 rounds with failures in a row the driver stops.
set -euo pipefail
OROGEN=${OROGEN:-orogen}
here=$(cd "$(dirname "$0")" && pwd)
jobs_dir=${JOBS_DIR:-$PWD}
failures=0
round=0
while :; do
  round=$((round + 1))
  jobs="$jobs_dir/orogen-jobs.$round.txt"
  "$OROGEN" plan "$@" >"$jobs"
  lines=$(wc -l <"$jobs")
  if [ "$lines" -eq 0 ]; then
    rm -f "$jobs"
    break
  fi
  echo "orogen-farm: round $round, $lines jobs" >&2
  # shellcheck disable=SC2086
  if sbatch --wait --array="1-$lines%${MAX_PARALLEL:-64}" ${SBATCH_OPTS:-} \
    "$here/orogen-array.sbatch" "$jobs"; then
    failures=0
  else
    failures=$((failures + 1))
    if [ "$failures" -ge 3 ]; then
      echo "orogen-farm: 3 rounds in a row had failed tasks; see orogen-window-*.log" >&2
      exit 1
    fi
  fi
done
echo "orogen-farm: all built" >&2
