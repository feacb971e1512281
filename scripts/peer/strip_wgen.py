"""Turns wgen's generator modules into a plain library for scripts/peer-bench.sh.

Reads src/generators/{mod,hills,normalize,mid_point,fbm,mudslide,water_erosion}.rs
from a wgen checkout (argument 1) and writes them under argument 2 with the
egui `render_*` functions and the GUI imports removed, the modules orogen is
not compared with dropped, and a droplet-step counter added to the water
erosion (a local count, added to a global once per call, so the loop pays
one integer add per step). Fails loudly when wgen's code no longer
has the expected shape.
"""

import re
import sys
from pathlib import Path

KEPT = ["hills", "normalize", "mid_point", "fbm", "mudslide", "water_erosion"]


def function_span(text, start):
    """The end (exclusive) of the braced body that opens after `start`."""
    depth = 0
    i = text.index("{", start)
    while True:
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1


def strip_render(text):
    while True:
        m = re.search(r"pub fn render_\w+\s*\(", text)
        if not m:
            return text
        text = text[: m.start()] + text[function_span(text, m.start()) :]


def main():
    src = Path(sys.argv[1]) / "src" / "generators"
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for name in KEPT:
        text = (src / f"{name}.rs").read_text()
        text = strip_render(text)
        text = text.replace("use eframe::egui;\n", "")
        if name == "water_erosion":
            text = text.replace(
                "let mut progress = 0.0;",
                "let mut progress = 0.0;\n    let mut steps: u64 = 0;",
                1,
            )
            # A step: a move that stayed on the map and went on to erode or
            # deposit (orogen counts the same).
            text, n = re.subn(
                r"\n(\s+)off = drop\.grid_offset\(size\.0\);",
                r"\n\1off = drop.grid_offset(size.0);\n\1steps += 1;",
                text,
                count=1,
            )
            assert n == 1, "water_erosion.rs: the droplet move was not found"
            start = text.index("pub fn gen_water_erosion")
            end = function_span(text, start)
            text = (
                text[: end - 1]
                + "    crate::STEPS.fetch_add(steps, std::sync::atomic::Ordering::Relaxed);\n}"
                + text[end:]
            )
        (out / f"{name}.rs").write_text(text)
    mod = (src / "mod.rs").read_text()
    mod = re.sub(r"mod (island|landmass);\n", "", mod)
    mod = re.sub(r"pub use (island|landmass)::[^;]*;\n", "", mod)
    mod = re.sub(r"render_\w+,\s*", "", mod)
    (out / "mod.rs").write_text(mod)


if __name__ == "__main__":
    main()
