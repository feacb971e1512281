//! Drainage on a grid, shared by erosion, derived maps and masks: where
//! water leaves the map, steepest-descent receivers, depressions routed
//! out through their lowest pass, a drainage order, drainage area and the
//! levels that lakes fill to. One copy, used by everything that routes
//! water.
//!
//! Every function is deterministic: ties go to the lower cell index,
//! areas are integer cell counts, and only per-cell work (receivers,
//! basin passes) runs across threads.

pub mod depressions;
pub mod drainage_order;
pub mod grid;
pub mod lake_levels;
pub mod receivers;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
pub mod routing;

pub use grid::{Edges, FlowGrid, NodeStatus};
pub use lake_levels::{breach_below, breach_shallow, fill_in_place, fill_levels};
pub use routing::Routing;

/// Where water leaves the map: the edges that drain (held at base level)
/// and an optional sea level below which every cell is an outlet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outlets {
    /// The north edge (row 0) drains.
    pub north: bool,
    /// The south edge (last row) drains.
    pub south: bool,
    /// The west edge (column 0) drains.
    pub west: bool,
    /// The east edge (last column) drains.
    pub east: bool,
    /// Cells at or below this height are sea: outlets at base level.
    pub sea_level: Option<f32>,
}

impl Outlets {
    /// Every edge drains, no sea.
    pub const ALL_EDGES: Outlets = Outlets {
        north: true,
        south: true,
        west: true,
        east: true,
        sea_level: None,
    };

    /// Whether the cell at (`x`, `y`) with height `h` of a `width`×`height`
    /// map is an outlet.
    #[inline]
    pub fn is_outlet(&self, x: usize, y: usize, width: usize, height: usize, h: f32) -> bool {
        (self.west && x == 0)
            || (self.east && x + 1 == width)
            || (self.north && y == 0)
            || (self.south && y + 1 == height)
            || self.sea_level.is_some_and(|sea| h <= sea)
    }

    /// Whether any cell of a map can be an outlet at all.
    pub fn any(&self) -> bool {
        self.north || self.south || self.west || self.east || self.sea_level.is_some()
    }
}

/// The eight neighbours as (dx, dy), in increasing index order: ties
/// between equally steep neighbours go to the first, the lowest index.
pub const NEIGHBOURS: [(isize, isize); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// 1/√2 as f32: a diagonal drop is divided by √2 cells by multiplying.
pub const INV_SQRT_2: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// Distance in cells between cell `i` and its neighbour `j` of a map
/// `width` wide: 1 along a row or column, √2 on a diagonal (0 when equal).
#[inline]
pub fn link_length(i: u32, j: u32, width: usize) -> f32 {
    let d = i.abs_diff(j) as usize;
    if d == 0 {
        0.0
    } else if d == 1 || d == width {
        1.0
    } else {
        std::f32::consts::SQRT_2
    }
}

/// How fast height falls from `from` to a neighbour at `to`, per cell of
/// distance: the steepest-descent measure (diagonals scaled by 1/√2).
#[inline]
pub fn drop_rate(from: f32, to: f32, diagonal: bool) -> f32 {
    let drop = from - to;
    if diagonal { drop * INV_SQRT_2 } else { drop }
}
