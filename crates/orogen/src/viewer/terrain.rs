//! The 3D scene: sky colour, sun, ambient light, the terrain entity and
//! the water plane. Uploads what the regeneration job built (the main
//! thread only swaps assets in place) and applies view-only settings.

use super::regen::PendingUpload;
use super::state::{EditedRecipe, Generated, ViewSettings};
use bevy::light::CascadeShadowConfigBuilder;
use bevy::pbr::wireframe::{Wireframe, WireframeColor, WireframePlugin};
use bevy::prelude::*;

pub struct TerrainScenePlugin;

impl Plugin for TerrainScenePlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((WireframePlugin::default(), TerrainUploadPlugin))
            .insert_resource(ClearColor(SKY))
            .insert_resource(GlobalAmbientLight {
                color: Color::srgb(0.75, 0.82, 1.0),
                brightness: 900.0,
                affects_lightmapped_meshes: true,
            })
            .add_systems(Startup, spawn_lights_and_water)
            .add_systems(
                Update,
                apply_view_settings.after(TerrainUpload).run_if(
                    resource_changed::<ViewSettings>.or_else(resource_changed::<TerrainBounds>),
                ),
            );
    }
}

/// Swaps what the regeneration job built into the terrain's mesh, image
/// and material assets (replaced in place: the asset counts never grow).
/// Needs only `Assets<Mesh>`, `Assets<Image>` and
/// `Assets<StandardMaterial>`, so it also runs headless (the soak test).
pub struct TerrainUploadPlugin;

/// The system set of the upload, for ordering.
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TerrainUpload;

impl Plugin for TerrainUploadPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ViewSettings>()
            .init_resource::<TerrainBounds>()
            .add_systems(Update, upload_terrain.in_set(TerrainUpload));
    }
}

const SKY: Color = Color::srgb(0.55, 0.72, 0.90);
const WATER: Color = Color::srgba(0.12, 0.32, 0.52, 0.72);

/// Marks the terrain mesh entity.
#[derive(Component)]
pub struct TerrainMesh;

#[derive(Component)]
struct WaterPlane;

#[derive(Component)]
struct Sun;

/// The displayed terrain's extent in world units (before exaggeration);
/// the camera frames it and the water plane covers it.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct TerrainBounds {
    pub half_width: f32,
    pub half_depth: f32,
    pub min_height: f32,
    pub max_height: f32,
    /// True once a terrain has been uploaded.
    pub ready: bool,
}

impl TerrainBounds {
    /// The bounds of a `width × height` map of `cell`-sized cells whose
    /// heights span `min..max`. A recipe can overflow to ±inf (or NaN
    /// after normalising that); the camera, sun and water still get
    /// numbers.
    pub fn of_map(width: usize, height: usize, cell: f32, min: f32, max: f32) -> Self {
        let finite_or_zero = |v: f32| if v.is_finite() { v } else { 0.0 };
        TerrainBounds {
            half_width: width.saturating_sub(1) as f32 * cell * 0.5,
            half_depth: height.saturating_sub(1) as f32 * cell * 0.5,
            min_height: finite_or_zero(min),
            max_height: finite_or_zero(max),
            ready: true,
        }
    }
}

/// Handles of the terrain's assets, replaced in place on each upload.
#[derive(Resource)]
struct TerrainHandles {
    mesh: Handle<Mesh>,
    image: Handle<Image>,
    material: Handle<StandardMaterial>,
}

fn spawn_lights_and_water(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.spawn((
        Sun,
        DirectionalLight {
            color: Color::srgb(1.0, 0.96, 0.88),
            illuminance: 9_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::default(),
    ));
    commands.spawn((
        WaterPlane,
        Mesh3d(meshes.add(Plane3d::default().mesh().size(1.0, 1.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: WATER,
            alpha_mode: AlphaMode::Blend,
            perceptual_roughness: 0.08,
            reflectance: 0.6,
            ..default()
        })),
        Transform::default(),
        Visibility::Hidden,
    ));
}

#[allow(clippy::too_many_arguments)]
fn upload_terrain(
    mut commands: Commands,
    mut upload: ResMut<PendingUpload>,
    generated: Res<Generated>,
    recipe: Res<EditedRecipe>,
    handles: Option<Res<TerrainHandles>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut images: ResMut<Assets<Image>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut bounds: ResMut<TerrainBounds>,
    view: Res<ViewSettings>,
) {
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
    if let Some(map) = &generated.shown_map {
        // The mesh was built with the generated recipe's cell size; the
        // edited one may already be newer.
        let cell = generated
            .recipe
            .as_ref()
            .map_or(recipe.0.cell_size(), |r| r.cell_size());
        bounds.set_if_neq(TerrainBounds::of_map(
            map.width(),
            map.height(),
            cell,
            generated.shown_min,
            generated.shown_max,
        ));
    }
}

/// Direction the sunlight travels, from compass azimuth (0 = north = -z,
/// 90 = east = +x) and elevation above the horizon, both in degrees.
pub fn sun_direction(azimuth_deg: f32, elevation_deg: f32) -> Vec3 {
    let (az, el) = (azimuth_deg.to_radians(), elevation_deg.to_radians());
    let towards_sun = Vec3::new(az.sin() * el.cos(), el.sin(), -az.cos() * el.cos());
    -towards_sun
}

#[allow(clippy::type_complexity)]
fn apply_view_settings(
    mut commands: Commands,
    view: Res<ViewSettings>,
    bounds: Res<TerrainBounds>,
    mut terrain: Query<(Entity, &mut Transform), (With<TerrainMesh>, Without<WaterPlane>)>,
    mut water: Query<
        (&mut Transform, &mut Visibility),
        (With<WaterPlane>, Without<TerrainMesh>, Without<Sun>),
    >,
    mut sun: Query<
        (Entity, &mut Transform, &mut DirectionalLight),
        (With<Sun>, Without<TerrainMesh>, Without<WaterPlane>),
    >,
) {
    let scale = view.height_scale.max(0.01);
    for (entity, mut transform) in &mut terrain {
        transform.scale = Vec3::new(1.0, scale, 1.0);
        if view.wireframe {
            // Dark lines: at one cell per pixel or two, white ones would
            // turn the whole terrain white.
            commands.entity(entity).insert((
                Wireframe,
                WireframeColor {
                    color: Color::srgb(0.08, 0.1, 0.08),
                },
            ));
        } else {
            commands.entity(entity).remove::<Wireframe>();
        }
    }
    for (mut transform, mut visibility) in &mut water {
        *transform = Transform::from_xyz(0.0, view.water_level * scale, 0.0).with_scale(Vec3::new(
            bounds.half_width * 2.0,
            1.0,
            bounds.half_depth * 2.0,
        ));
        *visibility = if view.water_enabled && bounds.ready {
            Visibility::Visible
        } else {
            Visibility::Hidden
        };
    }
    let radius = bounds.half_width.hypot(bounds.half_depth).max(1.0)
        + (bounds.max_height - bounds.min_height).abs() * scale;
    for (entity, mut transform, mut light) in &mut sun {
        let direction = sun_direction(view.sun_azimuth, view.sun_elevation);
        *transform = Transform::default().looking_to(direction, Vec3::Y);
        light.shadow_maps_enabled = view.shadows;
        // Cascades sized to the terrain so shadows stay crisp at any map size.
        commands.entity(entity).insert(
            CascadeShadowConfigBuilder {
                num_cascades: 2,
                minimum_distance: 0.1,
                first_cascade_far_bound: radius * 0.6,
                maximum_distance: radius * 3.0,
                ..default()
            }
            .build(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sun_direction_points_down_and_away_from_the_sun() {
        let d = sun_direction(90.0, 30.0);
        assert!(d.y < 0.0, "light travels downwards");
        assert!(d.x < 0.0, "sun in the east shines westwards");
        assert!((d.length() - 1.0).abs() < 1e-5);
        let noon = sun_direction(0.0, 90.0);
        assert!((noon - Vec3::NEG_Y).length() < 1e-5);
    }
}
