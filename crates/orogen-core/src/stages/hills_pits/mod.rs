//! Hills and pits (ALGORITHMS §2, `Land_MakeHill`): paraboloid caps.
//!
//! A hill adds `d * h` with `d = R² - distance²` wherever `d > 0` (the
//! source article forgot the test and pushed the whole map down).
//!
//! The readable definition, every cap over every cell, is [`mod@reference`];
//! the tests require this version to give the same bits.

pub mod reference;

use super::{StageContext, StageError, StageOp};
use crate::heightmap::Heightmap;
use crate::params::{ParamVisitor, Params, Span};
use crate::rng::{StageRng, range_f32};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// One layer of caps of a hills-and-pits stage: how many, how wide, how high.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HillLayer {
    /// A pit layer digs (negative `h`).
    pub pit: bool,
    /// How many hills (or pits) the layer places over the whole world,
    /// centred anywhere on it: a count per world, the same at every map
    /// size.
    pub count: u32,
    /// Radius `R` in world units, uniform in `[min, max)`.
    pub radius: Span,
    /// Height factor `h`, uniform in `[min, max)`; the peak is `h * R²`
    /// (R in world units).
    pub height: Span,
}

impl HillLayer {
    /// Article 000's hills (final recipe): about 225 caps, radius the
    /// integers 14..27 (`rand()%14+14`) as the continuous [13.5, 27.5), `h`
    /// 0.10..0.19 (`(rand()%10+10)/100`) as [0.095, 0.195).
    pub fn hills() -> Self {
        Self {
            pit: false,
            count: ARTICLE_COUNT,
            radius: Span::new(13.5, 27.5),
            height: Span::new(0.095, 0.195),
        }
    }

    /// Article 000's pits: about 225 caps, radius 7..10 (`rand()%4+7`) as
    /// [6.5, 10.5), `h` 0.20..0.39 (`(rand()%20+20)/100`) as [0.195, 0.395).
    pub fn pits() -> Self {
        Self {
            pit: true,
            count: ARTICLE_COUNT,
            radius: Span::new(6.5, 10.5),
            height: Span::new(0.195, 0.395),
        }
    }

    /// A layer of small hills (orogen's; the article's "a few more small
    /// hills" gives no numbers): 80 caps of radius 3..7 world units, `h`
    /// 0.2..0.4.
    pub fn small_hills() -> Self {
        Self {
            pit: false,
            count: 80,
            radius: Span::new(3.0, 7.0),
            height: Span::new(0.2, 0.4),
        }
    }
}

/// How many hills, and again pits, article 000's loop makes on average:
/// its `i < rand() % (size²·1000)` draws anew each pass and, with a 15-bit
/// `rand()`, stops at the first draw below `i`, after about
/// √(π·32768/2) ≈ 225 passes (ALGORITHMS §2 (b)).
pub const ARTICLE_COUNT: u32 = 225;

impl Params for HillLayer {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.toggle(
            "pit",
            &mut self.pit,
            "Dig pits (negative height) instead of raising hills.",
        );
        v.int(
            "count",
            &mut self.count,
            0..=1_000_000,
            "How many hills (or pits) this layer places over the whole world; a larger map size samples the same hills more finely.",
        );
        v.span(
            "radius",
            &mut self.radius,
            0.001..=1_000_000.0,
            "Radius R in world units, uniform in [min, max).",
        );
        v.span(
            "height",
            &mut self.height,
            0.0..=1000.0,
            "Height factor h, uniform in [min, max); the peak is h·R², R in world units (0.3 with R = 20 gives 120).",
        );
    }
}

/// Hills-and-pits stage: paraboloid caps (peak `h·R²`) at random centres.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HillsAndPits {
    /// The cap layers, placed and added in order.
    pub layers: Vec<HillLayer>,
}

impl Default for HillsAndPits {
    fn default() -> Self {
        Self {
            layers: vec![HillLayer::hills(), HillLayer::pits()],
        }
    }
}

impl Params for HillsAndPits {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        for (i, layer) in self.layers.iter_mut().enumerate() {
            v.group(&format!("layers[{i}]"), &mut |v| layer.visit(v));
        }
    }
}

/// One placed cap: centre in cell coordinates, radius, signed factor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cap {
    /// Centre column in cells (0 = west edge).
    pub cx: f32,
    /// Centre row in cells (0 = north edge).
    pub cy: f32,
    /// Radius `R` in cells.
    pub radius: f32,
    /// Height factor `h`, negative for a pit; the peak is `factor * R²`.
    pub factor: f32,
}

impl HillsAndPits {
    /// Draws every cap, layer by layer, in a fixed order, in world units
    /// over a world of `extent` (x, y), and returns them in cells of
    /// `cell_size`: the draws do not depend on the sampling, so every map
    /// size gets the same hills.
    pub fn place(&self, extent: (f32, f32), cell_size: f32, rng: &mut StageRng) -> Vec<Cap> {
        let mut caps = Vec::new();
        let to_cells = 1.0 / cell_size;
        // h·(R² − d²) in world units is h·cell²·(R² − d²) in cells.
        let factor_scale = cell_size * cell_size;
        for layer in &self.layers {
            let sign = if layer.pit { -1.0 } else { 1.0 };
            for _ in 0..layer.count {
                let cx = range_f32(rng, 0.0, extent.0);
                let cy = range_f32(rng, 0.0, extent.1);
                let radius = range_f32(rng, layer.radius.min, layer.radius.max);
                let factor = sign * range_f32(rng, layer.height.min, layer.height.max);
                caps.push(Cap {
                    cx: cx * to_cells,
                    cy: cy * to_cells,
                    radius: radius * to_cells,
                    factor: factor * factor_scale,
                });
            }
        }
        caps
    }
}

/// The cap's contribution at a cell, exactly as the reference formula
/// computes it (same operation order, so fast and naive paths agree bit
/// for bit).
#[inline]
pub fn cap_value(cap: &Cap, x: f32, y: f32) -> f32 {
    let dx = cap.cx - x;
    let dy = cap.cy - y;
    let d = cap.radius * cap.radius - (dx * dx + dy * dy);
    if d > 0.0 { d * cap.factor } else { 0.0 }
}

/// Rows per bucket of the cap index.
const BAND_ROWS: usize = 16;

/// Adds every cap to the map, visiting only the cells under each disc.
/// Caps are first bucketed by the bands of rows they reach (keeping their
/// order), so a row only looks at nearby caps. Rows run in parallel;
/// within a row caps are added in placement order, so the sums are
/// identical for any thread count.
pub fn apply_caps(map: &mut Heightmap, caps: &[Cap]) {
    let (width, height) = (map.width(), map.height());
    let bands = height.div_ceil(BAND_ROWS);
    let mut by_band: Vec<Vec<u32>> = vec![Vec::new(); bands];
    for (i, cap) in caps.iter().enumerate() {
        let top = (cap.cy - cap.radius - 1.0).max(0.0) as usize / BAND_ROWS;
        let bottom = ((cap.cy + cap.radius + 1.0).max(0.0) as usize / BAND_ROWS).min(bands - 1);
        for band in by_band.iter_mut().take(bottom + 1).skip(top) {
            band.push(i as u32);
        }
    }
    map.data_mut()
        .par_chunks_mut(width)
        .enumerate()
        .for_each(|(y, row)| {
            let yf = y as f32;
            for &i in &by_band[y / BAND_ROWS] {
                let cap = &caps[i as usize];
                let dy = cap.cy - yf;
                let reach2 = cap.radius * cap.radius - dy * dy;
                if reach2 <= 0.0 {
                    continue;
                }
                let reach = reach2.sqrt();
                // A cell of slack each side (casts instead of floor/ceil);
                // cap_value is 0 outside the disc, so adding it is exact.
                let x0 = (cap.cx - reach - 1.0).max(0.0) as usize;
                let x1 = ((cap.cx + reach + 2.0).max(0.0) as usize).min(width);
                for (x, cell) in row.iter_mut().enumerate().take(x1).skip(x0) {
                    *cell += cap_value(cap, x as f32, yf);
                }
            }
        });
}

impl StageOp for HillsAndPits {
    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        let extent = (
            (map.width() - 1) as f32 * ctx.cell_size,
            (map.height() - 1) as f32 * ctx.cell_size,
        );
        let caps = self.place(extent, ctx.cell_size, &mut ctx.rng);
        apply_caps(map, &caps);
        Ok(())
    }
}
