//! Derived maps written beside the heights (`--maps`): one grey PNG per
//! map at the export's size, rows in the height files' order, and what
//! their pixels mean for the sidecar.

use super::map_layers::{MapLayerPlan, add_map_layers};
use super::map_png::encode_map;
use crate::heightmap::Heightmap;
use crate::io::bundle::ExportBundle;
use crate::io::errors::{EncodeError, ExportError};
use crate::io::tiled_export::MapTileGrid;
use crate::maps::ErosionRecord;
use crate::maps::derived::erosion_pixels;
use crate::maps::{DerivedMap, MapListError, MapPixels, MapSettings, derive_map};
use rayon::prelude::*;

/// How the heights lie: world units between cells, and whether rows run
/// south to north in the files.
#[derive(Clone, Copy, Debug)]
pub struct MapGrid {
    /// World units between neighbouring cells.
    pub cell_size: f32,
    /// Rows written south first.
    pub flip_y: bool,
}

/// The derived maps an export writes, and what they are made from.
#[derive(Clone, Copy)]
pub struct MapFiles<'a> {
    /// The maps, in file order.
    pub maps: &'a [DerivedMap],
    /// Their settings (sea level, river threshold, ...).
    pub settings: &'a MapSettings,
    /// The record of the run that made the heights (`wear`, `deposition`).
    pub erosion: Option<&'a ErosionRecord>,
    /// The engine's layer files, when asked for.
    pub layers: Option<&'a MapLayerPlan>,
    /// The tile grid, when the heights are tiled.
    pub tiles: Option<&'a MapTileGrid>,
}

/// Adds `<map>.png` for each of `maps` to `bundle`, and with `layers`
/// the engine's layer files ([`add_map_layers`]); returns their meanings
/// (file, bits, encoding, units, the engine layer) for `heightmap.json`.
/// `wear` and `deposition` come from `erosion`, the record of the run
/// that made `map`, and are refused without one.
pub fn add_map_files(
    bundle: &mut ExportBundle,
    map: &Heightmap,
    grid: MapGrid,
    request: &MapFiles<'_>,
) -> Result<serde_json::Value, ExportError> {
    let MapGrid { cell_size, flip_y } = grid;
    let MapFiles {
        maps,
        settings,
        erosion,
        layers,
        tiles,
    } = *request;
    check_erosion_record(map, maps, erosion)?;
    // Each map is its own routing or filter over the same heights: they
    // run side by side, and each alone is deterministic.
    let pixels: Vec<Result<(DerivedMap, MapPixels), MapListError>> = maps
        .par_iter()
        .map(|&kind| {
            let pixels = match erosion {
                Some(record) if kind == DerivedMap::Deposition => {
                    erosion_pixels(&record.deposited(), kind)
                }
                Some(record) if kind.needs_erosion_record() => {
                    erosion_pixels(record.change(), kind)
                }
                _ => derive_map(map, cell_size, kind, settings),
            };
            pixels
                .map(|p| (kind, p))
                .ok_or_else(|| MapListError::NoErosionRecord(kind.name().to_string()))
        })
        .collect();
    let pixels = pixels.into_iter().collect::<Result<Vec<_>, _>>()?;
    let files: Vec<Result<Vec<u8>, EncodeError>> = pixels
        .par_iter()
        .map(|(_, pixels)| encode_map(pixels, map.width(), flip_y))
        .collect();
    let mut meanings = Vec::with_capacity(maps.len());
    for (kind, file) in maps.iter().zip(files) {
        bundle.add(kind.meaning().file, file?);
        meanings.push(kind.meaning());
    }
    let mut value = serde_json::to_value(&meanings).map_err(EncodeError::Json)?;
    if let (Some(sea), Some(list)) = (settings.sea_level, value.as_array_mut()) {
        for entry in list {
            entry["sea_level"] = serde_json::json!(sea);
        }
    }
    if let (Some(grid), Some(entries)) = (tiles, value.as_array_mut()) {
        add_map_tiles(bundle, grid, &pixels, map.width(), flip_y, entries)?;
    }
    if let (Some(plan), Some(entries)) = (layers, value.as_array_mut()) {
        add_map_layers(bundle, plan, &pixels, map.width(), flip_y, entries)?;
    }
    Ok(value)
}

/// Refuses maps that need the erosion record when there is none, or
/// one of another size than `map`.
pub fn check_erosion_record(
    map: &Heightmap,
    maps: &[DerivedMap],
    erosion: Option<&ErosionRecord>,
) -> Result<(), MapListError> {
    let needing: Vec<&str> = maps
        .iter()
        .filter(|m| m.needs_erosion_record())
        .map(|m| m.name())
        .collect();
    if needing.is_empty() {
        return Ok(());
    }
    let Some(record) = erosion else {
        return Err(MapListError::NoErosionRecord(needing.join(",")));
    };
    let (record_size, map_size) = (
        (record.width(), record.height()),
        (map.width(), map.height()),
    );
    if record_size != map_size || record.change().len() != map.data().len() {
        return Err(MapListError::ErosionRecordSize {
            record: record_size,
            map: map_size,
        });
    }
    Ok(())
}

/// With a tiled export (`--tiles N`), each map is cut into the same
/// border-sharing tiles as the heights: `<tile stem>_<map>.png`, rows in
/// the height files' order; each map's sidecar entry names the pattern.
fn add_map_tiles(
    bundle: &mut ExportBundle,
    grid: &MapTileGrid,
    pixels: &[(DerivedMap, MapPixels)],
    width: usize,
    flip_y: bool,
    entries: &mut [serde_json::Value],
) -> Result<(), EncodeError> {
    let coords: Vec<(usize, usize)> = (0..grid.n)
        .flat_map(|j| (0..grid.n).map(move |i| (i, j)))
        .collect();
    for ((kind, map_pixels), entry) in pixels.iter().zip(entries.iter_mut()) {
        let files: Vec<Result<(String, Vec<u8>), EncodeError>> = coords
            .par_iter()
            .map(|&(i, j)| {
                let (x0, y0) = grid.origin(i, j);
                let (tw, th) = (grid.tile_width, grid.tile_height);
                let tile = match map_pixels {
                    MapPixels::Grey16(values) => {
                        MapPixels::Grey16(crop(values, width, (x0, y0), (tw, th)))
                    }
                    MapPixels::Grey8(values) => {
                        MapPixels::Grey8(crop(values, width, (x0, y0), (tw, th)))
                    }
                };
                let png = encode_map(&tile, tw, flip_y)?;
                Ok((format!("{}_{}.png", grid.stem(i, j), kind.name()), png))
            })
            .collect();
        for file in files {
            let (name, png) = file?;
            bundle.add(name, png);
        }
        entry["tiles"] = serde_json::json!(format!(
            "<tile>_{}.png for each tile of tiles_grid (<tile> its r16 file's stem)",
            kind.name()
        ));
    }
    Ok(())
}

/// The `size` samples of a row-major `width`-wide grid from `origin`.
fn crop<T: Copy>(
    values: &[T],
    width: usize,
    origin: (usize, usize),
    size: (usize, usize),
) -> Vec<T> {
    let mut out = Vec::with_capacity(size.0 * size.1);
    for y in origin.1..origin.1 + size.1 {
        let start = y * width + origin.0;
        out.extend_from_slice(&values[start..start + size.0]);
    }
    out
}
