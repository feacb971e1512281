//! Undo / redo of recipe and tile edits (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y).
//!
//! Every change of `EditedRecipe` (tiles included) is recorded, except
//! that edits arriving within `coalesce` of the previous one join it: one
//! slider drag is one undo step, not sixty. A gesture (a brush stroke,
//! press to release) is one step however long it lasts, and the edit
//! after it is a step of its own however soon it comes.

use super::{EditedRecipe, RecipeSource};
use crate::viewer::schedule::ViewerSystems;
use crate::viewer::settings::UiFocus;
use bevy::prelude::*;
use orogen_core::Recipe;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

pub struct HistoryPlugin;

impl Plugin for HistoryPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<History>()
            .add_systems(Update, undo_redo_keys.in_set(ViewerSystems::Edit))
            .add_systems(PostUpdate, record_edits);
    }
}

/// One undoable state.
pub type Snapshot = Recipe;

#[derive(Resource, Debug)]
pub struct History {
    /// Oldest first; the oldest step is dropped at the limit.
    undo: VecDeque<Snapshot>,
    redo: Vec<Snapshot>,
    /// The state as last recorded (what the next edit is compared with).
    current: Option<Snapshot>,
    last_edit: Option<Instant>,
    /// Edits closer together than this merge into one step.
    pub coalesce: Duration,
    pub limit: usize,
    gesture: Gesture,
}

/// Where a gesture stands; `stepped`: its undo step is made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Gesture {
    #[default]
    None,
    Open {
        stepped: bool,
    },
    /// Ended, but its last edit may reach the history only in the next
    /// recording (the panels and the recording run in either order).
    Closing {
        stepped: bool,
    },
}

impl Default for History {
    fn default() -> Self {
        Self {
            undo: VecDeque::new(),
            redo: Vec::new(),
            current: None,
            last_edit: None,
            coalesce: Duration::from_millis(600),
            limit: 200,
            gesture: Gesture::None,
        }
    }
}

impl History {
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Undo and redo steps held (the undo stack never exceeds `limit`).
    pub fn depth(&self) -> (usize, usize) {
        (self.undo.len(), self.redo.len())
    }

    /// Records `now` as the current state if it differs from the last one.
    pub fn record(&mut self, now: Snapshot) {
        let Some(previous) = self.current.take() else {
            self.current = Some(now);
            return;
        };
        if previous == now {
            self.current = Some(previous);
            return;
        }
        let merge = match self.gesture {
            Gesture::Open { stepped } | Gesture::Closing { stepped } => stepped,
            Gesture::None => self
                .last_edit
                .is_some_and(|t| t.elapsed() < self.coalesce && !self.undo.is_empty()),
        };
        if let Gesture::Open { stepped } | Gesture::Closing { stepped } = &mut self.gesture {
            *stepped = true;
        }
        if !merge {
            self.undo.push_back(previous);
            if self.undo.len() > self.limit {
                self.undo.pop_front();
            }
        }
        self.redo.clear();
        self.current = Some(now);
        self.last_edit = Some(Instant::now());
    }

    /// A gesture begins: its edits make one new step.
    pub fn begin_gesture(&mut self) {
        self.gesture = Gesture::Open { stepped: false };
    }

    /// The gesture ended; its last edit still joins its step
    /// ([`History::settle_gesture`] closes it after the next recording).
    pub fn end_gesture(&mut self) {
        if let Gesture::Open { stepped } = self.gesture {
            self.gesture = Gesture::Closing { stepped };
        }
    }

    /// After a recording: an ended gesture is closed, so the next edit is
    /// a step of its own. True when one was.
    pub fn settle_gesture(&mut self) -> bool {
        if let Gesture::Closing { .. } = self.gesture {
            self.gesture = Gesture::None;
            self.last_edit = None;
            return true;
        }
        false
    }

    /// Every state the history can return to, and the current one.
    pub fn snapshots(&self) -> impl Iterator<Item = &Snapshot> {
        self.undo.iter().chain(&self.redo).chain(&self.current)
    }

    /// Another recipe was opened: a new document, with no steps to undo
    /// into the one before.
    pub fn start_over(&mut self, now: Snapshot) {
        self.undo.clear();
        self.redo.clear();
        self.current = Some(now);
        self.last_edit = None;
        self.gesture = Gesture::None;
    }

    /// The state to restore, if any; it becomes the current state.
    pub fn undo(&mut self) -> Option<Snapshot> {
        let previous = self.undo.pop_back()?;
        if let Some(current) = self.current.replace(previous.clone()) {
            self.redo.push(current);
        }
        self.last_edit = None;
        Some(previous)
    }

    pub fn redo(&mut self) -> Option<Snapshot> {
        let next = self.redo.pop()?;
        if let Some(current) = self.current.replace(next.clone()) {
            self.undo.push_back(current);
        }
        self.last_edit = None;
        Some(next)
    }
}

fn record_edits(
    recipe: Res<EditedRecipe>,
    mut history: ResMut<History>,
    source: Option<Res<RecipeSource>>,
) {
    // Nothing watches the history for changes; skip the bookkeeping.
    let history = history.bypass_change_detection();
    if recipe.is_changed() {
        history.record(recipe.0.clone());
    }
    if history.settle_gesture() {
        // A stroke published images under hashes no step keeps: they go.
        let saved = source.as_ref().and_then(|s| s.saved.as_ref());
        forget_unreferenced_masks(history.snapshots().chain(saved));
    }
}

/// Drops the painted images in memory that none of `recipes` names.
pub fn forget_unreferenced_masks<'a>(recipes: impl Iterator<Item = &'a Snapshot>) {
    use orogen_core::stages::mask::painted::{PaintedMask, forget_all_but};
    use orogen_core::stages::mask::{MaskSource, StageMask};
    let keep = recipes
        .flat_map(|recipe| &recipe.stages)
        .flat_map(|entry| entry.maps())
        .filter_map(|(_, map)| match map {
            StageMask {
                source: MaskSource::Painted(PaintedMask { hash, .. }),
                ..
            } => Some(hash.clone()),
            _ => None,
        })
        .collect();
    forget_all_but(&keep);
}

/// What the user asked of the history this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistoryAction {
    Undo,
    Redo,
}

pub fn apply_history_action(
    action: HistoryAction,
    history: &mut History,
    recipe: &mut ResMut<EditedRecipe>,
) {
    let snapshot = match action {
        HistoryAction::Undo => history.undo(),
        HistoryAction::Redo => history.redo(),
    };
    if let Some(snapshot) = snapshot {
        recipe.set_if_neq(EditedRecipe(snapshot));
    }
}

fn undo_redo_keys(
    keys: Res<ButtonInput<KeyCode>>,
    focus: Option<Res<UiFocus>>,
    mut history: ResMut<History>,
    mut recipe: ResMut<EditedRecipe>,
) {
    // A focused text field has its own undo.
    if focus.is_some_and(|f| f.keyboard) {
        return;
    }
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    let action = if ctrl && keys.just_pressed(KeyCode::KeyZ) {
        Some(if shift {
            HistoryAction::Redo
        } else {
            HistoryAction::Undo
        })
    } else if ctrl && keys.just_pressed(KeyCode::KeyY) {
        Some(HistoryAction::Redo)
    } else {
        None
    };
    if let Some(action) = action {
        apply_history_action(action, history.bypass_change_detection(), &mut recipe);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app_with_seed(seed: u64) -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .insert_resource(EditedRecipe(Recipe {
                seed,
                ..Recipe::default()
            }))
            .insert_resource(History {
                coalesce: Duration::ZERO,
                ..History::default()
            })
            .add_systems(PostUpdate, record_edits);
        app.update();
        app
    }

    fn seed(app: &App) -> u64 {
        app.world().resource::<EditedRecipe>().0.seed
    }

    fn act(app: &mut App, action: HistoryAction) {
        app.world_mut()
            .run_system_cached_with(
                |In(action): In<HistoryAction>,
                 mut history: ResMut<History>,
                 mut recipe: ResMut<EditedRecipe>| {
                    apply_history_action(action, &mut history, &mut recipe);
                },
                action,
            )
            .unwrap_or_else(|e| panic!("history system failed: {e}"));
        app.update();
    }

    #[test]
    fn undo_restores_the_previous_recipe_and_redo_reapplies() {
        let mut app = app_with_seed(1);
        app.world_mut().resource_mut::<EditedRecipe>().0.seed = 2;
        app.update();
        app.world_mut().resource_mut::<EditedRecipe>().0.seed = 3;
        app.update();
        act(&mut app, HistoryAction::Undo);
        assert_eq!(seed(&app), 2);
        act(&mut app, HistoryAction::Undo);
        assert_eq!(seed(&app), 1);
        act(&mut app, HistoryAction::Undo);
        assert_eq!(seed(&app), 1, "nothing left to undo");
        act(&mut app, HistoryAction::Redo);
        assert_eq!(seed(&app), 2);
        // A new edit clears the redo stack.
        app.world_mut().resource_mut::<EditedRecipe>().0.seed = 9;
        app.update();
        act(&mut app, HistoryAction::Redo);
        assert_eq!(seed(&app), 9);
        act(&mut app, HistoryAction::Undo);
        assert_eq!(seed(&app), 2);
    }

    #[test]
    fn quick_edits_merge_into_one_step() {
        let mut history = History::default();
        let snap = |seed| Recipe {
            seed,
            ..Recipe::default()
        };
        history.record(snap(1));
        for seed in 2..10 {
            history.record(snap(seed));
        }
        assert_eq!(history.undo().map(|s| s.seed), Some(1));
        assert!(!history.can_undo());
    }

    #[test]
    fn a_gesture_is_one_step_however_long_and_the_next_edit_its_own() {
        // Quick edits would merge anyway: the gesture decides here.
        let mut history = History::default();
        let snap = |seed| Recipe {
            seed,
            ..Recipe::default()
        };
        history.record(snap(1));
        history.record(snap(0));
        history.begin_gesture();
        for seed in 2..6 {
            history.record(snap(seed));
        }
        history.end_gesture();
        // Its last edit arrives after the end, then it settles.
        history.record(snap(6));
        assert!(history.settle_gesture());
        assert!(!history.settle_gesture());
        history.record(snap(7));
        assert_eq!(history.depth(), (3, 0));
        assert_eq!(history.undo().map(|s| s.seed), Some(6));
        assert_eq!(history.undo().map(|s| s.seed), Some(0));
        assert_eq!(history.undo().map(|s| s.seed), Some(1));
    }

    #[test]
    fn at_the_limit_the_oldest_step_goes_and_the_newest_stay_in_order() {
        let mut history = History {
            coalesce: Duration::ZERO,
            limit: 3,
            ..History::default()
        };
        let snap = |seed| Recipe {
            seed,
            ..Recipe::default()
        };
        for seed in 1..=6 {
            history.record(snap(seed));
        }
        assert_eq!(history.depth(), (3, 0));
        let undone: Vec<u64> = std::iter::from_fn(|| history.undo().map(|s| s.seed)).collect();
        assert_eq!(undone, [5, 4, 3]);
    }
}
