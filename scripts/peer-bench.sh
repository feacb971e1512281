#!/usr/bin/env bash
# Times orogen's stages against wgen's generators (jice-nospam/wgen, the
# closest Rust peer) on matched parameters at 1025² and prints a Markdown
# table of medians.
#
#   scripts/peer-bench.sh [RUNS]          (default 7 runs of each side)
#   PEER_TIMES=FILE scripts/peer-bench.sh (also keep every run's lines)
#
# wgen is fetched into a throwaway folder outside this repository
# (WGEN_SOURCE: a git URL or a local clone, default
# https://github.com/jice-nospam/wgen); its egui `render_*` functions are
# stripped (scripts/peer/strip_wgen.py) and its generators built as a
# small binary (scripts/peer/wgen_main.rs). None of its code enters
# orogen. orogen runs scripts/peer/orogen-1025.ron with the
# `stage_timings` example: the same one-shot run as `orogen generate`,
# one cold process per run, on all cores and again on one thread.
set -euo pipefail
runs=${1:-7}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/orogen-peer.XXXXXX")
trap 'rm -rf "$work"' EXIT
source_url=${WGEN_SOURCE:-https://github.com/jice-nospam/wgen}

echo "fetching wgen from $source_url" >&2
git clone --quiet "$source_url" "$work/wgen" 2>/dev/null || git clone --quiet --depth 1 "$source_url" "$work/wgen"
echo "wgen at $(git -C "$work/wgen" rev-parse --short HEAD)" >&2
mkdir -p "$work/peer/src"
python3 "$repo/scripts/peer/strip_wgen.py" "$work/wgen" "$work/peer/src/generators"
cp "$repo/scripts/peer/wgen_main.rs" "$work/peer/src/main.rs"
cat > "$work/peer/Cargo.toml" <<'TOML'
[package]
name = "wgen-peer"
version = "0.0.0"
edition = "2021"

[dependencies]
rand = "0.9"
noise = { version = "0.9", default-features = false }
serde = { version = "1", features = ["derive"] }
num_cpus = "1"

[profile.release]
debug = false
TOML
echo "building wgen's generators" >&2
CARGO_TARGET_DIR="$work/target" cargo build --quiet --release --manifest-path "$work/peer/Cargo.toml" 2>&1 | grep -v "^warning" >&2 || true
peer="$work/target/release/wgen-peer"
[ -x "$peer" ] || { echo "error: wgen's generators did not build" >&2; exit 1; }
echo "building orogen's stage_timings example" >&2
(cd "$repo" && cargo build --quiet --release -p orogen-core --example stage_timings)
ours="$repo/target/release/examples/stage_timings"
recipe="$repo/scripts/peer/orogen-1025.ron"

for ((i = 1; i <= runs; i++)); do
  echo "run $i of $runs" >&2
  "$peer" | sed 's/^/wgen /' >> "$work/times"
  "$ours" "$recipe" | sed 's/^/orogen /' >> "$work/times"
  RAYON_NUM_THREADS=1 "$ours" "$recipe" | sed 's/^/orogen1 /' >> "$work/times"
done
python3 "$repo/scripts/peer/table.py" "$work/times" "$(nproc)"
# PEER_TIMES=FILE keeps every run's raw timing lines.
if [ -n "${PEER_TIMES:-}" ]; then cp "$work/times" "$PEER_TIMES"; fi
