#!/usr/bin/env bash
# Coverage-guided fuzzing of one reader of outside data with cargo-fuzz
# (libFuzzer + AddressSanitizer) on the stable toolchain.
#
#   scripts/fuzz.sh TARGET SECONDS     # e.g. scripts/fuzz.sh exr 1200
#   scripts/fuzz.sh list               # the targets
#
# Targets: recipe, raw16, png16, exr, tiff, sidecar, tile_image. Each
# starts from the committed seeds in fuzz/seeds/TARGET and keeps what it
# learns in fuzz/corpus/TARGET (not committed); a crash is saved under
# fuzz/artifacts/TARGET and stops the run with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
if [ "${1:-}" = list ]; then
  ls fuzz_targets | sed 's/\.rs$//'
  exit 0
fi
target="${1:?usage: scripts/fuzz.sh TARGET SECONDS (or: scripts/fuzz.sh list)}"
seconds="${2:?usage: scripts/fuzz.sh TARGET SECONDS}"
[ -f "fuzz_targets/$target.rs" ] || { echo "no fuzz target '$target' (scripts/fuzz.sh list)" >&2; exit 2; }
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
mkdir -p "corpus/$target"
# cargo-fuzz passes nightly-only flags (-Z sanitizer); RUSTC_BOOTSTRAP
# lets the stable compiler accept them.
RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" "corpus/$target" "seeds/$target" -- \
  -max_total_time="$seconds" -rss_limit_mb=4096 -max_len=1048576 -print_final_stats=1
