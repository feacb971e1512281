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
  after its fluvial erosion;
- viewer-closeup-4097.png: the default world sampled at 4097² from the
  ground, the GPU terrain above and `--cpu-terrain` below (the script
  prints each one's sharpness, the mean absolute Laplacian of its lower
  half);
- viewer-overview-8193.png: the whole window on the default world at 8193²;
- viewer-cliff-triplanar.png: a cliff of the default world raised to
  380 m, GPU (triplanar rock) left, `--cpu-terrain` (stretched) right.
"""

import argparse
import re
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


def screenshot(orogen, recipe, out, stage=None, look=None, cpu=False):
    args = [
        "xvfb-run", "-a", "-s", "-screen 0 1280x800x24",
        orogen, "view", "--recipe", recipe, "--screenshot", str(out), "--frames", "3",
    ]
    if cpu:
        args.append("--cpu-terrain")
    if stage is not None:
        args += ["--stage", str(stage)]
    if look is not None:
        args += ["--look-from", look[0], "--look-at", look[1]]
    run(args)
    return Image.open(out).convert("RGB")


def default_world(orogen, out, side, highest=None):
    """The default preset sampled at side² (heights up to `highest`), as a file."""
    text = subprocess.run(
        [orogen, "presets", "show", "default"], check=True, capture_output=True, text=True
    ).stdout
    text = text.replace("size: (width: 513, height: 513)", f"size: (width: {side}, height: {side})")
    if highest is not None:
        text = re.sub(r"max: 150\.0", f"max: {highest:.1f}", text)
    out.write_text(text)
    return str(out)


def sharpness(image):
    """Mean absolute Laplacian of the lower half (the ground), grey levels."""
    grey = image.convert("L")
    w, h = grey.size
    px = grey.load()
    total, count = 0.0, 0
    for y in range(h // 2 + 1, h - 1):
        for x in range(1, w - 1):
            total += abs(4 * px[x, y] - px[x - 1, y] - px[x + 1, y] - px[x, y - 1] - px[x, y + 1])
            count += 1
    return total / count


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

        # The GPU terrain: the panel widens with the refinement list, so
        # these keep the window's right 860 pixels.
        right = (420, 0, 1280, 765)
        world = default_world(orogen, tmp / "default-4097.ron", 4097)
        look = ("250,32,400", "330,45,400")
        gpu = screenshot(orogen, world, tmp / "close-gpu.png", look=look).crop(right)
        cpu = screenshot(orogen, world, tmp / "close-cpu.png", look=look, cpu=True).crop(right)
        print(f"close-up sharpness: GPU {sharpness(gpu):.2f}, CPU {sharpness(cpu):.2f}")
        stacked = Image.new("RGB", (860, 765 * 2 + 8), "white")
        stacked.paste(gpu, (0, 0))
        stacked.paste(cpu, (0, 765 + 8))
        stacked.resize((645, (765 * 2 + 8) * 3 // 4), Image.LANCZOS).save(
            IMAGES / "viewer-closeup-4097.png"
        )

        world = default_world(orogen, tmp / "default-8193.ron", 8193)
        screenshot(orogen, world, tmp / "overview.png").save(IMAGES / "viewer-overview-8193.png")

        world = default_world(orogen, tmp / "cliff.ron", 1025, highest=380.0)
        look = ("560,150,680", "517,230,503")
        gpu = screenshot(orogen, world, tmp / "cliff-gpu.png", look=look).crop(right)
        cpu = screenshot(orogen, world, tmp / "cliff-cpu.png", look=look, cpu=True).crop(right)
        row([cover(gpu, 645, 574), cover(cpu, 645, 574)], 10, 574).save(
            IMAGES / "viewer-cliff-triplanar.png"
        )

        before = screenshot(orogen, "eroded-mountains", tmp / "before.png", stage=2).crop(VIEW_BOX)
        after = screenshot(orogen, "eroded-mountains", tmp / "after.png").crop(VIEW_BOX)
        row([cover(before, 648, 435), cover(after, 648, 435)], 10, 435).save(
            IMAGES / "erosion-before-after.png"
        )


if __name__ == "__main__":
    main()
