//! What outlives one job: a cached pipeline per map size shown and the
//! decoded tile images.

use bevy::prelude::*;
use image::RgbImage;
use orogen_core::pipeline::Pipeline;
use orogen_core::splat::{TileImages, TileSet, load_tile_image};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// State that outlives one job: a pipeline per sampling, whose per-stage
/// cache makes re-runs cheap, and the decoded tile images. Jobs lock it while they
/// run; they run one after another, so the lock is only ever waited on by
/// a job queued behind a cancelled one.
#[derive(Resource, Clone, Default)]
pub struct SharedPipeline(pub(super) Arc<Mutex<JobCache>>);

#[derive(Default)]
pub(crate) struct JobCache {
    pub(super) base_dir: Option<PathBuf>,
    /// One pipeline per map size shown, so each level re-runs only the
    /// edited stages; sizes no longer shown are dropped.
    pub(super) pipelines: HashMap<(u32, u32), Pipeline>,
    /// Decoded tile images by image spec (or why it could not be read),
    /// for the folder `images_dir`: adding, removing or re-pointing one
    /// tile decodes only that tile's image.
    images: HashMap<String, Result<RgbImage, String>>,
    images_dir: Option<PathBuf>,
    /// The last set handed out, by the tiles' (image, name, colour): the
    /// same `Arc` while they are unchanged, so the GPU's tile array is
    /// rebuilt only when an image really changed.
    last_set: Option<(Vec<TileKey>, Arc<TileImages>, Vec<String>)>,
}

/// What a tile's image and warning depend on: its image spec, its name
/// (in the warning) and its fallback colour.
type TileKey = (String, String, [u8; 3]);

impl JobCache {
    /// Tile images for `tiles` (a flat colour plus a warning for each one
    /// that cannot be read). Images no tile uses any more are dropped, so
    /// the cache never holds more than the current tiles.
    pub(crate) fn tile_images(
        &mut self,
        tiles: &TileSet,
        base_dir: Option<&std::path::Path>,
    ) -> (Arc<TileImages>, Vec<String>) {
        let dir = base_dir.map(PathBuf::from);
        if self.images_dir != dir {
            self.images.clear();
            self.last_set = None;
            self.images_dir = dir;
        }
        let key: Vec<TileKey> = tiles
            .tiles
            .iter()
            .map(|t| (t.image.clone(), t.name.clone(), t.fallback_color))
            .collect();
        if let Some((last_key, images, warnings)) = &self.last_set
            && *last_key == key
        {
            return (images.clone(), warnings.clone());
        }
        self.images
            .retain(|spec, _| tiles.tiles.iter().any(|t| &t.image == spec));
        let mut warnings = Vec::new();
        let mut images = Vec::with_capacity(tiles.tiles.len());
        for tile in &tiles.tiles {
            let loaded = self.images.entry(tile.image.clone()).or_insert_with(|| {
                load_tile_image(&tile.image, base_dir).map_err(|e| e.to_string())
            });
            match loaded {
                Ok(image) => images.push(image.clone()),
                Err(e) => {
                    warnings.push(format!("{}: {e}; using a flat colour", tile.name));
                    images.push(RgbImage::from_pixel(1, 1, image::Rgb(tile.fallback_color)));
                }
            }
        }
        let images = Arc::new(TileImages { images });
        self.last_set = Some((key, images.clone(), warnings.clone()));
        (images, warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_images_are_cached_per_image_and_pruned() {
        let mut cache = JobCache::default();
        let mut tiles = TileSet::default();
        let (images, warnings) = cache.tile_images(&tiles, None);
        assert_eq!(images.images.len(), tiles.tiles.len());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(cache.images.len(), 4);
        // Re-point one tile at a file that does not exist: a warning and a
        // flat colour for it, the others still cached, the old image gone.
        tiles.tiles[0].image = "/nonexistent/orogen/tile.png".into();
        let (images, warnings) = cache.tile_images(&tiles, None);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("sand: "), "{warnings:?}");
        assert_eq!(images.images[0].dimensions(), (1, 1));
        assert_eq!(cache.images.len(), 4);
        assert!(!cache.images.contains_key("builtin:sand"));
        tiles.tiles.truncate(1);
        let _ = cache.tile_images(&tiles, None);
        assert_eq!(cache.images.len(), 1);
    }
}
