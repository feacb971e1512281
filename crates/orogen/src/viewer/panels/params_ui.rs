//! Draws any [`Params`] as egui widgets through the core's
//! [`ParamVisitor`], so a new stage (or parameter) appears in the UI
//! without touching this file. Values are clamped to their ranges by the
//! widgets; tooltips are the parameters' help texts.

use bevy_egui::egui;
use orogen_core::params::{ParamVisitor, Params, Span};
use std::ops::RangeInclusive;

/// Draws `params` into `ui`; returns whether any value changed.
pub fn draw_params(ui: &mut egui::Ui, id: egui::Id, params: &mut dyn Params) -> bool {
    let mut drawer = ParamDrawer {
        ui,
        id,
        changed: false,
    };
    params.visit(&mut drawer);
    drawer.changed
}

struct ParamDrawer<'a> {
    ui: &'a mut egui::Ui,
    id: egui::Id,
    changed: bool,
}

/// Width of the name column, so widgets line up.
const LABEL_WIDTH: f32 = 118.0;

/// "terrain_height" -> "terrain height".
fn pretty(name: &str) -> String {
    name.replace('_', " ")
}

/// A drag speed that makes the whole range reachable in a few hundred
/// pixels but keeps small values fine-grained.
fn drag_speed(value: f32, range: &RangeInclusive<f32>) -> f64 {
    let span = (range.end() - range.start()).abs().min(1.0e6);
    let by_value = value.abs() * 0.01;
    (by_value.max(span * 0.0005)).clamp(0.001, 100.0) as f64
}

fn decimals_for(range: &RangeInclusive<f32>) -> usize {
    if (range.end() - range.start()).abs() <= 10.0 {
        3
    } else {
        2
    }
}

impl ParamDrawer<'_> {
    /// One row: the name (with the help as tooltip), then the widgets.
    fn row(&mut self, name: &str, help: &str, add: impl FnOnce(&mut egui::Ui) -> bool) {
        let changed = self
            .ui
            .horizontal(|ui| {
                let label = ui.add_sized(
                    [LABEL_WIDTH, ui.spacing().interact_size.y],
                    egui::Label::new(pretty(name)).truncate(),
                );
                if !help.is_empty() {
                    label.on_hover_text(help);
                }
                add(ui)
            })
            .inner;
        self.changed |= changed;
    }

    fn float_widget(
        ui: &mut egui::Ui,
        value: &mut f32,
        range: &RangeInclusive<f32>,
        help: &str,
    ) -> bool {
        let speed = drag_speed(*value, range);
        let response = ui.add(
            egui::DragValue::new(value)
                .range(range.clone())
                .speed(speed)
                .max_decimals(decimals_for(range)),
        );
        let response = if help.is_empty() {
            response
        } else {
            response.on_hover_text(help)
        };
        response.changed()
    }

    fn int_widget(
        ui: &mut egui::Ui,
        value: &mut u32,
        range: &RangeInclusive<u32>,
        help: &str,
    ) -> bool {
        let span = range.end().saturating_sub(*range.start()) as f64;
        let response = ui.add(
            egui::DragValue::new(value)
                .range(range.clone())
                .speed((span / 300.0).clamp(0.05, 50.0)),
        );
        let response = if help.is_empty() {
            response
        } else {
            response.on_hover_text(help)
        };
        response.changed()
    }

    fn span_widgets(
        ui: &mut egui::Ui,
        value: &mut Span,
        range: &RangeInclusive<f32>,
        help: &str,
    ) -> bool {
        let mut changed = Self::float_widget(ui, &mut value.min, range, help);
        ui.label("to");
        changed |= Self::float_widget(ui, &mut value.max, range, help);
        if value.min > value.max {
            // Shown in red until fixed; clamp_all would swap them.
            ui.colored_label(egui::Color32::from_rgb(230, 70, 60), "min > max");
        }
        changed
    }
}

/// A starting value when an optional ("auto") parameter is switched on.
fn first_span(range: &RangeInclusive<f32>) -> Span {
    let (lo, hi) = (*range.start(), *range.end());
    let lo = if lo < 0.0 && hi > 0.0 { 0.0 } else { lo };
    Span::new(lo, lo + (hi - lo).min(1.0e6) * 0.1)
}

impl ParamVisitor for ParamDrawer<'_> {
    fn float(&mut self, name: &str, value: &mut f32, range: RangeInclusive<f32>, help: &str) {
        self.row(name, help, |ui| Self::float_widget(ui, value, &range, help));
    }

    fn int(&mut self, name: &str, value: &mut u32, range: RangeInclusive<u32>, help: &str) {
        self.row(name, help, |ui| Self::int_widget(ui, value, &range, help));
    }

    fn span(&mut self, name: &str, value: &mut Span, range: RangeInclusive<f32>, help: &str) {
        self.row(name, help, |ui| Self::span_widgets(ui, value, &range, help));
    }

    fn toggle(&mut self, name: &str, value: &mut bool, help: &str) {
        self.row(name, help, |ui| {
            ui.checkbox(value, "").on_hover_text(help).changed()
        });
    }

    fn choice(&mut self, name: &str, index: &mut usize, labels: &[&'static str], help: &str) {
        let id = self.id.with(name);
        self.row(name, help, |ui| {
            let before = *index;
            let selected = labels.get(*index).copied().unwrap_or("?");
            egui::ComboBox::from_id_salt(id)
                .selected_text(selected)
                .show_ui(ui, |ui| {
                    for (i, label) in labels.iter().enumerate() {
                        ui.selectable_value(index, i, *label);
                    }
                })
                .response
                .on_hover_text(help);
            *index != before
        });
    }

    fn text(&mut self, name: &str, value: &mut String, help: &str) {
        self.row(name, help, |ui| {
            ui.add(egui::TextEdit::singleline(value).desired_width(150.0))
                .on_hover_text(help)
                .changed()
        });
    }

    fn optional_span(
        &mut self,
        name: &str,
        value: &mut Option<Span>,
        range: RangeInclusive<f32>,
        help: &str,
    ) {
        self.row(name, help, |ui| {
            let mut on = value.is_some();
            let toggled = ui
                .checkbox(&mut on, "")
                .on_hover_text("Off = derived automatically")
                .changed();
            if toggled {
                *value = on.then(|| first_span(&range));
            }
            let edited = match value {
                Some(span) => Self::span_widgets(ui, span, &range, help),
                None => {
                    ui.weak("auto");
                    false
                }
            };
            toggled || edited
        });
    }

    fn optional_int(
        &mut self,
        name: &str,
        value: &mut Option<u32>,
        range: RangeInclusive<u32>,
        help: &str,
    ) {
        self.row(name, help, |ui| {
            let mut on = value.is_some();
            let toggled = ui
                .checkbox(&mut on, "")
                .on_hover_text("Off = derived automatically")
                .changed();
            if toggled {
                *value = on.then_some(*range.start());
            }
            let edited = match value {
                Some(v) => Self::int_widget(ui, v, &range, help),
                None => {
                    ui.weak("auto");
                    false
                }
            };
            toggled || edited
        });
    }

    fn group(&mut self, name: &str, body: &mut dyn FnMut(&mut dyn ParamVisitor)) {
        let id = self.id.with(name);
        let mut changed = false;
        egui::CollapsingHeader::new(pretty(name))
            .id_salt(id)
            .default_open(true)
            .show(self.ui, |ui| {
                let mut inner = ParamDrawer {
                    ui,
                    id,
                    changed: false,
                };
                body(&mut inner);
                changed = inner.changed;
            });
        self.changed |= changed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drag_speed_is_positive_and_bounded() {
        for (v, r) in [(0.0, 0.0..=1.0), (1e6, -1e9..=1e9), (5.0, 0.0..=0.0)] {
            let s = drag_speed(v, &r);
            assert!(s > 0.0 && s <= 100.0, "{s}");
        }
    }

    #[test]
    fn first_span_is_ordered_and_in_range() {
        for r in [0.0..=100.0, -50.0..=50.0, 1.0..=2.0] {
            let s = first_span(&r);
            assert!(s.min <= s.max && r.contains(&s.min) && r.contains(&s.max));
        }
    }
}
