//! Steepest-descent (D8) receivers: each cell hands its water to the
//! neighbour it falls to fastest. Outlets and cells with no lower
//! neighbour (pits, flats) receive their own water.

use super::INV_SQRT_2;
use super::grid::{FlowGrid, NodeStatus};
use super::{NEIGHBOURS, drop_rate};
use crate::hugepages::filled_in_parallel;

/// The receiver of every node of `grid` with `heights`, by steepest
/// descent over the eight neighbours; outlets, pits and cells on flats
/// are their own receiver. Rows run in parallel; each cell's choice
/// depends only on its neighbours, so the result does not depend on the
/// thread count.
pub fn steepest_receivers(heights: &[f32], grid: &FlowGrid) -> Vec<u32> {
    let width = grid.width;
    let height = grid.height;
    // Each row is made in a buffer of its own and copied into memory
    // taken uninitialised: zeroing the whole list first cost a pass over
    // it (about 1 ms at 2049²), the copy of a row still in cache less.
    filled_in_parallel(heights.len(), width, |y, slots| {
        let mut row = vec![0u32; width];
        let interior_row = y > 0 && y + 1 < height && width > 2;
        if interior_row {
            receiver_row(heights, &grid.status, width, y, &mut row);
        }
        for (x, r) in row.iter_mut().enumerate() {
            if interior_row && x > 0 && x + 1 < width {
                continue;
            }
            *r = receiver_of(heights, grid, x, y) as u32;
        }
        debug_assert!(row.iter().enumerate().all(|(x, &r)| {
            let i = y * width + x;
            r as usize == i || heights[r as usize] < heights[i]
        }));
        for (slot, &r) in slots.iter_mut().zip(&row) {
            slot.write(r);
        }
    })
}

/// The receivers of the interior cells (columns 1..width − 1) of row `y`
/// (not the first or last) into `row`. Compiled for AVX2 too; see
/// [`crate::simd`].
///
/// Why a kernel of its own: the eight neighbours compared one after the
/// other with a branch each cost about 15 ns a cell (the branches do not
/// predict on rough ground); as selects over whole rows the compiler
/// vectorises them, several times faster. Each cell makes the same
/// comparisons in the same order as [`receiver_of`], so the receivers are
/// the same.
#[multiversion::multiversion(targets("x86_64+avx2"))]
pub(super) fn receiver_row(
    heights: &[f32],
    status: &[NodeStatus],
    width: usize,
    y: usize,
    row: &mut [u32],
) {
    receiver_row_body(heights, status, width, y, row)
}

/// [`receiver_row`] without target features, for the tests of [`crate::simd`].
#[cfg(test)]
fn receiver_row_plain(
    heights: &[f32],
    status: &[NodeStatus],
    width: usize,
    y: usize,
    row: &mut [u32],
) {
    receiver_row_body(heights, status, width, y, row)
}

#[inline(always)]
fn receiver_row_body(
    heights: &[f32],
    status: &[NodeStatus],
    width: usize,
    y: usize,
    row: &mut [u32],
) {
    let start = y * width;
    let above = &heights[start - width..start];
    let here = &heights[start..start + width];
    let below = &heights[start + width..start + 2 * width];
    let status = &status[start..start + width];
    let w = width as u32;
    let first = start as u32;
    // Shifted views, one per neighbour, all `width − 2` long: the loop
    // below then indexes each at `x` without bounds checks.
    let n = width - 2;
    let (a0, a1, a2) = (&above[..n], &above[1..n + 1], &above[2..n + 2]);
    let (h0, h1, h2) = (&here[..n], &here[1..n + 1], &here[2..n + 2]);
    let (b0, b1, b2) = (&below[..n], &below[1..n + 1], &below[2..n + 2]);
    let (status, out) = (&status[1..n + 1], &mut row[1..n + 1]);
    for x in 0..n {
        let h = h1[x];
        let i = first + 1 + x as u32;
        let mut best = i;
        let mut best_rate = 0.0f32;
        // NEIGHBOURS' order: the first of equally steep ones wins.
        let candidates = [
            ((h - a0[x]) * INV_SQRT_2, i - w - 1),
            (h - a1[x], i - w),
            ((h - a2[x]) * INV_SQRT_2, i - w + 1),
            (h - h0[x], i - 1),
            (h - h2[x], i + 1),
            ((h - b0[x]) * INV_SQRT_2, i + w - 1),
            (h - b1[x], i + w),
            ((h - b2[x]) * INV_SQRT_2, i + w + 1),
        ];
        for (rate, j) in candidates {
            let steeper = rate > best_rate;
            best_rate = if steeper { rate } else { best_rate };
            best = if steeper { j } else { best };
        }
        out[x] = if status[x] == NodeStatus::Core {
            best
        } else {
            i
        };
    }
}

#[cfg(test)]
impl crate::simd::KernelChecks {
    /// Runs [`receiver_row`] (the AVX2 copy where the CPU has it) and its
    /// plain copy over random maps with flats, ties and outlets, and says
    /// where they differ.
    pub(crate) fn receiver_row(seed: u64) -> Result<(), String> {
        use crate::rng::{range_f32, stage_rng};
        let mut rng = stage_rng(seed, 11);
        for (w, h) in [(3usize, 3usize), (4, 3), (9, 4), (17, 5), (33, 3), (100, 6)] {
            // Heights on a coarse lattice so that ties and flats occur.
            let heights: Vec<f32> = (0..w * h)
                .map(|_| (range_f32(&mut rng, 0.0, 6.0)).floor())
                .collect();
            let status: Vec<NodeStatus> = (0..w * h)
                .map(|_| {
                    if range_f32(&mut rng, 0.0, 1.0) < 0.1 {
                        NodeStatus::Sea
                    } else {
                        NodeStatus::Core
                    }
                })
                .collect();
            for y in 1..h - 1 {
                let (mut a, mut b) = (vec![0u32; w], vec![0u32; w]);
                receiver_row(&heights, &status, w, y, &mut a);
                receiver_row_plain(&heights, &status, w, y, &mut b);
                if let Some(x) = (0..w).find(|&x| a[x] != b[x]) {
                    return Err(format!(
                        "receiver_row, seed {seed}, map {w}x{h}, y {y}, x {x}: {} vs plain {}",
                        a[x], b[x]
                    ));
                }
            }
        }
        Ok(())
    }
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
