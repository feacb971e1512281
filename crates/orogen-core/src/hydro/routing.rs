//! [`Routing`]: receivers that drain every cell to an outlet, the order
//! to walk them in and the drainage area. Walking the order forwards
//! visits receivers before their donors (the implicit erosion solve);
//! backwards, donors before receivers.

use super::Outlets;
use super::depressions::route_out_of_depressions;
use super::drainage_order::{donor_counts, drainage_order_counted};
use super::grid::{Edges, FlowGrid};
use super::receivers::steepest_receivers;

/// Receivers that drain every cell to an outlet, the order to walk them
/// and how many cells drain through each.
#[derive(Clone, Debug, PartialEq)]
pub struct Routing {
    /// Cells in a row.
    pub width: usize,
    /// Receiver of each cell (row-major); an outlet is its own receiver.
    pub receivers: Vec<u32>,
    /// Every cell once, each after its receiver.
    pub order: Vec<u32>,
    /// How many cells drain through each cell, itself included (integer
    /// counts: exact in any order). Times the cell area, the drainage
    /// area.
    pub cells: Vec<u32>,
    /// For each place in `order`: its cell's receiver, for walks down the
    /// order that read them in sequence.
    pub order_receivers: Vec<u32>,
    /// For each place in `order`: its cell's drainage cells.
    pub order_cells: Vec<u32>,
    /// Pits routed out through their basin's lowest pass this time.
    pub pits_resolved: usize,
}

impl Routing {
    /// Routes water over `heights` (row-major, `width` wide) leaving at
    /// `outlets`: [`Routing::on_grid`] on the grid they make.
    pub fn new(heights: &[f32], width: usize, outlets: &Outlets) -> Routing {
        let grid = FlowGrid::new(heights, width, outlets, Edges::default());
        Routing::on_grid(heights, &grid)
    }

    /// Routes water over `heights` on `grid`: steepest descent, then each
    /// closed basin carved out through its lowest pass (see
    /// [`super::depressions`]). Every cell then drains to an outlet of the
    /// grid; cells inside a depression reach it along a carved path that
    /// climbs to the pass without changing any height.
    pub fn on_grid(heights: &[f32], grid: &FlowGrid) -> Routing {
        let width = grid.width;
        let mut receivers = steepest_receivers(heights, grid);
        let is_outlet = |i: usize| grid.is_outlet(i);
        let mut donors = donor_counts(&receivers);
        // Pits: roots that are not outlets (none: nothing to route).
        let pit_count =
            route_out_of_depressions(heights, width, &mut receivers, &mut donors, &is_outlet);
        let walk = drainage_order_counted(&receivers, donors);
        Routing {
            width,
            receivers,
            order: walk.order,
            cells: walk.cells,
            order_receivers: walk.order_receivers,
            order_cells: walk.order_cells,
            pits_resolved: pit_count,
        }
    }
}
