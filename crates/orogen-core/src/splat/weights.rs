//! Per-tile weights: visibility in the tile's height band times its slope
//! factor, normalised to sum to 1; exact per point, and row-wise for the
//! renderer.

use super::Tile;
use super::map_rule::ramp_factor;
use crate::params::Span;

/// Visibility of tile `index` of `count` at height `v`
/// (`CalculateTilePresent`). The lowest tile below its optimal and the
/// highest above it stay at 1.
pub fn visibility(tile: &Tile, index: usize, count: usize, v: f32) -> f32 {
    if v == tile.optimal {
        return 1.0;
    }
    if v < tile.optimal {
        if index == 0 {
            return 1.0;
        }
        if v <= tile.low {
            return 0.0;
        }
        return (v - tile.low) / (tile.optimal - tile.low);
    }
    if index + 1 == count {
        return 1.0;
    }
    if v >= tile.high {
        return 0.0;
    }
    (tile.high - v) / (tile.high - tile.optimal)
}

/// Slope factor: 1 inside the range, fading to 0 over 5° outside it.
pub fn slope_factor(rule: Option<Span>, degrees: f32) -> f32 {
    const SOFT: f32 = 5.0;
    match rule {
        None => 1.0,
        Some(r) => {
            let below = ((degrees - (r.min - SOFT)) / SOFT).clamp(0.0, 1.0);
            let above = (((r.max + SOFT) - degrees) / SOFT).clamp(0.0, 1.0);
            if r.min <= 0.0 {
                above
            } else {
                below.min(above)
            }
        }
    }
}

/// Per-tile weights at one point by height and slope alone (map rules
/// not applied), summing to 1. See [`weights_with_maps`].
pub fn weights_at(tiles: &[Tile], height: f32, slope_degrees: f32, out: &mut [f32]) {
    weights_by(
        tiles,
        height,
        |i| slope_factor(tiles[i].slope, slope_degrees),
        out,
    );
}

/// Per-tile weights at one point, summing to 1: visibility in the height
/// band times the slope factor times the map rule's factor, where
/// `map_values[i]` is the value of tile i's rule map here (ignored for a
/// tile without a map rule). Falls back to height alone where slope and
/// map rules exclude every tile, and to the nearest optimal where edited
/// bands leave a gap.
pub fn weights_with_maps(
    tiles: &[Tile],
    height: f32,
    slope_degrees: f32,
    map_values: &[f32],
    out: &mut [f32],
) {
    weights_by(
        tiles,
        height,
        |i| {
            let map = match &tiles[i].map {
                Some(rule) => rule.factor(map_values[i]),
                None => 1.0,
            };
            slope_factor(tiles[i].slope, slope_degrees) * map
        },
        out,
    );
}

/// Weights from visibility times `rules(i)`, with the fallbacks of
/// [`weights_with_maps`].
fn weights_by(tiles: &[Tile], height: f32, rules: impl Fn(usize) -> f32, out: &mut [f32]) {
    let k = tiles.len();
    let mut sum = 0.0;
    for (i, t) in tiles.iter().enumerate() {
        out[i] = visibility(t, i, k, height) * rules(i);
        sum += out[i];
    }
    if sum <= 1e-6 {
        sum = 0.0;
        for (i, t) in tiles.iter().enumerate() {
            out[i] = visibility(t, i, k, height);
            sum += out[i];
        }
    }
    if sum <= 1e-6 {
        let nearest = tiles
            .iter()
            .enumerate()
            .min_by(|a, b| {
                (a.1.optimal - height)
                    .abs()
                    .total_cmp(&(b.1.optimal - height).abs())
            })
            .map(|(i, _)| i)
            .unwrap_or(0);
        out[..k].iter_mut().for_each(|w| *w = 0.0);
        out[nearest] = 1.0;
        return;
    }
    out[..k].iter_mut().for_each(|w| *w /= sum);
}

/// [`weights_at`] with every per-tile constant (reciprocals of the band
/// widths, slope ramps) worked out once per render instead of per texel.
pub(super) struct WeightRules {
    tiles: Vec<TileRule>,
}

struct TileRule {
    low: f32,
    optimal: f32,
    high: f32,
    inv_rise: f32,
    inv_fall: f32,
    saturate_below: bool,
    saturate_above: bool,
    slope: Option<(f32, f32)>,
    /// The map rule: its slot in the row's map samples, low, high and the
    /// reciprocal soft width.
    map: Option<(usize, f32, f32, f32)>,
}

impl WeightRules {
    /// The rules of `tiles`, whose map rules read the slots of `kinds`
    /// (a rule whose map has no slot is left out).
    pub(super) fn new(tiles: &[Tile], kinds: &[crate::maps::DerivedMap]) -> Self {
        let k = tiles.len();
        let inv = |d: f32| if d > 0.0 { 1.0 / d } else { 0.0 };
        WeightRules {
            tiles: tiles
                .iter()
                .enumerate()
                .map(|(i, t)| TileRule {
                    low: t.low,
                    optimal: t.optimal,
                    high: t.high,
                    inv_rise: inv(t.optimal - t.low),
                    inv_fall: inv(t.high - t.optimal),
                    saturate_below: i == 0,
                    saturate_above: i + 1 == k,
                    slope: t.slope.map(|s| (s.min, s.max)),
                    map: t.map.and_then(|rule| {
                        let slot = kinds.iter().position(|&m| m == rule.map)?;
                        let (lo, hi, inv_soft) = rule.constants();
                        Some((slot, lo, hi, inv_soft))
                    }),
                })
                .collect(),
        }
    }

    /// Weights for a whole row of texels, tile-major: `out[i·n + x]` is
    /// tile i at texel x, for `n = heights.len()`; `maps[s·n + x]` is the
    /// value of the map in slot s at texel x. Each loop runs over the
    /// row with no data-dependent branch, so it vectorises; the same
    /// expressions as [`visibility`] and [`slope_factor`] give the same
    /// values up to float rounding of the normalisation.
    #[inline(always)]
    pub(super) fn weights_row(
        &self,
        tiles: &[Tile],
        heights: &[f32],
        slopes: &[f32],
        maps: &[f32],
        sums: &mut [f32],
        out: &mut [f32],
    ) {
        const SOFT: f32 = 5.0;
        let n = heights.len();
        for (t, row) in self.tiles.iter().zip(out.chunks_exact_mut(n)) {
            // The saturating end tiles never fade: their ramp is floored
            // at 1 (and min(ramp, 1) = 1 after the clamp).
            let (low, optimal, high) = (t.low, t.optimal, t.high);
            let (inv_rise, inv_fall) = (t.inv_rise, t.inv_fall);
            let rise_floor = if t.saturate_below { 1.0 } else { f32::MIN };
            let fall_floor = if t.saturate_above { 1.0 } else { f32::MIN };
            for (o, &v) in row.iter_mut().zip(heights) {
                let rise = if v >= optimal {
                    1.0
                } else {
                    (v - low) * inv_rise
                };
                let fall = if v <= optimal {
                    1.0
                } else {
                    (high - v) * inv_fall
                };
                let ramp = smaller(larger(rise, rise_floor), larger(fall, fall_floor));
                *o = ramp.clamp(0.0, 1.0);
            }
            if let Some((lo, hi)) = t.slope {
                let upper = hi + SOFT;
                let lower = lo - SOFT;
                if lo <= 0.0 {
                    for (o, &d) in row.iter_mut().zip(slopes) {
                        *o *= ((upper - d) * (1.0 / SOFT)).clamp(0.0, 1.0);
                    }
                } else {
                    for (o, &d) in row.iter_mut().zip(slopes) {
                        let above = ((upper - d) * (1.0 / SOFT)).clamp(0.0, 1.0);
                        let below = ((d - lower) * (1.0 / SOFT)).clamp(0.0, 1.0);
                        *o *= smaller(below, above);
                    }
                }
            }
            if let Some((slot, lo, hi, inv_soft)) = t.map {
                let values = &maps[slot * n..(slot + 1) * n];
                for (o, &v) in row.iter_mut().zip(values) {
                    *o *= ramp_factor(v, lo, hi, inv_soft);
                }
            }
        }
        sums.fill(0.0);
        for row in out.chunks_exact(n) {
            for (s, &w) in sums.iter_mut().zip(row) {
                *s += w;
            }
        }
        // Rare: every tile excluded somewhere on the row. A branch-free
        // minimum finds out; only then are those texels given the exact
        // path's fallbacks.
        // (`f32::min` here: the compiler reorders its reduction into vector
        // lanes, which it may not do for a plain comparison.)
        if sums.iter().fold(f32::INFINITY, |m, &s| m.min(s)) <= 1e-6 {
            for x in 0..n {
                if sums[x] <= 1e-6 {
                    let mut w = vec![0.0f32; tiles.len()];
                    let values: Vec<f32> = self
                        .tiles
                        .iter()
                        .map(|t| t.map.map_or(0.0, |(slot, ..)| maps[slot * n + x]))
                        .collect();
                    weights_with_maps(tiles, heights[x], slopes[x], &values, &mut w);
                    for (i, &wi) in w.iter().enumerate() {
                        out[i * n + x] = wi;
                    }
                    sums[x] = 1.0;
                }
            }
        }
        for s in sums.iter_mut() {
            *s = 1.0 / *s;
        }
        for row in out.chunks_exact_mut(n) {
            for (w, &inv) in row.iter_mut().zip(sums.iter()) {
                *w *= inv;
            }
        }
    }
}

/// `f32::max` without its NaN rule, which costs two extra vector
/// instructions per use; no value it sees here is NaN.
#[inline(always)]
pub(super) fn larger(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

/// `f32::min` without its NaN rule (see [`larger`]).
#[inline(always)]
fn smaller(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}
