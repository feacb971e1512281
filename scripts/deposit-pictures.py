#!/usr/bin/env python3
"""Where a preset's rivers laid sediment down, for docs/erosion.md.

    scripts/deposit-pictures.py [PRESET ...] [--size 513] [--orogen PATH] [--out docs/images]

Runs `orogen generate --formats exr --maps deposition --texture SIZE*2`
for each preset (default: alluvial-fans, eroded-mountains, river-valley)
and writes `<preset>-deposits.png`: the hillshade (sun from the
north-west, 45° up) with the deposits in orange over it, full from 1 m
(deposition.png holds centimetres), beside the exported texture.
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np
from PIL import Image

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_exr(path):
    import OpenEXR
    import Imath
    f = OpenEXR.InputFile(path)
    dw = f.header()["dataWindow"]
    w, h = dw.max.x - dw.min.x + 1, dw.max.y - dw.min.y + 1
    channel = list(f.header()["channels"].keys())[0]
    raw = f.channel(channel, Imath.PixelType(Imath.PixelType.FLOAT))
    return np.frombuffer(raw, dtype=np.float32).reshape(h, w).astype(np.float64)


def hillshade(z, cell):
    gy, gx = np.gradient(z, cell)
    azimuth, altitude = np.radians(315), np.radians(45)
    slope = np.arctan(np.hypot(gx, gy))
    aspect = np.arctan2(-gx, gy)
    shade = np.sin(altitude) * np.cos(slope) + np.cos(altitude) * np.sin(slope) * np.cos(azimuth - aspect)
    return np.clip(shade, 0, 1)


def picture(folder, cell):
    z = read_exr(os.path.join(folder, "heightmap.exr"))
    laid = np.array(Image.open(os.path.join(folder, "deposition.png"))).astype(np.float64) / 100.0
    rgb = np.stack([hillshade(z, cell)] * 3, -1)
    weight = 0.6 * np.clip(laid, 0, 1)[..., None]
    rgb = rgb * (1 - weight) + np.array([0.9, 0.55, 0.1]) * weight
    side = z.shape[0]
    texture = Image.open(os.path.join(folder, "texture.png")).convert("RGB").resize((side, side), Image.BOX)
    sheet = Image.new("RGB", (2 * side + 8, side), (255, 255, 255))
    sheet.paste(Image.fromarray((rgb * 255).astype(np.uint8)), (0, 0))
    sheet.paste(texture, (side + 8, 0))
    return sheet


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("presets", nargs="*", default=["alluvial-fans", "eroded-mountains", "river-valley"])
    ap.add_argument("--size", type=int, default=513)
    ap.add_argument("--orogen", default=os.path.join(REPO, "target", "release", "orogen"))
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "images"))
    args = ap.parse_args()
    for preset in args.presets:
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run([args.orogen, "generate", "--recipe", preset, "--size", str(args.size),
                            "--formats", "exr", "--maps", "deposition", "--texture", str(2 * args.size),
                            "--out", folder], check=True, capture_output=True)
            with open(os.path.join(folder, "heightmap.json")) as f:
                cell = float(json.load(f)["cell_size"])
            out = os.path.join(args.out, f"{preset}-deposits.png")
            picture(folder, cell).save(out)
            print(f"wrote {out}")


if __name__ == "__main__":
    main()
