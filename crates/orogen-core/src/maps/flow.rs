//! The drainage network as a 0..1 strength per cell, and a water-blue tint
//! that paints it into an RGBA image.
//!
//! Water is routed as the erosion routes it ([`crate::hydro::Routing`]:
//! steepest descent, depressions spilled through their lowest pass, every
//! edge an outlet); a cell's drainage area is the cells that drain through
//! it times the cell's area. The strength is that area on a log scale
//! between two areas in square world units ([`MIN_AREA`], [`FULL_AREA`]),
//! not in cells, so the same world shows the same network at any sampling.

use crate::heightmap::Heightmap;
use crate::hydro::{Outlets, Routing};

/// Drainage area (square world units) at and below which a cell shows no
/// flow: a hillside, not a channel.
pub const MIN_AREA: f32 = 500.0;
/// Drainage area (square world units) from which a cell shows full
/// strength: a quarter of a square kilometre, so the main rivers of a
/// 1 km² world (the shipped presets' size) saturate.
pub const FULL_AREA: f32 = 250_000.0;
/// The tint's colour (sRGB).
pub const TINT: [u8; 3] = [30, 110, 235];
/// The tint's opacity at full strength.
pub const TINT_OPACITY: f32 = 0.85;

/// The strength of a drainage area in square world units: 0 at or below
/// [`MIN_AREA`], 1 at or above [`FULL_AREA`], linear in log(area) between.
pub fn strength_of_area(area: f32) -> f32 {
    if area.is_nan() || area <= MIN_AREA {
        return 0.0;
    }
    let s = (area / MIN_AREA).log10() / (FULL_AREA / MIN_AREA).log10();
    s.clamp(0.0, 1.0)
}

/// The flow strength (0..=1, row-major, one per cell) of `map` with
/// `cell_size` world units between cells. Non-finite heights count as 0.
pub fn flow_strength(map: &Heightmap, cell_size: f32) -> Vec<f32> {
    let sanitised;
    let heights = if map.data().iter().all(|v| v.is_finite()) {
        map.data()
    } else {
        sanitised = map
            .data()
            .iter()
            .map(|&v| if v.is_finite() { v } else { 0.0 })
            .collect::<Vec<f32>>();
        &sanitised
    };
    let routing = Routing::new(heights, map.width(), &Outlets::ALL_EDGES);
    let cell_area = if cell_size.is_finite() {
        cell_size * cell_size
    } else {
        0.0
    };
    routing
        .cells
        .into_iter()
        .map(|cells| strength_of_area(cells as f32 * cell_area))
        .collect()
}

/// For each of `out` pixels along an axis of `cells` cells (mapped corner
/// to corner, pixel centres as the splat texture samples them), the range
/// of cells its footprint touches.
fn footprints(out: usize, cells: usize) -> Vec<(usize, usize)> {
    let last = cells.saturating_sub(1);
    let step = last as f32 / out.max(1) as f32;
    let half = step * 0.5;
    (0..out)
        .map(|p| {
            let centre = (p as f32 + 0.5) * step;
            // Cells whose half-open span [i − ½, i + ½) overlaps the
            // footprint's inside.
            let lo = ((centre - half - 0.5).floor() + 1.0).max(0.0) as usize;
            let hi = ((centre + half + 0.5).ceil() - 1.0).max(0.0) as usize;
            let nearest = (centre + 0.5).floor() as usize;
            (lo.min(nearest).min(last), hi.max(nearest).min(last))
        })
        .collect()
}

/// `strength` (`width × height` cells) resampled to `out_width ×
/// out_height` pixels: each pixel takes the strongest cell its footprint
/// touches, so a channel one cell wide stays unbroken in a smaller image
/// (and is the nearest cell's value in a larger one).
pub fn resample_max(
    strength: &[f32],
    width: usize,
    height: usize,
    out_width: usize,
    out_height: usize,
) -> Vec<f32> {
    if width == 0 || height == 0 || strength.len() != width * height {
        return vec![0.0; out_width * out_height];
    }
    if (width, height) == (out_width, out_height) {
        return strength.to_vec();
    }
    let columns = footprints(out_width, width);
    let rows = footprints(out_height, height);
    let mut out = Vec::with_capacity(out_width * out_height);
    for &(y0, y1) in &rows {
        for &(x0, x1) in &columns {
            let mut best = 0.0f32;
            for y in y0..=y1 {
                for &v in &strength[y * width + x0..=y * width + x1] {
                    best = best.max(v);
                }
            }
            out.push(best);
        }
    }
    out
}

/// Blends [`TINT`] into `rgba` (`width × height` pixels, 4 bytes each)
/// with opacity `strength × TINT_OPACITY`, `strength` being `map_width ×
/// map_height` cells over the same extent (resampled with
/// [`resample_max`] when the sizes differ). Alpha is left alone; pixels of
/// strength 0 are unchanged.
pub fn tint_rgba(
    rgba: &mut [u8],
    width: usize,
    height: usize,
    strength: &[f32],
    map_width: usize,
    map_height: usize,
) {
    tint_rgba_with(
        rgba,
        (width, height),
        strength,
        (map_width, map_height),
        TINT,
    );
}

/// [`tint_rgba`] in another colour (the viewer's overlay of other maps).
pub fn tint_rgba_with(
    rgba: &mut [u8],
    (width, height): (usize, usize),
    strength: &[f32],
    (map_width, map_height): (usize, usize),
    tint: [u8; 3],
) {
    if rgba.len() != width * height * 4 {
        return;
    }
    let resampled;
    let per_pixel =
        if (map_width, map_height) == (width, height) && strength.len() == width * height {
            strength
        } else {
            resampled = resample_max(strength, map_width, map_height, width, height);
            &resampled
        };
    for (pixel, &s) in rgba.chunks_exact_mut(4).zip(per_pixel) {
        let alpha = s.clamp(0.0, 1.0) * TINT_OPACITY;
        if alpha <= 0.0 {
            continue;
        }
        for (c, &t) in pixel[..3].iter_mut().zip(&tint) {
            let v = f32::from(*c) + (f32::from(t) - f32::from(*c)) * alpha;
            *c = v.round().clamp(0.0, 255.0) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plane rising to the south with a V valley along the middle
    /// column, `side` cells over `extent` world units: water runs into the
    /// valley and down it to the north edge.
    fn valley(side: usize, extent: f32) -> (Heightmap, f32) {
        let cell = extent / (side - 1) as f32;
        let centre = extent * 0.5;
        let mut data = Vec::with_capacity(side * side);
        for y in 0..side {
            for x in 0..side {
                let (wx, wy) = (x as f32 * cell, y as f32 * cell);
                data.push(0.2 * wy + 0.3 * (wx - centre).abs());
            }
        }
        (
            Heightmap::from_vec(side, side, data).unwrap_or_else(|| Heightmap::new(side, side)),
            cell,
        )
    }

    #[test]
    fn the_valley_is_stronger_than_the_ridges_and_all_is_in_range() {
        let (map, cell) = valley(65, 640.0);
        let s = flow_strength(&map, cell);
        assert_eq!(s.len(), 65 * 65);
        assert!(s.iter().all(|v| (0.0..=1.0).contains(v)), "0..=1");
        for y in 8..56 {
            let row = &s[y * 65..(y + 1) * 65];
            let valley = row[32];
            for x in [1, 2, 62, 63] {
                assert!(
                    valley > row[x] + 0.3,
                    "row {y}: valley {valley}, ridge {}",
                    row[x]
                );
            }
        }
        // Downstream the valley gathers more: full strength near its mouth.
        assert!(s[65 + 32] > 0.9, "{}", s[65 + 32]);
        assert!(s[65 + 32] >= s[40 * 65 + 32]);
        assert_eq!(s[64 * 65 + 1], 0.0, "a ridge cell drains nothing");
    }

    #[test]
    fn the_same_world_shows_the_same_network_at_another_sampling() {
        let (coarse, coarse_cell) = valley(65, 640.0);
        let (fine, fine_cell) = valley(129, 640.0);
        let a = flow_strength(&coarse, coarse_cell);
        let b = flow_strength(&fine, fine_cell);
        // Shared points: coarse cell (x, y) is fine cell (2x, 2y).
        let mut pairs = Vec::new();
        for y in 0..65 {
            for x in 0..65 {
                pairs.push((a[y * 65 + x], b[2 * y * 129 + 2 * x]));
            }
        }
        let n = pairs.len() as f32;
        let (ma, mb) = pairs
            .iter()
            .fold((0.0, 0.0), |(sa, sb), (x, y)| (sa + x / n, sb + y / n));
        let (mut cov, mut va, mut vb) = (0.0f32, 0.0f32, 0.0f32);
        for (x, y) in &pairs {
            cov += (x - ma) * (y - mb);
            va += (x - ma).powi(2);
            vb += (y - mb).powi(2);
        }
        let correlation = cov / (va * vb).sqrt();
        assert!(correlation >= 0.8, "correlation {correlation}");
        // Along the valley line the two agree closely.
        for y in 2..62 {
            let (sa, sb) = (a[y * 65 + 32], b[2 * y * 129 + 64]);
            assert!((sa - sb).abs() < 0.1, "row {y}: {sa} vs {sb}");
        }
    }

    #[test]
    fn strength_is_log_area_between_world_unit_thresholds() {
        assert_eq!(strength_of_area(0.0), 0.0);
        assert_eq!(strength_of_area(MIN_AREA), 0.0);
        assert_eq!(strength_of_area(f32::NAN), 0.0);
        assert_eq!(strength_of_area(FULL_AREA), 1.0);
        assert_eq!(strength_of_area(1e12), 1.0);
        let mid = strength_of_area((MIN_AREA * FULL_AREA).sqrt());
        assert!((mid - 0.5).abs() < 1e-4, "{mid}");
        // Non-finite heights route as 0 rather than failing.
        let map = Heightmap::from_vec(3, 3, vec![1.0, f32::NAN, 2.0, 0.0, 1.0, 3.0, 1.0, 2.0, 1.0])
            .unwrap_or_else(|| Heightmap::new(3, 3));
        assert!(
            flow_strength(&map, 1.0)
                .iter()
                .all(|v| (0.0..=1.0).contains(v))
        );
    }

    #[test]
    fn a_channel_one_cell_wide_survives_downsampling() {
        let (w, h) = (1025, 700);
        let mut strength = vec![0.0f32; w * h];
        for y in 0..h {
            strength[y * w + 517] = 1.0;
        }
        let small = resample_max(&strength, w, h, 192, 131);
        for row in small.chunks_exact(192) {
            assert_eq!(row.iter().filter(|&&v| v == 1.0).count().min(1), 1);
            assert!(row.iter().filter(|&&v| v == 1.0).count() <= 2);
        }
        // Up: nearest cell.
        let up = resample_max(&[0.0, 1.0, 0.0, 0.0], 2, 2, 4, 4);
        assert_eq!(&up[..4], &[0.0, 0.0, 1.0, 1.0]);
        assert_eq!(&up[12..], &[0.0; 4]);
    }

    #[test]
    fn the_tint_blends_water_blue_by_strength() {
        let mut rgba = [100u8, 100, 100, 255].repeat(4);
        tint_rgba(&mut rgba, 2, 2, &[0.0, 0.5, 1.0, 0.0], 2, 2);
        assert_eq!(&rgba[..4], &[100, 100, 100, 255], "strength 0: unchanged");
        assert_eq!(&rgba[12..], &[100, 100, 100, 255]);
        let half = &rgba[4..8];
        let full = &rgba[8..12];
        assert_eq!(full[3], 255, "alpha kept");
        for c in 0..3 {
            let target = f32::from(TINT[c]);
            let expect = 100.0 + (target - 100.0) * TINT_OPACITY;
            assert!((f32::from(full[c]) - expect).abs() <= 0.5);
            let between = (f32::from(half[c]) - 100.0) * (target - 100.0);
            assert!(between >= 0.0, "half strength lies towards the tint");
        }
        assert!(half[2] < full[2]);
        // A mismatched buffer is left alone.
        let mut short = vec![1u8; 7];
        tint_rgba(&mut short, 2, 2, &[1.0; 4], 2, 2);
        assert_eq!(short, vec![1u8; 7]);
    }
}
