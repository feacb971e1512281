//! View panel: exaggeration, wireframe, water, sun, the stage-by-stage
//! demo (including diamond-square level stepping) and a 2D preview.

use super::super::state::{Generated, PreviewImage, PreviewKind};
use super::{Document, UiContext};
use crate::terrain::Stage;
use bevy_egui::egui;

#[derive(Default)]
pub struct ViewPanel {
    /// The preview texture and what it shows (generation serial, kind).
    preview: Option<(u64, PreviewKind, egui::TextureHandle)>,
}

impl ViewPanel {
    pub fn ui(&mut self, ui: &mut egui::Ui, doc: &mut Document, info: &UiContext) {
        let view = &mut doc.view;
        ui.add(egui::Slider::new(&mut view.height_scale, 0.1..=5.0).text("height ×"))
            .on_hover_text("Vertical exaggeration (display only; exports keep true heights)");
        ui.horizontal(|ui| {
            ui.checkbox(&mut view.wireframe, "wireframe")
                .on_hover_text("Needs a GPU with line polygon mode");
            ui.checkbox(&mut view.shadows, "shadows");
            ui.checkbox(&mut view.water_enabled, "water");
        });
        if view.water_enabled {
            let (lo, hi) = water_range(info.generated);
            ui.add(egui::Slider::new(&mut view.water_level, lo..=hi).text("water level"));
        }
        ui.add(egui::Slider::new(&mut view.sun_azimuth, 0.0..=360.0).text("sun azimuth °"))
            .on_hover_text("0 = north, 90 = east");
        ui.add(egui::Slider::new(&mut view.sun_elevation, 2.0..=90.0).text("sun elevation °"));
        ui.separator();
        stage_picker(ui, doc);
        ui.separator();
        self.preview(ui, doc, info.generated);
    }

    fn preview(&mut self, ui: &mut egui::Ui, doc: &mut Document, generated: &Generated) {
        ui.horizontal(|ui| {
            ui.label("preview");
            ui.radio_value(&mut doc.view.preview, PreviewKind::Texture, "texture");
            ui.radio_value(&mut doc.view.preview, PreviewKind::Heightmap, "heightmap");
        });
        let kind = doc.view.preview;
        let image: &PreviewImage = match kind {
            PreviewKind::Texture => &generated.texture_preview,
            PreviewKind::Heightmap => &generated.heightmap_preview,
        };
        if image.rgba.len() != image.width * image.height * 4 || image.width == 0 {
            ui.weak("(no map yet)");
            return;
        }
        let stale = self
            .preview
            .as_ref()
            .is_none_or(|(serial, shown, _)| *serial != generated.serial || *shown != kind);
        if stale {
            let colour =
                egui::ColorImage::from_rgba_unmultiplied([image.width, image.height], &image.rgba);
            let handle =
                ui.ctx()
                    .load_texture("orogen-preview", colour, egui::TextureOptions::LINEAR);
            self.preview = Some((generated.serial, kind, handle));
        }
        if let Some((_, _, handle)) = &self.preview {
            ui.add(egui::Image::new(egui::load::SizedTexture::new(
                handle.id(),
                handle.size_vec2(),
            )))
            .on_hover_text("Top-down, north up");
        }
    }
}

/// Water can sit anywhere from a little below to the top of the shown map.
fn water_range(generated: &Generated) -> (f32, f32) {
    if generated.shown_max > generated.shown_min {
        let pad = (generated.shown_max - generated.shown_min) * 0.05;
        (generated.shown_min - pad, generated.shown_max)
    } else {
        (0.0, 100.0)
    }
}

/// "Show the map after stage N", plus level stepping for diamond-square.
fn stage_picker(ui: &mut egui::Ui, doc: &mut Document) {
    let stages = &mut doc.recipe.stages;
    let label_of = |i: Option<usize>| match i.and_then(|i| stages.get(i).map(|s| (i, s))) {
        Some((i, entry)) => format!("after {i}. {}", entry.stage.label()),
        None => "final map".to_string(),
    };
    let selected = label_of(doc.stage);
    ui.horizontal(|ui| {
        ui.label("show")
            .on_hover_text("Stage-by-stage demo: the map as it was after one stage");
        egui::ComboBox::from_id_salt("shown-stage")
            .selected_text(selected)
            .width(200.0)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut doc.stage, None, "final map");
                for i in 0..stages.len() {
                    ui.selectable_value(&mut doc.stage, Some(i), label_of(Some(i)));
                }
            });
    });
    ui.horizontal(|ui| {
        let count = stages.len();
        if ui.small_button("◀ previous stage").clicked() {
            doc.stage = match doc.stage {
                None => count.checked_sub(2),
                Some(0) => Some(0),
                Some(i) => Some(i - 1),
            };
        }
        if ui.small_button("next stage ▶").clicked() {
            doc.stage = match doc.stage {
                Some(i) if i + 2 < count => Some(i + 1),
                _ => None,
            };
        }
    });
    // Diamond-square's "stop after level" is a recipe parameter: stepping
    // it re-runs that stage and everything after it.
    let focus = doc.stage.unwrap_or(stages.len().saturating_sub(1));
    let ds = stages
        .iter_mut()
        .enumerate()
        .filter(|(i, _)| *i <= focus)
        .rev()
        .find_map(|(i, e)| match &mut e.stage {
            Stage::DiamondSquare(ds) => Some((i, ds)),
            _ => None,
        });
    if let Some((index, ds)) = ds {
        ui.horizontal(|ui| {
            ui.label(format!("{index}. diamond-square level"))
                .on_hover_text("Stop after this many levels to watch the lattice refine");
            let mut limited = ds.stop_after_level.is_some();
            if ui.checkbox(&mut limited, "limit").changed() {
                ds.stop_after_level = limited.then_some(1);
            }
            if let Some(level) = &mut ds.stop_after_level {
                if ui.small_button("−").clicked() {
                    *level = level.saturating_sub(1);
                }
                ui.add(egui::DragValue::new(level).range(0..=16));
                if ui.small_button("+").clicked() {
                    *level = (*level + 1).min(16);
                }
            }
        });
    }
}
