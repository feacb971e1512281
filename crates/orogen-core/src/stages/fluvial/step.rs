//! One stream-power step, composed of separate pieces: uplift, routing
//! with depressions carved out and the drainage area ([`Routing`]), and
//! the stream-power eroder, the implicit incision solve of Braun & Willett
//! (2013) walked from the outlets upstream ([`incise`]).

use super::deposition::share_under;
use crate::hydro::{Edges, FlowGrid, NodeStatus, Outlets, Routing};
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
    /// Edges whose outlets keep their height instead of eroding towards
    /// the base level: where a block of a fine level is cut out of the
    /// world (the world goes on beyond them).
    pub held: Edges,
    /// The height water leaving the map falls to: an outlet above it
    /// erodes towards it one cell away, so edges that start high wear
    /// down with the land behind them instead of standing as walls.
    /// `None` holds outlets fixed.
    pub base_level: Option<f32>,
}

/// The per-cell inputs of a step: both in the step's cells, row-major.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepFields<'a> {
    /// Uplift rate of each cell, m/yr; None: no uplift.
    pub uplift: Option<&'a [f32]>,
    /// Each cell's erodibility as a share of [`StepParams::erodibility`]
    /// (hard rock below 1); None: 1 everywhere.
    pub erodibility: Option<&'a [f32]>,
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

/// `cells^m · cell_area^m` for small cell counts (index = cells). Kept
/// per thread for the last (m, cell area): a level's steps all use the
/// same, and the table's 4096 `powf`s (about 0.1 ms) are several per cent
/// of a step at 129².
pub(super) fn area_factors(m: f64, cell_area: f64) -> std::rc::Rc<[f64]> {
    /// The bits of m and of the cell area, and their table.
    type Cached = Option<(u64, u64, std::rc::Rc<[f64]>)>;
    thread_local! {
        static LAST: std::cell::RefCell<Cached> = const { std::cell::RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((bm, ba, table)) = last.as_ref()
            && *bm == m.to_bits()
            && *ba == cell_area.to_bits()
        {
            return table.clone();
        }
        let scale = cell_area.powf(m);
        let table: std::rc::Rc<[f64]> = (0..AREA_TABLE)
            .map(|c| (c as f64).powf(m) * scale)
            .collect();
        *last = Some((m.to_bits(), cell_area.to_bits(), table.clone()));
        table
    })
}

/// `(cells · cell_area)^m` as `cells^m · scale`, `scale` being
/// `cell_area^m`: from the table below its size, else by one power.
#[inline]
pub(super) fn area_factor(table: &[f64], cells: u32, m: f64, scale: f64) -> f64 {
    match table.get(cells as usize) {
        Some(&f) => f,
        None => (cells as f64).powf(m) * scale,
    }
}

/// Erodes `heights` (already uplifted) by one implicit stream-power step
/// over `routing` on `grid`, each cell's erodibility scaled by
/// `erodibility` when given. An outlet erodes towards the base level one
/// cell beyond it; a held one keeps its height.
///
/// Each cell is solved after its receiver. It erodes towards the level
/// water stands at in its receiver: the receiver's new height, or the
/// surface of the lake the receiver lies in (the highest new height on
/// the receiver's way out). So rivers fill lakes to their spill level
/// and stop there; they never dig a closed basin deeper. A cell not
/// above that level (a lake bottom, a carved path) is left as it is: the
/// solve never raises a cell. One pass in drainage order, on one
/// thread: the bytes cannot depend on the thread count.
pub fn incise(
    heights: &mut [f32],
    routing: &Routing,
    grid: &FlowGrid,
    erodibility: Option<&[f32]>,
    p: &StepParams,
) {
    if erodibility.is_none() && p.slope_exponent == 1.0 {
        incise_walk::<false, true>(heights, routing, grid, None, None, p);
    } else {
        incise_walk::<false, false>(heights, routing, grid, erodibility, None, p);
    }
}

/// A sediment layer the incision cuts into: its thickness per cell
/// (metres, thinned by what the incision takes) and the sediment's
/// erodibility as a share of the rock's ([`share_under`] blends the two).
pub struct CutLayer<'a> {
    /// Thickness per cell.
    pub thickness: &'a mut [f32],
    /// The sediment's erodibility share.
    pub sediment_share: f32,
    /// One bit per cell (cell i: bit i % 64 of word i / 64), set where
    /// the layer is thicker than 0. The walk visits cells in drainage
    /// order, scattered over the map; these bits stay in cache where the
    /// thicknesses would not, so bare rock costs no extra memory access.
    pub covered: &'a [u64],
}

impl<'a> CutLayer<'a> {
    /// The layer `thickness` with its `covered` bits worked out into
    /// `bits` (reused between steps).
    pub fn over(thickness: &'a mut [f32], sediment_share: f32, bits: &'a mut Vec<u64>) -> Self {
        bits.clear();
        bits.resize(thickness.len().div_ceil(64), 0);
        bits.par_iter_mut()
            .zip(thickness.par_chunks(64))
            .for_each(|(word, cells)| {
                *word = cells
                    .iter()
                    .enumerate()
                    .fold(0u64, |w, (k, &t)| w | (((t > 0.0) as u64) << k));
            });
        CutLayer {
            thickness,
            sediment_share,
            covered: bits,
        }
    }

    #[inline]
    fn is_covered(&self, i: usize) -> bool {
        self.covered[i >> 6] >> (i & 63) & 1 != 0
    }
}

/// [`incise`] through a sediment layer: each cell erodes at the share
/// [`share_under`] its layer gives (over the rock's `erodibility`), and
/// the layer loses what the cell is lowered by. The same numbers as
/// working out the shares and thinning the layer in passes of their own,
/// without two more arrays a step.
pub fn incise_layered(
    heights: &mut [f32],
    layer: CutLayer<'_>,
    routing: &Routing,
    grid: &FlowGrid,
    erodibility: Option<&[f32]>,
    p: &StepParams,
) {
    incise_walk::<false, false>(heights, routing, grid, erodibility, Some(layer), p);
}

/// [`incise_layered`], returning the fill levels as
/// [`incise_with_levels`] does.
pub fn incise_layered_with_levels(
    heights: &mut [f32],
    layer: CutLayer<'_>,
    routing: &Routing,
    grid: &FlowGrid,
    erodibility: Option<&[f32]>,
    p: &StepParams,
) -> Vec<f32> {
    incise_walk::<true, false>(heights, routing, grid, erodibility, Some(layer), p)
}

/// [`incise`], returning the level water stands at in each cell of the
/// incised heights over the same routing ([`crate::hydro::fill_levels`])
/// from the same walk: a cell's fill level is its new height or its
/// receiver's fill level, whichever is higher, and the receiver comes
/// first. The same numbers as the two passes, one scattered walk fewer.
pub fn incise_with_levels(
    heights: &mut [f32],
    routing: &Routing,
    grid: &FlowGrid,
    erodibility: Option<&[f32]>,
    p: &StepParams,
) -> Vec<f32> {
    if erodibility.is_none() && p.slope_exponent == 1.0 {
        incise_walk::<true, true>(heights, routing, grid, None, None, p)
    } else {
        incise_walk::<true, false>(heights, routing, grid, erodibility, None, p)
    }
}

/// The incision walk; with `FILL`, also the fill levels of the incised
/// heights (empty without). `PLAIN` is the walk without erodibility
/// shares or a layer and with n = 1 (the callers check): compiled
/// without them, the loop keeps its values in registers (with them, the
/// options were read from the stack every cell).
fn incise_walk<const FILL: bool, const PLAIN: bool>(
    heights: &mut [f32],
    routing: &Routing,
    grid: &FlowGrid,
    erodibility: Option<&[f32]>,
    mut layer: Option<CutLayer<'_>>,
    p: &StepParams,
) -> Vec<f32> {
    let cell_area = p.cell_size * p.cell_size;
    let table = area_factors(p.area_exponent, cell_area);
    let area_scale = cell_area.powf(p.area_exponent);
    let k_dt = p.erodibility * p.dt;
    let width = routing.width;
    let n = p.slope_exponent;
    let (axis, diagonal) = link_lengths(p);
    let mut level = vec![0f32; heights.len()];
    let mut fill = if FILL {
        vec![0f32; heights.len()]
    } else {
        Vec::new()
    };
    let h = heights;
    let status = &grid.status;
    let links = routing.order_receivers.iter().zip(&routing.order_cells);
    for (&i, (&r, &cells)) in routing.order.iter().zip(links) {
        let (i, r) = (i as usize, r as usize);
        'cut: {
            let Some((base, distance)) = target(i, r, &level, status, p, width, (axis, diagonal))
            else {
                level[i] = h[i];
                break 'cut;
            };
            if h[i] <= base {
                level[i] = base;
                break 'cut;
            }
            let mut a_m = area_factor(&table, cells, p.area_exponent, area_scale);
            let covered = !PLAIN && layer.as_ref().is_some_and(|cut| cut.is_covered(i));
            if let (true, Some(cut)) = (covered, &layer) {
                let rock = erodibility.map_or(1.0, |r| r[i] as f64);
                // Rounded to f32 as a share array would hold it. (Bare
                // rock's share is the rock's own: the branch below.)
                let share = share_under(cut.thickness[i], rock, cut.sediment_share as f64) as f32;
                a_m *= share as f64;
            } else if let (false, Some(share)) = (PLAIN, erodibility) {
                a_m *= share[i] as f64;
            }
            let n = if PLAIN { 1.0 } else { n };
            // Rounding to f32 may land on the base itself, never below.
            let solved =
                (solve_cell(h[i] as f64, base as f64, k_dt * a_m, distance, n) as f32).max(base);
            if let (true, Some(cut)) = (covered, &mut layer) {
                let t = &mut cut.thickness[i];
                *t = (*t - (h[i] - solved).max(0.0)).max(0.0);
            }
            h[i] = solved;
            level[i] = solved;
        }
        if FILL {
            fill[i] = if r == i { h[i] } else { h[i].max(fill[r]) };
        }
    }
    fill
}
/// A straight and a diagonal link's length: a diagonal link is √2
/// rounded to f32 cells long, as `hydro::link_length` measures it (the
/// reference's distances).
pub(super) fn link_lengths(p: &StepParams) -> (f64, f64) {
    (
        p.cell_size,
        std::f64::consts::SQRT_2 as f32 as f64 * p.cell_size,
    )
}

/// The level cell `i` erodes towards and how far away it is: the water
/// level in its receiver `r` one link away (`links`: straight and
/// diagonal lengths), or for an outlet the base level one cell beyond;
/// None for an outlet that keeps its height.
#[inline]
pub(super) fn target(
    i: usize,
    r: usize,
    level: &[f32],
    status: &[NodeStatus],
    p: &StepParams,
    width: usize,
    links: (f64, f64),
) -> Option<(f32, f64)> {
    if r == i {
        return match (p.base_level, status[i]) {
            (Some(base), s) if s != NodeStatus::Held => Some((base, p.cell_size)),
            _ => None,
        };
    }
    Some((level[r], link_between(i, r, width, links)))
}

/// The length of the link from cell `i` to its neighbour `r` of a map
/// `width` wide: `links.0` along a row or column, `links.1` on a
/// diagonal.
///
/// Why arithmetic and not `if`: about half the links of a map are
/// diagonal, in no pattern a branch predictor learns, and the compiler
/// makes a branch of the choice (of a select by mask too), which the
/// walks down the drainage order mispredicted every other cell or so: a
/// third of the incision's time at 1025². Weighting the two lengths by 1
/// and 0 has no branch and is exact (x·1 + y·0 = x).
#[inline]
pub(super) fn link_between(i: usize, r: usize, width: usize, links: (f64, f64)) -> f64 {
    let apart = i.abs_diff(r);
    let straight = ((apart == 1) | (apart == width)) as u8 as f64;
    links.0 * straight + links.1 * (1.0 - straight)
}

/// The new height of a cell at `h` above its receiver's new height `hr`:
/// h' − h + K·dt·A^m·((h' − hr)/d)^n = 0, directly for n = 1, by Newton
/// otherwise (always between `hr` and `h`).
#[inline]
pub fn solve_cell(h: f64, hr: f64, k_dt_am: f64, distance: f64, n: f64) -> f64 {
    if n == 1.0 {
        // (h + f·hr)/(1 + f), written so that the divisions do not wait
        // for hr: in the drainage-order walk hr is the receiver's height
        // just solved, and only the multiply-add is left on that chain.
        let f = k_dt_am / distance;
        let inv = 1.0 / (1.0 + f);
        return h * inv + hr * (f * inv);
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

/// One whole step on `heights` over `grid`: adds `uplift[i]·dt` to
/// every core node, routes, counts drainage area and incises; returns the
/// routing it eroded over. Diffusion is separate ([`super::diffusion`]).
pub fn stream_power_step(
    heights: &mut [f32],
    grid: &mut FlowGrid,
    fields: &StepFields,
    p: &StepParams,
) -> (Routing, StepReport) {
    grid.update_sea(heights);
    if let Some(uplift) = fields.uplift {
        uplift_cells(heights, grid, uplift, p.dt);
    }
    let routing = Routing::on_grid(heights, grid);
    incise(heights, &routing, grid, fields.erodibility, p);
    let report = StepReport {
        pits_resolved: routing.pits_resolved,
    };
    (routing, report)
}

/// Raises every core node of `grid` by its uplift rate times `dt` years.
pub fn uplift_cells(heights: &mut [f32], grid: &FlowGrid, uplift: &[f32], dt: f64) {
    let dt = dt as f32;
    heights
        .par_iter_mut()
        .zip(uplift.par_iter().zip(grid.status.par_iter()))
        .for_each(|(h, (&u, &s))| {
            if s == NodeStatus::Core {
                *h += u * dt;
            }
        });
}
