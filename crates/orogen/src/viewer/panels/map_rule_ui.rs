//! A tile's map rule in the Texture panel: which derived map lets the
//! tile show, its range and soft edge. A new range is a uniform write on
//! the GPU path; choosing another map computes that map (a job).

use super::ERROR_RED;
use bevy_egui::egui;
use orogen_core::maps::DerivedMap;
use orogen_core::params::Span;
use orogen_core::splat::{MapRule, rule_units};

/// A rule to start from when `map` is chosen: where that map usually
/// marks something (channels, lake water, valleys, deposits).
pub fn starting_rule(map: DerivedMap) -> MapRule {
    let (min, max, soft) = match map {
        DerivedMap::Flow => (2000.0, 1e12, 1000.0),
        DerivedMap::Wetness => (5000.0, 1e12, 2500.0),
        DerivedMap::Lakes => (0.05, 1e6, 0.05),
        DerivedMap::Rivers => (0.5, 1.0, 0.25),
        DerivedMap::Curvature => (-1e6, -0.05, 0.05),
        DerivedMap::Occlusion => (0.0, 0.8, 0.1),
        DerivedMap::Wear => (0.5, 1e6, 0.5),
        DerivedMap::Deposition => (0.2, 1e6, 0.2),
    };
    MapRule {
        map,
        range: Span::new(min, max),
        soft,
    }
}

/// Drag speed for a value: a hundredth of its size, so drainage areas in
/// the millions and weights of 0..1 both move at a usable pace.
fn speed(value: f32) -> f64 {
    (f64::from(value.abs()) * 0.01).max(0.001)
}

/// Draws the rule editor; true when the user changed it.
pub fn map_rule_ui(ui: &mut egui::Ui, id: egui::Id, rule: &mut Option<MapRule>) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        ui.label("map rule")
            .on_hover_text("Show this tile only where a map of the terrain lies in a range");
        let current = rule.map(|r| r.map);
        egui::ComboBox::from_id_salt(id.with("map rule"))
            .selected_text(current.map_or("none", DerivedMap::name))
            .show_ui(ui, |ui| {
                if ui.selectable_label(current.is_none(), "none").clicked() && rule.is_some() {
                    *rule = None;
                    changed = true;
                }
                for map in DerivedMap::ALL {
                    let chosen = ui
                        .selectable_label(current == Some(map), map.name())
                        .on_hover_text(rule_units(map));
                    if chosen.clicked() && current != Some(map) {
                        *rule = Some(starting_rule(map));
                        changed = true;
                    }
                }
            });
    });
    let Some(r) = rule.as_mut() else {
        return changed;
    };
    let units = rule_units(r.map);
    ui.horizontal(|ui| {
        ui.label("from");
        let min_speed = speed(r.range.min);
        changed |= ui
            .add(egui::DragValue::new(&mut r.range.min).speed(min_speed))
            .on_hover_text(units)
            .changed();
        ui.label("to");
        let max_speed = speed(r.range.max);
        changed |= ui
            .add(egui::DragValue::new(&mut r.range.max).speed(max_speed))
            .on_hover_text(units)
            .changed();
        ui.label("soft");
        let soft_speed = speed(r.soft);
        changed |= ui
            .add(
                egui::DragValue::new(&mut r.soft)
                    .speed(soft_speed)
                    .range(0.0..=f32::MAX),
            )
            .on_hover_text("The tile fades out over this much beyond each end (0: a hard edge)")
            .changed();
    });
    if let Err(error) = r.validate("map") {
        ui.colored_label(ERROR_RED, error.message);
    }
    if r.map.needs_erosion_record() {
        ui.label("from what the erosion stages changed as they ran");
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_starting_rule_is_valid_and_reads_its_map() {
        for map in DerivedMap::ALL {
            let rule = starting_rule(map);
            assert_eq!(rule.map, map);
            assert!(rule.validate("map").is_ok(), "{map:?}");
        }
        // A channel's drainage passes the flow rule; a hillslope's does not.
        let flow = starting_rule(DerivedMap::Flow);
        assert_eq!(flow.factor(50_000.0), 1.0);
        assert_eq!(flow.factor(100.0), 0.0);
    }
}
