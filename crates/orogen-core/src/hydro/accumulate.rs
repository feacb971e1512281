//! Drainage area and lake levels over a [`Routing`].

use super::order::Routing;

/// How many cells drain through each cell (itself included): integer
/// counts, so the sum is exact in any order. Multiply by the cell area for
/// square metres.
pub fn drainage_cells(routing: &Routing) -> Vec<u32> {
    let mut cells = vec![1u32; routing.receivers.len()];
    for &i in routing.order.iter().rev() {
        let r = routing.receivers[i as usize];
        if r != i {
            cells[r as usize] += cells[i as usize];
        }
    }
    cells
}

/// The level water stands at in each cell: its own height, or the spill
/// level of the depression it lies in (the highest height on its way to an
/// outlet). Lakes are `fill_levels − heights`.
pub fn fill_levels(heights: &[f32], routing: &Routing) -> Vec<f32> {
    let mut level = heights.to_vec();
    for &i in &routing.order {
        let r = routing.receivers[i as usize];
        if r != i {
            level[i as usize] = level[i as usize].max(level[r as usize]);
        }
    }
    level
}
