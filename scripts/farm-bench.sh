#!/usr/bin/env bash
# The farm benchmark (not a test): a 32769² world of the default preset
# (4.3 GB of f32 heights) built as windows through GNU parallel with the
# `orogen plan` loop (scripts/farm-run.sh), each job under /usr/bin/time -v.
# Prints the wall time and the largest peak RSS of any job, and fails if a
# job went over 1 GiB.
#
#   scripts/farm-bench.sh [SIZE] [TILES] [WORKERS]   (default 32769 1x32 2)
#
# The default preset's blur is wider than 64 cells at this size, so each
# window computes its rows from the world's west edge: full-width strips
# (TILES 1xR) do no work twice, where N x N windows would redo the west
# part of their rows. FORMATS (default r16) are the files each window
# writes (2 bytes a cell for r16: 2.1 GB at 32769²); OUT keeps them in
# that folder (default: a temporary folder, removed). PROFILE=release
# uses the release build (default: the dev build, whose core is
# optimised). The binary is copied first, so builds during the run do not
# change it.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-32769}
TILES=${2:-1x32}
WORKERS=${3:-2}
FORMATS=${FORMATS:-r16}
PROFILE=${PROFILE:-dev}
LIMIT_KB=$((1024 * 1024))

command -v parallel >/dev/null 2>&1 || { echo "farm-bench: GNU parallel is missing (apt-get install parallel)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "farm-bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$PROFILE" = release ]; then
  cargo build -q --release -p orogen
else
  cargo build -q -p orogen
fi
cp "${CARGO_TARGET_DIR:-target}/$([ "$PROFILE" = release ] && echo release || echo debug)/orogen" "$work/orogen"
export OROGEN="$work/orogen"
out=${OUT:-$work/world}

start=$(date +%s.%N)
FARM_TIME_DIR="$work/times" PARALLEL_OPTS="-j$WORKERS" scripts/farm-run.sh \
  --recipe default --size "$SIZE" --tiles "$TILES" --out "$out" --formats "$FORMATS" >/dev/null
wall=$(echo "$(date +%s.%N) - $start" | bc)

peak=0
jobs=0
for report in "$work"/times/*.txt; do
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$report")
  jobs=$((jobs + 1))
  [ "$kb" -gt "$peak" ] && peak=$kb
done
printf 'farm-bench: %s² world, %s windows, %s workers, %s files: %.0f s wall, %d jobs, peak RSS per job %.0f MiB (%s build)\n' \
  "$SIZE" "$TILES" "$WORKERS" "$FORMATS" "$wall" "$jobs" "$(echo "$peak / 1024" | bc -l)" "$PROFILE"
awk -F': ' '/Maximum resident set size/ {split(FILENAME, p, "/"); print "  " p[length(p)] ": " int($2 / 1024) " MiB"}' \
  "$work"/times/*.txt | sort -t: -k2 -n -r | head -3
if [ "$peak" -gt "$LIMIT_KB" ]; then
  echo "farm-bench: a job went over 1 GiB" >&2
  exit 1
fi
