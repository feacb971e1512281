//! Hillslope diffusion ∂h/∂t = D∇²h, implicit by alternating directions:
//! a whole step implicit along rows, then one along columns (backward
//! Euler in each direction, Lie splitting), each a tridiagonal solve per
//! line. Stable at any dt, where the explicit limit dt ≤ dx²/4D shrinks
//! 64× from 513² to 4097². Why not Peaceman–Rachford's half steps with an
//! explicit half: at the large dt erosion takes, their amplification of
//! one-cell stripes tends to −1, so the stripes that D8 channels cut
//! never smooth out; backward Euler damps them by 1/(1 + 4D·dt/dx²).
//! Outlets are held fixed; an edge that does not drain lets nothing
//! through (zero flux).

use crate::hydro::{FlowGrid, NodeStatus};
use rayon::prelude::*;

/// Columns solved together in the column sweep: a strip's rows are read
/// and written whole, so the sweep runs along memory without transposing
/// the map, and its inner loop over the strip vectorises.
const STRIP: usize = 64;

/// Diffuses `heights` on `grid` over `dt` years with diffusivity `d`
/// m²/yr on cells `cell_size` m apart; outlets are held fixed. Lines (and
/// strips of columns) solve in parallel, each on its own, so the bytes do
/// not depend on threads.
pub fn diffuse(heights: &mut [f32], grid: &FlowGrid, d: f64, dt: f64, cell_size: f64) {
    if d <= 0.0 || dt <= 0.0 || heights.is_empty() {
        return;
    }
    let (width, height) = (grid.width, grid.height);
    let r = d * dt / (cell_size * cell_size);
    let fixed = &grid.status;
    // Along rows, in place: each row's solve reads only its own row.
    // The elimination's coefficients depend only on which cells of the
    // row are fixed, not on its heights: rows with the same fixed cells
    // as the last one (nearly all of them) reuse its coefficients, so the
    // sweep is a multiply-add per cell instead of two divisions.
    heights.par_chunks_mut(width).enumerate().for_each_init(
        || (LineCoefficients::new(width), vec![0f64; width]),
        |(coefficients, d_prime), (y, row)| {
            let fixed = &fixed[y * width..(y + 1) * width];
            coefficients.update(fixed, r);
            let LineCoefficients {
                lower,
                c_prime,
                inverse,
                ..
            } = &*coefficients;
            let mut dp = 0.0;
            for x in 0..width {
                dp = (row[x] as f64 - lower[x] * dp) * inverse[x];
                d_prime[x] = dp;
            }
            let mut next = 0.0;
            for x in (0..width).rev() {
                let v = d_prime[x] - c_prime[x] * next;
                row[x] = v as f32;
                next = v;
            }
        },
    );
    // Along columns, a strip of columns at a time: the same Thomas solve
    // per column, its forward sweep down the rows and the substitution
    // back up, with the strip's coefficients kept per row.
    let strips: Vec<(usize, usize)> = (0..width)
        .step_by(STRIP)
        .map(|x0| (x0, (x0 + STRIP).min(width)))
        .collect();
    let solved: Vec<Vec<f32>> = strips
        .par_iter()
        .map(|&(x0, x1)| {
            let w = x1 - x0;
            let mut c_prime = vec![0f64; w * height];
            let mut d_prime = vec![0f64; w * height];
            for y in 0..height {
                let north = y > 0;
                let south = y + 1 < height;
                let row = &heights[y * width + x0..y * width + x1];
                let fixed = &fixed[y * width + x0..y * width + x1];
                let (done, here) = c_prime.split_at_mut(y * w);
                let (d_done, d_here) = d_prime.split_at_mut(y * w);
                let (cp_above, dp_above) = if north {
                    (&done[(y - 1) * w..], &d_done[(y - 1) * w..])
                } else {
                    (&[][..], &[][..])
                };
                for k in 0..w {
                    let rhs = row[k] as f64;
                    let (a, b, c) = if fixed[k].is_outlet() {
                        (0.0, 1.0, 0.0)
                    } else {
                        (
                            if north { -r } else { 0.0 },
                            1.0 + r * (north as u8 + south as u8) as f64,
                            if south { -r } else { 0.0 },
                        )
                    };
                    let (cp, dp) = if north {
                        (cp_above[k], dp_above[k])
                    } else {
                        (0.0, 0.0)
                    };
                    let inverse = 1.0 / (b - a * cp);
                    here[k] = c * inverse;
                    d_here[k] = (rhs - a * dp) * inverse;
                }
            }
            let mut out = vec![0f32; w * height];
            let mut next = vec![0f64; w];
            for y in (0..height).rev() {
                for k in 0..w {
                    let v = d_prime[y * w + k] - c_prime[y * w + k] * next[k];
                    out[y * w + k] = v as f32;
                    next[k] = v;
                }
            }
            out
        })
        .collect();
    heights
        .par_chunks_mut(width)
        .enumerate()
        .for_each(|(y, row)| {
            for (&(x0, x1), strip) in strips.iter().zip(&solved) {
                let w = x1 - x0;
                row[x0..x1].copy_from_slice(&strip[y * w..(y + 1) * w]);
            }
        });
}

/// The Thomas algorithm's coefficients for one line of `width` cells
/// with given fixed cells, kept while the next line has the same ones.
struct LineCoefficients {
    /// The fixed cells they were computed for.
    fixed: Vec<NodeStatus>,
    /// Each cell's coupling to the cell before it (−r, or 0).
    lower: Vec<f64>,
    /// The eliminated coupling to the cell after it.
    c_prime: Vec<f64>,
    /// One over each cell's eliminated diagonal.
    inverse: Vec<f64>,
    /// The r they were computed for.
    r: f64,
}

impl LineCoefficients {
    fn new(width: usize) -> Self {
        LineCoefficients {
            fixed: Vec::new(),
            lower: vec![0.0; width],
            c_prime: vec![0.0; width],
            inverse: vec![0.0; width],
            r: f64::NAN,
        }
    }

    /// Recomputes the coefficients unless `fixed` and `r` are those of
    /// the last line.
    fn update(&mut self, fixed: &[NodeStatus], r: f64) {
        if self.r == r && self.fixed == fixed {
            return;
        }
        let width = fixed.len();
        let mut cp = 0.0;
        for (x, status) in fixed.iter().enumerate() {
            let (a, b, c) = if status.is_outlet() {
                (0.0, 1.0, 0.0)
            } else {
                let west = x > 0;
                let east = x + 1 < width;
                (
                    if west { -r } else { 0.0 },
                    1.0 + r * (west as u8 + east as u8) as f64,
                    if east { -r } else { 0.0 },
                )
            };
            let inverse = 1.0 / (b - a * cp);
            cp = c * inverse;
            self.lower[x] = a;
            self.c_prime[x] = cp;
            self.inverse[x] = inverse;
        }
        self.fixed.clear();
        self.fixed.extend_from_slice(fixed);
        self.r = r;
    }
}
