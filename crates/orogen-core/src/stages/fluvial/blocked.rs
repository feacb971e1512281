//! Fluvial erosion by blocks, for maps whose fine levels span more than
//! one block ([`super::blocks`]).
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

use super::blocks::{Axis, Rect, Span, part, resized_part, source_span};
use super::{FluvialErosion, LevelRun, SERIAL_CELLS, schedule};
use crate::heightmap::Heightmap;
use crate::hydro::{Edges, Outlets, Routing, breach_shallow, fill_levels};
use crate::stages::{StageContext, StageError};
use crate::window::grid::{Window, WorldWindow};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// The blocks of one level that a run erodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelBlocks {
    /// The level's cells (width, height).
    pub dims: (usize, usize),
    /// Columns of blocks.
    pub cols: Range<usize>,
    /// Rows of blocks.
    pub rows: Range<usize>,
}

impl LevelBlocks {
    fn axes(&self, block: usize) -> (Axis, Axis) {
        (Axis::new(self.dims.0, block), Axis::new(self.dims.1, block))
    }

    /// The cells the blocks are eroded over.
    pub fn computed(&self, block: usize) -> Rect {
        let (ax, ay) = self.axes(block);
        Rect {
            x: ax.computed_of(&self.cols),
            y: ay.computed_of(&self.rows),
        }
    }

    /// The cells where these blocks give the whole map's value.
    pub fn exact(&self, block: usize) -> Rect {
        let (ax, ay) = self.axes(block);
        Rect {
            x: ax.exact(&self.cols),
            y: ay.exact(&self.rows),
        }
    }
}

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
            cols: ax.touching(Span::new(w.x, w.x + w.width)),
            rows: ay.touching(Span::new(w.y, w.y + w.height)),
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
            let need_x = source_span(c.x, from.0, to.0);
            let need_y = source_span(c.y, from.1, to.1);
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
        ctx: &StageContext,
        levels: &[(usize, usize)],
        first: usize,
    ) -> Result<(), StageError> {
        let block = self.block_size as usize;
        let place = ctx.window_of(map);
        let w = place.window;
        let here = Rect {
            x: Span::new(w.x, w.x + w.width),
            y: Span::new(w.y, w.y + w.height),
        };
        let n = levels.len() - 1;
        let (ax, ay) = (Axis::new(levels[n].0, block), Axis::new(levels[n].1, block));
        let last = LevelBlocks {
            dims: levels[n],
            cols: ax.inside(here.x),
            rows: ay.inside(here.y),
        };
        if last.cols.is_empty() || last.rows.is_empty() {
            return Err(StageError::Failed(format!(
                "the window {}x{} is smaller than one erosion block with its halo ({} cells)",
                w.width,
                w.height,
                ax.computed(0).len()
            )));
        }
        let plan = self.plan(levels, first, last);
        let coarse_dims = levels[0];
        let coarse_input = match ctx.earlier_stages_at(coarse_dims.0, coarse_dims.1)? {
            Some(m) => m,
            None if place.is_whole() => map.resized(coarse_dims.0, coarse_dims.1),
            None => return Err(StageError::WholeWorldOnly),
        };
        let range = coarse_input.range();
        let extent = ctx.cell_size * (place.world_width - 1) as f32;
        let coarse_cell = extent / (coarse_dims.0.max(2) - 1) as f32;
        let cancel = ctx.cancel;
        let stepping = Stepping {
            stage: self,
            range,
            coarse_cell,
            extent,
            cancel,
            base_dir: ctx.base_dir.as_deref(),
        };

        // The whole levels: the coarse one and those within one block.
        let mut below: Option<Level> = None;
        for (k, &dims) in levels.iter().enumerate().take(first) {
            let input = if k == 0 {
                coarse_input.clone()
            } else {
                coarse_input.resized(dims.0, dims.1)
            };
            let mut level_map = match &below {
                None => input.clone(),
                Some(b) => b.carried_up(self, dims, Rect::whole(dims.0, dims.1), &input),
            };
            if k == 0 {
                self.add_roughness(&mut level_map, ctx, k);
            } else {
                self.breach_depressions(&mut level_map);
            }
            let outlets = self.outlets();
            let finished = single_thread_when_small(dims, || {
                stepping.run(k, dims, &mut level_map, &input, outlets, Edges::default())
            });
            if !finished? {
                return Err(StageError::Cancelled);
            }
            below = Some(Level {
                rect: Rect::whole(dims.0, dims.1),
                dims,
                eroded: level_map,
                input,
            });
        }

        // The levels by blocks.
        for (k, blocks) in (first..=n).zip(&plan) {
            let is_last = k == n;
            let dims = blocks.dims;
            let Some(b) = below.as_ref() else {
                return Err(StageError::Failed(
                    "no coarse level below the blocks".into(),
                ));
            };
            let (ax, ay) = blocks.axes(block);
            let list: Vec<(usize, usize)> = blocks
                .rows
                .clone()
                .flat_map(|by| blocks.cols.clone().map(move |bx| (bx, by)))
                .collect();
            // A rectangle of this level's input: the map itself at the last
            // level, the coarse input carried up below it.
            let level_input = |rect: Rect| {
                if is_last {
                    part(map, here, rect)
                } else {
                    resized_part(
                        &coarse_input,
                        Rect::whole(coarse_dims.0, coarse_dims.1),
                        coarse_dims,
                        dims,
                        rect,
                    )
                }
            };
            let eroded = list
                .par_iter()
                .map(|&(bx, by)| {
                    let comp = Rect {
                        x: ax.computed(bx),
                        y: ay.computed(by),
                    };
                    let input = level_input(comp);
                    let mut m = b.carried_up(self, dims, comp, &input);
                    let (outlets, held) = self.block_edges(comp, dims);
                    if !is_last {
                        let routing = Routing::new(m.data(), m.width(), &outlets);
                        breach_shallow(m.data_mut(), &routing, self.breach_depth);
                    }
                    if !stepping.run(k, dims, &mut m, &input, outlets, held)? {
                        return Err(StageError::Cancelled);
                    }
                    if is_last {
                        let routing = Routing::new(m.data(), m.width(), &outlets);
                        breach_shallow(m.data_mut(), &routing, self.breach_depth);
                        if !self.keep_lakes {
                            let levels = fill_levels(m.data(), &routing);
                            m.data_mut().copy_from_slice(&levels);
                        }
                    }
                    Ok((comp, m))
                })
                .collect::<Result<Vec<_>, StageError>>()?;
            let exact = blocks.exact(block);
            let blended = blend(&ax, &ay, blocks, &eroded, exact);
            let input = level_input(exact);
            below = Some(Level {
                rect: exact,
                dims,
                eroded: blended,
                input,
            });
        }
        let Some(top) = below else {
            return Ok(());
        };
        // The exact cells into the map (which covers `here`).
        let width = map.width();
        for y in top.rect.y.start..top.rect.y.end {
            let src = top.eroded.row(y - top.rect.y.start);
            let row = y - here.y.start;
            let dst = &mut map.data_mut()[row * width..(row + 1) * width];
            dst[top.rect.x.start - here.x.start..top.rect.x.end - here.x.start]
                .copy_from_slice(src);
        }
        Ok(())
    }

    /// A block's outlets and held edges: the world's own edges drain as
    /// the recipe says; the edges where the block is cut out of the world
    /// are outlets that keep their height.
    fn block_edges(&self, comp: Rect, dims: (usize, usize)) -> (Outlets, Edges) {
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

/// A level's result over `rect` of its `dims` cells.
struct Level {
    rect: Rect,
    dims: (usize, usize),
    eroded: Heightmap,
    input: Heightmap,
}

impl Level {
    /// The eroded level carried up to `dims` over `target`, plus the
    /// recipe's share of the detail `input` adds to this level's input.
    fn carried_up(
        &self,
        stage: &FluvialErosion,
        dims: (usize, usize),
        target: Rect,
        input: &Heightmap,
    ) -> Heightmap {
        let mut up = resized_part(&self.eroded, self.rect, self.dims, dims, target);
        if stage.fine_detail > 0.0 {
            let coarse = resized_part(&self.input, self.rect, self.dims, dims, target);
            let share = stage.fine_detail;
            up.data_mut()
                .par_iter_mut()
                .zip(input.data().par_iter().zip(coarse.data().par_iter()))
                .for_each(|(h, (fine, coarse))| *h += share * (fine - coarse));
        }
        up
    }
}

/// The numbers every level's steps share.
struct Stepping<'a> {
    stage: &'a FluvialErosion,
    range: (f32, f32),
    coarse_cell: f32,
    extent: f32,
    cancel: Option<&'a AtomicBool>,
    base_dir: Option<&'a std::path::Path>,
}

impl Stepping<'_> {
    /// Runs level `k`'s steps (a level of `dims` cells) on `map`, all of
    /// it or a block, with uplift from `input`; false when cancelled.
    fn run(
        &self,
        k: usize,
        dims: (usize, usize),
        map: &mut Heightmap,
        input: &Heightmap,
        outlets: Outlets,
        held: Edges,
    ) -> Result<bool, StageError> {
        let s = self.stage;
        let cell = self.extent / (dims.0 - 1) as f32;
        let level = LevelRun {
            input,
            range: self.range,
            cell_size: cell,
            steps: s.level_steps(k),
            dt_scale: s.level_dt_scale(k, cell / self.coarse_cell),
            outlets,
            held,
            base_dir: self.base_dir,
        };
        s.run_level(map, &level, &mut |_| {
            !self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
        })
    }
}

/// Runs `f` on one thread for a small level (its steps cost less than
/// waking the others); the bytes do not depend on it.
fn single_thread_when_small<T: Send>(dims: (usize, usize), f: impl FnOnce() -> T + Send) -> T {
    match (dims.0 * dims.1 < SERIAL_CELLS)
        .then(|| rayon::ThreadPoolBuilder::new().num_threads(1).build().ok())
        .flatten()
    {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// The blocks' results mixed over `exact`: at each cell, the sum over the
/// blocks with a weight there (rows of blocks, then columns, in order) of
/// weight × value.
fn blend(
    ax: &Axis,
    ay: &Axis,
    blocks: &LevelBlocks,
    eroded: &[(Rect, Heightmap)],
    exact: Rect,
) -> Heightmap {
    let (w, h) = (exact.x.len(), exact.y.len());
    let cols = blocks.cols.len();
    let mut out = Heightmap::new(w.max(1), h.max(1));
    out.data_mut()
        .par_chunks_mut(w.max(1))
        .enumerate()
        .for_each(|(row, dst)| {
            let y = exact.y.start + row;
            for (col, v) in dst.iter_mut().enumerate() {
                let x = exact.x.start + col;
                let mut acc = 0f32;
                for by in blocks.rows.clone() {
                    let wy = ay.weight(by, y);
                    if wy == 0.0 {
                        continue;
                    }
                    for bx in blocks.cols.clone() {
                        let wx = ax.weight(bx, x);
                        if wx == 0.0 {
                            continue;
                        }
                        let (comp, m) =
                            &eroded[(by - blocks.rows.start) * cols + bx - blocks.cols.start];
                        acc += (wy * wx) * m.get(x - comp.x.start, y - comp.y.start);
                    }
                }
                *v = acc;
            }
        });
    out
}
