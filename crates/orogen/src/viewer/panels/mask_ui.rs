//! A stage's mask, or a map its stage reads (fluvial erosion's uplift and
//! hardness), in the Recipe panel: off, or a derived map within a range
//! with a soft edge, or a grey image over the world, from a file or
//! painted with the brush ([`super::brush`]).

use super::brush::{PaintBrush, PaintTarget, blank_mask};
use bevy_egui::egui;
use orogen_core::MapSlot;
use orogen_core::params::Span;
use orogen_core::stages::mask::{MaskSource, StageMask};

/// The sources offered, with their units for the range.
const SOURCES: [(&str, &str); 6] = [
    ("height", "world units"),
    ("slope", "degrees"),
    ("flow", "square world units drained"),
    ("lakes", "water depth, world units"),
    ("image", "grey PNG over the world: white acts, black keeps"),
    (
        "painted",
        "painted with a brush on the terrain or the View panel's map: weight 1 where painted",
    ),
];

fn source_index(source: &MaskSource) -> usize {
    match source {
        MaskSource::Height => 0,
        MaskSource::Slope => 1,
        MaskSource::Flow => 2,
        MaskSource::Lakes => 3,
        MaskSource::Image(_) => 4,
        MaskSource::Painted(_) => 5,
    }
}

fn source_of(index: usize, keep_path: &MaskSource) -> MaskSource {
    match index {
        1 => MaskSource::Slope,
        2 => MaskSource::Flow,
        3 => MaskSource::Lakes,
        4 => match keep_path {
            MaskSource::Image(path) => MaskSource::Image(path.clone()),
            _ => MaskSource::Image(String::new()),
        },
        5 => match keep_path {
            MaskSource::Painted(mask) => MaskSource::Painted(mask.clone()),
            _ => MaskSource::Painted(blank_mask()),
        },
        _ => MaskSource::Height,
    }
}

/// A sensible range for a source just chosen.
fn default_range(index: usize) -> Span {
    match index {
        1 => Span::new(0.0, 30.0),
        2 => Span::new(5_000.0, 1.0e9),
        3 => Span::new(0.05, 1.0e4),
        _ => Span::new(0.0, 50.0),
    }
}

/// The checkbox's label and tooltip for a map in `slot`.
fn slot_text(slot: MapSlot) -> (&'static str, &'static str) {
    match slot {
        MapSlot::Mask => (
            "mask",
            "Confine the stage: cells the mask leaves out keep their input exactly; \
             a soft edge blends",
        ),
        MapSlot::Uplift => (
            "uplift map",
            "Where the land rises: each cell's uplift rate times the map's weight \
             (off: uplift everywhere)",
        ),
        MapSlot::Hardness => (
            "hardness map",
            "Where the rock is hard: weight 1 erodes at hard_rock × the erodibility \
             (off: one rock everywhere)",
        ),
    }
}

/// Draws the controls of the map at `target` (`map` is its place in the
/// recipe); true when something changed.
pub fn draw_mask(
    ui: &mut egui::Ui,
    id: egui::Id,
    target: PaintTarget,
    mask: &mut Option<StageMask>,
    brush: &mut PaintBrush,
) -> bool {
    let id = id.with(target.slot.field());
    let mut edited = mask.clone();
    ui.horizontal(|ui| {
        let mut on = edited.is_some();
        let (label, help) = slot_text(target.slot);
        ui.checkbox(&mut on, label).on_hover_text(help);
        if on != edited.is_some() {
            // A map the stage reads starts painted (blank: paint where the
            // land rises, or the rock is hard); a mask starts by height.
            edited = on.then(|| match target.slot {
                MapSlot::Mask => StageMask {
                    source: MaskSource::Height,
                    range: default_range(0),
                    soft: 0.0,
                    invert: false,
                },
                MapSlot::Uplift | MapSlot::Hardness => StageMask {
                    source: MaskSource::Painted(blank_mask()),
                    range: Span::new(0.0, 1.0),
                    soft: 0.0,
                    invert: false,
                },
            });
            if on && target.slot != MapSlot::Mask {
                brush.target = Some(target);
            }
        }
        let Some(m) = edited.as_mut() else {
            return;
        };
        let mut index = source_index(&m.source);
        egui::ComboBox::from_id_salt(id.with("mask-source"))
            .selected_text(SOURCES[index].0)
            .show_ui(ui, |ui| {
                for (i, (name, units)) in SOURCES.iter().enumerate() {
                    ui.selectable_value(&mut index, i, *name)
                        .on_hover_text(*units);
                }
            });
        if index != source_index(&m.source) {
            m.source = source_of(index, &m.source);
            m.range = default_range(index);
        }
        ui.checkbox(&mut m.invert, "invert");
    });
    if let Some(m) = edited.as_mut() {
        if let MaskSource::Painted(painted) = &mut m.source {
            ui.horizontal(|ui| {
                let mut on = brush.target == Some(target);
                if ui
                    .toggle_value(&mut on, "🖌 paint")
                    .on_hover_text(
                        "Paint this map with the left button on the terrain, or on the \
                         View panel's map",
                    )
                    .changed()
                {
                    brush.target = on.then_some(target);
                }
                if ui
                    .small_button("clear")
                    .on_hover_text("Paint nothing: weight 0 everywhere")
                    .clicked()
                {
                    *painted = blank_mask();
                }
                let saved = if painted.file.is_empty() {
                    "written beside the recipe on save".to_string()
                } else {
                    painted.file.clone()
                };
                ui.weak(saved).on_hover_text(format!(
                    "Saved beside the recipe as a 16-bit grey PNG; the recipe names it by \
                     the hash of its pixels, {}",
                    painted.hash
                ));
            });
        } else if let MaskSource::Image(path) = &mut m.source {
            ui.horizontal(|ui| {
                ui.label("image");
                ui.add(egui::TextEdit::singleline(path).desired_width(180.0))
                    .on_hover_text("A grey PNG; a relative path is the recipe's folder's");
            });
        } else {
            let units = SOURCES[source_index(&m.source)].1;
            ui.horizontal(|ui| {
                ui.label("from");
                ui.add(egui::DragValue::new(&mut m.range.min).speed(0.5))
                    .on_hover_text(units);
                ui.label("to");
                ui.add(egui::DragValue::new(&mut m.range.max).speed(0.5))
                    .on_hover_text(units);
                ui.label("soft");
                ui.add(
                    egui::DragValue::new(&mut m.soft)
                        .speed(0.25)
                        .range(0.0..=1.0e9),
                )
                .on_hover_text("The weight falls to 0 over this much beyond the range");
            });
            if m.range.min > m.range.max {
                std::mem::swap(&mut m.range.min, &mut m.range.max);
            }
        }
    }
    if edited != *mask {
        *mask = edited;
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_maps_to_its_place_and_an_image_keeps_its_path() {
        let image = MaskSource::Image("mask.png".into());
        for i in 0..SOURCES.len() {
            assert_eq!(source_index(&source_of(i, &image)), i);
            let range = default_range(i);
            assert!(range.min < range.max, "{i}");
        }
        assert_eq!(source_of(4, &image), image);
        let painted = source_of(5, &MaskSource::Height);
        assert_eq!(
            source_of(5, &painted),
            painted,
            "a painted mask keeps its hash"
        );
        assert_eq!(
            source_of(4, &MaskSource::Height),
            MaskSource::Image(String::new())
        );
    }
}
