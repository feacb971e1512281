#!/usr/bin/env python3
"""Each eroded preset as it was at a git revision beside the preset now,
drawn with its channels as `drainage-pictures.py` draws them, for
docs/erosion.md when a preset changes.

    scripts/preset-change-pictures.py REV [--size 513] [--out docs/images]

For `eroded-mountains`, `river-valley` and `lake-valley`: the preset
file at REV (`git show REV:assets/presets/NAME.ron`) and the file now,
both run by today's code (the `float_heights` example of orogen-core),
so the pictures show what the recipe change does. With
`--then-example PATH` (that example built from an older checkout), the
presets as they are now run by both builds instead: what a code change
does. Writes `<preset>-then-now.png` (then | now) and prints each map's
θ, r² and closed-pit share (fastscapelib), the fluvial stage's
milliseconds, and the RMS difference and correlation of the two maps.
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
PRESETS = ["eroded-mountains", "river-valley", "lake-valley"]


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(example, recipe, size, folder, label):
    out = os.path.join(folder, f"{label}.f32")
    done = subprocess.run([example, recipe, out, str(size)], check=True, capture_output=True, text=True)
    info = done.stdout.split()
    w, h = (int(v) for v in info[0].split("x"))
    millis = re.search(r"fluvial-erosion\s+([0-9.]+) ms", done.stderr)
    heights = np.fromfile(out, dtype="<f4").reshape(h, w).astype(np.float64)
    return heights, float(info[2]), float(millis.group(1)) if millis else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", nargs="?", default="HEAD")
    parser.add_argument("--then-example", help="an older build of the float_heights example")
    parser.add_argument("--size", type=int, default=513)
    parser.add_argument("--out", default=os.path.join(REPO, "docs", "images"))
    args = parser.parse_args()
    pictures = load("drainage_pictures", "drainage-pictures.py")
    example = pictures.float_heights_example()
    checker = load("drainage_check", "drainage-check.py")
    with tempfile.TemporaryDirectory() as folder:
        for preset in PRESETS:
            then = os.path.join(folder, f"{preset}-then.ron")
            text = subprocess.run(
                ["git", "show", f"{args.rev}:assets/presets/{preset}.ron"],
                check=True, capture_output=True, text=True, cwd=REPO,
            ).stdout
            with open(then, "w") as f:
                f.write(text)
            now = os.path.join(REPO, "assets", "presets", f"{preset}.ron")
            runs = (
                (("then", args.then_example, now), ("now", example, now))
                if args.then_example
                else (("then", example, then), ("now", example, now))
            )
            panels, maps = [], []
            for label, build, recipe in runs:
                h, cell, millis = run(build, recipe, args.size, folder, f"{preset}-{label}")
                maps.append(h)
                stats = checker.analyse(h, cell, 2000.0)
                print(
                    f"{preset} {args.size}² {label}: θ {stats['theta']:.3f} r² {stats['r2']:.3f} "
                    f"pits {stats['pits_percent']:.3f} %, fluvial {millis:.0f} ms"
                )
                panels.append(pictures.picture(h, cell).resize((512, 512), Image.BOX))
            if maps[0].shape == maps[1].shape:
                rms = float(np.sqrt(np.mean((maps[0] - maps[1]) ** 2)))
                corr = float(np.corrcoef(maps[0].ravel(), maps[1].ravel())[0, 1])
                print(f"{preset} {args.size}²: RMS difference {rms:.3f} m, correlation {corr:.5f}")
            pictures.side_by_side(panels, os.path.join(args.out, f"{preset}-then-now.png"))


if __name__ == "__main__":
    main()
