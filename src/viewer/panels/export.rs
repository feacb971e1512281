//! Export panel: the CLI's heightmap export (RAW16 with byte order and
//! flip-y, 16-bit PNG, preview, recipe, JSON sidecar) into a typed
//! folder. Writing runs on the IO task pool so the UI never stalls.

use super::super::state::Generated;
use super::{Document, ERROR_RED, OK_GREEN, UiContext};
use crate::terrain::export::{ByteOrder, ExportOptions, add_sidecar, heightmap_bundle};
use crate::terrain::params::Choice;
use bevy::tasks::{IoTaskPool, Task, futures::check_ready};
use bevy_egui::egui;
use std::path::PathBuf;

pub struct ExportPanel {
    folder: String,
    options: ExportOptions,
    task: Option<Task<Result<String, String>>>,
    message: Option<Result<String, String>>,
}

impl Default for ExportPanel {
    fn default() -> Self {
        Self {
            folder: "orogen-export".into(),
            options: ExportOptions::default(),
            task: None,
            message: None,
        }
    }
}

impl ExportPanel {
    pub fn ui(&mut self, ui: &mut egui::Ui, _doc: &Document, info: &UiContext) {
        self.collect_finished();
        ui.horizontal(|ui| {
            ui.label("folder");
            ui.add(egui::TextEdit::singleline(&mut self.folder).desired_width(220.0))
                .on_hover_text("Created if missing; files are replaced atomically");
        });
        ui.horizontal(|ui| {
            ui.label("r16 byte order");
            let current = self.options.byte_order;
            egui::ComboBox::from_id_salt("byte-order")
                .selected_text(current.label())
                .show_ui(ui, |ui| {
                    for &order in ByteOrder::ALL {
                        ui.selectable_value(&mut self.options.byte_order, order, order.label());
                    }
                });
        });
        ui.checkbox(&mut self.options.flip_y, "flip y (rows south first, Unity)");
        ui.weak("Writes heightmap.r16, heightmap.png (16-bit), a preview, recipe.ron and heightmap.json.");
        let ready = info.generated.output.is_some() && !info.busy && self.task.is_none();
        let button = ui
            .add_enabled(ready, egui::Button::new("Export"))
            .on_disabled_hover_text("Wait for the terrain to finish generating");
        if button.clicked() {
            self.start(info.generated);
        }
        if self.task.is_some() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("exporting…");
            });
        }
        match &self.message {
            Some(Ok(text)) => {
                ui.colored_label(OK_GREEN, text);
            }
            Some(Err(text)) => {
                ui.colored_label(ERROR_RED, text);
            }
            None => {}
        }
    }

    fn start(&mut self, generated: &Generated) {
        let (Some(output), Some(recipe)) = (&generated.output, &generated.recipe) else {
            self.message = Some(Err("nothing generated yet".into()));
            return;
        };
        let folder = self.folder.trim();
        if folder.is_empty() {
            self.message = Some(Err("type a folder to export into".into()));
            return;
        }
        let dir = PathBuf::from(folder);
        let map = output.map.clone();
        let recipe = recipe.clone();
        let tiles = generated
            .tiles
            .as_ref()
            .and_then(|t| serde_json::to_value(t).ok());
        let options = self.options.clone();
        self.message = None;
        self.task = Some(IoTaskPool::get().spawn(async move {
            let (mut bundle, range) = heightmap_bundle(&map, &recipe, &options)?;
            add_sidecar(&mut bundle, &map, &recipe, &options, range, tiles)?;
            let written = bundle.write_to(&dir)?;
            Ok(format!(
                "wrote {} files to {} ({}x{}, heights {:.2} to {:.2})",
                written.len(),
                dir.display(),
                map.width(),
                map.height(),
                range.min,
                range.max
            ))
        }));
    }

    fn collect_finished(&mut self) {
        if let Some(task) = self.task.as_mut()
            && let Some(result) = check_ready(task)
        {
            self.message = Some(result);
            self.task = None;
        }
    }
}
