#!/usr/bin/env python3
"""Judges a heightmap's drainage with an outside library (fastscapelib).

    scripts/drainage-check.py FOLDER_OR_EXR [--cell-size METRES] [--min-area 2000] [--json]
    scripts/drainage-check.py MAP.f32 --size WxH --cell-size METRES [...]
    [--deposits LAID.f32 [--deposit-limit 0.1]]

No orogen code is used: the heights are read with the OpenEXR package
(both the 3.x `OpenEXR.File` API and the older `InputFile` one) and
routed by fastscapelib (pip package `fastscapelib`, tested with 0.3.0).

Input
  * an orogen export folder holding `heightmap.exr` (one float channel,
    world heights) and its `heightmap.json` sidecar, whose `cell_size`
    (world units between neighbouring cells, taken as metres) gives the
    spacing and whose `flip_y` says whether rows run south first;
  * or an `.exr` file, its sidecar looked up beside it as orogen does
    (`<stem>.json`, then `heightmap.json`);
  * or a raw little-endian float32 file (row-major, north row first) with
    `--size WxH` and `--cell-size`.
  `--cell-size` always overrides the sidecar.

Routing
  `RasterGrid` with the cell size as spacing and all four edges
  FIXED_VALUE (base level); `FlowGraph` with `SingleFlowRouter()` (D8)
  then `MSTSinkResolver()` (default Kruskal basins, carved routes), so
  every cell drains to an edge. Drainage area A = `accumulate(1.0)`:
  a uniform source of 1 per unit area integrated over each node's
  upslope cells, i.e. m² when the spacing is in metres (each node
  counts its full cell area, edges included).

Channel slope
  For each cell whose receiver is not itself, S = (h - h_receiver) / d
  with the ORIGINAL (unfilled) heights, the graph's receiver and its
  distance d (spacing or diagonal). Only cells with A >= --min-area
  (default 2000 m²) and S > 0 are kept ("channel cells"); carved cells
  inside depressions, which climb to their receiver, drop out.

Flint's law  S = k A^-θ
  log10(A) of the channel cells is binned in bins 0.1 wide (edges on
  multiples of 0.1); each bin with at least 10 cells gives its centre
  and the mean of log10(S) there. A least-squares line
  log10 S = a - θ log10 A over those points gives θ (positive: concave
  profiles, slope falling downstream) and r² of that binned fit. The
  binning weights each decade of area equally instead of letting the
  many small-area cells dominate; fewer than 3 bins give θ and r² of
  NaN (null in JSON).

  With `--deposits FILE` (raw float32 thickness of laid-down sediment,
  north row first, as orogen's `float_heights` example writes it),
  channel cells carrying `--deposit-limit` (default 0.1 m) or more drop
  out of the fit: alluvial channels on fans and basin floors are
  transport-limited, their slope set by the load they carry, and Flint's
  law describes bedrock channels. Their count is reported as
  `alluvial_cells`.

Closed pits
  Interior cells strictly lower than all 8 neighbours, as a percentage of
  all cells.

Output, one line
  theta 0.423  r2 0.981  pits 0.000%  cells N  channel_cells M
  or with --json: {"theta", "r2", "pits_percent", "cells", "channel_cells"}.
Bad or missing input: one line on stderr, exit status 2.
"""
import argparse, json, math, os, sys

import numpy as np


class InputError(Exception):
    pass


def read_exr(path):
    """Heights of a one-channel float EXR as a (rows, cols) float32 array."""
    try:
        import OpenEXR
    except ImportError:
        raise InputError("python3 package OpenEXR is not installed (pip install OpenEXR)")
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    try:
        if hasattr(OpenEXR, "File"):
            channels = OpenEXR.File(path).channels()
            names = list(channels)
            name = names[0] if len(names) == 1 else ("R" if "R" in names else None)
            if name is None:
                raise InputError(f"{path}: expected one height channel, found {names}")
            a = np.asarray(channels[name].pixels)
            if a.ndim != 2:
                raise InputError(f"{path}: channel {name} has shape {a.shape}, expected 2-D")
        else:
            import Imath
            f = OpenEXR.InputFile(path)
            header = f.header()
            names = list(header["channels"])
            name = names[0] if len(names) == 1 else ("R" if "R" in names else None)
            if name is None:
                raise InputError(f"{path}: expected one height channel, found {names}")
            dw = header["dataWindow"]
            width, height = dw.max.x - dw.min.x + 1, dw.max.y - dw.min.y + 1
            raw = f.channel(name, Imath.PixelType(Imath.PixelType.FLOAT))
            a = np.frombuffer(raw, dtype="<f4").reshape(height, width)
    except InputError:
        raise
    except Exception as e:  # OpenEXR raises assorted types on bad files
        raise InputError(f"{path}: cannot read as EXR ({e})")
    return np.asarray(a, dtype=np.float32)


def find_sidecar(exr_path):
    """The sidecar beside a height file: `<stem>.json`, then `heightmap.json`."""
    folder = os.path.dirname(os.path.abspath(exr_path))
    stem = os.path.splitext(os.path.basename(exr_path))[0]
    for name in (f"{stem}.json", "heightmap.json"):
        p = os.path.join(folder, name)
        if os.path.isfile(p):
            try:
                with open(p) as f:
                    side = json.load(f)
            except (OSError, ValueError) as e:
                raise InputError(f"{p}: not readable JSON ({e})")
            if not isinstance(side, dict) or "cell_size" not in side:
                raise InputError(f"{p}: not an orogen sidecar (no cell_size)")
            return p, side
    return None, None


def parse_size(text):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InputError(f"--size {text}: expected WxH, e.g. 513x513")
    if w < 3 or h < 3:
        raise InputError(f"--size {text}: need at least 3x3 cells")
    return w, h


def load(args):
    """(heights north row first as float64, cell size in metres, source)."""
    src = args.input
    if src.lower().endswith(".f32"):
        if args.size is None:
            raise InputError(f"{src}: a raw .f32 file needs --size WxH")
        if args.cell_size is None:
            raise InputError(f"{src}: a raw .f32 file needs --cell-size METRES")
        w, h = parse_size(args.size)
        if not os.path.isfile(src):
            raise InputError(f"{src}: no such file")
        n = os.path.getsize(src)
        if n != 4 * w * h:
            raise InputError(f"{src}: {n} bytes, expected {4 * w * h} for {w}x{h} float32")
        heights = np.fromfile(src, dtype="<f4").reshape(h, w)
        return heights.astype(np.float64), args.cell_size
    if os.path.isdir(src):
        exr = os.path.join(src, "heightmap.exr")
        if not os.path.isfile(exr):
            raise InputError(f"{src}: no heightmap.exr in this folder (export with an exr height file)")
    elif os.path.isfile(src):
        exr = src
    else:
        raise InputError(f"{src}: no such file or folder")
    heights = read_exr(exr)
    side_path, side = find_sidecar(exr)
    if side is not None:
        want = (side.get("height"), side.get("width"))
        if want != heights.shape:
            raise InputError(f"{exr}: {heights.shape[1]}x{heights.shape[0]} cells but "
                             f"{side_path} says {want[1]}x{want[0]}")
        if side.get("flip_y"):
            heights = heights[::-1]
    cell = args.cell_size
    if cell is None:
        if side is None:
            raise InputError(f"{exr}: no heightmap.json beside it; pass --cell-size METRES")
        try:
            cell = float(side["cell_size"])
        except (TypeError, ValueError):
            raise InputError(f"{side_path}: cell_size {side['cell_size']!r} is not a number")
    return heights.astype(np.float64), cell


def closed_pits(h):
    """Count of interior cells strictly lower than all 8 neighbours."""
    c = h[1:-1, 1:-1]
    low = np.ones(c.shape, dtype=bool)
    rows, cols = h.shape
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy or dx:
                low &= c < h[1 + dy:rows - 1 + dy, 1 + dx:cols - 1 + dx]
    return int(low.sum())


def flint_fit(area, slope, min_cells=10, width=0.1):
    """θ and r² of log10 S = a - θ log10 A over 0.1-wide log-area bins."""
    la, ls = np.log10(area), np.log10(slope)
    idx = np.floor(la / width + 1e-9).astype(np.int64)
    if idx.size == 0:
        return math.nan, math.nan, 0
    idx -= idx.min()
    counts = np.bincount(idx)
    sums = np.bincount(idx, weights=ls)
    keep = counts >= min_cells
    if keep.sum() < 3:
        return math.nan, math.nan, int(keep.sum())
    base = math.floor(la.min() / width + 1e-9)
    centres = (np.nonzero(keep)[0] + base + 0.5) * width
    means = sums[keep] / counts[keep]
    coef = np.polyfit(centres, means, 1)
    fitted = np.polyval(coef, centres)
    ss_res = float(((means - fitted) ** 2).sum())
    ss_tot = float(((means - means.mean()) ** 2).sum())
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else math.nan
    return float(-coef[0]), r2, int(keep.sum())


def analyse(heights, cell, min_area, deposits=None, deposit_limit=0.1):
    import fastscapelib as fs
    rows, cols = heights.shape
    grid = fs.RasterGrid([rows, cols], [cell, cell], fs.NodeStatus.FIXED_VALUE)
    graph = fs.FlowGraph(grid, [fs.SingleFlowRouter(), fs.MSTSinkResolver()])
    graph.update_routes(heights)  # returns a (maybe filled) copy; unused
    area = graph.accumulate(1.0).ravel()
    impl = graph.impl()
    rcv = np.asarray(impl.receivers)[:, 0]
    dist = np.asarray(impl.receivers_distance)[:, 0]
    h = heights.ravel()
    flows = rcv != np.arange(h.size)
    slope = np.zeros(h.size)
    slope[flows] = (h[flows] - h[rcv[flows]]) / dist[flows]
    chan = flows & (area >= min_area) & (slope > 0)
    alluvial = np.zeros(h.size, dtype=bool)
    if deposits is not None:
        alluvial = chan & (deposits.ravel() >= deposit_limit)
        chan &= ~alluvial
    theta, r2, _bins = flint_fit(area[chan], slope[chan])
    return {
        "theta": theta,
        "r2": r2,
        "pits_percent": 100.0 * closed_pits(heights) / h.size,
        "cells": int(h.size),
        "channel_cells": int(chan.sum()),
        "alluvial_cells": int(alluvial.sum()),
    }


def main():
    ap = argparse.ArgumentParser(description="Drainage check with fastscapelib: "
                                 "Flint's-law concavity and closed pits.")
    ap.add_argument("input", help="orogen export folder, heightmap .exr, or raw .f32")
    ap.add_argument("--cell-size", type=float, help="metres between cells (overrides the sidecar)")
    ap.add_argument("--size", help="WxH of a raw .f32 file")
    ap.add_argument("--min-area", type=float, default=2000.0,
                    help="smallest drainage area of a channel cell, m² (default 2000)")
    ap.add_argument("--deposits", help="raw float32 deposit thickness (the heights' layout): "
                    "channel cells carrying --deposit-limit or more leave the Flint fit")
    ap.add_argument("--deposit-limit", type=float, default=0.1,
                    help="deposit thickness (m) from which a channel is alluvial (default 0.1)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    try:
        if args.cell_size is not None and not (args.cell_size > 0 and math.isfinite(args.cell_size)):
            raise InputError(f"--cell-size {args.cell_size}: must be a positive number")
        heights, cell = load(args)
        if not (cell > 0 and math.isfinite(cell)):
            raise InputError(f"cell size {cell}: must be a positive number")
        if min(heights.shape) < 3:
            raise InputError(f"{args.input}: {heights.shape[1]}x{heights.shape[0]} cells, need at least 3x3")
        if not np.isfinite(heights).all():
            raise InputError(f"{args.input}: heights hold NaN or infinity")
        deposits = None
        if args.deposits is not None:
            if not os.path.isfile(args.deposits):
                raise InputError(f"{args.deposits}: no such file")
            deposits = np.fromfile(args.deposits, dtype="<f4")
            if deposits.size != heights.size:
                raise InputError(f"{args.deposits}: {deposits.size} values, the heights have {heights.size}")
            deposits = deposits.reshape(heights.shape)
        try:
            import fastscapelib  # noqa: F401
        except ImportError:
            raise InputError("python3 package fastscapelib is not installed (pip install fastscapelib)")
    except InputError as e:
        print(f"drainage-check: {e}", file=sys.stderr)
        sys.exit(2)
    r = analyse(heights, cell, args.min_area, deposits, args.deposit_limit)
    if args.json:
        print(json.dumps({k: (None if isinstance(v, float) and math.isnan(v) else v)
                          for k, v in r.items()}))
    else:
        print(f"theta {r['theta']:.3f}  r2 {r['r2']:.3f}  pits {r['pits_percent']:.3f}%  "
              f"cells {r['cells']}  channel_cells {r['channel_cells']}")


if __name__ == "__main__":
    main()
