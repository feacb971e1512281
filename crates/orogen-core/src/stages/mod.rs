//! The stage catalogue: one file per algorithm, one enum listing them all.

pub mod adjust;
pub mod blur;
pub mod combine;
pub mod diamond_square;
pub mod droplets;
pub mod fluvial;
pub mod hill_features;
pub mod hills_pits;
pub mod import;
pub mod mask;
pub mod noise;
pub mod perlin;
pub mod progress;
pub mod random;
pub mod thermal;

use crate::heightmap::Heightmap;
use crate::io::height_files::ImportError;
use crate::params::{ParamVisitor, Params};
use crate::rng::StageRng;
use crate::world_window::WorldWindow;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The map before a stage, computed again at another sampling of the
/// same world: the recipe's earlier stages run at (`width`, `height`).
pub type EarlierStages = Arc<dyn Fn(usize, usize) -> Result<Heightmap, StageError> + Send + Sync>;

pub use adjust::{Clamp, Normalize, Terrace};
pub use blur::Blur;
pub use combine::Combine;
pub use diamond_square::DiamondSquare;
pub use droplets::HydraulicErosion;
pub use fluvial::FluvialErosion;
pub use hill_features::HillFeatures;
pub use hills_pits::HillsAndPits;
pub use import::Import;
pub use noise::NoiseStage;
pub use progress::{Progress, ProgressValue};
pub use random::RandomValues;
pub use thermal::ThermalErosion;

/// What a stage may use besides the map: its own random stream and the
/// recipe's context.
pub struct StageContext<'a> {
    /// This stage's own stream, from the recipe seed and the stage's index.
    pub rng: StageRng,
    /// Folder that relative paths in the recipe are resolved against.
    pub base_dir: Option<PathBuf>,
    /// World units between neighbouring cells (slopes, talus angles,
    /// lengths given in world units).
    pub cell_size: f32,
    /// Set by a stage whose own last pass looked at every output cell
    /// anyway (a row still in cache): `Some(true)` when all are finite.
    /// The pipeline then skips its separate overflow scan of the map.
    pub output_finite: Option<bool>,
    /// Runs the recipe's earlier stages at another sampling, for a stage
    /// that starts at a coarse level (fluvial erosion); `None` outside a
    /// pipeline, where such a stage resamples its input instead.
    pub earlier_stages: Option<EarlierStages>,
    /// The run's cancel flag: a long stage checks it between its steps
    /// and stops early (the pipeline then reports the run as cancelled).
    pub cancel: Option<&'a AtomicBool>,
    /// Where the map lies in the world: `None` when the map is the whole
    /// world. Stages compute from world coordinates, so a window's cells
    /// equal the same cells of the whole map.
    pub window: Option<WorldWindow>,
    /// The whole world's lowest and highest height before this stage,
    /// from a barrier phase, for a stage that rescales by them
    /// (Normalize, Terrace) when the map is only a window.
    pub world_range: Option<(f32, f32)>,
    /// Set by a stage that tracks the material it laid down (world units
    /// per cell of the map it returns): the `deposition` map takes this
    /// for the stage instead of where its output rose above its input.
    pub laid_down: Option<Vec<f32>>,
}

impl StageContext<'_> {
    /// A context with unit cells and no base folder.
    pub fn new(rng: StageRng) -> Self {
        Self {
            rng,
            base_dir: None,
            cell_size: 1.0,
            output_finite: None,
            earlier_stages: None,
            cancel: None,
            window: None,
            world_range: None,
            laid_down: None,
        }
    }

    /// The map's place in the world: the context's window, or the whole
    /// world when the map is all of it.
    pub fn window_of(&self, map: &Heightmap) -> WorldWindow {
        self.window
            .unwrap_or_else(|| WorldWindow::whole(map.width(), map.height()))
    }

    /// The whole world's (lowest, highest) height of `map`'s stage input:
    /// the barrier phase's facts when given, else the map's own range when
    /// it is the whole world.
    pub fn world_range(&self, map: &Heightmap) -> Result<(f32, f32), StageError> {
        match self.world_range {
            Some(range) => Ok(range),
            None if self.window_of(map).is_whole() => Ok(map.range()),
            None => Err(StageError::MissingWorldRange),
        }
    }

    /// Refuses a window smaller than the world, for a stage that cannot
    /// yet compute one exactly.
    pub fn require_whole_world(&self, map: &Heightmap) -> Result<(), StageError> {
        if self.window_of(map).is_whole() {
            Ok(())
        } else {
            Err(StageError::WholeWorldOnly)
        }
    }

    /// Whether the run was cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// The map before this stage at (`width`, `height`), when the recipe's
    /// earlier stages can be run again at that sampling.
    pub fn earlier_stages_at(
        &self,
        width: usize,
        height: usize,
    ) -> Result<Option<Heightmap>, StageError> {
        match &self.earlier_stages {
            Some(run) => run(width, height).map(Some),
            None => Ok(None),
        }
    }

    /// `length` world units, in cells.
    pub fn cells(&self, length: f32) -> f32 {
        length / self.cell_size
    }
}

/// A stage that could not run (for example an import file that vanished).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StageError {
    /// The run's cancel flag was set while the stage worked; the pipeline
    /// reports the run as cancelled.
    #[error("cancelled")]
    Cancelled,
    /// An import stage's file could not be read or decoded.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// Valid parameters combined into heights too large for an `f32`.
    #[error("heights overflowed to {0}; lower the amplitudes or use another combine mode")]
    Overflow(f32),
    /// The recipe's earlier stages, run again at another sampling for a
    /// stage that works coarse to fine, failed.
    #[error("the stages before, run at {width}x{height}: {reason}")]
    EarlierStages {
        /// Cells west to east of that run.
        width: usize,
        /// Cells north to south of that run.
        height: usize,
        /// Why that run stopped (the pipeline's own message: the pipeline
        /// sits above the stages, so its error is carried as text).
        reason: String,
    },
    /// The stage cannot yet compute a window of the world exactly (its
    /// cells depend on the whole map), and the map is a proper window.
    #[error(
        "cannot compute a window of the world alone yet (its result depends on the whole map); generate the whole map"
    )]
    WholeWorldOnly,
    /// The stage rescales by the whole world's height range and the map
    /// is a window, but no range from a barrier phase was given.
    #[error(
        "needs the whole world's height range before it; run the barrier phase and pass its facts"
    )]
    MissingWorldRange,
    /// Fluvial erosion with every edge closed and no sea: water has
    /// nowhere to go.
    #[error("no water can leave the map: let at least one edge drain or turn the sea on")]
    NoOutlet,
    /// A window smaller than one erosion block with its halo.
    #[error(
        "the window {width}x{height} is smaller than one erosion block with its halo ({block_cells} cells)"
    )]
    WindowBelowBlock {
        /// The window's cells west to east.
        width: usize,
        /// North to south.
        height: usize,
        /// One block with its halo, a side.
        block_cells: usize,
    },
    /// Fluvial erosion's blocks below the smallest that keep a halo and a
    /// blend worth the name.
    #[error(
        "fluvial erosion's block_size {block_size} is below {min} cells; use 0 (every level on the whole map) or {min} or more"
    )]
    BlockTooSmall {
        /// The recipe's block size.
        block_size: u32,
        /// The smallest allowed.
        min: u32,
    },
    /// A map of a stage run by blocks that a block cannot compute from
    /// its own cells (a map by height, image or painting can; slope,
    /// flow and lakes need the whole world).
    #[error(
        "fluvial erosion's {map}: a slope, flow or lakes map cannot be eroded by blocks (worlds of more than 2 × block_size cells a side); set block_size to 0, or use a height, image or painted map"
    )]
    MapNotCellwise {
        /// The map's field (`uplift_map`, `hardness_map`).
        map: &'static str,
    },
    /// A mask by image that names no file.
    #[error("mask image: no path given")]
    NoMaskImage,
    /// A mask image that could not be read.
    #[error("mask image {path}: {reason}")]
    MaskImage {
        /// The file, as resolved.
        path: String,
        /// What the image reader said.
        reason: String,
    },
    /// A painted mask that could not be found or read (its own message).
    #[error("{0}")]
    PaintedMask(std::sync::Arc<crate::stages::mask::painted::PaintedMaskError>),
    /// A broken invariant of the stage's own code: a bug to report.
    #[error("internal error: {0}")]
    Internal(&'static str),
}

/// Whether every cell of `row` is finite: a branch-free pass that
/// vectorises (all exponent bits set means infinite or NaN), for a stage
/// to run on a row it has just written and still holds in cache.
#[inline]
pub fn row_is_finite(row: &[f32]) -> bool {
    const EXPONENT: u32 = 0x7f80_0000;
    !row.iter()
        .fold(false, |bad, v| bad | (v.to_bits() & EXPONENT == EXPONENT))
}

/// One algorithm: parameters plus the transformation of the map.
pub trait StageOp: Params {
    /// Transforms `map` in place; fails only when the stage cannot run at all.
    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError>;

    /// Whether finite input cells always give finite output cells. The
    /// pipeline then skips its overflow scan after this stage: the input
    /// was scanned after the stage before (or is the flat start).
    fn keeps_finite(&self) -> bool {
        false
    }

    /// Whether the stage overwrites the map without reading it (a layer
    /// combined by Replace, an import): what came before is lost.
    fn discards_input(&self) -> bool {
        false
    }

    /// Whether the stage moves material (wear and deposition) rather than
    /// shaping or rescaling the map: its change goes into the `wear` and
    /// `deposition` maps, and under a mask it fills the hollows it dug.
    fn moves_material(&self) -> bool {
        false
    }

    /// Whether the stage asks for the earlier stages' map at coarser
    /// samplings ([`StageContext::earlier_stages`]).
    fn uses_coarse_levels(&self) -> bool {
        false
    }

    /// The window of its input the stage needs to compute `output` (a
    /// window of the world, cells of `cell_size`) exactly: the same window
    /// for a stage that works cell by cell, a larger one for a stage that
    /// reads neighbours (a blur's halo). Clipped to the world.
    fn input_window(&self, output: &WorldWindow, cell_size: f32) -> WorldWindow {
        let _ = cell_size;
        *output
    }

    /// Whether a window run needs the whole world's height range before
    /// this stage ([`StageContext::world_range`]): a barrier.
    fn needs_world_range(&self) -> bool {
        false
    }

    /// Refuses, before anything runs, a proper window of a
    /// `world_width × world_height` world that the stage cannot compute
    /// exactly (fluvial erosion by blocks with a map by slope, flow or
    /// lakes).
    fn window_refusal(&self, world_width: usize, world_height: usize) -> Result<(), StageError> {
        let _ = (world_width, world_height);
        Ok(())
    }

    /// The parameter that measures how far the stage runs (iterations,
    /// droplets, years), for stepping through its progress; `None` for a
    /// stage without one.
    fn progress(&mut self) -> Option<Progress<'_>> {
        None
    }
}

macro_rules! stage_catalogue {
    ($($variant:ident($ty:ty) = $kind:literal, $label:literal, $help:literal;)*) => {
        /// Every algorithm orogen offers, with its parameters.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub enum Stage {
            $(#[doc = $help] $variant($ty),)*
        }

        impl Stage {
            /// Kebab-case kinds, as printed by `--timings`.
            pub const KINDS: &'static [&'static str] = &[$($kind,)*];

            /// Kebab-case kind (`hills-and-pits`), as printed by `--timings`.
            pub fn kind(&self) -> &'static str {
                match self { $(Stage::$variant(_) => $kind,)* }
            }

            /// The stage's display name in the viewer's stage list.
            pub fn label(&self) -> &'static str {
                match self { $(Stage::$variant(_) => $label,)* }
            }

            /// One sentence on the algorithm, for tooltips and the reference.
            pub fn help(&self) -> &'static str {
                match self { $(Stage::$variant(_) => $help,)* }
            }

            /// A stage of `kind` with default parameters.
            pub fn default_of(kind: &str) -> Option<Stage> {
                match kind {
                    $($kind => Some(Stage::$variant(<$ty>::default())),)*
                    _ => None,
                }
            }

            /// Display label of a kind.
            pub fn label_of(kind: &str) -> &'static str {
                match kind {
                    $($kind => $label,)*
                    _ => "unknown",
                }
            }

            /// The stage's parameters and algorithm, to run it.
            pub fn op(&self) -> &dyn StageOp {
                match self { $(Stage::$variant(s) => s,)* }
            }

            /// The stage's parameters and algorithm, to edit or clamp them.
            pub fn op_mut(&mut self) -> &mut dyn StageOp {
                match self { $(Stage::$variant(s) => s,)* }
            }
        }
    };
}

stage_catalogue! {
    RandomValues(RandomValues) = "random-values", "Random values",
        "Every cell gets an independent uniform random value (the articles' random start).";
    HillsAndPits(HillsAndPits) = "hills-and-pits", "Hills and pits",
        "Paraboloid caps (peak = h·R²) at random centres; pit layers dig instead. The defaults are article 000's final recipe: 225 hills, R 14..27 cells, h 0.10..0.19, and 225 pits, R 7..10, h 0.20..0.39. R and h are drawn continuously, so the article's integers 14..27 are the range [13.5, 27.5) here: each integer's share of it, the same mean and spread, and a radius that can later follow the map's sampling.";
    Blur(Blur) = "blur", "Blur",
        "Box blur: each cell becomes the mean of its (2r+1)² neighbourhood, repeated.";
    HillFeatures(HillFeatures) = "hill-features", "Hill features",
        "THREE.Terrain's Hill method: many eased feature shapes blended into the map.";
    DiamondSquare(DiamondSquare) = "diamond-square", "Diamond-square",
        "Fractal midpoint displacement; roughness H controls how fast detail fades.";
    Noise(NoiseStage) = "noise", "Noise",
        "Coherent noise (Perlin, OpenSimplex, fBm, ridged, Worley) blended into the map.";
    Clamp(Clamp) = "clamp", "Clamp",
        "Limits heights to a range (min 0 is the article's 'negatives to 0').";
    Normalize(Normalize) = "normalize", "Normalize",
        "Rescales the map linearly so its lowest cell is min and highest is max.";
    Terrace(Terrace) = "terrace", "Terrace",
        "Quantises heights into flat steps with adjustable edge sharpness.";
    HydraulicErosion(HydraulicErosion) = "hydraulic-erosion", "Hydraulic erosion",
        "Water droplets carve gullies and deposit sediment fans (particle model after Beyer 2015).";
    FluvialErosion(FluvialErosion) = "fluvial-erosion", "Fluvial erosion",
        "Rivers cut valleys by stream power (E = K·A^m·S^n, implicit after Braun & Willett 2013) against uplift, with hillslope diffusion; depressions are routed out through their lowest pass.";
    ThermalErosion(ThermalErosion) = "thermal-erosion", "Thermal erosion",
        "Material slides down slopes steeper than the talus angle, softening cliffs into scree.";
    Import(Import) = "import", "Import",
        "Starts from an existing heightmap file: PNG 8/16-bit, RAW16, 16-bit TIFF, or float EXR/TIFF (true heights).";
}

impl Params for Stage {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        self.op_mut().visit(v);
    }
}
