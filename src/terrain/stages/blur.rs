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

/// One pass of a `(2r+1)²` box mean over the cells that exist.
///
/// Separable: the mean over a clipped rectangle is the horizontal window sum
/// summed vertically, divided by (columns in window) x (rows in window).
/// Horizontal sums use a running sum in f64, so a pass costs O(1) per cell
/// whatever `r` is.
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
    map.data_mut()
        .par_chunks_mut(width)
        .enumerate()
        .for_each(|(y, out)| {
            let y0 = y.saturating_sub(radius);
            let y1 = (y + radius).min(height - 1);
            let rows = (y1 - y0 + 1) as f32;
            for (x, cell) in out.iter_mut().enumerate() {
                let mut sum = 0.0f32;
                for yy in y0..=y1 {
                    sum += row_sums[yy * width + x];
                }
                let cols = (x.min(radius) + (width - 1 - x).min(radius) + 1) as f32;
                *cell = sum / (cols * rows);
            }
        });
}

fn horizontal_window_sums(row: &[f32], radius: usize, out: &mut [f32]) {
    let width = row.len();
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
