//! Ordering cells by their receivers: each cell after its receiver, with
//! the drainage area summed on the way.
//! The bottom of the routing: both depression handling and
//! [`super::Routing`] build on it.

/// The order of a set of receivers.
pub struct DrainageOrder {
    /// Cells, each after its receiver.
    pub order: Vec<u32>,
    /// How many cells drain through each cell, itself included: integer
    /// counts, so the sum is exact in any order.
    pub cells: Vec<u32>,
}

/// A fixed order for fixed receivers, without a donor list: counting
/// each cell's donors, then walking down from every cell that has none
/// (in index order), a walk carrying on into a receiver once its last
/// donor has passed. That lists donors before receivers; reversed, it is
/// the drainage order. A cell is reached only after all its donors, so
/// the walk also sums the drainage area, in the same pass. Why not the
/// depth-first stack of Braun & Willett: building the donor lists and
/// walking them costs three scattered passes where this costs one count
/// and one walk along neighbours, about 3× less time at 1025².
pub fn drainage_order(receivers: &[u32]) -> DrainageOrder {
    const DONE: u8 = u8::MAX;
    let n = receivers.len();
    // At most eight donors each.
    let mut pending = vec![0u8; n];
    for (i, &r) in receivers.iter().enumerate() {
        if r as usize != i {
            pending[r as usize] += 1;
        }
    }
    let mut cells = vec![1u32; n];
    // Filled from the back: the walk lists donors first.
    let mut order = vec![0u32; n];
    let mut next = n;
    for start in 0..n {
        if pending[start] != 0 {
            continue;
        }
        let mut c = start;
        loop {
            next -= 1;
            order[next] = c as u32;
            pending[c] = DONE;
            let r = receivers[c] as usize;
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
    debug_assert_eq!(next, 0, "receivers form a cycle");
    DrainageOrder { order, cells }
}
