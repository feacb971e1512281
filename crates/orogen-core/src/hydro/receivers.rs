//! Steepest-descent (D8) receivers: each cell hands its water to the
//! neighbour it falls to fastest. Outlets and cells with no lower
//! neighbour (pits, flats) receive their own water.

use super::grid::FlowGrid;
use super::{NEIGHBOURS, drop_rate};
use rayon::prelude::*;

/// The receiver of every node of `grid` with `heights`, by steepest
/// descent over the eight neighbours; outlets, pits and cells on flats
/// are their own receiver. Rows run in parallel; each cell's choice
/// depends only on its neighbours, so the result does not depend on the
/// thread count.
pub fn steepest_receivers(heights: &[f32], grid: &FlowGrid) -> Vec<u32> {
    let width = grid.width;
    let mut receivers = vec![0u32; heights.len()];
    receivers
        .par_chunks_mut(width)
        .enumerate()
        .for_each(|(y, row)| {
            for (x, r) in row.iter_mut().enumerate() {
                let i = y * width + x;
                *r = receiver_of(heights, grid, x, y) as u32;
                debug_assert!(*r as usize == i || heights[*r as usize] < heights[i]);
            }
        });
    receivers
}

#[inline]
fn receiver_of(heights: &[f32], grid: &FlowGrid, x: usize, y: usize) -> usize {
    let (width, height) = (grid.width, grid.height);
    let i = y * width + x;
    if grid.is_outlet(i) {
        return i;
    }
    let h = heights[i];
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
