#!/usr/bin/env python3
"""Regenerates the README's pictures of water and derived maps in docs/images.

    scripts/water-pictures.py [--orogen target/release/orogen]

- lake-valley-maps.png: the lake-valley preset's derived maps side by side
  (flow, wetness, lakes, rivers, curvature, occlusion) and its texture.png,
  each labelled, from one `orogen generate --maps all` at 513²;
- lake-valley-viewer.png: the viewer on lake-valley with lakes and rivers
  drawn as water (`--lakes-and-rivers`), looking up the valley.

Needs `xvfb-run` (Mesa's software Vulkan is enough) and Pillow.
"""

import argparse
import subprocess
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
VIEW_BOX = (360, 0, 1280, 765)
MAPS = ["flow", "wetness", "lakes", "rivers", "curvature", "occlusion"]


def run(args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def shown(path, name):
    """A map's PNG as the eye reads it: 16-bit maps stretched to their own
    range (flow and the depths), labelled."""
    image = Image.open(path)
    if image.mode.startswith("I"):
        low, high = image.getextrema()
        scale = 255.0 / max(high - low, 1)
        image = image.point(lambda v: (v - low) * scale).convert("L")
    image = image.convert("RGB").resize((256, 256), Image.Resampling.LANCZOS)
    labelled = Image.new("RGB", (256, 276), (255, 255, 255))
    labelled.paste(image, (0, 20))
    ImageDraw.Draw(labelled).text((4, 4), name, fill=(0, 0, 0))
    return labelled


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--orogen", default=str(ROOT / "target" / "release" / "orogen"))
    args = parser.parse_args()
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "lake-valley"
        run([args.orogen, "generate", "--recipe", "lake-valley", "--size", "513",
             "--texture", "1024", "--maps", "all", "--out", str(out)])
        panels = [shown(out / f"{m}.png", m) for m in MAPS]
        panels.append(shown(out / "texture.png", "texture"))
        gap = 6
        sheet = Image.new("RGB", (len(panels) * (256 + gap) - gap, 276), (255, 255, 255))
        for i, panel in enumerate(panels):
            sheet.paste(panel, (i * (256 + gap), 0))
        sheet.save(IMAGES / "lake-valley-maps.png")

        shot = Path(tmp) / "viewer.png"
        run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", args.orogen, "view",
             "--recipe", "lake-valley", "--lakes-and-rivers",
             "--look-from", "640,110,620", "--look-at", "530,0,330",
             "--frames", "5", "--screenshot", str(shot)])
        Image.open(shot).convert("RGB").crop(VIEW_BOX).save(IMAGES / "lake-valley-viewer.png")


if __name__ == "__main__":
    main()
