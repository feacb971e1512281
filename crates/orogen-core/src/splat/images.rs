//! Tile images: built-in tiles or decoded files, with clear errors.

use super::TileSet;
use crate::splat::builtin_tiles::builtin_tile;
use image::RgbImage;
use std::path::{Path, PathBuf};

/// Loaded tile pixels, one image per tile (a flat colour if unreadable).
#[derive(Clone, Debug, PartialEq)]
pub struct TileImages {
    /// One RGB8 image per tile, in the tile set's order.
    pub images: Vec<RgbImage>,
}

/// Why a tile image could not be had.
#[derive(Debug, thiserror::Error)]
pub enum TileImageError {
    /// A `builtin:` name orogen does not ship.
    #[error(
        "no built-in tile '{name}' (built-in: {})",
        crate::splat::builtin_tiles::BUILTIN_TILES.join(", ")
    )]
    UnknownBuiltin {
        /// The name after `builtin:`.
        name: String,
    },
    /// The image's file, and why it could not be used (read or decoded).
    #[error("tile image {}: {source}", .path.display())]
    File {
        /// The file, resolved against the recipe's folder.
        path: PathBuf,
        /// What went wrong with it: [`TileImageError::Read`],
        /// [`TileImageError::Unreadable`] or [`TileImageError::Empty`].
        source: Box<TileImageError>,
    },
    /// The bytes could not be read.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// The bytes are no image the decoders take, or one over the size limits.
    #[error("unreadable image: {0}")]
    Unreadable(#[from] image::ImageError),
    /// The image has no pixels.
    #[error("image is empty")]
    Empty,
}

/// Loads one tile's image: `builtin:` names, or a file with a clear error.
pub fn load_tile_image(spec: &str, base_dir: Option<&Path>) -> Result<RgbImage, TileImageError> {
    if let Some(name) = spec.strip_prefix("builtin:") {
        return builtin_tile(name).ok_or_else(|| TileImageError::UnknownBuiltin {
            name: name.to_string(),
        });
    }
    let mut path = PathBuf::from(spec);
    if let Some(base) = base_dir
        && path.is_relative()
    {
        path = base.join(path);
    }
    std::fs::read(&path)
        .map_err(TileImageError::Read)
        .and_then(|bytes| decode_tile_image(&bytes))
        .map_err(|e| TileImageError::File {
            path,
            source: Box::new(e),
        })
}

/// Decodes PNG/JPEG/TGA/BMP bytes with size limits.
pub fn decode_tile_image(bytes: &[u8]) -> Result<RgbImage, TileImageError> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes)).with_guessed_format()?;
    if reader.format().is_none() {
        // TGA has no magic number; try it last.
        reader.set_format(image::ImageFormat::Tga);
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(8192);
    limits.max_image_height = Some(8192);
    limits.max_alloc = Some(512 << 20);
    reader.limits(limits);
    let image = reader.decode()?;
    if image.width() == 0 || image.height() == 0 {
        return Err(TileImageError::Empty);
    }
    Ok(image.to_rgb8())
}

impl TileImages {
    /// Loads every tile; failures become flat-colour tiles plus a warning.
    pub fn load(set: &TileSet, base_dir: Option<&Path>) -> (TileImages, Vec<String>) {
        let mut warnings = Vec::new();
        let images = set
            .tiles
            .iter()
            .map(|t| match load_tile_image(&t.image, base_dir) {
                Ok(img) => img,
                Err(e) => {
                    warnings.push(format!("{}: {e}; using a flat colour", t.name));
                    RgbImage::from_pixel(1, 1, image::Rgb(t.fallback_color))
                }
            })
            .collect();
        (TileImages { images }, warnings)
    }
}
