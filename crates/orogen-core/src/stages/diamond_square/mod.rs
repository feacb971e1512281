//! Diamond-square (ALGORITHMS §5, seed 003), level by level over rows.
//!
//! Side `2^n + 1`; corners start at `base`; each level sets square centres
//! (diamond phase) then edge midpoints (square phase, wrapping at the
//! border like the article's `JudgeInSide`), and the random range shrinks
//! by `2^-H`. The lattice spans the world's longer side; maps of another
//! sampling are resampled from the next `2^n + 1` lattice.
//!
//! A point's offset is keyed by its place ([`crate::place_rng`]): the
//! level and its coordinate on the world lattice, not a position in a
//! stream. Level `L` is the same lattice at every size (step
//! `(n − 1) / 2^L`), so a coarse level is identical at every size and a
//! larger map only adds finer levels: the points of a 257² map are every
//! fourth point of the 1025² map, bit for bit.
//!
//! The readable definition, point by point, is `reference.rs` (with the
//! `reference` feature); the tests require this version to give the same
//! bits.

#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod window;

use super::combine::{COMBINE_HELP, Combine};
use super::{StageContext, StageError, StageOp, row_is_finite};
use crate::heightmap::Heightmap;
use crate::hugepages::zeroed_in_parallel;
use crate::params::{ParamVisitor, Params, visit_choice};
use crate::place_rng::{LatticePlace, PlaceKey};
use crate::rng::{StageRng, unit_from_word};
use crate::world_window::WorldWindow;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

/// Diamond-square stage: fractal midpoint displacement on a `2^n + 1` lattice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiamondSquare {
    /// Roughness H: offsets shrink by 2^-H per level.
    pub roughness: f32,
    /// Height of the four starting corners.
    pub base: f32,
    /// Offsets are uniform in [-range/2, range/2] · extent, range starting at 1.
    pub extent: f32,
    /// Stop after this many levels (stage-by-stage demo); the unfinished
    /// lattice is shown bilinearly interpolated.
    pub stop_after_level: Option<u32>,
    /// How the generated lattice merges with the map so far.
    pub combine: Combine,
    /// Clamp every new value to 0 the moment it is computed, as article
    /// 003 does, so later averages see the zeros (off: a separate Clamp
    /// stage afterwards leaves broad flat floors instead).
    #[serde(default, skip_serializing_if = "crate::params::is_false")]
    pub clamp_negatives_as_generated: bool,
}

impl Default for DiamondSquare {
    fn default() -> Self {
        Self {
            roughness: 0.8,
            base: 0.0,
            extent: 200.0,
            stop_after_level: None,
            combine: Combine::Replace,
            clamp_negatives_as_generated: false,
        }
    }
}

impl Params for DiamondSquare {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.float(
            "roughness",
            &mut self.roughness,
            0.0..=3.0,
            "Roughness H: the random range is multiplied by 2^-H each level. Small H = rough, large H = smooth.",
        );
        v.float(
            "base",
            &mut self.base,
            -100_000.0..=100_000.0,
            "Starting height of the four corners.",
        );
        v.float(
            "extent",
            &mut self.extent,
            0.0..=100_000.0,
            "Height extent: first-level offsets are uniform in ±extent/2.",
        );
        v.optional_int(
            "stop_after_level",
            &mut self.stop_after_level,
            0..=16,
            "Demo: stop after this many levels and show the coarse lattice interpolated.",
        );
        v.toggle(
            "clamp_negatives_as_generated",
            &mut self.clamp_negatives_as_generated,
            "Clamp each new value to 0 as soon as it is computed, as article 003 does: later averages see the zeros, so the low ground stays bumpy instead of flat.",
        );
        visit_choice(v, "combine", &mut self.combine, COMBINE_HELP);
    }
}

/// The smallest `2^n + 1` (at least 3) that covers `size`.
pub fn lattice_side(size: usize) -> usize {
    let mut side = 3;
    while side < size {
        side = (side - 1) * 2 + 1;
    }
    side
}

/// Number of levels a full run of a `side` lattice takes.
pub fn level_count(side: usize) -> u32 {
    (side - 1).trailing_zeros()
}

impl DiamondSquare {
    /// The full lattice, before cropping.
    pub fn lattice(&self, side: usize, rng: &StageRng) -> Vec<f32> {
        let mut grid = vec![0.0f32; side * side];
        self.lattice_into(&mut grid, side, rng);
        grid
    }

    /// [`lattice`](Self::lattice) into `grid` (`side²` cells). Every cell
    /// is written, so `grid` may hold anything beforehand.
    pub fn lattice_into(&self, grid: &mut [f32], side: usize, rng: &StageRng) {
        let n = side;
        let period = n - 1;
        let floor = self.value_floor();
        for &(x, y) in &[(0, 0), (period, 0), (0, period), (period, period)] {
            grid[y * n + x] = at_least(self.base, floor);
        }
        let shrink = 0.5f32.powf(self.roughness);
        let mut range = 1.0f32;
        let mut step = period;
        let mut level = 0u32;
        // Offsets are keyed by place, so rows can be computed in any order
        // with the same result.
        let place = Place {
            key: PlaceKey::of_stage(rng),
            lattice: LatticePlace::of_period(period),
        };
        while step > 1 {
            if self.stop_after_level.is_some_and(|stop| level >= stop) {
                break;
            }
            let half = step / 2;
            let scale = range * self.extent;
            // Diamond phase: square centres, on rows that are odd
            // multiples of `half`, from the lattice rows around them. The
            // rows written and the rows read are disjoint, so rows are
            // computed in parallel straight into the grid.
            {
                let (writes, reads) = split_rows(grid, n, |y| y % step == half);
                for_each_row(writes, n / step, |scratch, (y, row)| {
                    let count = (n - half).div_ceil(step);
                    let (offsets, lanes) =
                        scratch.offsets(place, level, (y, half, step), count, scale);
                    let (above, below) = (reads[y - half], reads[y + half]);
                    if step == 2 {
                        lanes.diamond_pairs(row, above, below, offsets, floor);
                        return;
                    }
                    // Point k sits at x = half + k·step and averages the
                    // lattice points at x ± half of the rows around it.
                    // Strided iterators instead of indices: no bounds
                    // check per load.
                    let points = row[half..].iter_mut().step_by(step);
                    for ((((cell, &a0), &a1), (&b0, &b1)), &offset) in points
                        .zip(strided(above, 0, step))
                        .zip(strided(above, step, step))
                        .zip(strided(below, 0, step).zip(strided(below, step, step)))
                        .zip(offsets)
                    {
                        *cell = at_least((a0 + a1 + b0 + b1) * 0.25 + offset, floor);
                    }
                });
            }
            // Square phase: edge midpoints, wrapping across the border.
            // Odd-multiple rows first (reading the lattice rows above and
            // below), then lattice rows (reading the centre rows). Each
            // point reads only points this phase does not write, so the
            // order of the two passes does not matter.
            let first_column = |y: usize| {
                if (y / half).is_multiple_of(2) {
                    half
                } else {
                    0
                }
            };
            for centre_rows in [true, false] {
                let (writes, reads) = split_rows(grid, n, |y| {
                    y % half == 0 && ((y / half) % 2 == 1) == centre_rows
                });
                for_each_row(writes, n / step, |scratch, (y, row)| {
                    let first = first_column(y);
                    let count = (n - first).div_ceil(step);
                    let (offsets, lanes) =
                        scratch.offsets(place, level, (y, first, step), count, scale);
                    let (up, down) = (wrap_back(y, half, period), wrap_forward(y, half, period));
                    let (above, below) = (reads[up], reads[down]);
                    let point = |row: &[f32], x: usize, left: usize, right: usize, offset: f32| {
                        let sum = above[x] + below[x] + row[left] + row[right];
                        at_least(sum * 0.25 + offset, floor)
                    };
                    // Only the first and last points can wrap; the rest
                    // take their neighbours directly, with no branch.
                    let last = count - 1;
                    for k in [0, last] {
                        let x = first + k * step;
                        let (left, right) =
                            (wrap_back(x, half, period), wrap_forward(x, half, period));
                        row[x] = point(row, x, left, right, offsets[k]);
                    }
                    if last > 1 && step == 2 {
                        lanes.square_pairs(row, above, below, first + 2, &offsets[1..last], floor);
                    } else if last > 1 {
                        // Points 1..last at x = first + k·step, as strided
                        // iterators (no bounds check per load). A point's
                        // row neighbours x ± half are of the other parity,
                        // never written here; cells let one row be read
                        // and written through shared views.
                        let cells = Cell::from_mut(&mut row[..]).as_slice_of_cells();
                        let from = first + step;
                        for ((((cell, left), right), (&a, &b)), &offset) in
                            strided(cells, from, step)
                                .zip(strided(cells, from - half, step))
                                .zip(strided(cells, from + half, step))
                                .zip(strided(above, from, step).zip(strided(below, from, step)))
                                .zip(&offsets[1..last])
                        {
                            cell.set(at_least(
                                (a + b + left.get() + right.get()) * 0.25 + offset,
                                floor,
                            ));
                        }
                    }
                });
            }
            let edge_rows = (0..n).step_by(half);
            // A border point and its wrapped twin on the opposite side are
            // one point (the article computes it once and copies it), so
            // the lattice tiles and the borders stay continuous.
            for y in edge_rows {
                if first_column(y) == 0 {
                    grid[y * n + period] = grid[y * n];
                }
            }
            for x in (half..n).step_by(step) {
                grid[period * n + x] = grid[x];
            }
            range *= shrink;
            step = half;
            level += 1;
        }
        if step > 1 {
            fill_between_lattice(grid, n, step);
        }
    }
}

impl DiamondSquare {
    /// The lowest value a new point may take: 0 when negatives are clamped
    /// as generated, otherwise none.
    pub fn value_floor(&self) -> f32 {
        if self.clamp_negatives_as_generated {
            0.0
        } else {
            f32::NEG_INFINITY
        }
    }
}

/// `value`, raised to `floor` if below it. A compare and select (not
/// `f32::max`, whose NaN rule costs extra instructions) that vectorises;
/// with no floor (−∞) every value passes through unchanged, bit for bit.
#[inline(always)]
pub fn at_least(value: f32, floor: f32) -> f32 {
    if value < floor { floor } else { value }
}

/// One worker's scratch: a row's random words and the offsets made of
/// them.
#[derive(Default)]
struct RowScratch {
    words: Vec<u32>,
    offsets: Vec<f32>,
    lanes: Lanes,
}

/// Where a lattice's points sit on the world lattice.
#[derive(Clone, Copy)]
pub struct Place {
    /// The stage's key.
    pub key: PlaceKey,
    /// Where lattice indices sit on the world lattice.
    pub lattice: LatticePlace,
}

impl Place {
    /// The random word of lattice point (`x`, `y`) at `level`.
    #[inline]
    pub fn word(self, level: u32, x: usize, y: usize) -> u32 {
        self.key.word(
            level,
            self.lattice.coordinate(level, x),
            self.lattice.coordinate(level, y),
        )
    }
}

impl RowScratch {
    /// The random offsets, uniform in ±scale/2, of `count` points of row
    /// `y` at x = `first + k·step`: the words come from their places,
    /// and the conversion is a separate loop that vectorises.
    fn offsets(
        &mut self,
        place: Place,
        level: u32,
        (y, first, step): (usize, usize, usize),
        count: usize,
        scale: f32,
    ) -> (&[f32], &mut Lanes) {
        self.words.clear();
        self.words.resize(count, 0);
        let at = |i: usize| place.lattice.coordinate(level, i);
        place
            .key
            .row_words(level, (at(first), at(step)), at(y), &mut self.words);
        self.offsets.clear();
        self.offsets.extend(
            self.words
                .iter()
                .map(|&word| (unit_from_word(word) - 0.5) * scale),
        );
        (&self.offsets, &mut self.lanes)
    }
}

/// The last level (step 2) holds three quarters of all points. Its rows
/// are done in passes that vectorise, where a strided walk does not: the
/// neighbours every other cell are gathered into contiguous rows, summed
/// in the same order as the general code (so the same bits), and stored
/// back every other cell.
#[derive(Default)]
struct Lanes {
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    d: Vec<f32>,
    values: Vec<f32>,
}

impl Lanes {
    /// Diamond phase, step 2: point k at x = 2k + 1 averages the lattice
    /// points x ± 1 of the rows above and below.
    fn diamond_pairs(
        &mut self,
        row: &mut [f32],
        above: &[f32],
        below: &[f32],
        offsets: &[f32],
        floor: f32,
    ) {
        let count = offsets.len();
        every_other(above, 0, count + 1, &mut self.a);
        every_other(below, 0, count + 1, &mut self.b);
        self.values.clear();
        self.values.resize(count, 0.0);
        for (((v, (&a0, &a1)), (&b0, &b1)), &offset) in self
            .values
            .iter_mut()
            .zip(self.a.iter().zip(&self.a[1..]))
            .zip(self.b.iter().zip(&self.b[1..]))
            .zip(offsets)
        {
            *v = at_least((a0 + a1 + b0 + b1) * 0.25 + offset, floor);
        }
        store_every_other(row, 1, &self.values);
    }

    /// Square phase, step 2, points that do not wrap: point k at
    /// x = from + 2k reads the rows above and below at x and its own row
    /// at x ± 1 (the other parity, which this phase does not write).
    fn square_pairs(
        &mut self,
        row: &mut [f32],
        above: &[f32],
        below: &[f32],
        from: usize,
        offsets: &[f32],
        floor: f32,
    ) {
        let count = offsets.len();
        every_other(above, from, count, &mut self.a);
        every_other(below, from, count, &mut self.b);
        every_other(row, from - 1, count, &mut self.c);
        every_other(row, from + 1, count, &mut self.d);
        self.values.clear();
        self.values.resize(count, 0.0);
        for ((((v, &a), &b), (&left, &right)), &offset) in self
            .values
            .iter_mut()
            .zip(&self.a)
            .zip(&self.b)
            .zip(self.c.iter().zip(&self.d))
            .zip(offsets)
        {
            *v = at_least((a + b + left + right) * 0.25 + offset, floor);
        }
        store_every_other(row, from, &self.values);
    }
}

/// `out[k] = values[start + 2k]` for k < count. Pairs of cells keep the
/// stride fixed at 2, which the compiler vectorises with shuffles.
fn every_other(values: &[f32], start: usize, count: usize, out: &mut Vec<f32>) {
    out.clear();
    if count == 0 {
        return;
    }
    out.resize(count, 0.0);
    let pairs = &values[start..start + 2 * (count - 1)];
    for (o, pair) in out.iter_mut().zip(pairs.chunks_exact(2)) {
        *o = pair[0];
    }
    out[count - 1] = values[start + 2 * (count - 1)];
}

/// `cells[start + 2k] = values[k]` for every k, the cells between left
/// as they are.
fn store_every_other(cells: &mut [f32], start: usize, values: &[f32]) {
    let Some((&last, rest)) = values.split_last() else {
        return;
    };
    let pairs = &mut cells[start..start + 2 * rest.len()];
    for (pair, &v) in pairs.chunks_exact_mut(2).zip(rest) {
        pair[0] = v;
    }
    cells[start + 2 * rest.len()] = last;
}

/// Runs `write_row(scratch, row)` over the rows one phase writes (about
/// `points_per_row` points each), in parallel only where the phase has
/// enough points to pay for waking the thread pool: the coarse levels
/// have a handful.
fn for_each_row<'a>(
    rows: RowsToWrite<'a>,
    points_per_row: usize,
    write_row: impl Fn(&mut RowScratch, (usize, &'a mut [f32])) + Sync + Send,
) {
    const PARALLEL_POINTS: usize = 1 << 15;
    if rows.len() * points_per_row < PARALLEL_POINTS {
        let mut scratch = RowScratch::default();
        rows.into_iter()
            .for_each(|row| write_row(&mut scratch, row));
    } else {
        rows.into_par_iter()
            .for_each_init(RowScratch::default, write_row);
    }
}

/// Rows one phase writes, with their row index.
type RowsToWrite<'a> = Vec<(usize, &'a mut [f32])>;

/// The grid's rows split into those `write` selects (with their index)
/// and read-only views of all the others (`reads[y]`, empty for written
/// rows), so one phase can write rows in parallel while reading others.
fn split_rows(
    grid: &mut [f32],
    n: usize,
    write: impl Fn(usize) -> bool,
) -> (RowsToWrite<'_>, Vec<&[f32]>) {
    let mut writes = Vec::new();
    let mut reads: Vec<&[f32]> = Vec::with_capacity(n);
    for (y, row) in grid.chunks_exact_mut(n).enumerate() {
        if write(y) {
            writes.push((y, row));
            reads.push(&[]);
        } else {
            reads.push(row);
        }
    }
    (writes, reads)
}

/// Every `step`-th value of `values` from index `from` on.
fn strided<T>(
    values: &[T],
    from: usize,
    step: usize,
) -> std::iter::StepBy<std::slice::Iter<'_, T>> {
    values[from..].iter().step_by(step)
}

/// `(i + period - half) % period` without a division (hot loop).
#[inline]
fn wrap_back(i: usize, half: usize, period: usize) -> usize {
    if i >= half {
        i - half
    } else {
        i + period - half
    }
}

/// `(i + half) % period` without a division, for `i <= period`.
#[inline]
fn wrap_forward(i: usize, half: usize, period: usize) -> usize {
    let j = i + half;
    if j >= period { j - period } else { j }
}

/// Fills the cells between lattice points (spacing `step`) bilinearly.
fn fill_between_lattice(grid: &mut [f32], n: usize, step: usize) {
    for y in 0..n {
        let y0 = (y / step) * step;
        let y1 = (y0 + step).min(n - 1);
        let fy = if y1 > y0 {
            (y - y0) as f32 / (y1 - y0) as f32
        } else {
            0.0
        };
        for x in 0..n {
            if x % step == 0 && y % step == 0 {
                continue;
            }
            let x0 = (x / step) * step;
            let x1 = (x0 + step).min(n - 1);
            let fx = if x1 > x0 {
                (x - x0) as f32 / (x1 - x0) as f32
            } else {
                0.0
            };
            let top = grid[y0 * n + x0] * (1.0 - fx) + grid[y0 * n + x1] * fx;
            let bottom = grid[y1 * n + x0] * (1.0 - fx) + grid[y1 * n + x1] * fx;
            grid[y * n + x] = top * (1.0 - fy) + bottom * fy;
        }
    }
}

impl StageOp for DiamondSquare {
    fn discards_input(&self) -> bool {
        self.combine == Combine::Replace
    }

    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        let window = ctx.window_of(map);
        if !window.is_whole() {
            return self.apply_window(map, &window, ctx);
        }
        let (w, h) = (map.width(), map.height());
        let side = lattice_side(w.max(h));
        if self.combine == Combine::Replace && w == side && h == side {
            // The common case: build the lattice in the map's own buffer,
            // with no second allocation or copy. Its values stay within
            // |base| + extent/2 · Σ shrink^level (≤ 10^5 + 5·10^4 · 16),
            // finite by construction: no scan needed.
            self.lattice_into(map.data_mut(), side, &ctx.rng);
            ctx.output_finite = Some(true);
            return Ok(());
        }
        // Merged with the map below: each merged row is checked as it is
        // written (a product with large heights can overflow).
        let overflowed = AtomicBool::new(false);
        let check = |row: &[f32]| {
            if !row_is_finite(row) {
                overflowed.store(true, Ordering::Relaxed);
            }
        };
        // Cleared by all threads on huge pages: a fresh `side²` buffer
        // would otherwise fault in page by page on one thread.
        let mut grid = zeroed_in_parallel(side * side);
        self.lattice_into(&mut grid, side, &ctx.rng);
        // The lattice spans the world's longer side: a map cell is this
        // many lattice steps (1 when the longer side has `side` cells).
        let per_cell = (side - 1) as f32 / (w.max(h) - 1) as f32;
        if per_cell == 1.0 {
            map.data_mut()
                .par_chunks_mut(w)
                .zip(grid.par_chunks(side))
                .for_each(|(dst, src)| {
                    self.combine.merge(dst, &src[..w]);
                    check(dst);
                });
            ctx.output_finite = Some(!overflowed.load(Ordering::Relaxed));
            return Ok(());
        }
        let lattice = Heightmap::from_vec(side, side, grid).ok_or(StageError::Internal(
            "diamond-square lattice has the wrong size",
        ))?;
        let mut row_values = vec![0.0f32; w];
        for y in 0..h {
            for (x, v) in row_values.iter_mut().enumerate() {
                *v = lattice.sample_bilinear(x as f32 * per_cell, y as f32 * per_cell);
            }
            let dst = &mut map.data_mut()[y * w..(y + 1) * w];
            self.combine.merge(dst, &row_values);
            check(dst);
        }
        ctx.output_finite = Some(!overflowed.load(Ordering::Relaxed));
        Ok(())
    }
}

impl DiamondSquare {
    /// [`StageOp::apply`] on a proper window of the world: the lattice
    /// spans the world's longer side, and only the lattice points the
    /// window samples (and their parents) are computed.
    fn apply_window(
        &self,
        map: &mut Heightmap,
        window: &WorldWindow,
        ctx: &mut StageContext,
    ) -> Result<(), StageError> {
        let longer = window.world_longer_side();
        let side = lattice_side(longer);
        let per_cell = (side - 1) as f32 / (longer - 1).max(1) as f32;
        let w = window.window;
        let last = side - 1;
        // The lattice positions the window's first and last cells sample,
        // clamped to the lattice as bilinear sampling clamps them.
        let at = |i: usize| (i as f32 * per_cell).clamp(0.0, last as f32);
        let (lx0, ly0) = (at(w.x).floor() as usize, at(w.y).floor() as usize);
        let lx1 = (at(w.x + w.width - 1).floor() as usize + 1).min(last);
        let ly1 = (at(w.y + w.height - 1).floor() as usize + 1).min(last);
        let values = self.lattice_window(side, &ctx.rng, (lx0, ly0, lx1, ly1));
        let columns = lx1 - lx0 + 1;
        let point = |x: usize, y: usize| values[(y - ly0) * columns + (x - lx0)];
        let overflowed = AtomicBool::new(false);
        map.data_mut()
            .par_chunks_mut(w.width)
            .enumerate()
            .for_each_init(
                || vec![0.0f32; w.width],
                |row, (j, dst)| {
                    let y = w.y + j;
                    for (i, v) in row.iter_mut().enumerate() {
                        let x = w.x + i;
                        *v = if per_cell == 1.0 {
                            point(x, y)
                        } else {
                            // Heightmap::sample_bilinear's arithmetic, on
                            // the lattice points held.
                            let (fx, fy) = (at(x), at(y));
                            let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
                            let (x1, y1) = ((x0 + 1).min(last), (y0 + 1).min(last));
                            let (fx, fy) = (fx - x0 as f32, fy - y0 as f32);
                            let top = point(x0, y0) * (1.0 - fx) + point(x1, y0) * fx;
                            let bottom = point(x0, y1) * (1.0 - fx) + point(x1, y1) * fx;
                            top * (1.0 - fy) + bottom * fy
                        };
                    }
                    self.combine.merge(dst, row);
                    if !row_is_finite(dst) {
                        overflowed.store(true, Ordering::Relaxed);
                    }
                },
            );
        let finite = !overflowed.load(Ordering::Relaxed);
        ctx.output_finite = Some(finite);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lattice_sides() {
        assert_eq!(lattice_side(2), 3);
        assert_eq!(lattice_side(3), 3);
        assert_eq!(lattice_side(4), 5);
        assert_eq!(lattice_side(513), 513);
        assert_eq!(lattice_side(1000), 1025);
        assert_eq!(level_count(1025), 10);
    }
}
