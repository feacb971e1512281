//! The one loop every run of a recipe's stages goes through.
//!
//! A run is a [`Plan`] (which stages, each over which window of the
//! world) carried out by the [`Executor`] into a [`StageStore`], which
//! decides where maps live between stages:
//!
//! - [`PerStage`]: every stage's map kept, for the viewer's cache
//!   ([`crate::pipeline::Pipeline`]);
//! - [`InPlace`]: one map changed in place by every stage, for a final
//!   map ([`crate::pipeline::run_once`]);
//! - [`Windowed`]: each stage over the window the later ones need,
//!   cropped between stages, for farms ([`crate::window::run_window`]).
//!
//! What watches a run without changing it (the erosion record) is a
//! [`StageObserver`]; a stage's mask wraps its algorithm
//! ([`crate::stages::mask::StageMask::apply`]).

mod erosion_record;
mod outcome;
mod per_stage;
mod stores;

pub(crate) use erosion_record::{LaidDownByStage, Recording};
pub use outcome::{PipelineError, RunHooks, StageOutput};
pub(crate) use per_stage::{Cached, PerStage, file_stamps};
pub(crate) use stores::{InPlace, Windowed};

use crate::heightmap::Heightmap;
use crate::recipe::{Recipe, StageEntry};
use crate::rng::stage_rng;
use crate::stages::{EarlierStages, StageContext, StageError};
use crate::world_window::WorldWindow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Where a stage runs: the map's window of the world (`None`: the map is
/// the whole world) and the world's height range before the stage, from
/// a barrier phase.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StagePlace {
    pub window: Option<WorldWindow>,
    pub world_range: Option<(f32, f32)>,
}

/// The stages a run computes and where each runs.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The first stage to run: those before it are cached, or cannot
    /// change the result.
    start: usize,
    /// One past the last stage to run.
    end: usize,
    /// Each stage's place, by stage index; empty for the whole world.
    places: Vec<StagePlace>,
}

impl Plan {
    /// Stages `start..end` over the whole world.
    pub fn whole_world(start: usize, end: usize) -> Self {
        Self {
            start,
            end,
            places: Vec::new(),
        }
    }

    /// Stages `start..end`, stage `i` at `places[i]`.
    pub fn placed(start: usize, end: usize, places: Vec<StagePlace>) -> Self {
        debug_assert!(places.len() >= end);
        Self { start, end, places }
    }

    fn place(&self, index: usize) -> StagePlace {
        self.places.get(index).copied().unwrap_or_default()
    }
}

/// Where maps live between stages.
pub(crate) trait StageStore {
    /// Before stage `index` runs or is passed over.
    fn begin(&mut self, index: usize, entry: &StageEntry) {
        let _ = (index, entry);
    }

    /// The map stage `index` changes in place: what the stages before it
    /// left.
    fn take(&mut self, index: usize) -> Heightmap;

    /// Stage `index` ran for `millis` and left `map`.
    fn put(&mut self, index: usize, entry: &StageEntry, map: Heightmap, millis: f64);

    /// Stage `index` is switched off: its output is its input.
    fn pass(&mut self, index: usize, entry: &StageEntry);
}

/// Watches the stages that run, without changing their maps.
pub(crate) trait StageObserver {
    /// Stage `index` is about to change `map`.
    fn before(&mut self, index: usize, entry: &StageEntry, map: &Heightmap) {
        let _ = (index, entry, map);
    }

    /// Stage `index` left `map`, having laid down `laid_down` (world
    /// units per cell) when it tracks that.
    fn after(
        &mut self,
        index: usize,
        entry: &StageEntry,
        map: &Heightmap,
        laid_down: Option<&[f32]>,
    ) {
        let _ = (index, entry, map, laid_down);
    }
}

/// No observer.
impl StageObserver for () {}

/// Runs the stages of one recipe.
pub(crate) struct Executor<'r> {
    recipe: &'r Recipe,
    base_dir: Option<PathBuf>,
}

impl<'r> Executor<'r> {
    /// An executor for `recipe`, whose relative paths resolve in `base_dir`.
    pub fn new(recipe: &'r Recipe, base_dir: Option<PathBuf>) -> Self {
        Self { recipe, base_dir }
    }

    /// Carries out `plan` into `store`, telling `observer` of each stage
    /// that runs; `hooks` may cancel the run between stages.
    pub fn run(
        &self,
        plan: &Plan,
        store: &mut impl StageStore,
        observer: &mut impl StageObserver,
        hooks: &mut RunHooks<'_>,
    ) -> Result<(), PipelineError> {
        let count = self.recipe.stages.len();
        for index in plan.start..plan.end {
            let entry = &self.recipe.stages[index];
            hooks.before_stage(index, count)?;
            store.begin(index, entry);
            if !entry.enabled {
                store.pass(index, entry);
                continue;
            }
            let start = Instant::now();
            let mut map = store.take(index);
            observer.before(index, entry, &map);
            let laid_down = self.apply(index, entry, &mut map, plan.place(index), hooks)?;
            observer.after(index, entry, &map, laid_down.as_deref());
            store.put(index, entry, map, start.elapsed().as_secs_f64() * 1000.0);
        }
        Ok(())
    }

    /// Runs stage `index` on `map` in place, under its mask, then refuses
    /// heights that overflowed; returns what the stage says it laid down
    /// (see [`StageContext::laid_down`]).
    fn apply(
        &self,
        index: usize,
        entry: &StageEntry,
        map: &mut Heightmap,
        place: StagePlace,
        hooks: &RunHooks<'_>,
    ) -> Result<Option<Vec<f32>>, PipelineError> {
        let op = entry.stage.op();
        let mut ctx = StageContext {
            rng: stage_rng(self.recipe.seed, index),
            base_dir: self.base_dir.clone(),
            cell_size: self.recipe.cell_size(),
            output_finite: None,
            earlier_stages: op.uses_coarse_levels().then(|| self.earlier_stages(index)),
            cancel: hooks.cancel,
            window: place.window,
            world_range: place.world_range,
            laid_down: None,
        };
        let applied = match &entry.mask {
            Some(mask) => mask.apply(op, map, &mut ctx),
            None => op.apply(map, &mut ctx),
        };
        let stage_error = |error| PipelineError::Stage {
            index,
            kind: entry.stage.kind(),
            error,
        };
        applied.map_err(|error| {
            // A stage that stopped for the cancel flag has no error of its own.
            if ctx.cancelled() || matches!(error, StageError::Cancelled) {
                PipelineError::Cancelled
            } else {
                stage_error(error)
            }
        })?;
        // Finite input stays finite through some stages, and others checked
        // their output rows as they wrote them: no separate scan for those.
        let laid_down = ctx.laid_down.take();
        if op.keeps_finite() || ctx.output_finite == Some(true) {
            return Ok(laid_down);
        }
        // Valid parameters can still combine into overflow (say, several
        // Multiply layers near their limits): refuse it here rather than
        // export infinities.
        match map.first_non_finite() {
            Some(bad) => Err(stage_error(StageError::Overflow(bad))),
            None => Ok(laid_down),
        }
    }

    /// Runs stages `..index` again over the same world at another
    /// sampling: the coarse start of a stage that erodes coarse to fine,
    /// the same for every size the recipe is run at.
    fn earlier_stages(&self, index: usize) -> EarlierStages {
        let mut prefix = self.recipe.clone();
        prefix.stages.truncate(index);
        let base_dir = self.base_dir.clone();
        Arc::new(move |width, height| {
            let mut at = prefix.clone();
            at.width = width as u32;
            at.height = height as u32;
            final_map(&at, base_dir.clone()).map_err(|e| StageError::EarlierStages {
                width,
                height,
                reason: e.to_string(),
            })
        })
    }
}

/// The final map of `recipe`, its stages run in place.
fn final_map(recipe: &Recipe, base_dir: Option<PathBuf>) -> Result<Heightmap, PipelineError> {
    let count = recipe.stages.len();
    let mut store = InPlace::flat(recipe.width as usize, recipe.height as usize, count);
    Executor::new(recipe, base_dir).run(
        &Plan::whole_world(0, count),
        &mut store,
        &mut (),
        &mut RunHooks::default(),
    )?;
    Ok(store.into_map())
}
