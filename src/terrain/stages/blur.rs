//! Box blur (ALGORITHMS §3), done right: every cell of a pass reads the
//! previous pass, and border cells average the neighbours that exist.

use super::{StageContext, StageError, StageOp};
use crate::terrain::heightmap::Heightmap;
use crate::terrain::params::{ParamVisitor, Params};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blur {
    pub passes: u32,
    pub radius: u32,
}

impl Default for Blur {
    fn default() -> Self {
        Self {
            passes: 3,
            radius: 1,
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
        v.int(
            "radius",
            &mut self.radius,
            1..=64,
            "Half-width of the box: 1 = the article's 3x3 mean, r = (2r+1)².",
        );
    }
}

impl StageOp for Blur {
    fn apply(&self, map: &mut Heightmap, _: &mut StageContext) -> Result<(), StageError> {
        let mut scratch = vec![0.0f32; map.data().len()];
        for _ in 0..self.passes {
            box_blur_pass(map, self.radius as usize, &mut scratch);
        }
        Ok(())
    }
}

/// Rows per band of the vertical pass. Fixed (not derived from the thread
/// count) so the running sums restart at the same rows on every machine.
const BAND_ROWS: usize = 64;

/// One pass of a `(2r+1)²` box mean over the cells that exist.
///
/// Separable: the mean over a clipped rectangle is the horizontal window
/// sum summed vertically, divided by (columns in window) x (rows in
/// window). Both directions use running sums (f64 along rows, f32 column
/// vectors restarted every [`BAND_ROWS`] rows), so a pass costs O(1) per
/// cell whatever `r` is; bands and rows run in parallel.
pub fn box_blur_pass(map: &mut Heightmap, radius: usize, row_sums: &mut Vec<f32>) {
    let width = map.width();
    let height = map.height();
    row_sums.resize(width * height, 0.0);
    let source = map.data();
    row_sums
        .par_chunks_mut(width)
        .zip(source.par_chunks(width))
        .for_each(|(out, row)| horizontal_window_sums(row, radius, out));
    let row_sums = &*row_sums;
    // Inverse column counts: how many columns each window covers.
    let inv_cols: Vec<f32> = (0..width)
        .map(|x| 1.0 / (x.min(radius) + (width - 1 - x).min(radius) + 1) as f32)
        .collect();
    map.data_mut()
        .par_chunks_mut(width * BAND_ROWS)
        .enumerate()
        .for_each(|(band, out)| {
            let first = band * BAND_ROWS;
            let mut acc = vec![0.0f32; width];
            let y0 = first.saturating_sub(radius);
            let y1 = (first + radius).min(height - 1);
            for yy in y0..=y1 {
                add_row(&mut acc, &row_sums[yy * width..(yy + 1) * width]);
            }
            for (k, out_row) in out.chunks_exact_mut(width).enumerate() {
                let y = first + k;
                let rows = ((y.min(radius) + (height - 1 - y).min(radius)) + 1) as f32;
                let inv_rows = 1.0 / rows;
                for ((o, &a), &ic) in out_row.iter_mut().zip(&acc).zip(&inv_cols) {
                    *o = a * ic * inv_rows;
                }
                if y + radius + 1 < height {
                    let r = y + radius + 1;
                    add_row(&mut acc, &row_sums[r * width..(r + 1) * width]);
                }
                if y >= radius {
                    let r = y - radius;
                    sub_row(&mut acc, &row_sums[r * width..(r + 1) * width]);
                }
            }
        });
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

fn horizontal_window_sums(row: &[f32], radius: usize, out: &mut [f32]) {
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
    let mut sum = 0.0f64;
    for &v in &row[..(radius + 1).min(width)] {
        sum += v as f64;
    }
    for x in 0..width {
        out[x] = sum as f32;
        if x + radius + 1 < width {
            sum += row[x + radius + 1] as f64;
        }
        if x >= radius {
            sum -= row[x - radius] as f64;
        }
    }
}
