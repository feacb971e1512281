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

use crate::viewer::display_data::flow::{FlowField, flow_field};
use crate::viewer::handoff::Generated;
use crate::viewer::settings::ViewSettings;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
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
#[derive(Resource, Default)]
pub struct FlowJob {
    /// The generation's serial, and the task routing its shown map.
    task: Option<(u64, Task<Option<FlowField>>)>,
    /// A generation whose routing failed (panicked): not retried.
    failed: Option<u64>,
    /// Tasks started so far (a test hook).
    pub started_count: u64,
}

impl FlowJob {
    pub fn is_busy(&self) -> bool {
        self.task.is_some()
    }
}

/// Jobs build the network with each level while the overlay is on.
pub fn want_flow_with_jobs(view: Res<ViewSettings>, wanted: Res<FlowWanted>) {
    wanted.set(view.flow_overlay);
}

/// With the overlay on and a shown map without its network, routes that
/// map off the main thread; a result lands only on the generation it was
/// routed for.
pub fn compute_missing_flow(
    view: Res<ViewSettings>,
    mut job: ResMut<FlowJob>,
    mut generated: ResMut<Generated>,
) {
    if let Some((serial, task)) = job.task.as_mut() {
        let Some(result) = check_ready(task) else {
            return;
        };
        let serial = *serial;
        job.task = None;
        match result {
            Some(field) if generated.serial == serial && generated.flow.is_none() => {
                generated.flow = Some(Arc::new(field));
            }
            Some(_) => {}
            None => job.failed = Some(serial),
        }
    }
    if !view.flow_overlay || generated.flow.is_some() || job.failed == Some(generated.serial) {
        return;
    }
    let (Some(map), Some(recipe)) = (generated.shown_map.clone(), generated.recipe.as_ref()) else {
        return;
    };
    // The level's own recipe: its cell size is the shown map's.
    let cell = recipe.cell_size();
    let task = AsyncComputeTaskPool::get().spawn(async move {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| flow_field(&map, cell))).ok()
    });
    job.task = Some((generated.serial, task));
    job.started_count += 1;
}
