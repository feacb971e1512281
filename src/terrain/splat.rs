//! Splat texture from height bands (ALGORITHMS §6, article 003's
//! `TextureMappingGenerator`), with slope rules and weight-map exports.
//!
//! Weights: each tile's visibility at the texel's height (the article's
//! `CalculateTilePresent`, end tiles saturating) times its slope factor,
//! normalised so the weights sum to 1 and the texture never darkens or
//! brightens where edited bands overlap or leave gaps.

use crate::terrain::heightmap::Heightmap;
use crate::terrain::params::{ParamVisitor, Params, Span};
use crate::terrain::tiles::builtin_tile;
use image::RgbImage;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One texture layer: an image and where it shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tile {
    pub name: String,
    /// Image file, or `builtin:<name>` for a shipped tile.
    pub image: String,
    pub low: f32,
    pub optimal: f32,
    pub high: f32,
    /// Slope range in degrees where this tile may show (soft 5° edges).
    pub slope: Option<Span>,
    /// Tile pixels per texture texel: 1 repeats the tile every 256 texels
    /// for a 256² tile, 0.5 stretches it twice as wide.
    pub scale: f32,
    /// Used when the image cannot be loaded.
    pub fallback_color: [u8; 3],
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileSet {
    /// Lowest band first.
    pub tiles: Vec<Tile>,
    /// Re-run the article's band assignment over the map's range whenever
    /// the map changes; editing a band turns this off.
    pub auto_bands: bool,
}

fn builtin(name: &str, color: [u8; 3], slope: Option<Span>) -> Tile {
    Tile {
        name: name.to_string(),
        image: format!("builtin:{name}"),
        low: 0.0,
        optimal: 0.0,
        high: 0.0,
        slope,
        scale: 1.0,
        fallback_color: color,
    }
}

impl Default for TileSet {
    fn default() -> Self {
        let mut set = TileSet {
            tiles: vec![
                builtin("sand", [200, 180, 128], None),
                builtin("grass", [78, 112, 42], Some(Span::new(0.0, 38.0))),
                builtin("rock", [120, 114, 106], None),
                builtin("snow", [236, 240, 246], Some(Span::new(0.0, 42.0))),
            ],
            auto_bands: true,
        };
        set.auto_assign(0.0, 100.0);
        set
    }
}

impl TileSet {
    /// The article's `AssainTilesRange` over `min..max` (the article uses
    /// 0..max after clamping negatives; orogen uses the map's real range):
    /// `unit = range/(k+1)`, tile i gets optimal `min + i·unit` and
    /// `low/high = optimal ∓ unit`.
    pub fn auto_assign(&mut self, min: f32, max: f32) {
        let k = self.tiles.len();
        let unit = (max - min) / (k + 1) as f32;
        for (i, tile) in self.tiles.iter_mut().enumerate() {
            let optimal = min + (i + 1) as f32 * unit;
            tile.optimal = optimal;
            tile.low = optimal - unit;
            tile.high = optimal + unit;
        }
    }

    /// The bands to render with: auto-assigned over `min..max` when
    /// `auto_bands` is on, as edited otherwise.
    pub fn effective(&self, min: f32, max: f32) -> TileSet {
        let mut set = self.clone();
        if set.auto_bands {
            set.auto_assign(min, max);
        }
        set
    }

    /// One-line error for inconsistent tiles.
    pub fn validate(&mut self) -> Result<(), crate::terrain::params::ParamError> {
        if self.tiles.is_empty() || self.tiles.len() > 16 {
            return Err(crate::terrain::params::ParamError {
                path: "tiles".into(),
                message: format!("{} tiles; allowed 1 to 16", self.tiles.len()),
            });
        }
        for (i, tile) in self.tiles.iter_mut().enumerate() {
            crate::terrain::params::validate(tile, &format!("tiles[{i}]"))?;
            if !(tile.low <= tile.optimal && tile.optimal <= tile.high) {
                return Err(crate::terrain::params::ParamError {
                    path: format!("tiles[{i}]"),
                    message: format!(
                        "band must satisfy low ≤ optimal ≤ high (got {} / {} / {})",
                        tile.low, tile.optimal, tile.high
                    ),
                });
            }
        }
        Ok(())
    }
}

impl Params for Tile {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.text(
            "name",
            &mut self.name,
            "Name of the layer (used for splat_<i>.png documentation).",
        );
        v.text(
            "image",
            &mut self.image,
            "PNG/JPEG/TGA/BMP file, or builtin:sand / grass / rock / snow.",
        );
        let range = -1_000_000.0..=1_000_000.0;
        v.float(
            "low",
            &mut self.low,
            range.clone(),
            "Below this height the tile is invisible (except the lowest tile).",
        );
        v.float(
            "optimal",
            &mut self.optimal,
            range.clone(),
            "At this height the tile is fully visible.",
        );
        v.float(
            "high",
            &mut self.high,
            range,
            "Above this height the tile is invisible (except the highest tile).",
        );
        v.optional_span(
            "slope",
            &mut self.slope,
            0.0..=90.0,
            "Slope range in degrees where the tile may show (soft 5° edges); empty = any slope.",
        );
        v.float(
            "scale",
            &mut self.scale,
            0.01..=64.0,
            "Tile pixels per texture texel: smaller values stretch the tile.",
        );
    }
}

/// Visibility of tile `index` of `count` at height `v`
/// (`CalculateTilePresent`). The lowest tile below its optimal and the
/// highest above it stay at 1.
pub fn visibility(tile: &Tile, index: usize, count: usize, v: f32) -> f32 {
    if v == tile.optimal {
        return 1.0;
    }
    if v < tile.optimal {
        if index == 0 {
            return 1.0;
        }
        if v <= tile.low {
            return 0.0;
        }
        return (v - tile.low) / (tile.optimal - tile.low);
    }
    if index + 1 == count {
        return 1.0;
    }
    if v >= tile.high {
        return 0.0;
    }
    (tile.high - v) / (tile.high - tile.optimal)
}

/// Slope factor: 1 inside the range, fading to 0 over 5° outside it.
pub fn slope_factor(rule: Option<Span>, degrees: f32) -> f32 {
    const SOFT: f32 = 5.0;
    match rule {
        None => 1.0,
        Some(r) => {
            let below = ((degrees - (r.min - SOFT)) / SOFT).clamp(0.0, 1.0);
            let above = (((r.max + SOFT) - degrees) / SOFT).clamp(0.0, 1.0);
            if r.min <= 0.0 {
                above
            } else {
                below.min(above)
            }
        }
    }
}

/// Per-tile weights at one point, summing to 1. Falls back to height
/// alone where slope rules exclude every tile, and to the nearest optimal
/// where edited bands leave a gap.
pub fn weights_at(tiles: &[Tile], height: f32, slope_degrees: f32, out: &mut [f32]) {
    let k = tiles.len();
    let mut sum = 0.0;
    for (i, t) in tiles.iter().enumerate() {
        out[i] = visibility(t, i, k, height) * slope_factor(t.slope, slope_degrees);
        sum += out[i];
    }
    if sum <= 1e-6 {
        sum = 0.0;
        for (i, t) in tiles.iter().enumerate() {
            out[i] = visibility(t, i, k, height);
            sum += out[i];
        }
    }
    if sum <= 1e-6 {
        let nearest = tiles
            .iter()
            .enumerate()
            .min_by(|a, b| {
                (a.1.optimal - height)
                    .abs()
                    .total_cmp(&(b.1.optimal - height).abs())
            })
            .map(|(i, _)| i)
            .unwrap_or(0);
        out[..k].iter_mut().for_each(|w| *w = 0.0);
        out[nearest] = 1.0;
        return;
    }
    out[..k].iter_mut().for_each(|w| *w /= sum);
}

/// [`weights_at`] with every per-tile constant (reciprocals of the band
/// widths, slope ramps) worked out once per render instead of per texel.
struct WeightRules {
    tiles: Vec<TileRule>,
}

struct TileRule {
    low: f32,
    optimal: f32,
    high: f32,
    inv_rise: f32,
    inv_fall: f32,
    saturate_below: bool,
    saturate_above: bool,
    slope: Option<(f32, f32)>,
}

impl WeightRules {
    fn new(tiles: &[Tile]) -> Self {
        let k = tiles.len();
        let inv = |d: f32| if d > 0.0 { 1.0 / d } else { 0.0 };
        WeightRules {
            tiles: tiles
                .iter()
                .enumerate()
                .map(|(i, t)| TileRule {
                    low: t.low,
                    optimal: t.optimal,
                    high: t.high,
                    inv_rise: inv(t.optimal - t.low),
                    inv_fall: inv(t.high - t.optimal),
                    saturate_below: i == 0,
                    saturate_above: i + 1 == k,
                    slope: t.slope.map(|s| (s.min, s.max)),
                })
                .collect(),
        }
    }

    /// Weights for a whole row of texels, tile-major: `out[i·n + x]` is
    /// tile i at texel x, for `n = heights.len()`. Each loop runs over the
    /// row with no data-dependent branch, so it vectorises; the same
    /// expressions as [`visibility`] and [`slope_factor`] give the same
    /// values up to float rounding of the normalisation.
    #[inline(always)]
    fn weights_row(
        &self,
        tiles: &[Tile],
        heights: &[f32],
        slopes: &[f32],
        sums: &mut [f32],
        out: &mut [f32],
    ) {
        const SOFT: f32 = 5.0;
        let n = heights.len();
        for (t, row) in self.tiles.iter().zip(out.chunks_exact_mut(n)) {
            // The saturating end tiles never fade: their ramp is floored
            // at 1 (and min(ramp, 1) = 1 after the clamp).
            let (low, optimal, high) = (t.low, t.optimal, t.high);
            let (inv_rise, inv_fall) = (t.inv_rise, t.inv_fall);
            let rise_floor = if t.saturate_below { 1.0 } else { f32::MIN };
            let fall_floor = if t.saturate_above { 1.0 } else { f32::MIN };
            for (o, &v) in row.iter_mut().zip(heights) {
                let rise = if v >= optimal {
                    1.0
                } else {
                    (v - low) * inv_rise
                };
                let fall = if v <= optimal {
                    1.0
                } else {
                    (high - v) * inv_fall
                };
                let ramp = smaller(larger(rise, rise_floor), larger(fall, fall_floor));
                *o = ramp.clamp(0.0, 1.0);
            }
            if let Some((lo, hi)) = t.slope {
                let upper = hi + SOFT;
                let lower = lo - SOFT;
                if lo <= 0.0 {
                    for (o, &d) in row.iter_mut().zip(slopes) {
                        *o *= ((upper - d) * (1.0 / SOFT)).clamp(0.0, 1.0);
                    }
                } else {
                    for (o, &d) in row.iter_mut().zip(slopes) {
                        let above = ((upper - d) * (1.0 / SOFT)).clamp(0.0, 1.0);
                        let below = ((d - lower) * (1.0 / SOFT)).clamp(0.0, 1.0);
                        *o *= smaller(below, above);
                    }
                }
            }
        }
        sums.fill(0.0);
        for row in out.chunks_exact(n) {
            for (s, &w) in sums.iter_mut().zip(row) {
                *s += w;
            }
        }
        // Rare: every tile excluded somewhere on the row. A branch-free
        // minimum finds out; only then are those texels given the exact
        // path's fallbacks.
        // (`f32::min` here: the compiler reorders its reduction into vector
        // lanes, which it may not do for a plain comparison.)
        if sums.iter().fold(f32::INFINITY, |m, &s| m.min(s)) <= 1e-6 {
            for x in 0..n {
                if sums[x] <= 1e-6 {
                    let mut w = vec![0.0f32; tiles.len()];
                    weights_at(tiles, heights[x], slopes[x], &mut w);
                    for (i, &wi) in w.iter().enumerate() {
                        out[i * n + x] = wi;
                    }
                    sums[x] = 1.0;
                }
            }
        }
        for s in sums.iter_mut() {
            *s = 1.0 / *s;
        }
        for row in out.chunks_exact_mut(n) {
            for (w, &inv) in row.iter_mut().zip(sums.iter()) {
                *w *= inv;
            }
        }
    }
}

/// `f32::max` without its NaN rule, which costs two extra vector
/// instructions per use; no value it sees here is NaN.
#[inline(always)]
fn larger(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// `f32::min` without its NaN rule (see [`larger`]).
#[inline(always)]
fn smaller(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// Slope in degrees at every cell, from central differences in world units.
pub fn slope_map(map: &Heightmap, cell_size: f32) -> Heightmap {
    let (w, h) = (map.width(), map.height());
    let mut out = Heightmap::new(w, h);
    let inv_cell = 1.0 / cell_size;
    out.data_mut()
        .par_chunks_mut(w)
        .enumerate()
        .for_each(|(y, row)| slope_row(map, inv_cell, y, row));
    out
}

/// One row of [`slope_map`], compiled for AVX2 too (chosen at run time;
/// no FMA, so the values round as on any x86-64).
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn slope_row(map: &Heightmap, inv_cell: f32, y: usize, row: &mut [f32]) {
    let (w, h) = (map.width(), map.height());
    let (yu, yd) = (y.saturating_sub(1), (y + 1).min(h - 1));
    let inv_dy = inv_cell / (yd - yu).max(1) as f32;
    let (above, here, below) = (map.row(yu), map.row(y), map.row(yd));
    let slope_at = |x: usize, xl: usize, xr: usize| {
        let dx = (here[xr] - here[xl]) * inv_cell / (xr - xl).max(1) as f32;
        let dy = (below[x] - above[x]) * inv_dy;
        atan_degrees((dx * dx + dy * dy).sqrt())
    };
    if w < 3 {
        for (x, cell) in row.iter_mut().enumerate() {
            *cell = slope_at(x, x.saturating_sub(1), (x + 1).min(w - 1));
        }
        return;
    }
    // Interior: a straight loop the compiler vectorises.
    let half_inv = inv_cell * 0.5;
    for x in 1..w - 1 {
        let dx = (here[x + 1] - here[x - 1]) * half_inv;
        let dy = (below[x] - above[x]) * inv_dy;
        row[x] = atan_degrees((dx * dx + dy * dy).sqrt());
    }
    row[0] = slope_at(0, 0, 1);
    row[w - 1] = slope_at(w - 1, w - 2, w - 1);
}

/// `atan(g)` in degrees for `g >= 0`, by a minimax polynomial (error
/// below 0.001°). `f32::atan` is a libm call that dominated the splat's
/// run time at 1025²; this one vectorises.
#[inline]
pub fn atan_degrees(g: f32) -> f32 {
    let invert = g > 1.0;
    let x = if invert { 1.0 / larger(g, 1.0) } else { g };
    let x2 = x * x;
    let p = x
        * (0.999_977_26
            + x2 * (-0.332_623_47
                + x2 * (0.193_543_46
                    + x2 * (-0.116_432_87 + x2 * (0.052_653_32 - 0.011_721_2 * x2)))));
    let radians = if invert {
        std::f32::consts::FRAC_PI_2 - p
    } else {
        p
    };
    radians.to_degrees()
}

/// Loaded tile pixels, one image per tile (a flat colour if unreadable).
#[derive(Clone)]
pub struct TileImages {
    pub images: Vec<RgbImage>,
}

/// Loads one tile's image: `builtin:` names, or a file with a clear error.
pub fn load_tile_image(spec: &str, base_dir: Option<&Path>) -> Result<RgbImage, String> {
    if let Some(name) = spec.strip_prefix("builtin:") {
        return builtin_tile(name).ok_or_else(|| {
            format!(
                "no built-in tile '{name}' (built-in: {})",
                crate::terrain::tiles::BUILTIN_TILES.join(", ")
            )
        });
    }
    let mut path = PathBuf::from(spec);
    if let Some(base) = base_dir
        && path.is_relative()
    {
        path = base.join(path);
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("tile image {}: {e}", path.display()))?;
    decode_tile_image(&bytes).map_err(|e| format!("tile image {}: {e}", path.display()))
}

/// Decodes PNG/JPEG/TGA/BMP bytes with size limits.
pub fn decode_tile_image(bytes: &[u8]) -> Result<RgbImage, String> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| e.to_string())?;
    if reader.format().is_none() {
        // TGA has no magic number; try it last.
        reader.set_format(image::ImageFormat::Tga);
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(8192);
    limits.max_image_height = Some(8192);
    limits.max_alloc = Some(512 << 20);
    reader.limits(limits);
    let image = reader
        .decode()
        .map_err(|e| format!("unreadable image: {e}"))?;
    if image.width() == 0 || image.height() == 0 {
        return Err("image is empty".into());
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

/// The rendered texture and weights.
#[derive(Clone, Debug)]
pub struct SplatTexture {
    pub width: usize,
    pub height: usize,
    /// RGB8, row 0 = north.
    pub rgb: Vec<u8>,
    /// Per tile weight in 0..=255: one `width x height` plane per tile,
    /// tile 0 first.
    pub weights: Vec<u8>,
    pub tiles: usize,
}

impl SplatTexture {
    /// RGBA8 with channel i = weight of tile i for the first four tiles.
    pub fn splat_rgba(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.width * self.height * 4];
        for (c, plane) in self.planes().take(4).enumerate() {
            for (px, &v) in out.chunks_exact_mut(4).zip(plane) {
                px[c] = v;
            }
        }
        out
    }

    /// Grayscale weight map of one tile.
    pub fn layer(&self, tile: usize) -> Vec<u8> {
        self.planes().nth(tile).unwrap_or_default().to_vec()
    }

    /// The weight planes, one per tile.
    pub fn planes(&self) -> impl Iterator<Item = &[u8]> {
        self.weights.chunks_exact((self.width * self.height).max(1))
    }

    /// RGBA8 of the colour texture (opaque), for GPU upload.
    pub fn rgba(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.width * self.height * 4);
        for px in self.rgb.chunks_exact(3) {
            out.extend_from_slice(&[px[0], px[1], px[2], 255]);
        }
        out
    }
}

/// Where texel column (or row) `t` of `texels` samples a map axis of
/// `cells` cells: the cell index and fraction of true bilinear
/// interpolation, texel centres mapped corner to corner.
fn sample_axis(texels: usize, cells: usize) -> Vec<(usize, f32)> {
    let scale = (cells - 1) as f32 / texels as f32;
    (0..texels)
        .map(|t| {
            let c = ((t as f32 + 0.5) * scale).clamp(0.0, (cells - 1) as f32);
            let i = (c.floor() as usize).min(cells.saturating_sub(2));
            (i, c - i as f32)
        })
        .collect()
}

/// The texel columns' samples along a map row, split into cell indices
/// and fractions so the horizontal pass gathers with vector loads.
struct ColumnSamples {
    cell: Vec<u32>,
    fraction: Vec<f32>,
    /// `Some((first, f))` when column t samples cell `first + t` at
    /// fraction f for every t (a texture one texel narrower than the map,
    /// the default): the pass is then contiguous.
    shifted: Option<(usize, f32)>,
}

impl ColumnSamples {
    fn new(texels: usize, cells: usize) -> Self {
        let (cell, fraction): (Vec<u32>, Vec<f32>) = sample_axis(texels, cells)
            .into_iter()
            .map(|(i, f)| (i as u32, f))
            .unzip();
        let shifted = match (cell.first(), fraction.first()) {
            (Some(&first), Some(&f))
                if cell
                    .iter()
                    .enumerate()
                    .all(|(t, &c)| c as usize == first as usize + t)
                    && fraction.iter().all(|&x| x == f) =>
            {
                Some((first as usize, f))
            }
            _ => None,
        };
        ColumnSamples {
            cell,
            fraction,
            shifted,
        }
    }
}

/// One texel row of bilinear samples. The two map rows are blended first
/// (one contiguous pass over the map row into `blended`, which holds one
/// extra cell so a one-cell-wide map needs no special case), then each
/// texel interpolates two neighbours of that blend.
#[inline(always)]
fn bilinear_row(
    top: &[f32],
    bottom: &[f32],
    fy: f32,
    columns: &ColumnSamples,
    blended: &mut Vec<f32>,
    out: &mut [f32],
) {
    blended.clear();
    blended.extend(
        top.iter()
            .zip(bottom)
            .map(|(&t, &b)| t * (1.0 - fy) + b * fy),
    );
    blended.push(blended[blended.len() - 1]);
    if let Some((first, f)) = columns.shifted {
        let (left, right) = (&blended[first..], &blended[first + 1..]);
        for ((o, &l), &r) in out.iter_mut().zip(left).zip(right) {
            *o = l * (1.0 - f) + r * f;
        }
        return;
    }
    let last = blended.len() - 2;
    assert!(columns.cell.iter().all(|&c| c as usize <= last));
    for ((o, &c), &f) in out.iter_mut().zip(&columns.cell).zip(&columns.fraction) {
        // SAFETY: every cell index is at most `last` (asserted above), so
        // `c` and `c + 1` are inside `blended`.
        let (l, r) = unsafe {
            (
                *blended.get_unchecked(c as usize),
                *blended.get_unchecked(c as usize + 1),
            )
        };
        *o = l * (1.0 - f) + r * f;
    }
}

/// `x` clamped to 0..=255 and rounded to the nearest integer (ties to
/// even). Adding 2²³ leaves the rounded integer in the low mantissa bits:
/// plain arithmetic that vectorises, where a float-to-int cast costs
/// several branches per value for its NaN and overflow rules.
#[inline]
pub fn round_to_u8(x: f32) -> u8 {
    (x.clamp(0.0, 255.0) + 8_388_608.0).to_bits() as u8
}

/// Renders the splat texture at `width x height` texels. Texel centres map
/// onto the heightmap corner to corner with true bilinear interpolation.
/// Per-column lookups (map cell, fraction, tile column for every tile) are
/// computed once, so the per-texel work is a few loads and multiplies.
pub fn render_splat(
    map: &Heightmap,
    cell_size: f32,
    tiles: &TileSet,
    images: &TileImages,
    width: usize,
    height: usize,
) -> SplatTexture {
    let stats = map.stats();
    let set = tiles.effective(stats.min, stats.max);
    let k = set.tiles.len();
    let rules = WeightRules::new(&set.tiles);
    let columns = ColumnSamples::new(width, map.width());
    let rows = sample_axis(height, map.height());
    let image_of = |i: usize| &images.images[i.min(images.images.len() - 1)];
    let tile_columns: Vec<TileColumns> = (0..k)
        .map(|i| TileColumns::new(width, set.tiles[i].scale, image_of(i).width()))
        .collect();
    let mut rgb = vec![0u8; width * height * 3];
    let mut weights = vec![0u8; width * height * k];
    // Each texel row writes one row in every tile's weight plane.
    let mut weight_rows: Vec<Vec<&mut [u8]>> = (0..height).map(|_| Vec::with_capacity(k)).collect();
    for plane in weights.chunks_exact_mut((width * height).max(1)) {
        for (rows_of_texel_row, row) in weight_rows.iter_mut().zip(plane.chunks_exact_mut(width)) {
            rows_of_texel_row.push(row);
        }
    }
    let job = RowJob {
        map,
        inv_cell: 1.0 / cell_size,
        columns: &columns,
        rows: &rows,
        rules: &rules,
        set: &set,
        images,
        tile_columns: &tile_columns,
        width,
    };
    // Jobs of consecutive texel rows, so each worker computes every slope
    // row it needs once and keeps it for the next texel row.
    const ROWS_PER_JOB: usize = 16;
    rgb.par_chunks_mut(width * 3 * ROWS_PER_JOB)
        .zip(weight_rows.par_chunks_mut(ROWS_PER_JOB))
        .enumerate()
        .for_each_init(
            || RowScratch::new(width, k),
            |scratch, (index, (rgb_rows, weight_rows))| {
                for (i, (rgb_row, weight_row)) in rgb_rows
                    .chunks_exact_mut(width * 3)
                    .zip(weight_rows.iter_mut())
                    .enumerate()
                {
                    render_row(&job, scratch, index * ROWS_PER_JOB + i, rgb_row, weight_row);
                }
            },
        );
    SplatTexture {
        width,
        height,
        rgb,
        weights,
        tiles: k,
    }
}

/// What every texel row of one render shares.
struct RowJob<'a> {
    map: &'a Heightmap,
    /// Reciprocal cell size, for slopes in world units.
    inv_cell: f32,
    columns: &'a ColumnSamples,
    rows: &'a [(usize, f32)],
    rules: &'a WeightRules,
    set: &'a TileSet,
    images: &'a TileImages,
    /// Per tile, which pixel column each texel column shows.
    tile_columns: &'a [TileColumns],
    width: usize,
}

/// Which tile pixel column each texel column shows (`GetTexCoords`:
/// texel coordinates scaled per tile, wrapped by its size). At scale 1
/// the columns form long unit-stride runs, blended as contiguous slices
/// that vectorise; other scales gather column by column.
struct TileColumns {
    pixel_of_texel: Vec<u32>,
    runs: Option<Vec<ColumnRun>>,
}

/// Texels `texel..texel + len` show pixels `pixel..pixel + len`.
struct ColumnRun {
    texel: usize,
    pixel: usize,
    len: usize,
}

impl TileColumns {
    fn new(width: usize, scale: f32, tile_width: u32) -> Self {
        let pixel_of_texel: Vec<u32> = (0..width)
            .map(|tx| ((tx as f32 * scale) as u32) % tile_width)
            .collect();
        let mut runs = Vec::new();
        let mut start = 0;
        for tx in 1..=width {
            if tx == width || pixel_of_texel[tx] != pixel_of_texel[tx - 1] + 1 {
                runs.push(ColumnRun {
                    texel: start,
                    pixel: pixel_of_texel[start] as usize,
                    len: tx - start,
                });
                start = tx;
            }
        }
        // Slices pay only when runs are long; short ones cost more per
        // texel than the gather.
        let runs = (width >= 16 * runs.len()).then_some(runs);
        TileColumns {
            pixel_of_texel,
            runs,
        }
    }

    /// `plane[x] += weight[x] · source[pixel of x]` for one colour channel.
    #[inline(always)]
    fn blend(&self, source: &[f32], weight: &[f32], plane: &mut [f32]) {
        match &self.runs {
            Some(runs) => {
                for run in runs {
                    let span = run.texel..run.texel + run.len;
                    let pixels = &source[run.pixel..run.pixel + run.len];
                    for ((c, &w), &p) in plane[span.clone()]
                        .iter_mut()
                        .zip(&weight[span])
                        .zip(pixels)
                    {
                        *c += w * p;
                    }
                }
            }
            None => {
                for ((c, &w), &i) in plane.iter_mut().zip(weight).zip(&self.pixel_of_texel) {
                    *c += w * source[i as usize];
                }
            }
        }
    }
}

/// The two most recent slope rows one worker computed ([`slope_row`]),
/// keyed by map row: consecutive texel rows mostly share them.
struct SlopeRows {
    rows: [(usize, Vec<f32>); 2],
}

impl Default for SlopeRows {
    fn default() -> Self {
        SlopeRows {
            rows: [(usize::MAX, Vec::new()), (usize::MAX, Vec::new())],
        }
    }
}

impl SlopeRows {
    /// Slope rows `y0` and `y1`, computing whichever is missing.
    fn pair(&mut self, map: &Heightmap, inv_cell: f32, y0: usize, y1: usize) -> (&[f32], &[f32]) {
        let a = self.ensure(map, inv_cell, y0, y1);
        let b = self.ensure(map, inv_cell, y1, y0);
        (&self.rows[a].1, &self.rows[b].1)
    }

    /// The slot holding slope row `y`, computed into a slot that does not
    /// hold row `keep` if it is missing.
    fn ensure(&mut self, map: &Heightmap, inv_cell: f32, y: usize, keep: usize) -> usize {
        if let Some(slot) = self.rows.iter().position(|(row, _)| *row == y) {
            return slot;
        }
        let slot = if self.rows[0].0 == keep { 1 } else { 0 };
        let (row, values) = &mut self.rows[slot];
        values.resize(map.width(), 0.0);
        slope_row(map, inv_cell, y, values);
        *row = y;
        slot
    }
}

/// Per-row scratch, reused across the rows one worker renders: height
/// and slope samples, tile weights and their sums, one tile pixel row as
/// planar f32, and the colour row as planar f32 before rounding.
struct RowScratch {
    slopes: SlopeRows,
    samples: Vec<f32>,
    blended: Vec<f32>,
    weights: Vec<f32>,
    sums: Vec<f32>,
    tile_row: Vec<f32>,
    color: Vec<f32>,
}

impl RowScratch {
    fn new(width: usize, tiles: usize) -> Self {
        RowScratch {
            slopes: SlopeRows::default(),
            samples: vec![0.0; width * 2],
            blended: Vec::new(),
            weights: vec![0.0; width * tiles],
            sums: vec![0.0; width],
            tile_row: Vec::new(),
            color: vec![0.0; width * 3],
        }
    }
}

/// One texel row, compiled for AVX2 too (chosen at run time): with no FMA
/// enabled every value rounds as on any x86-64, so the bytes are the same.
/// Colours are summed per channel in tile order, as one texel at a time
/// would, so the planar layout changes no value.
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn render_row(
    job: &RowJob,
    scratch: &mut RowScratch,
    ty: usize,
    rgb_row: &mut [u8],
    weight_row: &mut [&mut [u8]],
) {
    let width = job.width;
    let image_of = |i: usize| &job.images.images[i.min(job.images.images.len() - 1)];
    let RowScratch {
        slopes,
        samples,
        blended,
        weights,
        sums,
        tile_row,
        color,
    } = scratch;
    let (y0, fy) = job.rows[ty];
    let y1 = (y0 + 1).min(job.map.height() - 1);
    let (heights, slopes_row) = samples.split_at_mut(width);
    let (map_top, map_bottom) = (job.map.row(y0), job.map.row(y1));
    bilinear_row(map_top, map_bottom, fy, job.columns, blended, heights);
    let (slope_top, slope_bottom) = slopes.pair(job.map, job.inv_cell, y0, y1);
    bilinear_row(
        slope_top,
        slope_bottom,
        fy,
        job.columns,
        blended,
        slopes_row,
    );
    job.rules
        .weights_row(&job.set.tiles, heights, slopes_row, sums, weights);
    color.fill(0.0);
    let (red, rest) = color.split_at_mut(width);
    let (green, blue) = rest.split_at_mut(width);
    for (i, tile_w) in weights.chunks_exact(width).enumerate() {
        // Tiles with no weight on this row add nothing.
        if tile_w.iter().fold(0.0f32, |m, &x| m.max(x)) <= 0.0 {
            continue;
        }
        let img = image_of(i);
        let tile_width = img.width() as usize;
        let py = ((ty as f32 * job.set.tiles[i].scale) as u32) % img.height();
        let stride = tile_width * 3;
        let pixels = &img.as_raw()[py as usize * stride..(py as usize + 1) * stride];
        tile_row.resize(stride, 0.0);
        let (tile_red, rest) = tile_row.split_at_mut(tile_width);
        let (tile_green, tile_blue) = rest.split_at_mut(tile_width);
        for (x, p) in pixels.chunks_exact(3).enumerate() {
            tile_red[x] = p[0] as f32;
            tile_green[x] = p[1] as f32;
            tile_blue[x] = p[2] as f32;
        }
        let columns = &job.tile_columns[i];
        columns.blend(tile_red, tile_w, red);
        columns.blend(tile_green, tile_w, green);
        columns.blend(tile_blue, tile_w, blue);
    }
    for (((o, &r), &g), &b) in rgb_row
        .chunks_exact_mut(3)
        .zip(red.iter())
        .zip(green.iter())
        .zip(blue.iter())
    {
        o[0] = round_to_u8(r);
        o[1] = round_to_u8(g);
        o[2] = round_to_u8(b);
    }
    for (out, tile_w) in weight_row.iter_mut().zip(weights.chunks_exact(width)) {
        for (o, &wi) in out.iter_mut().zip(tile_w) {
            *o = round_to_u8(wi * 255.0);
        }
    }
}

/// Adds `texture.png`, `splat.png` and `splat_<i>.png` to an export.
pub fn add_texture_files(
    bundle: &mut crate::terrain::export::ExportBundle,
    splat: &SplatTexture,
) -> Result<(), String> {
    use crate::terrain::export::encode_png;
    use image::ExtendedColorType;
    bundle.add(
        "texture.png",
        encode_png(
            &splat.rgb,
            splat.width,
            splat.height,
            ExtendedColorType::Rgb8,
        )?,
    );
    bundle.add(
        "splat.png",
        encode_png(
            &splat.splat_rgba(),
            splat.width,
            splat.height,
            ExtendedColorType::Rgba8,
        )?,
    );
    for i in 0..splat.tiles {
        bundle.add(
            format!("splat_{i}.png"),
            encode_png(
                &splat.layer(i),
                splat.width,
                splat.height,
                ExtendedColorType::L8,
            )?,
        );
    }
    Ok(())
}
