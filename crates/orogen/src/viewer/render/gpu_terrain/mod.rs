//! The terrain drawn by the GPU: the only per-edit upload is the height
//! texture (R32Float, 4 MiB at 1025²); a fixed patch mesh is displaced in
//! the vertex shader with CDLOD level of detail ([`lod`]); normals and the
//! splat's band and slope rules are evaluated per pixel ([`material`]).
//! Band and slope edits rewrite the material's uniform and start no job.
//! The flow overlay is a small strength texture (uploaded when a network
//! is known) blended in the fragment shader while the uniform says so.
//!
//! Where the adapter cannot do this (no vertex-stage texture reads, too
//! small a texture limit) or `--cpu-terrain` asks for it, the viewer keeps
//! the CPU mesh and splat texture of [`super::cpu_terrain`] and says why
//! ([`super::path`]).

pub mod material;

use super::assets::TerrainAssets;
use crate::viewer::camera::{FlyCamera, TerrainBounds};
use crate::viewer::display_data::flow::FlowField;
use crate::viewer::display_data::gpu::{HeightUpload, SplatGrid};
use crate::viewer::display_data::lod::{
    HeightBounds, MapPlacement, PATCH_QUADS, Patch, select_patches,
};
use crate::viewer::handoff::{Generated, PendingUpload, ShownBands};
use crate::viewer::schedule::{ViewerSystems, order_viewer_systems};
use crate::viewer::settings::{DisplayPath, ViewSettings};
use bevy::asset::{RenderAssetUsages, embedded_asset};
use bevy::camera::primitives::{Aabb, Frustum};
use bevy::camera::visibility::NoAutoAabb;
use bevy::ecs::system::SystemParam;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use material::{
    DrawOptions, TerrainMaterial, flow_image, overlay_uniform, terrain_uniform, tile_array,
};
use orogen_core::maps::DerivedMap;
use orogen_core::splat::TileImages;
use std::sync::Arc;

pub struct GpuTerrainPlugin;

impl Plugin for GpuTerrainPlugin {
    fn build(&self, app: &mut App) {
        order_viewer_systems(app);
        embedded_asset!(app, "terrain.wgsl");
        app.add_plugins(MaterialPlugin::<TerrainMaterial>::default())
            .init_resource::<LodStats>()
            .init_resource::<GpuDrawOptions>()
            .init_resource::<SelectionEye>()
            .add_systems(
                Update,
                (
                    (upload_heights, upload_flow)
                        .chain()
                        .in_set(ViewerSystems::Upload),
                    (place_patches, update_material)
                        .chain()
                        .in_set(ViewerSystems::Draw),
                ),
            )
            .add_systems(PostUpdate, count_drawn_vertices);
    }
}

/// Switches of the GPU drawing that are not view settings (the splat
/// agreement test draws unlit).
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct GpuDrawOptions(pub DrawOptions);

impl Default for GpuDrawOptions {
    fn default() -> Self {
        GpuDrawOptions(DrawOptions {
            unlit: false,
            triplanar: true,
        })
    }
}

/// Patches and vertices the GPU terrain draws this frame (after culling).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct LodStats {
    pub patches: usize,
    pub vertices: u64,
    /// Patches selected before frustum culling.
    pub selected: usize,
}

/// The GPU terrain's assets and what LOD selection needs.
#[derive(Resource)]
struct GpuTerrain {
    heights: Handle<Image>,
    tiles: Handle<Image>,
    material: Handle<TerrainMaterial>,
    /// Patch meshes: a node's ([`PATCH_QUADS`] a side) and a quadrant's.
    patch_meshes: [Handle<Mesh>; 2],
    bounds: Arc<HeightBounds>,
    grid: SplatGrid,
    tile_sizes: Vec<(u32, u32)>,
    /// The tile images the array was built from.
    tile_images: Arc<TileImages>,
    /// The maps the splat's map rules read, and which map each slot holds.
    rule_maps: Handle<Image>,
    rule_kinds: Vec<DerivedMap>,
    /// The flow overlay's strength texture, and the network it holds.
    flow: Handle<Image>,
    flow_source: Option<Arc<FlowField>>,
    /// Pools of patch entities per mesh, reused frame to frame.
    pools: [Vec<Entity>; 2],
}

/// A patch entity of the GPU terrain, with its mesh's quads a side.
#[derive(Component)]
pub struct TerrainPatch {
    quads: u32,
}

/// A patch mesh: a `(quads+1)²` grid over the unit square in x and z.
fn patch_mesh(quads: u32) -> Mesh {
    let n = quads + 1;
    let mut positions = Vec::with_capacity((n * n) as usize);
    for z in 0..n {
        for x in 0..n {
            positions.push([x as f32 / quads as f32, 0.0, z as f32 / quads as f32]);
        }
    }
    let mut indices = Vec::with_capacity((quads * quads * 6) as usize);
    for z in 0..quads {
        for x in 0..quads {
            let i = z * n + x;
            indices.extend_from_slice(&[i, i + n, i + 1, i + 1, i + n, i + n + 1]);
        }
    }
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::RENDER_WORLD,
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_indices(Indices::U32(indices))
}

fn upload_heights(
    mut commands: Commands,
    mut upload: ResMut<PendingUpload>,
    terrain: Option<ResMut<GpuTerrain>>,
    assets: TerrainAssets<TerrainMaterial>,
    generated: Res<Generated>,
    mut bounds: ResMut<TerrainBounds>,
) {
    let TerrainAssets {
        mut meshes,
        mut images,
        mut materials,
    } = assets;
    let Some(heights) = upload.heights.take() else {
        return;
    };
    let HeightUpload {
        image,
        bounds: node_bounds,
        grid,
        rule_maps,
        rule_kinds,
    } = heights;
    let tile_images = generated
        .tile_images
        .clone()
        .unwrap_or_else(|| Arc::new(TileImages { images: Vec::new() }));
    let tile_sizes = tile_images.images.iter().map(|i| i.dimensions()).collect();
    match terrain {
        Some(mut terrain) => {
            // A new asset each time: the page count and size change with
            // the map, and an array texture is not updated in place.
            images.remove(&terrain.heights);
            terrain.heights = images.add(image);
            images.remove(&terrain.rule_maps);
            terrain.rule_maps = images.add(rule_maps);
            terrain.rule_kinds = rule_kinds;
            // The job hands out the same `Arc` while the tiles' images are
            // unchanged; only a new one is compared pixel for pixel.
            let same_tiles = Arc::ptr_eq(&terrain.tile_images, &tile_images)
                || terrain.tile_images.images == tile_images.images;
            if !same_tiles {
                // A new asset, not one replaced in place: an in-place
                // update of a mipmapped array would rewrite mip 0 only.
                images.remove(&terrain.tiles);
                terrain.tiles = images.add(tile_array(&tile_images));
                terrain.tile_images = tile_images;
                terrain.tile_sizes = tile_sizes;
            }
            if let Some(mut material) = materials.get_mut(&terrain.material) {
                material.heights = terrain.heights.clone();
                material.tiles = terrain.tiles.clone();
                material.rule_maps = terrain.rule_maps.clone();
            }
            terrain.bounds = Arc::new(node_bounds);
            terrain.grid = grid;
        }
        None => {
            info!("first terrain uploaded (GPU)");
            let heights = images.add(image);
            let tiles = images.add(tile_array(&tile_images));
            let flow = images.add(flow_image(None));
            let rule_maps = images.add(rule_maps);
            let material = materials.add(TerrainMaterial {
                uniform: default(),
                heights: heights.clone(),
                tiles: tiles.clone(),
                flow: flow.clone(),
                rule_maps: rule_maps.clone(),
                wireframe: false,
            });
            commands.insert_resource(GpuTerrain {
                heights,
                tiles,
                material,
                patch_meshes: [
                    meshes.add(patch_mesh(PATCH_QUADS)),
                    meshes.add(patch_mesh(PATCH_QUADS / 2)),
                ],
                bounds: Arc::new(node_bounds),
                grid,
                tile_sizes,
                tile_images,
                rule_maps,
                rule_kinds,
                flow,
                flow_source: None,
                pools: [Vec::new(), Vec::new()],
            });
        }
    }
    bounds.set_if_neq(TerrainBounds::of_map(
        grid.map_width as usize,
        grid.map_height as usize,
        grid.cell_size,
        generated.shown_min,
        generated.shown_max,
    ));
}

/// Uploads the shown map's flow network as the material's strength
/// texture when a new one is known (a generation that brought one, or the
/// overlay's task); switching the overlay is a uniform write.
fn upload_flow(
    terrain: Option<ResMut<GpuTerrain>>,
    generated: Res<Generated>,
    mut images: ResMut<Assets<Image>>,
    mut materials: ResMut<Assets<TerrainMaterial>>,
) {
    let (Some(mut terrain), Some(flow)) = (terrain, generated.flow.as_ref()) else {
        return;
    };
    if terrain
        .flow_source
        .as_ref()
        .is_some_and(|shown| Arc::ptr_eq(shown, flow))
    {
        return;
    }
    // A new asset: the network's size follows the map's.
    images.remove(&terrain.flow);
    terrain.flow = images.add(flow_image(Some(flow)));
    terrain.flow_source = Some(flow.clone());
    if let Some(mut material) = materials.get_mut(&terrain.material) {
        material.flow = terrain.flow.clone();
    }
}

/// The overlay's tint when the GPU terrain draws it: it is on, and the
/// texture holds the shown map's overlay of the chosen map.
fn overlay_shown(
    view: &ViewSettings,
    generated: &Generated,
    source: Option<&Arc<FlowField>>,
) -> Option<[u8; 3]> {
    match (generated.flow.as_ref(), source) {
        (Some(a), Some(b)) if view.flow_overlay && Arc::ptr_eq(a, b) && a.kind == view.overlay => {
            Some(a.tint)
        }
        _ => None,
    }
}

/// The camera position the patches were last selected for.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
struct SelectionEye(Vec3);

/// Rewrites the material's uniform when bands, tiles, the map, the view
/// or the selection's eye change: a band edit is a uniform write.
fn update_material(
    terrain: Option<Res<GpuTerrain>>,
    generated: Res<Generated>,
    bands: Res<ShownBands>,
    view: Res<ViewSettings>,
    options: Res<GpuDrawOptions>,
    eye: Res<SelectionEye>,
    mut materials: ResMut<Assets<TerrainMaterial>>,
) {
    let Some(terrain) = terrain else {
        return;
    };
    if !(terrain.is_changed()
        || generated.is_changed()
        || bands.is_changed()
        || view.is_changed()
        || options.is_changed()
        || eye.is_changed())
    {
        return;
    }
    let Some(mut tiles) = bands.resolved(&generated) else {
        return;
    };
    // Never more tiles than the array holds (an added tile's image
    // arrives with its job).
    tiles.tiles.truncate(terrain.tile_sizes.len());
    let top = terrain.bounds.top_height();
    let mut uniform = terrain_uniform(
        &terrain.grid,
        top,
        &tiles,
        &terrain.tile_sizes,
        &terrain.rule_kinds,
        options.0,
    );
    uniform.eye = eye.0.extend(1.0);
    uniform.overlay = overlay_uniform(overlay_shown(
        &view,
        &generated,
        terrain.flow_source.as_ref(),
    ));
    let Some(material) = materials.get(&terrain.material) else {
        return;
    };
    if material.uniform == uniform && material.wireframe == view.wireframe {
        return;
    }
    if let Some(mut material) = materials.get_mut(&terrain.material) {
        material.uniform = uniform;
        material.wireframe = view.wireframe;
    }
}

/// The pooled patch entities, placed each frame.
type PatchQuery<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut Transform,
        &'static mut Aabb,
        &'static mut Visibility,
    ),
    (With<TerrainPatch>, Without<FlyCamera>),
>;

/// What a selection of patches reports: how many, and for which eye.
#[derive(SystemParam)]
struct SelectionReport<'w> {
    stats: ResMut<'w, LodStats>,
    eye: ResMut<'w, SelectionEye>,
}

/// Selects the patches for the camera and places the pooled entities.
fn place_patches(
    mut commands: Commands,
    terrain: Option<ResMut<GpuTerrain>>,
    view: Res<ViewSettings>,
    path: Res<DisplayPath>,
    camera: Query<&Transform, With<FlyCamera>>,
    mut patches: PatchQuery,
    report: SelectionReport,
) {
    let SelectionReport {
        mut stats,
        eye: mut selection_eye,
    } = report;
    let Some(mut terrain) = terrain else {
        return;
    };
    let eye = camera.iter().next().map(|t| t.translation);
    let (Some(eye), true) = (eye, path.is_gpu()) else {
        // No camera yet, or the CPU mesh took over: nothing drawn here.
        for &entity in terrain.pools.iter().flatten() {
            if let Ok((_, _, mut visibility)) = patches.get_mut(entity) {
                visibility.set_if_neq(Visibility::Hidden);
            }
        }
        return;
    };
    let grid = terrain.grid;
    let place = MapPlacement {
        cell_size: grid.cell_size,
        half_width: (grid.map_width - 1) as f32 * grid.cell_size * 0.5,
        half_depth: (grid.map_height - 1) as f32 * grid.cell_size * 0.5,
        height_scale: view.height_scale.max(0.01),
    };
    let selected = select_patches(&terrain.bounds, &place, eye.to_array());
    selection_eye.set_if_neq(SelectionEye(eye));
    stats.selected = selected.len();
    for (kind, quads) in [PATCH_QUADS, PATCH_QUADS / 2].into_iter().enumerate() {
        let mut mine = selected.iter().filter(|p| p.quads == quads);
        let wanted = mine.clone().count();
        while terrain.pools[kind].len() < wanted {
            let entity = commands
                .spawn((
                    TerrainPatch { quads },
                    Mesh3d(terrain.patch_meshes[kind].clone()),
                    MeshMaterial3d(terrain.material.clone()),
                    Transform::default(),
                    Visibility::Hidden,
                    Aabb::default(),
                    NoAutoAabb,
                ))
                .id();
            terrain.pools[kind].push(entity);
        }
        for &entity in &terrain.pools[kind] {
            let Ok((mut transform, mut aabb, mut visibility)) = patches.get_mut(entity) else {
                continue; // spawned this frame; placed from the next one
            };
            match mine.next() {
                Some(patch) => {
                    let (t, b) = patch_placement(patch, &place);
                    transform.set_if_neq(t);
                    if *aabb != b {
                        *aabb = b;
                    }
                    visibility.set_if_neq(Visibility::Inherited);
                }
                None => {
                    visibility.set_if_neq(Visibility::Hidden);
                }
            }
        }
    }
}

/// A patch's transform and its local box. The shader reads the patch's
/// origin from the translation's x and z, its side from the x scale, the
/// exaggeration from the y scale and its level from the translation's y
/// (heights are absolute, so y is free to carry it).
fn patch_placement(patch: &Patch, place: &MapPlacement) -> (Transform, Aabb) {
    let c = place.cell_size;
    let side = patch.side as f32 * c;
    let level = patch.level as f32;
    let transform = Transform::from_xyz(
        patch.x0 as f32 * c - place.half_width,
        level,
        patch.z0 as f32 * c - place.half_depth,
    )
    .with_scale(Vec3::new(side, place.height_scale, side));
    // World y = local y · scale + level: the box holds the heights.
    let shift = level / place.height_scale;
    let aabb = Aabb::from_min_max(
        Vec3::new(0.0, patch.min_height - shift, 0.0),
        Vec3::new(1.0, patch.max_height.max(patch.min_height) - shift, 1.0),
    );
    (transform, aabb)
}

/// Counts the patches the camera draws: placed ones inside its frustum
/// (Bevy's own visibility flag also counts what only the sun's shadow
/// cascades see).
fn count_drawn_vertices(
    camera: Query<&Frustum, With<FlyCamera>>,
    patches: Query<(&TerrainPatch, &Visibility, &Aabb, &GlobalTransform)>,
    mut stats: ResMut<LodStats>,
) {
    let Some(frustum) = camera.iter().next() else {
        return;
    };
    let (mut drawn, mut vertices) = (0, 0);
    for (patch, visibility, aabb, transform) in &patches {
        if *visibility != Visibility::Hidden
            && frustum.intersects_obb(aabb, &transform.affine(), true, true)
        {
            drawn += 1;
            vertices += u64::from(patch.quads + 1).pow(2);
        }
    }
    stats.patches = drawn;
    stats.vertices = vertices;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::document::EditedRecipe;
    use crate::viewer::regen::{RegenJob, RegenerationPlugin};
    use crate::viewer::schedule::order_viewer_systems;
    use bevy::render::render_resource::TextureFormat;
    use std::time::{Duration, Instant};

    /// The flow overlay on the GPU path: switching it on routes the shown
    /// map once (no job), uploads the network as the material's strength
    /// texture and turns the tint on in the uniform; off is a uniform
    /// write.
    #[test]
    fn the_flow_overlay_is_a_texture_and_a_uniform_switch() {
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
        .init_asset::<Image>()
        .init_asset::<Mesh>()
        .init_asset::<TerrainMaterial>()
        .init_resource::<GpuDrawOptions>()
        .init_resource::<SelectionEye>()
        .init_resource::<TerrainBounds>()
        .insert_resource(EditedRecipe(recipe))
        .add_systems(
            Update,
            (
                (upload_heights, upload_flow).in_set(ViewerSystems::Upload),
                update_material.in_set(ViewerSystems::Draw),
            ),
        );
        order_viewer_systems(&mut app);
        let deadline = Instant::now() + Duration::from_secs(30);
        let update_until = |app: &mut App, done: &dyn Fn(&World) -> bool| {
            while !done(app.world()) {
                assert!(Instant::now() < deadline, "timed out");
                app.update();
                std::thread::sleep(Duration::from_millis(5));
            }
            app.update();
        };
        update_until(&mut app, &|w| {
            w.contains_resource::<GpuTerrain>() && !w.resource::<RegenJob>().is_busy()
        });
        let material = |app: &App| {
            let terrain = app.world().resource::<GpuTerrain>();
            let materials = app.world().resource::<Assets<TerrainMaterial>>();
            materials
                .get(&terrain.material)
                .cloned()
                .expect("the material")
        };
        let off = material(&app);
        assert_eq!(off.uniform.overlay, Vec4::ZERO);
        let jobs = app.world().resource::<RegenJob>().started_count;
        app.world_mut().resource_mut::<ViewSettings>().flow_overlay = true;
        update_until(&mut app, &|w| w.resource::<Generated>().flow.is_some());
        let on = material(&app);
        assert!(on.uniform.overlay.w > 0.0, "tint on");
        let images = app.world().resource::<Assets<Image>>();
        let flow = images.get(&on.flow).expect("the strength texture");
        let size = flow.texture_descriptor.size;
        assert_eq!((size.width, size.height), (65, 65));
        assert_eq!(flow.texture_descriptor.format, TextureFormat::R8Unorm);
        assert!(
            flow.data
                .as_deref()
                .unwrap_or_default()
                .iter()
                .any(|&v| v > 80)
        );
        app.world_mut().resource_mut::<ViewSettings>().flow_overlay = false;
        app.update();
        assert_eq!(material(&app).uniform.overlay, Vec4::ZERO);
        assert_eq!(app.world().resource::<RegenJob>().started_count, jobs);
    }

    #[test]
    fn a_patch_carries_its_level_and_its_box_holds_its_heights() {
        let place = MapPlacement {
            cell_size: 2.0,
            half_width: 1024.0,
            half_depth: 512.0,
            height_scale: 3.0,
        };
        let patch = Patch {
            level: 2,
            x0: 128,
            z0: 64,
            side: 128,
            quads: PATCH_QUADS,
            min_height: -5.0,
            max_height: 40.0,
        };
        let (transform, aabb) = patch_placement(&patch, &place);
        assert_eq!(transform.translation, Vec3::new(-768.0, 2.0, -384.0));
        assert_eq!(transform.scale, Vec3::new(256.0, 3.0, 256.0));
        // The box, through the transform, spans the heights as drawn.
        let matrix = transform.to_matrix();
        let low = matrix.transform_point3((aabb.center - aabb.half_extents).into());
        let high = matrix.transform_point3((aabb.center + aabb.half_extents).into());
        assert!(
            (low.y - -15.0).abs() < 1e-4 && (high.y - 120.0).abs() < 1e-4,
            "{low} {high}"
        );
        assert!((low.x - -768.0).abs() < 1e-3 && (high.x - -512.0).abs() < 1e-3);
    }
}
