//! A box blur whose half-width falls between cells: the cells inside are
//! weighted 1 and the two end cells by the fraction, so a box of a fixed
//! width in world units blurs the same landscape at every sampling.
//!
//! Up to [`MAX_FUSED_REACH`] cells either side it is the integer path's
//! fused pass with the end rows and columns weighted ([`box_kernel_pass`]).
//! Wider boxes take the separable pass below: a horizontal pass into a
//! scratch map, then a vertical pass back, each a sliding window
//! normalised by the weights that lie on the map (border cells average the
//! neighbours that exist, as the integer pass does), sliding in f64 so
//! long rows keep their precision.

use super::{BoxKernel, MAX_FUSED_REACH, box_kernel_pass};
use crate::heightmap::Heightmap;
use crate::hugepages::lazily_zeroed_f32;
use crate::stages::row_is_finite;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Rows per band of the vertical pass; fixed so results do not depend on
/// the thread count.
const BAND_ROWS: usize = 64;

/// Rows per band of the separable pass's vertical sums at `whole` cells
/// either side: each band starts by summing its first window (2r + 1
/// rows), so bands several windows tall keep that a small share.
pub fn separable_band_rows(whole: usize) -> usize {
    BAND_ROWS.max(4 * whole)
}

/// One pass of half-width `radius` cells (any value ≥ 0), in place.
/// Returns whether every output cell is finite (each row checked as it
/// is written).
pub fn fractional_box_pass(map: &mut Heightmap, radius: f32, scratch: &mut Vec<f32>) -> bool {
    // Beyond the map's size a wider window covers nothing more.
    let radius = radius.min(map.width().max(map.height()) as f32);
    let whole = radius.floor();
    let kernel = BoxKernel {
        whole: whole as usize,
        fraction: radius - whole,
    };
    if kernel.reach() <= MAX_FUSED_REACH {
        box_kernel_pass(map, kernel, scratch)
    } else {
        separable_box_pass(map, radius, scratch)
    }
}

/// The separable pass of half-width `radius` cells, in place, for boxes
/// wider than the fused pass's ring; its scratch is a whole map.
pub fn separable_box_pass(map: &mut Heightmap, radius: f32, scratch: &mut Vec<f32>) -> bool {
    let (width, height) = (map.width(), map.height());
    // Beyond the map's size a wider window covers nothing more.
    let radius = radius.min(width.max(height) as f32);
    let whole = radius.floor() as usize;
    let fraction = (radius - radius.floor()) as f64;
    // Each band starts by summing its first window (2r + 1 rows): bands
    // several windows tall keep that a small share at large radii.
    let band_rows = separable_band_rows(whole);
    if scratch.len() != width * height {
        // Kernel zeros on huge pages, first touched by the parallel pass
        // below: a `resize` would clear the whole map's worth on one
        // thread first (a quarter of a 8193² blur), page by 4 KiB page.
        *scratch = lazily_zeroed_f32(width * height);
    }
    scratch
        .par_chunks_mut(width)
        .zip(map.data().par_chunks(width))
        .for_each(|(out, row)| horizontal(row, out, whole, fraction));
    let rows = &*scratch;
    let overflowed = AtomicBool::new(false);
    map.data_mut()
        .par_chunks_mut(width * band_rows)
        .enumerate()
        .for_each(|(band, out)| {
            let first = band * band_rows;
            let row = |y: usize| &rows[y * width..(y + 1) * width];
            let mut acc = vec![0.0f64; width];
            for y in first.saturating_sub(whole)..=(first + whole).min(height - 1) {
                for (a, &v) in acc.iter_mut().zip(row(y)) {
                    *a += v as f64;
                }
            }
            for (k, out_row) in out.chunks_exact_mut(width).enumerate() {
                let y = first + k;
                let (lo, hi) = (y as isize - whole as isize, y + whole);
                let mut weight = (hi.min(height - 1) as isize - lo.max(0) + 1) as f64;
                let below = (lo >= 1).then(|| row(lo as usize - 1));
                let above = (hi + 1 < height).then(|| row(hi + 1));
                weight += fraction * (below.is_some() as u8 + above.is_some() as u8) as f64;
                let inv = 1.0 / weight;
                for (x, (o, &a)) in out_row.iter_mut().zip(&acc).enumerate() {
                    let ends =
                        below.map_or(0.0, |r| r[x] as f64) + above.map_or(0.0, |r| r[x] as f64);
                    *o = ((a + fraction * ends) * inv) as f32;
                }
                if !row_is_finite(out_row) {
                    overflowed.store(true, Ordering::Relaxed);
                }
                if let Some(next) = above {
                    for (a, &v) in acc.iter_mut().zip(next) {
                        *a += v as f64;
                    }
                }
                if lo >= 0 {
                    for (a, &v) in acc.iter_mut().zip(row(lo as usize)) {
                        *a -= v as f64;
                    }
                }
            }
        });
    !overflowed.load(Ordering::Relaxed)
}

/// The horizontal pass over one row: the weighted mean of each cell's
/// window, `whole` full cells either side plus `fraction` of the next.
fn horizontal(row: &[f32], out: &mut [f32], whole: usize, fraction: f64) {
    let width = row.len();
    let mut acc: f64 = row[..=whole.min(width - 1)].iter().map(|&v| v as f64).sum();
    for (x, o) in out.iter_mut().enumerate() {
        let (lo, hi) = (x as isize - whole as isize, x + whole);
        let mut sum = acc;
        let mut weight = (hi.min(width - 1) as isize - lo.max(0) + 1) as f64;
        if lo >= 1 {
            sum += fraction * row[lo as usize - 1] as f64;
            weight += fraction;
        }
        if hi + 1 < width {
            sum += fraction * row[hi + 1] as f64;
            weight += fraction;
            acc += row[hi + 1] as f64;
        }
        if lo >= 0 {
            acc -= row[lo as usize] as f64;
        }
        *o = (sum / weight) as f32;
    }
}
