//! Lake levels over a [`Routing`]: filling depressions to their spill
//! level, or breaching the shallow ones.

use super::routing::Routing;

/// The level water stands at in each cell: its own height, or the spill
/// level of the depression it lies in (the highest height on its way to an
/// outlet). Lakes are `fill_levels − heights`.
pub fn fill_levels(heights: &[f32], routing: &Routing) -> Vec<f32> {
    let mut level = heights.to_vec();
    fill_in_place(&mut level, routing);
    level
}

/// Raises `heights` to their [`fill_levels`] in place.
pub fn fill_in_place(heights: &mut [f32], routing: &Routing) {
    for &i in &routing.order {
        let r = routing.receivers[i as usize];
        if r != i {
            heights[i as usize] = heights[i as usize].max(heights[r as usize]);
        }
    }
}

/// Breaches shallow depressions instead of filling them: walking donors
/// before receivers, a receiver standing above the cell draining into it
/// (a carved path climbing out of a depression) is lowered to that cell's
/// height, but never more than `max_depth` below the level water would
/// fill it to. A depression at most `max_depth` deep thus drains through
/// a level trench cut across its pass, with no lake left; a deeper one
/// keeps a lake `max_depth` shallower. Interpolating a map up from a
/// coarser one leaves many centimetre-deep hollows along valley floors:
/// breached, the rivers run on; filled, they would turn into flats.
///
/// The routing stays valid for the breached heights: cells were lowered
/// only along its own paths, so [`fill_levels`] over it still finds each
/// remaining lake's spill level.
pub fn breach_shallow(heights: &mut [f32], routing: &Routing, max_depth: f32) {
    if max_depth <= 0.0 {
        return;
    }
    let levels = fill_levels(heights, routing);
    breach_below(heights, routing, &levels, max_depth);
}

/// [`breach_shallow`] given the fill `levels` of `heights` over `routing`
/// ([`fill_levels`]), when a walk that came before has them.
pub fn breach_below(heights: &mut [f32], routing: &Routing, levels: &[f32], max_depth: f32) {
    if max_depth <= 0.0 {
        return;
    }
    for &i in routing.order.iter().rev() {
        let r = routing.receivers[i as usize] as usize;
        let i = i as usize;
        if r != i && heights[r] > heights[i] {
            heights[r] = heights[i].max(levels[r] - max_depth).min(heights[r]);
        }
    }
}
