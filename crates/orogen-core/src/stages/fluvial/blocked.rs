//! Fluvial erosion by blocks, for maps whose fine levels span more than
//! one block ([`super::blocks`]): which blocks each level of a window
//! erodes, and the inputs they read. The levels run in the same level
//! loop as the whole map's (`levels.rs`).
//!
//! The coarse level, and every finer level that fits in one block, runs
//! on the whole world; every window computes them identically (they are
//! at most a block a side). Each finer level runs block by block: a
//! block starts from the level below carried up over its cells plus halo,
//! its cut edges are outlets that keep their height, and the blocks'
//! results are mixed across shared edges by fixed weights. Every level
//! but the map's own takes its input (for uplift by height) from the
//! coarse level's input, resampled, and every level measures uplift and
//! base level by the coarse input's range: facts every window shares, so
//! a window needs the stage's input only over its own blocks.

use super::blocks::{Axis, CellRange, LevelBlocks, Rect, source_range};
use super::levels::LevelInputs;
use super::{FluvialErosion, schedule};
use crate::heightmap::Heightmap;
use crate::hydro::{Edges, Outlets};
use crate::stages::{StageContext, StageError};
use crate::world_window::{Window, WorldWindow};

/// Whether a level of `dims` cells spans more than one block.
fn is_blocked(dims: (usize, usize), block: usize) -> bool {
    Axis::new(dims.0, block).count() > 1 || Axis::new(dims.1, block).count() > 1
}

impl FluvialErosion {
    /// The levels of a `width × height` map and the first level that runs
    /// by blocks, when the map's own level spans more than one block.
    pub fn block_schedule(
        &self,
        width: usize,
        height: usize,
    ) -> Option<(Vec<(usize, usize)>, usize)> {
        if self.block_size == 0 {
            return None;
        }
        let block = self.block_size as usize;
        let levels = schedule::levels(width, height, self.coarse_size as usize);
        let first = (1..levels.len()).find(|&k| is_blocked(levels[k], block))?;
        Some((levels, first))
    }

    /// The window of the stage's input that `output` needs: the cells of
    /// the map's own blocks that touch it, halos included; the whole world
    /// when the map is not run by blocks.
    pub fn blocked_input_window(&self, output: &WorldWindow) -> WorldWindow {
        let (ww, wh) = (output.world_width, output.world_height);
        let Some(_) = self.block_schedule(ww, wh) else {
            return WorldWindow::whole(ww, wh);
        };
        let block = self.block_size as usize;
        let w = output.window;
        let (ax, ay) = (Axis::new(ww, block), Axis::new(wh, block));
        let last = LevelBlocks {
            dims: (ww, wh),
            cols: ax.touching(CellRange::new(w.x, w.x + w.width)),
            rows: ay.touching(CellRange::new(w.y, w.y + w.height)),
        };
        let r = last.computed(block);
        output.with_window(Window {
            x: r.x.start,
            y: r.y.start,
            width: r.x.len(),
            height: r.y.len(),
        })
    }

    /// The blocks each level from `first` up erodes, the map's own level
    /// eroding `last`: each level the blocks that its carried-up cells
    /// read from.
    fn plan(&self, levels: &[(usize, usize)], first: usize, last: LevelBlocks) -> Vec<LevelBlocks> {
        let block = self.block_size as usize;
        let mut out = vec![last];
        for k in (first..levels.len() - 1).rev() {
            let above = &out[out.len() - 1];
            let c = above.computed(block);
            let (from, to) = (levels[k], levels[k + 1]);
            let need_x = source_range(c.x, from.0, to.0);
            let need_y = source_range(c.y, from.1, to.1);
            out.push(LevelBlocks {
                dims: from,
                cols: Axis::new(from.0, block).touching(need_x),
                rows: Axis::new(from.1, block).touching(need_y),
            });
        }
        out.reverse();
        out
    }

    /// Erodes `map` (the stage's input over the context's window) by
    /// blocks: the cells where the window's blocks are exact get the whole
    /// map's values; the rest (halo the runner crops away) keep the input.
    pub(super) fn apply_blocked(
        &self,
        map: &mut Heightmap,
        ctx: &mut StageContext,
        levels: &[(usize, usize)],
        first: usize,
    ) -> Result<(), StageError> {
        let block = self.block_size as usize;
        let place = ctx.window_of(map);
        let w = place.window;
        let here = Rect {
            x: CellRange::new(w.x, w.x + w.width),
            y: CellRange::new(w.y, w.y + w.height),
        };
        let n = levels.len() - 1;
        let (ax, ay) = (Axis::new(levels[n].0, block), Axis::new(levels[n].1, block));
        let last = LevelBlocks {
            dims: levels[n],
            cols: ax.inside(here.x),
            rows: ay.inside(here.y),
        };
        if last.cols.is_empty() || last.rows.is_empty() {
            return Err(StageError::WindowBelowBlock {
                width: w.width,
                height: w.height,
                block_cells: ax.computed(0).len(),
            });
        }
        let plan = self.plan(levels, first, last);
        let coarse_dims = levels[0];
        let coarse = match ctx.earlier_stages_at(coarse_dims.0, coarse_dims.1)? {
            Some(m) => m,
            None if place.is_whole() => map.resized(coarse_dims.0, coarse_dims.1),
            None => return Err(StageError::WholeWorldOnly),
        };
        let extent = ctx.cell_size * (place.world_width - 1) as f32;
        let inputs = LevelInputs::Blocked { coarse, map, here };
        let levels_result = self.run_levels(ctx, levels, &plan, &inputs, extent)?;
        let rect = levels_result.rect;
        // The exact cells into the map (which covers `here`), and the
        // sediment laid down there into a layer of the map's cells.
        let width = map.width();
        let mut laid = levels_result
            .sediment
            .as_ref()
            .map(|_| vec![0f32; map.data().len()]);
        for y in rect.y.start..rect.y.end {
            let row = y - here.y.start;
            let cols = rect.x.start - here.x.start..rect.x.end - here.x.start;
            let dst = &mut map.data_mut()[row * width..(row + 1) * width];
            dst[cols.clone()].copy_from_slice(levels_result.eroded.row(y - rect.y.start));
            if let (Some(laid), Some(layer)) = (laid.as_mut(), levels_result.sediment.as_ref()) {
                laid[row * width..(row + 1) * width][cols]
                    .copy_from_slice(layer.row(y - rect.y.start));
            }
        }
        ctx.laid_down = laid;
        Ok(())
    }

    /// A block's outlets and held edges: the world's own edges drain as
    /// the recipe says; the edges where the block is cut out of the world
    /// are outlets that keep their height.
    pub(super) fn block_edges(&self, comp: Rect, dims: (usize, usize)) -> (Outlets, Edges) {
        let held = Edges {
            north: comp.y.start > 0,
            south: comp.y.end < dims.1,
            west: comp.x.start > 0,
            east: comp.x.end < dims.0,
        };
        let outlets = Outlets {
            north: held.north || self.drain_north,
            south: held.south || self.drain_south,
            west: held.west || self.drain_west,
            east: held.east || self.drain_east,
            sea_level: self.sea.then_some(self.sea_level),
        };
        (outlets, held)
    }
}
