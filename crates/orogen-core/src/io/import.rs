//! Reading a heightmap file of any supported kind: the one module above
//! the codecs, choosing one by the file's signature or extension. The
//! codecs ([`super::height_files`] for PNG and RAW16, [`super::float_files`]
//! for EXR and TIFF) never import each other or this.

use super::float_files::{decode_exr, decode_tiff};
use super::height_files::{
    ByteOrder, EXR_MAGIC, ImportError, ImportFormat, ImportedMap, TIFF_MAGICS, decode_png,
    decode_raw16,
};
use std::path::Path;

/// Reads a heightmap file: 16- or 8-bit PNG, RAW16, float OpenEXR, or
/// float or 16-bit TIFF. `Auto` goes by the file's signature (PNG, OpenEXR
/// `76 2f 31 01`, TIFF `II*\0`/`MM\0*`), then by its extension.
/// `raw_size` gives RAW dimensions; without it a RAW file must be square.
pub fn read_heightmap_file(
    path: &Path,
    format: ImportFormat,
    raw_size: Option<(usize, usize)>,
) -> Result<ImportedMap, ImportError> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let format = match format {
        ImportFormat::Auto if bytes.starts_with(b"\x89PNG") => ImportFormat::Png,
        ImportFormat::Auto if bytes.starts_with(EXR_MAGIC) => ImportFormat::Exr,
        ImportFormat::Auto if TIFF_MAGICS.iter().any(|m| bytes.starts_with(m)) => {
            ImportFormat::Tiff
        }
        ImportFormat::Auto if ext == "png" => ImportFormat::Png,
        ImportFormat::Auto if ext == "exr" => ImportFormat::Exr,
        ImportFormat::Auto if ext == "tif" || ext == "tiff" => ImportFormat::Tiff,
        ImportFormat::Auto if ext == "r16" || ext == "raw" => ImportFormat::Raw16Le,
        ImportFormat::Auto => {
            return Err(ImportError::UnknownFormat {
                path: path.display().to_string(),
            });
        }
        other => other,
    };
    match format {
        ImportFormat::Png => decode_png(&bytes),
        ImportFormat::Exr => decode_exr(&bytes),
        ImportFormat::Tiff => decode_tiff(&bytes),
        ImportFormat::Raw16Be => decode_raw16(&bytes, ByteOrder::Be, raw_size),
        ImportFormat::Raw16Le | ImportFormat::Auto => decode_raw16(&bytes, ByteOrder::Le, raw_size),
    }
}
