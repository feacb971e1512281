//! The brush: paints a stage's painted map (its mask, or fluvial
//! erosion's uplift or hardness map) on the 3D terrain
//! ([`super::terrain_brush`]) or on the View panel's map (north up, the
//! whole world). A stroke runs from press to release and is one undo
//! step; while it runs, the map is published every [`PUBLISH_EVERY`]
//! under its new hash, so the stage re-runs as it is painted. Images live
//! in the core's registry by hash, so undo and redo swap hashes and never
//! copy pixels.

use super::Document;
use bevy_egui::egui;
use orogen_core::MapSlot;
use orogen_core::stages::mask::painted::{self, Brush, PAINT_SIDE, PaintedImage, PaintedMask};
use orogen_core::stages::mask::{MaskSource, StageMask};
use std::time::{Duration, Instant};

/// How often a stroke in progress is handed to the pipeline: the preview
/// re-runs from the painted stage about ten times a second.
pub const PUBLISH_EVERY: Duration = Duration::from_millis(100);

/// The map a brush paints: stage `stage`'s map in `slot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaintTarget {
    pub stage: usize,
    pub slot: MapSlot,
}

/// Where a stroke is painted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surface {
    /// The View panel's 2D map.
    Map,
    /// The 3D terrain.
    Terrain,
}

/// What the 3D view's pointer does this frame, as the brush needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TerrainTouch {
    /// The world point under the cursor on the shown terrain (`None`: off
    /// the terrain, or over the panels).
    pub at: Option<[f32; 2]>,
    /// The left button went down this frame over the 3D view.
    pub pressed_now: bool,
    /// The left button is held.
    pub held: bool,
}

/// What the history must hear of a stroke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gesture {
    /// A stroke began: its edits merge into one new undo step.
    Begin,
    /// It ended: the next edit is a step of its own.
    End,
}

/// The brush settings and the stroke being painted.
pub struct PaintBrush {
    /// The map painted (`None`: nothing is painted).
    pub target: Option<PaintTarget>,
    /// World units from the brush's centre to its rim (0: not chosen yet;
    /// a twentieth of the world is picked when painting starts).
    pub radius: f32,
    /// 1: full strength to the rim; 0: soft from the centre.
    pub hardness: f32,
    /// The level the brush paints up to (or erases down to), 0..1.
    pub strength: f32,
    /// Erase (lower) instead of paint (raise).
    pub erase: bool,
    stroke: Option<Stroke>,
    gesture: Option<Gesture>,
    /// The mask drawn over the map, and what it shows (hash or stroke).
    overlay: Option<(OverlayKey, egui::TextureHandle)>,
    /// Why the mask could not be painted (its file missing, say).
    pub error: Option<String>,
    /// The map was drawn this frame (else a stroke in progress ends).
    drawn: bool,
}

impl Default for PaintBrush {
    fn default() -> Self {
        Self {
            target: None,
            radius: 0.0,
            hardness: 0.5,
            strength: 1.0,
            erase: false,
            stroke: None,
            gesture: None,
            overlay: None,
            error: None,
            drawn: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum OverlayKey {
    Hash(String),
    Stroke(u64),
}

struct Stroke {
    target: PaintTarget,
    surface: Surface,
    image: PaintedImage,
    /// The last world point painted (`None`: the pointer left the
    /// terrain; the stroke goes on where it comes back).
    last: Option<[f32; 2]>,
    /// When the stroke was last handed to the pipeline.
    published: Option<Instant>,
    /// Painted since then.
    dirty: bool,
    /// Bumped with every change, for the overlay.
    version: u64,
}

impl PaintBrush {
    /// The stroke's news for the history, once.
    pub fn take_gesture(&mut self) -> Option<Gesture> {
        self.gesture.take()
    }

    /// Whether a stroke is being painted now.
    pub fn painting(&self) -> bool {
        self.stroke.is_some()
    }

    /// Follows the painted stage when the stage list changes: `moved`
    /// gives each old index's new one (`None`: removed).
    pub fn follow_stages(&mut self, moved: impl Fn(usize) -> Option<usize>) {
        self.target = self
            .target
            .and_then(|t| moved(t.stage).map(|stage| PaintTarget { stage, ..t }));
        // A stroke in progress follows too (a stage cannot move while the
        // pointer is held on the map, but the rule is the same).
        if let Some(stroke) = self.stroke.as_mut()
            && let Some(stage) = moved(stroke.target.stage)
        {
            stroke.target.stage = stage;
        }
    }

    /// Forgets the target when its stage no longer has a painted map
    /// there (removed, or its source changed).
    fn check_target(&mut self, doc: &Document) {
        if let Some(target) = self.target
            && painted_mask(doc, target).is_none()
        {
            self.target = None;
        }
    }

    /// The brush's radius in world units, once chosen.
    pub fn world_radius(&self) -> Option<f32> {
        (self.radius > 0.0).then_some(self.radius)
    }

    /// The ring's colour: magenta paints, cyan erases.
    pub fn colour(&self) -> egui::Color32 {
        if self.erase {
            egui::Color32::from_rgb(90, 200, 255)
        } else {
            egui::Color32::from_rgb(255, 90, 210)
        }
    }

    /// The brush's controls, above the map while a mask is painted.
    pub fn controls(&mut self, ui: &mut egui::Ui, doc: &Document) {
        self.check_target(doc);
        let Some(target) = self.target else {
            return;
        };
        let longest = longest_side(doc);
        self.radius = stepped_radius(self.radius, 0, longest);
        let label = doc
            .recipe
            .stages
            .get(target.stage)
            .map(|e| e.stage.label())
            .unwrap_or("?");
        let (what, raise, lower) = match target.slot {
            MapSlot::Mask => (
                "mask",
                "White: the stage acts here",
                "Black: the cells keep their input",
            ),
            MapSlot::Uplift => (
                "uplift map",
                "Raise: the land rises here, up to the stage's uplift rate",
                "Lower: the land stops rising here",
            ),
            MapSlot::Hardness => (
                "hardness map",
                "Raise: harder rock, down to hard_rock × the erodibility",
                "Lower: softer rock, back to the stage's erodibility",
            ),
        };
        ui.horizontal(|ui| {
            ui.strong(format!("painting the {what} of {}. {label}", target.stage));
            if ui.small_button("done").clicked() {
                self.target = None;
            }
        });
        ui.weak("Left-drag on the terrain or on the map below; one stroke is one undo step.");
        ui.horizontal(|ui| {
            ui.radio_value(&mut self.erase, false, "raise")
                .on_hover_text(raise);
            ui.radio_value(&mut self.erase, true, "lower")
                .on_hover_text(lower);
        });
        ui.add(
            egui::Slider::new(&mut self.radius, radius_range(longest))
                .logarithmic(true)
                .text("brush radius"),
        )
        .on_hover_text(
            "In world units, like the recipe's extent; [ and ] resize it while you paint",
        );
        ui.add(egui::Slider::new(&mut self.strength, 0.05..=1.0).text("strength"))
            .on_hover_text(
                "The level the brush raises the map to, or lowers it by: at 0.5 a stroke \
                 paints half weight, and painting over it again adds nothing",
            );
        ui.add(egui::Slider::new(&mut self.hardness, 0.0..=1.0).text("hardness"))
            .on_hover_text("1: full strength to the rim; 0: fading from the centre");
        if let Some(error) = &self.error {
            ui.colored_label(super::ERROR_RED, error);
        }
    }

    /// Paints on the map drawn at `response` (which must sense drags), and
    /// draws the mask and the brush over it.
    pub fn paint_on(&mut self, ui: &egui::Ui, response: &egui::Response, doc: &mut Document) {
        self.drawn = true;
        self.check_target(doc);
        let Some(target) = self.target else {
            self.finish(doc);
            return;
        };
        let extent = [doc.recipe.extent.x, doc.recipe.extent.y];
        let rect = response.rect;
        let pressed = response.is_pointer_button_down_on();
        match response.interact_pointer_pos().filter(|_| pressed) {
            Some(pos) if self.stroke_on() != Some(Surface::Terrain) => self.paint_at(
                target,
                Surface::Map,
                to_world(pos, rect, extent),
                extent,
                doc,
            ),
            _ => self.finish_on(Surface::Map, doc),
        }
        self.draw_overlay(ui, rect, doc, target);
        if let Some(pos) = response.hover_pos() {
            let r = self.radius / extent[0].max(1e-6) * rect.width();
            ui.painter()
                .circle_stroke(pos, r.max(1.0), egui::Stroke::new(1.5, self.colour()));
        }
    }

    /// `[` and `]` shrink and grow the brush while a map is painted (not
    /// while a text field has the keys).
    pub fn resize_keys(&mut self, ctx: &egui::Context, doc: &Document) {
        if self.target.is_none() || ctx.egui_wants_keyboard_input() {
            return;
        }
        let steps = ctx.input(|i| {
            i.num_presses(egui::Key::CloseBracket) as i32
                - i.num_presses(egui::Key::OpenBracket) as i32
        });
        if steps != 0 {
            self.radius = stepped_radius(self.radius, steps, longest_side(doc));
        }
    }

    /// Paints on the 3D terrain: a stroke starts where the left button
    /// goes down on the terrain, follows the pointer while it is held
    /// (pausing off the terrain) and ends when it is released.
    pub fn paint_on_terrain(&mut self, touch: TerrainTouch, doc: &mut Document) {
        self.check_target(doc);
        let extent = [doc.recipe.extent.x, doc.recipe.extent.y];
        let Some(target) = self.target else {
            self.finish_on(Surface::Terrain, doc);
            return;
        };
        match self.stroke_on() {
            Some(Surface::Terrain) if touch.held => match touch.at {
                Some(at) => self.paint_at(target, Surface::Terrain, at, extent, doc),
                None => {
                    if let Some(stroke) = self.stroke.as_mut() {
                        stroke.last = None;
                    }
                }
            },
            Some(Surface::Terrain) => self.finish_on(Surface::Terrain, doc),
            Some(Surface::Map) => {}
            None => {
                if touch.pressed_now
                    && let Some(at) = touch.at
                {
                    self.paint_at(target, Surface::Terrain, at, extent, doc);
                }
            }
        }
    }

    /// Where the stroke in progress is painted.
    fn stroke_on(&self) -> Option<Surface> {
        self.stroke.as_ref().map(|s| s.surface)
    }

    fn paint_at(
        &mut self,
        target: PaintTarget,
        surface: Surface,
        at: [f32; 2],
        extent: [f32; 2],
        doc: &mut Document,
    ) {
        let brush = Brush {
            radius: self.radius,
            hardness: self.hardness,
            strength: self.strength,
            erase: self.erase,
        };
        let stroke = match &mut self.stroke {
            Some(stroke) => stroke,
            None => {
                let Some(mask) = painted_mask(doc, target) else {
                    return;
                };
                let image = match painted::resolve(mask, doc.source.base_dir.as_deref()) {
                    Ok(image) => (*image).clone(),
                    Err(error) => {
                        // A mask that cannot be read is painted afresh; the
                        // message says what was lost.
                        self.error = Some(format!("{error}; painting on a blank mask"));
                        PaintedImage::blank(PAINT_SIDE, PAINT_SIDE)
                    }
                };
                self.gesture = Some(Gesture::Begin);
                self.stroke.insert(Stroke {
                    target,
                    surface,
                    image,
                    last: None,
                    published: None,
                    dirty: false,
                    version: 0,
                })
            }
        };
        if stroke
            .image
            .stroke(stroke.last.unwrap_or(at), at, extent, &brush)
        {
            stroke.dirty = true;
            stroke.version += 1;
        }
        stroke.last = Some(at);
        if stroke.dirty
            && stroke
                .published
                .is_none_or(|t| t.elapsed() >= PUBLISH_EVERY)
        {
            publish(stroke, doc);
        }
    }

    /// After the panels: a stroke on the map that was not drawn this
    /// frame (its panel closed, no map yet) ends.
    pub fn end_frame(&mut self, doc: &mut Document) {
        if !std::mem::take(&mut self.drawn) {
            self.finish_on(Surface::Map, doc);
        }
    }

    /// Ends the stroke in progress if it is painted on `surface`.
    fn finish_on(&mut self, surface: Surface, doc: &mut Document) {
        if self.stroke_on() == Some(surface) {
            self.finish(doc);
        }
    }

    /// Ends a stroke in progress (the button was released): its last
    /// state is published and the history told.
    fn finish(&mut self, doc: &mut Document) {
        let Some(mut stroke) = self.stroke.take() else {
            return;
        };
        if stroke.dirty {
            publish(&mut stroke, doc);
        }
        self.error = None;
        self.gesture = Some(Gesture::End);
    }

    /// The mask tinted over the map: magenta where the stage acts.
    fn draw_overlay(
        &mut self,
        ui: &egui::Ui,
        rect: egui::Rect,
        doc: &Document,
        target: PaintTarget,
    ) {
        let (key, image) = match &self.stroke {
            Some(stroke) => (
                OverlayKey::Stroke(stroke.version),
                Some(std::sync::Arc::new(stroke.image.clone())),
            ),
            None => match painted_mask(doc, target) {
                Some(mask) => (
                    OverlayKey::Hash(mask.hash.clone()),
                    painted::recall(&mask.hash),
                ),
                None => return,
            },
        };
        if self.overlay.as_ref().is_none_or(|(shown, _)| *shown != key) {
            let Some(image) = image else {
                return;
            };
            let colour = overlay_image(&image);
            let handle =
                ui.ctx()
                    .load_texture("orogen-paint-overlay", colour, egui::TextureOptions::LINEAR);
            self.overlay = Some((key, handle));
        }
        if let Some((_, handle)) = &self.overlay {
            let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
            ui.painter()
                .image(handle.id(), rect, uv, egui::Color32::WHITE);
        }
    }
}

/// Hands the stroke's image to the pipeline: kept in memory by hash, the
/// stage's mask names the new hash (the file stays until the next save).
fn publish(stroke: &mut Stroke, doc: &mut Document) {
    let hash = painted::remember(stroke.image.clone());
    if let Some(Some(StageMask {
        source: MaskSource::Painted(mask),
        ..
    })) = doc
        .recipe
        .stages
        .get_mut(stroke.target.stage)
        .and_then(|e| e.map_slot_mut(stroke.target.slot))
    {
        mask.hash = hash;
    }
    stroke.published = Some(Instant::now());
    stroke.dirty = false;
}

/// The painted map at `target`, if there is one.
fn painted_mask(doc: &Document, target: PaintTarget) -> Option<&PaintedMask> {
    match doc.recipe.stages.get(target.stage)?.map(target.slot)? {
        StageMask {
            source: MaskSource::Painted(mask),
            ..
        } => Some(mask),
        _ => None,
    }
}

/// The world's longer side, in world units.
fn longest_side(doc: &Document) -> f32 {
    doc.recipe.extent.x.max(doc.recipe.extent.y).max(1e-3)
}

/// The brush radii offered for a world whose longer side is `longest`.
fn radius_range(longest: f32) -> std::ops::RangeInclusive<f32> {
    longest / 500.0..=longest / 3.0
}

/// `radius` after `steps` presses of `]` (negative: of `[`), a quarter
/// larger or smaller each, within [`radius_range`]; a radius not chosen
/// yet (0 or NaN) starts at a twentieth of the world.
fn stepped_radius(radius: f32, steps: i32, longest: f32) -> f32 {
    let range = radius_range(longest);
    let start = if radius.is_finite() && radius > 0.0 {
        radius
    } else {
        longest / 20.0
    };
    (start * 1.25f32.powi(steps)).clamp(*range.start(), *range.end())
}

/// The world point under `pos` on a map drawn in `rect`: the map's
/// corners are the world's, north up.
pub fn to_world(pos: egui::Pos2, rect: egui::Rect, extent: [f32; 2]) -> [f32; 2] {
    let u = ((pos.x - rect.min.x) / rect.width().max(1e-6)).clamp(0.0, 1.0);
    let v = ((pos.y - rect.min.y) / rect.height().max(1e-6)).clamp(0.0, 1.0);
    [u * extent[0], v * extent[1]]
}

/// The mask as a see-through tint: clear where nothing is painted.
fn overlay_image(image: &PaintedImage) -> egui::ColorImage {
    let pixels = image
        .pixels()
        .iter()
        .map(|&p| {
            let a = (u32::from(p) * 150 / 65535) as u8;
            egui::Color32::from_rgba_unmultiplied(255, 60, 200, a)
        })
        .collect();
    egui::ColorImage::new([image.width() as usize, image.height() as usize], pixels)
}

/// A mask where nothing is painted yet, kept in memory: the source a
/// stage's mask gets when "painted" is chosen.
pub fn blank_mask() -> PaintedMask {
    PaintedMask {
        file: String::new(),
        hash: painted::remember(PaintedImage::blank(PAINT_SIDE, PAINT_SIDE)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::document::RecipeSource;
    use crate::viewer::document::history::History;
    use crate::viewer::sampling::PreviewSampling;
    use crate::viewer::settings::ViewSettings;
    use orogen_core::params::Span;
    use orogen_core::{Recipe, Stage, StageEntry};

    fn document() -> Document {
        let mut recipe = Recipe::default();
        recipe.stages.push(StageEntry {
            mask: Some(StageMask {
                source: MaskSource::Painted(blank_mask()),
                range: Span::new(0.0, 1.0),
                soft: 0.0,
                invert: false,
            }),
            ..StageEntry::new(Stage::default_of("blur").expect("blur exists"))
        });
        Document {
            recipe,
            stage: None,
            view: ViewSettings::default(),
            source: RecipeSource::default(),
            sampling: PreviewSampling::default(),
        }
    }

    const MASK_0: PaintTarget = PaintTarget {
        stage: 0,
        slot: MapSlot::Mask,
    };

    fn mask_of(stage: usize) -> Option<PaintTarget> {
        Some(PaintTarget {
            stage,
            slot: MapSlot::Mask,
        })
    }

    fn hash_of(doc: &Document) -> String {
        painted_mask(doc, MASK_0)
            .map(|m| m.hash.clone())
            .unwrap_or_default()
    }

    #[test]
    fn the_brush_follows_its_stage_when_stages_move_or_go() {
        let mut brush = PaintBrush {
            target: mask_of(2),
            ..PaintBrush::default()
        };
        // Stage 2 moved up: it is now stage 1.
        brush.follow_stages(|i| {
            Some(match i {
                2 => 1,
                1 => 2,
                other => other,
            })
        });
        assert_eq!(brush.target, mask_of(1));
        // Stage 0 removed: everything after it moves up one.
        brush.follow_stages(|i| i.checked_sub(1));
        assert_eq!(brush.target, mask_of(0));
        // Its own stage removed: nothing is painted.
        brush.follow_stages(|i| (i != 0).then_some(i));
        assert_eq!(brush.target, None);
    }

    #[test]
    fn brackets_step_the_radius_by_a_quarter_within_its_range() {
        assert!((stepped_radius(100.0, 1, 1024.0) - 125.0).abs() < 1e-3);
        assert!((stepped_radius(100.0, -1, 1024.0) - 80.0).abs() < 1e-3);
        assert!((stepped_radius(100.0, 2, 1024.0) - 156.25).abs() < 1e-3);
        assert_eq!(
            stepped_radius(300.0, 5, 1024.0),
            1024.0 / 3.0,
            "the largest"
        );
        assert_eq!(
            stepped_radius(3.0, -9, 1024.0),
            1024.0 / 500.0,
            "the smallest"
        );
        assert!((stepped_radius(f32::NAN, 0, 1000.0) - 50.0).abs() < 1e-3);
    }

    #[test]
    fn the_map_corners_are_the_world_corners() {
        let rect = egui::Rect::from_min_size(egui::pos2(10.0, 20.0), egui::vec2(200.0, 100.0));
        assert_eq!(
            to_world(egui::pos2(10.0, 20.0), rect, [400.0, 300.0]),
            [0.0, 0.0]
        );
        assert_eq!(
            to_world(egui::pos2(110.0, 70.0), rect, [400.0, 300.0]),
            [200.0, 150.0]
        );
        assert_eq!(
            to_world(egui::pos2(500.0, 500.0), rect, [400.0, 300.0]),
            [400.0, 300.0]
        );
    }

    #[test]
    fn a_stroke_is_one_undo_step_and_undo_restores_hash_and_pixels() {
        let mut doc = document();
        let blank = hash_of(&doc);
        let mut history = History::default();
        history.record(doc.recipe.clone());
        let mut brush = PaintBrush {
            target: mask_of(0),
            radius: 20.0,
            hardness: 0.5,
            ..PaintBrush::default()
        };
        let extent = [doc.recipe.extent.x, doc.recipe.extent.y];
        let mut hashes = Vec::new();
        // Press, drag across the map in several frames, release.
        for i in 0..6 {
            let at = [extent[0] * (0.2 + 0.1 * i as f32), extent[1] * 0.5];
            brush.paint_at(MASK_0, Surface::Map, at, extent, &mut doc);
            if let Some(gesture) = brush.take_gesture() {
                assert_eq!(gesture, Gesture::Begin);
                history.begin_gesture();
            }
            // Published now and then: force it, as if time passed.
            if let Some(stroke) = &mut brush.stroke {
                stroke.published = None;
            }
            history.record(doc.recipe.clone());
            hashes.push(hash_of(&doc));
        }
        brush.finish(&mut doc);
        assert_eq!(brush.take_gesture(), Some(Gesture::End));
        history.end_gesture();
        history.record(doc.recipe.clone());
        history.settle_gesture();
        let painted = hash_of(&doc);
        assert_ne!(painted, blank);
        assert!(hashes.windows(2).all(|w| w[0] != w[1]), "re-published");
        let image = painted::recall(&painted).expect("in memory");
        assert!(image.sample(0.45, 0.5) > 0.99, "the line is painted");
        assert_eq!(image.sample(0.5, 0.05), 0.0, "far from it nothing is");
        // One step back is the blank mask, bit for bit.
        assert_eq!(history.depth(), (1, 0));
        let undone = history.undo().expect("one step");
        doc.recipe = undone;
        assert_eq!(hash_of(&doc), blank);
        let restored = painted::recall(&blank).expect("still in memory");
        assert!(restored.pixels().iter().all(|&p| p == 0));
        // Redo brings the stroke back, the same pixels.
        doc.recipe = history.redo().expect("redo");
        assert_eq!(hash_of(&doc), painted);
        assert_eq!(
            painted::recall(&painted).map(|i| i.pixels().to_vec()),
            Some(image.pixels().to_vec())
        );
        // The next edit, however soon, is a step of its own.
        doc.recipe.seed += 1;
        history.record(doc.recipe.clone());
        assert_eq!(history.depth(), (2, 0));
    }

    /// A recipe whose stage 0 is fluvial erosion with a blank painted
    /// uplift map.
    fn uplift_document() -> Document {
        let mut doc = document();
        let fluvial = orogen_core::stages::FluvialErosion {
            uplift_map: Some(StageMask {
                source: MaskSource::Painted(blank_mask()),
                range: Span::new(0.0, 1.0),
                soft: 0.0,
                invert: false,
            }),
            ..Default::default()
        };
        doc.recipe.stages = vec![StageEntry::new(Stage::FluvialErosion(fluvial))];
        doc
    }

    const UPLIFT_0: PaintTarget = PaintTarget {
        stage: 0,
        slot: MapSlot::Uplift,
    };

    fn uplift_hash(doc: &Document) -> String {
        painted_mask(doc, UPLIFT_0)
            .map(|m| m.hash.clone())
            .expect("a painted uplift map")
    }

    #[test]
    fn a_stroke_on_the_terrain_paints_the_uplift_map_from_press_to_release() {
        let mut doc = uplift_document();
        let blank = uplift_hash(&doc);
        let extent = [doc.recipe.extent.x, doc.recipe.extent.y];
        let mut brush = PaintBrush {
            target: Some(UPLIFT_0),
            radius: extent[0] / 40.0,
            hardness: 1.0,
            ..PaintBrush::default()
        };
        let point = |u: f32, v: f32| Some([u * extent[0], v * extent[1]]);
        // Held without a press on the terrain (a drag that began over the
        // panels): nothing is painted.
        brush.paint_on_terrain(
            TerrainTouch {
                at: point(0.5, 0.5),
                pressed_now: false,
                held: true,
            },
            &mut doc,
        );
        assert!(!brush.painting());
        assert_eq!(brush.take_gesture(), None);
        // Press at the west, drag east, leave the terrain, come back at
        // the south, release.
        let frames = [
            (point(0.2, 0.3), true),
            (point(0.4, 0.3), false),
            (None, false),
            (point(0.4, 0.8), false),
        ];
        for (i, (at, pressed_now)) in frames.into_iter().enumerate() {
            brush.paint_on_terrain(
                TerrainTouch {
                    at,
                    pressed_now,
                    held: true,
                },
                &mut doc,
            );
            assert!(brush.painting());
            let gesture = brush.take_gesture();
            assert_eq!(gesture, (i == 0).then_some(Gesture::Begin), "frame {i}");
            // A map drawn in the View panel meanwhile does not end it.
            brush.drawn = true;
            brush.end_frame(&mut doc);
            assert!(brush.painting());
        }
        brush.paint_on_terrain(TerrainTouch::default(), &mut doc);
        assert!(!brush.painting());
        assert_eq!(brush.take_gesture(), Some(Gesture::End));
        let painted = uplift_hash(&doc);
        assert_ne!(painted, blank);
        assert_eq!(hash_of_mask(&doc), None, "the stage's mask is untouched");
        let image = painted::recall(&painted).expect("in memory");
        assert!(image.sample(0.3, 0.3) > 0.99, "the drag is painted");
        assert!(image.sample(0.4, 0.8) > 0.99, "where it came back");
        // Off the terrain the stroke paused: no line from (0.4, 0.3) to
        // (0.4, 0.8) was drawn.
        assert_eq!(image.sample(0.4, 0.55), 0.0);
    }

    fn hash_of_mask(doc: &Document) -> Option<String> {
        painted_mask(doc, MASK_0).map(|m| m.hash.clone())
    }

    #[test]
    fn saving_writes_the_uplift_map_under_its_own_name() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut doc = uplift_document();
        let extent = [doc.recipe.extent.x, doc.recipe.extent.y];
        let mut brush = PaintBrush {
            target: Some(UPLIFT_0),
            radius: extent[0] / 10.0,
            ..PaintBrush::default()
        };
        brush.paint_at(UPLIFT_0, Surface::Terrain, [100.0, 100.0], extent, &mut doc);
        brush.finish(&mut doc);
        let hash = uplift_hash(&doc);
        let path = dir.path().join("range.ron");
        crate::viewer::panels::presets::save_as(&mut doc, &path).expect("saves");
        let file = dir.path().join("range.uplift-0.png");
        painted::read_checked(&file, &hash).expect("written, and hashes right");
        // Settling the history keeps the uplift image in memory.
        crate::viewer::document::history::forget_unreferenced_masks(std::iter::once(&doc.recipe));
        assert!(painted::recall(&hash).is_some(), "still named, still kept");
    }

    #[test]
    fn saving_writes_the_mask_beside_the_recipe_and_loading_reads_it_back() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut doc = document();
        let mut brush = PaintBrush {
            target: mask_of(0),
            radius: 40.0,
            ..PaintBrush::default()
        };
        let extent = [doc.recipe.extent.x, doc.recipe.extent.y];
        brush.paint_at(MASK_0, Surface::Map, [100.0, 300.0], extent, &mut doc);
        brush.paint_at(MASK_0, Surface::Map, [400.0, 200.0], extent, &mut doc);
        brush.finish(&mut doc);
        let hash = hash_of(&doc);
        let pixels = painted::recall(&hash).expect("in memory").pixels().to_vec();
        let path = dir.path().join("valley.ron");
        crate::viewer::panels::presets::save_as(&mut doc, &path).expect("saves");
        let file = dir.path().join("valley.mask-0.png");
        let on_disk = painted::read_checked(&file, &hash).expect("written, and hashes right");
        assert_eq!(on_disk.pixels(), &pixels[..]);
        assert_eq!(doc.source.saved.as_ref(), Some(&doc.recipe));
        let (loaded, base) =
            orogen_core::bake::load_recipe(path.to_str().expect("utf-8")).expect("loads");
        assert_eq!(loaded, doc.recipe, "the same recipe: the same hash");
        assert_eq!(base.as_deref(), Some(dir.path()));
        let Some(StageMask {
            source: MaskSource::Painted(mask),
            ..
        }) = &loaded.stages[0].mask
        else {
            panic!("the loaded mask is painted");
        };
        assert_eq!(
            (mask.file.as_str(), mask.hash.as_str()),
            ("valley.mask-0.png", hash.as_str())
        );
    }
}
