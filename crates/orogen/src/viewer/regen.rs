//! Regeneration off the main thread, coarse to fine.
//!
//! When the recipe (tiles included) or the displayed stage change, a job
//! on the async compute pool shows the edit at a preview size first,
//! then refines it level by level up to the display limit (257² → 513² →
//! 1025², say; [`super::sampling`]). Each level runs its own cached
//! pipeline (which re-runs only the stages from the first edited one; a
//! tile-only edit re-runs none), then builds the display mesh, the splat
//! texture and the previews, and hands them over; the main thread only
//! swaps them in. A newer request cancels the older job (its flag is
//! checked between stages and levels) and stops listening to it, so a
//! finer level of an old edit never replaces a coarse level of a new one.
//!
//! This plugin needs no window or GPU: it works under `MinimalPlugins`.

use super::display::{DisplayBuild, build_display};
use super::gpu_terrain::HeightUpload;
use super::sampling::PreviewSampling;
use super::state::{DisplayPath, DisplayedStage, EditedRecipe, Generated, RecipeSource};
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use image::RgbImage;
use orogen_core::Recipe;
use orogen_core::flow::check_runnable;
use orogen_core::pipeline::{Pipeline, PipelineError, RunHooks};
use orogen_core::recipe::default_memory_limit;
use orogen_core::splat::{TileImages, TileSet, load_tile_image};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct RegenerationPlugin;

impl Plugin for RegenerationPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<RecipeSource>()
            .init_resource::<DisplayedStage>()
            .init_resource::<Generated>()
            .init_resource::<PendingUpload>()
            .init_resource::<RegenJob>()
            .init_resource::<SharedPipeline>()
            .init_resource::<PreviewSampling>()
            .init_resource::<DisplayPath>()
            .init_resource::<FlowWanted>()
            .add_systems(
                Update,
                (start_job_on_edit, collect_finished_job)
                    .chain()
                    .in_set(Regeneration),
            );
    }
}

/// The system set that starts and collects jobs, for ordering (the
/// display path and limit are settled before it).
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Regeneration;

/// State that outlives one job: a pipeline per sampling, whose per-stage
/// cache makes re-runs cheap, and the decoded tile images. Jobs lock it while they
/// run; they run one after another, so the lock is only ever waited on by
/// a job queued behind a cancelled one.
#[derive(Resource, Clone, Default)]
pub struct SharedPipeline(Arc<Mutex<JobCache>>);

#[derive(Default)]
pub(crate) struct JobCache {
    base_dir: Option<PathBuf>,
    /// One pipeline per map size shown, so each level re-runs only the
    /// edited stages; sizes no longer shown are dropped.
    pipelines: HashMap<(u32, u32), Pipeline>,
    /// Decoded tile images by image spec (or why it could not be read),
    /// for the folder `images_dir`: adding, removing or re-pointing one
    /// tile decodes only that tile's image.
    images: HashMap<String, Result<RgbImage, String>>,
    images_dir: Option<PathBuf>,
    /// The last set handed out, by the tiles' (image, name, colour): the
    /// same `Arc` while they are unchanged, so the GPU's tile array is
    /// rebuilt only when an image really changed.
    last_set: Option<(Vec<TileKey>, Arc<TileImages>, Vec<String>)>,
}

/// What a tile's image and warning depend on: its image spec, its name
/// (in the warning) and its fallback colour.
type TileKey = (String, String, [u8; 3]);

impl JobCache {
    /// Tile images for `tiles` (a flat colour plus a warning for each one
    /// that cannot be read). Images no tile uses any more are dropped, so
    /// the cache never holds more than the current tiles.
    pub(crate) fn tile_images(
        &mut self,
        tiles: &TileSet,
        base_dir: Option<&std::path::Path>,
    ) -> (Arc<TileImages>, Vec<String>) {
        let dir = base_dir.map(PathBuf::from);
        if self.images_dir != dir {
            self.images.clear();
            self.last_set = None;
            self.images_dir = dir;
        }
        let key: Vec<TileKey> = tiles
            .tiles
            .iter()
            .map(|t| (t.image.clone(), t.name.clone(), t.fallback_color))
            .collect();
        if let Some((last_key, images, warnings)) = &self.last_set
            && *last_key == key
        {
            return (images.clone(), warnings.clone());
        }
        self.images
            .retain(|spec, _| tiles.tiles.iter().any(|t| &t.image == spec));
        let mut warnings = Vec::new();
        let mut images = Vec::with_capacity(tiles.tiles.len());
        for tile in &tiles.tiles {
            let loaded = self
                .images
                .entry(tile.image.clone())
                .or_insert_with(|| load_tile_image(&tile.image, base_dir));
            match loaded {
                Ok(image) => images.push(image.clone()),
                Err(e) => {
                    warnings.push(format!("{}: {e}; using a flat colour", tile.name));
                    images.push(RgbImage::from_pixel(1, 1, image::Rgb(tile.fallback_color)));
                }
            }
        }
        let images = Arc::new(TileImages { images });
        self.last_set = Some((key, images.clone(), warnings.clone()));
        (images, warnings)
    }
}

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

/// What a job needs; everything is owned so the job outlives the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRequest {
    pub recipe: Recipe,
    pub stage: Option<usize>,
    pub base_dir: Option<PathBuf>,
    pub path: DisplayPath,
}

impl JobRequest {
    /// Whether `self` differs from `other` in tile bands, slope rules or
    /// tile scales only: on the GPU path that is a uniform write, no job.
    pub fn differs_in_bands_only(&self, other: &JobRequest) -> bool {
        let strip = |request: &JobRequest| {
            let mut request = request.clone();
            let tiles = &mut request.recipe.tiles;
            tiles.auto_bands = false;
            tiles.bands_from_zero = false;
            for tile in &mut tiles.tiles {
                tile.low = 0.0;
                tile.optimal = 0.0;
                tile.high = 0.0;
                tile.slope = None;
                tile.scale = 1.0;
                tile.name.clear();
            }
            request
        };
        self != other && strip(self) == strip(other)
    }
}

/// One level of a job, finished: its size, what it took, its display.
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
    task: Option<Task<()>>,
    /// Where the job leaves its latest finished level.
    slot: Arc<Mutex<Option<LevelResult>>>,
    cancel: Arc<AtomicBool>,
    started: Option<Instant>,
    /// The request in flight or last finished: an edit that leads back to
    /// it (typing a value and deleting it again) starts no job.
    last_request: Option<JobRequest>,
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

    fn supersede(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        self.task = None;
        self.started = None;
        // A fresh slot: the old job's levels land where no one looks.
        self.slot = Arc::default();
        self.shown_side = None;
    }
}

/// Render assets built by the last job, waiting for the scene to upload
/// them (taken, not cloned: a 1024² texture is 4 MiB): the CPU path's
/// mesh and texture, or the GPU path's height texture.
#[derive(Resource, Default)]
pub struct PendingUpload {
    pub mesh: Option<Mesh>,
    pub image: Option<Image>,
    pub heights: Option<HeightUpload>,
}

/// Checks the recipe before it is handed to a job; the error is one line.
/// A map too large for memory is shrunk in the Recipe panel: the viewer
/// has no memory-limit option to raise.
pub fn check_recipe(recipe: &Recipe) -> Result<Recipe, String> {
    let mut checked = recipe.clone();
    check_runnable(&mut checked, default_memory_limit(), TOO_LARGE_HINT)?;
    Ok(checked)
}

/// What the viewer suggests when a map needs more memory than allowed.
pub const TOO_LARGE_HINT: &str = "choose a smaller size in the Recipe panel";

#[allow(clippy::too_many_arguments)]
fn start_job_on_edit(
    recipe: Res<EditedRecipe>,
    stage: Res<DisplayedStage>,
    source: Res<RecipeSource>,
    path: Res<DisplayPath>,
    sampling: Res<PreviewSampling>,
    pipeline: Res<SharedPipeline>,
    flow: Res<FlowWanted>,
    mut job: ResMut<RegenJob>,
    mut generated: ResMut<Generated>,
) {
    if !(recipe.is_changed() || stage.is_changed() || source.is_changed() || path.is_changed()) {
        return;
    }
    let recipe = match check_recipe(&recipe.0) {
        Ok(recipe) => recipe,
        Err(message) => {
            job.supersede();
            job.last_request = None;
            generated.error = Some(message);
            return;
        }
    };
    let request = JobRequest {
        recipe,
        stage: stage.0,
        base_dir: source.base_dir.clone(),
        path: path.clone(),
    };
    if job.last_request.as_ref() == Some(&request) {
        // Same request as the job in flight or last finished: its result
        // (or its error: an import that failed fails again) stands.
        return;
    }
    if path.is_gpu()
        && (job.is_busy() || generated.has_terrain())
        && job
            .last_request
            .as_ref()
            .is_some_and(|last| request.differs_in_bands_only(last))
    {
        // The GPU draws bands from the material's uniform (rewritten by
        // the GPU terrain plugin); the map and its exports stay valid
        // with the new tiles (a job in flight keeps going: its levels get
        // these tiles when they land).
        if let Some(shown) = generated.recipe.as_mut() {
            shown.tiles = request.recipe.tiles.clone();
        }
        job.last_request = Some(request);
        return;
    }
    job.supersede();
    // The previous request's error (an invalid value since fixed, a stage
    // that failed) no longer applies to this one.
    if generated.error.is_some() {
        generated.error = None;
    }
    job.last_request = Some(request.clone());
    let levels = sampling.levels(&request.recipe);
    job.levels = levels.clone();
    let cancel = Arc::new(AtomicBool::new(false));
    let shared = pipeline.0.clone();
    let flag = cancel.clone();
    let slot = job.slot.clone();
    let flow = flow.0.clone();
    let task = AsyncComputeTaskPool::get().spawn(async move {
        // A stage that panics must not take the viewer down (a panicking
        // task would panic again when polled on the main thread): report
        // it like any other failed generation.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_levels(&shared, &request, &levels, (&flag, &flow), &slot)
        }));
        if let Err(payload) = outcome {
            let message = format!("generation failed: {}", super::panic_text(payload.as_ref()));
            let side = levels.first().copied().unwrap_or_default();
            *lock(&slot) = Some(LevelResult {
                side,
                millis: 0.0,
                build: Err(message),
            });
        }
    });
    job.task = Some(task);
    job.cancel = cancel;
    job.started = Some(Instant::now());
    job.started_count += 1;
}

/// A lock that a panicked job poisoned is still usable: the pipeline only
/// keeps finished stages, and a slot holds whole results.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Shows the request at each level in turn, leaving each finished level
/// in `slot`; stops at a failure or when cancelled. Each level builds the
/// flow overlay's network if `flow` says so as it is built.
fn run_levels(
    shared: &Mutex<JobCache>,
    request: &JobRequest,
    levels: &[u32],
    (cancel, flow): (&AtomicBool, &AtomicBool),
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
        let with_flow = flow.load(Ordering::Relaxed);
        let build = run_level(shared, request, &recipe, cancel, with_flow);
        if build.as_ref().err().is_some_and(|e| e == "cancelled") {
            return;
        }
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
fn run_level(
    shared: &Mutex<JobCache>,
    request: &JobRequest,
    recipe: &Recipe,
    cancel: &AtomicBool,
    with_flow: bool,
) -> Result<DisplayBuild, String> {
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
        Err(PipelineError::Cancelled) => return Err("cancelled".into()),
        Err(e) => return Err(e.to_string()),
    };
    if cancel.load(Ordering::Relaxed) {
        return Err("cancelled".into());
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
        with_flow,
    )
}

fn collect_finished_job(
    mut job: ResMut<RegenJob>,
    mut generated: ResMut<Generated>,
    mut upload: ResMut<PendingUpload>,
    mut sampling: ResMut<PreviewSampling>,
) {
    // The task is checked before the slot: a job that has finished has
    // left its last level there, so that level is not missed.
    let finished = job
        .task
        .as_mut()
        .is_some_and(|task| check_ready(task).is_some());
    if finished {
        job.task = None;
        job.started = None;
    }
    let level = lock(&job.slot).take();
    let Some(level) = level else {
        return;
    };
    match level.build {
        Ok(build) => {
            let serial = generated.serial + 1;
            *generated = build.generated;
            generated.serial = serial;
            if let Some((mesh, image)) = build.cpu {
                upload.mesh = Some(mesh);
                upload.image = Some(image);
            }
            upload.heights = build.gpu;
            // Whatever lands differs from the latest request in bands at
            // most (any other edit supersedes the job): exports and panels
            // get the latest bands.
            if let (Some(shown), Some(last)) = (generated.recipe.as_mut(), &job.last_request)
                && last.path.is_gpu()
            {
                shown.tiles = last.recipe.tiles.clone();
            }
            job.shown_side = Some(level.side);
            sampling.learn(level.side, level.millis);
        }
        Err(message) => generated.error = Some(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_core::StageEntry;
    use orogen_core::stages::{Normalize, RandomValues, Stage};

    fn small_recipe(seed: u64) -> Recipe {
        Recipe {
            width: 33,
            height: 33,
            seed,
            extent: orogen_core::recipe::Extent { x: 32.0, y: 32.0 },
            tiles: TileSet::default(),
            converted_from_cells: false,
            stages: vec![
                StageEntry::new(Stage::RandomValues(RandomValues::default())),
                StageEntry::new(Stage::Normalize(Normalize::default())),
            ],
        }
    }

    fn headless_app(recipe: Recipe) -> App {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, RegenerationPlugin))
            .insert_resource(EditedRecipe(recipe));
        app
    }

    /// Updates until a new generation arrives (or fails after 30 s).
    fn wait_for_generation(app: &mut App, after_serial: u64) -> u64 {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            app.update();
            let generated = app.world().resource::<Generated>();
            if generated.serial > after_serial {
                return generated.serial;
            }
            assert!(generated.error.is_none(), "{:?}", generated.error);
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("no generation within 30 s");
    }

    fn shown_map_data(app: &App) -> Vec<f32> {
        let generated = app.world().resource::<Generated>();
        generated
            .shown_map
            .as_ref()
            .map(|m| m.data().to_vec())
            .unwrap_or_default()
    }

    #[test]
    fn recipe_change_regenerates_the_heightmap() {
        let mut app = headless_app(small_recipe(1));
        let first = wait_for_generation(&mut app, 0);
        let before = shown_map_data(&app);
        app.world_mut().resource_mut::<EditedRecipe>().0.seed = 2;
        let second = wait_for_generation(&mut app, first);
        assert!(second > first);
        assert_ne!(before, shown_map_data(&app));
        // The GPU path's upload: the shown map's heights, bit for bit, and
        // its LOD bounds.
        let shown = shown_map_data(&app);
        let upload = app.world().resource::<PendingUpload>();
        let heights = upload.heights.as_ref().expect("a height texture");
        assert_eq!((heights.grid.map_width, heights.grid.map_height), (33, 33));
        assert_eq!((heights.bounds.width, heights.bounds.height), (33, 33));
        let texels: Vec<f32> = heights
            .image
            .data
            .as_deref()
            .unwrap_or_default()
            .chunks_exact(4)
            .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(texels, shown);
        let top = shown.iter().fold(f32::MIN, |m, &v| m.max(v));
        assert_eq!(heights.bounds.top_height(), top);
        assert!(upload.mesh.is_none(), "no CPU mesh on the GPU path");
    }

    /// Updates until the job is done, returning each new generation's
    /// (side, seed) in the order they were shown.
    fn shown_until_done(app: &mut App) -> Vec<(usize, u64)> {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen = Vec::new();
        let mut serial = app.world().resource::<Generated>().serial;
        loop {
            assert!(Instant::now() < deadline, "job did not finish");
            app.update();
            let generated = app.world().resource::<Generated>();
            assert!(generated.error.is_none(), "{:?}", generated.error);
            if generated.serial != serial {
                serial = generated.serial;
                let map = generated.shown_map.as_ref().expect("a map");
                let seed = generated.recipe.as_ref().expect("a recipe").seed;
                seen.push((map.width(), seed));
            }
            if !app.world().resource::<RegenJob>().is_busy() && !seen.is_empty() {
                // One more frame collects a level left at the very end.
                app.update();
                return seen;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn fixed_preview(side: u32) -> PreviewSampling {
        PreviewSampling {
            auto: false,
            preview_side: side,
            ..PreviewSampling::default()
        }
    }

    #[test]
    fn an_edit_shows_a_preview_first_then_refines_to_the_display_limit() {
        let export = small_recipe(3).resampled(2049);
        let mut app = headless_app(export.clone());
        app.insert_resource(fixed_preview(65));
        let seen = shown_until_done(&mut app);
        let sides: Vec<usize> = seen.iter().map(|s| s.0).collect();
        assert!(sides.len() >= 2, "a preview then finer levels: {sides:?}");
        assert!(
            sides.windows(2).all(|w| w[0] < w[1]),
            "coarse to fine: {sides:?}"
        );
        assert_eq!(sides.last(), Some(&1025), "refines to the display limit");
        // What is on screen is the export's world at 1025², exactly as a
        // direct run of that sampling makes it.
        let direct = Pipeline::new()
            .run(&export.resampled(1025), RunHooks::default())
            .map(|o| o.map.data().to_vec())
            .unwrap_or_default();
        assert_eq!(shown_map_data(&app), direct);
        assert_eq!(app.world().resource::<RegenJob>().shown_side, Some(1025));
    }

    #[test]
    fn a_finer_level_of_an_old_edit_never_replaces_a_new_edit() {
        let mut app = headless_app(small_recipe(1).resampled(1025));
        app.insert_resource(fixed_preview(65));
        // Wait for the first preview of seed 1, then edit while it refines.
        wait_for_generation(&mut app, 0);
        app.world_mut().resource_mut::<EditedRecipe>().0.seed = 2;
        let seen = shown_until_done(&mut app);
        assert!(seen.iter().all(|&(_, seed)| seed == 2), "{seen:?}");
        assert_eq!(seen.last().map(|s| s.0), Some(1025));
    }

    #[test]
    fn view_only_change_does_not_regenerate() {
        let mut app = headless_app(small_recipe(1));
        app.init_resource::<super::super::state::ViewSettings>();
        let first = wait_for_generation(&mut app, 0);
        let jobs = app.world().resource::<RegenJob>().started_count;
        app.world_mut()
            .resource_mut::<super::super::state::ViewSettings>()
            .height_scale = 3.0;
        for _ in 0..5 {
            app.update();
        }
        assert_eq!(app.world().resource::<RegenJob>().started_count, jobs);
        assert_eq!(app.world().resource::<Generated>().serial, first);
    }

    #[test]
    fn a_band_edit_starts_no_job_on_the_gpu_path_but_does_on_the_cpu_path() {
        for path in [DisplayPath::Gpu, DisplayPath::Cpu("test".into())] {
            let mut app = headless_app(small_recipe(1));
            app.insert_resource(path.clone());
            let first = wait_for_generation(&mut app, 0);
            let jobs = app.world().resource::<RegenJob>().started_count;
            {
                let mut recipe = app.world_mut().resource_mut::<EditedRecipe>();
                let tiles = &mut recipe.0.tiles;
                tiles.auto_bands = false;
                tiles.tiles[1].optimal += 0.1;
                tiles.tiles[1].high += 0.2;
                tiles.tiles[2].slope = Some(orogen_core::params::Span::new(20.0, 60.0));
            }
            let edited = app.world().resource::<EditedRecipe>().0.tiles.clone();
            for _ in 0..5 {
                app.update();
            }
            let started = app.world().resource::<RegenJob>().started_count - jobs;
            if path.is_gpu() {
                assert_eq!(started, 0, "a band edit is a uniform write");
                assert_eq!(app.world().resource::<Generated>().serial, first);
                // Exports of the shown map use the new bands.
                let shown = app.world().resource::<Generated>().recipe.clone();
                assert_eq!(shown.map(|r| r.tiles), Some(edited));
                // An image change still needs a job (the images load there).
                app.world_mut().resource_mut::<EditedRecipe>().0.tiles.tiles[0].image =
                    "builtin:rock".into();
                app.update();
                assert_eq!(app.world().resource::<RegenJob>().started_count - jobs, 1);
            } else {
                assert_eq!(started, 1, "the CPU path re-renders its texture");
            }
        }
    }

    #[test]
    fn newer_edit_supersedes_older_job() {
        let mut app = headless_app(small_recipe(1));
        let first = wait_for_generation(&mut app, 0);
        // Two edits in consecutive frames: the first job is cancelled.
        app.world_mut().resource_mut::<EditedRecipe>().0.seed = 7;
        app.update();
        app.world_mut().resource_mut::<EditedRecipe>().0.seed = 8;
        let latest = wait_for_generation(&mut app, first);
        let expected = {
            let mut direct = Pipeline::new();
            direct
                .run(&small_recipe(8), RunHooks::default())
                .map(|o| o.map)
        };
        let expected = expected.map(|m| m.data().to_vec()).unwrap_or_default();
        assert_eq!(shown_map_data(&app), expected);
        // Settle: no further generation replaces the latest one.
        for _ in 0..20 {
            app.update();
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(app.world().resource::<Generated>().serial, latest);
        assert_eq!(shown_map_data(&app), expected);
    }

    #[test]
    fn tile_images_are_cached_per_image_and_pruned() {
        let mut cache = JobCache::default();
        let mut tiles = TileSet::default();
        let (images, warnings) = cache.tile_images(&tiles, None);
        assert_eq!(images.images.len(), tiles.tiles.len());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(cache.images.len(), 4);
        // Re-point one tile at a file that does not exist: a warning and a
        // flat colour for it, the others still cached, the old image gone.
        tiles.tiles[0].image = "/nonexistent/orogen/tile.png".into();
        let (images, warnings) = cache.tile_images(&tiles, None);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("sand: "), "{warnings:?}");
        assert_eq!(images.images[0].dimensions(), (1, 1));
        assert_eq!(cache.images.len(), 4);
        assert!(!cache.images.contains_key("builtin:sand"));
        tiles.tiles.truncate(1);
        let _ = cache.tile_images(&tiles, None);
        assert_eq!(cache.images.len(), 1);
    }

    #[test]
    fn a_failed_stage_stays_reported_until_the_recipe_changes() {
        let mut recipe = small_recipe(1);
        recipe.stages.insert(
            0,
            StageEntry::new(Stage::Import(orogen_core::stages::Import {
                path: "/nonexistent/orogen/missing.png".into(),
                ..Default::default()
            })),
        );
        let mut app = headless_app(recipe);
        let deadline = Instant::now() + Duration::from_secs(30);
        while app.world().resource::<Generated>().error.is_none() {
            assert!(Instant::now() < deadline, "no error reported");
            app.update();
            std::thread::sleep(Duration::from_millis(5));
        }
        let error = app.world().resource::<Generated>().error.clone();
        assert!(
            error.as_deref().unwrap_or("").contains("import"),
            "{error:?}"
        );
        // Touching the recipe without changing it repeats the request: the
        // error stands (it used to be cleared, hiding the failure).
        app.world_mut().resource_mut::<EditedRecipe>().set_changed();
        for _ in 0..5 {
            app.update();
        }
        assert_eq!(app.world().resource::<Generated>().error, error);
        // A real edit starts a new job and clears the old error at once.
        app.world_mut()
            .resource_mut::<EditedRecipe>()
            .0
            .stages
            .remove(0);
        app.update();
        assert_eq!(app.world().resource::<Generated>().error, None);
        wait_for_generation(&mut app, 0);
    }

    #[test]
    fn invalid_recipe_reports_instead_of_running() {
        let mut recipe = small_recipe(1);
        recipe.width = 1;
        let mut app = headless_app(recipe);
        app.update();
        let generated = app.world().resource::<Generated>();
        assert!(generated.error.as_deref().unwrap_or("").contains("width"));
        assert!(!app.world().resource::<RegenJob>().is_busy());
    }

    #[test]
    fn a_map_too_large_for_memory_suggests_what_the_viewer_offers() {
        let mut recipe = small_recipe(1);
        recipe.width = orogen_core::recipe::MAX_SIDE;
        recipe.height = orogen_core::recipe::MAX_SIDE;
        recipe.stages = (0..400)
            .map(|_| StageEntry::new(Stage::Normalize(Normalize::default())))
            .collect();
        let err = check_recipe(&recipe).unwrap_err();
        assert!(err.contains("MiB"), "{err}");
        assert!(err.ends_with(&format!("({TOO_LARGE_HINT})")), "{err}");
        assert!(!err.contains("--memory-limit"), "{err}");
    }
}
