//! Texture panel: the splat tiles, each with its height band
//! (low / optimal / high), slope rule, image and scale, drawn over the
//! shown map's height histogram; "auto-assign bands" spreads the bands
//! over the map's range.

use super::super::splat::{Tile, TileSet};
use super::super::state::Generated;
use super::{Document, UiContext};
use crate::terrain::params::Span;
use bevy_egui::egui;

#[derive(Default)]
pub struct TexturePanel;

/// A recognisable chart colour per tile name (any other name gets grey).
fn chart_colour(name: &str) -> egui::Color32 {
    match name {
        "sand" => egui::Color32::from_rgb(214, 190, 130),
        "grass" => egui::Color32::from_rgb(96, 150, 60),
        "rock" => egui::Color32::from_rgb(140, 132, 124),
        "snow" => egui::Color32::from_rgb(235, 240, 250),
        _ => egui::Color32::from_rgb(170, 150, 200),
    }
}

impl TexturePanel {
    pub fn ui(&mut self, ui: &mut egui::Ui, doc: &mut Document, info: &UiContext) {
        band_chart(ui, &doc.tiles, info.generated);
        ui.horizontal(|ui| {
            let range = final_range(info.generated);
            if ui
                .add_enabled(range.is_some(), egui::Button::new("Auto-assign bands"))
                .on_hover_text("Spread the bands evenly over the final map's heights")
                .clicked()
                && let Some((min, max)) = range
            {
                doc.tiles.auto_assign(min, max);
            }
            if ui.button("＋ Tile").clicked() {
                doc.tiles.tiles.push(new_tile(&doc.tiles));
            }
        });
        let mut remove = None;
        for (index, tile) in doc.tiles.tiles.iter_mut().enumerate() {
            let id = ui.id().with(("tile", index));
            egui::CollapsingHeader::new(format!("{index}. {}", tile.name))
                .id_salt(id)
                .default_open(false)
                .show(ui, |ui| {
                    if tile_editor(ui, tile) {
                        remove = Some(index);
                    }
                });
        }
        if let Some(index) = remove {
            doc.tiles.tiles.remove(index);
        }
        for warning in &info.generated.warnings {
            ui.colored_label(super::ERROR_RED, warning);
        }
    }
}

/// Heights of the final map (bands are absolute heights).
fn final_range(generated: &Generated) -> Option<(f32, f32)> {
    let output = generated.output.as_ref()?;
    let stats = output.map.stats();
    (stats.max > stats.min).then_some((stats.min, stats.max))
}

fn new_tile(tiles: &TileSet) -> Tile {
    let mut tile = tiles.tiles.last().cloned().unwrap_or_else(|| Tile {
        name: "tile".into(),
        image: String::new(),
        low: 0.0,
        optimal: 50.0,
        high: 100.0,
        slope: None,
        scale: 16.0,
    });
    tile.name = format!("tile {}", tiles.tiles.len() + 1);
    tile
}

/// Edits one tile; returns true when the user asked to remove it.
fn tile_editor(ui: &mut egui::Ui, tile: &mut Tile) -> bool {
    let row = |ui: &mut egui::Ui, label: &str, help: &str| {
        ui.add_sized(
            [70.0, ui.spacing().interact_size.y],
            egui::Label::new(label),
        )
        .on_hover_text(help);
    };
    ui.horizontal(|ui| {
        row(ui, "name", "Shown in the list and the sidecar");
        ui.text_edit_singleline(&mut tile.name);
    });
    ui.horizontal(|ui| {
        row(
            ui,
            "image",
            "Tile image file (PNG/JPEG), relative to the recipe's folder, or builtin:NAME",
        );
        ui.add(egui::TextEdit::singleline(&mut tile.image).desired_width(180.0));
    });
    ui.horizontal(|ui| {
        row(
            ui,
            "band",
            "Weight rises from low to 1 at optimal and falls to 0 at high",
        );
        ui.add(
            egui::DragValue::new(&mut tile.low)
                .speed(0.5)
                .prefix("low "),
        );
        ui.add(
            egui::DragValue::new(&mut tile.optimal)
                .speed(0.5)
                .prefix("opt "),
        );
        ui.add(
            egui::DragValue::new(&mut tile.high)
                .speed(0.5)
                .prefix("high "),
        );
    });
    if !(tile.low <= tile.optimal && tile.optimal <= tile.high) {
        ui.colored_label(super::ERROR_RED, "need low ≤ optimal ≤ high");
    }
    ui.horizontal(|ui| {
        row(
            ui,
            "slope",
            "Only on slopes within this range of degrees (off = any slope)",
        );
        let mut on = tile.slope.is_some();
        if ui.checkbox(&mut on, "").changed() {
            tile.slope = on.then_some(Span::new(0.0, 30.0));
        }
        match &mut tile.slope {
            Some(span) => {
                ui.add(
                    egui::DragValue::new(&mut span.min)
                        .range(0.0..=90.0)
                        .suffix("°"),
                );
                ui.label("to");
                ui.add(
                    egui::DragValue::new(&mut span.max)
                        .range(0.0..=90.0)
                        .suffix("°"),
                );
            }
            None => {
                ui.weak("any");
            }
        }
    });
    ui.horizontal(|ui| {
        row(
            ui,
            "scale",
            "World units one repeat of the tile image covers",
        );
        ui.add(
            egui::DragValue::new(&mut tile.scale)
                .range(0.01..=10_000.0)
                .speed(0.1),
        );
    });
    ui.button("Remove tile").clicked()
}

/// The shown map's height histogram with each tile's band as a tent.
fn band_chart(ui: &mut egui::Ui, tiles: &TileSet, generated: &Generated) {
    let size = egui::vec2(ui.available_width().min(340.0), 90.0);
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, egui::Color32::from_gray(24));
    let (min, max) = (generated.shown_min, generated.shown_max);
    if generated.histogram.is_empty() || max <= min {
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "no map yet",
            egui::FontId::proportional(12.0),
            egui::Color32::GRAY,
        );
        return;
    }
    let x_of = |h: f32| rect.left() + (h - min) / (max - min) * rect.width();
    let peak = generated
        .histogram
        .iter()
        .copied()
        .max()
        .unwrap_or(1)
        .max(1) as f32;
    let bar_w = rect.width() / generated.histogram.len() as f32;
    for (i, &count) in generated.histogram.iter().enumerate() {
        let h = (count as f32 / peak).sqrt() * (rect.height() - 4.0);
        let x = rect.left() + i as f32 * bar_w;
        painter.rect_filled(
            egui::Rect::from_min_max(
                egui::pos2(x, rect.bottom() - h),
                egui::pos2(x + bar_w, rect.bottom()),
            ),
            0.0,
            egui::Color32::from_gray(90),
        );
    }
    for tile in &tiles.tiles {
        let colour = chart_colour(&tile.name);
        let points = [
            egui::pos2(x_of(tile.low), rect.bottom()),
            egui::pos2(x_of(tile.optimal), rect.top() + 4.0),
            egui::pos2(x_of(tile.high), rect.bottom()),
        ];
        painter.line(points.to_vec(), egui::Stroke::new(2.0, colour));
    }
    response.on_hover_text(format!(
        "Heights {min:.1} to {max:.1} of the shown map (bars, square-root scale) and each tile's band"
    ));
}
