//! Hydraulic erosion: the particle (droplet) model of Hans Theobald Beyer,
//! "Implementation of a method for hydraulic erosion" (2015).
//!
//! Each droplet rolls downhill with inertia, picks up sediment up to a
//! capacity set by its speed, water and slope, deposits when it slows or
//! climbs, and evaporates. Erosion is spread over a brush of cells.
//!
//! Parallel and deterministic: the map is cut into square tiles wider than
//! twice the farthest a droplet can reach (lifetime + brush + 2 cells).
//! Tiles are processed in four colours (a 2x2 checkerboard); same-colour
//! tiles never touch the same cells, so each simulates its droplets on a
//! copy of its neighbourhood in parallel and writes it back. Each tile
//! draws from its own seeded sub-stream, so the result does not depend on
//! the thread count.

use super::{StageContext, StageError, StageOp};
use crate::terrain::heightmap::Heightmap;
use crate::terrain::params::{ParamVisitor, Params};
use crate::terrain::rng::{StageRng, at_word, unit_f32};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HydraulicErosion {
    pub droplets: u32,
    pub max_lifetime: u32,
    pub inertia: f32,
    pub capacity: f32,
    pub min_capacity: f32,
    pub erosion: f32,
    pub deposition: f32,
    pub evaporation: f32,
    pub gravity: f32,
    pub brush_radius: u32,
}

impl Default for HydraulicErosion {
    fn default() -> Self {
        Self {
            droplets: 200_000,
            max_lifetime: 30,
            inertia: 0.05,
            capacity: 4.0,
            min_capacity: 0.01,
            erosion: 0.3,
            deposition: 0.3,
            evaporation: 0.01,
            gravity: 4.0,
            brush_radius: 3,
        }
    }
}

impl Params for HydraulicErosion {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.int(
            "droplets",
            &mut self.droplets,
            0..=50_000_000,
            "Number of water droplets simulated.",
        );
        v.int(
            "max_lifetime",
            &mut self.max_lifetime,
            1..=256,
            "Steps a droplet lives (it moves one cell per step).",
        );
        v.float(
            "inertia",
            &mut self.inertia,
            0.0..=0.99,
            "How much a droplet keeps its direction instead of following the slope.",
        );
        v.float(
            "capacity",
            &mut self.capacity,
            0.0..=64.0,
            "Sediment capacity factor: more carves deeper gullies.",
        );
        v.float(
            "min_capacity",
            &mut self.min_capacity,
            0.0..=10.0,
            "Capacity floor, so droplets on flat ground still erode a little.",
        );
        v.float(
            "erosion",
            &mut self.erosion,
            0.0..=1.0,
            "Fraction of free capacity taken from the ground per step.",
        );
        v.float(
            "deposition",
            &mut self.deposition,
            0.0..=1.0,
            "Fraction of surplus sediment dropped per step.",
        );
        v.float(
            "evaporation",
            &mut self.evaporation,
            0.0..=1.0,
            "Fraction of water lost per step.",
        );
        v.float(
            "gravity",
            &mut self.gravity,
            0.0..=100.0,
            "Acceleration downhill.",
        );
        v.int(
            "brush_radius",
            &mut self.brush_radius,
            1..=16,
            "Radius in cells over which erosion is spread.",
        );
    }
}

/// Totals of one run, for conservation checks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ErosionBudget {
    pub eroded: f64,
    pub deposited: f64,
    /// Sediment carried off the map's edges.
    pub lost: f64,
}

impl ErosionBudget {
    fn add(&mut self, o: &ErosionBudget) {
        self.eroded += o.eroded;
        self.deposited += o.deposited;
        self.lost += o.lost;
    }
}

/// Brush offsets and normalised weights (linear falloff).
fn brush(radius: i64) -> Vec<(i64, i64, f32)> {
    let mut cells = Vec::new();
    let mut total = 0.0;
    for dy in -radius..=radius {
        for dx in -radius..=radius {
            let d = ((dx * dx + dy * dy) as f32).sqrt();
            if d <= radius as f32 {
                let w = 1.0 - d / radius as f32;
                if w > 0.0 {
                    cells.push((dx, dy, w));
                    total += w;
                }
            }
        }
    }
    cells.iter_mut().for_each(|c| c.2 /= total);
    cells
}

/// A window of the map that one tile simulates on.
struct Window {
    x0: usize,
    y0: usize,
    w: usize,
    h: usize,
    data: Vec<f32>,
}

impl Window {
    fn height_and_gradient(&self, px: f32, py: f32) -> (f32, f32, f32) {
        let (ix, iy) = (px as usize, py as usize);
        let (u, v) = (px - ix as f32, py - iy as f32);
        let i = iy * self.w + ix;
        let (nw, ne) = (self.data[i], self.data[i + 1]);
        let (sw, se) = (self.data[i + self.w], self.data[i + self.w + 1]);
        let gx = (ne - nw) * (1.0 - v) + (se - sw) * v;
        let gy = (sw - nw) * (1.0 - u) + (se - ne) * u;
        let height =
            nw * (1.0 - u) * (1.0 - v) + ne * u * (1.0 - v) + sw * (1.0 - u) * v + se * u * v;
        (height, gx, gy)
    }
}

impl HydraulicErosion {
    /// Farthest a droplet's effect reaches from its start, in cells.
    fn reach(&self) -> usize {
        self.max_lifetime as usize + self.brush_radius as usize + 2
    }

    /// Runs and returns the material budget.
    pub fn erode(&self, map: &mut Heightmap, rng: &StageRng) -> ErosionBudget {
        let (mw, mh) = (map.width(), map.height());
        if mw < 3 || mh < 3 || self.droplets == 0 {
            return ErosionBudget::default();
        }
        let reach = self.reach();
        let tile = (2 * reach + 2).max(64);
        let (tiles_x, tiles_y) = (mw.div_ceil(tile), mh.div_ceil(tile));
        let tile_count = tiles_x * tiles_y;
        let brush = brush(self.brush_radius as i64);
        // Cells in tiles 0..t (row-major), for an exact split of droplets.
        let mut cells_before = vec![0u64; tile_count + 1];
        for t in 0..tile_count {
            let (tx, ty) = (t % tiles_x, t / tiles_x);
            let tw = ((tx + 1) * tile).min(mw) - tx * tile;
            let th = ((ty + 1) * tile).min(mh) - ty * tile;
            cells_before[t + 1] = cells_before[t] + (tw * th) as u64;
        }
        let total_cells = (mw * mh) as u64;
        let droplets = self.droplets as u64;
        let droplets_before = |t: usize| droplets * cells_before[t] / total_cells;
        let mut budget = ErosionBudget::default();
        for colour in 0..4 {
            let members: Vec<usize> = (0..tile_count)
                .filter(|&t| (t % tiles_x) % 2 + 2 * ((t / tiles_x) % 2) == colour)
                .collect();
            let source = &*map;
            let results: Vec<(Window, ErosionBudget)> = members
                .par_iter()
                .map(|&t| {
                    let (tx, ty) = (t % tiles_x, t / tiles_x);
                    let (sx0, sy0) = (tx * tile, ty * tile);
                    let (sx1, sy1) = (((tx + 1) * tile).min(mw), ((ty + 1) * tile).min(mh));
                    let (x0, y0) = (sx0.saturating_sub(reach), sy0.saturating_sub(reach));
                    let (x1, y1) = ((sx1 + reach).min(mw), (sy1 + reach).min(mh));
                    let mut window = Window {
                        x0,
                        y0,
                        w: x1 - x0,
                        h: y1 - y0,
                        data: Vec::with_capacity((x1 - x0) * (y1 - y0)),
                    };
                    for y in y0..y1 {
                        window.data.extend_from_slice(&source.row(y)[x0..x1]);
                    }
                    // Droplets per tile in proportion to its area, fixed by
                    // position, not by scheduling.
                    let count = (droplets_before(t + 1) - droplets_before(t)) as usize;
                    let flat_brush: Vec<(isize, f32)> = brush
                        .iter()
                        .map(|&(bx, by, bw)| ((by * window.w as i64 + bx) as isize, bw))
                        .collect();
                    let mut r = at_word(rng, (t as u128) << 40);
                    let mut b = ErosionBudget::default();
                    for _ in 0..count {
                        let px = sx0 as f32 + unit_f32(&mut r) * (sx1 - sx0) as f32;
                        let py = sy0 as f32 + unit_f32(&mut r) * (sy1 - sy0) as f32;
                        let (px, py) = (px.min(mw as f32 - 1.001), py.min(mh as f32 - 1.001));
                        self.droplet(
                            &mut window,
                            &brush,
                            &flat_brush,
                            px - x0 as f32,
                            py - y0 as f32,
                            &mut b,
                        );
                    }
                    (window, b)
                })
                .collect();
            for (window, b) in results {
                for y in 0..window.h {
                    let dst = &mut map.data_mut()[(window.y0 + y) * mw + window.x0..][..window.w];
                    dst.copy_from_slice(&window.data[y * window.w..(y + 1) * window.w]);
                }
                budget.add(&b);
            }
        }
        budget
    }

    /// One droplet on a window; positions are window-relative.
    fn droplet(
        &self,
        win: &mut Window,
        brush: &[(i64, i64, f32)],
        flat_brush: &[(isize, f32)],
        mut px: f32,
        mut py: f32,
        budget: &mut ErosionBudget,
    ) {
        let (mut dx, mut dy) = (0.0f32, 0.0f32);
        let (mut speed, mut water, mut sediment) = (1.0f32, 1.0f32, 0.0f32);
        for _ in 0..self.max_lifetime {
            let (ix, iy) = (px as usize, py as usize);
            let (u, v) = (px - ix as f32, py - iy as f32);
            let (height, gx, gy) = win.height_and_gradient(px, py);
            dx = dx * self.inertia - gx * (1.0 - self.inertia);
            dy = dy * self.inertia - gy * (1.0 - self.inertia);
            let len = (dx * dx + dy * dy).sqrt();
            if len <= 1e-12 {
                break;
            }
            dx /= len;
            dy /= len;
            let (nx, ny) = (px + dx, py + dy);
            // Windows reach past every droplet's range, so leaving the
            // window means leaving the map: the sediment is carried away.
            if nx < 0.0 || ny < 0.0 || nx >= (win.w - 1) as f32 || ny >= (win.h - 1) as f32 {
                budget.lost += sediment as f64;
                return;
            }
            let (new_height, _, _) = win.height_and_gradient(nx, ny);
            let dh = new_height - height;
            let capacity = (-dh * speed * water * self.capacity).max(self.min_capacity);
            let i = iy * win.w + ix;
            if sediment > capacity || dh > 0.0 {
                let amount = if dh > 0.0 {
                    dh.min(sediment)
                } else {
                    (sediment - capacity) * self.deposition
                };
                sediment -= amount;
                let w = win.w;
                win.data[i] += amount * (1.0 - u) * (1.0 - v);
                win.data[i + 1] += amount * u * (1.0 - v);
                win.data[i + w] += amount * (1.0 - u) * v;
                win.data[i + w + 1] += amount * u * v;
                budget.deposited += amount as f64;
            } else {
                let amount = ((capacity - sediment) * self.erosion).min(-dh);
                let r = self.brush_radius as usize;
                if ix >= r && iy >= r && ix + r < win.w && iy + r < win.h {
                    // The whole brush is inside: flat offsets, no checks.
                    for &(offset, bw) in flat_brush {
                        let taken = amount * bw;
                        win.data[i.wrapping_add_signed(offset)] -= taken;
                        sediment += taken;
                        budget.eroded += taken as f64;
                    }
                } else {
                    self.erode_clipped(win, brush, ix, iy, amount, &mut sediment, budget);
                }
            }
            speed = (speed * speed + dh * self.gravity).max(0.0).sqrt();
            water *= 1.0 - self.evaporation;
            px = nx;
            py = ny;
        }
        self.settle(win, px, py, sediment, budget);
    }

    /// Erosion with a brush that crosses the window's edge.
    #[allow(clippy::too_many_arguments)]
    fn erode_clipped(
        &self,
        win: &mut Window,
        brush: &[(i64, i64, f32)],
        ix: usize,
        iy: usize,
        amount: f32,
        sediment: &mut f32,
        budget: &mut ErosionBudget,
    ) {
        for &(bx, by, bw) in brush {
            let (cx, cy) = (ix as i64 + bx, iy as i64 + by);
            if cx < 0 || cy < 0 || cx >= win.w as i64 || cy >= win.h as i64 {
                continue;
            }
            let taken = amount * bw;
            win.data[cy as usize * win.w + cx as usize] -= taken;
            *sediment += taken;
            budget.eroded += taken as f64;
        }
    }

    /// End of life on the map: what the droplet carries settles where it
    /// stopped.
    fn settle(
        &self,
        win: &mut Window,
        px: f32,
        py: f32,
        sediment: f32,
        budget: &mut ErosionBudget,
    ) {
        let (ix, iy) = (px as usize, py as usize);
        let (u, v) = (px - ix as f32, py - iy as f32);
        let i = iy * win.w + ix;
        let w = win.w;
        win.data[i] += sediment * (1.0 - u) * (1.0 - v);
        win.data[i + 1] += sediment * u * (1.0 - v);
        win.data[i + w] += sediment * (1.0 - u) * v;
        win.data[i + w + 1] += sediment * u * v;
        budget.deposited += sediment as f64;
    }
}

impl StageOp for HydraulicErosion {
    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        self.erode(map, &ctx.rng);
        Ok(())
    }
}
