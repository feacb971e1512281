//! Runs a recipe's stages, keeps every stage's output, and re-runs only
//! the stages from the first one that changed.

use crate::heightmap::Heightmap;
use crate::hugepages::{lazily_zeroed_f32, zeroed_in_parallel};
use crate::recipe::{Recipe, StageEntry};
use crate::rng::stage_rng;
use crate::stages::{EarlierStages, Stage, StageContext, StageError};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// One stage's result.
#[derive(Clone, Debug)]
pub struct StageOutput {
    /// The stage's kebab-case kind (`blur`, `hydraulic-erosion`, ...).
    pub kind: &'static str,
    /// Whether the stage ran; a disabled stage passes its input map through.
    pub enabled: bool,
    /// Milliseconds this stage took when it last ran.
    pub millis: f64,
    /// Whether this run computed it (false = reused from the cache).
    pub reran: bool,
    /// The map after this stage (its input map when the stage is disabled).
    pub map: Arc<Heightmap>,
}

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
            if !(entry.enabled && is_erosion(&entry.stage)) {
                continue;
            }
            let before = match index.checked_sub(1).and_then(|i| self.stages.get(i)) {
                Some(previous) => previous.map.data(),
                None => &zeros,
            };
            if before.len() == zeros.len() && stage.map.data().len() == zeros.len() {
                record.add(entry.stage.kind(), before, stage.map.data());
            }
        }
        record.finished()
    }

    /// Milliseconds of all stages, reused ones at their last run's time.
    pub fn total_millis(&self) -> f64 {
        self.stages.iter().map(|s| s.millis).sum()
    }
}

/// Why a run stopped before producing a map.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PipelineError {
    /// A stage could not run, or its heights overflowed to infinity or NaN.
    #[error("stage {index} ({kind}): {error}")]
    Stage {
        /// The stage's position in the recipe, from 0.
        index: usize,
        /// The stage's kebab-case kind.
        kind: &'static str,
        /// What went wrong.
        error: StageError,
    },
    /// The run's cancel flag was set; the stages finished so far stay cached.
    #[error("cancelled")]
    Cancelled,
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

#[derive(Clone)]
struct Cached {
    entry: StageEntry,
    /// The files the stage read (an import, a mask image) as they were:
    /// a file changed on disk re-runs the stage though the recipe did not.
    files: Vec<FileStamp>,
    output: StageOutput,
}

/// A file's size and modification time, or that it could not be read
/// (`None`): cheap to take on every run, where a content hash would read
/// megabytes.
type FileStamp = Option<(u64, std::time::SystemTime)>;

/// The stamps of the files `entry` reads, resolved in `base_dir`.
fn file_stamps(entry: &StageEntry, base_dir: Option<&std::path::Path>) -> Vec<FileStamp> {
    let mut paths: Vec<&str> = Vec::new();
    if let crate::stages::Stage::Import(import) = &entry.stage {
        paths.push(&import.path);
    }
    for (_, map) in entry.maps() {
        if let crate::stages::mask::MaskSource::Image(path) = &map.source {
            paths.push(path);
        }
    }
    paths
        .into_iter()
        .map(|path| {
            let path = std::path::Path::new(path);
            let full = match base_dir {
                Some(base) if path.is_relative() => base.join(path),
                _ => path.to_path_buf(),
            };
            let meta = std::fs::metadata(full).ok()?;
            Some((meta.len(), meta.modified().ok()?))
        })
        .collect()
}

/// A pipeline with a per-stage cache.
#[derive(Default, Clone)]
pub struct Pipeline {
    header: Option<Header>,
    cache: Vec<Cached>,
    base_dir: Option<PathBuf>,
}

/// Hooks for a run: cancellation and progress.
#[derive(Default)]
pub struct RunHooks<'a> {
    /// Set to true to stop the run before its next stage.
    pub cancel: Option<&'a AtomicBool>,
    /// Called before each stage with (index, count).
    pub progress: Option<&'a mut dyn FnMut(usize, usize)>,
}

impl RunHooks<'_> {
    /// Before stage `index` of `count`: stops a cancelled run, reports progress.
    fn before_stage(&mut self, index: usize, count: usize) -> Result<(), PipelineError> {
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(PipelineError::Cancelled);
        }
        if let Some(progress) = self.progress.as_mut() {
            progress(index, count);
        }
        Ok(())
    }
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
        let count = recipe.stages.len();
        let mut current: Arc<Heightmap> = match self.cache.last() {
            Some(c) => c.output.map.clone(),
            None => Arc::new(Heightmap::new(
                recipe.width as usize,
                recipe.height as usize,
            )),
        };
        for (index, entry) in recipe.stages.iter().enumerate().skip(first) {
            hooks.before_stage(index, count)?;
            // Taken before the stage reads them: a file changed while it
            // runs makes the next run read it again.
            let files = file_stamps(entry, self.base_dir.as_deref());
            let start = Instant::now();
            if entry.enabled {
                let mut map = current.parallel_copy();
                apply_stage(
                    recipe,
                    index,
                    entry,
                    self.base_dir.clone(),
                    hooks.cancel,
                    &mut map,
                    StagePlace::default(),
                )?;
                current = Arc::new(map);
            }
            let output = StageOutput {
                kind: entry.stage.kind(),
                enabled: entry.enabled,
                millis: if entry.enabled {
                    start.elapsed().as_secs_f64() * 1000.0
                } else {
                    0.0
                },
                reran: true,
                map: current.clone(),
            };
            self.cache.push(Cached {
                entry: entry.clone(),
                files,
                output,
            });
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

/// Where a stage runs: the map's window of the world (`None`: the map is
/// the whole world) and the world's height range before the stage, from
/// a barrier phase.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StagePlace {
    pub window: Option<crate::window::grid::WorldWindow>,
    pub world_range: Option<(f32, f32)>,
}

/// Runs stage `index` of `recipe` on `map` in place, then refuses heights
/// that overflowed.
pub(crate) fn apply_stage(
    recipe: &Recipe,
    index: usize,
    entry: &StageEntry,
    base_dir: Option<PathBuf>,
    cancel: Option<&AtomicBool>,
    map: &mut Heightmap,
    place: StagePlace,
) -> Result<(), PipelineError> {
    let earlier_stages = entry
        .stage
        .op()
        .uses_coarse_levels()
        .then(|| earlier_stages(recipe, index, base_dir.clone()));
    // A masked stage keeps its input where the mask says no: the weights
    // come from the input, which stays for the blend.
    let masked = match &entry.mask {
        Some(mask) => {
            let weights = mask
                .weights(map, recipe.cell_size(), base_dir.as_deref())
                .map_err(|error| PipelineError::Stage {
                    index,
                    kind: entry.stage.kind(),
                    error,
                })?;
            Some((weights, map.data().to_vec()))
        }
        None => None,
    };
    let mut ctx = StageContext {
        rng: stage_rng(recipe.seed, index),
        base_dir,
        cell_size: recipe.cell_size(),
        output_finite: None,
        earlier_stages,
        cancel,
        window: place.window,
        world_range: place.world_range,
    };
    let applied = entry.stage.op().apply(map, &mut ctx);
    if let (Ok(()), Some((weights, before))) = (&applied, &masked) {
        crate::stages::mask::blend(before, map.data_mut(), weights);
        if is_erosion(&entry.stage) {
            let width = map.width();
            crate::stages::mask::fill_new_hollows(before, map.data_mut(), weights, width);
        }
        // The blend reads every cell: the stage's own finiteness claim
        // still holds for the blended map only when the input was finite.
        ctx.output_finite = None;
    }
    applied.map_err(|error| {
        // A stage that stopped for the cancel flag has no error of its own.
        if ctx.cancelled() || matches!(error, StageError::Cancelled) {
            PipelineError::Cancelled
        } else {
            PipelineError::Stage {
                index,
                kind: entry.stage.kind(),
                error,
            }
        }
    })?;
    // Finite input stays finite through some stages, and others checked
    // their output rows as they wrote them: no separate scan for those.
    if entry.stage.op().keeps_finite() || ctx.output_finite == Some(true) {
        return Ok(());
    }
    // Valid parameters can still combine into overflow (say, several
    // Multiply layers near their limits): refuse it here rather than
    // export infinities.
    if let Some(bad) = map.first_non_finite() {
        return Err(PipelineError::Stage {
            index,
            kind: entry.stage.kind(),
            error: StageError::Overflow(bad),
        });
    }
    Ok(())
}

/// Runs stages `..index` of `recipe` again over the same world at
/// another sampling: the coarse start of a stage that erodes coarse to
/// fine, the same for every size the recipe is run at.
fn earlier_stages(recipe: &Recipe, index: usize, base_dir: Option<PathBuf>) -> EarlierStages {
    let mut prefix = recipe.clone();
    prefix.stages.truncate(index);
    Arc::new(move |width, height| {
        let mut at = prefix.clone();
        at.width = width as u32;
        at.height = height as u32;
        run_once(&at, base_dir.clone(), RunHooks::default())
            .map(|out| Arc::unwrap_or_clone(out.map))
            .map_err(|e| StageError::EarlierStages {
                width,
                height,
                reason: e.to_string(),
            })
    })
}

/// Maps from this size up start as lazily zeroed huge pages (see
/// [`run_once`]).
const LAZY_MAP_BYTES: usize = 64 << 20;

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
    mut record: Option<&mut ErosionRecord>,
) -> Result<PipelineOutput, PipelineError> {
    let count = recipe.stages.len();
    let (width, height) = (recipe.width as usize, recipe.height as usize);
    // Large maps: the kernel's zero pages on huge pages, touched first by
    // the stages' own threads (one fault per 2 MiB, no clearing pass).
    // Smaller maps are mostly outside whole huge pages, where a stage that
    // reads before it writes (hills) would pay a copy-on-write fault and
    // a TLB shootdown per 4 KiB: they are cleared by all threads first,
    // which also starts the thread pool before any stage's clock.
    let cells = width * height;
    let data = if cells * std::mem::size_of::<f32>() >= LAZY_MAP_BYTES {
        lazily_zeroed_f32(cells)
    } else {
        zeroed_in_parallel(cells)
    };
    let mut map =
        Heightmap::from_vec(width, height, data).unwrap_or_else(|| Heightmap::new(width, height));
    let mut timings = Vec::with_capacity(count);
    // The map before an erosion stage, reused by every one of them.
    let mut before: Vec<f32> = Vec::new();
    for (index, entry) in recipe.stages.iter().enumerate() {
        hooks.before_stage(index, count)?;
        let start = Instant::now();
        let recorded = match record.as_deref_mut() {
            Some(record) if entry.enabled && is_erosion(&entry.stage) => Some(record),
            _ => None,
        };
        if recorded.is_some() {
            before.resize(map.data().len(), 0.0);
            before
                .par_iter_mut()
                .zip(map.data().par_iter())
                .for_each(|(b, &h)| *b = h);
        }
        if entry.enabled {
            apply_stage(
                recipe,
                index,
                entry,
                base_dir.clone(),
                hooks.cancel,
                &mut map,
                StagePlace::default(),
            )?;
        }
        if let Some(record) = recorded {
            record.add(entry.stage.kind(), &before, map.data());
        }
        timings.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let map = Arc::new(map);
    let stages = recipe
        .stages
        .iter()
        .zip(timings)
        .map(|(entry, millis)| StageOutput {
            kind: entry.stage.kind(),
            enabled: entry.enabled,
            millis: if entry.enabled { millis } else { 0.0 },
            reran: true,
            map: map.clone(),
        })
        .collect();
    Ok(PipelineOutput {
        stages,
        map,
        first_rerun: 0,
    })
}

/// Whether `stage` moves material (wear and deposition) rather than
/// shaping or rescaling the map.
pub fn is_erosion(stage: &Stage) -> bool {
    matches!(
        stage,
        Stage::HydraulicErosion(_) | Stage::FluvialErosion(_) | Stage::ThermalErosion(_)
    )
}

/// What a run's erosion stages changed, cell by cell: the sum over them
/// of each one's output minus its input, taken as it ran, so stages after
/// it (a Normalize rescaling the map) do not change it. World units;
/// negative where material was worn away, positive where it was laid down.
#[derive(Clone, PartialEq)]
pub struct ErosionRecord {
    width: usize,
    height: usize,
    change: Vec<f32>,
    stages: Vec<&'static str>,
}

impl ErosionRecord {
    /// A record of no change yet for a `width x height` map.
    pub fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            // Allocated at the first erosion stage: a run without one
            // pays for its zeros only when they are asked for.
            change: Vec::new(),
            stages: Vec::new(),
        }
    }

    /// Adds one erosion stage (`kind`) that turned `before` into `after`.
    /// Each cell is its own sum, in stage order: the same bytes on any
    /// thread count.
    pub fn add(&mut self, kind: &'static str, before: &[f32], after: &[f32]) {
        let cells = self.width * self.height;
        self.change.resize(cells, 0.0);
        self.change
            .par_iter_mut()
            .zip(before.par_iter().zip(after.par_iter()))
            .for_each(|(c, (&b, &a))| *c += a - b);
        self.stages.push(kind);
    }

    /// The record with every cell present (zeros when no stage eroded).
    fn finished(mut self) -> Self {
        self.change.resize(self.width * self.height, 0.0);
        self
    }

    /// Cells west to east.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Cells north to south.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The change of each cell in world units, row-major (empty until a
    /// stage was added, when not from [`run_once_recording`]).
    pub fn change(&self) -> &[f32] {
        &self.change
    }

    /// The kinds of the erosion stages that ran, in recipe order; empty
    /// when the recipe has none (enabled).
    pub fn stages(&self) -> &[&'static str] {
        &self.stages
    }
}

impl std::fmt::Debug for ErosionRecord {
    // A summary: the cells would fill a terminal.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ErosionRecord")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("stages", &self.stages)
            .finish_non_exhaustive()
    }
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
