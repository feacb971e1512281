#!/usr/bin/env bash
# Builds a world on Kubernetes: loops `orogen plan PLAN-ARGS` into
# /farm/jobs/round-<r>.txt and one Indexed Job (orogen-indexed-job.yaml)
# per phase, until the plan prints nothing. Run it where the farm's
# volume is mounted at /farm (a pod on the same claim, or a machine with
# the same share) and kubectl reaches the cluster.
#
#   deploy/kubernetes/orogen-farm.sh --recipe /farm/r.ron --size 32769 \
#     --tiles 1x32 --out /farm/world --program orogen
#
# OROGEN       the orogen program here (default: orogen on the PATH)
# FARM         where the volume is mounted here (default: /farm)
# PARALLELISM  most pods at once (default: 16)
set -euo pipefail
OROGEN=${OROGEN:-orogen}
FARM=${FARM:-/farm}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$FARM/jobs"
failures=0
round=0
while :; do
  round=$((round + 1))
  jobs="$FARM/jobs/round-$round.txt"
  "$OROGEN" plan "$@" >"$jobs"
  lines=$(wc -l <"$jobs")
  [ "$lines" -gt 0 ] || break
  echo "orogen-farm: round $round, $lines jobs" >&2
  sed -e "s/ROUND/$round/g" -e "s/COMPLETIONS/$lines/g" \
    -e "s/PARALLELISM/${PARALLELISM:-16}/g" "$here/orogen-indexed-job.yaml" |
    kubectl apply -f -
  # Complete, or Failed once an index has run out of retries (its
  # window stays unbuilt and the next plan lists it again).
  while :; do
    if kubectl wait --for=condition=complete "job/orogen-round-$round" --timeout=60s >/dev/null 2>&1; then
      failures=0
      break
    fi
    if kubectl wait --for=condition=failed "job/orogen-round-$round" --timeout=1s >/dev/null 2>&1; then
      failures=$((failures + 1))
      [ "$failures" -lt 3 ] || { echo "orogen-farm: 3 rounds in a row failed" >&2; exit 1; }
      break
    fi
  done
done
echo "orogen-farm: all built" >&2
