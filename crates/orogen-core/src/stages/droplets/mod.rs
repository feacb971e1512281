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
//!
//! The tiles are laid on the world from its north-west corner and keyed
//! by their place in it, so a window of the world runs the same tiles
//! with the same droplets: four passes (one per colour) each reach at
//! most a tile and two droplet ranges, so a window grown by four times
//! that computes its own cells exactly as the whole map does.

mod brush;
mod tile;

use super::{Progress, ProgressValue, StageContext, StageError, StageOp};
use crate::heightmap::Heightmap;
use crate::params::{ParamVisitor, Params};
use crate::rng::{StageRng, at_word, unit_f32};
use crate::world_window::WorldWindow;
use brush::{FlatBrush, brush};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use tile::{Flock, LANES, Spot, Window};

/// Hydraulic erosion stage: droplets carve gullies (Beyer 2015).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HydraulicErosion {
    /// Number of droplets simulated over the whole map, 0..=50,000,000.
    pub droplets: u32,
    /// Steps a droplet lives, 1..=256 (it moves one cell per step).
    pub max_lifetime: u32,
    /// How much a droplet keeps its heading against the slope, 0..=0.99.
    pub inertia: f32,
    /// Sediment capacity factor: more carves deeper gullies.
    pub capacity: f32,
    /// Capacity floor, so droplets on flat ground still erode a little.
    pub min_capacity: f32,
    /// Fraction of free capacity taken from the ground per step, 0..=1.
    pub erosion: f32,
    /// Fraction of surplus sediment dropped per step, 0..=1.
    pub deposition: f32,
    /// Fraction of a droplet's water lost per step, 0..=1.
    pub evaporation: f32,
    /// Downhill acceleration: how fast droplets gain speed as they descend.
    pub gravity: f32,
    /// Radius in cells of the brush that spreads each step's erosion, 1..=16.
    pub brush_radius: u32,
    /// The sampling (cells along the world's longer side) at which the
    /// numbers above hold. A finer map runs at its own cells with
    /// droplets counted per area (as many per cell), so its finer cells
    /// carve finer rills; a coarser one (a preview) scales droplets by
    /// area and lifetime and brush by length, so it shows the same
    /// gullies.
    #[serde(default = "default_simulation_size")]
    pub simulation_size: u32,
}

fn default_simulation_size() -> u32 {
    513
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
            simulation_size: default_simulation_size(),
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
        v.int(
            "simulation_size",
            &mut self.simulation_size,
            17..=16_385,
            "Cells along the world's longer side at which droplets, lifetime and brush hold. Finer maps run at their own cells with as many droplets per cell (finer rills); coarser previews scale droplets by area and lifetime and brush by length.",
        );
    }
}

/// Totals of one run, for conservation checks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ErosionBudget {
    /// Height taken from the ground, summed over all cells (world units).
    pub eroded: f64,
    /// Height laid down as sediment, summed over all cells (world units).
    pub deposited: f64,
    /// Sediment carried off the map's edges.
    pub lost: f64,
    /// Droplet steps simulated: one per droplet per move that went on to
    /// erode or deposit (the work a run did, for per-step speed figures).
    pub steps: u64,
}

impl ErosionBudget {
    fn add(&mut self, o: &ErosionBudget) {
        self.eroded += o.eroded;
        self.deposited += o.deposited;
        self.lost += o.lost;
        self.steps += o.steps;
    }
}

impl HydraulicErosion {
    /// Farthest a droplet's effect reaches from its start, in cells.
    fn reach(&self) -> usize {
        self.max_lifetime as usize + self.brush_radius as usize + 2
    }

    /// The parameters for a map `side` cells along the world's longer
    /// side, at most the simulation size: droplets scale with the area in
    /// cells, lifetime and brush with the length, and evaporation per
    /// step so that a droplet loses the same water over the same world
    /// distance.
    pub fn scaled_to(&self, side: usize) -> HydraulicErosion {
        let design = self.simulation_size.max(3) as usize;
        if side >= design {
            return self.clone();
        }
        let q = (side.max(2) - 1) as f64 / (design - 1) as f64;
        let length = |v: u32| ((v as f64 * q).round() as u32).max(1);
        HydraulicErosion {
            droplets: (self.droplets as f64 * q * q).round() as u32,
            max_lifetime: length(self.max_lifetime),
            brush_radius: length(self.brush_radius),
            evaporation: (1.0 - (1.0 - self.evaporation as f64).powf(1.0 / q)) as f32,
            ..self.clone()
        }
    }

    /// Runs on `map` as the whole world and returns the material budget.
    pub fn erode(&self, map: &mut Heightmap, rng: &StageRng) -> ErosionBudget {
        let whole = WorldWindow::whole(map.width(), map.height());
        self.erode_placed(map, rng, &whole, self.droplets as u64, None)
            .unwrap_or_default()
    }

    /// Side of the square tiles, laid on the world from its north-west
    /// corner: wider than twice a droplet's reach, so same-colour tiles
    /// never touch the same cells.
    fn tile_side(&self) -> usize {
        (2 * self.reach() + 2).max(128)
    }

    /// How far a cell's result depends on the input: each of the four
    /// passes reads a tile and a droplet range either side of it.
    fn dependence(&self) -> usize {
        4 * (self.tile_side() + 2 * self.reach())
    }

    /// The parameters and droplet count for a world `side` cells along
    /// its longer side: scaled down for a preview, counted per area at
    /// the map's own cells above the simulation size.
    pub fn at_sampling(&self, side: usize) -> (HydraulicErosion, u64) {
        let design = self.simulation_size.max(3) as usize;
        if side <= design {
            let scaled = self.scaled_to(side);
            let droplets = scaled.droplets as u64;
            return (scaled, droplets);
        }
        let q = (side - 1) as f64 / (design - 1) as f64;
        (self.clone(), (self.droplets as f64 * q * q).round() as u64)
    }

    /// Runs `droplets` over the world that `placed` places `map` in: the
    /// world's tiles that meet the map, each with its share of the
    /// droplets by area and its own sub-stream, droplets that start
    /// outside the map left out. `None` when `cancel` was set before one
    /// of the four colour passes (the map is then part-eroded).
    fn erode_placed(
        &self,
        map: &mut Heightmap,
        rng: &StageRng,
        placed: &WorldWindow,
        droplets: u64,
        cancel: Option<&AtomicBool>,
    ) -> Option<ErosionBudget> {
        let (mw, mh) = (map.width(), map.height());
        let (ww, wh) = (placed.world_width, placed.world_height);
        let (ox, oy) = (placed.window.x, placed.window.y);
        if mw < 3 || mh < 3 || droplets == 0 {
            return Some(ErosionBudget::default());
        }
        let reach = self.reach();
        let tile = self.tile_side();
        let tiles_x = ww.div_ceil(tile);
        let (tx0, ty0) = (ox / tile, oy / tile);
        let (tx1, ty1) = ((ox + mw).div_ceil(tile), (oy + mh).div_ceil(tile));
        let brush = brush(self.brush_radius as i64);
        // Cells of the world's tiles before (tx, ty) in row-major order
        // (rows above are whole; tiles to the left are full width), for an
        // exact split of the droplets by area.
        let total_cells = (ww * wh) as u128;
        let extent = |tx: usize, ty: usize| {
            let (sx1, sy1) = (((tx + 1) * tile).min(ww), ((ty + 1) * tile).min(wh));
            (tx * tile, ty * tile, sx1, sy1)
        };
        let droplets_in = |tx: usize, ty: usize| {
            let (sx0, sy0, sx1, sy1) = extent(tx, ty);
            let before = (ty * tile * ww + tx * tile * (sy1 - sy0)) as u128;
            let after = before + ((sx1 - sx0) * (sy1 - sy0)) as u128;
            let share = |cells: u128| droplets as u128 * cells / total_cells;
            (share(after) - share(before)) as usize
        };
        let mut budget = ErosionBudget::default();
        for colour in 0..4 {
            if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return None;
            }
            let members: Vec<(usize, usize)> = (ty0..ty1)
                .flat_map(|ty| (tx0..tx1).map(move |tx| (tx, ty)))
                .filter(|&(tx, ty)| tx % 2 + 2 * (ty % 2) == colour)
                .collect();
            let source = &*map;
            let results: Vec<(Window, ErosionBudget)> = members
                .par_iter()
                .map(|&(tx, ty)| {
                    // The tile in world cells, and its reach in the map's.
                    let (sx0, sy0, sx1, sy1) = extent(tx, ty);
                    let (x0, y0) = (
                        sx0.saturating_sub(reach).max(ox),
                        sy0.saturating_sub(reach).max(oy),
                    );
                    let (x1, y1) = ((sx1 + reach).min(ox + mw), (sy1 + reach).min(oy + mh));
                    let mut window = Window {
                        x0: x0 - ox,
                        y0: y0 - oy,
                        w: x1 - x0,
                        h: y1 - y0,
                        data: Vec::with_capacity((x1 - x0) * (y1 - y0)),
                    };
                    for y in y0..y1 {
                        window
                            .data
                            .extend_from_slice(&source.row(y - oy)[x0 - ox..x1 - ox]);
                    }
                    // Droplets per tile in proportion to its area, fixed by
                    // its place in the world, not by scheduling.
                    let count = droplets_in(tx, ty);
                    let mut r = at_word(rng, ((ty * tiles_x + tx) as u128) << 40);
                    let mut b = ErosionBudget::default();
                    let (last_x, last_y) = ((ox + mw) as f32 - 1.001, (oy + mh) as f32 - 1.001);
                    let spawn = || {
                        let px = sx0 as f32 + unit_f32(&mut r) * (sx1 - sx0) as f32;
                        let py = sy0 as f32 + unit_f32(&mut r) * (sy1 - sy0) as f32;
                        let (px, py) = (px.min(ww as f32 - 1.001), py.min(wh as f32 - 1.001));
                        // A window leaves out the droplets that start
                        // beyond it (tiles its halo cuts).
                        let on_map =
                            px >= ox as f32 && py >= oy as f32 && px <= last_x && py <= last_y;
                        on_map.then_some((px - x0 as f32, py - y0 as f32))
                    };
                    let flat = FlatBrush::new(&brush, self.brush_radius as usize, window.w);
                    self.run_tile(&mut window, &brush, &flat, count, spawn, &mut b);
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
        Some(budget)
    }

    /// Simulates `count` droplets, started at `spawn()`'s window-relative
    /// positions (`None`: that droplet starts off the map and is left
    /// out), `LANES` at a time.
    fn run_tile(
        &self,
        win: &mut Window,
        brush: &[(i64, i64, f32)],
        flat: &FlatBrush,
        count: usize,
        mut spawn: impl FnMut() -> Option<(f32, f32)>,
        budget: &mut ErosionBudget,
    ) {
        let mut f = Flock::new();
        let mut spawned = 0;
        let (limit_x, limit_y) = ((win.w - 1) as f32, (win.h - 1) as f32);
        let keep = 1.0 - self.inertia;
        loop {
            for lane in 0..LANES {
                while !f.alive[lane] && spawned < count {
                    spawned += 1;
                    if let Some((px, py)) = spawn() {
                        f.start(lane, px, py, win.spot(px, py));
                    }
                }
            }
            if !f.alive.contains(&true) {
                break;
            }
            // Height and gradient where each droplet is.
            let mut height = [0.0f32; LANES];
            let (mut gx, mut gy) = ([0.0f32; LANES], [0.0f32; LANES]);
            for l in 0..LANES {
                (height[l], gx[l], gy[l]) = win.height_and_gradient(f.spot[l]);
            }
            // New direction and position.
            let (mut nx, mut ny, mut len) = ([0.0f32; LANES], [0.0f32; LANES], [0.0f32; LANES]);
            for l in 0..LANES {
                let dx = f.dx[l] * self.inertia - gx[l] * keep;
                let dy = f.dy[l] * self.inertia - gy[l] * keep;
                len[l] = (dx * dx + dy * dy).sqrt();
                f.dx[l] = dx / len[l];
                f.dy[l] = dy / len[l];
                nx[l] = f.px[l] + f.dx[l];
                ny[l] = f.py[l] + f.dy[l];
            }
            // Droplets that stop or leave; heights at the new positions.
            let mut new_height = height;
            let mut new_spot = f.spot;
            for l in 0..LANES {
                if !f.alive[l] {
                    continue;
                }
                if len[l] <= 1e-12 {
                    self.settle(win, f.spot[l], f.sediment[l], budget);
                    f.end(l);
                    continue;
                }
                // Windows reach past every droplet's range, so leaving
                // the window means leaving the map: the sediment is
                // carried away. (Written so that NaN also counts as gone.)
                let inside = nx[l] >= 0.0 && ny[l] >= 0.0 && nx[l] < limit_x && ny[l] < limit_y;
                if !inside {
                    budget.lost += f.sediment[l] as f64;
                    f.end(l);
                    continue;
                }
                new_spot[l] = win.spot(nx[l], ny[l]);
                new_height[l] = win.height(new_spot[l]);
            }
            // Deposit or erode. Both amounts are computed and one is
            // zeroed rather than branching on a condition the CPU cannot
            // predict; adding or subtracting zero leaves a cell exactly
            // as it was.
            let (mut deposit, mut erode, mut dh) =
                ([0.0f32; LANES], [0.0f32; LANES], [0.0f32; LANES]);
            for l in 0..LANES {
                dh[l] = new_height[l] - height[l];
                let sediment = f.sediment[l];
                let capacity =
                    (-dh[l] * f.speed[l] * f.water[l] * self.capacity).max(self.min_capacity);
                let depositing = sediment > capacity || dh[l] > 0.0;
                let dropped = if dh[l] > 0.0 {
                    dh[l].min(sediment)
                } else {
                    (sediment - capacity) * self.deposition
                };
                let taken = ((capacity - sediment) * self.erosion).min(-dh[l]);
                deposit[l] = if depositing { dropped } else { 0.0 };
                erode[l] = if depositing { 0.0 } else { taken };
            }
            for l in 0..LANES {
                if !f.alive[l] {
                    continue;
                }
                let amount = deposit[l];
                win.deposit(f.spot[l], amount);
                let (ix, iy) = (f.spot[l].ix as usize, f.spot[l].iy as usize);
                let mut sediment = f.sediment[l] - amount;
                f.deposited[l] += amount as f64;
                if erode[l] > 0.0 {
                    if flat.fits(win, ix, iy) {
                        flat.erode(win, ix, iy, erode[l]);
                        let taken = erode[l] * flat.total;
                        sediment += taken;
                        f.eroded[l] += taken as f64;
                    } else {
                        self.erode_clipped(win, brush, (ix, iy), erode[l], &mut sediment, budget);
                    }
                }
                f.sediment[l] = sediment;
                f.speed[l] = (f.speed[l] * f.speed[l] + dh[l] * self.gravity)
                    .max(0.0)
                    .sqrt();
                f.water[l] *= 1.0 - self.evaporation;
                f.px[l] = nx[l];
                f.py[l] = ny[l];
                f.spot[l] = new_spot[l];
                f.age[l] += 1;
                budget.steps += 1;
                if f.age[l] >= self.max_lifetime {
                    self.settle(win, new_spot[l], sediment, budget);
                    f.end(l);
                }
            }
        }
        budget.eroded += f.eroded.iter().sum::<f64>();
        budget.deposited += f.deposited.iter().sum::<f64>();
    }

    /// Erosion with a brush that crosses the window's edge.
    fn erode_clipped(
        &self,
        win: &mut Window,
        brush: &[(i64, i64, f32)],
        (ix, iy): (usize, usize),
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
    fn settle(&self, win: &mut Window, at: Spot, sediment: f32, budget: &mut ErosionBudget) {
        win.deposit(at, sediment);
        budget.deposited += sediment as f64;
    }
}

impl StageOp for HydraulicErosion {
    fn moves_material(&self) -> bool {
        true
    }

    fn progress(&mut self) -> Option<Progress<'_>> {
        Some(Progress {
            label: "hydraulic erosion droplets",
            help: "Watch the erosion progress: the stage re-runs with this many droplets.",
            value: ProgressValue::Count(&mut self.droplets),
            range: 0.0..=50_000_000.0,
            // A single droplet changes nothing visible.
            click_share: 0.1,
            note: None,
        })
    }

    /// A droplet's work reaches a bounded distance (four passes of a
    /// tile and two droplet ranges, at the world's sampling): a window
    /// grown by that computes its own cells exactly as the whole map.
    fn input_window(&self, output: &WorldWindow, _: f32) -> WorldWindow {
        let (params, _) = self.at_sampling(output.world_longer_side());
        let halo = params.dependence();
        output.grown(halo, halo, halo, halo)
    }

    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        let placed = ctx.window_of(map);
        let (params, droplets) = self.at_sampling(placed.world_longer_side());
        params
            .erode_placed(map, &ctx.rng, &placed, droplets, ctx.cancel)
            .map(|_| ())
            .ok_or(StageError::Cancelled)
    }
}
