//! A layer derived from the shown map (the flow network, the water) that
//! a generation came without: built once off the main thread when it is
//! switched on, landing only on the generation it was built for.

use crate::viewer::handoff::Generated;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use orogen_core::Heightmap;
use std::sync::Arc;

/// The task building layer `T` for one generation.
#[derive(Resource)]
pub struct LayerJob<T: Send + Sync + 'static> {
    /// The generation's serial, and the task building its layer.
    task: Option<(u64, Task<Option<T>>)>,
    /// A generation whose build failed (panicked): not retried.
    failed: Option<u64>,
    /// Tasks started so far (a test hook).
    pub started_count: u64,
}

impl<T: Send + Sync + 'static> Default for LayerJob<T> {
    fn default() -> Self {
        LayerJob {
            task: None,
            failed: None,
            started_count: 0,
        }
    }
}

impl<T: Send + Sync + 'static> LayerJob<T> {
    pub fn is_busy(&self) -> bool {
        self.task.is_some()
    }

    /// Lands a finished build in `slot` of the generation it was built
    /// for; while `wanted` and the shown map lacks the layer, starts
    /// `build` over that map (with its cell size).
    pub fn step(
        &mut self,
        wanted: bool,
        generated: &mut Generated,
        slot: fn(&mut Generated) -> &mut Option<Arc<T>>,
        build: impl FnOnce(&Heightmap, f32) -> T + Send + 'static,
    ) {
        if let Some((serial, task)) = self.task.as_mut() {
            let Some(result) = check_ready(task) else {
                return;
            };
            let serial = *serial;
            self.task = None;
            match result {
                Some(layer) if generated.serial == serial && slot(generated).is_none() => {
                    *slot(generated) = Some(Arc::new(layer));
                }
                Some(_) => {}
                None => self.failed = Some(serial),
            }
        }
        if !wanted || slot(generated).is_some() || self.failed == Some(generated.serial) {
            return;
        }
        let (Some(map), Some(recipe)) = (generated.shown_map.clone(), generated.recipe.as_ref())
        else {
            return;
        };
        // The level's own recipe: its cell size is the shown map's.
        let cell = recipe.cell_size();
        let task = AsyncComputeTaskPool::get().spawn(async move {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| build(&map, cell))).ok()
        });
        self.task = Some((generated.serial, task));
        self.started_count += 1;
    }
}
