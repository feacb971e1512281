//! Drawing what regeneration handed over: the display path's choice
//! ([`path`]), the scene around the terrain ([`scene`]), the CPU path's
//! mesh ([`cpu_terrain`]), the GPU path's LOD terrain ([`gpu_terrain`])
//! and lakes and rivers as water ([`water`]). Reads the handoff
//! resources; never starts a job.

pub mod assets;
pub mod cpu_terrain;
pub mod gpu_terrain;
pub mod path;
pub mod scene;
pub mod water;

use crate::viewer::schedule::ViewerSystems;
use bevy::prelude::*;

/// The scene, both terrain paths and the choice between them.
pub struct TerrainRenderPlugin;

impl Plugin for TerrainRenderPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            scene::TerrainScenePlugin,
            gpu_terrain::GpuTerrainPlugin,
            water::WaterBodiesPlugin,
        ))
        .add_systems(
            Update,
            path::choose_display_path.in_set(ViewerSystems::Edit),
        );
    }
}
