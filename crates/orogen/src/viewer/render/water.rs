//! Lakes and rivers drawn as water: one mesh entity holding every lake at
//! its own spill level and every river ribbon, from the generation's
//! [`WaterMesh`]. Shown while the view asks for lakes and rivers; scaled
//! with the terrain's exaggeration.

use crate::viewer::camera::TerrainBounds;
use crate::viewer::display_data::water::WaterMesh;
use crate::viewer::handoff::Generated;
use crate::viewer::schedule::{ViewerSystems, order_viewer_systems};
use crate::viewer::settings::ViewSettings;
use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use std::sync::Arc;

/// Lake and river water.
pub struct WaterBodiesPlugin;

impl Plugin for WaterBodiesPlugin {
    fn build(&self, app: &mut App) {
        order_viewer_systems(app);
        app.init_resource::<ViewSettings>()
            .init_resource::<TerrainBounds>()
            .add_systems(
                Update,
                (
                    upload_water.in_set(ViewerSystems::Upload),
                    show_water.in_set(ViewerSystems::Draw),
                ),
            );
    }
}

/// Lake and river water colour: a little greener and more opaque than
/// the sea plane, so both read apart.
const LAKE_WATER: Color = Color::srgba(0.10, 0.36, 0.55, 0.8);

/// The water entity, its mesh and the water it was built from.
#[derive(Resource)]
struct WaterBodies {
    entity: Entity,
    mesh: Handle<Mesh>,
    source: Arc<WaterMesh>,
}

fn to_mesh(water: &WaterMesh) -> Mesh {
    let normals = vec![[0.0f32, 1.0, 0.0]; water.positions.len()];
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::RENDER_WORLD,
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, water.positions.clone())
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
    .with_inserted_indices(Indices::U32(water.indices.clone()))
}

/// Replaces the water mesh when a generation brings new water.
fn upload_water(
    mut commands: Commands,
    generated: Res<Generated>,
    bodies: Option<ResMut<WaterBodies>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let Some(water) = generated.water.as_ref() else {
        return;
    };
    match bodies {
        Some(mut bodies) => {
            if Arc::ptr_eq(&bodies.source, water) {
                return;
            }
            if let Err(e) = meshes.insert(bodies.mesh.id(), to_mesh(water)) {
                error!("cannot replace the water mesh: {e}");
            }
            bodies.source = water.clone();
        }
        None => {
            let mesh = meshes.add(to_mesh(water));
            let material = materials.add(StandardMaterial {
                base_color: LAKE_WATER,
                alpha_mode: AlphaMode::Blend,
                perceptual_roughness: 0.1,
                reflectance: 0.5,
                double_sided: true,
                cull_mode: None,
                ..default()
            });
            let entity = commands
                .spawn((
                    Mesh3d(mesh.clone()),
                    MeshMaterial3d(material),
                    Transform::default(),
                    Visibility::Hidden,
                ))
                .id();
            commands.insert_resource(WaterBodies {
                entity,
                mesh,
                source: water.clone(),
            });
        }
    }
}

/// Shows the water while lakes and rivers are on and the generation has
/// them, at the terrain's exaggeration.
fn show_water(
    view: Res<ViewSettings>,
    generated: Res<Generated>,
    bodies: Option<Res<WaterBodies>>,
    mut entities: Query<(&mut Transform, &mut Visibility)>,
) {
    let Some(bodies) = bodies else {
        return;
    };
    let Ok((mut transform, mut visibility)) = entities.get_mut(bodies.entity) else {
        return;
    };
    let current = generated
        .water
        .as_ref()
        .is_some_and(|w| Arc::ptr_eq(w, &bodies.source));
    visibility.set_if_neq(if view.lakes_and_rivers && current {
        Visibility::Visible
    } else {
        Visibility::Hidden
    });
    let scale = Vec3::new(1.0, view.height_scale.max(0.01), 1.0);
    if transform.scale != scale {
        transform.scale = scale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::document::EditedRecipe;
    use crate::viewer::regen::water::WaterJob;
    use crate::viewer::regen::{RegenJob, RegenerationPlugin};
    use std::time::{Duration, Instant};

    fn until(app: &mut App, what: &str, done: impl Fn(&World) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done(app.world()) {
            assert!(Instant::now() < deadline, "{what} within 30 s");
            app.update();
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn shown(world: &mut World) -> Option<(Visibility, usize)> {
        let bodies = world.get_resource::<WaterBodies>()?;
        let (entity, mesh) = (bodies.entity, bodies.mesh.clone());
        let vertices = world
            .resource::<Assets<Mesh>>()
            .get(&mesh)
            .map_or(0, |m| m.count_vertices());
        let visibility = *world.get::<Visibility>(entity)?;
        Some((visibility, vertices))
    }

    /// Switching lakes and rivers on builds them from the shown map (no
    /// job) and shows them; off hides them; the next generation brings
    /// its own with its levels.
    #[test]
    fn lakes_and_rivers_follow_the_switch_without_a_job() {
        let mut recipe = orogen_core::presets::load("default")
            .and_then(Result::ok)
            .unwrap_or_default();
        recipe.set_sampling(129, 129);
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            bevy::asset::AssetPlugin::default(),
            RegenerationPlugin,
            WaterBodiesPlugin,
        ))
        .init_asset::<Mesh>()
        .init_asset::<StandardMaterial>()
        .insert_resource(EditedRecipe(recipe));
        until(&mut app, "a generation", |w| {
            w.resource::<Generated>().has_terrain() && !w.resource::<RegenJob>().is_busy()
        });
        app.update();
        assert!(
            app.world().get_resource::<WaterBodies>().is_none(),
            "off: none built"
        );
        let jobs = app.world().resource::<RegenJob>().started_count;
        app.world_mut()
            .resource_mut::<ViewSettings>()
            .lakes_and_rivers = true;
        until(&mut app, "the water", |w| {
            w.contains_resource::<WaterBodies>()
        });
        app.update();
        let (visibility, vertices) = shown(app.world_mut()).expect("a water entity");
        assert_eq!(visibility, Visibility::Visible);
        assert!(vertices > 0, "the default preset has lakes");
        assert_eq!(app.world().resource::<RegenJob>().started_count, jobs);
        assert_eq!(app.world().resource::<WaterJob>().started_count, 1);
        app.world_mut()
            .resource_mut::<ViewSettings>()
            .lakes_and_rivers = false;
        app.update();
        assert_eq!(
            shown(app.world_mut()).map(|s| s.0),
            Some(Visibility::Hidden)
        );
        // On again, then a new seed: its levels bring their own water.
        app.world_mut()
            .resource_mut::<ViewSettings>()
            .lakes_and_rivers = true;
        let serial = app.world().resource::<Generated>().serial;
        app.world_mut().resource_mut::<EditedRecipe>().0.seed += 1;
        until(&mut app, "a new generation with water", |w| {
            let g = w.resource::<Generated>();
            g.serial > serial && g.water.is_some() && !w.resource::<RegenJob>().is_busy()
        });
        app.update();
        assert_eq!(
            app.world().resource::<WaterJob>().started_count,
            1,
            "built by the job"
        );
        assert_eq!(
            shown(app.world_mut()).map(|s| s.0),
            Some(Visibility::Visible)
        );
    }
}
