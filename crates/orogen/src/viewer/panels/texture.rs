//! Texture panel: the splat tiles (thumbnail, image, band, slope rule,
//! scale, each drawn through the parameter visitor; the map rule) and their height
//! bands charted over the final map's height histogram.
//!
//! With "auto bands" on, the bands follow the map's range and the panel
//! shows the values in use; editing one of them switches auto bands off
//! and keeps the edited values.

use super::map_rule_ui::map_rule_ui;
use super::params_ui::draw_params;
use super::{ERROR_RED, UiContext};
use super::{Panel, PanelContext};
use bevy_egui::egui;
use orogen_core::params::clamp_all;
use orogen_core::splat::{Tile, TileSet, load_tile_image};
use std::collections::HashMap;
use std::path::PathBuf;

/// Most tiles a set may have (the core's validation limit).
const MAX_TILE_LAYERS: usize = 16;
const THUMBNAIL_SIDE: u32 = 48;

#[derive(Default)]
pub struct TexturePanel {
    /// Thumbnails by (image spec, recipe folder); `None` = unreadable.
    thumbnails: HashMap<(String, Option<PathBuf>), Option<egui::TextureHandle>>,
}

impl TexturePanel {
    /// A small picture of the tile image (decoded once per path).
    fn thumbnail(&mut self, ui: &mut egui::Ui, spec: &str, base_dir: Option<PathBuf>) {
        let key = (spec.to_string(), base_dir);
        let handle = self.thumbnails.entry(key.clone()).or_insert_with(|| {
            let image = load_tile_image(&key.0, key.1.as_deref()).ok()?;
            let small = image::imageops::thumbnail(&image, THUMBNAIL_SIDE, THUMBNAIL_SIDE);
            let rgba: Vec<u8> = small
                .pixels()
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect();
            let colour = egui::ColorImage::from_rgba_unmultiplied(
                [small.width() as usize, small.height() as usize],
                &rgba,
            );
            Some(ui.ctx().load_texture(
                format!("tile:{}", key.0),
                colour,
                egui::TextureOptions::LINEAR,
            ))
        });
        match handle {
            Some(texture) => {
                ui.add(egui::Image::new(egui::load::SizedTexture::new(
                    texture.id(),
                    [18.0, 18.0],
                )));
            }
            None => {
                ui.colored_label(ERROR_RED, "!")
                    .on_hover_text("image not readable");
            }
        }
    }
}

impl Panel for TexturePanel {
    fn title(&self) -> &'static str {
        "Texture"
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        let doc = &mut *cx.doc;
        let info = &*cx.info;
        let range = final_range(info);
        let tiles = &mut doc.recipe.tiles;
        // The bands in use: resolved over the final map when auto bands are on.
        let mut shown = match range {
            Some((min, max)) => tiles.effective(min, max),
            None => tiles.clone(),
        };
        band_chart(ui, &shown, info);
        ui.horizontal(|ui| {
            ui.checkbox(&mut tiles.auto_bands, "auto bands")
                .on_hover_text(
                    "Spread the bands over the map's height range whenever the map changes",
                );
            ui.checkbox(&mut tiles.bands_from_zero, "from 0")
                .on_hover_text(
                    "Spread the bands over 0..highest instead of lowest..highest (article 003's texture, over a map clamped at 0)",
                );
            if ui
                .add_enabled(range.is_some(), egui::Button::new("Auto-assign now"))
                .on_hover_text("Spread the bands over the final map's heights once, then keep them")
                .clicked()
                && let Some((min, max)) = range
            {
                let (low, high) = tiles.band_range(min, max);
                tiles.auto_assign(low, high);
                tiles.auto_bands = false;
                shown = tiles.clone();
            }
            if ui
                .add_enabled(
                    tiles.tiles.len() < MAX_TILE_LAYERS,
                    egui::Button::new("+ Tile"),
                )
                .clicked()
            {
                tiles.tiles.push(new_tile(tiles));
            }
        });
        if shown.tiles.len() != tiles.tiles.len() {
            return;
        }
        let mut edited = false;
        let mut remove = None;
        for (index, tile) in shown.tiles.iter_mut().enumerate() {
            let id = ui.id().with(("tile", index));
            let header = egui::collapsing_header::CollapsingState::load_with_default_open(
                ui.ctx(),
                id,
                false,
            );
            header
                .show_header(ui, |ui| {
                    self.thumbnail(ui, &tile.image, doc.source.base_dir.clone());
                    ui.label(format!("{index}. {}", tile.name));
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        if ui
                            .add_enabled(
                                tiles_len_ok(&doc.recipe.tiles),
                                egui::Button::new("×").small(),
                            )
                            .on_hover_text("Remove this tile")
                            .clicked()
                        {
                            remove = Some(index);
                        }
                    });
                })
                .body(|ui| {
                    if draw_params(ui, id, tile) {
                        clamp_all(tile);
                        edited = true;
                    }
                    edited |= map_rule_ui(ui, id, &mut tile.map);
                    if !(tile.low <= tile.optimal && tile.optimal <= tile.high) {
                        ui.colored_label(ERROR_RED, "need low ≤ optimal ≤ high");
                    }
                });
        }
        let tiles = &mut doc.recipe.tiles;
        if edited {
            let band_edited = shown
                .tiles
                .iter()
                .zip(&tiles.tiles)
                .any(|(a, b)| (a.low, a.optimal, a.high) != (b.low, b.optimal, b.high));
            let auto = tiles.auto_bands && !band_edited;
            tiles.tiles = shown.tiles;
            tiles.auto_bands = auto;
        }
        if let Some(index) = remove
            && index < tiles.tiles.len()
        {
            tiles.tiles.remove(index);
        }
        for warning in &info.generated.warnings {
            ui.colored_label(ERROR_RED, warning);
        }
    }
}

fn tiles_len_ok(tiles: &TileSet) -> bool {
    tiles.tiles.len() > 1
}

/// Heights of the final map (bands are absolute heights).
fn final_range(info: &UiContext) -> Option<(f32, f32)> {
    let output = info.generated.output.as_ref()?;
    let stats = output.map.stats();
    (stats.max > stats.min).then_some((stats.min, stats.max))
}

fn new_tile(tiles: &TileSet) -> Tile {
    let mut tile = tiles
        .tiles
        .last()
        .cloned()
        .unwrap_or_else(|| TileSet::default().tiles.swap_remove(0));
    tile.name = format!("tile {}", tiles.tiles.len() + 1);
    tile
}

/// The tile's fallback colour, for the chart.
fn chart_colour(tile: &Tile) -> egui::Color32 {
    let [r, g, b] = tile.fallback_color;
    egui::Color32::from_rgb(r, g, b)
}

/// The final map's height histogram with each tile's band as a tent.
fn band_chart(ui: &mut egui::Ui, tiles: &TileSet, info: &UiContext) {
    let generated = info.generated;
    let size = egui::vec2(ui.available_width().min(340.0), 90.0);
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, egui::Color32::from_gray(24));
    let Some((min, max)) = final_range(info) else {
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "no map yet",
            egui::FontId::proportional(12.0),
            egui::Color32::GRAY,
        );
        return;
    };
    let x_of = |h: f32| rect.left() + (h - min) / (max - min) * rect.width();
    // The histogram is of the shown map; chart it only when that is the
    // final map, whose range the axis uses.
    if generated.shown_stage.is_none() && !generated.histogram.is_empty() {
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
                egui::Color32::from_gray(80),
            );
        }
    }
    for tile in &tiles.tiles {
        let points = vec![
            egui::pos2(x_of(tile.low), rect.bottom()),
            egui::pos2(x_of(tile.optimal), rect.top() + 4.0),
            egui::pos2(x_of(tile.high), rect.bottom()),
        ];
        painter.line(points, egui::Stroke::new(2.0, chart_colour(tile)));
    }
    response.on_hover_text(format!(
        "Final map heights {min:.1} to {max:.1} (bars, square-root scale) and each tile's band"
    ));
}
