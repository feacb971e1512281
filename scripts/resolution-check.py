#!/usr/bin/env python3
"""One world at every size, checked on exported files.

Exports each shipped preset with `orogen generate --size N` at several
sizes, reads every `heightmap.r16` back with its sidecar's heights
(`min_height` + v/65535 * (max_height - min_height)) and prints the
Pearson correlation of the heights at the lattice points each pair of
sizes shares.

    scripts/resolution-check.py [--orogen target/release/orogen] [--sizes 257,513,1025,2049]

Sizes must be 2^n + 1 so that a smaller map's points fall on a larger
map's: point i of size a is point i * (b - 1) / (a - 1) of size b.
"""
import argparse, json, os, subprocess, sys, tempfile
import numpy as np

PRESETS = ["default", "article-000-hills-and-pits", "article-003-diamond-square",
           "three-terrain-hill", "three-terrain-hill-island", "eroded-mountains"]


def export(orogen, preset, size, folder):
    out = os.path.join(folder, f"{preset}-{size}")
    subprocess.run([orogen, "generate", "--recipe", preset, "--size", str(size),
                    "--out", out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    with open(os.path.join(out, "heightmap.json")) as f:
        side = json.load(f)
    w, h = side["width"], side["height"]
    raw = np.fromfile(os.path.join(out, "heightmap.r16"), dtype="<u2").reshape(h, w)
    lo, hi = side["min_height"], side["max_height"]
    return lo + raw.astype(np.float64) / 65535.0 * (hi - lo)


def shared(small, large):
    step = (large.shape[0] - 1) // (small.shape[0] - 1)
    return small, large[::step, ::step]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--orogen", default="target/release/orogen")
    ap.add_argument("--sizes", default="257,513,1025,2049")
    ap.add_argument("--presets", default=",".join(PRESETS))
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for s in sizes:
        if s < 3 or (s - 1) & (s - 2):
            sys.exit(f"size {s}: expected 2^n + 1")
    print("| preset | " + " | ".join(f"{a}² vs {b}²" for i, a in enumerate(sizes)
                                        for b in sizes[i + 1:]) + " | lowest |")
    print("|---|" + "---|" * (len(sizes) * (len(sizes) - 1) // 2 + 1))
    with tempfile.TemporaryDirectory() as folder:
        for preset in args.presets.split(","):
            maps = {s: export(args.orogen, preset, s, folder) for s in sizes}
            cells = []
            for i, a in enumerate(sizes):
                for b in sizes[i + 1:]:
                    x, y = shared(maps[a], maps[b])
                    cells.append(np.corrcoef(x.ravel(), y.ravel())[0, 1])
            print(f"| {preset} | " + " | ".join(f"{c:.4f}" for c in cells)
                  + f" | {min(cells):.4f} |", flush=True)


if __name__ == "__main__":
    main()
