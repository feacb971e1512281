#!/usr/bin/env python3
"""Before/after pictures of orogen's fluvial erosion with the drainage
network drawn, for the README and docs/erosion.md.

    scripts/drainage-pictures.py [--size 1025] [--out docs/images]

For `eroded-mountains` and `river-valley`, runs the preset with and
without its fluvial-erosion stage (the `float_heights` example of
orogen-core, built in release mode) and draws each map as a hillshade
with the channels draining at least 2000 m² in blue, their width and
strength growing with log area. Drainage area comes from fastscapelib
(D8 + MST sink resolver, all edges at base level), the same outside
library the drainage test judges with, not from orogen. Writes
`<preset>-drainage.png` (before | after) and prints each map's θ, r² and
closed-pit share.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)


def load_checker():
    import importlib.util

    spec = importlib.util.spec_from_file_location("drainage_check", os.path.join(HERE, "drainage-check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def heights(example, preset, size, without, folder):
    out = os.path.join(folder, f"{preset}-{'before' if without else 'after'}.f32")
    args = [example, preset, out, str(size)] + (["--without", "fluvial-erosion"] if without else [])
    info = subprocess.run(args, check=True, capture_output=True, text=True).stdout.split()
    w, h = (int(v) for v in info[0].split("x"))
    return np.fromfile(out, dtype="<f4").reshape(h, w), float(info[2])


def drainage_area(h, cell):
    import fastscapelib as fs

    grid = fs.RasterGrid(list(h.shape), [cell, cell], fs.NodeStatus.FIXED_VALUE)
    graph = fs.FlowGraph(grid, [fs.SingleFlowRouter(), fs.MSTSinkResolver()])
    graph.update_routes(h.astype(np.float64))
    return graph.accumulate(1.0)


def picture(h, cell):
    gy, gx = np.gradient(h, cell)
    # Light from the north-west, 45° up.
    shade = np.clip((-gx + gy) / np.sqrt(2) / np.sqrt(1 + gx**2 + gy**2) * 1.4 + 0.55, 0, 1)
    norm = (h - h.min()) / max(np.ptp(h), 1e-9)
    base = 0.75 * shade + 0.25 * norm
    rgb = np.stack([base * 0.95, base * 0.9, base * 0.8], -1)
    area = drainage_area(h, cell)
    strength = np.clip((np.log10(np.maximum(area, 1)) - np.log10(2000)) / (np.log10(2e5) - np.log10(2000)), 0, 1)
    channel = area >= 2000
    alpha = np.where(channel, 0.6 + 0.4 * strength, 0)
    # Wider lines for larger rivers: grown by one cell where strength
    # passes 0.25, by two where it passes 0.6, so they survive the
    # picture's downscaling.
    for threshold in (0.25, 0.6):
        grown = np.where(strength > threshold, alpha, 0)
        for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            alpha = np.maximum(alpha, np.roll(np.roll(grown, dy, 0), dx, 1))
    alpha = alpha[..., None]
    blue = np.array([0.1, 0.35, 0.95])
    rgb = rgb * (1 - alpha) + blue * alpha
    return Image.fromarray((np.clip(rgb, 0, 1) * 255).astype(np.uint8))


def float_heights_example():
    """Builds orogen-core's `float_heights` example (release) and returns its path."""
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "orogen-core", "--example", "float_heights"],
        check=True,
        cwd=REPO,
    )
    return os.path.join(REPO, "target", "release", "examples", "float_heights")


def side_by_side(panels, path):
    """Saves 512-pixel `panels` in a row, 8 white pixels apart, at `path`."""
    sheet = Image.new("RGB", (len(panels) * 520 - 8, 512), (255, 255, 255))
    for i, panel in enumerate(panels):
        sheet.paste(panel, (i * 520, 0))
    sheet.save(path)
    print("wrote", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1025)
    parser.add_argument("--out", default=os.path.join(REPO, "docs", "images"))
    args = parser.parse_args()
    example = float_heights_example()
    checker = load_checker()
    with tempfile.TemporaryDirectory() as folder:
        for preset in ["eroded-mountains", "river-valley"]:
            panels = []
            for without in (True, False):
                h, cell = heights(example, preset, args.size, without, folder)
                stats = checker.analyse(h.astype(np.float64), cell, 2000.0)
                label = "before" if without else "after"
                print(
                    f"{preset} {args.size}² {label}: θ {stats['theta']:.3f} r² {stats['r2']:.3f} "
                    f"pits {stats['pits_percent']:.3f} %"
                )
                panels.append(picture(h.astype(np.float64), cell).resize((512, 512), Image.BOX))
            side_by_side(panels, os.path.join(args.out, f"{preset}-drainage.png"))


if __name__ == "__main__":
    main()
