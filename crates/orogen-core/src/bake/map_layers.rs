//! Derived maps as an engine's terrain layers take them (`--engine` with
//! `--maps`): every map as an 8-bit weight, then packed the engine's way.
//!
//! - Unreal (Landscape weight-map import) and Godot (Terrain3D's and
//!   HTerrain's importers take separate grey images; Terrain3D's control
//!   map packs texture ids, not weights): one grey 8-bit image per map at
//!   the map's size, rows in the height files' order. The 8-bit maps are
//!   their own weights; each 16-bit map also gets `<map>_weight.png`.
//! - Unity: RGBA alphamaps, `maps_alpha_<i>.png`, four maps to an image
//!   (R, G, B, A in the export's map order, unused channels 0) at the
//!   alphamap size of the splat textures, resampled bilinearly, rows north
//!   first like `splat_<i>.png` (Unity puts an image's top row at the
//!   terrain's north edge).
//!
//! The weights are defined from the 16-bit files' values, so anyone can
//! recompute them from those files.

use super::map_png::encode_grey8;
use crate::io::bundle::ExportBundle;
use crate::io::engines::Engine;
use crate::io::errors::EncodeError;
use crate::io::height_files::encode_png;
use crate::maps::derived::{EROSION_STEPS_PER_UNIT, FLOW_STEPS_PER_DOUBLING, LAKE_STEPS_PER_UNIT};
use crate::maps::flow::strength_of_area;
use crate::maps::{DerivedMap, MapPixels};
use image::ExtendedColorType;
use rayon::prelude::*;

/// Depth or thickness (world units) at full weight in the 8-bit weights
/// of `lakes`, `wear` and `deposition`: deeper counts as 255.
pub const WEIGHT_FULL_DEPTH: f32 = 10.0;

/// A file's name and bytes.
type NamedFile = (String, Vec<u8>);

/// Channel names of a Unity alphamap, in order.
const CHANNELS: [&str; 4] = ["r", "g", "b", "a"];

/// Where the layers go: the engine and, for Unity, the alphamap size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapLayerPlan {
    /// The engine whose layer format is written.
    pub engine: Engine,
    /// Texels (width, height) of Unity's alphamaps; unused otherwise.
    pub alpha_size: (usize, usize),
}

/// The 8-bit weight of a derived map's pixels: the 8-bit maps as they
/// are; `flow` on the wetness scale (0 at a drainage area of 500 or less,
/// 255 at 250 000 or more, log-linear between); `lakes`, `wear` and
/// `deposition` in metres, 255 at [`WEIGHT_FULL_DEPTH`] or more.
pub fn weights_of(kind: DerivedMap, pixels: &MapPixels) -> Vec<u8> {
    match pixels {
        MapPixels::Grey8(values) => values.clone(),
        MapPixels::Grey16(values) => {
            let weight = |v: &u16| -> u8 {
                let v = f32::from(*v);
                let share = match kind {
                    DerivedMap::Flow => {
                        strength_of_area((v / FLOW_STEPS_PER_DOUBLING).exp2() - 1.0)
                    }
                    DerivedMap::Lakes => v / LAKE_STEPS_PER_UNIT / WEIGHT_FULL_DEPTH,
                    _ => v / EROSION_STEPS_PER_UNIT / WEIGHT_FULL_DEPTH,
                };
                (share.clamp(0.0, 1.0) * 255.0).round() as u8
            };
            // Cells are independent: the same bytes on any thread count.
            values.par_iter().map(weight).collect()
        }
    }
}

/// What the 8-bit weight of `kind` means, for `heightmap.json`.
pub fn weight_meaning(kind: DerivedMap) -> &'static str {
    match kind {
        DerivedMap::Flow => {
            "flow on a log scale: A = 2^(v16 / 2048) − 1; 0 at A ≤ 500, 255 at A ≥ 250000, \
             log-linear between"
        }
        DerivedMap::Lakes => {
            "lake depth: round(255 · min(v16 / 100, 10) / 10), 255 at 10 m or deeper"
        }
        DerivedMap::Wear => {
            "material worn away: round(255 · min(v16 / 100, 10) / 10), 255 at 10 m or more"
        }
        DerivedMap::Deposition => {
            "material laid down: round(255 · min(v16 / 100, 10) / 10), 255 at 10 m or more"
        }
        _ => "the map's own 8-bit values",
    }
}

/// Adds `kind`'s layer files for `plan.engine` to `bundle` (the maps'
/// own PNGs are already there) and a `layer` entry to each map's entry of
/// `entries` (the sidecar's `maps` list, in `maps`' order). `pixels` are
/// the maps' values, north first, `width` cells a row.
pub fn add_map_layers(
    bundle: &mut ExportBundle,
    plan: &MapLayerPlan,
    maps: &[(DerivedMap, MapPixels)],
    width: usize,
    flip_y: bool,
    entries: &mut [serde_json::Value],
) -> Result<(), EncodeError> {
    let height = maps
        .first()
        .map(|(_, p)| pixel_count(p) / width.max(1))
        .unwrap_or(0);
    let weights: Vec<Vec<u8>> = maps
        .par_iter()
        .map(|(kind, pixels)| weights_of(*kind, pixels))
        .collect();
    match plan.engine {
        Engine::Unreal | Engine::Godot => {
            let files: Vec<Result<Option<NamedFile>, EncodeError>> = maps
                .par_iter()
                .zip(weights)
                .map(|((kind, pixels), weight)| {
                    // An 8-bit map is its own weight map.
                    if matches!(pixels, MapPixels::Grey8(_)) {
                        return Ok(None);
                    }
                    let png = encode_grey8(weight, width, flip_y)?;
                    Ok(Some((weight_file(*kind), png)))
                })
                .collect();
            for (((kind, _), file), entry) in maps.iter().zip(files).zip(entries.iter_mut()) {
                let name = match file? {
                    Some((name, png)) => {
                        bundle.add(name.clone(), png);
                        name
                    }
                    None => kind.meaning().file,
                };
                entry["layer"] = serde_json::json!({
                    "engine": plan.engine.name(),
                    "file": name,
                    "bits": 8,
                    "width": width,
                    "height": height,
                    "weight": weight_meaning(*kind),
                });
            }
        }
        Engine::Unity => {
            let (alpha_width, alpha_height) = plan.alpha_size;
            let resampled: Vec<Vec<u8>> = weights
                .par_iter()
                .map(|w| resample_bilinear(w, width, height, alpha_width, alpha_height))
                .collect();
            let images: Vec<Result<Vec<u8>, EncodeError>> = resampled
                .par_chunks(CHANNELS.len())
                .map(|group| {
                    let rgba = interleave(group, alpha_width * alpha_height);
                    encode_png(&rgba, alpha_width, alpha_height, ExtendedColorType::Rgba8)
                })
                .collect();
            for (i, png) in images.into_iter().enumerate() {
                bundle.add(alpha_file(i), png?);
            }
            for (index, ((kind, _), entry)) in maps.iter().zip(entries.iter_mut()).enumerate() {
                entry["layer"] = serde_json::json!({
                    "engine": plan.engine.name(),
                    "file": alpha_file(index / CHANNELS.len()),
                    "channel": CHANNELS[index % CHANNELS.len()],
                    "bits": 8,
                    "width": alpha_width,
                    "height": alpha_height,
                    "rows": "north first",
                    "weight": weight_meaning(*kind),
                });
            }
        }
    }
    Ok(())
}

/// The 8-bit weight file of a 16-bit map.
pub fn weight_file(kind: DerivedMap) -> String {
    format!("{}_weight.png", kind.name())
}

/// Unity alphamap `i` (maps `4i` to `4i + 3`).
pub fn alpha_file(i: usize) -> String {
    format!("maps_alpha_{i}.png")
}

fn pixel_count(pixels: &MapPixels) -> usize {
    match pixels {
        MapPixels::Grey8(v) => v.len(),
        MapPixels::Grey16(v) => v.len(),
    }
}

/// Up to four planes of `texels` samples as RGBA pixels; missing
/// channels are 0 (no weight).
fn interleave(planes: &[Vec<u8>], texels: usize) -> Vec<u8> {
    let mut rgba = vec![0u8; texels * CHANNELS.len()];
    rgba.par_chunks_mut(CHANNELS.len())
        .enumerate()
        .for_each(|(t, pixel)| {
            for (channel, plane) in pixel.iter_mut().zip(planes) {
                *channel = plane[t];
            }
        });
    rgba
}

/// Where texel `t` of `texels` samples an axis of `cells` cells: the cell
/// and fraction, texel centres mapped corner to corner (as the splat
/// texture samples the heights), so a texture one texel narrower than
/// the map puts each texel between four cells.
fn sample_axis(texels: usize, cells: usize) -> Vec<(usize, f32)> {
    let last = cells.saturating_sub(1) as f32;
    let scale = last / texels.max(1) as f32;
    (0..texels)
        .map(|t| {
            let c = ((t as f32 + 0.5) * scale).clamp(0.0, last);
            let i = (c.floor() as usize).min(cells.saturating_sub(2));
            (i, c - i as f32)
        })
        .collect()
}

/// `values` (`width x height`) resampled bilinearly to `to_width x
/// to_height`, rounded to 8 bits.
pub fn resample_bilinear(
    values: &[u8],
    width: usize,
    height: usize,
    to_width: usize,
    to_height: usize,
) -> Vec<u8> {
    if width < 2 || height < 2 {
        return vec![values.first().copied().unwrap_or(0); to_width * to_height];
    }
    let columns = sample_axis(to_width, width);
    let rows = sample_axis(to_height, height);
    let mut out = vec![0u8; to_width * to_height];
    out.par_chunks_mut(to_width.max(1))
        .zip(rows.par_iter())
        .for_each(|(row, &(y, fy))| {
            let (top, bottom) = (&values[y * width..], &values[(y + 1) * width..]);
            for (texel, &(x, fx)) in row.iter_mut().zip(&columns) {
                let at = |r: &[u8], i: usize| f32::from(r[i]);
                let upper = at(top, x) + (at(top, x + 1) - at(top, x)) * fx;
                let lower = at(bottom, x) + (at(bottom, x + 1) - at(bottom, x)) * fx;
                *texel = (upper + (lower - upper) * fy).round().clamp(0.0, 255.0) as u8;
            }
        });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_follow_their_documented_scales() {
        let depths = MapPixels::Grey16(vec![0, 100, 500, 1000, 4000]);
        assert_eq!(
            weights_of(DerivedMap::Lakes, &depths),
            [0, 26, 128, 255, 255]
        );
        assert_eq!(
            weights_of(DerivedMap::Wear, &depths),
            weights_of(DerivedMap::Lakes, &depths)
        );
        // 2048 · log2(1 + A) for A = 500 and 250 000, and 40 % of the way
        // between on the log scale (A = 500 · 500^0.4 ≈ 6005.6).
        let flow = |a: f32| (2048.0 * (1.0 + a).log2()).round() as u16;
        let areas = MapPixels::Grey16(vec![0, flow(500.0), flow(6005.6), flow(250_000.0)]);
        assert_eq!(weights_of(DerivedMap::Flow, &areas), [0, 0, 102, 255]);
        let own = MapPixels::Grey8(vec![3, 200]);
        assert_eq!(weights_of(DerivedMap::Occlusion, &own), [3, 200]);
    }

    #[test]
    fn one_texel_narrower_averages_the_four_cells_around_it() {
        let values = [0u8, 100, 200, 40, 60, 80];
        let out = resample_bilinear(&values, 3, 2, 2, 1);
        assert_eq!(out, [50, 110]);
        assert_eq!(resample_bilinear(&values, 3, 2, 3, 2).len(), 6);
    }

    #[test]
    fn channels_interleave_with_zeros_after_the_last_map() {
        let planes = vec![vec![1, 2], vec![3, 4], vec![5, 6]];
        assert_eq!(interleave(&planes, 2), [1, 3, 5, 0, 2, 4, 6, 0]);
    }
}
