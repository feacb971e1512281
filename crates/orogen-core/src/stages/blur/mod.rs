//! Box blur (ALGORITHMS §3), done right: every cell of a pass reads the
//! previous pass, and border cells average the neighbours that exist.
//! Whole and fractional widths share one fused pass ([`box_kernel_pass`]);
//! only boxes wider than its ring take the separable one in
//! [`mod@fractional`].
//!
//! The readable definition, one mean per cell, is `reference.rs` (with the
//! `reference` feature); the tests hold this pass to it.

pub mod fractional;
#[cfg(any(test, feature = "reference"))]
pub mod reference;

use super::{StageContext, StageError, StageOp, row_is_finite};
use crate::heightmap::Heightmap;
use crate::params::{ParamVisitor, Params};
use crate::world_window::WorldWindow;
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

/// How a blur's passes run, for the halo a window needs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PassShape {
    /// Cells either side a pass reads.
    reach: usize,
    /// Rows per band of its vertical running sums (bands start at world
    /// rows that are multiples of this).
    band_rows: usize,
    /// Whether its horizontal sums run along the whole row (the separable
    /// pass), so a cell depends on every cell west of it.
    row_running_sum: bool,
}

impl Blur {
    /// The box's half-width in cells on a world whose longer side has
    /// `world_side` cells: a box wider than the world covers all of it.
    fn world_radius(&self, cell_size: f32, world_side: usize) -> f32 {
        self.radius_in_cells(cell_size).min(world_side as f32)
    }

    /// What each pass does at `radius` cells ([`StageOp::apply`]'s
    /// choice); `None` when a pass leaves the map as it is.
    fn pass_shape(radius: f32) -> Option<PassShape> {
        let whole = radius.round();
        if (radius - whole).abs() < 1e-4 && whole <= MAX_FUSED_REACH as f32 {
            let whole = whole as usize;
            return (whole >= 1).then_some(PassShape {
                reach: whole,
                band_rows: BAND_ROWS.max(16 * whole),
                row_running_sum: false,
            });
        }
        let kernel = BoxKernel {
            whole: radius.floor() as usize,
            fraction: radius - radius.floor(),
        };
        Some(if kernel.reach() <= MAX_FUSED_REACH {
            PassShape {
                reach: kernel.reach(),
                band_rows: BAND_ROWS.max(16 * kernel.whole),
                row_running_sum: false,
            }
        } else {
            PassShape {
                reach: kernel.reach(),
                band_rows: fractional::separable_band_rows(kernel.whole),
                row_running_sum: true,
            }
        })
    }
}

impl StageOp for Blur {
    /// A window is exact from a halo of `reach` cells per pass, and rows
    /// from a whole band per pass above the window's band: the vertical
    /// sums of a band start at its first row, so a band whose rows above
    /// are missing (or wrong) is wrong throughout. The separable pass's
    /// running row sums reach back to the world's west edge.
    fn input_window(&self, output: &WorldWindow, cell_size: f32) -> WorldWindow {
        let radius = self.world_radius(cell_size, output.world_longer_side());
        let Some(shape) = Self::pass_shape(radius).filter(|_| self.passes > 0) else {
            return *output;
        };
        let passes = self.passes as usize;
        let halo = passes * shape.reach;
        let w = output.window;
        let band_top = (w.y / shape.band_rows).saturating_sub(passes) * shape.band_rows;
        let left = if shape.row_running_sum { w.x } else { halo };
        output.grown(left, w.y - band_top, halo, halo)
    }

    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        // A box wider than the world covers the whole world either way.
        let radius = self.world_radius(ctx.cell_size, ctx.window_of(map).world_longer_side());
        let whole = radius.round();
        let mut scratch = Vec::new();
        // Each pass checks its output rows as it writes them; a
        // non-finite cell would survive later passes, so all must pass.
        let mut finite = true;
        for _ in 0..self.passes {
            // A box within 1e-4 of whole cells is whole (the end cells'
            // weight would not show); beyond the fused pass's reach both
            // kinds take the separable pass.
            if (radius - whole).abs() < 1e-4 && whole <= MAX_FUSED_REACH as f32 {
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

/// The widest reach (cells either side) the fused pass serves: its ring
/// holds 2·reach + 2 rows per thread; wider boxes take the separable pass,
/// which needs no more memory at any radius.
pub const MAX_FUSED_REACH: usize = 64;

/// A box of half-width `whole + fraction` cells: the centre cell and
/// `whole` cells either side weigh 1, the next cell each way `fraction`
/// (0 ≤ fraction < 1). The same kernel runs along rows and down columns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxKernel {
    /// Cells either side of the centre that weigh 1.
    pub whole: usize,
    /// The weight of the next cell each way, 0 ≤ fraction < 1.
    pub fraction: f32,
}

impl BoxKernel {
    /// Cells either side of the centre that carry any weight.
    pub fn reach(self) -> usize {
        self.whole + usize::from(self.fraction > 0.0)
    }

    /// The kernel's weight on a line of `len` cells around cell `i`:
    /// only the cells on the map count, so border cells average the
    /// neighbours that exist. Separable: a cell's total weight is the
    /// product of its column's and its row's.
    fn weight_at(self, i: usize, len: usize) -> f32 {
        let full = i.min(self.whole) + (len - 1 - i).min(self.whole) + 1;
        let ends = usize::from(i > self.whole) + usize::from(i + self.whole + 1 < len);
        // `fraction` 0 adds exactly 0: whole boxes keep their weights.
        full as f32 + self.fraction * ends as f32
    }
}

/// One pass of a whole box, `radius` cells either side, in place; see
/// [`box_kernel_pass`].
pub fn box_blur_pass(map: &mut Heightmap, radius: usize, halo_sums: &mut Vec<f32>) -> bool {
    box_kernel_pass(
        map,
        BoxKernel {
            whole: radius,
            fraction: 0.0,
        },
        halo_sums,
    )
}

/// The rows of window sums a band reads: its own from the ring (filled
/// while each row is still intact), its neighbours' from the halo saved
/// before any band wrote.
struct BandSums<'a> {
    first: usize,
    last: usize,
    width: usize,
    slots: usize,
    /// Rows `first − halo .. first` (those on the map).
    top: &'a [f32],
    halo: usize,
    /// Rows `last + 1 ..= last + halo` (those on the map).
    bottom: &'a [f32],
}

impl BandSums<'_> {
    fn slot(&self, y: usize) -> std::ops::Range<usize> {
        let slot = (y - self.first) % self.slots;
        slot * self.width..(slot + 1) * self.width
    }

    fn row<'r>(&'r self, ring: &'r [f32], y: usize) -> &'r [f32] {
        let width = self.width;
        if y < self.first {
            let j = y + self.halo - self.first;
            &self.top[j * width..(j + 1) * width]
        } else if y > self.last {
            let j = y - self.last - 1;
            &self.bottom[j * width..(j + 1) * width]
        } else {
            &ring[self.slot(y)]
        }
    }
}

/// One pass, in place. Bands of rows are blurred in parallel, each
/// sliding a window of horizontal row sums down its rows: a row's sums
/// are taken from the original row just before the output reaches it, so
/// the map is read once and written once. The few rows a band needs from
/// its neighbours (`reach` above and below) have their sums saved into
/// `halo_sums` before any band writes. A fractional box adds its two end
/// rows' sums, weighted, to the running sum of the whole rows between.
/// Sums are f32; each band restarts them at a row fixed by the kernel
/// alone, so the bytes do not depend on the thread count. Returns whether
/// every output cell is finite (each row checked as it is written).
pub fn box_kernel_pass(map: &mut Heightmap, kernel: BoxKernel, halo_sums: &mut Vec<f32>) -> bool {
    let width = map.width();
    let height = map.height();
    let BoxKernel { whole, fraction } = kernel;
    let reach = kernel.reach();
    // Halos stay a small share of the work at large radii.
    let band_rows = BAND_ROWS.max(16 * whole);
    let bands = height.div_ceil(band_rows);
    let halo = reach.min(height);
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
                            kernel,
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
                            kernel,
                            sums,
                            window_scratch,
                        );
                    }
                }
            });
    }
    let halo_sums = &*halo_sums;
    // Inverse column weights: how much of each window lies on the map.
    let inv_cols: Vec<f32> = (0..width)
        .map(|x| 1.0 / kernel.weight_at(x, width))
        .collect();
    let slots = 2 * reach + 2;
    let overflowed = AtomicBool::new(false);
    map.data_mut()
        .par_chunks_mut(width * band_rows)
        .enumerate()
        .for_each_init(
            || (Vec::new(), Vec::new(), WindowScratch::default()),
            |(ring, acc, window_scratch), (band, out)| {
                let first = band * band_rows;
                let band_halo = &halo_sums[band * per_band..(band + 1) * per_band];
                let (top, bottom) = band_halo.split_at(halo * width);
                let sums = BandSums {
                    first,
                    last: first + out.len() / width - 1,
                    width,
                    slots,
                    top,
                    halo,
                    bottom,
                };
                let last = sums.last;
                ring.clear();
                ring.resize(slots * width, 0.0f32);
                acc.clear();
                acc.resize(width, 0.0f32);
                // Sums of one of this band's rows into the ring, taken
                // while the row still holds the pass's input.
                let load = |ring: &mut Vec<f32>,
                            window_scratch: &mut WindowScratch,
                            out: &[f32],
                            y: usize| {
                    let row = &out[(y - first) * width..(y - first + 1) * width];
                    horizontal_window_sums(row, kernel, &mut ring[sums.slot(y)], window_scratch);
                };
                for y in first..=(first + reach).min(last) {
                    load(ring, window_scratch, &*out, y);
                }
                for y in first.saturating_sub(whole)..=(first + whole).min(height - 1) {
                    add_row(acc, sums.row(ring, y));
                }
                for y in first..=last {
                    let k = y - first;
                    // The row entering the window after this one; loaded
                    // now, while it is intact (its slot held a row the
                    // window has left).
                    if y + reach < last {
                        load(ring, window_scratch, &*out, y + reach + 1);
                    }
                    let inv_rows = 1.0 / kernel.weight_at(y, height);
                    // The fractional box's end rows, where on the map.
                    let (below, above) = if fraction > 0.0 {
                        (
                            (y > whole).then(|| sums.row(ring, y - whole - 1)),
                            (y + whole + 1 < height).then(|| sums.row(ring, y + whole + 1)),
                        )
                    } else {
                        (None, None)
                    };
                    // The rows the running sum gains and loses for the next
                    // output row.
                    let slides = y < last;
                    let entering =
                        (slides && y + whole + 1 < height).then(|| sums.row(ring, y + whole + 1));
                    let leaving = (slides && y >= whole).then(|| sums.row(ring, y - whole));
                    let out_row = &mut out[k * width..(k + 1) * width];
                    let cells = out_row.iter_mut().zip(acc.iter_mut()).zip(&inv_cols);
                    match (below, above, entering, leaving) {
                        // Inside the map: write the row and slide the sum
                        // in one sweep.
                        (Some(b), Some(c), Some(n), Some(l)) => {
                            for (((o, a), &ic), ((&b, &c), (&n, &l))) in
                                cells.zip(b.iter().zip(c).zip(n.iter().zip(l)))
                            {
                                *o = (*a + fraction * (b + c)) * ic * inv_rows;
                                *a = *a + n - l;
                            }
                        }
                        (None, None, Some(n), Some(l)) => {
                            for (((o, a), &ic), (&n, &l)) in cells.zip(n.iter().zip(l)) {
                                *o = *a * ic * inv_rows;
                                *a = *a + n - l;
                            }
                        }
                        // Near the map's top and bottom.
                        (below, above, entering, leaving) => {
                            match (below, above) {
                                (Some(b), Some(c)) => {
                                    for (((o, a), &ic), (&b, &c)) in cells.zip(b.iter().zip(c)) {
                                        *o = (*a + fraction * (b + c)) * ic * inv_rows;
                                    }
                                }
                                (Some(e), None) | (None, Some(e)) => {
                                    for (((o, a), &ic), &e) in cells.zip(e) {
                                        *o = (*a + fraction * e) * ic * inv_rows;
                                    }
                                }
                                (None, None) => {
                                    for ((o, a), &ic) in cells {
                                        *o = *a * ic * inv_rows;
                                    }
                                }
                            }
                            if let Some(n) = entering {
                                add_row(acc, n);
                            }
                            if let Some(l) = leaving {
                                sub_row(acc, l);
                            }
                        }
                    }
                    if !row_is_finite(out_row) {
                        overflowed.store(true, Ordering::Relaxed);
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

/// Weighted sum of each cell's horizontal window under `kernel`, clipped
/// at the row's ends (not normalised).
fn horizontal_window_sums(
    row: &[f32],
    kernel: BoxKernel,
    out: &mut [f32],
    scratch: &mut WindowScratch,
) {
    let width = row.len();
    let BoxKernel { whole, fraction } = kernel;
    if whole == 1 && fraction == 0.0 && width >= 3 {
        // The common 3x3 case: direct sums vectorise, where the running
        // sum below is a serial chain.
        out[0] = row[0] + row[1];
        out[width - 1] = row[width - 2] + row[width - 1];
        for (o, w) in out[1..width - 1].iter_mut().zip(row.windows(3)) {
            *o = w[0] + w[1] + w[2];
        }
        return;
    }
    // The whole cells' window (span = 2·whole + 1 cells) is summed from
    // power-of-two blocks: blocks of 1, 2, 4, … cells are built by
    // doubling, and the blocks of span's binary digits are added at
    // increasing offsets. Every pass is a straight vector loop, about
    // 2·log2(span) of them, where a running sum is one serial chain of
    // dependent adds per cell. `padded[j]` is `row[j − reach]` with zeros
    // outside, so window x starts at `padded[x + reach − whole]`
    // everywhere and edges need no special case.
    let reach = kernel.reach();
    let span = 2 * whole + 1;
    let len = width + 2 * reach;
    let (block, next) = (&mut scratch.block, &mut scratch.next);
    // Only the padding needs zeros: every block is read where it was
    // written this call.
    block.resize(len, 0.0);
    block[..reach].fill(0.0);
    block[reach + width..].fill(0.0);
    block[reach..reach + width].copy_from_slice(row);
    next.resize(len, 0.0);
    // Span is odd, so its window always holds one block of a single cell:
    // the padded row itself, added with the end cells in one pass.
    let start = reach - whole;
    if fraction > 0.0 {
        // The two end cells are `padded[x]` and `padded[x + 2·reach]`.
        for (((o, &a), &c), &b) in out
            .iter_mut()
            .zip(&block[start..])
            .zip(&block[..])
            .zip(&block[2 * reach..])
        {
            *o = a + fraction * (c + b);
        }
    } else {
        for (o, &a) in out.iter_mut().zip(&block[start..]) {
            // From 0 as the sum starts, so a −0 cell sums as +0.
            *o = 0.0 + a;
        }
    }
    let (mut size, mut offset) = (1, start + 1);
    // `block[x]` = sum of `padded[x..x + size]`, for x + size ≤ len.
    while 2 * size <= span {
        let valid = len + 1 - 2 * size;
        for ((n, &a), &b) in next[..valid].iter_mut().zip(&block[..]).zip(&block[size..]) {
            *n = a + b;
        }
        std::mem::swap(block, next);
        size *= 2;
        if span & size != 0 {
            for (o, &b) in out.iter_mut().zip(&block[offset..]) {
                *o += b;
            }
            offset += size;
        }
    }
}
