//! Renders the splat texture row by row: bilinear height and slope per
//! texel, weights per tile, colours blended from the tile images.

use super::map_rule::{RuleMaps, rule_map_kinds};
use super::slope::slope_row;
use super::weights::WeightRules;
use super::{SplatTexture, TileImages, TileSet};
use crate::heightmap::Heightmap;
use crate::hugepages::zeroed_in_parallel;
use rayon::prelude::*;

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

/// What [`render_splat`] cannot paint.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SplatError {
    /// The tile set is empty.
    #[error("cannot paint a splat texture without tiles")]
    NoTiles,
    /// No tile images were given.
    #[error("cannot paint a splat texture without tile images")]
    NoTileImages,
    /// A texture side of zero texels.
    #[error("splat texture size {width}x{height}: each side needs at least one texel")]
    NoTexels {
        /// Texels west to east.
        width: usize,
        /// Texels north to south.
        height: usize,
    },
    /// A cell size that is zero, negative or not finite.
    #[error("cell size {0}: expected a positive number")]
    CellSize(f32),
}

/// Renders the splat texture at `width x height` texels. Texel centres map
/// onto the heightmap corner to corner with true bilinear interpolation.
/// Per-column lookups (map cell, fraction, tile column for every tile) are
/// computed once, so the per-texel work is a few loads and multiplies.
///
/// Refuses, in one line, what it cannot paint: no tiles, no tile images,
/// a texture without texels or a cell size that is not positive.
///
/// Map rules read maps derived from `map` here; `wear` and `deposition`
/// need the erosion stages' record and read 0 without it (see
/// [`render_splat_with_maps`]).
pub fn render_splat(
    map: &Heightmap,
    cell_size: f32,
    tiles: &TileSet,
    images: &TileImages,
    width: usize,
    height: usize,
) -> Result<SplatTexture, SplatError> {
    let kinds = rule_map_kinds(tiles.tiles.iter().map(|t| &t.map));
    let maps = if kinds.is_empty() || !(cell_size > 0.0 && cell_size.is_finite()) {
        RuleMaps::default()
    } else {
        RuleMaps::compute(&kinds, map, cell_size, None)
    };
    render_splat_with_maps(map, cell_size, tiles, images, width, height, &maps)
}

/// [`render_splat`] with the map rules reading `maps` (values per cell of
/// `map`; a rule whose map is not among them is not applied).
pub fn render_splat_with_maps(
    map: &Heightmap,
    cell_size: f32,
    tiles: &TileSet,
    images: &TileImages,
    width: usize,
    height: usize,
    maps: &RuleMaps,
) -> Result<SplatTexture, SplatError> {
    if tiles.tiles.is_empty() {
        return Err(SplatError::NoTiles);
    }
    if images.images.is_empty() {
        return Err(SplatError::NoTileImages);
    }
    if width == 0 || height == 0 {
        return Err(SplatError::NoTexels { width, height });
    }
    if !(cell_size > 0.0 && cell_size.is_finite()) {
        return Err(SplatError::CellSize(cell_size));
    }
    let (min, max) = map.range();
    let set = tiles.effective(min, max);
    let k = set.tiles.len();
    // Only maps of this map's size are read; others cannot be sampled.
    let maps = usable_maps(maps, map);
    let rules = WeightRules::new(&set.tiles, &maps.kinds);
    let columns = ColumnSamples::new(width, map.width());
    let rows = sample_axis(height, map.height());
    let image_of = |i: usize| &images.images[i.min(images.images.len() - 1)];
    let tile_columns: Vec<TileColumns> = (0..k)
        .map(|i| TileColumns::new(width, set.tiles[i].scale, image_of(i).width()))
        .collect();
    let mut rgb = zeroed_in_parallel(width * height * 3);
    let mut weights = zeroed_in_parallel(width * height * k);
    // Each texel row writes one row in every tile's weight plane.
    let mut weight_rows: Vec<Vec<&mut [u8]>> = (0..height).map(|_| Vec::with_capacity(k)).collect();
    for plane in weights.chunks_exact_mut((width * height).max(1)) {
        for (rows_of_texel_row, row) in weight_rows.iter_mut().zip(plane.chunks_exact_mut(width)) {
            rows_of_texel_row.push(row);
        }
    }
    let job = RowJob {
        map,
        maps: &maps.values,
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
            || RowScratch::new(width, k, maps.values.len()),
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
    Ok(SplatTexture {
        width,
        height,
        rgb,
        weights,
        tiles: k,
    })
}

/// The slots of `maps` with one value per cell of `map`.
fn usable_maps<'a>(maps: &'a RuleMaps, map: &Heightmap) -> UsableMaps<'a> {
    let cells = map.data().len();
    let (kinds, values) = maps
        .kinds
        .iter()
        .zip(&maps.values)
        .filter(|(_, v)| v.len() == cells)
        .map(|(&k, v)| (k, v.as_slice()))
        .unzip();
    UsableMaps { kinds, values }
}

/// Rule maps a render reads, by slot.
struct UsableMaps<'a> {
    kinds: Vec<crate::maps::DerivedMap>,
    values: Vec<&'a [f32]>,
}

/// What every texel row of one render shares.
struct RowJob<'a> {
    map: &'a Heightmap,
    /// The rule maps' values per map cell, by slot.
    maps: &'a [&'a [f32]],
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
    /// The rule maps' bilinear samples, slot-major.
    map_samples: Vec<f32>,
    blended: Vec<f32>,
    weights: Vec<f32>,
    sums: Vec<f32>,
    tile_row: Vec<f32>,
    color: Vec<f32>,
}

impl RowScratch {
    fn new(width: usize, tiles: usize, maps: usize) -> Self {
        RowScratch {
            slopes: SlopeRows::default(),
            samples: vec![0.0; width * 2],
            map_samples: vec![0.0; width * maps],
            blended: Vec::new(),
            weights: vec![0.0; width * tiles],
            sums: vec![0.0; width],
            tile_row: Vec::new(),
            color: vec![0.0; width * 3],
        }
    }
}

/// One texel row. Compiled for AVX2 too; see [`crate::simd`]. Colours are
/// summed per channel in tile order, as one texel at a time would, so the
/// planar layout changes no value.
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn render_row(
    job: &RowJob,
    scratch: &mut RowScratch,
    ty: usize,
    rgb_row: &mut [u8],
    weight_row: &mut [&mut [u8]],
) {
    render_row_body(job, scratch, ty, rgb_row, weight_row)
}

/// [`render_row`] without target features, for the tests of
/// [`crate::simd`]. The slope rows it reads still come from the
/// dispatching [`slope_row`], which is checked on its own.
#[cfg(test)]
fn render_row_plain(
    job: &RowJob,
    scratch: &mut RowScratch,
    ty: usize,
    rgb_row: &mut [u8],
    weight_row: &mut [&mut [u8]],
) {
    render_row_body(job, scratch, ty, rgb_row, weight_row)
}

#[cfg(test)]
impl crate::simd::KernelChecks {
    /// Runs [`render_row`] (the AVX2 copy where the CPU has it) and its plain
    /// copy over every texel row of random maps, tile images, tile scales and
    /// texture sizes (narrower than the map by one texel, the contiguous
    /// case, and others), and says where they differ in a single bit: the
    /// colour and weight bytes, and before them the f32 samples, weights and
    /// colour planes that rounding to bytes could hide.
    pub(crate) fn render_row(seed: u64) -> Result<(), String> {
        use crate::rng::{range_f32, stage_rng};
        use image::{Rgb, RgbImage};
        let mut rng = stage_rng(seed, 4);
        let mut tiles = TileSet::default();
        for (tile, scale) in tiles.tiles.iter_mut().zip([1.0, 0.5, 2.0, 1.0]) {
            tile.scale = scale;
        }
        // Map rules, soft and hard, so their rows are checked too.
        tiles.tiles[1].map = Some(super::MapRule {
            map: crate::maps::DerivedMap::Flow,
            range: crate::params::Span::new(3.0, 1e9),
            soft: 2.0,
        });
        tiles.tiles[2].map = Some(super::MapRule {
            map: crate::maps::DerivedMap::Curvature,
            range: crate::params::Span::new(-1e9, 0.0),
            soft: 0.0,
        });
        let images = TileImages {
            images: [(64u32, 64u32), (7, 5), (16, 16), (3, 1)]
                .into_iter()
                .map(|(w, h)| {
                    RgbImage::from_fn(w, h, |_, _| {
                        Rgb(std::array::from_fn(|_| {
                            range_f32(&mut rng, 0.0, 256.0) as u8
                        }))
                    })
                })
                .collect(),
        };
        for (map_w, map_h) in [(1, 1), (2, 2), (3, 2), (4, 3), (9, 5), (18, 7), (65, 4)] {
            let cells = (0..map_w * map_h)
                .map(|_| range_f32(&mut rng, -100.0, 300.0))
                .collect();
            let map = Heightmap::from_vec(map_w, map_h, cells).expect("cells fit the size");
            let texture_sizes = [
                (map_w.saturating_sub(1).max(1), map_h),
                (map_w, map_h.saturating_sub(1).max(1)),
                (1, 1),
                (2, 3),
                (3, 2),
                (2 * map_w + 1, 3),
                (255, 2),
            ];
            for (width, height) in texture_sizes {
                let inv_cell = 1.0 / range_f32(&mut rng, 0.05, 4.0);
                let (min, max) = map.range();
                let set = tiles.effective(min, max);
                let k = set.tiles.len();
                let kinds = rule_map_kinds(set.tiles.iter().map(|t| &t.map));
                let maps = RuleMaps::compute(&kinds, &map, 1.0 / inv_cell, None);
                let maps = usable_maps(&maps, &map);
                let rules = WeightRules::new(&set.tiles, &maps.kinds);
                let columns = ColumnSamples::new(width, map.width());
                let rows = sample_axis(height, map.height());
                let image_of = |i: usize| &images.images[i.min(images.images.len() - 1)];
                let tile_columns: Vec<TileColumns> = (0..k)
                    .map(|i| TileColumns::new(width, set.tiles[i].scale, image_of(i).width()))
                    .collect();
                let job = RowJob {
                    map: &map,
                    maps: &maps.values,
                    inv_cell,
                    columns: &columns,
                    rows: &rows,
                    rules: &rules,
                    set: &set,
                    images: &images,
                    tile_columns: &tile_columns,
                    width,
                };
                let (mut scratch_a, mut scratch_b) = (
                    RowScratch::new(width, k, maps.values.len()),
                    RowScratch::new(width, k, maps.values.len()),
                );
                for ty in 0..height {
                    let (mut rgb_a, mut rgb_b) = (vec![0u8; width * 3], vec![0u8; width * 3]);
                    let (mut planes_a, mut planes_b) = (vec![0u8; width * k], vec![0u8; width * k]);
                    let mut rows_a: Vec<&mut [u8]> = planes_a.chunks_exact_mut(width).collect();
                    let mut rows_b: Vec<&mut [u8]> = planes_b.chunks_exact_mut(width).collect();
                    render_row(&job, &mut scratch_a, ty, &mut rgb_a, &mut rows_a);
                    render_row_plain(&job, &mut scratch_b, ty, &mut rgb_b, &mut rows_b);
                    let at = format!(
                        "render_row, seed {seed}, map {map_w}x{map_h}, texture {width}x{height}, row {ty}"
                    );
                    for (what, a, b) in [
                        ("samples", &scratch_a.samples, &scratch_b.samples),
                        (
                            "map samples",
                            &scratch_a.map_samples,
                            &scratch_b.map_samples,
                        ),
                        ("weights", &scratch_a.weights, &scratch_b.weights),
                        ("colour planes", &scratch_a.color, &scratch_b.color),
                    ] {
                        if let Some(i) = Self::first_difference(a, b) {
                            return Err(format!("{at}, {what}[{i}]: {} vs plain {}", a[i], b[i]));
                        }
                    }
                    if rgb_a != rgb_b || rows_a != rows_b {
                        return Err(format!("{at}: the colour or weight bytes differ"));
                    }
                }
            }
        }
        Ok(())
    }
}

#[inline(always)]
fn render_row_body(
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
        map_samples,
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
    let map_width = job.map.width();
    for (values, out) in job.maps.iter().zip(map_samples.chunks_exact_mut(width)) {
        let top = &values[y0 * map_width..(y0 + 1) * map_width];
        let bottom = &values[y1 * map_width..(y1 + 1) * map_width];
        bilinear_row(top, bottom, fy, job.columns, blended, out);
    }
    job.rules.weights_row(
        &job.set.tiles,
        heights,
        slopes_row,
        map_samples,
        sums,
        weights,
    );
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
