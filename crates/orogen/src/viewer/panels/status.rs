//! Status bar: a spinner while a job runs, what each stage took, the
//! mesh and texture sizes (saying when the mesh is decimated), errors.

use super::{Document, ERROR_RED, UiContext};
use crate::viewer::render::gpu_terrain::LodStats;
use crate::viewer::settings::DisplayPath;
use bevy_egui::egui;
use orogen_core::Stage;

pub fn status_bar(ui: &mut egui::Ui, doc: &Document, info: &UiContext) {
    ui.horizontal_wrapped(|ui| {
        if info.busy {
            ui.spinner();
            match info.target_side {
                Some(target) => {
                    ui.label(format!("refining to {target}²… {:.1} s", info.busy_seconds))
                }
                None => ui.label(format!("generating… {:.1} s", info.busy_seconds)),
            };
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
        let timing = match info.display_path {
            DisplayPath::Gpu => format!(
                "GPU data {:.1} ms · previews {:.0} ms",
                generated.mesh_millis, generated.texture_millis
            ),
            DisplayPath::Cpu(_) => format!(
                "mesh {:.0} ms · texture {:.0} ms",
                generated.mesh_millis, generated.texture_millis
            ),
        };
        ui.label(egui::RichText::new(timing).small());
        if info.display_path.is_gpu() {
            ui.label(egui::RichText::new(lod_text(&info.lod)).small())
                .on_hover_text(
                    "Vertices the GPU terrain draws this frame: full resolution near the \
                     camera, coarser with distance (CDLOD patches, after frustum culling)",
                );
        }
        // The map facts start a row of their own, so the decimation notice
        // is never split across two lines between the stage timings.
        ui.end_row();
        if let Some(map) = &generated.shown_map {
            ui.label(
                egui::RichText::new(format!(
                    "{} · heights {:.1} to {:.1} · {} {}×{}",
                    on_screen_text(
                        (map.width(), map.height()),
                        (doc.recipe.width, doc.recipe.height)
                    ),
                    generated.shown_min,
                    generated.shown_max,
                    if info.display_path.is_gpu() {
                        "tiles on a texel grid of"
                    } else {
                        "texture"
                    },
                    generated.texture_side.0,
                    generated.texture_side.1
                ))
                .small(),
            );
            if generated.decimated {
                ui.separator();
                ui.colored_label(
                    NOTICE_AMBER,
                    egui::RichText::new(decimation_notice(
                        (map.width(), map.height()),
                        (generated.mesh_columns, generated.mesh_rows),
                    ))
                    .small(),
                )
                .on_hover_text(
                    "Big maps are drawn with fewer vertices to stay interactive; \
                     the heightmap, its statistics and every export use all cells",
                );
            }
        }
        if let DisplayPath::Cpu(reason) = info.display_path {
            ui.separator();
            ui.colored_label(
                NOTICE_AMBER,
                egui::RichText::new(format!("CPU terrain: {reason}")).small(),
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

/// The GPU terrain's load this frame, e.g. "42 patches · 45.7 k vertices".
pub fn lod_text(lod: &LodStats) -> String {
    let vertices = lod.vertices as f64;
    let amount = if vertices >= 1e6 {
        format!("{:.2} M", vertices / 1e6)
    } else {
        format!("{:.1} k", vertices / 1e3)
    };
    format!("{} patches · {amount} vertices drawn", lod.patches)
}

/// Which size is on screen, and the export size when that differs.
pub fn on_screen_text(shown: (usize, usize), export: (u32, u32)) -> String {
    if shown == (export.0 as usize, export.1 as usize) {
        format!("on screen {}×{} (the export size)", shown.0, shown.1)
    } else {
        format!(
            "on screen {}×{} preview of the {}×{} export",
            shown.0, shown.1, export.0, export.1
        )
    }
}

/// Amber for notices that are not errors.
const NOTICE_AMBER: egui::Color32 = egui::Color32::from_rgb(235, 185, 80);

/// What the status bar says when the 3D mesh has fewer vertices than the
/// map has cells.
pub fn decimation_notice(map: (usize, usize), mesh: (usize, usize)) -> String {
    format!(
        "3D view decimated: mesh {}×{} of the map's {}×{} cells (exports keep full size)",
        mesh.0, mesh.1, map.0, map.1
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_screen_text_says_preview_or_export_size() {
        assert_eq!(
            on_screen_text((257, 257), (4097, 4097)),
            "on screen 257×257 preview of the 4097×4097 export"
        );
        assert!(on_screen_text((513, 513), (513, 513)).contains("the export size"));
    }

    #[test]
    fn the_lod_line_counts_patches_and_vertices() {
        let small = LodStats {
            patches: 28,
            vertices: 24_948,
            selected: 40,
        };
        assert_eq!(lod_text(&small), "28 patches · 24.9 k vertices drawn");
        let large = LodStats {
            patches: 1500,
            vertices: 1_633_500,
            selected: 2000,
        };
        assert_eq!(lod_text(&large), "1500 patches · 1.63 M vertices drawn");
    }

    #[test]
    fn decimation_notice_names_both_sizes_and_exports() {
        let text = decimation_notice((2049, 2049), (1025, 1025));
        assert!(text.contains("decimated"));
        assert!(text.contains("1025×1025") && text.contains("2049×2049"));
        assert!(text.contains("exports keep full size"));
    }
}
