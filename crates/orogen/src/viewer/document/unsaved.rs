//! Nothing lost on close: the window title marks unsaved edits, and
//! closing the window while the recipe has unsaved edits asks first
//! (save, close without saving, or cancel). The question itself is drawn
//! by the panels (`panels/save_prompt.rs`); without panels the window
//! closes at once, as there is nothing to edit.

use super::{EditedRecipe, RecipeSource};
use crate::viewer::schedule::ViewerSystems;
use bevy::prelude::*;
use bevy::window::{
    ClosingWindow, ExitSystems, PrimaryWindow, RequestRedraw, WindowCloseRequested,
};
use orogen_core::Recipe;

pub struct UnsavedPlugin;

impl Plugin for UnsavedPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SavePrompt>()
            .add_systems(Update, show_unsaved_in_title.in_set(ViewerSystems::Edit))
            .add_systems(Last, guard_close.before(ExitSystems));
    }
}

/// What the save prompt is asking, if anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptKind {
    /// Ctrl+S on a recipe that has no file yet: where to save it.
    SaveAs,
    /// The window was asked to close with unsaved edits.
    UnsavedOnClose,
}

/// The save prompt's state, shared by the close guard and the panels.
#[derive(Resource, Debug, Default)]
pub struct SavePrompt {
    pub kind: Option<PromptKind>,
    /// The file the prompt saves to, as typed.
    pub path: String,
    /// Why the last save failed.
    pub error: Option<String>,
    /// Set by the prompt: close the window on the next frame.
    pub close_now: bool,
    /// Whether something draws the prompt (the panels); without it the
    /// window closes when asked.
    pub drawn: bool,
    /// Give the path field the keyboard on the prompt's next frame.
    pub focus_path: bool,
}

/// Whether `recipe` differs from what its source last loaded or saved.
pub fn has_unsaved_edits(recipe: &Recipe, source: &RecipeSource) -> bool {
    source.saved.as_ref() != Some(recipe)
}

/// The window title: the recipe's file name, and whether it has unsaved
/// edits.
pub fn window_title(source: &RecipeSource, unsaved: bool) -> String {
    let name = source
        .file
        .as_ref()
        .and_then(|file| file.file_name())
        .map(|name| format!(" — {}", name.to_string_lossy()))
        .unwrap_or_default();
    let mark = if unsaved { " (unsaved changes)" } else { "" };
    format!("orogen{name}{mark}")
}

fn show_unsaved_in_title(
    recipe: Res<EditedRecipe>,
    source: Res<RecipeSource>,
    mut window: Query<&mut Window, With<PrimaryWindow>>,
) {
    if !(recipe.is_changed() || source.is_changed()) {
        return;
    }
    let title = window_title(&source, has_unsaved_edits(&recipe.0, &source));
    for mut window in window.iter_mut() {
        if window.title != title {
            window.title = title.clone();
        }
    }
}

/// What a close request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseDecision {
    Close,
    Ask,
}

pub fn decide_close(unsaved: bool, prompt_drawn: bool) -> CloseDecision {
    if unsaved && prompt_drawn {
        CloseDecision::Ask
    } else {
        CloseDecision::Close
    }
}

/// Bevy's own close handling, with the unsaved-edits question in front:
/// a window marked closing is despawned a frame later (then the app
/// exits when no window is left). Each step asks for one more frame: an
/// unfocused window only redraws on input, and the prompt must show (and
/// the window close) without waiting for the mouse to move.
fn guard_close(
    mut commands: Commands,
    mut redraw: MessageWriter<RequestRedraw>,
    mut requests: MessageReader<WindowCloseRequested>,
    closing: Query<Entity, With<ClosingWindow>>,
    primary: Query<Entity, With<PrimaryWindow>>,
    (recipe, source): (Res<EditedRecipe>, Res<RecipeSource>),
    mut prompt: ResMut<SavePrompt>,
) {
    for window in closing.iter() {
        commands.entity(window).despawn();
    }
    if prompt.close_now {
        prompt.close_now = false;
        prompt.kind = None;
        for window in primary.iter() {
            commands.entity(window).try_insert(ClosingWindow);
        }
        redraw.write(RequestRedraw);
    }
    for request in requests.read() {
        match decide_close(has_unsaved_edits(&recipe.0, &source), prompt.drawn) {
            CloseDecision::Close => {
                commands.entity(request.window).try_insert(ClosingWindow);
            }
            CloseDecision::Ask => {
                prompt.kind = Some(PromptKind::UnsavedOnClose);
                prompt.error = None;
                // Filled in from the recipe's file when drawn.
                prompt.path.clear();
            }
        }
        redraw.write(RequestRedraw);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The default preset with `seed`: recipes that differ only there.
    pub(crate) fn recipe(seed: u64) -> Recipe {
        let mut recipe = orogen_core::presets::load("default")
            .expect("the default preset exists")
            .expect("the default preset loads");
        recipe.seed = seed;
        recipe
    }

    #[test]
    fn edits_away_from_the_saved_recipe_are_unsaved_and_undoing_them_is_not() {
        let source = RecipeSource {
            saved: Some(recipe(1)),
            ..RecipeSource::default()
        };
        assert!(!has_unsaved_edits(&recipe(1), &source));
        assert!(has_unsaved_edits(&recipe(2), &source));
        // Nothing loaded or saved yet: any recipe is unsaved.
        assert!(has_unsaved_edits(&recipe(1), &RecipeSource::default()));
    }

    #[test]
    fn the_title_names_the_file_and_marks_unsaved_edits() {
        let mut source = RecipeSource::default();
        assert_eq!(window_title(&source, false), "orogen");
        assert_eq!(window_title(&source, true), "orogen (unsaved changes)");
        source.file = Some(PathBuf::from("worlds/alps.ron"));
        assert_eq!(window_title(&source, false), "orogen — alps.ron");
        assert_eq!(
            window_title(&source, true),
            "orogen — alps.ron (unsaved changes)"
        );
    }

    #[test]
    fn closing_asks_only_with_unsaved_edits_and_a_prompt_to_ask_with() {
        assert_eq!(decide_close(true, true), CloseDecision::Ask);
        assert_eq!(decide_close(false, true), CloseDecision::Close);
        assert_eq!(decide_close(true, false), CloseDecision::Close);
    }

    /// The close guard in a headless app: a close request with unsaved
    /// edits opens the prompt and keeps the window; the prompt's "close"
    /// then closes it; without unsaved edits a request closes at once.
    #[test]
    fn a_close_request_with_unsaved_edits_keeps_the_window_until_answered() {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .add_message::<WindowCloseRequested>()
            .add_message::<bevy::window::WindowClosed>()
            .add_message::<RequestRedraw>()
            .insert_resource(EditedRecipe(recipe(2)))
            .insert_resource(RecipeSource {
                saved: Some(recipe(1)),
                ..RecipeSource::default()
            })
            .init_resource::<SavePrompt>()
            .add_systems(Last, guard_close);
        app.world_mut().resource_mut::<SavePrompt>().drawn = true;
        let window = app
            .world_mut()
            .spawn((Window::default(), PrimaryWindow))
            .id();
        let windows = |app: &mut App| {
            app.world_mut()
                .query_filtered::<Entity, With<Window>>()
                .iter(app.world())
                .count()
        };

        app.world_mut()
            .write_message(WindowCloseRequested { window });
        app.update();
        app.update();
        assert_eq!(windows(&mut app), 1, "the window stays while asking");
        assert_eq!(
            app.world().resource::<SavePrompt>().kind,
            Some(PromptKind::UnsavedOnClose)
        );

        app.world_mut().resource_mut::<SavePrompt>().close_now = true;
        app.update();
        app.update();
        assert_eq!(windows(&mut app), 0, "closed once answered");
        assert_eq!(app.world().resource::<SavePrompt>().kind, None);

        // Saved: a request closes at once.
        let window = app
            .world_mut()
            .spawn((Window::default(), PrimaryWindow))
            .id();
        app.world_mut().resource_mut::<EditedRecipe>().0 = recipe(1);
        app.world_mut()
            .write_message(WindowCloseRequested { window });
        app.update();
        app.update();
        assert_eq!(windows(&mut app), 0);
    }
}
