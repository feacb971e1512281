//! Hills and pits (ALGORITHMS §2, `Land_MakeHill`): paraboloid caps.
//!
//! A hill adds `d * h` with `d = R² - distance²` wherever `d > 0` (the
//! source article forgot the test and pushed the whole map down).
//!
//! The readable definition, every cap over every cell, is `reference.rs`
//! (with the `reference` feature); the tests require this version to give
//! the same bits.

#[cfg(any(test, feature = "reference"))]
pub mod reference;

use super::{StageContext, StageError, StageOp, row_is_finite};
use crate::heightmap::Heightmap;
use crate::params::{ParamVisitor, Params, Span};
use crate::rng::{StageRng, range_f32};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};

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
///
/// Returns whether every cell is finite afterwards, checked row by row as
/// each row is finished (still in cache).
pub fn apply_caps(map: &mut Heightmap, caps: &[Cap]) -> bool {
    apply_caps_at(map, caps, (0, 0))
}

/// [`apply_caps`] on a window of the world whose first cell is world
/// column and row `origin`: caps are in world cells, and each cell is
/// computed from its world column and row, so the window's cells equal
/// the whole map's.
pub fn apply_caps_at(map: &mut Heightmap, caps: &[Cap], origin: (usize, usize)) -> bool {
    let (width, height) = (map.width(), map.height());
    let (ox, oy) = origin;
    let bands = height.div_ceil(BAND_ROWS);
    let mut by_band: Vec<Vec<u32>> = vec![Vec::new(); bands];
    for (i, cap) in caps.iter().enumerate() {
        // World rows the cap reaches, as window rows.
        let top = ((cap.cy - cap.radius - 1.0).max(0.0) as usize).saturating_sub(oy);
        let bottom = ((cap.cy + cap.radius + 1.0).max(0.0) as usize).saturating_sub(oy);
        if top >= height {
            continue;
        }
        let (top, bottom) = (top / BAND_ROWS, (bottom / BAND_ROWS).min(bands - 1));
        for band in by_band.iter_mut().take(bottom + 1).skip(top) {
            band.push(i as u32);
        }
    }
    let overflowed = AtomicBool::new(false);
    map.data_mut()
        .par_chunks_mut(width)
        .enumerate()
        .for_each(|(y, row)| {
            let yf = (oy + y) as f32;
            for &i in &by_band[y / BAND_ROWS] {
                let cap = &caps[i as usize];
                let dy = cap.cy - yf;
                let reach2 = cap.radius * cap.radius - dy * dy;
                if reach2 <= 0.0 {
                    continue;
                }
                let reach = reach2.sqrt();
                // A cell of slack each side (casts instead of floor/ceil);
                // the kernel tests every cell, so the slack is exact.
                let x0 = ((cap.cx - reach - 1.0).max(0.0) as usize).clamp(ox, ox + width);
                let x1 = ((cap.cx + reach + 2.0).max(0.0) as usize).clamp(ox, ox + width);
                if x0 < x1 {
                    // Whole steps of eight where the row allows: the
                    // kernel leaves the cells outside the disc as they
                    // are, and a full step is cheaper than a scalar tail.
                    let steps = (x1 - x0).next_multiple_of(LANE_OFFSETS.len());
                    let x1 = (x0 + steps).min(ox + width);
                    let x0 = x1.saturating_sub(steps).max(ox);
                    add_cap_row(&mut row[x0 - ox..x1 - ox], x0, cap, yf);
                }
            }
            if !row_is_finite(row) {
                overflowed.store(true, Ordering::Relaxed);
            }
        });
    !overflowed.load(Ordering::Relaxed)
}

/// The cells' x offsets within one eight-cell step of [`add_cap_row`].
const LANE_OFFSETS: [f32; 8] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];

/// Adds `cap` to the cells of row `y`, `cells[0]` being column `first_x`:
/// the reference's arithmetic, eight cells a step. Column numbers are
/// counted in `f32` (exact below 2²⁴) because a `usize`-to-float
/// conversion has no vector instruction before AVX-512 and kept this loop
/// scalar.
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn add_cap_row(cells: &mut [f32], first_x: usize, cap: &Cap, y: f32) {
    multiversion::target::match_target! {
        // SAFETY: this copy runs only on CPUs with AVX2.
        "x86_64+avx2" => unsafe { add_cap_row_avx2(cells, first_x, cap, y) },
        _ => add_cap_row_body(cells, first_x, cap, y),
    }
}

/// [`add_cap_row_body`] written with AVX2 intrinsics: the same operations
/// on the same values, so the same bits. Why by hand: from the plain loop
/// the compiler writes the cells outside the disc back with a masked
/// store (`vmaskmovps`), which AMD's Zen cores run in microcode at
/// several times the cost of the arithmetic. Here every cell of a step is
/// stored, a blend keeping the old value outside the disc.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn add_cap_row_avx2(cells: &mut [f32], first_x: usize, cap: &Cap, y: f32) {
    use std::arch::x86_64::*;
    let dy = cap.cy - y;
    let dy2 = _mm256_set1_ps(dy * dy);
    let r2 = _mm256_set1_ps(cap.radius * cap.radius);
    let (cx, factor) = (_mm256_set1_ps(cap.cx), _mm256_set1_ps(cap.factor));
    // SAFETY: LANE_OFFSETS is eight f32s.
    let offsets = unsafe { _mm256_loadu_ps(LANE_OFFSETS.as_ptr()) };
    let zero = _mm256_setzero_ps();
    let mut x = first_x as f32;
    let done = cells.len() - cells.len() % LANE_OFFSETS.len();
    let mut steps = cells.chunks_exact_mut(LANE_OFFSETS.len());
    for step in &mut steps {
        let dx = _mm256_sub_ps(cx, _mm256_add_ps(_mm256_set1_ps(x), offsets));
        let d = _mm256_sub_ps(r2, _mm256_add_ps(_mm256_mul_ps(dx, dx), dy2));
        // SAFETY: `step` is eight f32s; unaligned loads and stores.
        let old = unsafe { _mm256_loadu_ps(step.as_ptr()) };
        let added = _mm256_add_ps(old, _mm256_mul_ps(d, factor));
        let inside = _mm256_cmp_ps::<_CMP_GT_OQ>(d, zero);
        // The blend in assembly: the compiler, seeing a blend of the
        // loaded value stored back, would make it a masked store again.
        let new: __m256;
        // SAFETY: a register-only AVX instruction, in an AVX2 function.
        unsafe {
            std::arch::asm!(
                "vblendvps {new}, {old}, {added}, {inside}",
                new = lateout(ymm_reg) new,
                old = in(ymm_reg) old,
                added = in(ymm_reg) added,
                inside = in(ymm_reg) inside,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        // SAFETY: as above.
        unsafe { _mm256_storeu_ps(step.as_mut_ptr(), new) };
        x += LANE_OFFSETS.len() as f32;
    }
    add_cap_row_body(steps.into_remainder(), first_x + done, cap, y);
}

/// [`add_cap_row`] without target features, for the tests of [`crate::simd`].
#[cfg(test)]
fn add_cap_row_plain(cells: &mut [f32], first_x: usize, cap: &Cap, y: f32) {
    add_cap_row_body(cells, first_x, cap, y)
}

#[inline(always)]
fn add_cap_row_body(cells: &mut [f32], first_x: usize, cap: &Cap, y: f32) {
    let dy = cap.cy - y;
    let dy2 = dy * dy;
    let r2 = cap.radius * cap.radius;
    let (cx, factor) = (cap.cx, cap.factor);
    // Same operations in the same order as `cap_value` and the reference,
    // and a cell outside the disc is left as it is (not given `+ 0.0`).
    let add = |cell: &mut f32, x: f32| {
        let dx = cx - x;
        let d = r2 - (dx * dx + dy2);
        *cell = if d > 0.0 { *cell + d * factor } else { *cell };
    };
    let mut x = first_x as f32;
    let mut steps = cells.chunks_exact_mut(LANE_OFFSETS.len());
    for step in &mut steps {
        for (cell, offset) in step.iter_mut().zip(LANE_OFFSETS) {
            add(cell, x + offset);
        }
        x += LANE_OFFSETS.len() as f32;
    }
    for (cell, offset) in steps.into_remainder().iter_mut().zip(LANE_OFFSETS) {
        add(cell, x + offset);
    }
}

#[cfg(test)]
impl crate::simd::KernelChecks {
    /// Runs [`add_cap_row`] (the AVX2 copy where the CPU has it) and its
    /// plain copy on random rows and caps, rows of many widths, and says
    /// where they differ in a single bit.
    pub(crate) fn add_cap_row(seed: u64) -> Result<(), String> {
        let mut rng = crate::rng::stage_rng(seed, 2);
        for width in [1usize, 2, 3, 5, 7, 8, 9, 16, 17, 33, 100, 257] {
            let w = width as f32;
            for _ in 0..24 {
                let cap = Cap {
                    cx: range_f32(&mut rng, -0.5 * w, 1.5 * w),
                    cy: range_f32(&mut rng, -8.0, 8.0),
                    radius: range_f32(&mut rng, 0.5, w + 4.0),
                    factor: range_f32(&mut rng, -0.5, 0.5),
                };
                let first_x = (range_f32(&mut rng, 0.0, 2000.0)) as usize;
                let y = range_f32(&mut rng, -4.0, 4.0).floor();
                let start: Vec<f32> = (0..width)
                    .map(|_| range_f32(&mut rng, -50.0, 50.0))
                    .collect();
                let (mut a, mut b) = (start.clone(), start);
                add_cap_row(&mut a, first_x, &cap, y);
                add_cap_row_plain(&mut b, first_x, &cap, y);
                if let Some(x) = Self::first_difference(&a, &b) {
                    return Err(format!(
                        "add_cap_row, seed {seed}, width {width}, {cap:?}, x {x}: {} vs plain {}",
                        a[x], b[x]
                    ));
                }
            }
        }
        Ok(())
    }
}

impl StageOp for HillsAndPits {
    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        // The world's extent, not the window's: caps sit in world cells.
        let window = ctx.window_of(map);
        let extent = (
            (window.world_width - 1) as f32 * ctx.cell_size,
            (window.world_height - 1) as f32 * ctx.cell_size,
        );
        let caps = self.place(extent, ctx.cell_size, &mut ctx.rng);
        let origin = (window.window.x, window.window.y);
        ctx.output_finite = Some(apply_caps_at(map, &caps, origin));
        Ok(())
    }
}
