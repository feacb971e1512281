//! What the user asked to see, apart from the recipe: the stage shown,
//! who draws the terrain, how the scene is drawn, where the UI has focus.
//!
//! Panels edit copies and assign only when a value really changed, so
//! change detection on these resources means "the user edited something".

use bevy::prelude::*;

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
    /// Which derived map the overlay shows (the drainage network by
    /// default).
    pub overlay: orogen_core::maps::DerivedMap,
    /// Draw each lake at its own spill level and rivers along their
    /// channels (derived from the shown map; never regenerates).
    pub lakes_and_rivers: bool,
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
            overlay: orogen_core::maps::DerivedMap::Flow,
            lakes_and_rivers: false,
        }
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
