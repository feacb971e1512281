//! One regeneration job: what it was asked for, how it runs its levels
//! (each a cached pipeline run plus the display built from it), and how
//! a level's outcome reaches the main thread.

use super::cache::JobCache;
use super::display::{DisplayBuild, Layers, build_display};
use crate::viewer::sampling::PreviewSampling;
use crate::viewer::settings::DisplayPath;
use bevy::prelude::*;
use bevy::tasks::Task;
use orogen_core::Recipe;
use orogen_core::pipeline::{Pipeline, PipelineError, RunHooks};
use orogen_core::splat::{TileSet, rule_map_kinds};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a job needs; everything is owned so the job outlives the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRequest {
    pub recipe: Recipe,
    pub stage: Option<usize>,
    pub base_dir: Option<PathBuf>,
    pub path: DisplayPath,
}

impl JobRequest {
    /// Everything a job's result depends on except the tiles' rules
    /// (bands, slope rules, map-rule ranges, scales, names;
    /// [`TileSet::split`]): the maps the map rules read are computed by
    /// the job, so which maps they are stays in.
    fn without_tile_rules(
        &self,
    ) -> (
        Recipe,
        orogen_core::splat::TileSources,
        Vec<orogen_core::maps::DerivedMap>,
    ) {
        let mut recipe = self.recipe.clone();
        let sources = recipe.tiles.sources();
        let mut rule_maps = rule_map_kinds(recipe.tiles.tiles.iter().map(|t| &t.map));
        rule_maps.sort();
        recipe.tiles = TileSet {
            tiles: Vec::new(),
            auto_bands: false,
            bands_from_zero: false,
        };
        (recipe, sources, rule_maps)
    }

    /// Whether `self` differs from `other` in tile rules only: on the GPU
    /// path that is a uniform write, no job. Safe by construction: a
    /// field added to a tile is sorted into the rules or the sources by
    /// [`TileSet::split`], which names them all.
    pub fn differs_in_bands_only(&self, other: &JobRequest) -> bool {
        self != other
            && self.stage == other.stage
            && self.base_dir == other.base_dir
            && self.path == other.path
            && self.without_tile_rules() == other.without_tile_rules()
    }
}

/// Why a level produced no display: a newer request cancelled it (not an
/// error: nothing is reported), or it failed (the message is shown).
#[derive(Clone, Debug, PartialEq)]
pub enum LevelFailure {
    Cancelled,
    Failed(String),
}

/// One level of a job, finished: its size, what it took, its display
/// or why it failed.
pub struct LevelResult {
    /// Cells along the world's longer side.
    pub side: u32,
    /// Pipeline and display build together, in milliseconds.
    pub millis: f64,
    pub build: Result<DisplayBuild, String>,
}

/// The job in flight, if any.
#[derive(Resource, Default)]
pub struct RegenJob {
    pub(super) task: Option<Task<()>>,
    /// Where the job leaves its latest finished level.
    pub(super) slot: Arc<Mutex<Option<LevelResult>>>,
    pub(super) cancel: Arc<AtomicBool>,
    pub(super) started: Option<Instant>,
    /// The request in flight or last finished: an edit that leads back to
    /// it (typing a value and deleting it again) starts no job.
    pub(super) last_request: Option<JobRequest>,
    /// The sides this job shows, coarse to fine.
    pub levels: Vec<u32>,
    /// The side on screen from this job, once its first level is in.
    pub shown_side: Option<u32>,
    /// Jobs started so far (a test hook: superseded jobs count too).
    pub started_count: u64,
}

impl RegenJob {
    pub fn is_busy(&self) -> bool {
        self.task.is_some()
    }

    /// How long the job in flight has been running.
    pub fn elapsed(&self) -> Option<Duration> {
        self.task.as_ref().and(self.started.map(|s| s.elapsed()))
    }

    /// The finest level this job will show.
    pub fn target_side(&self) -> Option<u32> {
        self.levels.last().copied()
    }

    pub(super) fn supersede(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        self.task = None;
        self.started = None;
        // A fresh slot: the old job's levels land where no one looks.
        self.slot = Arc::default();
        self.shown_side = None;
    }
}

/// A lock that a panicked job poisoned is still usable: the pipeline only
/// keeps finished stages, and a slot holds whole results.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The text of a panic's payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Shows the request at each level in turn, leaving each finished level
/// in `slot`; stops at a failure or when cancelled. Each level builds the
/// flow overlay's network and the water if `flow` and `water` say so as
/// it is built.
pub(super) fn run_levels(
    shared: &Mutex<JobCache>,
    request: &JobRequest,
    levels: &[u32],
    (cancel, flow, water): (&AtomicBool, &AtomicU8, &AtomicBool),
    slot: &Mutex<Option<LevelResult>>,
) {
    let keep: Vec<(u32, u32)> = levels
        .iter()
        .map(|&side| {
            let r = PreviewSampling::level_recipe(&request.recipe, side);
            (r.width, r.height)
        })
        .collect();
    lock(shared).pipelines.retain(|size, _| keep.contains(size));
    for &side in levels {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        let start = Instant::now();
        let recipe = PreviewSampling::level_recipe(&request.recipe, side);
        let layers = Layers {
            overlay: super::flow::decode(flow.load(Ordering::Relaxed)),
            water: water.load(Ordering::Relaxed),
        };
        let build = run_level(shared, request, &recipe, cancel, layers);
        let build = match build {
            Err(LevelFailure::Cancelled) => return,
            Err(LevelFailure::Failed(message)) => Err(message),
            Ok(build) => Ok(build),
        };
        let failed = build.is_err();
        *lock(slot) = Some(LevelResult {
            side,
            millis: start.elapsed().as_secs_f64() * 1000.0,
            build,
        });
        if failed {
            return;
        }
    }
}

/// Runs one level's pipeline and builds everything the display needs.
pub(super) fn run_level(
    shared: &Mutex<JobCache>,
    request: &JobRequest,
    recipe: &Recipe,
    cancel: &AtomicBool,
    layers: Layers,
) -> Result<DisplayBuild, LevelFailure> {
    let mut cache = lock(shared);
    if cache.base_dir != request.base_dir {
        cache.pipelines.clear();
        cache.base_dir = request.base_dir.clone();
    }
    let base_dir = request.base_dir.clone();
    let pipeline = cache
        .pipelines
        .entry((recipe.width, recipe.height))
        .or_insert_with(|| Pipeline::new().with_base_dir(base_dir));
    let hooks = RunHooks {
        cancel: Some(cancel),
        progress: None,
    };
    let output = match pipeline.run(recipe, hooks) {
        Ok(output) => output,
        Err(PipelineError::Cancelled) => return Err(LevelFailure::Cancelled),
        Err(e) => return Err(LevelFailure::Failed(e.to_string())),
    };
    if cancel.load(Ordering::Relaxed) {
        return Err(LevelFailure::Cancelled);
    }
    let images = cache.tile_images(&recipe.tiles, request.base_dir.as_deref());
    drop(cache);
    let export = (request.recipe.width, request.recipe.height);
    build_display(
        output,
        recipe,
        request.stage,
        images,
        &request.path,
        export,
        layers,
    )
    .map_err(LevelFailure::Failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_core::maps::DerivedMap;
    use orogen_core::params::Span;
    use orogen_core::splat::MapRule;

    fn request(rule: Option<MapRule>) -> JobRequest {
        let mut recipe = Recipe::default();
        recipe.tiles.tiles[0].map = rule;
        JobRequest {
            recipe,
            stage: None,
            base_dir: None,
            path: DisplayPath::Gpu,
        }
    }

    fn flow_rule(min: f32, soft: f32) -> Option<MapRule> {
        Some(MapRule {
            map: DerivedMap::Flow,
            range: Span::new(min, 1e12),
            soft,
        })
    }

    /// A map rule's range and soft edge are uniform writes; a rule that
    /// reads another map (or a new one) needs that map computed: a job.
    #[test]
    fn a_map_threshold_edit_is_bands_only_and_a_new_map_is_not() {
        let base = request(flow_rule(2000.0, 500.0));
        assert!(request(flow_rule(8000.0, 0.0)).differs_in_bands_only(&base));
        let lakes = request(Some(MapRule {
            map: DerivedMap::Lakes,
            ..flow_rule(2000.0, 500.0).expect("a rule")
        }));
        assert!(!lakes.differs_in_bands_only(&base));
        assert!(!request(None).differs_in_bands_only(&base));
        assert!(!base.differs_in_bands_only(&base), "no change at all");
    }
}
