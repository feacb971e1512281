#!/usr/bin/env python3
"""Runs landlab's ErosionDeposition (Davy & Lague "xi-q" erosion with
sediment transport and deposition) on a raw heightmap, as an outside
reference for orogen's river-sediment step.

    scripts/peer/landlab_sediment.py --raw IN.f32 --size WxH --cell-size C \\
        --k K --m M --g G --dt DT --steps S \\
        --out-heights OUT.f32 --out-deposit DEP.f32 \\
        [--substeps N] [--solver adaptive|basic] [--depressions none|lakes]

The model is

    dh/dt = -K * q^m * S + v_s * Qs / q          (n = 1, no uplift)

with q = runoff * A (runoff 1 m/yr, so q = A, drainage area in m²),
S the slope to the D8 steepest-descent receiver (diagonals sqrt(2)*C),
and Qs (m³/yr) the sediment flux *leaving* the cell: what comes in from
upstream plus the cell's own net erosion times its area. With runoff 1
this is Yuan et al. (2019)'s  -K A^m S + (G/A) * Qs  with v_s = G.

Input and output maps are raw little-endian float32, row-major, W columns
by H rows, first row = north. landlab numbers rows from the south, so rows
are flipped going in and flipped back coming out; the written maps are in
the input's row order. All four edges are fixed-height outlets
(landlab FIXED_VALUE); only interior nodes change.

Each of the S steps is cut into N equal sub-steps (--substeps, default 1);
each sub-step reroutes flow (FlowAccumulator, D8, no depression handling
unless --depressions lakes, which adds landlab's DepressionFinderAndRouter)
and then advances DT/N years with ErosionDeposition(K=K, v_s=G, m_sp=M,
n_sp=1, F_f=0, sp_crit=0). ErosionDeposition is explicit in time, so N
must be large enough: the largest K * A^m * (DT/N) / L over the run (L the
distance to the receiver) is printed on stderr as "courant", with a
warning above 0.1. "basic" (default) takes each DT/N in one forward-Euler
step. "adaptive" further splits each DT/N so that no node overtakes its
receiver, but keeps the receivers fixed meanwhile: where deposition raises
a receiver towards its donor it halves its step again and again (tens of
thousands of inner steps per 1000 years) and can still leave pits, so it
is no substitute for a larger N.

Writes the final heights and the deposit map max(0, final - initial), and
prints one line

    landlab eroded_m3 X deposited_m3 Y

with X = sum max(0, initial - final) * C² and Y = sum max(0, final -
initial) * C². Sub-step counts, pit counts and timing go to stderr.
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np


def fail(msg):
    print(f"landlab_sediment: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description="Run landlab ErosionDeposition on a raw heightmap.")
    ap.add_argument("--raw", required=True, help="raw little-endian float32 heights, row-major, north row first")
    ap.add_argument("--size", required=True, help="WxH, e.g. 129x129")
    ap.add_argument("--cell-size", type=float, required=True, help="metres between cells")
    ap.add_argument("--k", type=float, required=True, help="erodibility K (1/yr * m^(1-2m))")
    ap.add_argument("--m", type=float, required=True, help="area exponent m")
    ap.add_argument("--g", type=float, required=True, help="dimensionless deposition coefficient G (v_s = G with runoff 1)")
    ap.add_argument("--dt", type=float, required=True, help="time step, years")
    ap.add_argument("--steps", type=int, required=True, help="number of steps")
    ap.add_argument("--out-heights", required=True, help="final heights, raw float32, same layout as input")
    ap.add_argument("--out-deposit", required=True, help="max(0, final - initial), raw float32, same layout")
    ap.add_argument("--substeps", type=int, default=1,
                    help="sub-steps per step, flow rerouted before each (default 1)")
    ap.add_argument("--solver", choices=("adaptive", "basic"), default="basic",
                    help="ErosionDeposition solver (default basic)")
    ap.add_argument("--depressions", choices=("none", "lakes"), default="none",
                    help="depression handling in flow routing (default none)")
    args = ap.parse_args()

    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        fail(f"--size {args.size}: expected WxH")
    if w < 3 or h < 3:
        fail(f"--size {args.size}: need at least 3x3")
    if not args.cell_size > 0:
        fail("--cell-size must be positive")
    if not args.dt > 0:
        fail("--dt must be positive")
    if args.steps < 1:
        fail("--steps must be at least 1")
    if args.substeps < 1:
        fail("--substeps must be at least 1")
    if args.g < 0 or args.k < 0:
        fail("--k and --g must not be negative")
    if not os.path.isfile(args.raw):
        fail(f"{args.raw}: no such file")
    if os.path.getsize(args.raw) != 4 * w * h:
        fail(f"{args.raw}: {os.path.getsize(args.raw)} bytes, expected {4 * w * h} for {w}x{h} float32")
    # landlab 2.9 warns about its own grid sorting on every grid built.
    warnings.filterwarnings("ignore", message="'where' used without 'out'")
    try:
        from landlab import RasterModelGrid
        from landlab.components import ErosionDeposition, FlowAccumulator
    except ImportError:
        fail("python3 package landlab is not installed (pip install landlab==2.9.2)")

    initial = np.fromfile(args.raw, dtype="<f4").reshape(h, w).astype(np.float64)
    if not np.isfinite(initial).all():
        fail(f"{args.raw}: heights hold NaN or infinity")

    # landlab node 0 is the south-west corner and rows run northwards.
    grid = RasterModelGrid((h, w), xy_spacing=args.cell_size)
    z = grid.add_field("topographic__elevation", np.flipud(initial).ravel().copy(), at="node")
    grid.status_at_node[grid.boundary_nodes] = grid.BC_NODE_IS_FIXED_VALUE

    fa_kwargs = {"flow_director": "D8", "runoff_rate": 1.0}
    if args.depressions == "lakes":
        fa_kwargs["depression_finder"] = "DepressionFinderAndRouter"
    fa = FlowAccumulator(grid, **fa_kwargs)
    ed = ErosionDeposition(grid, K=args.k, v_s=args.g, m_sp=args.m, n_sp=1.0,
                           sp_crit=0.0, F_f=0.0, solver=args.solver)

    # Count the solver's inner steps (one sediment solve each).
    substeps = [0]
    solve = ed._calc_qs_in_and_depo_rate

    def counted_solve():
        substeps[0] += 1
        solve()

    ed._calc_qs_in_and_depo_rate = counted_solve

    core = grid.core_nodes
    node_ids = np.arange(grid.number_of_nodes)
    pits_first = pits_last = 0
    t0 = time.perf_counter()
    sub_dt = args.dt / args.substeps
    courant = 0.0
    for step in range(args.steps * args.substeps):
        fa.run_one_step()
        rcv = grid.at_node["flow__receiver_node"]
        pits = int(np.count_nonzero(rcv[core] == node_ids[core]))
        if step == 0:
            pits_first = pits
        pits_last = pits
        q = grid.at_node["surface_water__discharge"]
        lengths = grid.length_of_d8[grid.at_node["flow__link_to_receiver_node"]]
        courant = max(courant, float(np.max(args.k * q[core] ** args.m * sub_dt / lengths[core])))
        ed.run_one_step(dt=sub_dt)
    wall = time.perf_counter() - t0

    if courant > 0.1:
        print(f"landlab_sediment: warning: courant {courant:.3g} > 0.1, "
              f"raise --substeps for a converged result", file=sys.stderr)
    if not np.isfinite(z).all():
        fail("solver produced NaN or infinity (time step too large for --solver basic?)")
    final = np.flipud(z.reshape(h, w))
    diff = final - initial
    deposit = np.maximum(0.0, diff)
    cell_area = args.cell_size * args.cell_size
    eroded = float(np.maximum(0.0, -diff).sum() * cell_area)
    deposited = float(deposit.sum() * cell_area)

    final.astype("<f4").tofile(args.out_heights)
    deposit.astype("<f4").tofile(args.out_deposit)

    print(f"landlab eroded_m3 {eroded:.6g} deposited_m3 {deposited:.6g}")
    print(f"landlab_sediment: {w}x{h} cells, {args.steps} steps of {args.dt:g} yr, "
          f"{args.substeps} reroutes per step, solver {args.solver}, "
          f"{substeps[0]} solver steps, courant {courant:.3g}, "
          f"pits first/last step {pits_first}/{pits_last}, "
          f"max deposit {deposit.max():.4g} m, max erosion {(-diff).max():.4g} m, "
          f"{wall:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
