//! Steepest-descent (D8) receivers: each cell hands its water to the
//! neighbour it falls to fastest. Outlets and cells with no lower
//! neighbour (pits, flats) receive their own water.

use super::{NEIGHBOURS, Outlets, drop_rate};
use rayon::prelude::*;

/// The receiver of every cell of a `width`-wide map (row-major), by
/// steepest descent over the eight neighbours; outlets, pits and cells on
/// flats are their own receiver. Rows run in parallel; each cell's choice
/// depends only on its neighbours, so the result does not depend on the
/// thread count.
pub fn steepest_receivers(heights: &[f32], width: usize, outlets: &Outlets) -> Vec<u32> {
    let height = heights.len() / width.max(1);
    let mut receivers = vec![0u32; heights.len()];
    receivers
        .par_chunks_mut(width.max(1))
        .enumerate()
        .for_each(|(y, row)| {
            for (x, r) in row.iter_mut().enumerate() {
                let i = y * width + x;
                *r = receiver_of(heights, width, height, x, y, outlets) as u32;
                debug_assert!(*r as usize == i || heights[*r as usize] < heights[i]);
            }
        });
    receivers
}

#[inline]
fn receiver_of(
    heights: &[f32],
    width: usize,
    height: usize,
    x: usize,
    y: usize,
    outlets: &Outlets,
) -> usize {
    let i = y * width + x;
    let h = heights[i];
    if outlets.is_outlet(x, y, width, height, h) {
        return i;
    }
    let interior = x > 0 && y > 0 && x + 1 < width && y + 1 < height;
    let mut best = i;
    let mut best_rate = 0.0f32;
    if interior {
        // The common case without bounds checks on the offsets.
        for &(dx, dy) in &NEIGHBOURS {
            let j = (i as isize + dy * width as isize + dx) as usize;
            let rate = drop_rate(h, heights[j], dx != 0 && dy != 0);
            if rate > best_rate {
                best_rate = rate;
                best = j;
            }
        }
    } else {
        for &(dx, dy) in &NEIGHBOURS {
            let (nx, ny) = (x as isize + dx, y as isize + dy);
            if nx < 0 || ny < 0 || nx >= width as isize || ny >= height as isize {
                continue;
            }
            let j = ny as usize * width + nx as usize;
            let rate = drop_rate(h, heights[j], dx != 0 && dy != 0);
            if rate > best_rate {
                best_rate = rate;
                best = j;
            }
        }
    }
    best
}
