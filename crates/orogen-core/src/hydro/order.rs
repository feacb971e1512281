//! A drainage order: every cell after its receiver, grouped by the outlet
//! tree it drains to. Walking it forwards visits receivers before their
//! donors (the implicit erosion solve); backwards, donors before receivers
//! (drainage area).

use super::Outlets;
use super::depressions::route_out_of_depressions;
use super::receivers::steepest_receivers;

/// Receivers that drain every cell to an outlet, and the order to walk them.
#[derive(Clone, Debug, PartialEq)]
pub struct Routing {
    /// Cells in a row.
    pub width: usize,
    /// Receiver of each cell (row-major); an outlet is its own receiver.
    pub receivers: Vec<u32>,
    /// Every cell once, each after its receiver.
    pub order: Vec<u32>,
    /// Where each outlet's tree starts in `order`, plus `order.len()` at the
    /// end: trees are independent, so work on them can run in parallel.
    pub tree_starts: Vec<u32>,
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
        let first = drainage_order(&receivers);
        let pit_count = first
            .roots
            .iter()
            .filter(|&&r| !is_outlet(r as usize))
            .count();
        if pit_count == 0 {
            return Routing {
                width,
                receivers,
                order: first.order,
                tree_starts: first.tree_starts,
                pits_resolved: 0,
            };
        }
        route_out_of_depressions(heights, width, &mut receivers, &first, &is_outlet);
        let second = drainage_order(&receivers);
        Routing {
            width,
            receivers,
            order: second.order,
            tree_starts: second.tree_starts,
            pits_resolved: pit_count,
        }
    }

    /// The cells of each outlet tree, as ranges of `order`.
    pub fn trees(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.tree_starts
            .windows(2)
            .map(|w| w[0] as usize..w[1] as usize)
    }
}

/// The order of a set of receivers, with each root's tree.
pub struct DrainageOrder {
    /// Cells, each after its receiver.
    pub order: Vec<u32>,
    /// Roots (cells that are their own receiver), in index order.
    pub roots: Vec<u32>,
    /// Start of each root's tree in `order`, plus the total at the end.
    pub tree_starts: Vec<u32>,
    /// The tree (index into `roots`) of every cell.
    pub tree_of: Vec<u32>,
}

/// Depth-first from each root (in index order) up through its donors,
/// donors visited in index order: a fixed order for fixed receivers.
pub fn drainage_order(receivers: &[u32]) -> DrainageOrder {
    let n = receivers.len();
    // Donors as a compressed list: counts, prefix sums, then fill.
    let mut donor_start = vec![0u32; n + 1];
    for (i, &r) in receivers.iter().enumerate() {
        if r as usize != i {
            donor_start[r as usize + 1] += 1;
        }
    }
    for i in 0..n {
        donor_start[i + 1] += donor_start[i];
    }
    let mut fill = donor_start.clone();
    let mut donors = vec![0u32; donor_start[n] as usize];
    for (i, &r) in receivers.iter().enumerate() {
        if r as usize != i {
            let slot = &mut fill[r as usize];
            donors[*slot as usize] = i as u32;
            *slot += 1;
        }
    }
    drop(fill);
    let mut order = Vec::with_capacity(n);
    let mut roots = Vec::new();
    let mut tree_starts = Vec::new();
    let mut tree_of = vec![0u32; n];
    let mut stack: Vec<u32> = Vec::new();
    for (i, &r) in receivers.iter().enumerate() {
        if r as usize != i {
            continue;
        }
        let tree = roots.len() as u32;
        roots.push(i as u32);
        tree_starts.push(order.len() as u32);
        stack.push(i as u32);
        while let Some(c) = stack.pop() {
            order.push(c);
            tree_of[c as usize] = tree;
            let (a, b) = (donor_start[c as usize], donor_start[c as usize + 1]);
            // Reversed so that the stack pops donors in index order.
            stack.extend(donors[a as usize..b as usize].iter().rev());
        }
    }
    tree_starts.push(order.len() as u32);
    DrainageOrder {
        order,
        roots,
        tree_starts,
        tree_of,
    }
}
