//! The mask brush: paints a stage's painted mask on the View panel's map
//! (north up, the whole world). A stroke runs from press to release and
//! is one undo step; while it runs, the mask is published every
//! [`PUBLISH_EVERY`] under its new hash, so the stage re-runs as it is
//! painted. Images live in the core's registry by hash, so undo and redo
//! swap hashes and never copy pixels.

use super::Document;
use bevy_egui::egui;
use orogen_core::stages::mask::painted::{self, Brush, PAINT_SIDE, PaintedImage, PaintedMask};
use orogen_core::stages::mask::{MaskSource, StageMask};
use std::time::{Duration, Instant};

/// How often a stroke in progress is handed to the pipeline.
pub const PUBLISH_EVERY: Duration = Duration::from_millis(150);

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
    /// The stage whose mask is painted (`None`: the map is not painted on).
    pub target: Option<usize>,
    /// World units from the brush's centre to its rim (0: not chosen yet;
    /// a twentieth of the world is picked when painting starts).
    pub radius: f32,
    /// 1: full strength to the rim; 0: soft from the centre.
    pub hardness: f32,
    /// Erase instead of paint.
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
    stage: usize,
    image: PaintedImage,
    /// The last world point painted.
    last: [f32; 2],
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
        self.target = self.target.and_then(&moved);
        // A stroke in progress follows too (a stage cannot move while the
        // pointer is held on the map, but the rule is the same).
        if let Some(stroke) = self.stroke.as_mut()
            && let Some(stage) = moved(stroke.stage)
        {
            stroke.stage = stage;
        }
    }

    /// Forgets the target when its stage no longer has a painted mask
    /// (removed, or its source changed).
    fn check_target(&mut self, doc: &Document) {
        if let Some(index) = self.target
            && painted_mask(doc, index).is_none()
        {
            self.target = None;
        }
    }

    /// The brush's controls, above the map while a mask is painted.
    pub fn controls(&mut self, ui: &mut egui::Ui, doc: &Document) {
        self.check_target(doc);
        let Some(index) = self.target else {
            return;
        };
        let longest = doc.recipe.extent.x.max(doc.recipe.extent.y).max(1e-3);
        if self.radius.is_nan() || self.radius <= 0.0 {
            self.radius = longest / 20.0;
        }
        let label = doc
            .recipe
            .stages
            .get(index)
            .map(|e| e.stage.label())
            .unwrap_or("?");
        ui.horizontal(|ui| {
            ui.strong(format!("painting the mask of {index}. {label}"));
            if ui.small_button("done").clicked() {
                self.target = None;
            }
        });
        ui.horizontal(|ui| {
            ui.radio_value(&mut self.erase, false, "paint")
                .on_hover_text("White: the stage acts here");
            ui.radio_value(&mut self.erase, true, "erase")
                .on_hover_text("Black: the cells keep their input");
        });
        ui.add(
            egui::Slider::new(&mut self.radius, longest / 500.0..=longest / 3.0)
                .logarithmic(true)
                .text("brush radius"),
        )
        .on_hover_text("In world units, like the recipe's extent");
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
        let Some(index) = self.target else {
            self.finish(doc);
            return;
        };
        let extent = [doc.recipe.extent.x, doc.recipe.extent.y];
        let rect = response.rect;
        let pressed = response.is_pointer_button_down_on();
        match response.interact_pointer_pos().filter(|_| pressed) {
            Some(pos) => self.paint_at(index, to_world(pos, rect, extent), extent, doc),
            None => self.finish(doc),
        }
        self.draw_overlay(ui, rect, doc, index);
        if let Some(pos) = response.hover_pos() {
            let r = self.radius / extent[0].max(1e-6) * rect.width();
            let colour = if self.erase {
                egui::Color32::from_rgb(90, 200, 255)
            } else {
                egui::Color32::from_rgb(255, 90, 210)
            };
            ui.painter()
                .circle_stroke(pos, r.max(1.0), egui::Stroke::new(1.5, colour));
        }
    }

    fn paint_at(&mut self, index: usize, at: [f32; 2], extent: [f32; 2], doc: &mut Document) {
        let brush = Brush {
            radius: self.radius,
            hardness: self.hardness,
            erase: self.erase,
        };
        let stroke = match &mut self.stroke {
            Some(stroke) => stroke,
            None => {
                let Some(mask) = painted_mask(doc, index) else {
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
                    stage: index,
                    image,
                    last: at,
                    published: None,
                    dirty: false,
                    version: 0,
                })
            }
        };
        if stroke.image.stroke(stroke.last, at, extent, &brush) {
            stroke.dirty = true;
            stroke.version += 1;
        }
        stroke.last = at;
        if stroke.dirty
            && stroke
                .published
                .is_none_or(|t| t.elapsed() >= PUBLISH_EVERY)
        {
            publish(stroke, doc);
        }
    }

    /// After the panels: a stroke whose map was not drawn this frame (its
    /// panel closed, no map yet) ends.
    pub fn end_frame(&mut self, doc: &mut Document) {
        if !std::mem::take(&mut self.drawn) {
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
    fn draw_overlay(&mut self, ui: &egui::Ui, rect: egui::Rect, doc: &Document, index: usize) {
        let (key, image) = match &self.stroke {
            Some(stroke) => (
                OverlayKey::Stroke(stroke.version),
                Some(std::sync::Arc::new(stroke.image.clone())),
            ),
            None => match painted_mask(doc, index) {
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
    if let Some(StageMask {
        source: MaskSource::Painted(mask),
        ..
    }) = doc
        .recipe
        .stages
        .get_mut(stroke.stage)
        .and_then(|e| e.mask.as_mut())
    {
        mask.hash = hash;
    }
    stroke.published = Some(Instant::now());
    stroke.dirty = false;
}

/// Stage `index`'s painted mask, if it has one.
fn painted_mask(doc: &Document, index: usize) -> Option<&PaintedMask> {
    match doc.recipe.stages.get(index)?.mask.as_ref()? {
        StageMask {
            source: MaskSource::Painted(mask),
            ..
        } => Some(mask),
        _ => None,
    }
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

    fn hash_of(doc: &Document) -> String {
        painted_mask(doc, 0)
            .map(|m| m.hash.clone())
            .unwrap_or_default()
    }

    #[test]
    fn the_brush_follows_its_stage_when_stages_move_or_go() {
        let mut brush = PaintBrush {
            target: Some(2),
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
        assert_eq!(brush.target, Some(1));
        // Stage 0 removed: everything after it moves up one.
        brush.follow_stages(|i| i.checked_sub(1));
        assert_eq!(brush.target, Some(0));
        // Its own stage removed: nothing is painted.
        brush.follow_stages(|i| (i != 0).then_some(i));
        assert_eq!(brush.target, None);
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
            target: Some(0),
            radius: 20.0,
            hardness: 0.5,
            ..PaintBrush::default()
        };
        let extent = [doc.recipe.extent.x, doc.recipe.extent.y];
        let mut hashes = Vec::new();
        // Press, drag across the map in several frames, release.
        for i in 0..6 {
            let at = [extent[0] * (0.2 + 0.1 * i as f32), extent[1] * 0.5];
            brush.paint_at(0, at, extent, &mut doc);
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

    #[test]
    fn saving_writes_the_mask_beside_the_recipe_and_loading_reads_it_back() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut doc = document();
        let mut brush = PaintBrush {
            target: Some(0),
            radius: 40.0,
            ..PaintBrush::default()
        };
        let extent = [doc.recipe.extent.x, doc.recipe.extent.y];
        brush.paint_at(0, [100.0, 300.0], extent, &mut doc);
        brush.paint_at(0, [400.0, 200.0], extent, &mut doc);
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
            orogen_core::flow::load_recipe(path.to_str().expect("utf-8")).expect("loads");
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
