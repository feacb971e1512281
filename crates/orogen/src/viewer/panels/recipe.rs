//! Recipe panel: size (with engine presets), seed, undo/redo, and the
//! stage list with every parameter drawn through the visitor.

use super::brush::{PaintBrush, PaintTarget};
use super::mask_ui::draw_mask;
use super::params_ui::draw_params;
use super::{Document, ERROR_RED, UiContext};
use super::{Panel, PanelContext};
use crate::viewer::document::history::HistoryAction;
use crate::viewer::regen::check_recipe;
use crate::viewer::render::path::gpu_display_limit;
use bevy_egui::egui;
use orogen_core::MapSlot;
use orogen_core::io::engine_sizes::{UNITY_SIZES, UNREAL_SIZES};
use orogen_core::params::clamp_all;
use orogen_core::recipe::{MAX_SIDE, MIN_SIDE};
use orogen_core::{Recipe, Stage, StageEntry};

#[derive(Default)]
pub struct RecipePanel {
    /// Index into `Stage::KINDS` of the stage the "Add" button adds.
    add_kind: usize,
}

/// An edit to the stage list, applied after the list is drawn.
enum ListEdit {
    MoveUp(usize),
    MoveDown(usize),
    Remove(usize),
}

impl RecipePanel {
    fn stage_list(&mut self, ui: &mut egui::Ui, recipe: &mut Recipe, brush: &mut PaintBrush) {
        let count = recipe.stages.len();
        let mut edit = None;
        for (index, entry) in recipe.stages.iter_mut().enumerate() {
            let id = ui.id().with(("stage", index, entry.stage.kind()));
            let state = egui::collapsing_header::CollapsingState::load_with_default_open(
                ui.ctx(),
                id,
                false,
            );
            state
                .show_header(ui, |ui| {
                    ui.checkbox(&mut entry.enabled, "")
                        .on_hover_text("Run this stage");
                    ui.label(format!("{index}. {}", entry.stage.label()))
                        .on_hover_text(entry.stage.help());
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        if ui.small_button("×").on_hover_text("Remove").clicked() {
                            edit = Some(ListEdit::Remove(index));
                        }
                        if ui
                            .add_enabled(index + 1 < count, egui::Button::new("⏷").small())
                            .on_hover_text("Move down")
                            .clicked()
                        {
                            edit = Some(ListEdit::MoveDown(index));
                        }
                        if ui
                            .add_enabled(index > 0, egui::Button::new("⏶").small())
                            .on_hover_text("Move up")
                            .clicked()
                        {
                            edit = Some(ListEdit::MoveUp(index));
                        }
                    });
                })
                .body(|ui| {
                    if draw_params(ui, id, &mut entry.stage) {
                        clamp_all(&mut entry.stage);
                    }
                    ui.separator();
                    // The entry's mask, then the maps its stage reads.
                    for slot in MapSlot::ALL {
                        if let Some(map) = entry.map_slot_mut(slot) {
                            draw_mask(ui, id, PaintTarget { stage: index, slot }, map, brush);
                        }
                    }
                });
        }
        // The brush follows the stage it paints.
        let swap = |a: usize, b: usize| {
            move |s: usize| {
                Some(if s == a {
                    b
                } else if s == b {
                    a
                } else {
                    s
                })
            }
        };
        match edit {
            Some(ListEdit::MoveUp(i)) if i > 0 => {
                recipe.stages.swap(i, i - 1);
                brush.follow_stages(swap(i, i - 1));
            }
            Some(ListEdit::MoveDown(i)) if i + 1 < count => {
                recipe.stages.swap(i, i + 1);
                brush.follow_stages(swap(i, i + 1));
            }
            Some(ListEdit::Remove(i)) if i < count => {
                recipe.stages.remove(i);
                brush.follow_stages(|s| match s.cmp(&i) {
                    std::cmp::Ordering::Less => Some(s),
                    std::cmp::Ordering::Equal => None,
                    std::cmp::Ordering::Greater => Some(s - 1),
                });
            }
            _ => {}
        }
        ui.horizontal(|ui| {
            let kinds = Stage::KINDS;
            let current = kinds.get(self.add_kind).copied().unwrap_or("noise");
            egui::ComboBox::from_id_salt("add-stage-kind")
                .selected_text(Stage::label_of(current))
                .show_ui(ui, |ui| {
                    for (i, kind) in kinds.iter().enumerate() {
                        ui.selectable_value(&mut self.add_kind, i, Stage::label_of(kind));
                    }
                });
            if ui.button("+ Add stage").clicked()
                && let Some(stage) = Stage::default_of(current)
            {
                recipe.stages.push(StageEntry::new(stage));
            }
        });
    }
}

impl Panel for RecipePanel {
    fn title(&self) -> &'static str {
        "Recipe"
    }

    fn open_by_default(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        let doc = &mut *cx.doc;
        let info = &mut *cx.info;
        let brush = &mut *cx.brush;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(info.can_undo, egui::Button::new("⟲ Undo"))
                .on_hover_text("Ctrl+Z")
                .clicked()
            {
                info.history_request = Some(HistoryAction::Undo);
            }
            if ui
                .add_enabled(info.can_redo, egui::Button::new("⟳ Redo"))
                .on_hover_text("Ctrl+Shift+Z or Ctrl+Y")
                .clicked()
            {
                info.history_request = Some(HistoryAction::Redo);
            }
        });
        size_controls(ui, &mut doc.recipe);
        preview_controls(ui, doc, info);
        seed_controls(ui, &mut doc.recipe);
        ui.separator();
        self.stage_list(ui, &mut doc.recipe, brush);
        if let Err(message) = check_recipe(&doc.recipe) {
            ui.colored_label(ERROR_RED, message);
        }
    }
}

fn size_controls(ui: &mut egui::Ui, recipe: &mut Recipe) {
    ui.horizontal(|ui| {
        ui.label("world").on_hover_text(
            "The world's extent in world units (west–east × north–south). \
             Lengths in the stages are world units or fractions of this.",
        );
        let (mut x, mut y) = (recipe.extent.x, recipe.extent.y);
        ui.add(
            egui::DragValue::new(&mut x)
                .range(0.001..=100_000_000.0)
                .speed(1.0),
        );
        ui.label("×");
        ui.add(
            egui::DragValue::new(&mut y)
                .range(0.001..=100_000_000.0)
                .speed(1.0),
        );
        if (x, y) != (recipe.extent.x, recipe.extent.y) {
            recipe.extent = orogen_core::recipe::Extent { x, y };
            // Keep square cells: the height follows the new aspect.
            let (w, h) = recipe.sampling_for(recipe.width.max(recipe.height));
            recipe.set_sampling(w, h);
        }
    });
    ui.horizontal(|ui| {
        ui.label("export size").on_hover_text(
            "Cells along the world's longer side when exporting: how densely the world \
             is sampled. More cells add detail, not land; the view shows a preview of \
             the same landscape. Up to 16385 here; larger worlds are built as windows \
             on the command line (orogen plan).",
        );
        let mut side = recipe.width.max(recipe.height);
        let before = side;
        ui.add(
            egui::DragValue::new(&mut side)
                .range(MIN_SIDE..=MAX_SIDE.min(gpu_display_limit()))
                .speed(4.0),
        );
        if side != before {
            let (w, h) = recipe.sampling_for(side);
            recipe.set_sampling(w, h);
        }
        ui.weak(format!("{}×{}", recipe.width, recipe.height));
        egui::ComboBox::from_id_salt("engine-size")
            .selected_text("engine size")
            .show_ui(ui, |ui| {
                for (engine, sizes) in [("Unity", UNITY_SIZES), ("Unreal", UNREAL_SIZES)] {
                    ui.label(egui::RichText::new(engine).strong());
                    for &side in sizes {
                        if ui
                            .selectable_label(
                                recipe.width == side && recipe.height == side,
                                format!("{engine} {side}"),
                            )
                            .clicked()
                        {
                            let (w, h) = recipe.sampling_for(side);
                            recipe.set_sampling(w, h);
                        }
                    }
                }
            });
    });
    ui.weak(format!("cell size {:.4} world units", recipe.cell_size()));
}

/// The preview size (automatic: the largest that regenerates within a
/// frame) and what is on screen now.
fn preview_controls(ui: &mut egui::Ui, doc: &mut Document, info: &UiContext) {
    let sampling = &mut doc.sampling;
    ui.horizontal(|ui| {
        ui.label("preview").on_hover_text(
            "An edit is shown at this size first, then refined in the background \
             (doubling) up to the view's limit. Auto picks the largest size whose \
             measured regeneration fits in a frame (16.7 ms).",
        );
        ui.checkbox(&mut sampling.auto, "auto");
        ui.add_enabled_ui(!sampling.auto, |ui| {
            egui::ComboBox::from_id_salt("preview-side")
                .selected_text(format!("{}²", sampling.preview_side))
                .show_ui(ui, |ui| {
                    for side in [65u32, 129, 257, 513, 1025] {
                        ui.selectable_value(&mut sampling.preview_side, side, format!("{side}²"));
                    }
                });
        });
    });
    // On a line of its own, where it wraps: a long chain (up to 8193²)
    // would otherwise widen the whole panel.
    let text = sampling
        .levels(&doc.recipe)
        .iter()
        .map(|s| format!("{s}²"))
        .collect::<Vec<_>>()
        .join(" > ");
    ui.add(egui::Label::new(egui::RichText::new(format!("shown at {text}")).weak()).wrap());
    if let Some(shown) = info.shown_side {
        ui.weak(format!(
            "on screen: {shown}² of the {}×{} export",
            doc.recipe.width, doc.recipe.height
        ));
    }
}

fn seed_controls(ui: &mut egui::Ui, recipe: &mut Recipe) {
    ui.horizontal(|ui| {
        ui.label("seed");
        ui.add(egui::DragValue::new(&mut recipe.seed).speed(1.0));
        if ui.button("New seed").clicked() {
            recipe.seed = fresh_seed(recipe.seed);
        }
    });
}

/// A seed different from `previous`, from the clock (the UI needs variety,
/// not reproducibility; the recipe stores whatever was picked).
fn fresh_seed(previous: u64) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(previous.wrapping_add(1));
    let mut x = nanos ^ previous.rotate_left(17) ^ 0x9E37_79B9_7F4A_7C15;
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    // Keep seeds short enough to read and type.
    let seed = x % 1_000_000;
    if seed == previous { seed + 1 } else { seed }
}
