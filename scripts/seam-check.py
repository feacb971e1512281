#!/usr/bin/env python3
"""Seams along the block edges of fluvial erosion run by blocks.

    scripts/seam-check.py MAP.f32 SIZE CELL BLOCK

MAP.f32: raw little-endian float32, SIZE x SIZE cells, north row first
(the `float_heights` example writes it); CELL: metres between cells;
BLOCK: the block size in cells of the map's own level. The block edges
are the lines x = k*BLOCK and y = k*BLOCK inside the map. Compares the
mean slope (central differences) and the mean |curvature| (the 5-point
Laplacian) of the 4-cell bands along the edge lines (2 cells each side)
with the same bands along the lines halfway between them (x = k*BLOCK +
BLOCK/2): those fall on the coarse levels' cell edges just as the block
edges do (the kinks of the carried-up facets lie there), so a map
eroded without blocks gives 1.0 too, while the rest of the map (cells
16 or more from every edge line, also printed) does not. Prints:

    slope_ratio R curvature_ratio C rest_slope_ratio R2 rest_curvature_ratio C2 band_cells N

(R and C within 0.95..1.05: no seam.)
"""
import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("map")
    ap.add_argument("size", type=int)
    ap.add_argument("cell", type=float)
    ap.add_argument("block", type=int)
    a = ap.parse_args()
    n = a.size
    z = np.fromfile(a.map, dtype="<f4").reshape(n, n).astype(np.float64)
    gy, gx = np.gradient(z, a.cell)
    slope = np.hypot(gx, gy)[1:-1, 1:-1]
    lap = (z[:-2, 1:-1] + z[2:, 1:-1] + z[1:-1, :-2] + z[1:-1, 2:] - 4 * z[1:-1, 1:-1]) / a.cell**2
    curv = np.abs(lap)
    idx = np.arange(1, n - 1)
    lines = np.arange(a.block, n - 1, a.block)
    if len(lines) == 0:
        raise SystemExit("seam-check: the map holds no block edge")
    # Signed offset from the nearest edge line (the edge lies between
    # cells line-1 and line): the band is line-2 .. line+1.
    off = idx[:, None] - lines[None, :]
    near = off[np.arange(len(idx)), np.argmin(np.abs(off + 0.5), axis=1)]
    in_band = (near >= -2) & (near <= 1)
    far = np.abs(near + 0.5) >= 16
    band = in_band[:, None] | in_band[None, :]
    rest = far[:, None] & far[None, :]
    mids = lines - a.block // 2
    moff = idx[:, None] - mids[None, :]
    mnear = moff[np.arange(len(idx)), np.argmin(np.abs(moff + 0.5), axis=1)]
    in_mid = (mnear >= -2) & (mnear <= 1) & ~in_band
    mid = (in_mid[:, None] | in_mid[None, :]) & ~band
    print(f"slope_ratio {slope[band].mean() / slope[mid].mean():.4f} "
          f"curvature_ratio {curv[band].mean() / curv[mid].mean():.4f} "
          f"rest_slope_ratio {slope[band].mean() / slope[rest].mean():.4f} "
          f"rest_curvature_ratio {curv[band].mean() / curv[rest].mean():.4f} band_cells {int(band.sum())}")


if __name__ == "__main__":
    main()
