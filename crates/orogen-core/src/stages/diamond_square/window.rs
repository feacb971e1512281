//! Diamond-square over a window of the lattice alone: each level computes
//! only the points the window needs and the parents those need, so a
//! window of a 65537² world costs about its own size.
//!
//! The lattice is periodic (square points wrap, border twins are copied),
//! so it is computed here on unwrapped coordinates, each point keyed by
//! its place modulo the period: every point sees the same neighbours, in
//! the same order of additions, as in [`DiamondSquare::lattice_into`],
//! and so has the same bits.

use super::{DiamondSquare, Place, at_least, level_count};
use crate::place_rng::{LatticePlace, PlaceKey};
use crate::rng::{StageRng, unit_from_word};
use rayon::prelude::*;

/// Lattice points `x0..=x1` × `y0..=y1` on one level's grid of spacing
/// `step` (coordinates multiples of it, possibly beyond the lattice).
#[derive(Clone, Copy, Debug, PartialEq)]
struct LatticeRect {
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
}

impl LatticeRect {
    /// Grown by `by` each way and rounded outward to multiples of `step`.
    fn grown_to(self, by: i64, step: i64) -> LatticeRect {
        let down = |v: i64| v.div_euclid(step) * step;
        let up = |v: i64| -(-v).div_euclid(step) * step;
        LatticeRect {
            x0: down(self.x0 - by),
            y0: down(self.y0 - by),
            x1: up(self.x1 + by),
            y1: up(self.y1 + by),
        }
    }
}

/// Values on the points of a [`LatticeRect`] with spacing `step` (a power of
/// two), row-major.
struct Grid {
    span: LatticeRect,
    /// `step = 1 << shift`: indices by shifts, not divisions.
    shift: u32,
    columns: usize,
    values: Vec<f32>,
}

impl Grid {
    fn new(span: LatticeRect, step: i64, fill: f32) -> Grid {
        let shift = step.trailing_zeros();
        let columns = ((span.x1 - span.x0) >> shift) as usize + 1;
        let rows = ((span.y1 - span.y0) >> shift) as usize + 1;
        Grid {
            span,
            shift,
            columns,
            values: vec![fill; columns * rows],
        }
    }

    #[inline]
    fn get(&self, x: i64, y: i64) -> f32 {
        let i = ((x - self.span.x0) >> self.shift) as usize;
        let j = ((y - self.span.y0) >> self.shift) as usize;
        self.values[j * self.columns + i]
    }

    /// Sets every point to `value(x, y)`, rows in parallel when there are
    /// enough points to pay for it. Each point is computed alone, so the
    /// bits do not depend on the thread count.
    fn fill(&mut self, value: impl Fn(i64, i64) -> f32 + Sync) {
        let (span, shift, columns) = (self.span, self.shift, self.columns);
        let row = |(j, cells): (usize, &mut [f32])| {
            let y = span.y0 + ((j as i64) << shift);
            for (i, cell) in cells.iter_mut().enumerate() {
                *cell = value(span.x0 + ((i as i64) << shift), y);
            }
        };
        if self.values.len() < 1 << 14 {
            self.values.chunks_mut(columns).enumerate().for_each(row);
        } else {
            self.values
                .par_chunks_mut(columns)
                .enumerate()
                .for_each(row);
        }
    }
}

impl DiamondSquare {
    /// The points `x0..=x1` × `y0..=y1` (lattice indices, inclusive, on
    /// the lattice) of the `side` lattice, row-major: the same bits as
    /// those points of [`DiamondSquare::lattice`].
    pub fn lattice_window(
        &self,
        side: usize,
        rng: &StageRng,
        (x0, y0, x1, y1): (usize, usize, usize, usize),
    ) -> Vec<f32> {
        let period = (side - 1) as i64;
        let levels = level_count(side);
        let run = self
            .stop_after_level
            .map_or(levels, |stop| stop.min(levels));
        let last_step = period >> run;
        let floor = self.value_floor();
        let window = LatticeRect {
            x0: x0 as i64,
            y0: y0 as i64,
            x1: x1 as i64,
            y1: y1 as i64,
        };
        // The points each level must hold, from the finest up: a level's
        // points read their parents at most one parent step away.
        let mut need = vec![window.grown_to(0, last_step)];
        for level in (0..run).rev() {
            let step = period >> level;
            let finer = need[need.len() - 1];
            need.push(finer.grown_to(step, step));
        }
        need.reverse();
        let place = Place {
            key: PlaceKey::of_stage(rng),
            lattice: LatticePlace::of_period(period as usize),
        };
        let word = |level: u32, x: i64, y: i64| {
            place.word(
                level,
                x.rem_euclid(period) as usize,
                y.rem_euclid(period) as usize,
            )
        };
        // Level 0's points are the corners, every one the base.
        let mut grid = Grid::new(need[0], period, at_least(self.base, floor));
        let shrink = 0.5f32.powf(self.roughness);
        let mut range = 1.0f32;
        for level in 0..run {
            let step = period >> level;
            let half = step / 2;
            let scale = range * self.extent;
            let value = |sum: f32, x: i64, y: i64| {
                let offset = (unit_from_word(word(level, x, y)) - 0.5) * scale;
                at_least(sum * 0.25 + offset, floor)
            };
            let target = need[level as usize + 1];
            // The square points of `target` read square centres up to
            // `half` outside it.
            let around = target.grown_to(half, half);
            let on = |v: i64, m: i64| v.rem_euclid(step) == m;
            // The level's lattice and diamond points (square points, not
            // set here, are never read from this grid).
            let mut centres = Grid::new(around, half, 0.0);
            centres.fill(|x, y| {
                if on(x, 0) && on(y, 0) {
                    grid.get(x, y)
                } else if on(x, half) && on(y, half) {
                    // Diamond phase, in the order the rows add.
                    let sum = grid.get(x - half, y - half)
                        + grid.get(x + half, y - half)
                        + grid.get(x - half, y + half)
                        + grid.get(x + half, y + half);
                    value(sum, x, y)
                } else {
                    0.0
                }
            });
            // Square phase (above, below, west, east), which reads only
            // lattice and diamond points; the rest are copied.
            let mut kept = Grid::new(target, half, 0.0);
            kept.fill(|x, y| {
                if on(x, 0) == on(y, 0) {
                    return centres.get(x, y);
                }
                let sum = centres.get(x, y - half)
                    + centres.get(x, y + half)
                    + centres.get(x - half, y)
                    + centres.get(x + half, y);
                value(sum, x, y)
            });
            grid = kept;
            range *= shrink;
        }
        let columns = x1 - x0 + 1;
        let mut out = vec![0.0f32; columns * (y1 - y0 + 1)];
        out.par_chunks_mut(columns)
            .enumerate()
            .for_each(|(j, row)| {
                let y = window.y0 + j as i64;
                for (i, cell) in row.iter_mut().enumerate() {
                    *cell = between_lattice(&grid, window.x0 + i as i64, y, last_step, period);
                }
            });
        out
    }
}

/// Point (x, y) of a lattice computed down to spacing `step`: the point
/// itself where it is on that lattice, else bilinear between the four
/// around it, exactly as the whole lattice's fill does.
fn between_lattice(grid: &Grid, x: i64, y: i64, step: i64, period: i64) -> f32 {
    if x % step == 0 && y % step == 0 {
        return grid.get(x, y);
    }
    let (x0, y0) = ((x / step) * step, (y / step) * step);
    let (x1, y1) = ((x0 + step).min(period), (y0 + step).min(period));
    let fraction = |v: i64, a: i64, b: i64| {
        if b > a {
            (v - a) as f32 / (b - a) as f32
        } else {
            0.0
        }
    };
    let (fx, fy) = (fraction(x, x0, x1), fraction(y, y0, y1));
    let top = grid.get(x0, y0) * (1.0 - fx) + grid.get(x1, y0) * fx;
    let bottom = grid.get(x0, y1) * (1.0 - fx) + grid.get(x1, y1) * fx;
    top * (1.0 - fy) + bottom * fy
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stage_rng;

    fn windows_equal_the_whole_lattice(ds: &DiamondSquare, side: usize) {
        let rng = stage_rng(17, 0);
        let whole = ds.lattice(side, &rng);
        let last = side - 1;
        for (x0, y0, x1, y1) in [
            (0, 0, last, last),
            (0, 0, 0, 0),
            (last, last, last, last),
            (3, 5, 3, 5),
            (1, 0, 17.min(last), 9.min(last)),
            (last / 2, last / 3, last, (last / 2 + 1).min(last)),
            (last.saturating_sub(4), 0, last, last),
        ] {
            let (x0, y0, x1, y1) = (x0.min(last), y0.min(last), x1.min(last), y1.min(last));
            let got = ds.lattice_window(side, &rng, (x0, y0, x1, y1));
            let mut want = Vec::new();
            for y in y0..=y1 {
                want.extend_from_slice(&whole[y * side + x0..=y * side + x1]);
            }
            let same = got
                .iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(
                same && got.len() == want.len(),
                "{side} {:?}",
                (x0, y0, x1, y1)
            );
        }
    }

    #[test]
    fn lattice_windows_are_the_whole_lattice_bit_for_bit() {
        for side in [3, 5, 9, 33, 129] {
            windows_equal_the_whole_lattice(&DiamondSquare::default(), side);
        }
        let clamped = DiamondSquare {
            clamp_negatives_as_generated: true,
            base: 3.0,
            ..DiamondSquare::default()
        };
        windows_equal_the_whole_lattice(&clamped, 65);
        let stopped = DiamondSquare {
            stop_after_level: Some(3),
            ..DiamondSquare::default()
        };
        windows_equal_the_whole_lattice(&stopped, 65);
    }
}
