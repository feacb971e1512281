//! View panel: exaggeration, wireframe, water, the flow overlay, sun, the
//! stage-by-stage demo (diamond-square level stepping, erosion iteration /
//! droplet sliders) and a 2D preview, which a stage's painted mask is
//! painted on ([`super::brush`]).

use super::Document;
use super::brush::PaintBrush;
use super::{Panel, PanelContext};
use crate::viewer::display_data::flow::{FlowField, VIEW_OVERLAYS};
use crate::viewer::display_data::preview::PreviewImage;
use crate::viewer::handoff::{Generated, ShownBands};
use crate::viewer::settings::PreviewKind;
use bevy_egui::egui;
use orogen_core::params::{ParamVisitor, Params};
use orogen_core::{Stage, StageEntry};
use std::ops::RangeInclusive;

/// What the preview texture shows: generation serial and preview version,
/// kind, and whether the flow network is tinted in.
type PreviewKey = ((u64, u64), PreviewKind, bool);

#[derive(Default)]
pub struct ViewPanel {
    preview: Option<(PreviewKey, egui::TextureHandle)>,
}

impl ViewPanel {
    fn preview(
        &mut self,
        ui: &mut egui::Ui,
        doc: &mut Document,
        generated: &Generated,
        bands: &ShownBands,
        brush: &mut PaintBrush,
    ) {
        ui.horizontal(|ui| {
            ui.label("preview");
            ui.radio_value(&mut doc.view.preview, PreviewKind::Texture, "texture");
            ui.radio_value(&mut doc.view.preview, PreviewKind::Heightmap, "heightmap");
        });
        let kind = doc.view.preview;
        let image: &PreviewImage = match kind {
            PreviewKind::Texture => &bands.texture_preview,
            PreviewKind::Heightmap => &generated.heightmap_preview,
        };
        if image.rgba.len() != image.width * image.height * 4 || image.width == 0 {
            ui.weak("(no map yet)");
            return;
        }
        let flow = generated
            .flow
            .as_deref()
            .filter(|f| doc.view.flow_overlay && f.kind == doc.view.overlay);
        let key = ((generated.serial, bands.version), kind, flow.is_some());
        if self.preview.as_ref().is_none_or(|(shown, _)| *shown != key) {
            let colour = egui::ColorImage::from_rgba_unmultiplied(
                [image.width, image.height],
                &preview_rgba(image, flow),
            );
            let handle =
                ui.ctx()
                    .load_texture("orogen-preview", colour, egui::TextureOptions::LINEAR);
            self.preview = Some((key, handle));
        }
        if let Some((_, handle)) = &self.preview {
            let mut size = handle.size_vec2();
            let painting = brush.target.is_some();
            if painting {
                // Painted at the panel's width: the small preview is fiddly.
                size *= (ui.available_width() / size.x.max(1.0)).max(1.0);
            }
            let image = egui::Image::new(egui::load::SizedTexture::new(handle.id(), size));
            if painting {
                let response = ui.add(image.sense(egui::Sense::drag()));
                brush.paint_on(ui, &response, doc);
            } else {
                ui.add(image).on_hover_text("Top-down, north up");
            }
        }
    }
}

impl Panel for ViewPanel {
    fn title(&self) -> &'static str {
        "View"
    }

    fn open_by_default(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        let doc = &mut *cx.doc;
        let info = &*cx.info;
        let brush = &mut *cx.brush;
        let view = &mut doc.view;
        ui.add(egui::Slider::new(&mut view.height_scale, 0.1..=5.0).text("height ×"))
            .on_hover_text("Vertical exaggeration (display only; exports keep true heights)");
        ui.horizontal(|ui| {
            ui.checkbox(&mut view.wireframe, "wireframe")
                .on_hover_text("Needs a GPU with line polygon mode");
            ui.checkbox(&mut view.shadows, "shadows");
            ui.checkbox(&mut view.water_enabled, "water")
                .on_hover_text("One water plane at a chosen level (a sea)");
        });
        if view.water_enabled {
            let (lo, hi) = water_range(info.generated);
            ui.add(egui::Slider::new(&mut view.water_level, lo..=hi).text("water level"));
        }
        ui.horizontal(|ui| {
            ui.checkbox(&mut view.flow_overlay, "overlay")
                .on_hover_text(FLOW_OVERLAY_HELP);
            egui::ComboBox::from_id_salt("orogen-overlay-map")
                .selected_text(view.overlay.name())
                .show_ui(ui, |ui| {
                    for kind in VIEW_OVERLAYS {
                        ui.selectable_value(&mut view.overlay, kind, kind.name())
                            .on_hover_text(kind.meaning().meaning);
                    }
                });
            ui.checkbox(&mut view.lakes_and_rivers, "lakes and rivers")
                .on_hover_text(LAKES_HELP);
        });
        ui.add(egui::Slider::new(&mut view.sun_azimuth, 0.0..=360.0).text("sun azimuth °"))
            .on_hover_text("0 = north, 90 = east");
        ui.add(egui::Slider::new(&mut view.sun_elevation, 2.0..=90.0).text("sun elevation °"));
        ui.separator();
        stage_picker(ui, doc);
        ui.separator();
        brush.controls(ui, doc);
        self.preview(ui, doc, info.generated, info.bands, brush);
    }
}

const LAKES_HELP: &str = "Each closed basin filled to its spill level and rivers along their \
     channels, as `orogen generate --maps lakes,rivers` writes them. Derived from the shown map; \
     never regenerates.";

const FLOW_OVERLAY_HELP: &str = "Tint a map derived from the shown map over the terrain and the \
     preview. flow: how much area drains through each point, on a log scale from 500 square world \
     units (none) to 250 000 (full); wetness: the same spread over every lower neighbour; lakes: \
     depth up to 10; rivers: channels; curvature: ridges and valleys; occlusion: sky hidden. \
     Worked out from the map shown, so switching it re-runs nothing";

/// The preview's pixels, with the flow network tinted in when given.
fn preview_rgba(image: &PreviewImage, flow: Option<&FlowField>) -> Vec<u8> {
    let mut rgba = image.rgba.clone();
    if let Some(flow) = flow {
        flow.tint(&mut rgba, image.width, image.height);
    }
    rgba
}

/// Water can sit anywhere from a little below to the top of the shown map.
fn water_range(generated: &Generated) -> (f32, f32) {
    let (min, max) = (generated.shown_min, generated.shown_max);
    let pad = (max - min) * 0.05;
    if max > min && (min - pad).is_finite() && max.is_finite() {
        (min - pad, max)
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
        let levels = int_param_range(ds, "stop_after_level").unwrap_or(0..=0);
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
                ui.add(egui::DragValue::new(level).range(levels.clone()));
                if ui.small_button("+").clicked() {
                    *level = (*level + 1).min(*levels.end());
                }
            }
        });
    }
    erosion_stepper(ui, stages, focus);
}

/// The stage whose progress the demo steps when the map after stage
/// `focus` is shown: the nearest stage at or before it that declares a
/// progress parameter (an erosion: iterations, droplets, years).
pub fn progress_target(stages: &mut [StageEntry], focus: usize) -> Option<usize> {
    stages
        .iter_mut()
        .enumerate()
        .take(focus.saturating_add(1))
        .rev()
        .find_map(|(i, entry)| entry.stage.op_mut().progress().map(|_| i))
}

/// The allowed range of integer parameter `name` (optional or not), as
/// the stage declares it.
pub fn int_param_range(params: &mut dyn Params, name: &str) -> Option<RangeInclusive<u32>> {
    struct Finder<'a> {
        name: &'a str,
        range: Option<RangeInclusive<u32>>,
    }
    impl ParamVisitor for Finder<'_> {
        fn int(&mut self, name: &str, _: &mut u32, range: RangeInclusive<u32>, _: &str) {
            if name == self.name && self.range.is_none() {
                self.range = Some(range);
            }
        }
        fn optional_int(
            &mut self,
            name: &str,
            value: &mut Option<u32>,
            range: RangeInclusive<u32>,
            help: &str,
        ) {
            let mut current = value.unwrap_or(*range.start());
            self.int(name, &mut current, range, help);
        }
    }
    let mut finder = Finder { name, range: None };
    params.visit(&mut finder);
    finder.range
}

/// Erosion progress as a recipe parameter: dragging re-runs that stage
/// and the ones after it through the normal edit path, so it is one undo
/// step per drag. For fluvial erosion it is the land's age in years.
fn erosion_stepper(ui: &mut egui::Ui, stages: &mut [StageEntry], focus: usize) {
    let Some(index) = progress_target(stages, focus) else {
        return;
    };
    let Some(entry) = stages.get_mut(index) else {
        return;
    };
    let enabled = entry.enabled;
    let Some(mut progress) = entry.stage.op_mut().progress() else {
        return;
    };
    let current = progress.get();
    let mut stepped = current;
    let (lo, hi) = (*progress.range.start(), *progress.range.end());
    ui.label(format!("{index}. {}", progress.label))
        .on_hover_text(progress.help);
    ui.horizontal(|ui| {
        let click = progress.click();
        if ui.small_button("−").clicked() {
            // Down to the range's start, never up to it from below.
            stepped = (stepped - click).max(lo.min(stepped));
        }
        ui.spacing_mut().slider_width = 170.0;
        // Clamped only when the user moves it: showing a recipe whose
        // value lies outside the stepper's range must not edit it.
        let slider = egui::Slider::new(&mut stepped, lo..=hi)
            .logarithmic(true)
            .clamping(egui::SliderClamping::Edits);
        let slider = if progress.is_count() {
            slider.integer()
        } else {
            slider.max_decimals(0)
        };
        ui.add(slider).on_hover_text(progress.help);
        if ui.small_button("+").clicked() {
            stepped = (stepped + click).min(hi);
        }
    });
    if stepped != current {
        progress.set(stepped);
    }
    // Asked again: the note speaks of the value just set.
    if let Some(note) = entry.stage.op_mut().progress().and_then(|p| p.note) {
        ui.weak(note);
    }
    if !enabled {
        ui.weak("(this stage is switched off)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_core::Recipe;

    fn stages(kinds: &[&str]) -> Vec<StageEntry> {
        kinds
            .iter()
            .filter_map(|k| Stage::default_of(k))
            .map(StageEntry::new)
            .collect()
    }

    #[test]
    fn the_preview_is_tinted_only_with_a_network() {
        let image = PreviewImage {
            width: 2,
            height: 1,
            rgba: vec![100, 100, 100, 255, 100, 100, 100, 255],
        };
        assert_eq!(preview_rgba(&image, None), image.rgba);
        // A network twice as fine: the channel in the right half.
        let flow = FlowField {
            width: 3,
            height: 2,
            strength: vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
            ..FlowField::default()
        };
        let tinted = preview_rgba(&image, Some(&flow));
        assert_eq!(&tinted[..4], &image.rgba[..4]);
        assert_ne!(&tinted[4..], &image.rgba[4..]);
        assert_eq!(tinted[7], 255);
    }

    #[test]
    fn erosion_stages_are_offered_in_the_add_stage_list() {
        for kind in ["hydraulic-erosion", "thermal-erosion"] {
            assert!(
                Stage::KINDS.contains(&kind),
                "{kind} missing from Stage::KINDS"
            );
            assert!(Stage::default_of(kind).is_some());
            assert_ne!(Stage::label_of(kind), "unknown");
        }
    }

    #[test]
    fn progress_target_is_the_nearest_stage_with_progress_at_or_before_focus() {
        let mut list = stages(&[
            "diamond-square",
            "hydraulic-erosion",
            "normalize",
            "thermal-erosion",
            "blur",
            "fluvial-erosion",
        ]);
        assert_eq!(progress_target(&mut list, 0), None);
        assert_eq!(progress_target(&mut list, 1), Some(1));
        assert_eq!(progress_target(&mut list, 2), Some(1));
        assert_eq!(progress_target(&mut list, 3), Some(3));
        assert_eq!(progress_target(&mut list, 4), Some(3));
        assert_eq!(progress_target(&mut list, 99), Some(5));
        assert_eq!(progress_target(&mut [], usize::MAX), None);
    }

    #[test]
    fn each_stepper_steps_a_parameter_of_its_stage_within_its_range() {
        let mut list = stages(&["hydraulic-erosion", "thermal-erosion", "fluvial-erosion"]);
        for (entry, param) in list.iter_mut().zip(["droplets", "iterations", "duration"]) {
            let mut before = entry.stage.clone();
            let Some(mut progress) = entry.stage.op_mut().progress() else {
                panic!("{}: no progress parameter", entry.stage.kind());
            };
            let (lo, hi) = (*progress.range.start(), *progress.range.end());
            assert!(lo < hi && (lo..=hi).contains(&progress.get()));
            progress.set(hi);
            // The stepped value is the named parameter of the stage.
            let mut found = None;
            struct Finder<'a>(&'a str, &'a mut Option<f64>);
            impl ParamVisitor for Finder<'_> {
                fn int(&mut self, name: &str, v: &mut u32, _: RangeInclusive<u32>, _: &str) {
                    if name == self.0 {
                        *self.1 = Some(*v as f64);
                    }
                }
                fn float(&mut self, name: &str, v: &mut f32, _: RangeInclusive<f32>, _: &str) {
                    if name == self.0 {
                        *self.1 = Some(*v as f64);
                    }
                }
            }
            entry.stage.visit(&mut Finder(param, &mut found));
            assert_eq!(found, Some(hi), "{param}");
            assert_ne!(entry.stage, before);
            // And within the parameter's own range.
            let mut range = None;
            struct Range<'a>(&'a str, &'a mut Option<(f64, f64)>);
            impl ParamVisitor for Range<'_> {
                fn int(&mut self, name: &str, _: &mut u32, r: RangeInclusive<u32>, _: &str) {
                    if name == self.0 {
                        *self.1 = Some((*r.start() as f64, *r.end() as f64));
                    }
                }
                fn float(&mut self, name: &str, _: &mut f32, r: RangeInclusive<f32>, _: &str) {
                    if name == self.0 {
                        *self.1 = Some((*r.start() as f64, *r.end() as f64));
                    }
                }
            }
            before.visit(&mut Range(param, &mut range));
            let (plo, phi) = range.unwrap_or_else(|| panic!("{param}: no range"));
            assert!(
                plo <= lo && hi <= phi,
                "{param}: {lo}..{hi} outside {plo}..{phi}"
            );
        }
        // A stage without progress: nothing to step.
        let mut blur = stages(&["blur"]);
        assert!(blur[0].stage.op_mut().progress().is_none());
        // Diamond-square's level stepper reads its range from the stage.
        let mut ds = stages(&["diamond-square"]);
        let levels = int_param_range(&mut ds[0].stage, "stop_after_level");
        assert_eq!(levels, Some(0..=16));
    }

    #[test]
    fn a_fluvial_stage_cut_short_says_how_many_years_it_shows() {
        let mut list = stages(&["fluvial-erosion"]);
        let note = |entry: &mut StageEntry| entry.stage.op_mut().progress().and_then(|p| p.note);
        assert_eq!(note(&mut list[0]), None);
        if let Stage::FluvialErosion(f) = &mut list[0].stage {
            f.duration = 1_000_000.0;
            f.steps = 8;
            f.stop_after_steps = Some(2);
        }
        let text = note(&mut list[0]).unwrap_or_default();
        assert!(text.contains("2 of its 8 steps, 250000 years"), "{text}");
        if let Stage::FluvialErosion(f) = &mut list[0].stage {
            f.stop_after_steps = Some(8);
        }
        assert_eq!(note(&mut list[0]), None);
    }

    #[test]
    fn stepping_is_a_recipe_edit() {
        // The slider writes into the document's recipe, which the panels
        // store through `set_if_neq`: the history and the regeneration see
        // an ordinary edit.
        let mut recipe = Recipe {
            stages: stages(&["diamond-square", "fluvial-erosion"]),
            ..Recipe::default()
        };
        let before = recipe.clone();
        let index = progress_target(&mut recipe.stages, 1).unwrap_or(0);
        if let Some(mut p) = recipe.stages[index].stage.op_mut().progress() {
            assert_eq!(p.click(), 20_000.0);
            p.set(50_000.0);
        }
        assert_ne!(recipe, before);
        assert!(
            matches!(&recipe.stages[1].stage, Stage::FluvialErosion(f) if f.duration == 50_000.0)
        );
    }
}
