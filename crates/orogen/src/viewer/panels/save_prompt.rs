//! The save prompt: Ctrl+S saves to the recipe's file (or asks where,
//! when it has none yet), and closing the window with unsaved edits asks
//! whether to save them first.

use super::presets::save_as;
use super::{Document, ERROR_RED, WARNING_AMBER};
use crate::viewer::document::RecipeSource;
use crate::viewer::document::recovery::{RecoveredRecipe, Recovery};
use crate::viewer::document::unsaved::{PromptKind, SavePrompt};
use bevy_egui::egui;
use orogen_core::bake::load_recipe;
use std::path::{Path, PathBuf};

/// Where a recipe without a file is offered to be saved.
const DEFAULT_FILE: &str = "recipe.ron";

/// Ctrl+S (Cmd+S on macOS): save to the recipe's file, or open the prompt
/// to choose one. Returns what a save said, for the Presets panel.
pub fn save_shortcut(
    ctx: &egui::Context,
    prompt: &mut SavePrompt,
    doc: &mut Document,
    typed_path: &str,
) -> Option<Result<String, String>> {
    let shortcut = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::S);
    // An open prompt has its own Save button (and a close must stay asked).
    if prompt.kind.is_some() || !ctx.input_mut(|input| input.consume_shortcut(&shortcut)) {
        return None;
    }
    match doc.source.file.clone() {
        Some(file) => match save_as(doc, &file) {
            Ok(message) => Some(Ok(message)),
            // Shown where it is seen: in the prompt, to retry elsewhere.
            Err(error) => {
                open(prompt, PromptKind::SaveAs, doc, typed_path);
                prompt.error = Some(error);
                None
            }
        },
        None => {
            open(prompt, PromptKind::SaveAs, doc, typed_path);
            None
        }
    }
}

/// Opens the prompt with the path field filled in: the recipe's file,
/// else the path typed in the Presets panel, else `recipe.ron`.
pub fn open(prompt: &mut SavePrompt, kind: PromptKind, doc: &Document, typed_path: &str) {
    prompt.kind = Some(kind);
    prompt.error = None;
    prompt.path = suggested_path(doc.source.file.as_deref(), typed_path);
    prompt.focus_path = true;
}

pub fn suggested_path(file: Option<&Path>, typed_path: &str) -> String {
    match file {
        Some(file) => file.display().to_string(),
        None if !typed_path.trim().is_empty() => typed_path.trim().to_string(),
        None => DEFAULT_FILE.to_string(),
    }
}

/// Draws the prompt while it is open. Saving closes the window too when
/// the prompt came from a close request.
pub fn show(ctx: &egui::Context, prompt: &mut SavePrompt, doc: &mut Document) {
    let Some(kind) = prompt.kind else {
        return;
    };
    if prompt.path.is_empty() {
        prompt.path = suggested_path(doc.source.file.as_deref(), "");
        prompt.focus_path = true;
    }
    let mut cancel = false;
    let modal = egui::Modal::new(egui::Id::new("orogen-save-prompt")).show(ctx, |ui| {
        ui.set_width(420.0);
        match kind {
            PromptKind::UnsavedOnClose => {
                ui.heading("Unsaved changes");
                ui.label("The recipe has edits that are not saved. Save them before closing?");
            }
            PromptKind::SaveAs => {
                ui.heading("Save the recipe");
            }
        }
        let field = ui
            .horizontal(|ui| {
                ui.label("file");
                ui.add(
                    egui::TextEdit::singleline(&mut prompt.path)
                        .hint_text("path/to/recipe.ron")
                        .desired_width(340.0),
                )
                .on_hover_text(
                    "A recipe file (RON); relative paths start in the folder orogen runs in",
                )
            })
            .inner;
        if std::mem::take(&mut prompt.focus_path) {
            field.request_focus();
        }
        let enter = field.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter));
        let path = PathBuf::from(prompt.path.trim());
        if replaces_another_file(&path, doc.source.file.as_deref()) {
            ui.colored_label(WARNING_AMBER, "this file exists and will be replaced");
        }
        if let Some(error) = &prompt.error {
            ui.colored_label(ERROR_RED, error);
        }
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            let save_label = match kind {
                PromptKind::UnsavedOnClose => "Save and close",
                PromptKind::SaveAs => "Save",
            };
            let can_save = !prompt.path.trim().is_empty();
            let clicked = ui
                .add_enabled(can_save, egui::Button::new(save_label))
                .clicked();
            if can_save && (clicked || enter) {
                match save_as(doc, &path) {
                    Ok(_) => {
                        prompt.error = None;
                        match kind {
                            PromptKind::UnsavedOnClose => prompt.close_now = true,
                            PromptKind::SaveAs => close(prompt),
                        }
                    }
                    Err(error) => prompt.error = Some(error),
                }
            }
            if kind == PromptKind::UnsavedOnClose
                && ui
                    .button("Close without saving")
                    .on_hover_text("The edits since the last save are lost")
                    .clicked()
            {
                prompt.close_now = true;
            }
            if ui.button("Cancel").clicked() {
                cancel = true;
            }
        });
    });
    // Escape or a click beside the prompt cancels it.
    if cancel || (modal.should_close() && !prompt.close_now) {
        close(prompt);
    }
}

/// Closes the prompt; the next one fills its path in afresh.
fn close(prompt: &mut SavePrompt) {
    prompt.kind = None;
    prompt.error = None;
    prompt.path.clear();
}

/// Offers the recipe a crashed viewer left: restore it into the document
/// (still unsaved), or discard it. Returns whether it was restored.
pub fn show_recovery_offer(
    ctx: &egui::Context,
    recovery: &mut Recovery,
    doc: &mut Document,
) -> bool {
    let Some(offer) = recovery.offered.as_ref().map(|o| o.recovered.clone()) else {
        return false;
    };
    let mut answered = false;
    let mut restored = false;
    egui::Modal::new(egui::Id::new("orogen-recovery")).show(ctx, |ui| {
        ui.set_width(420.0);
        ui.heading("Restore unsaved edits?");
        ui.label("orogen stopped last time before these edits were saved.");
        let from = match &offer.file {
            Some(file) => format!("recipe: {}", file.display()),
            None => "a recipe never saved to a file".to_string(),
        };
        ui.label(from);
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            if ui
                .button("Restore")
                .on_hover_text("Opens the kept recipe instead of the one now open")
                .clicked()
            {
                restore(&offer, doc);
                answered = true;
                restored = true;
            }
            if ui
                .button("Discard")
                .on_hover_text("The kept edits are deleted")
                .clicked()
            {
                answered = true;
            }
        });
    });
    if answered {
        recovery.settle_offer(restored);
    }
    restored
}

/// Puts a recovered recipe in the document. It stays unsaved: its file (if
/// it still loads) is what counts as saved.
fn restore(offer: &RecoveredRecipe, doc: &mut Document) {
    let saved = offer
        .file
        .as_ref()
        .and_then(|file| load_recipe(&file.display().to_string()).ok())
        .map(|(recipe, _)| recipe);
    doc.recipe = offer.recipe.clone();
    doc.stage = None;
    doc.source = RecipeSource {
        file: offer.file.clone(),
        base_dir: offer.base_dir.clone(),
        saved,
    };
}

/// Whether saving to `path` overwrites a file other than the recipe's own.
pub fn replaces_another_file(path: &Path, own_file: Option<&Path>) -> bool {
    path.is_file() && own_file != Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_suggests_the_recipe_file_then_the_typed_path_then_a_default() {
        assert_eq!(
            suggested_path(Some(Path::new("a/alps.ron")), "b.ron"),
            "a/alps.ron"
        );
        assert_eq!(suggested_path(None, "  b.ron "), "b.ron");
        assert_eq!(suggested_path(None, " "), DEFAULT_FILE);
    }

    #[test]
    fn only_saving_over_another_existing_file_warns() {
        let dir = tempfile::tempdir().expect("temp dir");
        let existing = dir.path().join("other.ron");
        std::fs::write(&existing, "()").expect("written");
        let own = dir.path().join("own.ron");
        std::fs::write(&own, "()").expect("written");
        assert!(replaces_another_file(&existing, Some(&own)));
        assert!(replaces_another_file(&existing, None));
        assert!(!replaces_another_file(&own, Some(&own)));
        assert!(!replaces_another_file(&dir.path().join("new.ron"), None));
    }
}
