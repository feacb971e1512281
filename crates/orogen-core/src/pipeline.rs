//! Runs a recipe's stages, keeps every stage's output, and re-runs only
//! the stages from the first one that changed.

pub use crate::executor::{PipelineError, RunHooks, StageOutput};
pub use crate::maps::ErosionRecord;

use crate::executor::{
    Cached, Executor, InPlace, LaidDownByStage, PerStage, Plan, Recording, file_stamps,
};
use crate::heightmap::Heightmap;
use crate::recipe::Recipe;
use crate::stages::Stage;
use std::path::PathBuf;
use std::sync::Arc;

/// The result of a run: every stage's map and the final one.
#[derive(Clone, Debug)]
pub struct PipelineOutput {
    /// One output per recipe stage, in recipe order.
    pub stages: Vec<StageOutput>,
    /// The final map (the flat starting map when the recipe has no stages).
    pub map: Arc<Heightmap>,
    /// Index of the first stage this run recomputed (`stages.len()` if none).
    pub first_rerun: usize,
}

impl PipelineOutput {
    /// Map after stage `index` (the final map if out of range).
    pub fn after_stage(&self, index: usize) -> Arc<Heightmap> {
        self.stages
            .get(index)
            .map(|s| s.map.clone())
            .unwrap_or_else(|| self.map.clone())
    }

    /// What the erosion stages of `recipe` changed, from the map each
    /// stage left (a [`Pipeline`] run's output keeps them; [`run_once`]'s
    /// does not, so use [`run_once_recording`] there), through stage
    /// `through` (all stages when `None`). The same cells as the record
    /// [`run_once_recording`] takes as it runs.
    pub fn erosion_record(&self, recipe: &Recipe, through: Option<usize>) -> ErosionRecord {
        let (width, height) = (self.map.width(), self.map.height());
        let mut record = ErosionRecord::new(width, height);
        let last = through.unwrap_or(usize::MAX);
        // The pipeline starts every run from a map of zeros.
        let zeros = vec![0.0f32; width * height];
        for (index, (entry, stage)) in recipe.stages.iter().zip(&self.stages).enumerate() {
            if index > last {
                break;
            }
            if !(entry.enabled && entry.stage.op().moves_material()) {
                continue;
            }
            let before = match index.checked_sub(1).and_then(|i| self.stages.get(i)) {
                Some(previous) => previous.map.data(),
                None => &zeros,
            };
            let after = stage.map.data();
            if before.len() != zeros.len() || after.len() != zeros.len() {
                continue;
            }
            match &stage.laid_down {
                Some(laid) if laid.len() == zeros.len() => {
                    record.add_laid_down(entry.stage.kind(), before, after, laid)
                }
                _ => record.add(entry.stage.kind(), before, after),
            }
        }
        record.finished()
    }

    /// Milliseconds of all stages, reused ones at their last run's time.
    pub fn total_millis(&self) -> f64 {
        self.stages.iter().map(|s| s.millis).sum()
    }
}

/// The inputs every stage output depends on besides its own entry.
#[derive(Clone, Debug, PartialEq)]
struct Header {
    width: u32,
    height: u32,
    seed: u64,
    extent: (u32, u32),
    base_dir: Option<PathBuf>,
}

/// A pipeline with a per-stage cache.
#[derive(Default, Clone)]
pub struct Pipeline {
    header: Option<Header>,
    cache: Vec<Cached>,
    base_dir: Option<PathBuf>,
}

impl Pipeline {
    /// An empty pipeline: its first run computes every stage.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folder that relative paths (imports) resolve against.
    pub fn with_base_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.base_dir = dir;
        self
    }

    /// Index of the first stage whose output would change.
    pub fn first_dirty(&self, recipe: &Recipe) -> usize {
        let header = self.header_of(recipe);
        if self.header.as_ref() != Some(&header) {
            return 0;
        }
        recipe
            .stages
            .iter()
            .zip(&self.cache)
            .position(|(entry, cached)| {
                *entry != cached.entry
                    || cached.files != file_stamps(entry, self.base_dir.as_deref())
            })
            .unwrap_or_else(|| recipe.stages.len().min(self.cache.len()))
    }

    fn header_of(&self, recipe: &Recipe) -> Header {
        Header {
            width: recipe.width,
            height: recipe.height,
            seed: recipe.seed,
            extent: (recipe.extent.x.to_bits(), recipe.extent.y.to_bits()),
            base_dir: self.base_dir.clone(),
        }
    }

    /// Runs the recipe (which must be valid), reusing cached stages.
    pub fn run(
        &mut self,
        recipe: &Recipe,
        mut hooks: RunHooks<'_>,
    ) -> Result<PipelineOutput, PipelineError> {
        let first = self.first_dirty(recipe);
        self.cache.truncate(first);
        self.header = Some(self.header_of(recipe));
        let mut store = PerStage::continuing(
            &mut self.cache,
            self.base_dir.as_deref(),
            recipe.width as usize,
            recipe.height as usize,
        );
        let plan = Plan::whole_world(first, recipe.stages.len());
        let mut laid = LaidDownByStage::default();
        Executor::new(recipe, self.base_dir.clone())
            .run(&plan, &mut store, &mut laid, &mut hooks)?;
        let current = store.current();
        for (index, laid_down) in laid.0 {
            if let Some(cached) = self.cache.get_mut(index) {
                cached.output.laid_down = Some(laid_down);
            }
        }
        let stages: Vec<StageOutput> = self
            .cache
            .iter()
            .enumerate()
            .map(|(i, c)| StageOutput {
                reran: i >= first,
                ..c.output.clone()
            })
            .collect();
        Ok(PipelineOutput {
            stages,
            map: current,
            first_rerun: first,
        })
    }
}

/// Runs a recipe once for its final map (the CLI, exports, batch runs):
/// every stage works in place on one map, so nothing pays for the
/// per-stage copies that [`Pipeline`] keeps to re-run edits. The same
/// bytes as a [`Pipeline`] run; each stage's `map` in the output is the
/// final map (no per-stage maps are kept).
pub fn run_once(
    recipe: &Recipe,
    base_dir: Option<PathBuf>,
    hooks: RunHooks<'_>,
) -> Result<PipelineOutput, PipelineError> {
    run_once_into(recipe, base_dir, hooks, None)
}

/// [`run_once`], also recording what the erosion stages took away and
/// laid down ([`ErosionRecord`]), for the `wear` and `deposition` maps.
/// Costs a copy of the map before each erosion stage and one map of
/// sums; the final map is the same bytes as [`run_once`]'s.
pub fn run_once_recording(
    recipe: &Recipe,
    base_dir: Option<PathBuf>,
    hooks: RunHooks<'_>,
) -> Result<(PipelineOutput, ErosionRecord), PipelineError> {
    let mut record = ErosionRecord::new(recipe.width as usize, recipe.height as usize);
    let output = run_once_into(recipe, base_dir, hooks, Some(&mut record))?;
    Ok((output, record.finished()))
}

fn run_once_into(
    recipe: &Recipe,
    base_dir: Option<PathBuf>,
    mut hooks: RunHooks<'_>,
    record: Option<&mut ErosionRecord>,
) -> Result<PipelineOutput, PipelineError> {
    let count = recipe.stages.len();
    let mut store = InPlace::flat(recipe.width as usize, recipe.height as usize, count);
    let plan = Plan::whole_world(0, count);
    let executor = Executor::new(recipe, base_dir);
    match record {
        Some(record) => {
            executor.run(&plan, &mut store, &mut Recording::into(record), &mut hooks)?
        }
        None => executor.run(&plan, &mut store, &mut (), &mut hooks)?,
    }
    let millis = std::mem::take(&mut store.millis);
    let map = Arc::new(store.into_map());
    let stages = recipe
        .stages
        .iter()
        .zip(millis)
        .map(|(entry, millis)| StageOutput {
            kind: entry.stage.kind(),
            enabled: entry.enabled,
            millis,
            reran: true,
            map: map.clone(),
            laid_down: None,
        })
        .collect();
    Ok(PipelineOutput {
        stages,
        map,
        first_rerun: 0,
    })
}

/// Whether `stage` moves material (wear and deposition) rather than
/// shaping or rescaling the map
/// ([`StageOp::moves_material`](crate::stages::StageOp::moves_material)).
pub fn is_erosion(stage: &Stage) -> bool {
    stage.op().moves_material()
}

/// Runs a recipe once, without a cache, keeping every stage's map (for
/// stepping through stages); [`run_once`] when only the final map counts.
pub fn generate(
    recipe: &Recipe,
    base_dir: Option<PathBuf>,
) -> Result<PipelineOutput, PipelineError> {
    Pipeline::new()
        .with_base_dir(base_dir)
        .run(recipe, RunHooks::default())
}
