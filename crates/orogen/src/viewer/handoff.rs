//! The only resources that regeneration writes and the scene, camera,
//! panels and screenshot read: the newest generation, the bands it is
//! drawn with, and the assets waiting to be uploaded. Regeneration is
//! their one writer, except that the scene takes what it uploads and
//! queues the CPU texture again when the flow overlay is switched.

use super::display_data::flow::FlowField;
use super::display_data::gpu::HeightUpload;
use super::display_data::preview::PreviewImage;
use super::display_data::water::WaterMesh;
use bevy::prelude::*;
use orogen_core::pipeline::PipelineOutput;
use orogen_core::splat::TileSet;
use orogen_core::{Heightmap, Recipe};
use std::sync::Arc;

/// The newest finished generation: the pipeline's output plus what the
/// display was built from. `Generated::serial` grows with every result.
#[derive(Resource, Clone, Debug, Default)]
pub struct Generated {
    pub serial: u64,
    pub output: Option<PipelineOutput>,
    /// The recipe `output` was generated from (exports use it, not the
    /// edited one, so files always match the map; its tiles are those of
    /// the generation: band edits since are in [`ShownBands`]).
    pub recipe: Option<Recipe>,
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
    pub warnings: Vec<String>,
    /// The shown map resampled to the 2D preview's size, and the tile
    /// images: a band edit repaints the texture preview from these.
    pub preview_map: Option<Arc<Heightmap>>,
    pub tile_images: Option<Arc<orogen_core::splat::TileImages>>,
    /// The shown map's drainage network: built with the generation when
    /// the flow overlay is on, or later from the shown map when it is
    /// switched on (never by re-running the pipeline).
    pub flow: Option<Arc<FlowField>>,
    /// The shown map's lakes and rivers as water: built with the
    /// generation while they are shown, or later from the shown map.
    pub water: Option<Arc<WaterMesh>>,
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

/// The bands the terrain is drawn with now. A job's level brings its
/// recipe's bands; on the GPU path a band-only edit lands here without a
/// job (the map and its exports stay valid), and the GPU material and the
/// texture preview follow.
#[derive(Resource, Clone, Debug, Default)]
pub struct ShownBands {
    /// The shown recipe's tiles as edited (auto bands unresolved).
    pub tiles: Option<TileSet>,
    /// `tiles` with auto bands resolved over the shown map's range (an
    /// earlier stage always gets auto bands, as on the CPU path).
    pub effective: Option<TileSet>,
    /// The splat painted at the preview's size with `effective`.
    pub texture_preview: PreviewImage,
    /// Grows with every repaint, so the panel re-uploads the preview.
    pub version: u64,
}

impl ShownBands {
    /// The bands to draw now over `generated`'s shown map: the shown
    /// tiles with auto bands resolved over its range (an earlier stage
    /// always gets auto bands, as on the CPU path).
    pub fn resolved(&self, generated: &Generated) -> Option<TileSet> {
        let mut tiles = self.tiles.clone()?;
        if generated.shown_stage.is_some() {
            tiles.auto_bands = true;
        }
        Some(tiles.effective(generated.shown_min, generated.shown_max))
    }

    /// The generated recipe with the bands shown now: what an export of
    /// the shown map writes.
    pub fn shown_recipe(&self, generated: &Generated) -> Option<Recipe> {
        let mut recipe = generated.recipe.clone()?;
        if let Some(tiles) = &self.tiles {
            recipe.tiles = tiles.clone();
        }
        Some(recipe)
    }
}

/// Render assets built by the last job, waiting for the scene to upload
/// them (taken, not cloned: a 1024² texture is 4 MiB): the CPU path's
/// mesh and texture, or the GPU path's height texture.
#[derive(Resource, Default)]
pub struct PendingUpload {
    pub mesh: Option<Mesh>,
    pub image: Option<Image>,
    pub heights: Option<HeightUpload>,
}
