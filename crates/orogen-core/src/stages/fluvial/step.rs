//! One stream-power step: uplift, routing with depressions carved out,
//! drainage area, and the implicit incision solve of Braun & Willett
//! (2013), walked from the outlets upstream.

use crate::hydro::{Outlets, Routing, drainage_cells, link_length};
use rayon::prelude::*;

/// The numbers one step needs, in metres and years.
#[derive(Clone, Copy, Debug)]
pub struct StepParams {
    /// Erodibility K, yr⁻¹ m^(1−2m).
    pub erodibility: f64,
    /// Area exponent m.
    pub area_exponent: f64,
    /// Slope exponent n.
    pub slope_exponent: f64,
    /// Years in the step.
    pub dt: f64,
    /// Metres between neighbouring cells.
    pub cell_size: f64,
    /// Where water leaves the map.
    pub outlets: Outlets,
    /// The height water leaving the map falls to: an outlet above it
    /// erodes towards it one cell away, so edges that start high wear
    /// down with the land behind them instead of standing as walls.
    /// `None` holds outlets fixed.
    pub base_level: Option<f32>,
}

/// Edges of the grid whose outlets keep their height instead of eroding
/// towards the base level: the edges where a block of a fine level is cut
/// out of the world (the world goes on beyond them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeldEdges {
    /// Row 0.
    pub north: bool,
    /// The last row.
    pub south: bool,
    /// Column 0.
    pub west: bool,
    /// The last column.
    pub east: bool,
}

impl HeldEdges {
    /// Whether cell `i` of a `width × height` grid lies on a held edge.
    #[inline]
    pub fn holds(&self, i: usize, width: usize, height: usize) -> bool {
        let (x, y) = (i % width, i / width);
        (self.west && x == 0)
            || (self.east && x + 1 == width)
            || (self.north && y == 0)
            || (self.south && y + 1 == height)
    }

    /// Whether any edge is held.
    pub fn any(&self) -> bool {
        self.north || self.south || self.west || self.east
    }
}

/// What a step saw, for progress and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepReport {
    /// Closed basins routed out through their pass.
    pub pits_resolved: usize,
}

/// Drainage areas below this many cells take A^m from a table: most cells
/// drain few cells, and `powf` is most of the solve's cost otherwise.
const AREA_TABLE: usize = 4096;

/// `cells^m · cell_area^m` for small cell counts (index = cells).
fn area_factors(m: f64, cell_area: f64) -> Vec<f64> {
    let scale = cell_area.powf(m);
    (0..AREA_TABLE)
        .map(|c| (c as f64).powf(m) * scale)
        .collect()
}

#[inline]
fn area_factor(table: &[f64], cells: u32, m: f64, cell_area: f64) -> f64 {
    match table.get(cells as usize) {
        Some(&f) => f,
        None => (cells as f64).powf(m) * cell_area.powf(m),
    }
}

/// Erodes `heights` (already uplifted) by one implicit stream-power step
/// over `routing`, with `cells` the drainage area in cells. An outlet
/// erodes towards the base level one cell beyond it.
///
/// Each cell is solved after its receiver. It erodes towards the level
/// water stands at in its receiver: the receiver's new height, or the
/// surface of the lake the receiver lies in (the highest new height on
/// the receiver's way out). So rivers fill lakes to their spill level
/// and stop there; they never dig a closed basin deeper. A cell not
/// above that level (a lake bottom, a carved path) is left as it is: the
/// solve never raises a cell. One pass in drainage order, on one
/// thread: the bytes cannot depend on the thread count.
pub fn incise(heights: &mut [f32], routing: &Routing, cells: &[u32], p: &StepParams) {
    incise_held(heights, routing, cells, p, HeldEdges::default());
}

/// [`incise`], with the outlets on `held` edges kept at their height.
pub fn incise_held(
    heights: &mut [f32],
    routing: &Routing,
    cells: &[u32],
    p: &StepParams,
    held: HeldEdges,
) {
    let cell_area = p.cell_size * p.cell_size;
    let table = area_factors(p.area_exponent, cell_area);
    let k_dt = p.erodibility * p.dt;
    let width = routing.width;
    let n = p.slope_exponent;
    let len = heights.len();
    let rows = len / width.max(1);
    let mut level = vec![0f32; len];
    let h = heights;
    for &i in &routing.order {
        let (i, r) = (i as usize, routing.receivers[i as usize] as usize);
        let (base, distance) = if r == i {
            match p.base_level {
                Some(base) if !(held.any() && held.holds(i, width, rows)) => (base, p.cell_size),
                _ => {
                    level[i] = h[i];
                    continue;
                }
            }
        } else {
            let length = link_length(i as u32, r as u32, width) as f64;
            (level[r], length * p.cell_size)
        };
        if h[i] <= base {
            level[i] = base;
            continue;
        }
        let a_m = area_factor(&table, cells[i], p.area_exponent, cell_area);
        h[i] = solve_cell(h[i] as f64, base as f64, k_dt * a_m, distance, n) as f32;
        // Rounding to f32 may land on the base itself, never below.
        h[i] = h[i].max(base);
        level[i] = h[i];
    }
}

/// The new height of a cell at `h` above its receiver's new height `hr`:
/// h' − h + K·dt·A^m·((h' − hr)/d)^n = 0, directly for n = 1, by Newton
/// otherwise (always between `hr` and `h`).
#[inline]
pub fn solve_cell(h: f64, hr: f64, k_dt_am: f64, distance: f64, n: f64) -> f64 {
    if n == 1.0 {
        let f = k_dt_am / distance;
        return (h + f * hr) / (1.0 + f);
    }
    let f = k_dt_am / distance.powf(n);
    let x0 = h - hr;
    let mut x = x0;
    for _ in 0..50 {
        let g = x - x0 + f * x.powf(n);
        let dg = 1.0 + n * f * x.powf(n - 1.0);
        let mut next = x - g / dg;
        if next <= 0.0 {
            next = x * 0.5;
        }
        let done = (next - x).abs() <= 1e-12 * x0.max(1e-6);
        x = next;
        if done {
            break;
        }
    }
    hr + x
}

/// One whole step on `heights` (row-major, `width` wide): adds
/// `uplift[i]·dt` to every cell that is not an outlet, routes, counts
/// drainage area and incises. Diffusion is separate ([`super::diffusion`]).
pub fn stream_power_step(
    heights: &mut [f32],
    width: usize,
    uplift: Option<&[f32]>,
    p: &StepParams,
) -> (Routing, StepReport) {
    stream_power_step_held(heights, width, uplift, p, HeldEdges::default())
}

/// [`stream_power_step`], with the outlets on `held` edges kept at their
/// height (a block's cut edges).
pub fn stream_power_step_held(
    heights: &mut [f32],
    width: usize,
    uplift: Option<&[f32]>,
    p: &StepParams,
    held: HeldEdges,
) -> (Routing, StepReport) {
    if let Some(uplift) = uplift {
        uplift_cells(heights, width, uplift, p);
    }
    let routing = Routing::new(heights, width, &p.outlets);
    let cells = drainage_cells(&routing);
    incise_held(heights, &routing, &cells, p, held);
    let report = StepReport {
        pits_resolved: routing.pits_resolved,
    };
    (routing, report)
}

/// Raises every non-outlet cell by its uplift rate times dt.
pub fn uplift_cells(heights: &mut [f32], width: usize, uplift: &[f32], p: &StepParams) {
    let height = heights.len() / width;
    let dt = p.dt as f32;
    heights
        .par_chunks_mut(width)
        .zip(uplift.par_chunks(width))
        .enumerate()
        .for_each(|(y, (row, up))| {
            for (x, (h, &u)) in row.iter_mut().zip(up).enumerate() {
                if !p.outlets.is_outlet(x, y, width, height, *h) {
                    *h += u * dt;
                }
            }
        });
}
