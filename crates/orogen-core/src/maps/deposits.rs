//! Where sediment lies: the numbers that say whether deposits sit where
//! water slows (fans and alluvial floors) rather than anywhere.

use super::rivers::drainage_area;
use crate::heightmap::Heightmap;

/// Gentle low ground: slope under this (rise over run)...
pub const GENTLE_SLOPE: f32 = 0.1;
/// ...draining at least this much (m²).
pub const GENTLE_AREA: f32 = 1e4;
/// Steep ground: slope over this.
pub const STEEP_SLOPE: f32 = 0.5;
/// A cell "carries" a deposit from this thickness (m).
pub const THICK: f32 = 0.1;

/// Where a map's deposits lie.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepositSummary {
    /// Share of cells (0..1) carrying at least [`THICK`].
    pub thick_share: f64,
    /// Mean deposit (m) on gentle low ground, and how many cells that is.
    pub gentle: (f64, usize),
    /// Mean deposit (m) on steep ground, and how many cells that is.
    pub steep: (f64, usize),
}

impl DepositSummary {
    /// The mean deposit on gentle low ground over that on steep ground
    /// (infinite where steep ground carries none).
    pub fn gentle_over_steep(&self) -> f64 {
        self.gentle.0 / self.steep.0
    }
}

/// Summarises `laid` (deposit thickness per cell of `map`, same size),
/// slopes by central differences over `cell` m cells, drainage area by
/// the shared routing (every edge an outlet). Interior cells only for the
/// slope classes; every cell for the thick share.
pub fn summarise(map: &Heightmap, laid: &[f32], cell: f32) -> DepositSummary {
    let (w, h) = (map.width(), map.height());
    let area = drainage_area(map, cell, None);
    let slope = |x: usize, y: usize| {
        let dx = (map.get((x + 1).min(w - 1), y) - map.get(x.saturating_sub(1), y)) / (2.0 * cell);
        let dy = (map.get(x, (y + 1).min(h - 1)) - map.get(x, y.saturating_sub(1))) / (2.0 * cell);
        dx.hypot(dy)
    };
    let (mut gentle, mut steep) = ((0.0f64, 0usize), (0.0f64, 0usize));
    for y in 1..h.saturating_sub(1) {
        for x in 1..w.saturating_sub(1) {
            let (i, s) = (y * w + x, slope(x, y));
            if s < GENTLE_SLOPE && area[i] >= GENTLE_AREA {
                gentle = (gentle.0 + laid[i] as f64, gentle.1 + 1);
            } else if s > STEEP_SLOPE {
                steep = (steep.0 + laid[i] as f64, steep.1 + 1);
            }
        }
    }
    let mean = |(sum, n): (f64, usize)| (if n > 0 { sum / n as f64 } else { 0.0 }, n);
    let thick = laid.iter().filter(|&&v| v >= THICK).count();
    DepositSummary {
        thick_share: thick as f64 / laid.len().max(1) as f64,
        gentle: mean(gentle),
        steep: mean(steep),
    }
}
