#!/usr/bin/env bash
# One stream-power step, orogen against fastscapelib, side by side in one
# run: routing with depression handling, drainage area and the implicit
# solve, from the same terrain (the preset's map before erosion), with the
# same K, m, n, dt, cells and fixed edges. fastscapelib (PyPI) is
# installed into a throwaway virtual environment when python3 lacks it.
#
#   scripts/stream-power-bench.sh [STEPS] [SIZES...]   (default 9 steps, 1025 2049)
#
# Prints a Markdown table of medians: fastscapelib's SPLEroder on a
# FlowGraph with SingleFlowRouter + MSTSinkResolver (one thread), orogen
# on one thread and on every core.
set -euo pipefail
steps=${1:-9}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1025 2049)
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/orogen-spl.XXXXXX")
trap 'rm -rf "$work"' EXIT
python=python3
if ! python3 -c "import fastscapelib, numpy" >/dev/null 2>&1; then
  echo "installing fastscapelib into $work/venv" >&2
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q fastscapelib numpy
  python="$work/venv/bin/python"
fi
echo "building orogen's examples" >&2
(cd "$repo" && cargo build --quiet --release -p orogen-core --example float_heights --example stream_power_step)
bin="$repo/target/release/examples"
k=1e-4 m=0.5 n=1 dt=5000
echo "| size | fastscapelib, 1 thread | orogen, 1 thread | orogen, $(nproc) threads | speed-up (1 thread) |"
echo "|---|---|---|---|---|"
for size in "${sizes[@]}"; do
  # The eroded-mountains map before its fluvial stage.
  info=$("$bin/float_heights" eroded-mountains "$work/map.f32" "$size" --without fluvial-erosion 2>/dev/null)
  dims=${info%% *}
  cell=$(echo "$info" | awk '{print $3}')
  theirs=$(OMP_NUM_THREADS=1 "$python" "$repo/scripts/peer/fastscape_step.py" --raw "$work/map.f32" \
    --size "$dims" --cell-size "$cell" --k $k --m $m --n $n --dt $dt --steps "$steps" 2>/dev/null | awk '{print $4}')
  one=$(RAYON_NUM_THREADS=1 "$bin/stream_power_step" "$work/map.f32" "$dims" "$cell" $k $m $n $dt "$steps" | awk '{print $4}')
  all=$("$bin/stream_power_step" "$work/map.f32" "$dims" "$cell" $k $m $n $dt "$steps" | awk '{print $4}')
  ratio=$(awk -v a="$theirs" -v b="$one" 'BEGIN { printf "%.1f×", a / b }')
  echo "| ${size}² | ${theirs} ms | ${one} ms | ${all} ms | ${ratio} |"
done
