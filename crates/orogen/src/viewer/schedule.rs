//! The order of a viewer frame, named once: what the user edited is
//! settled, jobs start and land, their results are uploaded, the camera
//! moves over what was uploaded, and the scene is drawn from where the
//! camera is. Every plugin puts its `Update` systems in one of these sets;
//! [`order_viewer_systems`] chains them.

use bevy::prelude::*;

/// The stages of a viewer frame, in order.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewerSystems {
    /// Settle what the user asked for: undo/redo, the display path, the
    /// flow overlay's wish.
    Edit,
    /// Start a job for an edit, collect finished levels, apply band-only
    /// edits and derived maps.
    Regenerate,
    /// Hand what the job built to the scene's assets.
    Upload,
    /// Frame the uploaded terrain and fly the camera.
    MoveCamera,
    /// Place LOD patches and set materials and lights for this view.
    Draw,
}

/// Chains the sets in `Update`. Called by the viewer's plugin and by each
/// plugin that puts systems in the sets, so a plugin used alone (a test,
/// a headless tool) keeps the order; configuring the same chain again adds
/// nothing.
pub fn order_viewer_systems(app: &mut App) {
    app.configure_sets(
        Update,
        (
            ViewerSystems::Edit,
            ViewerSystems::Regenerate,
            ViewerSystems::Upload,
            ViewerSystems::MoveCamera,
            ViewerSystems::Draw,
        )
            .chain(),
    );
}
