//! The flow overlay: the shown map's drainage network (drainage area on a
//! log scale, [`orogen_core::maps::flow`]) tinted water blue over the
//! terrain and the 2D preview, so erosion edits show where water runs.
//!
//! It is derived from the map on screen and never re-runs the pipeline.
//! While it is on, each level of a regeneration job builds the network
//! with its display ([`FlowWanted`]); switched on over a map built
//! without it, a task here routes the shown map once. The 2D preview is
//! tinted by its panel, the CPU path's texture by the scene's upload (the
//! untinted one is kept with the generation), and the GPU path blends a
//! small strength texture in its shader.

use super::layer_job::LayerJob;
use crate::viewer::display_data::flow::{FlowField, erosion_overlay_field, overlay_field};
use crate::viewer::handoff::Generated;
use crate::viewer::settings::ViewSettings;
use bevy::prelude::*;
use orogen_core::maps::DerivedMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Which overlay jobs build with each level (none while the overlay is
/// off). Read by the job as each level is built, so it is no part of the
/// request: switching the overlay or its map starts no job.
#[derive(Resource, Clone, Debug, Default)]
pub struct FlowWanted(pub Arc<AtomicU8>);

impl FlowWanted {
    pub fn get(&self) -> Option<DerivedMap> {
        decode(self.0.load(Ordering::Relaxed))
    }

    pub fn set(&self, wanted: Option<DerivedMap>) {
        self.0.store(encode(wanted), Ordering::Relaxed);
    }
}

/// 0 for none, 1 + the map's place in [`DerivedMap::ALL`] otherwise.
pub fn encode(map: Option<DerivedMap>) -> u8 {
    map.and_then(|m| DerivedMap::ALL.iter().position(|&k| k == m))
        .map_or(0, |i| i as u8 + 1)
}

/// The inverse of [`encode`].
pub fn decode(value: u8) -> Option<DerivedMap> {
    (value as usize)
        .checked_sub(1)
        .and_then(|i| DerivedMap::ALL.get(i).copied())
}

/// The network being routed for a generation that came without one.
pub type FlowJob = LayerJob<FlowField>;

/// Jobs build the network with each level while the overlay is on.
pub fn want_flow_with_jobs(view: Res<ViewSettings>, wanted: Res<FlowWanted>) {
    wanted.set(view.flow_overlay.then_some(view.overlay));
}

/// With the overlay on and a shown map without its network, routes that
/// map off the main thread.
pub fn compute_missing_flow(
    view: Res<ViewSettings>,
    mut job: ResMut<FlowJob>,
    mut generated: ResMut<Generated>,
) {
    // Another map chosen: the shown overlay is rebuilt for it.
    if view.flow_overlay
        && generated
            .flow
            .as_ref()
            .is_some_and(|f| f.kind != view.overlay)
    {
        generated.flow = None;
    }
    let kind = view.overlay;
    // Wear and deposition: from the run's record of the shown stage (the
    // output holds its maps by reference, so the clone is cheap).
    let run = kind
        .needs_erosion_record()
        .then(|| (generated.output.clone(), generated.recipe.clone()))
        .and_then(|(output, recipe)| Some((output?, recipe?, generated.shown_stage)));
    job.step(
        view.flow_overlay,
        &mut generated,
        |g| &mut g.flow,
        move |map, cell| match run {
            Some((output, recipe, stage)) => {
                erosion_overlay_field(map, &output.erosion_record(&recipe, stage), cell, kind)
            }
            None => overlay_field(map, cell, kind),
        },
    );
}
