//! The viewer's shared resources: what the user edits (recipe, tiles),
//! what is shown (stage, view settings) and what was generated.
//!
//! Panels edit copies and assign only when a value really changed, so
//! change detection on these resources means "the user edited something".

use bevy::prelude::*;
use orogen_core::pipeline::PipelineOutput;
use orogen_core::splat::TileSet;
use orogen_core::{Heightmap, Recipe};
use std::path::PathBuf;
use std::sync::Arc;

/// The recipe being edited, tiles included. A change starts a job; the
/// pipeline's cache makes a tile-only edit re-render just the texture.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct EditedRecipe(pub Recipe);

/// Where the recipe came from: its file (if any) and the folder its
/// relative paths resolve against.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct RecipeSource {
    pub file: Option<PathBuf>,
    pub base_dir: Option<PathBuf>,
    /// The recipe as last loaded or saved: edits away from it are unsaved
    /// (`None`: nothing loaded or saved yet, so any recipe is unsaved).
    pub saved: Option<Recipe>,
}

impl RecipeSource {
    /// The file a recipe opened by `name` saves back to: none for a
    /// shipped preset's name.
    pub fn file_of(name: &str) -> Option<PathBuf> {
        orogen_core::presets::text(name)
            .is_none()
            .then(|| PathBuf::from(name))
    }
}

/// Which map the 3D view shows: the final map, or the map after one stage
/// (the stage-by-stage demo). Changing it rebuilds mesh and texture only.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DisplayedStage(pub Option<usize>);

/// Who draws the terrain: the GPU (height texture, LOD patches, per-pixel
/// splat) or, where the adapter cannot or `--cpu-terrain` asks, the CPU
/// (a mesh of at most 1025² vertices and a splat texture), with the reason.
#[derive(Resource, Clone, Debug, Default, PartialEq, Eq)]
pub enum DisplayPath {
    #[default]
    Gpu,
    Cpu(String),
}

impl DisplayPath {
    pub fn is_gpu(&self) -> bool {
        matches!(self, DisplayPath::Gpu)
    }
}

/// Which image the small 2D preview shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PreviewKind {
    #[default]
    Texture,
    Heightmap,
}

/// Settings that change only how the scene is drawn; never regenerates.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct ViewSettings {
    /// Vertical exaggeration applied as a transform scale.
    pub height_scale: f32,
    pub wireframe: bool,
    pub water_enabled: bool,
    /// Water surface height in world units (before exaggeration).
    pub water_level: f32,
    /// Sun compass direction in degrees, 0 = north, 90 = east.
    pub sun_azimuth: f32,
    /// Sun height above the horizon in degrees.
    pub sun_elevation: f32,
    pub shadows: bool,
    pub preview: PreviewKind,
    /// Tint the drainage network (log drainage area) over the terrain and
    /// the 2D preview; derived from the shown map, never regenerates.
    pub flow_overlay: bool,
}

impl Default for ViewSettings {
    fn default() -> Self {
        Self {
            height_scale: 1.0,
            wireframe: false,
            water_enabled: false,
            water_level: 10.0,
            sun_azimuth: 135.0,
            sun_elevation: 35.0,
            shadows: true,
            preview: PreviewKind::Texture,
            flow_overlay: false,
        }
    }
}

/// A small RGBA image for the 2D preview (egui texture data).
#[derive(Clone, Debug, Default)]
pub struct PreviewImage {
    pub width: usize,
    pub height: usize,
    pub rgba: Vec<u8>,
}

/// The drainage network of a shown map: a 0..1 strength per cell of a
/// grid over the map's extent (the map itself, or the map resampled to
/// at most [`super::display::FLOW_MAX_SIDE`] a side).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowField {
    pub width: usize,
    pub height: usize,
    pub strength: Vec<f32>,
}

impl FlowField {
    /// `rgba` (`width × height` pixels over the same extent) with the
    /// network tinted in.
    pub fn tint(&self, rgba: &mut [u8], width: usize, height: usize) {
        orogen_core::maps::flow::tint_rgba(
            rgba,
            width,
            height,
            &self.strength,
            self.width,
            self.height,
        );
    }
}

/// The newest finished generation: the pipeline's output plus what the
/// display was built from. `Generated::serial` grows with every result.
#[derive(Resource, Clone, Debug, Default)]
pub struct Generated {
    pub serial: u64,
    pub output: Option<PipelineOutput>,
    /// The recipe `output` was generated from (exports use it, not the
    /// edited one, so files always match the map).
    pub recipe: Option<Recipe>,
    /// The bands the texture was rendered with (auto bands resolved).
    pub effective_tiles: Option<TileSet>,
    /// The map currently displayed (final map or the chosen stage's).
    pub shown_map: Option<Arc<Heightmap>>,
    pub shown_stage: Option<usize>,
    pub shown_min: f32,
    pub shown_max: f32,
    /// Mesh vertices a side as displayed, and whether that is decimated.
    pub mesh_columns: usize,
    pub mesh_rows: usize,
    pub decimated: bool,
    pub texture_side: (usize, usize),
    /// Milliseconds spent building the mesh and the splat texture.
    pub mesh_millis: f64,
    pub texture_millis: f64,
    /// Counts of heights in equal bins from `shown_min` to `shown_max`.
    pub histogram: Vec<u32>,
    pub heightmap_preview: PreviewImage,
    pub texture_preview: PreviewImage,
    pub warnings: Vec<String>,
    /// The shown map resampled to the 2D preview's size, and the tile
    /// images: a band edit repaints the texture preview from these.
    pub preview_map: Option<Arc<Heightmap>>,
    pub tile_images: Option<Arc<orogen_core::splat::TileImages>>,
    /// Grows when the texture preview is repainted without a new
    /// generation (a band edit on the GPU path), so the panel redraws it.
    pub preview_version: u64,
    /// The shown map's drainage network: built with the generation when
    /// the flow overlay is on, or later from the shown map when it is
    /// switched on (never by re-running the pipeline).
    pub flow: Option<Arc<FlowField>>,
    /// The CPU path's splat texture as generated (untinted), so the flow
    /// overlay can be switched on and off without a job.
    pub cpu_splat: Option<Arc<PreviewImage>>,
    /// Whether the CPU path's texture the job built already carries the
    /// flow tint.
    pub cpu_splat_tinted: bool,
    /// Why the latest request produced nothing (invalid recipe, stage error).
    pub error: Option<String>,
}

impl Generated {
    pub fn has_terrain(&self) -> bool {
        self.shown_map.is_some()
    }
}

/// Whether the UI uses the pointer or keyboard, as seen by the last UI
/// frame. Kept by the panels because bevy_egui's `EguiWantsInput` does
/// not count hovering a side panel as "over egui".
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UiFocus {
    pub pointer: bool,
    pub keyboard: bool,
}
