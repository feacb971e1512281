#!/usr/bin/env bash
# The farm check: the default preset at 2049² built as 16 windows (4x4)
# by GNU parallel with 2 local workers through the `orogen plan` loop
# (scripts/farm-run.sh), stitched, and compared bit for bit with the
# whole-map export: the float heights (heightmap.tif) and the 16-bit
# samples (heightmap.r16, which every window stores in the world's range).
#
#   scripts/farm-check.sh [SIZE] [TILES] [WORKERS]   (default 2049 4 2)
#
# RECIPE picks another recipe (default: default). PROFILE=release uses
# the release build (default: the dev build, whose core is optimised).
# With /usr/bin/time each job's and the whole map's peak RSS are printed;
# LIMIT_MB fails the check when a window's job went over it.
# Needs GNU parallel (installed when run as root) and python3 with numpy
# and pillow.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-2049}
TILES=${2:-4}
WORKERS=${3:-2}
RECIPE=${RECIPE:-default}
PROFILE=${PROFILE:-dev}

if ! command -v parallel >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq parallel >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq parallel >/dev/null; }
  else
    echo "farm-check: GNU parallel is missing (apt-get install parallel)" >&2
    exit 1
  fi
fi
# Cargo's own target folder, wherever CARGO_TARGET_DIR puts it.
target=${CARGO_TARGET_DIR:-$PWD/target}
if [ "$PROFILE" = release ]; then
  cargo build -q --release -p orogen
  OROGEN=$target/release/orogen
else
  cargo build -q -p orogen
  OROGEN=$target/debug/orogen
fi
export OROGEN
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

timing=()
if [ -x /usr/bin/time ]; then
  export FARM_TIME_DIR="$work/times"
  timing=(/usr/bin/time -v -o "$work/whole-time.txt")
fi
start=$(date +%s.%N)
PARALLEL_OPTS="-j$WORKERS" scripts/farm-run.sh --recipe "$RECIPE" --size "$SIZE" \
  --tiles "$TILES" --out "$work/farm" --formats tif,r16 >/dev/null
farm_s=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
"${timing[@]}" "$OROGEN" generate --recipe "$RECIPE" --size "$SIZE" --out "$work/whole" --formats tif,r16 >/dev/null
whole_s=$(echo "$(date +%s.%N) - $start" | bc)

python3 - "$work" <<'PY'
import json, pathlib, sys
import numpy as np
from PIL import Image

Image.MAX_IMAGE_PIXELS = None
work = pathlib.Path(sys.argv[1])

def floats(path):
    return np.asarray(Image.open(path), dtype=np.float32)

def samples(path, w, h):
    return np.fromfile(path, dtype="<u2").reshape(h, w)

whole = floats(work / "whole/heightmap.tif")
h, w = whole.shape
whole16 = samples(work / "whole/heightmap.r16", w, h)
stitched = np.full((h, w), np.nan, dtype=np.float32)
stitched16 = np.zeros((h, w), dtype=np.uint16)
covered = np.zeros((h, w), dtype=np.uint8)
tiles = sorted((work / "farm").glob("tile_*"))
for tile in tiles:
    win = json.loads((tile / "heightmap.json").read_text())["window"]
    x, y, tw, th = win["x"], win["y"], win["width"], win["height"]
    assert (win["world_width"], win["world_height"]) == (w, h), win
    stitched[y:y + th, x:x + tw] = floats(tile / "heightmap.tif")
    stitched16[y:y + th, x:x + tw] = samples(tile / "heightmap.r16", tw, th)
    covered[y:y + th, x:x + tw] += 1
assert (covered == 1).all(), "the windows do not partition the map"
differ = int((stitched.view(np.uint32) != whole.view(np.uint32)).sum())
differ16 = int((stitched16 != whole16).sum())
print(f"farm-check: {len(tiles)} windows of a {w}x{h} map: "
      f"{differ} float cells and {differ16} 16-bit samples differ from the whole map")
sys.exit(1 if differ or differ16 else 0)
PY
printf 'farm-check: ok; farm %.1f s with %s workers, whole map %.1f s\n' "$farm_s" "$WORKERS" "$whole_s"
if [ -d "$work/times" ]; then
  rss() { awk -F': ' '/Maximum resident set size/ {print int($2 / 1024)}' "$@"; }
  jobs_peak=$(rss "$work"/times/*.txt | sort -n | tail -1)
  echo "farm-check: peak RSS $jobs_peak MiB for the largest window job ($(ls "$work"/times | wc -l) jobs), $(rss "$work/whole-time.txt") MiB for the whole map"
  if [ -n "${LIMIT_MB:-}" ] && [ "$jobs_peak" -gt "$LIMIT_MB" ]; then
    echo "farm-check: a window's job went over $LIMIT_MB MiB" >&2
    exit 1
  fi
fi
