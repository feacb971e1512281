//! Export panel: the CLI's export (RAW16 with byte order and flip-y,
//! 16-bit PNG, preview, recipe, JSON sidecar, optionally the splat texture,
//! weight maps and derived maps) into a typed folder. Rendering and writing run on the
//! IO task pool so the UI never stalls.

use super::{Document, ERROR_RED, OK_GREEN, UiContext, WARNING_AMBER};
use super::{Panel, PanelContext};
use crate::viewer::display_data::flow::OVERLAY_MAPS;
use crate::viewer::handoff::{Generated, ShownBands};
use bevy::tasks::{IoTaskPool, Task, futures::check_ready};
use bevy_egui::egui;
use orogen_core::Recipe;
use orogen_core::bake::{ExportReport, ExportRequest, export_map};
use orogen_core::io::engines::{Engine, ImportSettings};
use orogen_core::io::height_files::{ByteOrder, ExportOptions, HeightFormat, HeightFormats};
use orogen_core::params::Choice;
use orogen_core::pipeline::{RunHooks, run_once};
use std::path::PathBuf;

pub struct ExportPanel {
    folder: String,
    options: ExportOptions,
    /// Also write texture.png, splat.png and splat_<i>.png.
    texture: bool,
    /// Texture side in texels (`None` = the map's own size).
    texture_side: Option<u32>,
    /// Which whole-map height files to write, in `HeightFormat::ALL` order.
    formats: [bool; 4],
    /// The engine profile, if any (it sets byte order, rows and files).
    engine: Option<Engine>,
    /// Which derived maps to write, in `OVERLAY_MAPS` order.
    maps: [bool; OVERLAY_MAPS.len()],
    task: Option<Task<Result<ExportReport, String>>>,
    /// The last export's report, or why it failed.
    message: Option<Result<ExportReport, String>>,
}

impl Default for ExportPanel {
    fn default() -> Self {
        Self {
            folder: "orogen-export".into(),
            options: ExportOptions::default(),
            texture: true,
            texture_side: None,
            formats: HeightFormat::ALL.map(|f| HeightFormats::default().contains(f)),
            engine: None,
            maps: [false; OVERLAY_MAPS.len()],
            task: None,
            message: None,
        }
    }
}

impl ExportPanel {
    fn byte_order_ui(&mut self, ui: &mut egui::Ui) {
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
    }

    fn finish_ui(&mut self, ui: &mut egui::Ui, doc: &Document, info: &UiContext) {
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.texture, "texture + splat maps");
            if self.texture {
                let mut custom = self.texture_side.is_some();
                ui.checkbox(&mut custom, "size")
                    .on_hover_text("Off = one texel per map cell");
                match &mut self.texture_side {
                    Some(side) if custom => {
                        ui.add(egui::DragValue::new(side).range(16..=16384).suffix(" px"));
                    }
                    _ => {
                        self.texture_side = custom.then_some(2048);
                        ui.weak("map size");
                    }
                }
            }
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("maps").on_hover_text(
                "Maps derived from the terrain, each a grey PNG of the map's size \
                 (heightmap.json says what their pixels mean)",
            );
            for (on, kind) in self.maps.iter_mut().zip(OVERLAY_MAPS) {
                ui.checkbox(on, kind.name())
                    .on_hover_text(kind.meaning().meaning);
            }
        });
        ui.weak("Writes the chosen height files, a preview, recipe.ron and heightmap.json.");
        let ready = info.generated.output.is_some() && !info.busy && self.task.is_none();
        let button = ui
            .add_enabled(ready, egui::Button::new("Export"))
            .on_disabled_hover_text("Wait for the terrain to finish generating");
        if button.clicked() {
            self.start(
                info.generated,
                info.bands,
                &doc.recipe,
                doc.source.base_dir.clone(),
            );
        }
        if self.task.is_some() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("exporting at the full export size…");
            });
        }
        match &self.message {
            Some(Ok(report)) => {
                ui.colored_label(OK_GREEN, report.summary());
                for line in report.engine_import.iter().flat_map(ImportSettings::lines) {
                    ui.label(line);
                }
                for warning in &report.warnings {
                    ui.colored_label(WARNING_AMBER, format!("warning: {warning}"));
                }
            }
            Some(Err(text)) => {
                ui.colored_label(ERROR_RED, text);
            }
            None => {}
        }
    }

    /// Exports `recipe` at its full size: the map on screen when it is
    /// that size, otherwise generated afresh in the background (the view
    /// may show a preview).
    fn start(
        &mut self,
        generated: &Generated,
        bands: &ShownBands,
        recipe: &Recipe,
        base_dir: Option<PathBuf>,
    ) {
        let on_screen = match (&generated.output, bands.shown_recipe(generated)) {
            (Some(output), Some(shown)) if shown == *recipe => Some(output.map.clone()),
            _ => None,
        };
        let folder = self.folder.trim();
        if folder.is_empty() {
            self.message = Some(Err("type a folder to export into".into()));
            return;
        }
        let dir = PathBuf::from(folder);
        let recipe = recipe.clone();
        let (width, height) = (recipe.width as usize, recipe.height as usize);
        let chosen: Vec<HeightFormat> = HeightFormat::ALL
            .into_iter()
            .zip(self.formats)
            .filter_map(|(format, on)| on.then_some(format))
            .collect();
        if chosen.is_empty() && self.engine.is_none() {
            self.message = Some(Err("choose at least one height file format".into()));
            return;
        }
        let request = ExportRequest {
            options: self.options.clone(),
            formats: HeightFormats::of(&chosen),
            texture: self.texture.then(|| {
                let side = self.texture_side.map(|s| s as usize);
                side.map_or((width, height), |s| (s, s))
            }),
            maps: OVERLAY_MAPS
                .into_iter()
                .zip(self.maps)
                .filter_map(|(kind, on)| on.then_some(kind))
                .collect(),
            ..ExportRequest::default()
        };
        let request = match self.engine {
            Some(engine) => match request.for_engine(engine, width, height) {
                Ok(request) => request,
                Err(error) => {
                    self.message = Some(Err(error.to_string()));
                    return;
                }
            },
            None => request,
        };
        self.message = None;
        // The same flow as `orogen generate`: the same files, the same
        // summary line, and its warnings shown under it.
        self.task = Some(IoTaskPool::get().spawn(async move {
            let map = match on_screen {
                Some(map) => map,
                None => {
                    run_once(&recipe, base_dir.clone(), RunHooks::default())
                        .map_err(|e| e.to_string())?
                        .map
                }
            };
            export_map(&map, &recipe, base_dir.as_deref(), &request, &dir)
                .map_err(|e| e.to_string())
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

impl Panel for ExportPanel {
    fn title(&self) -> &'static str {
        "Export"
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        let doc = &*cx.doc;
        let info = &*cx.info;
        self.collect_finished();
        ui.horizontal(|ui| {
            ui.label("folder");
            ui.add(egui::TextEdit::singleline(&mut self.folder).desired_width(220.0))
                .on_hover_text("Created if missing; files are replaced atomically");
        });
        ui.horizontal(|ui| {
            ui.label("engine");
            let label = self.engine.map_or("none", Engine::title);
            egui::ComboBox::from_id_salt("engine")
                .selected_text(label)
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.engine, None, "none");
                    for &engine in Engine::ALL {
                        ui.selectable_value(&mut self.engine, Some(engine), engine.title());
                    }
                })
                .response
                .on_hover_text(
                    "Export for an engine's terrain importer: it sets byte and row order, files and texture size; the map must be a size the engine imports",
                );
        });
        let profile_free = self.engine.is_none();
        ui.add_enabled_ui(profile_free, |ui| {
            ui.horizontal(|ui| {
                for (on, format) in self.formats.iter_mut().zip(HeightFormat::ALL) {
                    ui.checkbox(on, format.name()).on_hover_text(format.units());
                }
            });
        });
        ui.add_enabled_ui(profile_free, |ui| self.byte_order_ui(ui));
        self.finish_ui(ui, doc, info);
    }
}
