#!/usr/bin/env bash
# Prints a Markdown table of criterion medians from the last `cargo bench`.
# Usage: scripts/bench-table.sh [criterion-dir]   (default target/criterion)
set -euo pipefail
dir="${1:-target/criterion}"
echo "| bench | median |"
echo "|---|---|"
find "$dir" -path '*/new/estimates.json' | sort | while read -r f; do
  name="${f#"$dir"/}"; name="${name%/new/estimates.json}"
  python3 - "$f" "$name" <<'PY'
import json, sys
est = json.load(open(sys.argv[1]))
ns = est["median"]["point_estimate"]
unit = "ms" if ns >= 1e5 else "µs"
value = ns / 1e6 if unit == "ms" else ns / 1e3
print(f"| {sys.argv[2]} | {value:.3g} {unit} |")
PY
done
