//! Fluvial erosion: detachment-limited stream power with uplift and
//! hillslope diffusion, solved implicitly in drainage order.
//!
//! The model: ∂h/∂t = U − K·A^m·S^n + D·∇²h, with A the drainage area in
//! m², S the slope towards the receiver, U the uplift rate, K the
//! erodibility and D the hillslope diffusivity, all in metres and years.
//! Incision is solved implicitly from the outlets upstream (Braun &
//! Willett 2013, [`step`]), closed depressions are carved out through
//! their lowest pass once per step ([`crate::hydro`]), and diffusion is
//! implicit by alternating directions ([`diffusion`]). Rivers cut by this
//! model obey Flint's law, S ∝ A^(−m/n) (Whipple & Tucker 1999).
//!
//! Every size shows the same valleys: most steps run at a coarse level
//! fixed by the recipe (`coarse_size`), on the earlier stages' map run at
//! that sampling; the change is then carried up one doubling at a time,
//! each level refined by a few steps on the earlier stages' map at that
//! level plus the change so far ([`schedule`]). One level loop
//! (`levels.rs`) runs the levels of the whole map and of the blocks, and
//! one step loop ([`FluvialErosion::run_level`]) each level's steps.

pub mod blocked;
pub mod blocks;
pub mod deposition;
pub mod diffusion;
pub mod direct;
mod levels;
mod params;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
pub mod schedule;
pub mod step;

use super::{Progress, ProgressValue, StageContext, StageError, StageOp};
use crate::heightmap::Heightmap;
use crate::hydro::{
    Edges, FlowGrid, Outlets, Routing, breach_below, breach_shallow, fill_in_place,
};
use crate::params::Choice;
use crate::place_rng::PlaceKey;
use crate::rng::unit_from_word;
use crate::stages::mask::{LoadedMask, StageMask};
use crate::world_window::WorldWindow;
use deposition::{SedimentParams, incise_depositing};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;
use step::{
    CutLayer, StepFields, StepParams, incise, incise_layered, incise_layered_with_levels,
    incise_with_levels, uplift_cells,
};

/// Sweeps of the talus at each finer level: material moves at most this
/// many cells, the length of scree that a doubling adds.
pub const TALUS_SWEEPS: u32 = 8;

/// Levels with fewer cells than this run their steps on one thread: at
/// 129² waking the second thread for each pass costs more than it saves
/// (medians 25–27 ms against 31–39 ms for an eroded-mountains edit at
/// 257²); from 257² up two threads pay.
const SERIAL_CELLS: usize = 1 << 15;

/// Cells a side of the blocks that fine levels run on: maps up to
/// 2 × 1024 + 1 cells a side run every level on the whole map; from
/// 2049² the finest levels run by blocks, so a window of any eroded world
/// needs only its own blocks in memory at those levels. The drainage
/// holds with them (eroded-mountains at 4097²: θ 0.488, r² 0.907 against
/// 0.516, 0.950 coupled; river-valley at 8193²: θ 0.470, r² 0.897, 0.021
/// m RMS from the coupled run), now that blocks meet over one cell (see
/// [`blocks::Axis::new`]), and a run costs no more (eroded-mountains at
/// 4097²: 1.8–2.1 s blocked, 2.1–2.5 s coupled).
pub const DEFAULT_BLOCK_SIZE: u32 = 1024;

/// The smallest block: its halo (an eighth of a side) is then 8 cells,
/// the least that still carries a valley and a talus sweep's reach
/// across a block's edge. A block as
/// large as the world, or larger, runs every level whole.
pub const MIN_BLOCK_SIZE: u32 = 64;

/// One level's run: what [`FluvialErosion::run_level`] needs besides the
/// map it erodes.
pub struct LevelRun<'a> {
    /// The stage's input at this level (uplift follows its heights).
    pub input: &'a Heightmap,
    /// The height range uplift and the base level are measured over.
    pub range: (f32, f32),
    /// Metres between cells at this level.
    pub cell_size: f32,
    /// Steps to run.
    pub steps: u32,
    /// Each step's length as a multiple of the coarse step.
    pub dt_scale: f64,
    /// Where water leaves the level (or block).
    pub outlets: Outlets,
    /// Outlets that keep their height: a block's cut edges.
    pub held: Edges,
    /// The uplift and hardness maps, read once for every level.
    pub maps: &'a LevelMaps<'a>,
    /// Where the map's cells lie in the level's grid (the whole level, or
    /// a block's cells): maps by image sample there.
    pub place: WorldWindow,
    /// The level starts from a coarser one carried up: its first step
    /// breaches the hollows interpolation leaves along valley floors
    /// (over that step's routing) before the rivers cut.
    pub breach_first: bool,
    /// The map's own level: its last step ends with depressions breached
    /// and the rest filled to their spill level unless kept as lakes.
    pub finish: bool,
    /// Rivers lay down sediment at this level (the coarse one, where the
    /// time is); finer levels carry the layer up and cut into it, at the
    /// sediment's erodibility, in their short refine steps.
    pub deposit: bool,
    /// Slopes past the angle of repose shed talus after the steps (the
    /// finer levels, when `talus_angle` is set).
    pub talus: bool,
}

/// The uplift and hardness maps of a run, read once
/// ([`FluvialErosion::load_maps`]).
pub struct LevelMaps<'a> {
    /// Where the land rises, 0..1 of the uplift.
    pub uplift: Option<LoadedMask<'a>>,
    /// Where the rock is hard, 0..1 of the way to `hard_rock`.
    pub hardness: Option<LoadedMask<'a>>,
}

/// `mask`, when there is one, with its image read.
fn load_mask<'a>(
    mask: &'a Option<StageMask>,
    base_dir: Option<&Path>,
) -> Result<Option<LoadedMask<'a>>, StageError> {
    mask.as_ref().map(|m| m.load(base_dir)).transpose()
}

/// Runs `change` on `map`; where it lowered a cell, the sediment `layer`
/// (when there is one) loses as much. Creep and breaches move the ground
/// the layer lies on; what they raise is not river sediment. `before` is
/// scratch space, kept between calls so that a 4097² level does not
/// allocate (and the kernel zero) 64 MiB each time.
fn thinning<R>(
    map: &mut Heightmap,
    layer: Option<&mut Heightmap>,
    before: &mut Vec<f32>,
    change: impl FnOnce(&mut Heightmap) -> R,
) -> R {
    let Some(layer) = layer else {
        return change(map);
    };
    before.resize(map.data().len(), 0.0);
    before
        .par_chunks_mut(1 << 16)
        .zip(map.data().par_chunks(1 << 16))
        .for_each(|(b, m)| b.copy_from_slice(m));
    let result = change(map);
    layer
        .data_mut()
        .par_iter_mut()
        .zip(before.par_iter())
        .zip(map.data().par_iter())
        .for_each(|((l, &b), &a)| *l = (*l - (b - a).max(0.0)).max(0.0));
    result
}

/// How the uplift rate varies over the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UpliftShape {
    /// The same rate everywhere but at the outlets.
    Uniform,
    /// The rate scaled by the stage's input height, 0 at the lowest cell
    /// and full at the highest: the input's mountains hold up while
    /// rivers cut into them, so any map can be eroded for a given time.
    ByHeight,
}

impl Choice for UpliftShape {
    const ALL: &'static [Self] = &[UpliftShape::Uniform, UpliftShape::ByHeight];
    fn label(self) -> &'static str {
        match self {
            UpliftShape::Uniform => "Uniform",
            UpliftShape::ByHeight => "By height",
        }
    }
    fn help(self) -> &'static str {
        match self {
            UpliftShape::Uniform => "Every cell but the outlets rises at the uplift rate.",
            UpliftShape::ByHeight => {
                "The rate scales with the input height (0 at the lowest cell): the map's mountains hold up while rivers cut them."
            }
        }
    }
}

/// Fluvial erosion stage: stream power plus hillslope diffusion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FluvialErosion {
    /// Years of erosion simulated.
    pub duration: f32,
    /// Erodibility K, yr⁻¹ m^(1−2m).
    pub erodibility: f32,
    /// Drainage-area exponent m.
    pub area_exponent: f32,
    /// Slope exponent n (m/n is the concavity that rivers settle at).
    pub slope_exponent: f32,
    /// Hillslope diffusivity D, m²/yr.
    pub diffusivity: f32,
    /// Uplift rate, m/yr.
    pub uplift: f32,
    /// How the uplift rate varies over the map.
    pub uplift_shape: UpliftShape,
    /// The north edge (first row) drains at base level.
    pub drain_north: bool,
    /// The south edge (last row) drains at base level.
    pub drain_south: bool,
    /// The west edge (first column) drains at base level.
    pub drain_west: bool,
    /// The east edge (last column) drains at base level.
    pub drain_east: bool,
    /// Whether cells at or below `sea_level` are sea (outlets, not eroded).
    pub sea: bool,
    /// The sea's height in world units, when `sea` is on.
    pub sea_level: f32,
    /// Keep closed depressions as they are (lakes) instead of filling them
    /// to their spill level at the end.
    pub keep_lakes: bool,
    /// Height of the random roughness (world units) added at the start:
    /// smooth slopes otherwise drain in parallel lines that never join.
    #[serde(default = "default_roughness")]
    pub roughness: f32,
    /// Depressions up to this deep (world units) are breached, not kept
    /// as lakes: when a finer level starts from the coarser one carried
    /// up, and at the end.
    #[serde(default = "default_breach_depth")]
    pub breach_depth: f32,
    /// How much of the detail that finer samplings add to the input is
    /// kept on top of the coarser level's erosion (0 = none, 1 = all).
    #[serde(default)]
    pub fine_detail: f32,
    /// Cells along the longer side of the coarse level that most steps run
    /// at; a smaller map runs every step at its own size.
    pub coarse_size: u32,
    /// Steps at the coarse level (each `duration / steps` years).
    pub steps: u32,
    /// Steps at the first finer level; each further doubling up to the
    /// map's size runs half as many (at least one, unless this is 0).
    pub refine_steps: u32,
    /// Years of a refine step at the coarse level's cell; a level with
    /// half the cell runs steps half as long. Short refine steps sharpen the coarse
    /// level's valleys without cutting new ones at the finer cells, so
    /// the coarse level may take few long steps. 0: the coarse step
    /// (`duration / steps`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub refine_years: f32,
    /// Cells a side of the world-aligned blocks that levels finer than
    /// one block run on ([`blocks`]), so that any window of the map is an
    /// exact crop of the whole map; 0 runs every level on the whole map.
    #[serde(
        default = "default_block_size",
        skip_serializing_if = "is_default_block_size"
    )]
    pub block_size: u32,
    /// Where the land rises: each cell's uplift rate is multiplied by this
    /// map's weight (0..1). A painted map, a grey image stretched over the
    /// world, or one derived from the stage's input (height, slope…), so
    /// it means the same at every size. None: uplift everywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplift_map: Option<StageMask>,
    /// Where the rock is hard: where this map's weight is 1 the
    /// erodibility is `erodibility × hard_rock`, between it blends. None:
    /// one rock everywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardness_map: Option<StageMask>,
    /// The hardest rock's erodibility as a share of `erodibility`.
    #[serde(
        default = "default_hard_rock",
        skip_serializing_if = "is_default_hard_rock"
    )]
    pub hard_rock: f32,
    /// Demo: run only this many of the coarse level's steps (the same
    /// steps as the whole run, cut short), to watch the valleys form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_after_steps: Option<u32>,
    /// G, how readily rivers drop their sediment ([`deposition`]): 0
    /// erodes bedrock only, 1 settles a river's load over its drainage
    /// area; fans and alluvial floors form where slopes flatten.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub deposition: f32,
    /// Gullies: at each level finer than the coarse one, place-keyed
    /// roughness of this slope (its height over the level's cell) is
    /// added before the refine steps, which cut the water it gathers into
    /// gullies and rills at that level's cells. 0: finer levels only
    /// sharpen the coarse valleys.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gullies: f32,
    /// Scree: after each finer level's steps (the map's own level: before
    /// its closing routing), slopes steeper than this angle of repose
    /// (degrees) shed material to lower neighbours ([`TALUS_SWEEPS`]
    /// sweeps at that level's cells), moving the slopes that cells of
    /// that size resolve towards it. 0: off.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub talus_angle: f32,
    /// The erodibility of laid-down sediment as a share of `erodibility`
    /// (loose gravel and sand: above 1).
    #[serde(
        default = "default_sediment_erodibility",
        skip_serializing_if = "is_default_sediment_erodibility"
    )]
    pub sediment_erodibility: f32,
}

fn default_sediment_erodibility() -> f32 {
    2.0
}

fn is_default_sediment_erodibility(v: &f32) -> bool {
    *v == default_sediment_erodibility()
}

fn default_block_size() -> u32 {
    DEFAULT_BLOCK_SIZE
}

fn is_default_block_size(size: &u32) -> bool {
    *size == DEFAULT_BLOCK_SIZE
}

fn default_hard_rock() -> f32 {
    0.2
}

fn is_default_hard_rock(v: &f32) -> bool {
    *v == default_hard_rock()
}

fn is_zero(v: &f32) -> bool {
    *v == 0.0
}

fn default_breach_depth() -> f32 {
    2.0
}

fn default_roughness() -> f32 {
    1.0
}

impl Default for FluvialErosion {
    fn default() -> Self {
        Self {
            duration: 200_000.0,
            erodibility: 1e-3,
            area_exponent: 0.45,
            slope_exponent: 1.0,
            diffusivity: 0.01,
            uplift: 1e-3,
            uplift_shape: UpliftShape::ByHeight,
            drain_north: true,
            drain_south: true,
            drain_west: true,
            drain_east: true,
            sea: false,
            sea_level: 0.0,
            keep_lakes: false,
            roughness: default_roughness(),
            breach_depth: default_breach_depth(),
            fine_detail: 0.0,
            coarse_size: 257,
            steps: 100,
            refine_steps: 4,
            refine_years: 0.0,
            block_size: DEFAULT_BLOCK_SIZE,
            uplift_map: None,
            hardness_map: None,
            hard_rock: default_hard_rock(),
            stop_after_steps: None,
            deposition: 0.0,
            gullies: 0.0,
            talus_angle: 0.0,
            sediment_erodibility: default_sediment_erodibility(),
        }
    }
}

impl FluvialErosion {
    /// Where water leaves the map.
    pub fn outlets(&self) -> Outlets {
        Outlets {
            north: self.drain_north,
            south: self.drain_south,
            west: self.drain_west,
            east: self.drain_east,
            sea_level: self.sea.then_some(self.sea_level),
        }
    }

    /// The step numbers for cells `cell_size` m apart, water leaving the
    /// map down to the sea or else to `lowest`, the input's lowest height.
    pub fn step_params(&self, cell_size: f32, lowest: f32) -> StepParams {
        StepParams {
            erodibility: self.erodibility as f64,
            area_exponent: self.area_exponent as f64,
            slope_exponent: self.slope_exponent as f64,
            dt: self.duration as f64 / self.steps.max(1) as f64,
            cell_size: cell_size as f64,
            outlets: self.outlets(),
            held: Edges::default(),
            base_level: Some(if self.sea { self.sea_level } else { lowest }),
        }
    }

    /// The uplift rate of every cell of `input`, scaled (by height) over
    /// `range` rather than `input`'s own: a block of a level shares the
    /// world's range.
    pub fn uplift_field_in(&self, input: &Heightmap, range: (f32, f32)) -> Vec<f32> {
        match self.uplift_shape {
            UpliftShape::Uniform => vec![self.uplift; input.data().len()],
            UpliftShape::ByHeight => {
                let (lo, hi) = range;
                let lo = if self.sea { lo.max(self.sea_level) } else { lo };
                let span = (hi - lo).max(f32::MIN_POSITIVE);
                input
                    .data()
                    .par_iter()
                    .map(|&h| self.uplift * ((h - lo) / span).clamp(0.0, 1.0))
                    .collect()
            }
        }
    }

    /// Runs one level's steps of erosion plus diffusion on `map` (the
    /// whole level or a block of it), each `level.dt_scale` times the
    /// coarse step, with uplift measured on `level.input`; calls
    /// `after_step` after each and stops (returning false) when it
    /// returns false. The one step loop of the whole map and the blocks.
    ///
    /// With deposition on, `sediment` (the layer laid down so far, in the
    /// map's cells) follows every step: what rivers drop and lakes trap
    /// thickens it, what rivers cut, creep wears and breaches lower thins
    /// it (the closing fill of what is left of a lake is water, not
    /// sediment).
    pub fn run_level(
        &self,
        map: &mut Heightmap,
        mut sediment: Option<&mut Heightmap>,
        level: &LevelRun,
        after_step: &mut dyn FnMut(u32) -> bool,
    ) -> Result<bool, StageError> {
        let mut p = self.step_params(level.cell_size, level.range.0);
        p.dt *= level.dt_scale;
        p.outlets = level.outlets;
        p.held = level.held;
        let weights =
            |mask: &LoadedMask| mask.weights_at(level.input, level.cell_size, &level.place);
        let uplift = if self.uplift > 0.0 {
            let mut field = self.uplift_field_in(level.input, level.range);
            if let Some(mask) = &level.maps.uplift {
                for (u, w) in field.iter_mut().zip(weights(mask)?) {
                    *u *= w;
                }
            }
            Some(field)
        } else {
            None
        };
        let erodibility = match &level.maps.hardness {
            Some(mask) => Some(
                weights(mask)?
                    .into_iter()
                    .map(|w| 1.0 - w * (1.0 - self.hard_rock))
                    .collect::<Vec<f32>>(),
            ),
            None => None,
        };
        let fields = StepFields {
            uplift: uplift.as_deref(),
            erodibility: erodibility.as_deref(),
        };
        if self.sediment_params().is_none() {
            sediment = None;
        }
        let settling = self.sediment_params().filter(|_| level.deposit);
        if level.steps == 0 {
            // Nothing to share a routing with.
            if level.finish {
                self.finish(map, &p.outlets);
            } else if level.breach_first {
                self.breach_depressions(map, &p.outlets);
            }
            return Ok(true);
        }
        let mut grid = FlowGrid::new(map.data(), map.width(), &p.outlets, p.held);
        let (mut before, mut covered) = (Vec::new(), Vec::new());
        let diffuse = |map: &mut Heightmap, grid: &FlowGrid| {
            diffusion::diffuse(
                map.data_mut(),
                grid,
                self.diffusivity as f64,
                p.dt,
                p.cell_size,
            )
        };
        for s in 0..level.steps {
            // The map's last step diffuses before it routes, so the
            // routing the rivers cut over is the one the map is left
            // draining on: diffusing after the final fill would reopen
            // hollows, and a second routing at the costliest size would
            // be needed to close them.
            let closing = level.finish && s + 1 == level.steps;
            grid.update_sea(map.data());
            if let Some(uplift) = fields.uplift {
                uplift_cells(map.data_mut(), &grid, uplift, p.dt);
            }
            if closing {
                thinning(map, sediment.as_deref_mut(), &mut before, |m| {
                    diffuse(m, &grid)
                });
                // Scree before the closing routing too: shed after the
                // final fill it would close off what the fill drained.
                if level.talus {
                    self.shed_talus(map, sediment.as_deref_mut(), level.cell_size);
                }
                grid.update_sea(map.data());
            }
            let routing = Routing::on_grid(map.data(), &grid);
            // Breaching lowers cells only along the routing's own paths,
            // so the routing stays valid for the rivers and the fill.
            if level.breach_first && s == 0 && !closing {
                thinning(map, sediment.as_deref_mut(), &mut before, |m| {
                    breach_shallow(m.data_mut(), &routing, self.breach_depth)
                });
            }
            if closing {
                // The finish over the routing the rivers were cut on:
                // every cell drains along it once filled.
                let levels = match (&settling, sediment.as_deref_mut()) {
                    (Some(settling), Some(layer)) => incise_depositing::<true>(
                        map.data_mut(),
                        layer.data_mut(),
                        &routing,
                        &grid,
                        fields.erodibility,
                        &p,
                        settling,
                    ),
                    (_, Some(layer)) => incise_layered_with_levels(
                        map.data_mut(),
                        self.cut_layer(layer, &mut covered),
                        &routing,
                        &grid,
                        fields.erodibility,
                        &p,
                    ),
                    _ => {
                        incise_with_levels(map.data_mut(), &routing, &grid, fields.erodibility, &p)
                    }
                };
                if self.breach_depth > 0.0 {
                    thinning(map, sediment.as_deref_mut(), &mut before, |m| {
                        breach_below(m.data_mut(), &routing, &levels, self.breach_depth)
                    });
                    if !self.keep_lakes {
                        fill_in_place(map.data_mut(), &routing);
                    }
                } else if !self.keep_lakes {
                    map.data_mut().copy_from_slice(&levels);
                }
            } else {
                match (&settling, sediment.as_deref_mut()) {
                    (Some(settling), Some(layer)) => {
                        incise_depositing::<false>(
                            map.data_mut(),
                            layer.data_mut(),
                            &routing,
                            &grid,
                            fields.erodibility,
                            &p,
                            settling,
                        );
                    }
                    (_, Some(layer)) => incise_layered(
                        map.data_mut(),
                        self.cut_layer(layer, &mut covered),
                        &routing,
                        &grid,
                        fields.erodibility,
                        &p,
                    ),
                    _ => incise(map.data_mut(), &routing, &grid, fields.erodibility, &p),
                }
                // Cells the incision lowered to the sea level hold still.
                grid.update_sea(map.data());
                thinning(map, sediment.as_deref_mut(), &mut before, |m| {
                    diffuse(m, &grid)
                });
            }
            if !after_step(s) {
                return Ok(false);
            }
        }
        if level.talus && !level.finish {
            self.shed_talus(map, sediment, level.cell_size);
        }
        Ok(true)
    }

    /// Slopes of `map` (cells `cell` apart) steeper than the angle of
    /// repose shed material to their lower neighbours for
    /// [`TALUS_SWEEPS`] sweeps ([`crate::stages::ThermalErosion::step`]:
    /// material is conserved, and each sweep reads only the last, so the
    /// bytes do not depend on the threads). What it lays down joins the
    /// sediment layer, what it takes thins it.
    pub fn shed_talus(&self, map: &mut Heightmap, sediment: Option<&mut Heightmap>, cell: f32) {
        if self.talus_angle <= 0.0 {
            return;
        }
        let talus = self.talus_angle.to_radians().tan() * cell;
        let before = sediment.as_ref().map(|_| map.data().to_vec());
        let mut next = map.clone();
        for _ in 0..TALUS_SWEEPS {
            // Each sweep closes a quarter of a pair's excess (the thermal
            // stage's rate at amount 1, stable): 8 sweeps close about 90 %
            // of a lone pair's.
            crate::stages::ThermalErosion::step(map, &mut next, talus, 0.125);
            std::mem::swap(map, &mut next);
        }
        if let (Some(before), Some(layer)) = (before, sediment) {
            deposition::settle(layer.data_mut(), &before, map.data());
        }
    }

    /// The sediment `layer` as the incision of a finer level cuts it
    /// (`bits`: scratch for its covered cells).
    fn cut_layer<'a>(&self, layer: &'a mut Heightmap, bits: &'a mut Vec<u64>) -> CutLayer<'a> {
        CutLayer::over(layer.data_mut(), self.sediment_erodibility, bits)
    }

    /// How sediment settles and erodes; None when deposition is off.
    pub fn sediment_params(&self) -> Option<SedimentParams> {
        (self.deposition > 0.0).then_some(SedimentParams {
            deposition: self.deposition as f64,
            sediment_share: self.sediment_erodibility as f64,
        })
    }

    /// The end of the map's own level when it runs no step: depressions
    /// up to `breach_depth` breached, the rest filled to their spill
    /// level unless kept as lakes. One routing for both: breaching lowers
    /// cells only along its paths, so the same routing finds the lakes
    /// left to fill.
    fn finish(&self, map: &mut Heightmap, outlets: &Outlets) {
        let routing = Routing::new(map.data(), map.width(), outlets);
        breach_shallow(map.data_mut(), &routing, self.breach_depth);
        if !self.keep_lakes {
            fill_in_place(map.data_mut(), &routing);
        }
    }

    /// Refuses uplift and hardness maps that a block or window cannot
    /// compute from its own cells (slope, flow, lakes: only height, an
    /// image or a painted map can) when the stage runs by blocks.
    fn check_maps_by_blocks(&self) -> Result<(), StageError> {
        for (name, mask) in [
            ("uplift_map", &self.uplift_map),
            ("hardness_map", &self.hardness_map),
        ] {
            if let Some(mask) = mask
                && !mask.is_cellwise()
            {
                return Err(StageError::MapNotCellwise { map: name });
            }
        }
        Ok(())
    }

    /// The uplift and hardness maps with their images read (relative
    /// paths in `base_dir`): once per run, for every level and block.
    pub fn load_maps(&self, base_dir: Option<&Path>) -> Result<LevelMaps<'_>, StageError> {
        Ok(LevelMaps {
            uplift: load_mask(&self.uplift_map, base_dir)?,
            hardness: load_mask(&self.hardness_map, base_dir)?,
        })
    }

    /// Each step of level `k` as a multiple of the coarse step, at
    /// `cell_ratio` times the coarse cell: finer levels refine the valleys
    /// to their sampling, and their steps shorten with the cell, as the
    /// time for a river to cross a cell does. They start from
    /// `refine_years` (or the coarse step) at the coarse cell.
    pub fn level_dt_scale(&self, k: usize, cell_ratio: f32) -> f64 {
        if k == 0 {
            return 1.0;
        }
        let coarse_dt = self.duration as f64 / self.steps.max(1) as f64;
        let refine_dt = if self.refine_years > 0.0 {
            self.refine_years as f64
        } else {
            coarse_dt
        };
        if coarse_dt <= 0.0 {
            return 0.0;
        }
        refine_dt / coarse_dt * cell_ratio as f64
    }

    /// Steps at level `k` (0: the coarse level).
    pub fn level_steps(&self, k: usize) -> u32 {
        if k == 0 {
            self.stop_after_steps
                .map_or(self.steps, |n| n.min(self.steps))
        } else {
            // Halving per doubling: finer levels only sharpen valleys
            // already there, and cost four times as much per step.
            (self.refine_steps >> (k - 1)).max(self.refine_steps.min(1))
        }
    }

    /// Adds the start's roughness to the coarse level `map` (level `k`).
    fn add_roughness(&self, map: &mut Heightmap, ctx: &StageContext, k: usize) {
        if self.roughness <= 0.0 {
            return;
        }
        // Keyed by the coarse level's cells, which every map size
        // shares. Only there: at finer levels it would add slope
        // noise far steeper than the rivers the refine steps keep.
        let key = PlaceKey::of_stage(&ctx.rng);
        let amp = self.roughness;
        let lw = map.width();
        map.data_mut()
            .par_chunks_mut(lw)
            .enumerate()
            .for_each(|(y, row)| {
                for (x, h) in row.iter_mut().enumerate() {
                    let u = unit_from_word(key.word(k as u32, x as u32, y as u32));
                    *h += amp * (u - 0.5);
                }
            });
    }

    /// Adds the gullies' roughness to `map`, the cells `rect` of level
    /// `k` (finer than the coarse one), `cell` world units apart: keyed by
    /// the level's own cells, so a block or window draws what the whole
    /// level draws there.
    fn seed_gullies(
        &self,
        map: &mut Heightmap,
        ctx: &StageContext,
        k: usize,
        cell: f32,
        rect: blocks::Rect,
    ) {
        // Without refine steps at the level nothing would cut it.
        if self.gullies <= 0.0 || k == 0 || self.level_steps(k) == 0 {
            return;
        }
        let key = PlaceKey::of_stage(&ctx.rng);
        let amp = self.gullies * cell;
        let lw = map.width();
        map.data_mut()
            .par_chunks_mut(lw)
            .enumerate()
            .for_each(|(y, row)| {
                let gy = (rect.y.start + y) as u32;
                for (x, h) in row.iter_mut().enumerate() {
                    let gx = (rect.x.start + x) as u32;
                    let u = unit_from_word(key.word(k as u32, gx, gy));
                    *h += amp * (u - 0.5);
                }
            });
    }

    /// Fills every closed depression of `map` to its spill level (flat
    /// lakes, no ε-slope).
    pub fn fill_depressions(&self, map: &mut Heightmap) {
        let width = map.width();
        let routing = Routing::new(map.data(), width, &self.outlets());
        fill_in_place(map.data_mut(), &routing);
    }

    /// Breaches the depressions of `map`, draining at `outlets`, up to
    /// `breach_depth` deep ([`breach_shallow`]).
    pub fn breach_depressions(&self, map: &mut Heightmap, outlets: &Outlets) {
        let width = map.width();
        let routing = Routing::new(map.data(), width, outlets);
        breach_shallow(map.data_mut(), &routing, self.breach_depth);
    }
}

impl StageOp for FluvialErosion {
    fn moves_material(&self) -> bool {
        true
    }

    /// The land's age: every age runs the same steps, each longer or
    /// shorter, so an old range costs what a young one does. A coarse
    /// level that stops early (`stop_after_steps`) shows less time than
    /// the age says: the note says how much.
    fn progress(&mut self) -> Option<Progress<'_>> {
        let steps = self.steps;
        let note = self.stop_after_steps.filter(|&n| n < steps).map(|n| {
            let shown = self.duration as f64 * n as f64 / steps.max(1) as f64;
            format!(
                "(stop_after_steps: the coarse level runs {n} of its {steps} steps, {shown:.0} years)"
            )
        });
        Some(Progress {
            label: "fluvial erosion age (years)",
            help: "Drag to see the land at any age, young ranges to old ones: the erosion re-runs for this many years, at the same cost for any age.",
            value: ProgressValue::Years(&mut self.duration),
            range: 1_000.0..=10_000_000.0,
            click_share: 0.1,
            note,
        })
    }

    fn uses_coarse_levels(&self) -> bool {
        true
    }

    fn input_window(&self, output: &WorldWindow, _: f32) -> WorldWindow {
        self.blocked_input_window(output)
    }

    fn window_refusal(&self, world_width: usize, world_height: usize) -> Result<(), StageError> {
        match self.block_schedule(world_width, world_height) {
            Some(_) => self.check_maps_by_blocks(),
            None => Ok(()),
        }
    }

    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        if !self.outlets().any() {
            return Err(StageError::NoOutlet);
        }
        if (1..MIN_BLOCK_SIZE).contains(&self.block_size) {
            return Err(StageError::BlockTooSmall {
                block_size: self.block_size,
                min: MIN_BLOCK_SIZE,
            });
        }
        let place = ctx.window_of(map);
        if place.world_width < 3 || place.world_height < 3 {
            return Ok(());
        }
        if let Some((levels, first)) = self.block_schedule(place.world_width, place.world_height) {
            self.check_maps_by_blocks()?;
            return self.apply_blocked(map, ctx, &levels, first);
        }
        // Every level on the whole map: a window needs all of it (its
        // input window is the whole world).
        ctx.require_whole_world(map)?;
        let (width, height) = (map.width(), map.height());
        let extent = ctx.cell_size * (width - 1) as f32;
        let levels = schedule::levels(width, height, self.coarse_size as usize);
        let (cw, ch) = levels[0];
        let coarse = if levels.len() == 1 {
            // Unused: the map is its own and only level.
            Heightmap::new(1, 1)
        } else {
            match ctx.earlier_stages_at(cw, ch)? {
                Some(m) => m,
                None => map.resized(cw, ch),
            }
        };
        let inputs = levels::LevelInputs::Whole { fine: map, coarse };
        let result = self.run_levels(ctx, &levels, &[], &inputs, extent)?;
        *map = result.eroded;
        ctx.laid_down = result.sediment.map(Heightmap::into_vec);
        Ok(())
    }
}
