//! The document: the recipe being edited, where it came from and whether
//! it is saved, its undo history ([`history`]), the unsaved-edits guard
//! ([`unsaved`]) and recovery copies ([`recovery`]). Nothing here knows
//! how a recipe is generated or drawn.

pub mod history;
pub mod recovery;
pub mod unsaved;

use bevy::prelude::*;
use orogen_core::Recipe;
use std::path::PathBuf;

/// The recipe being edited, tiles included. A change starts a job; the
/// pipeline's cache makes a tile-only edit re-render just the texture.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct EditedRecipe(pub Recipe);

/// Where the recipe came from: its file (if any) and the folder its
/// relative paths resolve against.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub struct RecipeSource {
    pub file: Option<PathBuf>,
    pub base_dir: Option<PathBuf>,
    /// The recipe as last loaded or saved: edits away from it are unsaved
    /// (`None`: nothing loaded or saved yet, so any recipe is unsaved).
    pub saved: Option<Recipe>,
}

impl RecipeSource {
    /// The file a recipe opened by `name` saves back to: none for a
    /// shipped preset's name.
    pub fn file_of(name: &str) -> Option<PathBuf> {
        orogen_core::presets::text(name)
            .is_none()
            .then(|| PathBuf::from(name))
    }
}
