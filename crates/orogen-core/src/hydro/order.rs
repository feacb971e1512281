//! A drainage order: every cell after its receiver. Walking it forwards visits receivers before their
//! donors (the implicit erosion solve); backwards, donors before receivers
//! (drainage area).

use super::Outlets;
use super::depressions::route_out_of_depressions;
use super::receivers::steepest_receivers;
use super::walk::drainage_order;
use rayon::prelude::*;

/// Receivers that drain every cell to an outlet, and the order to walk them.
#[derive(Clone, Debug, PartialEq)]
pub struct Routing {
    /// Cells in a row.
    pub width: usize,
    /// Receiver of each cell (row-major); an outlet is its own receiver.
    pub receivers: Vec<u32>,
    /// Every cell once, each after its receiver.
    pub order: Vec<u32>,
    /// Pits routed out through their basin's lowest pass this time.
    pub pits_resolved: usize,
}

impl Routing {
    /// Routes water over `heights` (row-major, `width` wide): steepest
    /// descent, then each closed basin carved out through its lowest pass
    /// (see [`super::depressions`]). Every cell then drains to an outlet of
    /// `outlets`; cells inside a depression reach it along a carved path
    /// that climbs to the pass without changing any height.
    pub fn new(heights: &[f32], width: usize, outlets: &Outlets) -> Routing {
        let mut receivers = steepest_receivers(heights, width, outlets);
        let height = heights.len() / width.max(1);
        let is_outlet =
            |i: usize| outlets.is_outlet(i % width, i / width, width, height, heights[i]);
        // Pits: roots that are not outlets, found per cell in parallel.
        let pit_count = receivers
            .par_iter()
            .enumerate()
            .filter(|&(i, &r)| r as usize == i && !is_outlet(i))
            .count();
        if pit_count == 0 {
            return Routing {
                width,
                order: drainage_order(&receivers, false).order,
                receivers,
                pits_resolved: 0,
            };
        }
        let first = drainage_order(&receivers, true);
        route_out_of_depressions(heights, width, &mut receivers, &first, &is_outlet);
        let second = drainage_order(&receivers, false);
        Routing {
            width,
            receivers,
            order: second.order,
            pits_resolved: pit_count,
        }
    }
}
