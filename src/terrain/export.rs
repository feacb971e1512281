//! Heightmap exports: RAW16, 16-bit PNG, 8-bit preview, JSON sidecar.

use crate::terrain::atomic::write_all_atomic;
use crate::terrain::heightmap::Heightmap;
use crate::terrain::params::{Choice, Span};
use crate::terrain::recipe::Recipe;
use crate::terrain::tiled::TileGridInfo;
use image::{ImageBuffer, ImageEncoder, Luma, codecs::png::PngEncoder};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ByteOrder {
    #[default]
    Le,
    Be,
}

impl Choice for ByteOrder {
    const ALL: &'static [Self] = &[ByteOrder::Le, ByteOrder::Be];
    fn label(self) -> &'static str {
        match self {
            ByteOrder::Le => "little-endian",
            ByteOrder::Be => "big-endian",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExportOptions {
    pub byte_order: ByteOrder,
    /// Write rows south-first (Unity's convention when importing a north-up file).
    pub flip_y: bool,
    /// Heights mapped to 0 and 65535; `None` = the map's own min..max.
    pub height_range: Option<Span>,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            byte_order: ByteOrder::Le,
            flip_y: false,
            height_range: None,
        }
    }
}

/// Engine size presets (cells a side).
pub const UNITY_SIZES: &[u32] = &[33, 65, 129, 257, 513, 1025, 2049, 4097];
pub const UNREAL_SIZES: &[u32] = &[127, 253, 505, 1009, 2017, 4033, 8129];

/// Resolves `unity-1025`, `unreal-2017` or a plain number to a side.
pub fn named_size(name: &str) -> Option<u32> {
    let (list, number) = if let Some(n) = name.strip_prefix("unity-") {
        (Some(UNITY_SIZES), n)
    } else if let Some(n) = name.strip_prefix("unreal-") {
        (Some(UNREAL_SIZES), n)
    } else {
        (None, name)
    };
    let side: u32 = number.parse().ok()?;
    match list {
        Some(sizes) if !sizes.contains(&side) => None,
        _ => Some(side),
    }
}

/// The height range exported as 0..65535.
pub fn export_range(map: &Heightmap, opts: &ExportOptions) -> Span {
    opts.height_range.unwrap_or_else(|| {
        let s = map.stats();
        Span::new(s.min, s.max)
    })
}

/// Maps heights linearly onto 0..=65535 (clamping outside `range`),
/// row 0 = north. A flat range maps to 0.
pub fn quantize(map: &Heightmap, range: Span) -> Vec<u16> {
    let span = range.max - range.min;
    let scale = if span > 0.0 {
        65535.0 / span as f64
    } else {
        0.0
    };
    map.data()
        .iter()
        .map(|&v| {
            // Clamp, then round half up with a cast (no libm `round`).
            let q = ((v - range.min) as f64 * scale).clamp(0.0, 65535.0);
            (q + 0.5) as u16
        })
        .collect()
}

/// Rows in output order: north first, or south first when flipped.
fn ordered_rows(values: &[u16], width: usize, flip_y: bool) -> Vec<&[u16]> {
    let mut rows: Vec<&[u16]> = values.chunks_exact(width).collect();
    if flip_y {
        rows.reverse();
    }
    rows
}

pub fn encode_r16(values: &[u16], width: usize, order: ByteOrder, flip_y: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 2);
    for row in ordered_rows(values, width, flip_y) {
        for &v in row {
            out.extend_from_slice(&match order {
                ByteOrder::Le => v.to_le_bytes(),
                ByteOrder::Be => v.to_be_bytes(),
            });
        }
    }
    out
}

pub fn encode_png16(values: &[u16], width: usize, flip_y: bool) -> Result<Vec<u8>, String> {
    let height = values.len() / width;
    let mut bytes = Vec::with_capacity(values.len() * 2);
    for row in ordered_rows(values, width, flip_y) {
        for &v in row {
            // The encoder takes native-endian samples and writes PNG's
            // big-endian itself.
            bytes.extend_from_slice(&v.to_ne_bytes());
        }
    }
    encode_png(&bytes, width, height, image::ExtendedColorType::L16)
}

/// 8-bit grayscale preview, north up.
pub fn encode_preview(values: &[u16], width: usize) -> Result<Vec<u8>, String> {
    let height = values.len() / width;
    let gray: Vec<u8> = values.iter().map(|&v| (v >> 8) as u8).collect();
    let buffer: ImageBuffer<Luma<u8>, Vec<u8>> =
        ImageBuffer::from_raw(width as u32, height as u32, gray)
            .ok_or_else(|| "preview buffer size mismatch".to_string())?;
    encode_png(buffer.as_raw(), width, height, image::ExtendedColorType::L8)
}

/// Encodes raw samples of `color` as PNG bytes.
pub fn encode_png(
    raw: &[u8],
    width: usize,
    height: usize,
    color: image::ExtendedColorType,
) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    PngEncoder::new(&mut out)
        .write_image(raw, width as u32, height as u32, color)
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    Ok(out)
}

/// The `heightmap.json` sidecar: enough to re-import at true scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sidecar {
    pub generator: String,
    pub width: usize,
    pub height: usize,
    /// World height of sample 0.
    pub min_height: f32,
    /// World height of sample 65535.
    pub max_height: f32,
    pub byte_order: ByteOrder,
    pub flip_y: bool,
    /// World units between neighbouring cells.
    pub cell_size: f32,
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiles: Option<serde_json::Value>,
    /// The border-sharing tiles of a tiled export (`--tiles N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiles_grid: Option<TileGridInfo>,
    pub recipe: Recipe,
}

/// Files of one export, in memory until written together.
#[derive(Default)]
pub struct ExportBundle {
    pub files: Vec<(String, Vec<u8>)>,
}

impl ExportBundle {
    pub fn add(&mut self, name: impl Into<String>, bytes: Vec<u8>) {
        self.files.push((name.into(), bytes));
    }

    /// The bytes of the file named `name`, if the bundle has one.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }

    pub fn names(&self) -> Vec<String> {
        self.files.iter().map(|(n, _)| n.clone()).collect()
    }

    /// Creates `dir` if needed and writes every file atomically.
    pub fn write_to(&self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        let created_dir = !dir.exists();
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create output folder {}: {e}", dir.display()))?;
        let files: Vec<(PathBuf, Vec<u8>)> = self
            .files
            .iter()
            .map(|(name, bytes)| (dir.join(name), bytes.clone()))
            .collect();
        if let Err(e) = write_all_atomic(&files) {
            if created_dir {
                let _ = std::fs::remove_dir(dir);
            }
            return Err(e.to_string());
        }
        Ok(files.into_iter().map(|(p, _)| p).collect())
    }
}

/// Builds the heightmap files (r16, png16, preview, recipe; the sidecar is
/// added by [`add_sidecar`] once every other file is known).
pub fn heightmap_bundle(
    map: &Heightmap,
    recipe: &Recipe,
    opts: &ExportOptions,
) -> Result<(ExportBundle, Span), String> {
    let range = export_range(map, opts);
    let values = quantize(map, range);
    let w = map.width();
    let mut bundle = ExportBundle::default();
    bundle.add(
        "heightmap.r16",
        encode_r16(&values, w, opts.byte_order, opts.flip_y),
    );
    bundle.add("heightmap.png", encode_png16(&values, w, opts.flip_y)?);
    bundle.add("heightmap.preview.png", encode_preview(&values, w)?);
    bundle.add("recipe.ron", recipe.to_ron()?.into_bytes());
    Ok((bundle, range))
}

/// Appends `heightmap.json` describing everything in the bundle.
pub fn add_sidecar(
    bundle: &mut ExportBundle,
    map: &Heightmap,
    recipe: &Recipe,
    opts: &ExportOptions,
    range: Span,
    tiles: Option<serde_json::Value>,
) -> Result<(), String> {
    add_sidecar_with_grid(bundle, map, recipe, opts, range, tiles, None)
}

/// [`add_sidecar`] for a tiled export: also lists the tiles.
pub fn add_sidecar_with_grid(
    bundle: &mut ExportBundle,
    map: &Heightmap,
    recipe: &Recipe,
    opts: &ExportOptions,
    range: Span,
    tiles: Option<serde_json::Value>,
    tiles_grid: Option<TileGridInfo>,
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
