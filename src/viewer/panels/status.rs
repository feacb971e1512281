//! Status bar: a spinner while a job runs, what each stage took, the
//! mesh and texture sizes (saying when the mesh is decimated), errors.

use super::{Document, ERROR_RED, UiContext};
use crate::terrain::Stage;
use bevy_egui::egui;

pub fn status_bar(ui: &mut egui::Ui, doc: &Document, info: &UiContext) {
    ui.horizontal_wrapped(|ui| {
        if info.busy {
            ui.spinner();
            ui.label(format!("generating… {:.1} s", info.busy_seconds));
            ui.separator();
        }
        let generated = info.generated;
        if let Some(error) = &generated.error {
            ui.colored_label(ERROR_RED, error);
            ui.separator();
        }
        let Some(output) = &generated.output else {
            if !info.busy {
                ui.label("no terrain yet");
            }
            return;
        };
        for (index, stage) in output.stages.iter().enumerate() {
            let name = Stage::label_of(stage.kind);
            let text = if !stage.enabled {
                format!("{index}. {name} off")
            } else if stage.reran {
                format!("{index}. {name} {:.1} ms", stage.millis)
            } else {
                format!("{index}. {name} cached")
            };
            let label = egui::RichText::new(text).small();
            let label = if generated.shown_stage == Some(index) {
                label.strong().underline()
            } else {
                label
            };
            ui.label(label);
        }
        ui.separator();
        ui.label(
            egui::RichText::new(format!(
                "mesh {:.0} ms · texture {:.0} ms",
                generated.mesh_millis, generated.texture_millis
            ))
            .small(),
        );
        ui.separator();
        if let Some(map) = &generated.shown_map {
            let mesh = if generated.decimated {
                format!(
                    "map {}×{}, display mesh decimated to {}×{} (exports keep full size)",
                    map.width(),
                    map.height(),
                    generated.mesh_columns,
                    generated.mesh_rows
                )
            } else {
                format!("map {}×{}", map.width(), map.height())
            };
            ui.label(egui::RichText::new(mesh).small());
            ui.label(
                egui::RichText::new(format!(
                    "heights {:.1} to {:.1} · texture {}×{}",
                    generated.shown_min,
                    generated.shown_max,
                    generated.texture_side.0,
                    generated.texture_side.1
                ))
                .small(),
            );
        }
        if let Some(stage) = generated.shown_stage {
            let label = doc
                .recipe
                .stages
                .get(stage)
                .map(|e| e.stage.label())
                .unwrap_or("?");
            ui.label(
                egui::RichText::new(format!("showing the map after stage {stage} ({label})"))
                    .strong(),
            );
        }
    });
}
