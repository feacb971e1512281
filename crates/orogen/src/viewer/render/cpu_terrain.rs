//! The CPU path's terrain: one mesh entity with a standard material,
//! whose mesh and texture are swapped in place from what the job built,
//! and whose texture follows the flow overlay without a job.

use super::assets::TerrainAssets;
use crate::viewer::camera::TerrainBounds;
use crate::viewer::display_data::cpu::cpu_terrain_image;
use crate::viewer::handoff::{Generated, PendingUpload};
use crate::viewer::schedule::{ViewerSystems, order_viewer_systems};
use crate::viewer::settings::{DisplayPath, ViewSettings};
use bevy::prelude::*;

/// Swaps what the regeneration job built into the terrain's mesh, image
/// and material assets (replaced in place: the asset counts never grow).
/// Needs only `Assets<Mesh>`, `Assets<Image>` and
/// `Assets<StandardMaterial>`, so it also runs headless (the soak test).
pub struct TerrainUploadPlugin;

impl Plugin for TerrainUploadPlugin {
    fn build(&self, app: &mut App) {
        order_viewer_systems(app);
        app.init_resource::<ViewSettings>()
            .init_resource::<TerrainBounds>()
            .add_systems(
                Update,
                (tint_cpu_terrain, upload_terrain)
                    .chain()
                    .in_set(ViewerSystems::Upload),
            );
    }
}

/// Marks the terrain mesh entity.
#[derive(Component)]
pub struct TerrainMesh;

/// Handles of the terrain's assets, replaced in place on each upload.
#[derive(Resource)]
struct TerrainHandles {
    mesh: Handle<Mesh>,
    image: Handle<Image>,
    material: Handle<StandardMaterial>,
}

fn upload_terrain(
    mut commands: Commands,
    mut upload: ResMut<PendingUpload>,
    generated: Res<Generated>,
    handles: Option<Res<TerrainHandles>>,
    assets: TerrainAssets<StandardMaterial>,
    mut bounds: ResMut<TerrainBounds>,
    view: Res<ViewSettings>,
) {
    let TerrainAssets {
        mut meshes,
        mut images,
        mut materials,
    } = assets;
    match handles {
        Some(handles) => {
            // A job brings both; switching the flow overlay only a texture.
            if upload.mesh.is_none() && upload.image.is_none() {
                return;
            }
            if let Some(mesh) = upload.mesh.take()
                && let Err(e) = meshes.insert(handles.mesh.id(), mesh)
            {
                error!("cannot replace the terrain mesh: {e}");
            }
            if let Some(image) = upload.image.take() {
                if let Err(e) = images.insert(handles.image.id(), image) {
                    error!("cannot replace the terrain texture: {e}");
                }
                // Touch the material so its bind group picks up the new image.
                let _ = materials.get_mut(&handles.material);
            }
        }
        None => {
            if upload.mesh.is_none() || upload.image.is_none() {
                return;
            }
            let (Some(mesh), Some(image)) = (upload.mesh.take(), upload.image.take()) else {
                return;
            };
            info!("first terrain uploaded");
            let mesh = meshes.add(mesh);
            let image = images.add(image);
            let material = materials.add(StandardMaterial {
                base_color_texture: Some(image.clone()),
                perceptual_roughness: 0.92,
                reflectance: 0.2,
                ..default()
            });
            commands.spawn((
                TerrainMesh,
                Mesh3d(mesh.clone()),
                MeshMaterial3d(material.clone()),
                Transform::from_scale(Vec3::new(1.0, view.height_scale, 1.0)),
            ));
            commands.insert_resource(TerrainHandles {
                mesh,
                image,
                material,
            });
        }
    }
    // The mesh was built with the generated recipe's cell size (the
    // edited one may already be newer).
    if let (Some(map), Some(recipe)) = (&generated.shown_map, &generated.recipe) {
        let cell = recipe.cell_size();
        bounds.set_if_neq(TerrainBounds::of_map(
            map.width(),
            map.height(),
            cell,
            generated.shown_min,
            generated.shown_max,
        ));
    }
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
    let flow = generated
        .flow
        .as_deref()
        .filter(|f| view.flow_overlay && f.kind == view.overlay);
    if flow.is_some() != tinted {
        upload.image = Some(cpu_terrain_image(splat, flow));
    }
    *shown = Some((generated.serial, flow.is_some()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::document::EditedRecipe;
    use crate::viewer::regen::flow::FlowJob;
    use crate::viewer::regen::{RegenJob, RegenerationPlugin};
    use crate::viewer::schedule::order_viewer_systems;
    use std::time::{Duration, Instant};

    fn app(path: DisplayPath) -> App {
        let mut recipe = orogen_core::presets::load("default")
            .and_then(Result::ok)
            .unwrap_or_default();
        recipe.set_sampling(65, 65);
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            bevy::asset::AssetPlugin::default(),
            RegenerationPlugin,
        ))
        .init_asset::<Mesh>()
        .init_asset::<Image>()
        .init_asset::<StandardMaterial>()
        .add_plugins(TerrainUploadPlugin)
        .insert_resource(EditedRecipe(recipe))
        .insert_resource(path);
        order_viewer_systems(&mut app);
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
            // The CPU path's texture is uploaded again, tinted; the GPU
            // path uploads nothing here.
            let textures = terrain_texture(&app);
            if path.is_gpu() {
                assert!(textures.is_empty());
            } else {
                let splat = before.cpu_splat.clone().expect("the CPU splat");
                assert_eq!(textures.len(), 1, "replaced in place");
                assert_eq!(textures[0].len(), splat.rgba.len());
                assert_ne!(textures[0], splat.rgba, "tinted");
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

    #[test]
    fn choosing_another_overlay_map_rebuilds_it_without_a_job() {
        use orogen_core::maps::DerivedMap;
        let mut app = app(DisplayPath::Cpu("test".into()));
        app.world_mut().resource_mut::<ViewSettings>().flow_overlay = true;
        until(&mut app, "a generation", settled);
        app.update();
        let jobs = app.world().resource::<RegenJob>().started_count;
        let flow_tinted = terrain_texture(&app);
        let flow = app.world().resource::<Generated>().flow.clone();
        assert_eq!(flow.as_ref().map(|f| f.kind), Some(DerivedMap::Flow));
        app.world_mut().resource_mut::<ViewSettings>().overlay = DerivedMap::Lakes;
        until(&mut app, "the lakes overlay", |w| {
            w.resource::<Generated>()
                .flow
                .as_ref()
                .is_some_and(|f| f.kind == DerivedMap::Lakes)
        });
        app.update();
        let lakes = app
            .world()
            .resource::<Generated>()
            .flow
            .clone()
            .expect("an overlay");
        assert_eq!(
            lakes.tint,
            crate::viewer::display_data::flow::overlay_tint(DerivedMap::Lakes)
        );
        assert!(
            lakes.strength.iter().any(|&s| s > 0.0),
            "the default preset has lakes"
        );
        assert_ne!(
            terrain_texture(&app),
            flow_tinted,
            "the texture shows the lakes now"
        );
        assert_eq!(app.world().resource::<RegenJob>().started_count, jobs);
        assert_eq!(app.world().resource::<FlowJob>().started_count, 1);
    }
}
