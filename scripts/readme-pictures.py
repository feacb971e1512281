#!/usr/bin/env python3
"""Regenerates the README's pictures of the shipped presets in docs/images.

    scripts/readme-pictures.py [--orogen target/release/orogen]

Runs `orogen generate` (heightmap preview, texture.png, splat.png) and
`orogen view --screenshot` under `xvfb-run` (Mesa's software Vulkan is
enough), then lays the pictures side by side with Pillow:

- default-maps.png: the default preset's preview, texture and splat;
- preset-<name>.png: each article preset's preview, texture and viewer;
- viewer-default.png: the whole viewer window on the default preset;
- viewer-ground-level.png: the default preset from a placed camera;
- erosion-before-after.png: eroded-mountains before (after stage 2) and
  after its erosion stages.
"""

import argparse
import subprocess
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
# The viewer's 3D area inside a 1280x800 window: right of the side panel,
# above the status bar.
VIEW_BOX = (360, 0, 1280, 765)
PRESETS = [
    "article-000-hills-and-pits",
    "article-003-diamond-square",
    "three-terrain-hill",
    "three-terrain-hill-island",
]


def run(args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def generate(orogen, recipe, texture, out):
    run([orogen, "generate", "--recipe", recipe, "--texture", str(texture), "--out", str(out)])
    return out


def screenshot(orogen, recipe, out, stage=None, look=None):
    args = [
        "xvfb-run", "-a", "-s", "-screen 0 1280x800x24",
        orogen, "view", "--recipe", recipe, "--screenshot", str(out), "--frames", "3",
    ]
    if stage is not None:
        args += ["--stage", str(stage)]
    if look is not None:
        args += ["--look-from", look[0], "--look-at", look[1]]
    run(args)
    return Image.open(out).convert("RGB")


def cover(image, width, height):
    """`image` scaled to cover width x height, centred and cropped."""
    scale = max(width / image.width, height / image.height)
    scaled = image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)
    left = (scaled.width - width) // 2
    top = (scaled.height - height) // 2
    return scaled.crop((left, top, left + width, top + height))


def row(panels, gap, height):
    """Pictures side by side on white, `gap` pixels apart."""
    width = sum(p.width for p in panels) + gap * (len(panels) - 1)
    sheet = Image.new("RGB", (width, height), "white")
    x = 0
    for p in panels:
        sheet.paste(p, (x, 0))
        x += p.width + gap
    return sheet


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orogen", default=str(ROOT / "target" / "release" / "orogen"))
    orogen = parser.parse_args().orogen
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)

        out = generate(orogen, "default", 1024, tmp / "default")
        maps = [
            Image.open(out / name).convert("RGB").resize((384, 384), Image.LANCZOS)
            for name in ["heightmap.preview.png", "texture.png", "splat.png"]
        ]
        row(maps, 10, 384).save(IMAGES / "default-maps.png")

        window = screenshot(orogen, "default", tmp / "viewer-default.png")
        window.save(IMAGES / "viewer-default.png")
        low = screenshot(
            orogen, "default", tmp / "ground.png", look=("100,140,950", "600,40,500")
        ).crop(VIEW_BOX)
        cover(low, 800, 500).save(IMAGES / "viewer-ground-level.png")

        for name in PRESETS:
            out = generate(orogen, name, 512, tmp / name)
            preview = Image.open(out / "heightmap.preview.png").convert("RGB")
            texture = Image.open(out / "texture.png").convert("RGB")
            view = screenshot(orogen, name, tmp / f"{name}-view.png").crop(VIEW_BOX)
            panels = [
                preview.resize((300, 300), Image.LANCZOS),
                texture.resize((300, 300), Image.LANCZOS),
                cover(view, 383, 300),
            ]
            row(panels, 8, 300).save(IMAGES / f"preset-{name}.png")

        before = screenshot(orogen, "eroded-mountains", tmp / "before.png", stage=2).crop(VIEW_BOX)
        after = screenshot(orogen, "eroded-mountains", tmp / "after.png").crop(VIEW_BOX)
        row([cover(before, 648, 435), cover(after, 648, 435)], 10, 435).save(
            IMAGES / "erosion-before-after.png"
        )


if __name__ == "__main__":
    main()
