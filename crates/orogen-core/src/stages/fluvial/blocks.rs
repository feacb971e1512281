//! Fixed world-aligned blocks for the fine levels of fluvial erosion.
//!
//! A level's grid is cut along each axis into blocks of `size` cells (the
//! last block takes the remainder). Each block is eroded over its core
//! grown by `blend + halo` cells; the cells within `blend` of a core's
//! edge are shared with the neighbour and mixed by linear ramps that sum
//! to one (a partition of unity), and the halo beyond is thrown away.
//! Blocks depend only on their place in the level's grid, so a window
//! computes the blocks it touches and gets the same cells as the whole
//! map, which runs the same blocks.

use crate::heightmap::Heightmap;
use crate::world_window::{Window, WorldWindow};
use rayon::prelude::*;
use std::ops::Range;

/// Cells `start..end` along one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellRange {
    /// First cell.
    pub start: usize,
    /// One past the last cell.
    pub end: usize,
}

impl CellRange {
    /// `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// Cells in the span.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the span holds no cell.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// Whether `other` lies within this span.
    pub fn contains(&self, other: CellRange) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// A rectangle of a level's cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// Columns.
    pub x: CellRange,
    /// Rows.
    pub y: CellRange,
}

impl Rect {
    /// The whole `width × height` grid.
    pub fn whole(width: usize, height: usize) -> Self {
        Self {
            x: CellRange::new(0, width),
            y: CellRange::new(0, height),
        }
    }

    /// Whether `other` lies within this rectangle.
    pub fn contains(&self, other: Rect) -> bool {
        self.x.contains(other.x) && self.y.contains(other.y)
    }

    /// These cells as a window of a `dims` grid spanning the world.
    pub fn in_level(&self, dims: (usize, usize)) -> WorldWindow {
        WorldWindow::whole(dims.0, dims.1).with_window(Window {
            x: self.x.start,
            y: self.y.start,
            width: self.x.len(),
            height: self.y.len(),
        })
    }
}

/// The blocks along one axis of a level's grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axis {
    /// Cells along the axis.
    pub cells: usize,
    /// Core cells per block (the last block takes the remainder).
    pub size: usize,
    /// Cells each side of a shared core edge where neighbours are mixed.
    pub blend: usize,
    /// Cells eroded beyond the blend and thrown away.
    pub halo: usize,
}

impl Axis {
    /// The blocks of `size` cells along `cells`, with a blend of one cell
    /// and a halo of `size / 8`.
    ///
    /// Why one cell: two blocks' solutions near their shared edge differ
    /// by millimetres, and a wide ramp mixing them spreads that over the
    /// channels that run in the ramp, whose bed drops about as little per
    /// cell; with a 64-cell ramp (`size / 16`) `eroded-mountains` at 4097²
    /// in 1024-cell blocks fitted Flint's law with θ 0.70 and r² 0.65,
    /// with one cell θ 0.49 and r² 0.91 (the whole map: 0.52, 0.95).
    pub fn new(cells: usize, size: usize) -> Self {
        let size = size.max(8);
        Self {
            cells,
            size,
            blend: 1,
            halo: (size / 8).max(2),
        }
    }

    /// How many blocks (at least one).
    pub fn count(&self) -> usize {
        (self.cells.saturating_sub(1) / self.size).max(1)
    }

    /// Block `b`'s own cells.
    pub fn core(&self, b: usize) -> CellRange {
        let end = if b + 1 >= self.count() {
            self.cells
        } else {
            (b + 1) * self.size
        };
        CellRange::new(b * self.size, end)
    }

    fn grown(&self, span: CellRange, by: usize) -> CellRange {
        CellRange::new(
            span.start.saturating_sub(by),
            (span.end + by).min(self.cells),
        )
    }

    /// The cells block `b` gives a weight to.
    pub fn support(&self, b: usize) -> CellRange {
        self.grown(self.core(b), self.blend)
    }

    /// The cells block `b` is eroded over.
    pub fn computed(&self, b: usize) -> CellRange {
        self.grown(self.core(b), self.blend + self.halo)
    }

    /// The weight of block `b` at cell `x`: ramps across each shared core
    /// edge, so the weights of the blocks at any cell sum to one.
    pub fn weight(&self, b: usize, x: usize) -> f32 {
        let core = self.core(b);
        let mut w = 1.0;
        if b > 0 {
            w *= self.ramp(core.start, x);
        }
        if b + 1 < self.count() {
            w *= 1.0 - self.ramp(core.end, x);
        }
        w
    }

    /// 0 well before the edge at `edge`, 1 well after it, linear across
    /// the `2 × blend` cells around it (at cell centres).
    fn ramp(&self, edge: usize, x: usize) -> f32 {
        let r = self.blend as f32;
        ((x as f32 + 0.5 - (edge as f32 - r)) / (2.0 * r)).clamp(0.0, 1.0)
    }

    /// The blocks whose support meets `span`.
    pub fn touching(&self, span: CellRange) -> Range<usize> {
        let blocks: Vec<usize> = (0..self.count())
            .filter(|&b| {
                let s = self.support(b);
                s.start < span.end && span.start < s.end
            })
            .collect();
        match (blocks.first(), blocks.last()) {
            (Some(&a), Some(&b)) => a..b + 1,
            _ => 0..0,
        }
    }

    /// The blocks eroded wholly within `span`.
    pub fn inside(&self, span: CellRange) -> Range<usize> {
        let blocks: Vec<usize> = (0..self.count())
            .filter(|&b| span.contains(self.computed(b)))
            .collect();
        match (blocks.first(), blocks.last()) {
            (Some(&a), Some(&b)) => a..b + 1,
            _ => 0..0,
        }
    }

    /// The cells eroded by some block of `blocks`.
    pub fn computed_of(&self, blocks: &Range<usize>) -> CellRange {
        CellRange::new(
            self.computed(blocks.start).start,
            self.computed(blocks.end - 1).end,
        )
    }

    /// The cells every block with a weight at them is in `blocks`: where
    /// those blocks alone give the whole map's value.
    pub fn exact(&self, blocks: &Range<usize>) -> CellRange {
        let first = self.core(blocks.start);
        let last = self.core(blocks.end - 1);
        let start = if blocks.start == 0 {
            0
        } else {
            first.start + self.blend
        };
        let end = if blocks.end >= self.count() {
            self.cells
        } else {
            last.end - self.blend
        };
        CellRange::new(start, end.max(start))
    }
}

/// The cells of a `from`-cell axis that bilinear resampling to `to` cells
/// reads for the cells `span` (as [`Heightmap::resized`] samples them).
pub fn source_range(span: CellRange, from: usize, to: usize) -> CellRange {
    let s = scale(from, to);
    let max = (from - 1) as f32;
    let lo = (span.start as f32 * s).clamp(0.0, max).floor() as usize;
    let hi = ((span.end - 1) as f32 * s).clamp(0.0, max).floor() as usize;
    CellRange::new(lo, (hi + 1).min(from - 1) + 1)
}

fn scale(from: usize, to: usize) -> f32 {
    if to > 1 {
        (from - 1) as f32 / (to - 1) as f32
    } else {
        0.0
    }
}

/// The cells `target` of `src` resampled from `from` (width, height) to
/// `to`, where `src` holds the cells `at` of the `from` grid: the same
/// values as those cells of `whole.resized(to)` ([`Heightmap::resized`]),
/// as long as `at` holds [`source_range`] of `target`.
pub fn resized_part(
    src: &Heightmap,
    at: Rect,
    from: (usize, usize),
    to: (usize, usize),
    target: Rect,
) -> Heightmap {
    let (sx, sy) = (scale(from.0, to.0), scale(from.1, to.1));
    let (max_x, max_y) = ((from.0 - 1) as f32, (from.1 - 1) as f32);
    let (w, h) = (target.x.len(), target.y.len());
    let mut data = Vec::with_capacity(w * h);
    // The arithmetic of `Heightmap::sample_bilinear`, step by step; each
    // column's source cells and weight worked out once, not every row.
    let columns: Vec<(usize, usize, f32)> = (target.x.start..target.x.end)
        .map(|tx| {
            let x = (tx as f32 * sx).clamp(0.0, max_x);
            let x0 = x.floor() as usize;
            let x1 = (x0 + 1).min(from.0 - 1);
            (x0 - at.x.start, x1 - at.x.start, x - x0 as f32)
        })
        .collect();
    for ty in target.y.start..target.y.end {
        let y = (ty as f32 * sy).clamp(0.0, max_y);
        let y0 = y.floor() as usize;
        let y1 = (y0 + 1).min(from.1 - 1);
        let fy = y - y0 as f32;
        let (row0, row1) = (src.row(y0 - at.y.start), src.row(y1 - at.y.start));
        data.extend(columns.iter().map(|&(x0, x1, fx)| {
            let top = row0[x0] * (1.0 - fx) + row0[x1] * fx;
            let bottom = row1[x0] * (1.0 - fx) + row1[x1] * fx;
            top * (1.0 - fy) + bottom * fy
        }));
    }
    Heightmap::from_vec(w, h, data).unwrap_or_else(|| Heightmap::new(1, 1))
}

/// The cells `rect` of `src`, which holds the cells `at`.
pub fn part(src: &Heightmap, at: Rect, rect: Rect) -> Heightmap {
    let mut data = Vec::with_capacity(rect.x.len() * rect.y.len());
    for y in rect.y.start..rect.y.end {
        let row = src.row(y - at.y.start);
        data.extend_from_slice(&row[rect.x.start - at.x.start..rect.x.end - at.x.start]);
    }
    Heightmap::from_vec(rect.x.len(), rect.y.len(), data).unwrap_or_else(|| Heightmap::new(1, 1))
}

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
    /// The level's two axes cut into blocks of `block` cells.
    pub fn axes(&self, block: usize) -> (Axis, Axis) {
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

/// The blocks' results mixed over `exact`: at each cell, the sum over the
/// blocks with a weight there (rows of blocks, then columns, in order) of
/// weight × value.
pub fn blend(
    ax: &Axis,
    ay: &Axis,
    blocks: &LevelBlocks,
    eroded: &[(Rect, Heightmap)],
    exact: Rect,
) -> Heightmap {
    let (w, h) = (exact.x.len(), exact.y.len());
    let cols = blocks.cols.len();
    // Each cell's blocks with a weight there, worked out once per column
    // and once per row instead of at every cell: the same weights.
    let weights = |axis: &Axis, blocks: Range<usize>, span: CellRange| -> Vec<Vec<(usize, f32)>> {
        (span.start..span.end)
            .map(|c| {
                blocks
                    .clone()
                    .map(|b| (b, axis.weight(b, c)))
                    .filter(|&(_, weight)| weight != 0.0)
                    .collect()
            })
            .collect()
    };
    let column_weights = weights(ax, blocks.cols.clone(), exact.x);
    let row_weights = weights(ay, blocks.rows.clone(), exact.y);
    // Runs of columns (from 0 at `exact.x.start`) that one block has
    // alone, at weight 1, and that block.
    let mut full_columns: Vec<(Range<usize>, usize)> = Vec::new();
    for (col, col_blocks) in column_weights.iter().enumerate() {
        if let [(bx, 1.0)] = col_blocks[..] {
            match full_columns.last_mut() {
                Some((run, b)) if *b == bx && run.end == col => run.end = col + 1,
                _ => full_columns.push((col..col + 1, bx)),
            }
        }
    }
    let mut out = Heightmap::new(w.max(1), h.max(1));
    out.data_mut()
        .par_chunks_mut(w.max(1))
        .zip(row_weights.par_iter())
        .enumerate()
        .for_each(|(row, (dst, row_blocks))| {
            let y = exact.y.start + row;
            let alone = |weights: &[(usize, f32)]| matches!(weights, [(_, w)] if *w == 1.0);
            let row_alone = alone(row_blocks);
            if let (true, [(by, _)]) = (row_alone, &row_blocks[..]) {
                let by = *by;
                // Away from the edges one block alone has the row: its
                // cells copied, as the sum below gives them (0 + 1·v).
                for &(ref cols_of_block, bx) in &full_columns {
                    let (comp, m) =
                        &eroded[(by - blocks.rows.start) * cols + bx - blocks.cols.start];
                    let src = &m.row(y - comp.y.start)[exact.x.start + cols_of_block.start
                        - comp.x.start
                        ..exact.x.start + cols_of_block.end - comp.x.start];
                    for (v, &h) in dst[cols_of_block.clone()].iter_mut().zip(src) {
                        *v = 0.0 + h;
                    }
                }
            }
            for (col, (v, col_blocks)) in dst.iter_mut().zip(&column_weights).enumerate() {
                if row_alone && alone(col_blocks) {
                    continue;
                }
                let x = exact.x.start + col;
                let mut acc = 0f32;
                for &(by, wy) in row_blocks {
                    for &(bx, wx) in col_blocks {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_and_stay_in_the_support() {
        for (cells, size) in [(2049, 1024), (1025, 128), (300, 64), (129, 128)] {
            let axis = Axis::new(cells, size);
            for x in 0..cells {
                let sum: f32 = (0..axis.count()).map(|b| axis.weight(b, x)).sum();
                assert!((sum - 1.0).abs() < 1e-6, "{cells}/{size} at {x}: {sum}");
                for b in 0..axis.count() {
                    let s = axis.support(b);
                    if x < s.start || x >= s.end {
                        assert_eq!(axis.weight(b, x), 0.0);
                    }
                }
            }
        }
    }

    #[test]
    fn touching_blocks_make_the_span_exact() {
        let axis = Axis::new(1025, 128);
        for span in [
            CellRange::new(0, 1),
            CellRange::new(120, 140),
            CellRange::new(500, 1025),
        ] {
            let blocks = axis.touching(span);
            assert!(axis.exact(&blocks).contains(span), "{span:?}");
            let grown = axis.computed_of(&blocks);
            assert_eq!(axis.inside(grown).start, blocks.start);
        }
    }

    #[test]
    fn resized_parts_equal_the_whole_resize() {
        let whole = Heightmap::from_vec(
            33,
            17,
            (0..33 * 17)
                .map(|i| (i as f32 * 0.37).sin() * 9.0)
                .collect(),
        )
        .unwrap();
        for to in [(65, 33), (100, 41)] {
            let full = whole.resized(to.0, to.1);
            let target = Rect {
                x: CellRange::new(7, 50),
                y: CellRange::new(3, 30),
            };
            let at = Rect {
                x: source_range(target.x, 33, to.0),
                y: source_range(target.y, 17, to.1),
            };
            let src = part(&whole, Rect::whole(33, 17), at);
            let got = resized_part(&src, at, (33, 17), to, target);
            let want = part(&full, Rect::whole(to.0, to.1), target);
            assert_eq!(got.data(), want.data());
        }
    }
}
