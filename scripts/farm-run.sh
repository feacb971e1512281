#!/usr/bin/env bash
# Builds a world as windows with GNU parallel: loops
#   orogen plan PLAN-ARGS > jobs; parallel < jobs
# until the plan prints nothing. Any other runner loops the same way
# (deploy/slurm, deploy/kubernetes).
#
#   scripts/farm-run.sh PLAN-ARGS...
#   e.g. scripts/farm-run.sh --recipe default --size 8193 --tiles 4 --out /shared/world
#
# OROGEN         the orogen program (default: orogen on the PATH)
# PARALLEL_OPTS  GNU parallel's options (default: -j2), e.g.
#                "--sshlogin 4/host1,4/host2" (then pass --program orogen
#                and paths valid on every host, on shared storage)
# FARM_TIME_DIR  when set, each job runs under /usr/bin/time -v and its
#                report goes to FARM_TIME_DIR/round<r>_job<n>.txt
set -euo pipefail
OROGEN=${OROGEN:-orogen}
jobs=$(mktemp)
trap 'rm -f "$jobs"' EXIT
round=0
while :; do
  "$OROGEN" plan "$@" >"$jobs"
  [ -s "$jobs" ] || break
  round=$((round + 1))
  if [ "$round" -gt 100 ]; then
    echo "farm-run: the plan did not empty after 100 rounds" >&2
    exit 1
  fi
  echo "farm-run: round $round, $(wc -l <"$jobs") jobs" >&2
  # A failed job stops the round; the next plan lists it again.
  if [ -n "${FARM_TIME_DIR:-}" ]; then
    mkdir -p "$FARM_TIME_DIR"
    # shellcheck disable=SC2086
    parallel --halt now,fail=1 ${PARALLEL_OPTS:--j2} \
      "/usr/bin/time -v -o $FARM_TIME_DIR/round${round}_job{#}.txt sh -c {}" <"$jobs"
  else
    # shellcheck disable=SC2086
    parallel --halt now,fail=1 ${PARALLEL_OPTS:--j2} <"$jobs"
  fi
done
echo "farm-run: all built ($round rounds)" >&2
