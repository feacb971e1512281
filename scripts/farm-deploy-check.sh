#!/usr/bin/env bash
# Checks the deploy/ drivers without a cluster: a stand-in `sbatch` runs
# the array's tasks one by one with SLURM_ARRAY_TASK_ID set, a stand-in
# `kubectl` runs the Indexed Job's pod command once per
# JOB_COMPLETION_INDEX (with /farm moved to a temporary folder). Each
# driver builds a small world (default preset, 257², 2x2 windows, float
# files), and the stitched windows are compared with the whole map. This
# is a simulation of the index variables, not a run on Slurm or
# Kubernetes. Needs python3 with PyYAML, numpy and pillow.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p orogen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp target/debug/orogen "$work/orogen"
export OROGEN="$work/orogen"
mkdir -p "$work/bin"

cat >"$work/bin/sbatch" <<'SH'
#!/usr/bin/env bash
# Stand-in sbatch: --wait --array=1-N[%M] [opts] SCRIPT ARGS, tasks in turn.
set -euo pipefail
range=""
while [ $# -gt 0 ]; do
  case $1 in
    --array=*) range=${1#--array=}; range=${range%%%*}; shift ;;
    --*) shift ;;
    *) break ;;
  esac
done
script=$1; shift
status=0
for id in $(seq "${range%-*}" "${range#*-}"); do
  SLURM_ARRAY_TASK_ID=$id bash "$script" "$@" >/dev/null || status=1
done
exit $status
SH
cat >"$work/bin/kubectl" <<'SH'
#!/usr/bin/env bash
# Stand-in kubectl: `apply -f -` runs the Indexed Job's pod command per index.
set -euo pipefail
case $1 in
  apply)
    python3 -c '
import os, subprocess, sys, yaml
job = yaml.safe_load(sys.stdin)
spec = job["spec"]
assert spec["completionMode"] == "Indexed"
command = spec["template"]["spec"]["containers"][0]["command"]
command = [c.replace("/farm", os.environ["FARM"]) for c in command]
for index in range(int(spec["completions"])):
    env = dict(os.environ, JOB_COMPLETION_INDEX=str(index))
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
' ;;
  wait) [ "$2" = --for=condition=complete ] ;;
  *) echo "kubectl stand-in: $*" >&2; exit 1 ;;
esac
SH
chmod +x "$work/bin/sbatch" "$work/bin/kubectl"
export PATH="$work/bin:$PATH"

plan=(--recipe default --size 257 --tiles 2 --formats tif)
JOBS_DIR="$work" deploy/slurm/orogen-farm.sh "${plan[@]}" --out "$work/slurm"
mkdir -p "$work/farm"
FARM="$work/farm" deploy/kubernetes/orogen-farm.sh "${plan[@]}" --out "$work/farm/world"
"$OROGEN" generate --recipe default --size 257 --formats tif --out "$work/whole" >/dev/null

python3 - "$work" <<'PY'
import json, pathlib, sys
import numpy as np
from PIL import Image
work = pathlib.Path(sys.argv[1])
whole = np.asarray(Image.open(work / "whole/heightmap.tif"), dtype=np.float32)
for name, farm in [("slurm", work / "slurm"), ("kubernetes", work / "farm/world")]:
    stitched = np.full(whole.shape, np.nan, dtype=np.float32)
    tiles = sorted(farm.glob("tile_*"))
    for tile in tiles:
        win = json.loads((tile / "heightmap.json").read_text())["window"]
        x, y, w, h = win["x"], win["y"], win["width"], win["height"]
        stitched[y:y + h, x:x + w] = np.asarray(Image.open(tile / "heightmap.tif"), dtype=np.float32)
    differ = int((stitched.view(np.uint32) != whole.view(np.uint32)).sum())
    print(f"farm-deploy-check: {name}: {len(tiles)} windows, {differ} cells differ from the whole map")
    assert len(tiles) == 4 and differ == 0
PY
echo "farm-deploy-check: ok"
