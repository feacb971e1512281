//! Diamond-square (ALGORITHMS §5, seed 003), level by level over rows.
//!
//! Side `2^n + 1`; corners start at `base`; each level sets square centres
//! (diamond phase) then edge midpoints (square phase, wrapping at the
//! border like the article's `JudgeInSide`), and the random range shrinks
//! by `2^-H`. Other sizes are generated at the next `2^n + 1` and cropped.

use super::combine::{COMBINE_HELP, Combine};
use super::{StageContext, StageError, StageOp};
use crate::terrain::heightmap::Heightmap;
use crate::terrain::params::{ParamVisitor, Params, visit_choice};
use crate::terrain::rng::{StageRng, at_word, unit_f32};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

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
    pub combine: Combine,
}

impl Default for DiamondSquare {
    fn default() -> Self {
        Self {
            roughness: 0.8,
            base: 0.0,
            extent: 200.0,
            stop_after_level: None,
            combine: Combine::Replace,
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
        let n = side;
        let period = n - 1;
        let mut grid = vec![0.0f32; n * n];
        for &(x, y) in &[(0, 0), (period, 0), (0, period), (period, period)] {
            grid[y * n + x] = self.base;
        }
        let shrink = 0.5f32.powf(self.roughness);
        let mut range = 1.0f32;
        let mut step = period;
        let mut level = 0u32;
        // Each (level, phase, row) reads its own words of the stream, so
        // rows could be computed in any order with the same result.
        let row_rng = |level: u32, phase: u32, y: usize| {
            let word = ((level as u128 * 2 + phase as u128) * n as u128 + y as u128) * n as u128;
            at_word(rng, word)
        };
        while step > 1 {
            if self.stop_after_level.is_some_and(|stop| level >= stop) {
                break;
            }
            let half = step / 2;
            let scale = range * self.extent;
            // Diamond phase: square centres. Each phase reads only points
            // it does not write, so rows are computed in parallel and
            // written back afterwards.
            let centre_rows: Vec<usize> = (half..n).step_by(step).collect();
            let centres: Vec<Vec<f32>> = centre_rows
                .par_iter()
                .map(|&y| {
                    let mut r = row_rng(level, 0, y);
                    (half..n)
                        .step_by(step)
                        .map(|x| {
                            let sum = grid[(y - half) * n + x - half]
                                + grid[(y - half) * n + x + half]
                                + grid[(y + half) * n + x - half]
                                + grid[(y + half) * n + x + half];
                            sum * 0.25 + (unit_f32(&mut r) - 0.5) * scale
                        })
                        .collect()
                })
                .collect();
            for (&y, values) in centre_rows.iter().zip(&centres) {
                for (x, &v) in (half..n).step_by(step).zip(values) {
                    grid[y * n + x] = v;
                }
            }
            // Square phase: edge midpoints, wrapping across the border.
            let edge_rows: Vec<usize> = (0..n).step_by(half).collect();
            let first_column = |y: usize| {
                if (y / half).is_multiple_of(2) {
                    half
                } else {
                    0
                }
            };
            let edges: Vec<Vec<f32>> = edge_rows
                .par_iter()
                .map(|&y| {
                    let mut r = row_rng(level, 1, y);
                    let (up, down) = (wrap_back(y, half, period), wrap_forward(y, half, period));
                    (first_column(y)..n)
                        .step_by(step)
                        .map(|x| {
                            let left = wrap_back(x, half, period);
                            let right = wrap_forward(x, half, period);
                            let sum = grid[up * n + x]
                                + grid[down * n + x]
                                + grid[y * n + left]
                                + grid[y * n + right];
                            sum * 0.25 + (unit_f32(&mut r) - 0.5) * scale
                        })
                        .collect()
                })
                .collect();
            for (&y, values) in edge_rows.iter().zip(&edges) {
                for (x, &v) in (first_column(y)..n).step_by(step).zip(values) {
                    grid[y * n + x] = v;
                }
            }
            // A border point and its wrapped twin on the opposite side are
            // one point (the article computes it once and copies it), so
            // the lattice tiles and the borders stay continuous.
            for &y in &edge_rows {
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
            fill_between_lattice(&mut grid, n, step);
        }
        grid
    }
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
    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        let (w, h) = (map.width(), map.height());
        let side = lattice_side(w.max(h));
        let grid = self.lattice(side, &ctx.rng);
        for y in 0..h {
            let src = &grid[y * side..y * side + w];
            let dst = &mut map.data_mut()[y * w..(y + 1) * w];
            self.combine.merge(dst, src);
        }
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
