//! The brush on the 3D terrain: while a map is chosen for painting, the
//! cursor's ray is cast onto the shown terrain ([`crate::viewer::picking`])
//! each frame, the brush's ring is laid on the surface there, and the
//! left button paints ([`super::brush::PaintBrush::paint_on_terrain`]).
//! The right button still looks around, so painting and flying mix.

use super::Panels;
use super::brush::TerrainTouch;
use crate::viewer::camera::{FlyCamera, TerrainBounds};
use crate::viewer::handoff::Generated;
use crate::viewer::picking::SceneTerrain;
use crate::viewer::settings::{UiFocus, ViewSettings};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::egui;

/// Points on the ring laid on the terrain.
const RING_POINTS: usize = 72;

/// What the pointer does over the 3D view this frame, for the brush.
#[derive(Resource, Clone, Debug, Default)]
pub struct TerrainPointer {
    pub touch: TerrainTouch,
    /// The brush's ring on the terrain, in window points, split where it
    /// leaves the camera's view.
    pub ring: Vec<Vec<egui::Pos2>>,
}

/// Casts the cursor's ray onto the shown terrain while a map is painted
/// (nothing is cast otherwise) and lays the ring there. Runs before the
/// panels, which hand the touch to the brush and draw the ring.
pub fn point_at_terrain(
    panels: Res<Panels>,
    (generated, bounds, view): (
        Res<Generated>,
        Option<Res<TerrainBounds>>,
        Res<ViewSettings>,
    ),
    (focus, buttons): (Res<UiFocus>, Res<ButtonInput<MouseButton>>),
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform), With<FlyCamera>>,
    mut pointer: ResMut<TerrainPointer>,
) {
    let over_view = !focus.pointer;
    let mut touch = TerrainTouch {
        at: None,
        pressed_now: false,
        held: buttons.pressed(MouseButton::Left),
    };
    let mut ring = Vec::new();
    let brush = &panels.brush;
    let terrain = match (&generated.shown_map, &generated.recipe, &bounds) {
        (Some(map), Some(recipe), Some(bounds)) if brush.target.is_some() && bounds.ready => {
            Some(SceneTerrain {
                map,
                cell: recipe.cell_size(),
                height_scale: view.height_scale.max(0.01),
                low: bounds.min_height,
                high: bounds.max_height,
            })
        }
        _ => None,
    };
    if let (Some(terrain), Some(cursor), Ok((camera, transform))) =
        (terrain, window.cursor_position(), camera.single())
        && over_view
        // Beside the 3D view (over the panels) a ray would still reach
        // the terrain, through the part of the view the panels cover.
        && camera
            .logical_viewport_rect()
            .is_some_and(|view| view.contains(cursor))
        && let Ok(ray) = camera.viewport_to_world(transform, cursor)
        && let Some(hit) = terrain.ray_hit(ray.origin, *ray.direction)
    {
        let at = terrain.to_world(hit);
        touch.at = Some(at);
        // A press counts only on the terrain, inside the 3D view.
        touch.pressed_now = buttons.just_pressed(MouseButton::Left);
        if let Some(radius) = brush.world_radius() {
            let mut segment = Vec::new();
            for p in terrain.ring(at, radius, RING_POINTS) {
                match camera.world_to_viewport(transform, p) {
                    Ok(v) => segment.push(egui::pos2(v.x, v.y)),
                    Err(_) => ring.extend(take_segment(&mut segment)),
                }
            }
            ring.extend(take_segment(&mut segment));
        }
    }
    pointer.touch = touch;
    pointer.ring = ring;
}

/// The segment so far, if it can be drawn (two points or more).
fn take_segment(segment: &mut Vec<egui::Pos2>) -> Option<Vec<egui::Pos2>> {
    let taken = std::mem::take(segment);
    (taken.len() >= 2).then_some(taken)
}

/// Draws the ring over the 3D view (clipped to `view`, the part of the
/// window the panels leave free).
pub fn draw_ring(
    ctx: &egui::Context,
    ring: &[Vec<egui::Pos2>],
    colour: egui::Color32,
    view: egui::Rect,
) {
    if ring.is_empty() {
        return;
    }
    let painter = ctx
        .layer_painter(egui::LayerId::new(
            egui::Order::Background,
            egui::Id::new("orogen-brush-ring"),
        ))
        .with_clip_rect(view);
    for segment in ring {
        // A dark halo under the colour keeps the ring visible on snow and
        // on grass alike.
        painter.add(egui::Shape::line(
            segment.clone(),
            egui::Stroke::new(3.5, egui::Color32::from_black_alpha(140)),
        ));
        painter.add(egui::Shape::line(
            segment.clone(),
            egui::Stroke::new(1.8, colour),
        ));
    }
}
