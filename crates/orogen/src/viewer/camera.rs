//! Fly camera: W/A/S/D move, Q/E down/up, hold the right mouse button to
//! look, the wheel changes speed, Shift moves fast, F frames the terrain.
//! `orogen view --look-from X,Y,Z --look-at X,Y,Z` starts it at a given
//! place instead, in world units ([`CameraPlacement`]).
//! Keys and mouse are ignored while egui uses them. The math lives in
//! plain functions below so it is unit-tested without an `App`.

use super::display_data::gpu::splat_texels;
use super::document::EditedRecipe;
use super::schedule::ViewerSystems;
use super::settings::{UiFocus, ViewSettings};
use bevy::ecs::system::SystemParam;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use std::f32::consts::FRAC_PI_2;

pub struct FlyCameraPlugin;

impl Plugin for FlyCameraPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn_camera)
            .init_resource::<TerrainBounds>()
            .add_systems(
                Update,
                (frame_terrain, fly)
                    .chain()
                    .in_set(ViewerSystems::MoveCamera),
            );
    }
}

/// The displayed terrain's extent in world units (before exaggeration);
/// the camera frames it and the water plane covers it. Set by the scene
/// when a terrain is uploaded.
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

/// Vertical field of view of the 3D camera.
pub const FOV_Y: f32 = std::f32::consts::FRAC_PI_4;
/// Pitch stays short of straight up/down so `looking_to` stays defined.
const MAX_PITCH: f32 = FRAC_PI_2 - 0.01;
const LOOK_RADIANS_PER_PIXEL: f32 = 0.003;
const FAST_FACTOR: f32 = 4.0;
const MIN_SPEED: f32 = 0.5;
const MAX_SPEED: f32 = 20_000.0;

#[derive(Component, Clone, Copy, Debug)]
pub struct FlyCamera {
    /// Radians around +y; 0 looks north (-z), positive turns left (west).
    pub yaw: f32,
    /// Radians above the horizon.
    pub pitch: f32,
    /// World units per second.
    pub speed: f32,
    /// Whether the camera has been placed for the current terrain yet.
    pub framed: bool,
}

impl Default for FlyCamera {
    fn default() -> Self {
        Self {
            yaw: 0.0,
            pitch: -0.5,
            speed: 60.0,
            framed: false,
        }
    }
}

/// Unit view direction for a yaw and pitch.
pub fn direction_from_yaw_pitch(yaw: f32, pitch: f32) -> Vec3 {
    Vec3::new(
        -yaw.sin() * pitch.cos(),
        pitch.sin(),
        -yaw.cos() * pitch.cos(),
    )
}

/// Yaw and pitch of a (not necessarily unit) direction; the inverse of
/// [`direction_from_yaw_pitch`].
pub fn yaw_pitch_from_direction(direction: Vec3) -> (f32, f32) {
    let d = direction.normalize_or(Vec3::NEG_Z);
    let yaw = (-d.x).atan2(-d.z);
    let pitch = d.y.clamp(-1.0, 1.0).asin().clamp(-MAX_PITCH, MAX_PITCH);
    (yaw, pitch)
}

/// Yaw and pitch after a mouse movement of `delta` pixels.
pub fn look(yaw: f32, pitch: f32, delta: Vec2) -> (f32, f32) {
    let yaw = (yaw - delta.x * LOOK_RADIANS_PER_PIXEL).rem_euclid(std::f32::consts::TAU);
    let pitch = (pitch - delta.y * LOOK_RADIANS_PER_PIXEL).clamp(-MAX_PITCH, MAX_PITCH);
    (yaw, pitch)
}

/// Keys held this frame, as axis values in -1..=1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveInput {
    pub forward: f32,
    pub right: f32,
    pub up: f32,
    pub fast: bool,
}

/// Displacement for one frame: forward along the view, right along the
/// horizon, up along world +y.
pub fn movement(yaw: f32, pitch: f32, input: MoveInput, speed: f32, seconds: f32) -> Vec3 {
    let forward = direction_from_yaw_pitch(yaw, pitch);
    let right = Vec3::new(yaw.cos(), 0.0, -yaw.sin());
    let wish = forward * input.forward + right * input.right + Vec3::Y * input.up;
    let factor = if input.fast { FAST_FACTOR } else { 1.0 };
    wish.normalize_or_zero() * speed * factor * seconds
}

/// Speed after turning the wheel by `lines` notches (up = faster).
pub fn speed_after_scroll(speed: f32, lines: f32) -> f32 {
    (speed * 1.2f32.powf(lines)).clamp(MIN_SPEED, MAX_SPEED)
}

/// Distance at which a sphere of `radius` fills the narrower field of view.
pub fn framing_distance(radius: f32, fov_y: f32, aspect: f32) -> f32 {
    let half_y = fov_y * 0.5;
    let half_x = (half_y.tan() * aspect.max(0.1)).atan();
    radius / half_y.min(half_x).sin()
}

/// Whether every point lies inside the view of a camera at `position`
/// looking at `target` (with a small margin), for a vertical fov and aspect.
pub fn points_in_view(
    position: Vec3,
    target: Vec3,
    points: &[Vec3],
    fov_y: f32,
    aspect: f32,
) -> bool {
    let forward = (target - position).normalize_or(Vec3::NEG_Z);
    let right = forward.cross(Vec3::Y).normalize_or(Vec3::X);
    let up = right.cross(forward);
    let margin = 0.92;
    let tan_y = (fov_y * 0.5).tan() * margin;
    let tan_x = tan_y * aspect.max(0.1);
    points.iter().all(|&p| {
        let d = p - position;
        let depth = d.dot(forward);
        depth > 0.0 && d.dot(right).abs() <= tan_x * depth && d.dot(up).abs() <= tan_y * depth
    })
}

/// Where to put the camera to see the whole terrain: south-west of it,
/// looking down at about 35 degrees, as close as possible while all eight
/// corners of its box stay in view. Returns (position, target).
pub fn framing_pose(bounds: &TerrainBounds, height_scale: f32, aspect: f32) -> (Vec3, Vec3) {
    let low = bounds.min_height * height_scale;
    let high = bounds.max_height * height_scale;
    let target = Vec3::new(0.0, (low + high) * 0.5, 0.0);
    let (hx, hz) = (bounds.half_width, bounds.half_depth);
    let corners: Vec<Vec3> = [low, high]
        .iter()
        .flat_map(|&y| {
            [(-hx, -hz), (hx, -hz), (-hx, hz), (hx, hz)].map(|(x, z)| Vec3::new(x, y, z))
        })
        .collect();
    let radius = (Vec3::new(hx, (high - low) * 0.5, hz)).length().max(1.0);
    let from = direction_from_yaw_pitch(150f32.to_radians(), 35f32.to_radians());
    // The bounding sphere always fits; search for the closest distance
    // that still shows every corner (the box is usually much flatter).
    let (mut near, mut far) = (0.0f32, framing_distance(radius, FOV_Y, aspect));
    for _ in 0..24 {
        let mid = (near + far) * 0.5;
        if points_in_view(target + from * mid, target, &corners, FOV_Y, aspect) {
            far = mid;
        } else {
            near = mid;
        }
    }
    (target + from * far, target)
}

/// A camera position and the point it looks at, in world units: X east
/// from the map's west edge, Y height (before the view's height factor),
/// Z south from its north edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraPlacement {
    pub from: Vec3,
    pub at: Vec3,
}

impl CameraPlacement {
    /// Refuses a placement with no direction (both points the same).
    pub fn new(from: [f32; 3], at: [f32; 3]) -> Result<Self, String> {
        let (from, at) = (Vec3::from(from), Vec3::from(at));
        if from.distance(at) < 1e-3 {
            return Err(
                "--look-from and --look-at are the same point: the camera needs a direction".into(),
            );
        }
        Ok(Self { from, at })
    }

    /// (position, target) in the scene, where the terrain is centred on
    /// the origin with north towards -z and heights scaled by the view.
    pub fn scene_pose(&self, bounds: &TerrainBounds, height_scale: f32) -> (Vec3, Vec3) {
        let to_scene = |p: Vec3| {
            Vec3::new(
                p.x - bounds.half_width,
                p.y * height_scale,
                p.z - bounds.half_depth,
            )
        };
        (to_scene(self.from), to_scene(self.at))
    }
}

/// Distance haze for a camera `view_distance` from what it looks at over
/// a terrain of `terrain_radius`: squared-exponential fog that fades
/// contrast to 5 % at 2.5 × (view distance + diameter), so the far side
/// of the map reads as far (about a fifth hazed from an overview) while
/// the near side stays clear.
pub fn haze_for(view_distance: f32, terrain_radius: f32) -> FogFalloff {
    FogFalloff::from_visibility_squared((2.5 * (view_distance + 2.0 * terrain_radius)).max(1.0))
}

/// `--top-texels`: an orthographic camera straight down at one pixel per
/// splat texel (north up), for comparing the GPU splat with `texture.png`.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct TopTexels(pub bool);

/// World units per screen pixel for `--top-texels`: one splat texel.
pub fn top_texel_size(bounds: &TerrainBounds, texels_x: usize) -> f32 {
    bounds.half_width * 2.0 / texels_x.max(1) as f32
}

/// The placement the viewer starts with, if the command line gave one.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct StartView(pub Option<CameraPlacement>);

/// Yaw and pitch for looking along `direction`, north up when it points
/// straight down or up (where any yaw would do).
pub fn placement_yaw_pitch(direction: Vec3) -> (f32, f32) {
    let (yaw, pitch) = yaw_pitch_from_direction(direction);
    if direction.x.hypot(direction.z) <= direction.length() * 1e-6 {
        (0.0, pitch)
    } else {
        (yaw, pitch)
    }
}

fn spawn_camera(mut commands: Commands, top: Option<Res<TopTexels>>) {
    let mut camera = commands.spawn((
        Camera3d::default(),
        Msaa::Off,
        Projection::Perspective(PerspectiveProjection {
            fov: FOV_Y,
            near: 0.5,
            far: 50_000.0,
            ..default()
        }),
        Transform::from_xyz(0.0, 300.0, 600.0).looking_at(Vec3::ZERO, Vec3::Y),
        FlyCamera::default(),
    ));
    if top.is_some_and(|t| t.0) {
        // Colours exactly as painted: no tone curve, dither or haze.
        camera.insert((
            bevy::core_pipeline::tonemapping::Tonemapping::None,
            bevy::core_pipeline::tonemapping::DebandDither::Disabled,
        ));
    } else {
        camera.insert(DistanceFog {
            color: Color::srgba(0.62, 0.75, 0.90, 1.0),
            falloff: FogFalloff::Linear {
                start: 2_000.0,
                end: 20_000.0,
            },
            ..default()
        });
    }
}

fn egui_has_keyboard(focus: &Option<Res<UiFocus>>) -> bool {
    focus.as_ref().is_some_and(|f| f.keyboard)
}

fn egui_has_pointer(focus: &Option<Res<UiFocus>>) -> bool {
    focus.as_ref().is_some_and(|f| f.pointer)
}

/// What framing the terrain follows: the view's exaggeration, a start
/// pose or a top view asked for, and the recipe's texture size.
#[derive(SystemParam)]
struct Framing<'w> {
    view: Option<Res<'w, ViewSettings>>,
    start: Option<Res<'w, StartView>>,
    top: Option<Res<'w, TopTexels>>,
    recipe: Option<Res<'w, EditedRecipe>>,
}

/// Keys, buttons and the mouse as the fly camera reads them, and whether
/// the panels hold them.
#[derive(SystemParam)]
struct FlyInput<'w> {
    keys: Res<'w, ButtonInput<KeyCode>>,
    buttons: Res<'w, ButtonInput<MouseButton>>,
    motion: Res<'w, AccumulatedMouseMotion>,
    scroll: Res<'w, AccumulatedMouseScroll>,
    wants: Option<Res<'w, UiFocus>>,
}

/// Places the camera when the first terrain arrives, when the map's size
/// changes, and when F is pressed.
fn frame_terrain(
    keys: Res<ButtonInput<KeyCode>>,
    bounds: Res<TerrainBounds>,
    framing: Framing,
    wants: Option<Res<UiFocus>>,
    mut last_extent: Local<Option<(f32, f32)>>,
    mut cameras: Query<(
        &mut Transform,
        &mut FlyCamera,
        &Camera,
        &mut Projection,
        Option<&mut DistanceFog>,
    )>,
) {
    if !bounds.ready {
        return;
    }
    let Framing {
        view,
        start,
        top,
        recipe,
    } = framing;
    let extent = (bounds.half_width, bounds.half_depth);
    let resized = *last_extent != Some(extent);
    let pressed = keys.just_pressed(KeyCode::KeyF) && !egui_has_keyboard(&wants);
    let height_scale = view.map(|v| v.height_scale).unwrap_or(1.0);
    let top = top.is_some_and(|t| t.0);
    for (mut transform, mut fly, camera, mut projection, fog) in &mut cameras {
        if fly.framed && !resized && !pressed {
            continue;
        }
        if top {
            let texels = recipe
                .as_ref()
                .map(|r| splat_texels(r.0.width, r.0.height).0)
                .unwrap_or(1);
            let above = bounds.max_height.abs().max(bounds.min_height.abs()) * height_scale + 10.0;
            *transform = Transform::from_xyz(0.0, above, 0.0).looking_to(Vec3::NEG_Y, Vec3::NEG_Z);
            *projection = Projection::Orthographic(OrthographicProjection {
                scaling_mode: bevy::camera::ScalingMode::WindowSize,
                scale: top_texel_size(&bounds, texels),
                near: 0.0,
                far: above * 2.0 + 10.0,
                ..OrthographicProjection::default_3d()
            });
            fly.framed = true;
            continue;
        }
        let aspect = camera
            .logical_viewport_size()
            .map(|s| s.x / s.y.max(1.0))
            .unwrap_or(16.0 / 9.0);
        let placed = start.as_ref().and_then(|s| s.0).filter(|_| !pressed);
        let (position, target) = match placed {
            Some(placement) => placement.scene_pose(&bounds, height_scale),
            None => framing_pose(&bounds, height_scale, aspect),
        };
        (fly.yaw, fly.pitch) = placement_yaw_pitch(target - position);
        *transform = Transform::from_translation(position)
            .looking_to(direction_from_yaw_pitch(fly.yaw, fly.pitch), Vec3::Y);
        // A placed camera may look at something close: the far plane and
        // the haze still reach past the whole terrain.
        let terrain_radius = Vec3::new(
            bounds.half_width,
            (bounds.max_height - bounds.min_height) * height_scale * 0.5,
            bounds.half_depth,
        )
        .length();
        let reach = position.length() + terrain_radius;
        let view_distance = position.distance(target);
        let distance = match placed {
            Some(_) => view_distance.max(reach),
            None => view_distance,
        };
        fly.speed = (view_distance * 0.25).clamp(MIN_SPEED, MAX_SPEED);
        fly.framed = true;
        // Keep the far plane and the haze proportional to the terrain.
        if let Projection::Perspective(perspective) = projection.as_mut() {
            perspective.far = distance * 20.0;
            perspective.near = (distance * 0.0005).max(0.05);
        }
        if let Some(mut fog) = fog {
            fog.falloff = haze_for(view_distance, terrain_radius);
        }
    }
    *last_extent = Some(extent);
}

fn fly(
    top: Option<Res<TopTexels>>,
    time: Res<Time>,
    input: FlyInput,
    mut cameras: Query<(&mut Transform, &mut FlyCamera)>,
) {
    let FlyInput {
        keys,
        buttons,
        motion,
        scroll,
        wants,
    } = input;
    if top.is_some_and(|t| t.0) {
        return; // a fixed view
    }
    let keyboard_free = !egui_has_keyboard(&wants);
    let pointer_free = !egui_has_pointer(&wants);
    for (mut transform, mut fly) in &mut cameras {
        if pointer_free && buttons.pressed(MouseButton::Right) && motion.delta != Vec2::ZERO {
            (fly.yaw, fly.pitch) = look(fly.yaw, fly.pitch, motion.delta);
        }
        if pointer_free && scroll.delta.y != 0.0 {
            let lines = match scroll.unit {
                MouseScrollUnit::Line => scroll.delta.y,
                MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
            };
            fly.speed = speed_after_scroll(fly.speed, lines);
        }
        let mut input = MoveInput::default();
        if keyboard_free {
            let axis = |plus: KeyCode, minus: KeyCode| {
                keys.pressed(plus) as i32 as f32 - keys.pressed(minus) as i32 as f32
            };
            input = MoveInput {
                forward: axis(KeyCode::KeyW, KeyCode::KeyS),
                right: axis(KeyCode::KeyD, KeyCode::KeyA),
                up: axis(KeyCode::KeyE, KeyCode::KeyQ),
                fast: keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]),
            };
        }
        // Undo/redo use Ctrl+Z/Y; Ctrl+S-style chords must not move the camera.
        if keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]) {
            input = MoveInput::default();
        }
        let step = movement(fly.yaw, fly.pitch, input, fly.speed, time.delta_secs());
        transform.translation += step;
        let direction = direction_from_yaw_pitch(fly.yaw, fly.pitch);
        transform.look_to(direction, Vec3::Y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placement_maps_world_units_onto_the_centred_scene() {
        let bounds = TerrainBounds {
            half_width: 512.0,
            half_depth: 256.0,
            min_height: 0.0,
            max_height: 100.0,
            ready: true,
        };
        let placement = CameraPlacement::new([0.0, 50.0, 0.0], [1024.0, 0.0, 512.0]).unwrap();
        let (from, at) = placement.scene_pose(&bounds, 2.0);
        // The north-west corner, then the south-east corner, heights doubled.
        assert_eq!(from, Vec3::new(-512.0, 100.0, -256.0));
        assert_eq!(at, Vec3::new(512.0, 0.0, 256.0));
        assert!(CameraPlacement::new([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]).is_err());
    }

    #[test]
    fn straight_down_looks_with_north_up_and_others_keep_their_yaw() {
        let (yaw, pitch) = placement_yaw_pitch(Vec3::NEG_Y * 40.0);
        assert_eq!(yaw, 0.0);
        assert!(pitch < -1.5);
        // From the south-west towards the north-east: yaw between north
        // (0) and east (-π/2).
        let (yaw, _) = placement_yaw_pitch(Vec3::new(1.0, -1.0, -1.0));
        assert!((yaw + std::f32::consts::FRAC_PI_4).abs() < 1e-5, "{yaw}");
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-4
    }

    #[test]
    fn haze_keeps_the_near_side_clear_and_hazes_the_far_side() {
        let (view, radius) = (1500.0, 700.0);
        let FogFalloff::ExponentialSquared { density } = haze_for(view, radius) else {
            panic!("squared-exponential haze expected");
        };
        let fogged = |d: f32| 1.0 - (-(d * density).powi(2)).exp();
        assert!(
            fogged(view - radius) < 0.06,
            "near side {}",
            fogged(view - radius)
        );
        assert!(
            fogged(view + radius) > 0.12,
            "far side {}",
            fogged(view + radius)
        );
        assert!(
            fogged(view + radius) < 0.35,
            "far side {}",
            fogged(view + radius)
        );
    }

    #[test]
    fn yaw_zero_looks_north_and_yaw_quarter_looks_west() {
        assert!(close(direction_from_yaw_pitch(0.0, 0.0), Vec3::NEG_Z));
        assert!(close(direction_from_yaw_pitch(FRAC_PI_2, 0.0), Vec3::NEG_X));
        assert!(close(
            direction_from_yaw_pitch(0.0, 0.3).normalize(),
            direction_from_yaw_pitch(0.0, 0.3)
        ));
    }

    #[test]
    fn yaw_pitch_round_trip() {
        for &(yaw, pitch) in &[(0.3, -0.4), (2.5, 0.2), (-1.0, 1.2)] {
            let d = direction_from_yaw_pitch(yaw, pitch);
            let (y2, p2) = yaw_pitch_from_direction(d);
            assert!(close(direction_from_yaw_pitch(y2, p2), d));
        }
    }

    #[test]
    fn look_clamps_pitch() {
        let (_, pitch) = look(0.0, 0.0, Vec2::new(0.0, -100_000.0));
        assert!(pitch <= MAX_PITCH);
        let (_, pitch) = look(0.0, 0.0, Vec2::new(0.0, 100_000.0));
        assert!(pitch >= -MAX_PITCH);
    }

    #[test]
    fn movement_follows_view_and_shift_is_faster() {
        let input = MoveInput {
            forward: 1.0,
            ..default()
        };
        let step = movement(0.0, 0.0, input, 10.0, 0.5);
        assert!(close(step, Vec3::new(0.0, 0.0, -5.0)));
        let fast = movement(
            0.0,
            0.0,
            MoveInput {
                fast: true,
                ..input
            },
            10.0,
            0.5,
        );
        assert!((fast.length() - 5.0 * FAST_FACTOR).abs() < 1e-4);
        let strafe = MoveInput {
            right: 1.0,
            ..default()
        };
        assert!(close(movement(0.0, 0.7, strafe, 1.0, 1.0), Vec3::X));
        // Diagonals are not faster than straight moves.
        let diagonal = MoveInput {
            forward: 1.0,
            right: 1.0,
            ..default()
        };
        assert!((movement(0.0, 0.0, diagonal, 1.0, 1.0).length() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn scroll_changes_speed_within_limits() {
        assert!(speed_after_scroll(10.0, 1.0) > 10.0);
        assert!(speed_after_scroll(10.0, -1.0) < 10.0);
        assert_eq!(speed_after_scroll(10.0, -1000.0), MIN_SPEED);
        assert_eq!(speed_after_scroll(10.0, 1000.0), MAX_SPEED);
    }

    #[test]
    fn framing_sees_the_whole_sphere() {
        let d = framing_distance(100.0, FOV_Y, 1.0);
        // The sphere's tangent from the camera makes exactly half the fov.
        assert!(((100.0 / d).asin() - FOV_Y * 0.5).abs() < 1e-4);
        // A narrow window needs more distance than a wide one.
        assert!(framing_distance(100.0, FOV_Y, 0.5) > framing_distance(100.0, FOV_Y, 2.0));
    }

    #[test]
    fn framing_pose_looks_at_the_terrain_from_above() {
        let bounds = TerrainBounds {
            half_width: 256.0,
            half_depth: 256.0,
            min_height: 0.0,
            max_height: 150.0,
            ready: true,
        };
        let (position, target) = framing_pose(&bounds, 1.0, 16.0 / 9.0);
        assert!(position.y > target.y);
        assert!(
            position.z > 0.0 && position.x < 0.0,
            "south, looking north-east"
        );
        let distance = position.distance(target);
        assert!(distance > 256.0);
        // Every corner is in view, and the camera is not needlessly far.
        let corners = [
            Vec3::new(-256.0, 0.0, -256.0),
            Vec3::new(256.0, 150.0, 256.0),
        ];
        assert!(points_in_view(
            position,
            target,
            &corners,
            FOV_Y,
            16.0 / 9.0
        ));
        let bounding = framing_distance(Vec3::new(256.0, 75.0, 256.0).length(), FOV_Y, 16.0 / 9.0);
        assert!(distance < bounding);
    }

    #[test]
    fn points_behind_or_beside_the_camera_are_not_in_view() {
        let (position, target) = (Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO);
        assert!(points_in_view(position, target, &[Vec3::ZERO], FOV_Y, 1.0));
        assert!(!points_in_view(
            position,
            target,
            &[Vec3::new(0.0, 0.0, 20.0)],
            FOV_Y,
            1.0
        ));
        assert!(!points_in_view(
            position,
            target,
            &[Vec3::new(50.0, 0.0, 0.0)],
            FOV_Y,
            1.0
        ));
    }
}
