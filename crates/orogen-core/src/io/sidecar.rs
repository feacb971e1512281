//! The `heightmap.json` sidecar: what an export holds and how to read it
//! back at true scale, and the finder that locates it beside a height file.

use crate::io::engines::ImportSettings;
use crate::io::height_files::ByteOrder;
use crate::io::tiled_export::MapTileGridInfo;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The `heightmap.json` sidecar: enough to re-import at true scale, and
/// the recipe to regenerate the map.
///
/// `R` is the recipe's type: an export writes its
/// [`Recipe`](crate::Recipe), a reader that wants it back reads
/// `Sidecar<Recipe>`, and the [finder](find_sidecar) skips it
/// (`IgnoredAny`), so a height file's scale is found even beside a recipe
/// from another version. It also keeps this module free of the recipe
/// and its stages, one of which (the import) uses the finder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sidecar<R> {
    /// The program and version that wrote the export, e.g. `orogen 0.1.0`.
    pub generator: String,
    /// Map width in cells (west to east).
    pub width: usize,
    /// Map height in cells (north to south).
    pub height: usize,
    /// World height of sample 0.
    pub min_height: f32,
    /// World height of sample 65535.
    pub max_height: f32,
    /// Byte order of the `.r16` samples.
    pub byte_order: ByteOrder,
    /// Whether the height files' rows run south first instead of north first.
    pub flip_y: bool,
    /// World units between neighbouring cells.
    pub cell_size: f32,
    /// Names of every file in the export, this sidecar included.
    pub files: Vec<String>,
    /// The whole-map height files written, each with its format and what
    /// its samples mean (16-bit samples for the range above, or world
    /// heights as 32-bit floats). Empty in sidecars from before it existed.
    #[serde(default)]
    pub height_files: Vec<HeightFileInfo>,
    /// The effective bands of the exported splat texture, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiles: Option<serde_json::Value>,
    /// The derived maps written (`--maps`): each one's file, bit depth,
    /// the meaning of its samples and their units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maps: Option<serde_json::Value>,
    /// The border-sharing tiles of a tiled export (`--tiles N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiles_grid: Option<MapTileGridInfo>,
    /// The numbers to type into the engine's import dialog (`--engine`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_import: Option<ImportSettings>,
    /// Where the map lies in its world, when it is one window of it
    /// (`generate --window`); absent for a whole-map export.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<SidecarWindow>,
    /// The recipe that generated the map, to regenerate it exactly.
    pub recipe: R,
}

/// A window export's place in its world, in cells of the whole map: its
/// first column `x` and row `y` (row 0 north) and its size, and the
/// world's size. Windows of one world stitch by these numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SidecarWindow {
    /// First column, from the world's west edge.
    pub x: usize,
    /// First row, from the world's north edge.
    pub y: usize,
    /// Cells west to east (the map's width).
    pub width: usize,
    /// Cells north to south (the map's height).
    pub height: usize,
    /// The whole world's cells west to east.
    pub world_width: usize,
    /// The whole world's cells north to south.
    pub world_height: usize,
}

/// One whole-map height file of an export, as the sidecar lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeightFileInfo {
    /// The file's name in the export folder, e.g. `heightmap.exr`.
    pub file: String,
    /// Its format: `r16`, `png`, `exr` or `tif`.
    pub format: String,
    /// What its samples mean, e.g. `world units (f32)`.
    pub units: String,
}

/// Reads the sidecar that sits beside a heightmap file (same folder,
/// `<stem>.json` or `heightmap.json`), if any; its recipe is skipped.
pub fn find_sidecar(heightmap_path: &Path) -> Option<Sidecar<IgnoredAny>> {
    let dir = heightmap_path.parent()?;
    let stem = heightmap_path.file_stem()?.to_string_lossy().into_owned();
    [dir.join(format!("{stem}.json")), dir.join("heightmap.json")]
        .iter()
        .find_map(|p| parse_sidecar(&std::fs::read(p).ok()?))
}

/// Reads a sidecar's bytes, skipping its recipe; `None` if they are not
/// an orogen sidecar. The one parser of sidecars from outside (fuzzed).
pub fn parse_sidecar(bytes: &[u8]) -> Option<Sidecar<IgnoredAny>> {
    serde_json::from_slice(bytes).ok()
}
