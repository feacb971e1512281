//! The 3D scene around the terrain: sky colour, sun, ambient light and
//! the water plane, and the view-only settings applied to them and to the
//! CPU path's terrain mesh.

use super::cpu_terrain::{TerrainMesh, TerrainUploadPlugin};
use crate::viewer::camera::TerrainBounds;
use crate::viewer::schedule::ViewerSystems;
use crate::viewer::settings::ViewSettings;
use bevy::light::CascadeShadowConfigBuilder;
use bevy::pbr::wireframe::{Wireframe, WireframeColor, WireframePlugin};
use bevy::prelude::*;

pub struct TerrainScenePlugin;

impl Plugin for TerrainScenePlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((WireframePlugin::default(), TerrainUploadPlugin))
            .init_resource::<ViewSettings>()
            .init_resource::<TerrainBounds>()
            .insert_resource(ClearColor(SKY))
            .insert_resource(GlobalAmbientLight {
                color: Color::srgb(0.75, 0.82, 1.0),
                brightness: 900.0,
                affects_lightmapped_meshes: true,
            })
            .add_systems(Startup, spawn_lights_and_water)
            .add_systems(
                Update,
                apply_view_settings.in_set(ViewerSystems::Draw).run_if(
                    resource_changed::<ViewSettings>.or_else(resource_changed::<TerrainBounds>),
                ),
            );
    }
}

const SKY: Color = Color::srgb(0.55, 0.72, 0.90);
const WATER: Color = Color::srgba(0.12, 0.32, 0.52, 0.72);

#[derive(Component)]
struct WaterPlane;

#[derive(Component)]
struct Sun;

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
