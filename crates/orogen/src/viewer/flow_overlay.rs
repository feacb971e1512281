//! The flow overlay: the shown map's drainage network (drainage area on a
//! log scale, [`orogen_core::maps::flow`]) tinted water blue over the
//! terrain and the 2D preview, so erosion edits show where water runs.
//!
//! It is derived from the map on screen and never re-runs the pipeline.
//! While it is on, each level of a regeneration job builds the network
//! with its display ([`FlowWanted`]); switched on over a map built
//! without it, a task here routes the shown map once. The 2D preview is
//! tinted by its panel, the CPU path's texture here (the untinted one is
//! kept with the generation), and the GPU path blends a small strength
//! texture in its shader (`gpu_terrain`).

use super::display::{cpu_terrain_image, flow_field};
use super::regen::{FlowWanted, PendingUpload, Regeneration};
use super::state::{DisplayPath, FlowField, Generated, ViewSettings};
use super::terrain::TerrainUpload;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use std::sync::Arc;

pub struct FlowOverlayPlugin;

impl Plugin for FlowOverlayPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ViewSettings>()
            .init_resource::<FlowJob>()
            .add_systems(
                Update,
                (
                    want_flow_with_jobs.before(Regeneration),
                    (compute_missing_flow, tint_cpu_terrain)
                        .chain()
                        .after(Regeneration)
                        .before(TerrainUpload),
                ),
            );
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
fn want_flow_with_jobs(view: Res<ViewSettings>, wanted: Res<FlowWanted>) {
    wanted.set(view.flow_overlay);
}

/// With the overlay on and a shown map without its network, routes that
/// map off the main thread; a result lands only on the generation it was
/// routed for.
fn compute_missing_flow(
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

/// The CPU path's texture follows the overlay: tinted while it is on and
/// the network is known, untinted otherwise, uploaded in place through
/// [`PendingUpload`] (no mesh, no job).
fn tint_cpu_terrain(
    view: Res<ViewSettings>,
    path: Res<DisplayPath>,
    generated: Res<Generated>,
    mut upload: ResMut<PendingUpload>,
    mut shown: Local<Option<(u64, bool)>>,
) {
    if !(view.is_changed() || generated.is_changed() || path.is_changed()) || path.is_gpu() {
        return;
    }
    let Some(splat) = generated.cpu_splat.as_ref() else {
        return;
    };
    // What the terrain shows: what was last uploaded here for this
    // generation, or what its job built.
    let tinted = match *shown {
        Some((serial, tinted)) if serial == generated.serial => tinted,
        _ => generated.cpu_splat_tinted,
    };
    let flow = generated.flow.as_deref().filter(|_| view.flow_overlay);
    if flow.is_some() != tinted {
        upload.image = Some(cpu_terrain_image(splat, flow));
    }
    *shown = Some((generated.serial, flow.is_some()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::regen::{RegenJob, RegenerationPlugin};
    use crate::viewer::state::EditedRecipe;
    use std::time::{Duration, Instant};

    fn app(path: DisplayPath) -> App {
        let mut recipe = orogen_core::presets::load("default")
            .and_then(Result::ok)
            .unwrap_or_default();
        recipe.set_sampling(65, 65);
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, RegenerationPlugin, FlowOverlayPlugin))
            .insert_resource(EditedRecipe(recipe))
            .insert_resource(path);
        app
    }

    /// Updates until `done` holds (or fails after 30 s).
    fn until(app: &mut App, what: &str, done: impl Fn(&World) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done(app.world()) {
            assert!(Instant::now() < deadline, "{what} within 30 s");
            app.update();
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn settled(world: &World) -> bool {
        world.resource::<Generated>().has_terrain() && !world.resource::<RegenJob>().is_busy()
    }

    #[test]
    fn switching_the_overlay_on_routes_the_shown_map_without_a_job() {
        for path in [DisplayPath::Gpu, DisplayPath::Cpu("test".into())] {
            let mut app = app(path.clone());
            until(&mut app, "a generation", settled);
            app.update();
            let before = app.world().resource::<Generated>().clone();
            assert!(before.flow.is_none(), "off: no network built");
            let jobs = app.world().resource::<RegenJob>().started_count;
            app.world_mut().resource_mut::<ViewSettings>().flow_overlay = true;
            until(&mut app, "the network", |w| {
                w.resource::<Generated>().flow.is_some()
            });
            app.update();
            let after = app.world().resource::<Generated>();
            assert_eq!(app.world().resource::<RegenJob>().started_count, jobs);
            assert_eq!(after.serial, before.serial, "no new generation");
            assert_eq!(app.world().resource::<FlowJob>().started_count, 1);
            let flow = after.flow.clone().expect("a network");
            let map = before.shown_map.clone().expect("a map");
            assert_eq!((flow.width, flow.height), (map.width(), map.height()));
            assert!(flow.strength.iter().all(|s| (0.0..=1.0).contains(s)));
            assert!(flow.strength.iter().any(|&s| s > 0.3), "some channel");
            // The CPU path hands its texture over again, tinted.
            let upload = app.world().resource::<PendingUpload>();
            if path.is_gpu() {
                assert!(upload.image.is_none());
            } else {
                let image = upload.image.as_ref().and_then(|i| i.data.clone());
                let splat = before.cpu_splat.clone().expect("the CPU splat");
                assert_eq!(image.as_ref().map(Vec::len), Some(splat.rgba.len()));
                assert_ne!(image, Some(splat.rgba.clone()), "tinted");
            }
            for _ in 0..3 {
                app.update();
            }
            assert_eq!(app.world().resource::<RegenJob>().started_count, jobs);
            assert_eq!(app.world().resource::<FlowJob>().started_count, 1);
        }
    }

    /// The terrain texture's pixels, as the scene holds them.
    fn terrain_texture(app: &App) -> Vec<Vec<u8>> {
        let images = app.world().resource::<Assets<Image>>();
        images
            .iter()
            .filter_map(|(_, image)| image.data.clone())
            .collect()
    }

    #[test]
    fn the_cpu_terrain_texture_follows_the_overlay_in_place() {
        let mut app = app(DisplayPath::Cpu("test".into()));
        app.add_plugins(bevy::asset::AssetPlugin::default())
            .init_asset::<Mesh>()
            .init_asset::<Image>()
            .init_asset::<StandardMaterial>()
            .add_plugins(crate::viewer::terrain::TerrainUploadPlugin);
        until(&mut app, "a generation", settled);
        app.update();
        let plain = app.world().resource::<Generated>().cpu_splat.clone();
        let plain = plain.expect("the CPU splat").rgba.clone();
        assert_eq!(terrain_texture(&app), vec![plain.clone()]);
        let (jobs, serial) = (
            app.world().resource::<RegenJob>().started_count,
            app.world().resource::<Generated>().serial,
        );
        app.world_mut().resource_mut::<ViewSettings>().flow_overlay = true;
        until(&mut app, "the network", |w| {
            w.resource::<Generated>().flow.is_some()
        });
        app.update();
        let tinted = terrain_texture(&app);
        assert_eq!(tinted.len(), 1, "replaced in place");
        assert_ne!(tinted[0], plain);
        assert_eq!(tinted[0].len(), plain.len());
        app.world_mut().resource_mut::<ViewSettings>().flow_overlay = false;
        app.update();
        assert_eq!(terrain_texture(&app), vec![plain]);
        assert_eq!(app.world().resource::<Assets<Mesh>>().len(), 1);
        assert_eq!(app.world().resource::<RegenJob>().started_count, jobs);
        assert_eq!(app.world().resource::<Generated>().serial, serial);
    }

    #[test]
    fn with_the_overlay_on_each_generation_brings_its_network() {
        let mut app = app(DisplayPath::Cpu("test".into()));
        app.world_mut().resource_mut::<ViewSettings>().flow_overlay = true;
        until(&mut app, "a generation", settled);
        app.update();
        let generated = app.world().resource::<Generated>();
        assert!(generated.flow.is_some());
        assert!(generated.cpu_splat_tinted, "the job uploads it tinted");
        assert_eq!(app.world().resource::<FlowJob>().started_count, 0);
        // The texture the job built is tinted; nothing more to upload.
        let serial = generated.serial;
        app.world_mut().resource_mut::<EditedRecipe>().0.seed += 1;
        until(&mut app, "a new generation", |w| {
            settled(w) && w.resource::<Generated>().serial > serial
        });
        app.update();
        assert!(app.world().resource::<Generated>().flow.is_some());
        assert_eq!(app.world().resource::<FlowJob>().started_count, 0);
    }
}
