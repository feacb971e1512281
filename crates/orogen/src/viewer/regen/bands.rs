//! Band-only edits on the GPU path run no job: the GPU draws bands from
//! its material's uniform, and the panels' texture preview is repainted
//! here from the small preview map the last level brought.

use crate::viewer::display_data::preview::paint_preview;
use crate::viewer::handoff::{Generated, ShownBands};
use crate::viewer::settings::DisplayPath;
use bevy::prelude::*;

/// Repaints the texture preview when the shown bands (changed by an
/// edit, or by a level that landed after it) differ from those it was
/// painted with.
pub fn repaint_preview_on_band_edit(
    path: Res<DisplayPath>,
    generated: Res<Generated>,
    mut bands: ResMut<ShownBands>,
) {
    if !(generated.is_changed() || bands.is_changed()) || !path.is_gpu() {
        return;
    }
    let Some(resolved) = bands.resolved(&generated) else {
        return;
    };
    if bands.effective.as_ref() == Some(&resolved) {
        return;
    }
    let (Some(small), Some(full), Some(images), Some(recipe)) = (
        generated.preview_map.as_ref(),
        generated.shown_map.as_ref(),
        generated.tile_images.as_ref(),
        generated.recipe.as_ref(),
    ) else {
        return;
    };
    if images.images.len() != resolved.tiles.len() {
        return; // a tile added or removed: the job brings its image
    }
    bands.texture_preview =
        paint_preview(small, full.width(), recipe.cell_size(), &resolved, images);
    bands.effective = Some(resolved);
    bands.version += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::document::EditedRecipe;
    use crate::viewer::regen::{RegenJob, RegenerationPlugin};
    use crate::viewer::schedule::order_viewer_systems;
    use std::time::{Duration, Instant};

    /// A band edit on the GPU path starts no job, yet the panels' texture
    /// preview and resolved bands follow it (and a redraw is signalled).
    #[test]
    fn a_band_edit_repaints_the_texture_preview_without_a_job() {
        let mut recipe = orogen_core::presets::load("default")
            .and_then(Result::ok)
            .unwrap_or_default();
        recipe.set_sampling(65, 65);
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, RegenerationPlugin))
            .insert_resource(EditedRecipe(recipe));
        order_viewer_systems(&mut app);
        let deadline = Instant::now() + Duration::from_secs(30);
        while !app.world().resource::<Generated>().has_terrain() {
            assert!(Instant::now() < deadline, "no generation");
            app.update();
            std::thread::sleep(Duration::from_millis(5));
        }
        while app.world().resource::<RegenJob>().is_busy() {
            assert!(Instant::now() < deadline, "the job did not finish");
            app.update();
            std::thread::sleep(Duration::from_millis(5));
        }
        app.update();
        let before = app.world().resource::<Generated>().clone();
        let bands_before = app.world().resource::<ShownBands>().clone();
        let jobs = app.world().resource::<RegenJob>().started_count;
        {
            let mut edited = app.world_mut().resource_mut::<EditedRecipe>();
            let tiles = &mut edited.0.tiles;
            tiles.auto_bands = false;
            // Sand over the whole range: the preview turns sand-coloured.
            tiles.tiles[0].optimal = 1e5;
            tiles.tiles[0].high = 1e5;
        }
        for _ in 0..3 {
            app.update();
        }
        let after = app.world().resource::<Generated>();
        let bands = app.world().resource::<ShownBands>();
        assert_eq!(app.world().resource::<RegenJob>().started_count, jobs);
        assert_eq!(after.serial, before.serial, "no new generation");
        assert!(bands.version > bands_before.version);
        assert_ne!(
            bands.texture_preview.rgba,
            bands_before.texture_preview.rgba
        );
        assert_eq!(
            bands.effective.as_ref().map(|t| t.tiles[0].optimal),
            Some(1e5)
        );
    }
}
