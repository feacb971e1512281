#!/usr/bin/env python3
"""Times one stream-power step of fastscapelib, for a side-by-side bench
against orogen's erosion on the same map.

    scripts/peer/fastscape_step.py --raw FILE.f32 --size WxH --cell-size D \\
        [--k 1e-3] [--m 0.4] [--n 1] [--dt 1000] [--steps 9]

Loads a raw little-endian float32 heightmap (row-major, north row first),
builds a fastscapelib `RasterGrid` (spacing D, all four edges
FIXED_VALUE), a `FlowGraph` with `SingleFlowRouter()` then
`MSTSinkResolver()`, and an `SPLEroder(k_coef=K, area_exp=M,
slope_exp=N)`. Each timed step is

    flow_graph.update_routes(elevation)        # D8 + depression routing
    area = flow_graph.accumulate(1.0)          # drainage area (m²)
    erosion = spl_eroder.erode(elevation, area, dt)
    elevation -= erosion

(fastscapelib 0.3's `SPLEroder.erode` takes the drainage area as an
argument, so the accumulation is part of the step.) No uplift, no
diffusion. Steps run one after another on the evolving map; each is timed
with `time.perf_counter`, and the median and minimum are printed:

    fastscapelib step_ms median M min X steps N

fastscapelib (pip wheel, tested with 0.3.0) runs these on one thread; the
BLAS/OpenMP thread variables are set to 1 all the same, and the ratio of
process CPU time to wall time is printed on stderr as a check.
"""
import os

for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
            "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ[var] = "1"

import argparse, statistics, sys, time

import numpy as np


def fail(msg):
    print(f"fastscape_step: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description="Time fastscapelib stream-power steps.")
    ap.add_argument("--raw", required=True, help="raw little-endian float32 heights, row-major")
    ap.add_argument("--size", required=True, help="WxH, e.g. 1025x1025")
    ap.add_argument("--cell-size", type=float, required=True, help="metres between cells")
    ap.add_argument("--k", type=float, default=1e-3, help="erodibility K (default 1e-3)")
    ap.add_argument("--m", type=float, default=0.4, help="area exponent m (default 0.4)")
    ap.add_argument("--n", type=float, default=1.0, help="slope exponent n (default 1)")
    ap.add_argument("--dt", type=float, default=1000.0, help="time step, years (default 1000)")
    ap.add_argument("--steps", type=int, default=9, help="timed steps (default 9)")
    args = ap.parse_args()

    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        fail(f"--size {args.size}: expected WxH")
    if w < 3 or h < 3:
        fail(f"--size {args.size}: need at least 3x3")
    if not args.cell_size > 0:
        fail("--cell-size must be positive")
    if args.steps < 1:
        fail("--steps must be at least 1")
    if not os.path.isfile(args.raw):
        fail(f"{args.raw}: no such file")
    if os.path.getsize(args.raw) != 4 * w * h:
        fail(f"{args.raw}: {os.path.getsize(args.raw)} bytes, expected {4 * w * h} for {w}x{h} float32")
    try:
        import fastscapelib as fs
    except ImportError:
        fail("python3 package fastscapelib is not installed (pip install fastscapelib)")

    elevation = np.fromfile(args.raw, dtype="<f4").reshape(h, w).astype(np.float64)
    if not np.isfinite(elevation).all():
        fail(f"{args.raw}: heights hold NaN or infinity")

    grid = fs.RasterGrid([h, w], [args.cell_size, args.cell_size], fs.NodeStatus.FIXED_VALUE)
    flow_graph = fs.FlowGraph(grid, [fs.SingleFlowRouter(), fs.MSTSinkResolver()])
    spl_eroder = fs.SPLEroder(flow_graph, k_coef=args.k, area_exp=args.m, slope_exp=args.n)

    times, cpu0, wall0 = [], time.process_time(), time.perf_counter()
    for _ in range(args.steps):
        t = time.perf_counter()
        flow_graph.update_routes(elevation)
        area = flow_graph.accumulate(1.0)
        erosion = spl_eroder.erode(elevation, area, args.dt)
        elevation -= erosion
        times.append(time.perf_counter() - t)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0

    print(f"fastscapelib step_ms median {1000 * statistics.median(times):.1f} "
          f"min {1000 * min(times):.1f} steps {args.steps}")
    print(f"fastscape_step: {w}x{h} cells, cpu/wall {cpu / wall:.2f}, "
          f"mean erosion of last step {float(np.mean(erosion)):.3g} m", file=sys.stderr)


if __name__ == "__main__":
    main()
