//! Ordering cells by their receivers: each cell after its receiver, with
//! the drainage area summed on the way.
//! The bottom of the routing: both depression handling and
//! [`super::Routing`] build on it.

use crate::hugepages::{filled_with, huge_capacity, lazily_zeroed};

/// The order of a set of receivers.
pub struct DrainageOrder {
    /// Cells, each after its receiver.
    pub order: Vec<u32>,
    /// How many cells drain through each cell, itself included: integer
    /// counts, so the sum is exact in any order.
    pub cells: Vec<u32>,
    /// For each place in `order`, its cell's receiver: a walk down the
    /// order reads them in sequence, not scattered.
    pub order_receivers: Vec<u32>,
    /// For each place in `order`, its cell's drainage cells.
    pub order_cells: Vec<u32>,
}

/// A fixed order for fixed receivers, without a donor list: counting
/// each cell's donors, then walking down from every cell that has none
/// (in index order), a walk carrying on into a receiver once its last
/// donor has passed. That lists donors before receivers; reversed, it is
/// the drainage order. A cell is reached only after all its donors, so
/// the walk also sums the drainage area in the same pass.
///
/// Why not the depth-first stack of Braun & Willett: building the donor
/// lists and walking them costs three scattered passes where this costs
/// one count and one walk along neighbours, about 3× less time at 1025².
/// Why not Kahn's queue (every source first, then each receiver as it
/// completes): it is faster to build on rough ground, but it lists cells
/// far apart one after the other, and the incision solve that walks the
/// order then takes 1.3–1.4× longer at 1025² and 2049². The sources are
/// listed first in a pass of their own, without branches, so that the
/// walks are not interleaved with a mispredicted test of every cell.
pub fn drainage_order(receivers: &[u32]) -> DrainageOrder {
    drainage_order_counted(receivers, donor_counts(receivers))
}

/// How many cells hand their water to each cell of `receivers` (at most
/// eight: its neighbours).
pub fn donor_counts(receivers: &[u32]) -> Vec<u8> {
    let mut donors: Vec<u8> = lazily_zeroed(receivers.len());
    for (i, &r) in receivers.iter().enumerate() {
        donors[r as usize] += (r as usize != i) as u8;
    }
    donors
}

/// [`drainage_order`] given the [`donor_counts`] of `receivers`, when
/// they are known already (the depression routing keeps them up to date
/// as it carves): one scattered pass fewer.
pub fn drainage_order_counted(receivers: &[u32], donors: Vec<u8>) -> DrainageOrder {
    let n = receivers.len();
    assert_eq!(donors.len(), n, "one donor count per cell");
    let mut pending = donors;
    // One slot more than the cells: a cell that is not a source is
    // written past the list's end and overwritten. This list, the order
    // and its receivers and cells are written before they are read, so
    // they are taken uninitialised: `calloc` zeroed some 16 MB of reused
    // memory for them each 1025² step. The receivers and cells are two
    // lists, not one of pairs: from 2049² a list of pairs is larger than
    // the most glibc serves from its heap (32 MiB), so it was mapped
    // afresh each step and the kernel cleared its pages (7 % of a step).
    let mut sources: Vec<u32> = huge_capacity(n + 1);
    let slots = &mut sources.spare_capacity_mut()[..n + 1];
    let mut count = 0;
    for (i, &p) in pending.iter().enumerate() {
        slots[count].write(i as u32);
        count += (p == 0) as usize;
    }
    // SAFETY: slots 0..count were written (each before count passed it).
    unsafe { sources.set_len(count) };
    let mut cells = filled_with(n, 1u32);
    // Filled from the back: the walk lists donors first.
    let mut order: Vec<u32> = huge_capacity(n);
    let mut order_receivers: Vec<u32> = huge_capacity(n);
    let mut order_cells: Vec<u32> = huge_capacity(n);
    let (order_slots, receiver_slots, cell_slots) = (
        &mut order.spare_capacity_mut()[..n],
        &mut order_receivers.spare_capacity_mut()[..n],
        &mut order_cells.spare_capacity_mut()[..n],
    );
    let mut next = n;
    for &start in &sources {
        let mut c = start as usize;
        loop {
            next -= 1;
            order_slots[next].write(c as u32);
            let r = receivers[c] as usize;
            // Every donor of c has passed: its count is whole.
            receiver_slots[next].write(r as u32);
            cell_slots[next].write(cells[c]);
            if r == c {
                break;
            }
            cells[r] += cells[c];
            pending[r] -= 1;
            if pending[r] != 0 {
                break;
            }
            c = r;
        }
    }
    // Every cell was listed once, in slots n − 1 down to 0, unless the
    // receivers hold a cycle (whose cells no walk reaches).
    assert_eq!(next, 0, "receivers form a cycle");
    // SAFETY: slots next..n of all three were written, and next is 0.
    unsafe {
        order.set_len(n);
        order_receivers.set_len(n);
        order_cells.set_len(n);
    }
    DrainageOrder {
        order,
        cells,
        order_receivers,
        order_cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The drainage area by walking each cell's path: the definition.
    fn walked_cells(receivers: &[u32]) -> Vec<u32> {
        let mut cells = vec![0u32; receivers.len()];
        for start in 0..receivers.len() {
            let mut c = start;
            loop {
                cells[c] += 1;
                let r = receivers[c] as usize;
                if r == c {
                    break;
                }
                c = r;
            }
        }
        cells
    }

    /// Random forests on a line and a grid: every cell listed once, each
    /// after its receiver, and the areas those of the walked paths.
    #[test]
    fn order_lists_receivers_first_and_sums_areas() {
        use crate::rng::{range_f32, stage_rng};
        let mut rng = stage_rng(7, 1);
        for n in [1usize, 2, 5, 64, 1000] {
            // Each cell drains to a lower index or to itself: a forest.
            let receivers: Vec<u32> = (0..n)
                .map(|i| {
                    let pick = range_f32(&mut rng, 0.0, 1.0);
                    if i == 0 || pick < 0.1 {
                        i as u32
                    } else {
                        (range_f32(&mut rng, 0.0, i as f32) as usize).min(i - 1) as u32
                    }
                })
                .collect();
            let walk = drainage_order(&receivers);
            let mut place = vec![usize::MAX; n];
            for (k, &c) in walk.order.iter().enumerate() {
                assert_eq!(place[c as usize], usize::MAX, "cell {c} listed twice");
                place[c as usize] = k;
            }
            for (c, &r) in receivers.iter().enumerate() {
                assert!(place[r as usize] <= place[c], "{c} before its receiver {r}");
            }
            assert_eq!(walk.cells, walked_cells(&receivers));
        }
    }
}
