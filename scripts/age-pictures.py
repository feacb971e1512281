#!/usr/bin/env python3
"""The same eroded range at three ages, for docs/erosion.md: `eroded-mountains`
with its fluvial stage's duration set to each age, drawn as a hillshade
with its channels (as `drainage-pictures.py` draws them), side by side,
with each run's time.

    scripts/age-pictures.py [--size 513] [--out docs/images]

Writes `eroded-mountains-ages.png` and prints the fluvial stage's
milliseconds at each age: the cost is the number of steps, not the years.
"""
import argparse
import importlib.util
import os
import re
import subprocess
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
AGES = [50_000, 200_000, 1_000_000]


def drainage_pictures():
    spec = importlib.util.spec_from_file_location("drainage_pictures", os.path.join(HERE, "drainage-pictures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=513)
    parser.add_argument("--out", default=os.path.join(REPO, "docs", "images"))
    args = parser.parse_args()
    pictures = drainage_pictures()
    example = pictures.float_heights_example()
    preset = open(os.path.join(REPO, "assets", "presets", "eroded-mountains.ron")).read()
    tiles = []
    with tempfile.TemporaryDirectory() as folder:
        for age in AGES:
            recipe = re.sub(r"duration: [0-9.]+", f"duration: {age:.1f}", preset, count=1)
            path = os.path.join(folder, f"age-{age}.ron")
            open(path, "w").write(recipe)
            out = os.path.join(folder, f"age-{age}.f32")
            run = subprocess.run([example, path, out, str(args.size)], check=True, capture_output=True, text=True)
            info = run.stdout.split()
            w, h = (int(v) for v in info[0].split("x"))
            cell = float(info[2])
            fluvial = [l.strip() for l in (run.stdout + run.stderr).splitlines() if "fluvial" in l]
            print(f"{age} years: {fluvial[0] if fluvial else '?'}")
            heights = np.fromfile(out, dtype="<f4").reshape(h, w)
            tiles.append(pictures.picture(heights, cell))
    gap = 8
    width = sum(t.width for t in tiles) + gap * (len(tiles) - 1)
    sheet = Image.new("RGB", (width, tiles[0].height), (255, 255, 255))
    x = 0
    for tile in tiles:
        sheet.paste(tile, (x, 0))
        x += tile.width + gap
    target = os.path.join(args.out, "eroded-mountains-ages.png")
    sheet.save(target, optimize=True)
    print(target)


if __name__ == "__main__":
    main()
