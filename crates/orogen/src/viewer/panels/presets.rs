//! Presets panel: load a shipped preset, open or save a recipe file.

use super::{Document, ERROR_RED, OK_GREEN, WARNING_AMBER};
use super::{Panel, PanelContext};
use crate::viewer::document::RecipeSource;
use crate::viewer::document::unsaved::has_unsaved_edits;
use bevy_egui::egui;
use orogen_core::bake::load_recipe;
use orogen_core::io::atomic::write_atomic;
use orogen_core::recipe::painted_files::save_beside;
use orogen_core::{Recipe, presets};
use std::path::{Path, PathBuf};

#[derive(Default)]
pub struct PresetsPanel {
    preset: usize,
    path: String,
    message: Option<Result<String, String>>,
    /// A preset or file to open once the user agrees to drop unsaved edits.
    pending_open: Option<String>,
}

impl PresetsPanel {
    /// The file path typed in the panel (the save prompt offers it).
    pub fn typed_path(&self) -> &str {
        &self.path
    }

    pub fn show_message(&mut self, message: Result<String, String>) {
        self.message = Some(message);
    }

    /// Opens a preset name or a recipe file; a typed preset name is not a
    /// file to save back to.
    fn open(&mut self, name: &str, doc: &mut Document) -> bool {
        let file = RecipeSource::file_of(name);
        let result = load_named(name, doc, file);
        let opened = result.is_ok();
        self.message = Some(result);
        opened
    }
}

impl Panel for PresetsPanel {
    fn title(&self) -> &'static str {
        "Presets and files"
    }

    /// Draws the panel; opening another recipe sets `cx.opened` (a new
    /// document: the undo history starts over).
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        let doc = &mut *cx.doc;
        let mut open_request = None;
        let names: Vec<&'static str> = presets::names().collect();
        ui.horizontal(|ui| {
            let current = names.get(self.preset).copied().unwrap_or("default");
            egui::ComboBox::from_id_salt("preset-choice")
                .selected_text(current)
                .width(210.0)
                .show_ui(ui, |ui| {
                    for (i, name) in names.iter().enumerate() {
                        ui.selectable_value(&mut self.preset, i, *name);
                    }
                });
            if ui.button("Load").clicked() {
                open_request = Some(current.to_string());
            }
        });
        ui.horizontal(|ui| {
            ui.label("file");
            ui.add(
                egui::TextEdit::singleline(&mut self.path)
                    .hint_text("path/to/recipe.ron")
                    .desired_width(220.0),
            );
        });
        if self.path.is_empty()
            && let Some(file) = &doc.source.file
        {
            self.path = file.display().to_string();
        }
        ui.horizontal(|ui| {
            let has_path = !self.path.trim().is_empty();
            if ui
                .add_enabled(has_path, egui::Button::new("Open"))
                .clicked()
            {
                open_request = Some(self.path.trim().to_string());
            }
            if ui
                .add_enabled(has_path, egui::Button::new("Save"))
                .clicked()
            {
                let path = PathBuf::from(self.path.trim());
                self.message = Some(save_as(doc, &path));
            }
        });
        if let Some(name) = open_request {
            if has_unsaved_edits(&doc.recipe, &doc.source) {
                self.pending_open = Some(name);
            } else {
                cx.opened |= self.open(&name, doc);
                return;
            }
        }
        if let Some(name) = self.pending_open.clone() {
            ui.colored_label(
                WARNING_AMBER,
                format!("The recipe has unsaved edits. Open {name} and drop them?"),
            );
            let mut answer = None;
            ui.horizontal(|ui| {
                if ui.button("Open and drop edits").clicked() {
                    answer = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(false);
                }
            });
            match answer {
                Some(true) => {
                    self.pending_open = None;
                    cx.opened |= self.open(&name, doc);
                    return;
                }
                Some(false) => self.pending_open = None,
                None => {}
            }
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
}

/// Loads a preset name or recipe file into the document.
fn load_named(name: &str, doc: &mut Document, file: Option<PathBuf>) -> Result<String, String> {
    let (recipe, base_dir) = load_recipe(name).map_err(|e| e.to_string())?;
    let message = match recipe.conversion_note() {
        Some(note) => format!("loaded {name}: {note}"),
        None => format!("loaded {name}"),
    };
    doc.source = RecipeSource {
        file,
        base_dir,
        saved: Some(recipe.clone()),
    };
    doc.recipe = recipe;
    doc.stage = None;
    Ok(message)
}

/// Saves the document's recipe to `path`, which becomes its file; the
/// recipe counts as saved from then on. Painted masks are written beside
/// it and named in it.
pub fn save_as(doc: &mut Document, path: &Path) -> Result<String, String> {
    let saved = save(&doc.recipe, path, doc.source.base_dir.as_deref())?;
    doc.source.file = Some(path.to_path_buf());
    doc.source.saved = Some(saved.clone());
    doc.recipe = saved;
    Ok(format!("saved {}", path.display()))
}

/// Writes the painted masks beside `path`, then the recipe naming them;
/// returns the recipe as written.
fn save(recipe: &Recipe, path: &Path, base_dir: Option<&Path>) -> Result<Recipe, String> {
    let saved = save_beside(recipe, path, base_dir).map_err(|e| e.to_string())?;
    let text = saved.to_ron().map_err(|e| e.to_string())?;
    write_atomic(path, text.as_bytes())
        .map_err(|e| format!("cannot save {}: {e}", path.display()))?;
    Ok(saved)
}
