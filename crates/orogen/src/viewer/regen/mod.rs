//! Regeneration off the main thread, coarse to fine.
//!
//! When the recipe (tiles included) or the displayed stage change, a job
//! on the async compute pool shows the edit at a preview size first,
//! then refines it level by level up to the display limit (257² → 513² →
//! 1025², say; [`crate::viewer::sampling`]). Each level runs its own
//! cached pipeline (which re-runs only the stages from the first edited
//! one; a tile-only edit re-runs none), then builds the display mesh, the
//! splat texture and the previews ([`display`]), and hands them over
//! through [`crate::viewer::handoff`]; the main thread only swaps them
//! in. A newer request cancels the older job (its flag is checked
//! between stages and levels) and stops listening to it, so a finer level
//! of an old edit never replaces a coarse level of a new one.
//!
//! Also here: band-only edits on the GPU path ([`bands`]), which need no
//! job, and the flow overlay's network and the lakes and rivers for a map
//! built without them ([`flow`], [`water`]). Regeneration is the only writer of the handoff resources.
//!
//! This plugin needs no window or GPU: it works under `MinimalPlugins`.

pub mod bands;
pub mod cache;
pub mod display;
pub mod flow;
pub mod job;
pub mod layer_job;
pub mod water;

use super::document::{EditedRecipe, RecipeSource};
use super::handoff::{Generated, PendingUpload, ShownBands};
use super::sampling::PreviewSampling;
use super::schedule::{ViewerSystems, order_viewer_systems};
use super::settings::{DisplayPath, DisplayedStage, ViewSettings};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, futures::check_ready};
use cache::SharedPipeline;
use flow::{FlowJob, FlowWanted};
pub use job::RegenJob;
use job::{JobRequest, LevelResult, lock, panic_text, run_levels};
use orogen_core::Recipe;
use orogen_core::bake::check_runnable;
use orogen_core::recipe::default_memory_limit;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use water::{WaterJob, WaterWanted};

pub struct RegenerationPlugin;

impl Plugin for RegenerationPlugin {
    fn build(&self, app: &mut App) {
        order_viewer_systems(app);
        app.init_resource::<RecipeSource>()
            .init_resource::<DisplayedStage>()
            .init_resource::<ViewSettings>()
            .init_resource::<Generated>()
            .init_resource::<ShownBands>()
            .init_resource::<PendingUpload>()
            .init_resource::<RegenJob>()
            .init_resource::<SharedPipeline>()
            .init_resource::<PreviewSampling>()
            .init_resource::<DisplayPath>()
            .init_resource::<FlowWanted>()
            .init_resource::<FlowJob>()
            .init_resource::<WaterWanted>()
            .init_resource::<WaterJob>()
            .add_systems(
                Update,
                (
                    (flow::want_flow_with_jobs, water::want_water_with_jobs)
                        .in_set(ViewerSystems::Edit),
                    (
                        start_job_on_edit,
                        collect_finished_job,
                        bands::repaint_preview_on_band_edit,
                        flow::compute_missing_flow,
                        water::compute_missing_water,
                    )
                        .chain()
                        .in_set(ViewerSystems::Regenerate),
                ),
            );
    }
}

/// Checks the recipe before it is handed to a job; the error is one line.
/// A map too large for memory is shrunk in the Recipe panel: the viewer
/// has no memory-limit option to raise.
pub fn check_recipe(recipe: &Recipe) -> Result<Recipe, String> {
    let mut checked = recipe.clone();
    check_runnable(&mut checked, default_memory_limit())
        .map_err(|e| e.with_remedy(TOO_LARGE_HINT))?;
    Ok(checked)
}

/// What the viewer suggests when a map needs more memory than allowed.
pub const TOO_LARGE_HINT: &str = "choose a smaller size in the Recipe panel";

/// What a job is asked for: the edited recipe, the stage shown, where its
/// files are, and how the viewer draws and samples it.
#[derive(SystemParam)]
struct JobInputs<'w> {
    recipe: Res<'w, EditedRecipe>,
    stage: Res<'w, DisplayedStage>,
    source: Res<'w, RecipeSource>,
    path: Res<'w, DisplayPath>,
    sampling: Res<'w, PreviewSampling>,
}

impl JobInputs<'_> {
    /// Whether anything a job computes from changed since the last frame
    /// (the sampling alone changes only the levels of the next job).
    fn changed(&self) -> bool {
        self.recipe.is_changed()
            || self.stage.is_changed()
            || self.source.is_changed()
            || self.path.is_changed()
    }
}

fn start_job_on_edit(
    inputs: JobInputs,
    pipeline: Res<SharedPipeline>,
    (flow, water): (Res<FlowWanted>, Res<WaterWanted>),
    mut job: ResMut<RegenJob>,
    mut generated: ResMut<Generated>,
    mut bands: ResMut<ShownBands>,
) {
    if !inputs.changed() {
        return;
    }
    let JobInputs {
        recipe,
        stage,
        source,
        path,
        sampling,
    } = inputs;
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
        bands.tiles = Some(request.recipe.tiles.clone());
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
    let water = water.0.clone();
    let task = AsyncComputeTaskPool::get().spawn(async move {
        // A stage that panics must not take the viewer down (a panicking
        // task would panic again when polled on the main thread): report
        // it like any other failed generation.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_levels(&shared, &request, &levels, (&flag, &flow, &water), &slot)
        }));
        if let Err(payload) = outcome {
            let message = format!("generation failed: {}", panic_text(payload.as_ref()));
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

fn collect_finished_job(
    mut job: ResMut<RegenJob>,
    mut generated: ResMut<Generated>,
    mut bands: ResMut<ShownBands>,
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
            let version = bands.version + 1;
            *bands = build.bands;
            bands.version = version;
            if let Some((mesh, image)) = build.cpu {
                upload.mesh = Some(mesh);
                upload.image = Some(image);
            }
            upload.heights = build.gpu;
            // Whatever lands differs from the latest request in bands at
            // most (any other edit supersedes the job): exports and panels
            // get the latest bands.
            if let Some(last) = &job.last_request
                && last.path.is_gpu()
                && bands.tiles.as_ref() != Some(&last.recipe.tiles)
            {
                bands.tiles = Some(last.recipe.tiles.clone());
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
    use crate::viewer::schedule::order_viewer_systems;
    use orogen_core::StageEntry;
    use orogen_core::pipeline::{Pipeline, RunHooks};
    use orogen_core::splat::TileSet;
    use orogen_core::stages::{Normalize, RandomValues, Stage};
    use std::time::Duration;

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
        order_viewer_systems(&mut app);
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
        app.init_resource::<crate::viewer::settings::ViewSettings>();
        let first = wait_for_generation(&mut app, 0);
        let jobs = app.world().resource::<RegenJob>().started_count;
        app.world_mut()
            .resource_mut::<crate::viewer::settings::ViewSettings>()
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
                // Exports of the shown map use the new bands, and the
                // texture preview is repainted with them.
                let bands = app.world().resource::<ShownBands>();
                let shown = bands.shown_recipe(app.world().resource::<Generated>());
                assert_eq!(shown.map(|r| r.tiles), Some(edited));
                assert!(bands.version >= 2, "landed, then repainted");
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
