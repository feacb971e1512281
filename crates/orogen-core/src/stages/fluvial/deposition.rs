//! Sediment transport and deposition in the implicit stream-power step:
//! the model of Yuan et al. (2019), solved as fastscape solves it,
//!
//! ∂h/∂t = U − K·A^m·S^n + (G/A)·Qs,
//!
//! where Qs is the sediment flux entering a cell (m³/yr): the net erosion
//! of every cell upstream, ∫(U − ∂h/∂t) dA. G (dimensionless) is how
//! readily sediment settles: a river deposits G times its load spread over
//! its drainage area, so it drops sediment where the slope no longer pays
//! for carrying it (fans where a channel leaves the mountains, alluvium on
//! valley floors). It is the ξ–q model of Davy & Lague (2009) with a
//! settling velocity of G times the runoff, and reaches the same steady
//! state (a steep fan joining a shallower plain).
//!
//! Why this model and not ξ–q with its own sub-steps: the deposition
//! term is linear in the flux, so each step stays an implicit solve in
//! drainage order, stable at the long steps the coarse level takes. The
//! flux and the heights depend on each other; Gauss–Seidel sweeps (the
//! flux from the last sweep's heights, then the heights from that flux)
//! shrink the change by about G/(1+G) a sweep: 126 m to 0.7 mm in 16
//! sweeps at G = 1 on a 129² level of 50,000-year steps. Larger G settles
//! more slowly: near G = 2 a step stopped at a 1 mm sweep was still 7 mm
//! RMS from the settled answer on small maps, where up to G = 1 it is
//! within 1 mm (`tests/sediment.rs`), so G is capped at 1; a step stops
//! after [`MAX_SWEEPS`] at most.
//!
//! Water standing in a lake (a cell below the level water stood at in
//! its receiver before the step, and below its receiver now) drops
//! everything it carries, up to that level: closed basins fill with
//! sediment up to their spill level. What leaves at an outlet is gone.
//!
//! A cell covered by sediment erodes at the sediment's erodibility (a
//! share of K, as fastscape's `kfsed`; under less than [`COVER`] it
//! blends towards the rock's); the sediment layer thickens where the
//! step raised the cell and thins, down to bedrock, where it lowered it.

use super::step::{StepParams, area_factor, area_factors, link_lengths, solve_cell, target};
use crate::hydro::{FlowGrid, Routing, fill_levels};

/// How sediment settles and erodes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SedimentParams {
    /// G: the deposition coefficient (0: no deposition).
    pub deposition: f64,
    /// The erodibility of sediment as a share of the rock's K.
    pub sediment_share: f64,
}

/// Sweeps at most per step: the flux and the heights alternate until no
/// cell moves by more than [`SETTLED`] (or the change is [`SETTLED_RMS`]).
pub const MAX_SWEEPS: usize = 40;

/// Metres: a sweep that moved no cell by more than this ends the step.
pub const SETTLED: f32 = 1e-3;

/// Metres: a sweep whose root-mean-square change is this or less ends
/// the step too. A few cells at the edge of a lake can flip in and out of
/// it from sweep to sweep by a centimetre; they need not hold the whole
/// map's sweeps (measured when every level deposited: a 513² level
/// stopped after 16 sweeps instead of the cap of 40).
pub const SETTLED_RMS: f64 = 1e-4;

/// Metres of sediment that cover the rock entirely: a thinner layer
/// (the fringe that carrying a level up spreads, a film left by the last
/// step) erodes between rock and sediment, in proportion.
pub const COVER: f32 = 0.1;

/// The erodibility share of a cell under `layer` metres of sediment over
/// rock of share `rock`.
pub fn share_under(layer: f32, rock: f64, sediment: f64) -> f64 {
    let covered = (layer / COVER).min(1.0) as f64;
    rock + (sediment - rock) * covered
}

/// Erodes and deposits on `heights` (already uplifted) by one implicit
/// step over `routing`, the sediment layer `sediment` (metres, ≥ 0)
/// following; with `FILL`, also returns each cell's fill level over the
/// same routing (see [`super::step::incise_with_levels`]), else an empty
/// vector. One pass per sweep in drainage order and one back, on one
/// thread: the bytes cannot depend on the thread count.
pub fn incise_depositing<const FILL: bool>(
    heights: &mut [f32],
    sediment: &mut [f32],
    routing: &Routing,
    grid: &FlowGrid,
    erodibility: Option<&[f32]>,
    p: &StepParams,
    s: &SedimentParams,
) -> Vec<f32> {
    let sweeps = Sweeps {
        most: MAX_SWEEPS,
        settled: SETTLED,
        settled_rms: SETTLED_RMS,
        direct: true,
    };
    incise_depositing_with::<FILL>(heights, sediment, routing, grid, erodibility, p, s, sweeps)
}

/// How long the sweeps of a step go on.
#[derive(Clone, Copy, Debug)]
pub struct Sweeps {
    /// Sweeps at most.
    pub most: usize,
    /// Metres: a sweep that moved no cell by more than this is the last.
    pub settled: f32,
    /// Metres: so is a sweep whose root-mean-square change is this or less.
    pub settled_rms: f64,
    /// For n = 1, solve directly first ([`super::direct`]); the sweeps run
    /// only when its clamps do not settle.
    pub direct: bool,
}

/// [`incise_depositing`] with its sweeps set by `sweeps` (the tests'
/// converged solve).
#[allow(clippy::too_many_arguments)]
pub fn incise_depositing_with<const FILL: bool>(
    heights: &mut [f32],
    sediment: &mut [f32],
    routing: &Routing,
    grid: &FlowGrid,
    erodibility: Option<&[f32]>,
    p: &StepParams,
    s: &SedimentParams,
    sweeps: Sweeps,
) -> Vec<f32> {
    let cells_n = heights.len();
    let cell_area = p.cell_size * p.cell_size;
    let table = area_factors(p.area_exponent, cell_area);
    let area_scale = cell_area.powf(p.area_exponent);
    let k_dt = p.erodibility * p.dt;
    let width = routing.width;
    let n = p.slope_exponent;
    let (axis, diagonal) = link_lengths(p);
    let (receivers, cells, status, order) = (
        &routing.receivers,
        &routing.cells,
        &grid.status,
        &routing.order,
    );
    // K·dt·A^m of each cell, rock or sediment: the same every sweep.
    let cut_of = |i: usize| {
        let rock = erodibility.map_or(1.0, |e| e[i] as f64);
        let share = share_under(sediment[i], rock, s.sediment_share);
        k_dt * area_factor(&table, cells[i], p.area_exponent, area_scale) * share
    };
    // Solved directly: the sweeps' fixed point exactly. Where the clamps
    // do not settle (a cell at a lake's edge that is a lake only if it
    // passes its load on, so that no clamp of it holds), the sweeps run
    // from the start as they do without it.
    let cut: Vec<f64> = (0..cells_n).map(cut_of).collect();
    if sweeps.direct && n == 1.0 {
        let solved = super::direct::solve_direct(routing, grid, p, s, heights, &cut);
        if let Some(solved) = solved {
            // The layer follows, as `settle` has it.
            for (&i, &after) in order.iter().zip(&solved) {
                let i = i as usize;
                sediment[i] = (sediment[i] + (after - heights[i])).max(0.0);
                heights[i] = after;
            }
            return if FILL {
                fill_levels(heights, routing)
            } else {
                Vec::new()
            };
        }
    }
    let start = heights.to_vec();
    let h = heights;
    // The level water stood at in each cell before the step (its start
    // height or its receiver's, whichever is higher): a cell below its
    // receiver's is in a lake. Not the receiver's level during the step:
    // a river aggrading by more than its bed drops over a cell would make
    // the cell above a lake of its own, filled flat instead of building
    // the slope that carries the load on.
    let still = fill_levels(&start, routing);
    let mut level = vec![0f32; cells_n];
    // Sediment entering each cell over the step, m³.
    let mut flux = vec![0f64; cells_n];
    for sweep in 0..sweeps.most {
        if sweep > 0 {
            // Upstream first: each cell passes on what entered it plus
            // what it lost (less what it gained) this step.
            flux.fill(0.0);
            for &i in order.iter().rev() {
                let (i, r) = (i as usize, receivers[i as usize] as usize);
                if r != i {
                    let out = flux[i] + (start[i] - h[i]) as f64 * cell_area;
                    flux[r] += out.max(0.0);
                }
            }
        }
        let mut moved = 0f32;
        let mut squares = 0f64;
        for &i in order {
            let (i, r) = (i as usize, receivers[i as usize] as usize);
            let old = h[i];
            'cell: {
                // An outlet: what reaches it leaves the map.
                let Some((base, distance)) =
                    target(i, r, &level, status, p, width, (axis, diagonal))
                else {
                    level[i] = start[i];
                    break 'cell;
                };
                let in_lake = if r == i {
                    start[i] <= base
                } else {
                    start[i] < base && start[i] < still[r]
                };
                if in_lake {
                    // Standing water drops all it carries, up to its level
                    // (a cell level with its receiver is a flat river bed:
                    // it aggrades as any other).
                    let laid = (flux[i] / cell_area) as f32;
                    let settled = if r == i {
                        start[i]
                    } else {
                        (start[i] + laid).min(base).max(start[i])
                    };
                    h[i] = settled;
                    level[i] = base;
                    break 'cell;
                }
                let laid = if r == i {
                    0.0
                } else {
                    s.deposition * flux[i] / (cells[i] as f64 * cell_area)
                };
                let solved = (solve_cell(start[i] as f64 + laid, base as f64, cut[i], distance, n)
                    as f32)
                    .max(base);
                h[i] = solved;
                level[i] = solved;
            }
            let change = h[i] - old;
            moved = moved.max(change.abs());
            squares += (change as f64) * (change as f64);
        }
        let rms = (squares / cells_n as f64).sqrt();
        if sweep > 0 && (moved <= sweeps.settled || rms <= sweeps.settled_rms) {
            break;
        }
    }
    settle(sediment, &start, h);
    if FILL {
        fill_levels(h, routing)
    } else {
        Vec::new()
    }
}

/// The sediment layer after a change from `before` to `after`: thicker
/// where the cell rose, thinner (down to bedrock) where it was lowered.
pub fn settle(layer: &mut [f32], before: &[f32], after: &[f32]) {
    for ((layer, &after), &before) in layer.iter_mut().zip(after).zip(before) {
        *layer = (*layer + (after - before)).max(0.0);
    }
}
