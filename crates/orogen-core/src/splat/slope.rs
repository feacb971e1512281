//! Slope in degrees from central differences, with a vectorising atan.

use super::weights::larger;
use crate::heightmap::Heightmap;
use rayon::prelude::*;

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

/// One row of [`slope_map`]. Compiled for AVX2 too; see [`crate::simd`].
#[multiversion::multiversion(targets("x86_64+avx2"))]
pub(super) fn slope_row(map: &Heightmap, inv_cell: f32, y: usize, row: &mut [f32]) {
    slope_row_body(map, inv_cell, y, row)
}

/// [`slope_row`] without target features, for the tests of [`crate::simd`].
#[cfg(test)]
fn slope_row_plain(map: &Heightmap, inv_cell: f32, y: usize, row: &mut [f32]) {
    slope_row_body(map, inv_cell, y, row)
}

#[cfg(test)]
impl crate::simd::KernelChecks {
    /// Runs [`slope_row`] (the AVX2 copy where the CPU has it) and its plain
    /// copy over every row of random maps of many sizes, and says where they
    /// differ in a single bit.
    pub(crate) fn slope_row(seed: u64) -> Result<(), String> {
        use crate::rng::{range_f32, stage_rng};
        let mut rng = stage_rng(seed, 3);
        let sizes = [1usize, 2, 3, 4, 7, 8, 9, 17, 33, 100];
        let shapes = sizes
            .into_iter()
            .flat_map(|w| [1usize, 2, 3, 9].map(|h| (w, h)));
        for (w, h) in shapes {
            let cells = (0..w * h)
                .map(|_| range_f32(&mut rng, -300.0, 300.0))
                .collect();
            let map = Heightmap::from_vec(w, h, cells).expect("cells fit the size");
            let inv_cell = 1.0 / range_f32(&mut rng, 0.1, 8.0);
            for y in 0..h {
                let (mut a, mut b) = (vec![0.0f32; w], vec![0.0f32; w]);
                slope_row(&map, inv_cell, y, &mut a);
                slope_row_plain(&map, inv_cell, y, &mut b);
                if let Some(x) = Self::first_difference(&a, &b) {
                    return Err(format!(
                        "slope_row, seed {seed}, map {w}x{h}, y {y}, x {x}: {} vs plain {}",
                        a[x], b[x]
                    ));
                }
            }
        }
        Ok(())
    }
}

#[inline(always)]
fn slope_row_body(map: &Heightmap, inv_cell: f32, y: usize, row: &mut [f32]) {
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
