//! The brush a droplet erodes with: cells within its radius, weighted by
//! a linear falloff.

use super::tile::Window;

/// Brush offsets and normalised weights (linear falloff).
pub(super) fn brush(radius: i64) -> Vec<(i64, i64, f32)> {
    let mut cells = Vec::new();
    let mut total = 0.0;
    for dy in -radius..=radius {
        for dx in -radius..=radius {
            let d = ((dx * dx + dy * dy) as f32).sqrt();
            if d <= radius as f32 {
                let w = 1.0 - d / radius as f32;
                if w > 0.0 {
                    cells.push((dx, dy, w));
                    total += w;
                }
            }
        }
    }
    cells.iter_mut().for_each(|c| c.2 /= total);
    cells
}

/// The brush as flat offsets for one window width, for the common case
/// where it lies wholly inside the window. Updates are scalar on purpose:
/// vector stores shifted by a cell from the previous step's defeat
/// store-to-load forwarding, which measured over twice as slow.
pub(super) struct FlatBrush {
    pub(super) radius: usize,
    /// Cell offsets from the brush's top-left corner (ix - r, iy - r).
    pub(super) offsets: Vec<usize>,
    pub(super) weights: Vec<f32>,
    /// Sum of the weights in f32, which is what a brush removes per unit.
    pub(super) total: f32,
    /// Cells from the top-left corner to the bottom-right one, inclusive.
    pub(super) span: usize,
}

impl FlatBrush {
    pub(super) fn new(brush: &[(i64, i64, f32)], radius: usize, width: usize) -> Self {
        let r = radius as i64;
        let offsets = brush
            .iter()
            .map(|&(bx, by, _)| ((by + r) * width as i64 + bx + r) as usize)
            .collect();
        let offsets: Vec<usize> = offsets;
        let weights: Vec<f32> = brush.iter().map(|b| b.2).collect();
        let span = 2 * radius * width + 2 * radius + 1;
        // `erode` relies on this to skip bounds checks.
        assert!(offsets.iter().all(|&o| o < span));
        FlatBrush {
            radius,
            offsets,
            total: weights.iter().sum(),
            weights,
            span,
        }
    }

    /// Whether the brush centred on (ix, iy) lies inside `win`.
    #[inline]
    pub(super) fn fits(&self, win: &Window, ix: usize, iy: usize) -> bool {
        let r = self.radius;
        ix >= r && iy >= r && ix + r < win.w && iy + r < win.h
    }

    /// Removes `amount · weight` from every brush cell around (ix, iy).
    #[inline]
    pub(super) fn erode(&self, win: &mut Window, ix: usize, iy: usize, amount: f32) {
        let corner = (iy - self.radius) * win.w + ix - self.radius;
        let cells = &mut win.data[corner..corner + self.span];
        for (&offset, &w) in self.offsets.iter().zip(&self.weights) {
            debug_assert!(offset < cells.len());
            // SAFETY: every offset is at most 2r·width + 2r = span - 1
            // (built in `new` for this window's width), and `cells` is
            // exactly `span` long. Bounds checks here measured ~10% of
            // the whole stage.
            unsafe { *cells.get_unchecked_mut(offset) -= amount * w };
        }
    }
}
