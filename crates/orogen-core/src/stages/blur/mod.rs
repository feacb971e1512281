//! Box blur (ALGORITHMS §3), done right: every cell of a pass reads the
//! previous pass, and border cells average the neighbours that exist.
//!
//! The readable definition, one mean per cell, is [`mod@reference`]; the tests
//! hold this pass to it.

pub mod fractional;
pub mod reference;

use super::{StageContext, StageError, StageOp, row_is_finite};
use crate::heightmap::Heightmap;
use crate::params::{ParamVisitor, Params};
use fractional::fractional_box_pass;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};

/// Box blur stage: each cell becomes the mean of the box around it, a box
/// of a fixed width in world units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blur {
    /// How many times the blur is repeated, 0..=64 (the article uses 3).
    pub passes: u32,
    /// Width of the box in world units: 3 on cells of 1 unit is the
    /// article's 3x3 mean; a finer sampling averages more cells over the
    /// same width (end cells weighted by the fraction they cover).
    #[serde(default = "unset_width")]
    pub width: f32,
    /// The cell-based format's half-width in cells; converted to `width`
    /// on load and never saved.
    #[serde(default, rename = "radius", skip_serializing)]
    pub legacy_radius: Option<u32>,
}

/// A width the file did not give (the loader then needs `radius`).
fn unset_width() -> f32 {
    f32::NAN
}

impl Default for Blur {
    fn default() -> Self {
        Self {
            passes: 3,
            width: 3.0,
            legacy_radius: None,
        }
    }
}

impl Params for Blur {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.int(
            "passes",
            &mut self.passes,
            0..=64,
            "How many times the blur is repeated.",
        );
        v.float(
            "width",
            &mut self.width,
            0.0..=1_000_000.0,
            "Width of the box in world units: three cells' width is the article's 3x3 mean. The same width blurs the same landscape at any map size.",
        );
    }
}

impl Blur {
    /// The box's half-width in cells of `cell_size`: a box `width` wide
    /// covers `width / cell_size` cells, the centre one and `r` either side.
    pub fn radius_in_cells(&self, cell_size: f32) -> f32 {
        (self.width / cell_size * 0.5 - 0.5).max(0.0)
    }
}

impl StageOp for Blur {
    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        // A box wider than the map covers the whole map either way.
        let radius = self
            .radius_in_cells(ctx.cell_size)
            .min(map.width().max(map.height()) as f32);
        let whole = radius.round();
        let mut scratch = Vec::new();
        // Each pass checks its output rows as it writes them; a
        // non-finite cell would survive later passes, so all must pass.
        let mut finite = true;
        for _ in 0..self.passes {
            // The fused integer pass keeps a ring of 2r + 2 rows: up to
            // r = 64 it is the fastest; the separable pass needs no more
            // memory at any radius.
            if (radius - whole).abs() < 1e-4 && whole <= 64.0 {
                if whole >= 1.0 {
                    finite &= box_blur_pass(map, whole as usize, &mut scratch);
                }
            } else {
                finite &= fractional_box_pass(map, radius, &mut scratch);
            }
        }
        // No pass ran: the map is the input, already checked.
        ctx.output_finite = Some(finite);
        Ok(())
    }
}

/// Rows per band of the vertical pass. Fixed (not derived from the thread
/// count) so the running sums restart at the same rows on every machine.
const BAND_ROWS: usize = 64;

/// One pass, in place. Bands of rows are blurred in parallel, each
/// sliding a window of horizontal row sums down its rows: a row's sums
/// are taken from the original row just before the output reaches it, so
/// the map is read once and written once. The few rows a band needs from
/// its neighbours (`radius` above and below) have their sums saved into
/// `halo_sums` before any band writes. Returns whether every output cell
/// is finite (each row checked as it is written).
pub fn box_blur_pass(map: &mut Heightmap, radius: usize, halo_sums: &mut Vec<f32>) -> bool {
    let width = map.width();
    let height = map.height();
    // Halos stay a small share of the work at large radii.
    let band_rows = BAND_ROWS.max(16 * radius);
    let bands = height.div_ceil(band_rows);
    let halo = radius.min(height);
    let per_band = 2 * halo * width;
    halo_sums.clear();
    halo_sums.resize(bands * per_band, 0.0);
    let source = map.data();
    let band_last = |first: usize| (first + band_rows).min(height) - 1;
    if per_band > 0 {
        halo_sums
            .par_chunks_mut(per_band)
            .enumerate()
            .for_each_init(WindowScratch::default, |window_scratch, (band, out)| {
                let first = band * band_rows;
                let last = band_last(first);
                let (top, bottom) = out.split_at_mut(halo * width);
                for (j, sums) in top.chunks_exact_mut(width).enumerate() {
                    if let Some(y) = (first + j).checked_sub(halo) {
                        horizontal_window_sums(
                            &source[y * width..(y + 1) * width],
                            radius,
                            sums,
                            window_scratch,
                        );
                    }
                }
                for (j, sums) in bottom.chunks_exact_mut(width).enumerate() {
                    let y = last + 1 + j;
                    if y < height {
                        horizontal_window_sums(
                            &source[y * width..(y + 1) * width],
                            radius,
                            sums,
                            window_scratch,
                        );
                    }
                }
            });
    }
    let halo_sums = &*halo_sums;
    // Inverse column counts: how many columns each window covers.
    let inv_cols: Vec<f32> = (0..width)
        .map(|x| 1.0 / (x.min(radius) + (width - 1 - x).min(radius) + 1) as f32)
        .collect();
    let slots = 2 * radius + 2;
    let overflowed = AtomicBool::new(false);
    map.data_mut()
        .par_chunks_mut(width * band_rows)
        .enumerate()
        .for_each_init(
            || (Vec::new(), Vec::new(), WindowScratch::default()),
            |(ring, acc, window_scratch), (band, out)| {
                let first = band * band_rows;
                let last = first + out.len() / width - 1;
                let band_halo = &halo_sums[band * per_band..(band + 1) * per_band];
                let (top, bottom) = band_halo.split_at(halo * width);
                ring.clear();
                ring.resize(slots * width, 0.0f32);
                acc.clear();
                acc.resize(width, 0.0f32);
                // Sums of row `y`: a neighbour's from the halo, this band's
                // from the ring (filled by `load` while the row is intact).
                let load = |ring: &mut Vec<f32>,
                            window_scratch: &mut WindowScratch,
                            out: &[f32],
                            y: usize| {
                    let slot = (y - first) % slots;
                    let row = &out[(y - first) * width..(y - first + 1) * width];
                    horizontal_window_sums(
                        row,
                        radius,
                        &mut ring[slot * width..(slot + 1) * width],
                        window_scratch,
                    );
                };
                let sums = |y: usize| {
                    let slot = (y - first) % slots;
                    slot * width..(slot + 1) * width
                };
                let y0 = first.saturating_sub(radius);
                let y1 = (first + radius).min(height - 1);
                for yy in y0..=y1 {
                    if yy < first {
                        let j = yy + halo - first;
                        add_row(acc, &top[j * width..(j + 1) * width]);
                    } else if yy > last {
                        let j = yy - last - 1;
                        add_row(acc, &bottom[j * width..(j + 1) * width]);
                    } else {
                        load(ring, window_scratch, out, yy);
                        add_row(acc, &ring[sums(yy)]);
                    }
                }
                for y in first..=last {
                    let k = y - first;
                    let rows = ((y.min(radius) + (height - 1 - y).min(radius)) + 1) as f32;
                    let inv_rows = 1.0 / rows;
                    let out_row = &mut out[k * width..(k + 1) * width];
                    for ((o, &a), &ic) in out_row.iter_mut().zip(acc.iter()).zip(&inv_cols) {
                        *o = a * ic * inv_rows;
                    }
                    if !row_is_finite(out_row) {
                        overflowed.store(true, Ordering::Relaxed);
                    }
                    if y == last {
                        break;
                    }
                    if y + radius + 1 < height {
                        let r = y + radius + 1;
                        if r > last {
                            let j = r - last - 1;
                            add_row(acc, &bottom[j * width..(j + 1) * width]);
                        } else {
                            load(ring, window_scratch, out, r);
                            add_row(acc, &ring[sums(r)]);
                        }
                    }
                    if y >= radius {
                        let r = y - radius;
                        if r < first {
                            let j = r + halo - first;
                            sub_row(acc, &top[j * width..(j + 1) * width]);
                        } else {
                            sub_row(acc, &ring[sums(r)]);
                        }
                    }
                }
            },
        );
    !overflowed.load(Ordering::Relaxed)
}

#[inline]
fn add_row(acc: &mut [f32], row: &[f32]) {
    for (a, &v) in acc.iter_mut().zip(row) {
        *a += v;
    }
}

#[inline]
fn sub_row(acc: &mut [f32], row: &[f32]) {
    for (a, &v) in acc.iter_mut().zip(row) {
        *a -= v;
    }
}

/// Scratch rows for [`horizontal_window_sums`].
#[derive(Default)]
struct WindowScratch {
    block: Vec<f32>,
    next: Vec<f32>,
}

/// Sum of each cell's horizontal window, `radius` cells either side,
/// clipped at the row's ends.
fn horizontal_window_sums(
    row: &[f32],
    radius: usize,
    out: &mut [f32],
    scratch: &mut WindowScratch,
) {
    let width = row.len();
    if radius == 1 && width >= 3 {
        // The common 3x3 case: direct sums vectorise, where the running
        // sum below is a serial chain.
        out[0] = row[0] + row[1];
        out[width - 1] = row[width - 2] + row[width - 1];
        for (o, w) in out[1..width - 1].iter_mut().zip(row.windows(3)) {
            *o = w[0] + w[1] + w[2];
        }
        return;
    }
    // The window (span = 2r + 1 cells) is summed from power-of-two
    // blocks: blocks of 1, 2, 4, … cells are built by doubling, and the
    // blocks of span's binary digits are added at increasing offsets.
    // Every pass is a straight vector loop, about 2·log2(span) of them,
    // where a running sum is one serial chain of dependent adds per cell.
    // `padded[j]` is `row[j − r]` with zeros outside, so window x is
    // `padded[x..x + span]` everywhere and edges need no special case.
    let span = 2 * radius + 1;
    let len = width + span - 1;
    let (block, next) = (&mut scratch.block, &mut scratch.next);
    block.clear();
    block.resize(len, 0.0);
    block[radius..radius + width].copy_from_slice(row);
    next.clear();
    next.resize(len, 0.0);
    out.fill(0.0);
    let (mut size, mut offset) = (1, 0);
    loop {
        // `block[x]` = sum of `padded[x..x + size]`, for x + size ≤ len.
        if span & size != 0 {
            for (o, &b) in out.iter_mut().zip(&block[offset..]) {
                *o += b;
            }
            offset += size;
        }
        if 2 * size > span {
            break;
        }
        let valid = len + 1 - 2 * size;
        for ((n, &a), &b) in next[..valid].iter_mut().zip(&block[..]).zip(&block[size..]) {
            *n = a + b;
        }
        std::mem::swap(block, next);
        size *= 2;
    }
}
