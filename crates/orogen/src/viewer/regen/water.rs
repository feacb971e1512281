//! Lakes and rivers as water ([`crate::viewer::display_data::water`]):
//! built with each level while they are shown, or once from the shown
//! map when switched on over a map built without them. Never re-runs the
//! pipeline.

use super::layer_job::LayerJob;
use crate::viewer::display_data::water::{WaterMesh, water_mesh};
use crate::viewer::handoff::Generated;
use crate::viewer::settings::ViewSettings;
use bevy::prelude::*;
use orogen_core::Heightmap;
use orogen_core::maps::MapSettings;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether jobs build the water with each level (lakes and rivers are
/// shown); read as each level is built, so switching starts no job.
#[derive(Resource, Clone, Debug, Default)]
pub struct WaterWanted(pub Arc<AtomicBool>);

/// The water being built for a generation that came without it.
pub type WaterJob = LayerJob<WaterMesh>;

/// Jobs build the water with each level while it is shown.
pub fn want_water_with_jobs(view: Res<ViewSettings>, wanted: Res<WaterWanted>) {
    wanted.0.store(view.lakes_and_rivers, Ordering::Relaxed);
}

/// With lakes and rivers shown and a shown map without them, builds them
/// off the main thread.
pub fn compute_missing_water(
    view: Res<ViewSettings>,
    mut job: ResMut<WaterJob>,
    mut generated: ResMut<Generated>,
) {
    job.step(
        view.lakes_and_rivers,
        &mut generated,
        |g| &mut g.water,
        default_water,
    );
}

fn default_water(map: &Heightmap, cell: f32) -> WaterMesh {
    water_mesh(map, cell, &MapSettings::default())
}
