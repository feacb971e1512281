#!/usr/bin/env python3
"""Judge an orogen export's derived maps against fastscapelib.

Reads an export folder holding heightmap.exr (true heights), lakes.png
and flow.png (from `orogen generate --formats exr --maps lakes,flow`) and
heightmap.json, then, with fastscapelib alone:

- lakes: fills the float heights with fastscapelib's priority flood
  (PFloodSinkResolver) and compares the cells raised by more than 1 cm
  with the cells lakes.png marks deeper than 1 cm (intersection over
  union);
- flow: routes the float heights with fastscapelib's D8 router (closed
  basins resolved by its minimum spanning tree) and rank-correlates its
  drainage area with flow.png (Spearman).

Prints one JSON object: {"lake_iou", "lake_cells_orogen", "lake_cells_library",
"flow_spearman", "cells"}. Exit status 2 with one line on bad input.
"""
import json, os, sys

import numpy as np


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def read_png(path):
    from PIL import Image
    if not os.path.isfile(path):
        fail(f"{path}: no such file (export with --maps lakes,flow)")
    with Image.open(path) as im:
        return np.asarray(im).astype(np.float64)


def ranks(values):
    """Average ranks (ties share their mean rank), as Spearman needs."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    ranks = np.empty(values.size, dtype=np.float64)
    start = 0
    n = values.size
    while start < n:
        end = start
        while end + 1 < n and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranks[order[start:end + 1]] = 0.5 * (start + end)
        start = end + 1
    return ranks


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ra -= ra.mean()
    rb -= rb.mean()
    denominator = np.sqrt((ra * ra).sum() * (rb * rb).sum())
    return float((ra * rb).sum() / denominator) if denominator > 0 else float("nan")


def main():
    if len(sys.argv) != 2:
        fail("usage: maps-check.py EXPORT_FOLDER")
    folder = sys.argv[1]
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "drainage_check", os.path.join(os.path.dirname(os.path.abspath(__file__)), "drainage-check.py"))
    drainage = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(drainage)
    try:
        heights = drainage.read_exr(os.path.join(folder, "heightmap.exr")).astype(np.float64)
        _, side = drainage.find_sidecar(os.path.join(folder, "heightmap.exr"))
    except drainage.InputError as e:
        fail(str(e))
    if side is None:
        fail(f"{folder}: no heightmap.json")
    if side.get("flip_y"):
        heights = heights[::-1]
    cell = float(side["cell_size"])
    lakes = read_png(os.path.join(folder, "lakes.png")) / 100.0
    flow = read_png(os.path.join(folder, "flow.png"))
    if side.get("flip_y"):
        lakes, flow = lakes[::-1], flow[::-1]
    if lakes.shape != heights.shape or flow.shape != heights.shape:
        fail(f"map sizes differ: heights {heights.shape}, lakes {lakes.shape}, flow {flow.shape}")

    import fastscapelib as fs
    rows, cols = heights.shape
    grid = fs.RasterGrid([rows, cols], [cell, cell], fs.NodeStatus.FIXED_VALUE)
    flood = fs.FlowGraph(grid, [fs.PFloodSinkResolver(), fs.SingleFlowRouter()])
    filled = np.asarray(flood.update_routes(heights)).reshape(rows, cols)
    library_lakes = (filled - heights) > 0.01
    orogen_lakes = lakes > 0.01
    union = np.logical_or(library_lakes, orogen_lakes).sum()
    inter = np.logical_and(library_lakes, orogen_lakes).sum()

    d8 = fs.FlowGraph(grid, [fs.SingleFlowRouter(), fs.MSTSinkResolver()])
    d8.update_routes(heights)
    area = np.asarray(d8.accumulate(1.0)).ravel() * cell * cell

    print(json.dumps({
        "lake_iou": float(inter / union) if union else 1.0,
        "lake_cells_orogen": int(orogen_lakes.sum()),
        "lake_cells_library": int(library_lakes.sum()),
        "flow_spearman": spearman(flow.ravel(), area),
        "cells": int(heights.size),
    }))


if __name__ == "__main__":
    main()
