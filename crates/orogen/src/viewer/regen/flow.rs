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
use crate::viewer::display_data::flow::{FlowField, flow_field};
use crate::viewer::handoff::Generated;
use crate::viewer::settings::ViewSettings;
use bevy::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether jobs build the flow overlay's drainage network with each level
/// (the overlay is on). Read by the job as each level is built, so it is
/// no part of the request: switching the overlay starts no job.
#[derive(Resource, Clone, Debug, Default)]
pub struct FlowWanted(pub Arc<AtomicBool>);

impl FlowWanted {
    pub fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub fn set(&self, wanted: bool) {
        self.0.store(wanted, Ordering::Relaxed);
    }
}

/// The network being routed for a generation that came without one.
pub type FlowJob = LayerJob<FlowField>;

/// Jobs build the network with each level while the overlay is on.
pub fn want_flow_with_jobs(view: Res<ViewSettings>, wanted: Res<FlowWanted>) {
    wanted.set(view.flow_overlay);
}

/// With the overlay on and a shown map without its network, routes that
/// map off the main thread.
pub fn compute_missing_flow(
    view: Res<ViewSettings>,
    mut job: ResMut<FlowJob>,
    mut generated: ResMut<Generated>,
) {
    job.step(
        view.flow_overlay,
        &mut generated,
        |g| &mut g.flow,
        flow_field,
    );
}
