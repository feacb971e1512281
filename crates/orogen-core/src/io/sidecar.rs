//! The `heightmap.json` sidecar: what an export holds and how to read it
//! back at true scale, and the finder that locates it beside a height file.

use crate::heightmap::Heightmap;
use crate::io::bundle::ExportBundle;
use crate::io::height_files::{ByteOrder, ExportOptions};
use crate::io::tiled_export::MapTileGridInfo;
use crate::params::Span;
use crate::recipe::Recipe;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The `heightmap.json` sidecar: enough to re-import at true scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sidecar {
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
    /// The effective bands of the exported splat texture, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiles: Option<serde_json::Value>,
    /// The border-sharing tiles of a tiled export (`--tiles N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiles_grid: Option<MapTileGridInfo>,
    /// The recipe that generated the map, to regenerate it exactly.
    pub recipe: Recipe,
}

/// Appends `heightmap.json` describing everything in the bundle: the
/// height range and cell size to re-import at true scale, the effective
/// texture bands (`tiles`) and the tiled export's grid, when there are.
#[allow(clippy::too_many_arguments)]
pub fn add_sidecar(
    bundle: &mut ExportBundle,
    map: &Heightmap,
    recipe: &Recipe,
    opts: &ExportOptions,
    range: Span,
    tiles: Option<serde_json::Value>,
    tiles_grid: Option<MapTileGridInfo>,
) -> Result<(), String> {
    let mut files = bundle.names();
    files.push("heightmap.json".into());
    let sidecar = Sidecar {
        generator: format!("orogen {}", env!("CARGO_PKG_VERSION")),
        width: map.width(),
        height: map.height(),
        min_height: range.min,
        max_height: range.max,
        byte_order: opts.byte_order,
        flip_y: opts.flip_y,
        cell_size: recipe.cell_size,
        files,
        tiles,
        tiles_grid,
        recipe: recipe.clone(),
    };
    let json = serde_json::to_string_pretty(&sidecar).map_err(|e| e.to_string())?;
    bundle.add("heightmap.json", json.into_bytes());
    Ok(())
}

/// Reads the sidecar that sits beside a heightmap file (same folder,
/// `heightmap.json` or `<stem>.json`), if any.
pub fn find_sidecar(heightmap_path: &Path) -> Option<Sidecar> {
    let dir = heightmap_path.parent()?;
    let stem = heightmap_path.file_stem()?.to_string_lossy().into_owned();
    [dir.join(format!("{stem}.json")), dir.join("heightmap.json")]
        .iter()
        .find_map(|p| {
            let text = std::fs::read_to_string(p).ok()?;
            serde_json::from_str::<Sidecar>(&text).ok()
        })
}
