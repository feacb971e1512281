//! The grid water is routed on: every node's status, so that routing,
//! uplift, incision and diffusion read one byte per node instead of each
//! testing edges, held block edges and the sea level again (the shape of
//! fastscapelib's raster grid with its node status).

use super::Outlets;
use rayon::prelude::*;

/// What a node does with water and with the eroders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum NodeStatus {
    /// An ordinary node: uplifted, eroded, drains to a neighbour.
    Core,
    /// A draining edge: water leaves here; the node erodes towards the
    /// base level one cell beyond it and is not uplifted.
    Outlet,
    /// Sea: a node at or below the sea level, an outlet like a draining
    /// edge. Nodes become sea as they are lowered to the sea level.
    Sea,
    /// An edge where a block is cut out of the world: water leaves here
    /// and the node keeps its height (the world goes on beyond it).
    Held,
}

impl NodeStatus {
    /// Whether water leaves the map at this node.
    #[inline]
    pub fn is_outlet(self) -> bool {
        self != NodeStatus::Core
    }
}

/// The four edges of a grid, each on or off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Edges {
    /// Row 0.
    pub north: bool,
    /// The last row.
    pub south: bool,
    /// Column 0.
    pub west: bool,
    /// The last column.
    pub east: bool,
}

impl Edges {
    /// Whether (`x`, `y`) of a `width × height` grid lies on an edge that is on.
    #[inline]
    pub fn contain(&self, x: usize, y: usize, width: usize, height: usize) -> bool {
        (self.west && x == 0)
            || (self.east && x + 1 == width)
            || (self.north && y == 0)
            || (self.south && y + 1 == height)
    }

    /// Whether any edge is on.
    pub fn any(&self) -> bool {
        self.north || self.south || self.west || self.east
    }
}

/// A `width × height` grid (row-major) and each node's status.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowGrid {
    /// Nodes in a row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Each node's status.
    pub status: Vec<NodeStatus>,
    /// Heights at or below this are sea.
    sea_level: Option<f32>,
}

impl FlowGrid {
    /// The grid of `heights` (`width` wide) with water leaving at
    /// `outlets`, the `held` edges keeping their height.
    pub fn new(heights: &[f32], width: usize, outlets: &Outlets, held: Edges) -> FlowGrid {
        let width = width.max(1);
        let height = heights.len() / width;
        let drains = Edges {
            north: outlets.north,
            south: outlets.south,
            west: outlets.west,
            east: outlets.east,
        };
        let mut status = vec![NodeStatus::Core; heights.len()];
        status
            .par_chunks_mut(width)
            .enumerate()
            .for_each(|(y, row)| {
                for (x, s) in row.iter_mut().enumerate() {
                    *s = if held.contain(x, y, width, height) {
                        NodeStatus::Held
                    } else if drains.contain(x, y, width, height) {
                        NodeStatus::Outlet
                    } else {
                        NodeStatus::Core
                    };
                }
            });
        let mut grid = FlowGrid {
            width,
            height,
            status,
            sea_level: outlets.sea_level,
        };
        grid.update_sea(heights);
        grid
    }

    /// Marks the nodes of `heights` at or below the sea level as sea and
    /// the others, if they were sea, as core: nodes cross the sea level as
    /// they erode. Edges keep their status.
    pub fn update_sea(&mut self, heights: &[f32]) {
        let Some(sea) = self.sea_level else {
            return;
        };
        self.status
            .par_iter_mut()
            .zip(heights.par_iter())
            .for_each(|(s, &h)| match *s {
                NodeStatus::Core | NodeStatus::Sea => {
                    *s = if h <= sea {
                        NodeStatus::Sea
                    } else {
                        NodeStatus::Core
                    }
                }
                NodeStatus::Outlet | NodeStatus::Held => {}
            });
    }

    /// Whether the grid has sea nodes that may change with heights.
    pub fn has_sea(&self) -> bool {
        self.sea_level.is_some()
    }

    /// Whether water leaves the map at node `i`.
    #[inline]
    pub fn is_outlet(&self, i: usize) -> bool {
        self.status[i].is_outlet()
    }

    /// Nodes in the grid.
    pub fn len(&self) -> usize {
        self.status.len()
    }

    /// Whether the grid has no nodes.
    pub fn is_empty(&self) -> bool {
        self.status.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_edges_win_over_draining_ones_and_sea_follows_heights() {
        let outlets = Outlets {
            north: true,
            south: false,
            west: false,
            east: false,
            sea_level: Some(0.0),
        };
        let held = Edges {
            west: true,
            ..Edges::default()
        };
        let mut heights = vec![5.0f32; 16];
        heights[10] = -1.0;
        let mut grid = FlowGrid::new(&heights, 4, &outlets, held);
        assert_eq!(grid.status[0], NodeStatus::Held);
        assert_eq!(grid.status[1], NodeStatus::Outlet);
        assert_eq!(grid.status[10], NodeStatus::Sea);
        assert_eq!(grid.status[5], NodeStatus::Core);
        heights[10] = 1.0;
        heights[5] = 0.0;
        grid.update_sea(&heights);
        assert_eq!(grid.status[10], NodeStatus::Core);
        assert_eq!(grid.status[5], NodeStatus::Sea);
        assert_eq!(grid.status[1], NodeStatus::Outlet);
    }
}
