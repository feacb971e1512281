#!/usr/bin/env bash
# The drainage checks at export sizes: the eroded presets at 2049² and
# 4097², built in release mode, judged by fastscapelib as in the default
# suite (θ 0.35–0.6 with r² ≥ 0.8, closed pits ≤ 0.1 %), and at 4097²
# their fine detail (the 4–16 cell band within 6 dB of the power law
# fitted over coarser wavelengths), and eroded-mountains and river-valley
# at 4097² in 1024-cell blocks (drainage, RMS from the coupled run, no
# seam along block edges). Run by
# scripts/test.sh after the default suite; then every preset's landscape
# compared from 257² to 4097² (tests/resolution.rs).
#
#   scripts/drainage-tier.sh [SIZES]   (default 2049,4097)
set -euo pipefail
cd "$(dirname "$0")/.."
OROGEN_DRAINAGE_SIZES=${1:-2049,4097} cargo test --release -p orogen-core --test drainage -- --nocapture
# Every preset the same landscape from 257² up to 4097² (correlation at
# shared points), with the same release build: too slow for the debug
# suite, so it is ignored there and run here.
cargo test --release -p orogen-core --test resolution -- --ignored --nocapture
