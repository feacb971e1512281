//! The heightmap grid: `width x height` f32 cells, row-major, row 0 = north.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// A terrain grid of `width x height` cells holding heights in world units,
/// row-major with row 0 = north and x east.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Heightmap {
    width: usize,
    height: usize,
    data: Vec<f32>,
}

/// Summary statistics of a heightmap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeightStats {
    /// Lowest cell, in world units.
    pub min: f32,
    /// Highest cell, in world units.
    pub max: f32,
    /// Mean over all cells, in world units.
    pub mean: f64,
}

impl Heightmap {
    /// A map filled with `value`. Sizes must be at least 1x1.
    pub fn filled(width: usize, height: usize, value: f32) -> Self {
        assert!(width > 0 && height > 0, "heightmap needs at least one cell");
        Self {
            width,
            height,
            data: vec![value; width * height],
        }
    }

    /// A flat map of `width x height` cells at height 0.
    pub fn new(width: usize, height: usize) -> Self {
        Self::filled(width, height, 0.0)
    }

    /// Wraps existing cells; `None` if the length does not match.
    pub fn from_vec(width: usize, height: usize, data: Vec<f32>) -> Option<Self> {
        (width > 0 && height > 0 && data.len() == width * height).then_some(Self {
            width,
            height,
            data,
        })
    }

    /// The same cells as `clone`, copied by every thread: the pipeline
    /// copies each stage's input, and one thread copying a 1025² map is a
    /// measurable share of a regeneration.
    pub fn parallel_copy(&self) -> Self {
        const CHUNK: usize = 1 << 16;
        let len = self.data.len();
        let mut data = Vec::with_capacity(len);
        data.spare_capacity_mut()[..len]
            .par_chunks_mut(CHUNK)
            .zip(self.data.par_chunks(CHUNK))
            .for_each(|(dst, src)| {
                for (d, &s) in dst.iter_mut().zip(src) {
                    d.write(s);
                }
            });
        // SAFETY: both sides are cut into the same chunks of `len` cells,
        // and every chunk writes each of its cells.
        unsafe { data.set_len(len) };
        Self {
            width: self.width,
            height: self.height,
            data,
        }
    }

    /// A cell that is infinite or NaN, if any. Each chunk is scanned by a
    /// branch-free loop that vectorises (all exponent bits set means not
    /// finite); only a chunk that has one is searched for it.
    pub fn first_non_finite(&self) -> Option<f32> {
        const CHUNK: usize = 1 << 14;
        const EXPONENT: u32 = 0x7f80_0000;
        self.data.par_chunks(CHUNK).find_map_first(|chunk| {
            let any = chunk
                .iter()
                .fold(false, |any, v| any | (v.to_bits() & EXPONENT == EXPONENT));
            if any {
                chunk.iter().copied().find(|v| !v.is_finite())
            } else {
                None
            }
        })
    }

    /// Number of columns (cells from west to east).
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of rows (cells from north to south).
    pub fn height(&self) -> usize {
        self.height
    }

    /// All cells, row-major from the north-west corner.
    pub fn data(&self) -> &[f32] {
        &self.data
    }

    /// All cells, mutable, row-major from the north-west corner.
    pub fn data_mut(&mut self) -> &mut [f32] {
        &mut self.data
    }

    /// The cells as a row-major vector, consuming the map.
    pub fn into_vec(self) -> Vec<f32> {
        self.data
    }

    /// Position in [`data`](Self::data) of the cell at column `x`, row `y`.
    #[inline]
    pub fn index(&self, x: usize, y: usize) -> usize {
        y * self.width + x
    }

    /// Height of the cell at column `x`, row `y` (row 0 = north).
    #[inline]
    pub fn get(&self, x: usize, y: usize) -> f32 {
        self.data[y * self.width + x]
    }

    /// Sets the height of the cell at column `x`, row `y` (row 0 = north).
    #[inline]
    pub fn set(&mut self, x: usize, y: usize, value: f32) {
        self.data[y * self.width + x] = value;
    }

    /// Row `y` of cells (row 0 = north), from west to east.
    pub fn row(&self, y: usize) -> &[f32] {
        &self.data[y * self.width..(y + 1) * self.width]
    }

    /// Min, max and mean. Non-finite cells are never produced by the stages.
    /// Chunks of a fixed size are reduced in parallel and combined in
    /// order, so the mean is the same for any thread count.
    pub fn stats(&self) -> HeightStats {
        const CHUNK: usize = 1 << 16;
        let parts: Vec<(f32, f32, f64)> = self.data.par_chunks(CHUNK).map(chunk_stats).collect();
        let (mut min, mut max, mut sum) = (f32::INFINITY, f32::NEG_INFINITY, 0.0f64);
        for (lo, hi, s) in parts {
            min = min.min(lo);
            max = max.max(hi);
            sum += s;
        }
        HeightStats {
            min,
            max,
            mean: sum / self.data.len() as f64,
        }
    }

    /// Lowest and highest cell: [`stats`](Self::stats) without the mean,
    /// for callers that need only the range.
    pub fn range(&self) -> (f32, f32) {
        const CHUNK: usize = 1 << 16;
        self.data.par_chunks(CHUNK).map(chunk_range).reduce(
            || (f32::INFINITY, f32::NEG_INFINITY),
            |a, b| (a.0.min(b.0), a.1.max(b.1)),
        )
    }

    /// True bilinear interpolation at fractional cell coordinates, clamped
    /// to the map.
    pub fn sample_bilinear(&self, x: f32, y: f32) -> f32 {
        let max_x = (self.width - 1) as f32;
        let max_y = (self.height - 1) as f32;
        let x = x.clamp(0.0, max_x);
        let y = y.clamp(0.0, max_y);
        let x0 = x.floor() as usize;
        let y0 = y.floor() as usize;
        let x1 = (x0 + 1).min(self.width - 1);
        let y1 = (y0 + 1).min(self.height - 1);
        let fx = x - x0 as f32;
        let fy = y - y0 as f32;
        let top = self.get(x0, y0) * (1.0 - fx) + self.get(x1, y0) * fx;
        let bottom = self.get(x0, y1) * (1.0 - fx) + self.get(x1, y1) * fx;
        top * (1.0 - fy) + bottom * fy
    }

    /// The top-left `width x height` window of this map.
    pub fn cropped(&self, width: usize, height: usize) -> Heightmap {
        let width = width.min(self.width).max(1);
        let height = height.min(self.height).max(1);
        let mut data = Vec::with_capacity(width * height);
        for y in 0..height {
            data.extend_from_slice(&self.row(y)[..width]);
        }
        Heightmap {
            width,
            height,
            data,
        }
    }

    /// Resampled to a new size with bilinear interpolation; corners map to
    /// corners.
    pub fn resized(&self, width: usize, height: usize) -> Heightmap {
        if width == self.width && height == self.height {
            return self.clone();
        }
        let sx = if width > 1 {
            (self.width - 1) as f32 / (width - 1) as f32
        } else {
            0.0
        };
        let sy = if height > 1 {
            (self.height - 1) as f32 / (height - 1) as f32
        } else {
            0.0
        };
        // Each column's two source columns and weight once, not per cell:
        // the same arithmetic as `sample_bilinear`, so the same bits, at a
        // fraction of the cost on the coarse-to-fine levels' carry-ups.
        let columns: Vec<(usize, usize, f32)> = (0..width)
            .map(|x| lerp_at(x as f32 * sx, self.width))
            .collect();
        let mut out = Heightmap::new(width, height);
        out.data
            .par_chunks_mut(width)
            .enumerate()
            .for_each(|(y, row)| {
                let (y0, y1, fy) = lerp_at(y as f32 * sy, self.height);
                let (r0, r1) = (self.row(y0), self.row(y1));
                for (cell, &(x0, x1, fx)) in row.iter_mut().zip(&columns) {
                    let top = r0[x0] * (1.0 - fx) + r0[x1] * fx;
                    let bottom = r1[x0] * (1.0 - fx) + r1[x1] * fx;
                    *cell = top * (1.0 - fy) + bottom * fy;
                }
            });
        out
    }
}

/// The two cells a coordinate `v` of a line of `n` cells falls between
/// (clamped to the line) and the weight of the second, as
/// [`Heightmap::sample_bilinear`] computes them.
#[inline]
fn lerp_at(v: f32, n: usize) -> (usize, usize, f32) {
    let v = v.clamp(0.0, (n - 1) as f32);
    let i0 = v.floor() as usize;
    (i0, (i0 + 1).min(n - 1), v - i0 as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resizing_samples_exactly_as_sample_bilinear_does() {
        let mut map = Heightmap::new(37, 23);
        for (i, v) in map.data_mut().iter_mut().enumerate() {
            *v = ((i * 7919) % 1000) as f32 * 0.37 - 100.0;
        }
        for (w, h) in [(73, 45), (19, 12), (37, 50), (101, 7), (1, 5), (64, 1)] {
            let out = map.resized(w, h);
            let sx = if w > 1 { 36.0 / (w - 1) as f32 } else { 0.0 };
            let sy = if h > 1 { 22.0 / (h - 1) as f32 } else { 0.0 };
            for y in 0..h {
                for x in 0..w {
                    let want = map.sample_bilinear(x as f32 * sx, y as f32 * sy);
                    assert_eq!(
                        out.get(x, y).to_bits(),
                        want.to_bits(),
                        "{w}x{h} at {x},{y}"
                    );
                }
            }
        }
    }

    #[test]
    fn non_finite_cells_are_found_anywhere() {
        let mut map = Heightmap::new(300, 301);
        assert_eq!(map.first_non_finite(), None);
        map.set(299, 300, f32::MAX);
        assert_eq!(map.first_non_finite(), None);
        for (x, y, bad) in [(0, 0, f32::INFINITY), (150, 200, f32::NEG_INFINITY)] {
            let mut m = map.clone();
            m.set(x, y, bad);
            assert_eq!(m.first_non_finite(), Some(bad));
        }
        map.set(299, 300, f32::NAN);
        assert!(map.first_non_finite().is_some_and(f32::is_nan));
    }

    #[test]
    fn range_equals_the_stats_extremes() {
        for (w, h) in [(1, 1), (9, 7), (1025, 70)] {
            let data = (0..w * h)
                .map(|i| (i as f32 * 0.71).sin() * i as f32)
                .collect();
            let map = Heightmap::from_vec(w, h, data).unwrap();
            let stats = map.stats();
            assert_eq!(map.range(), (stats.min, stats.max));
        }
    }

    #[test]
    fn parallel_copy_equals_clone_at_any_size() {
        for (w, h) in [(1, 1), (7, 3), (300, 500), (1025, 70)] {
            let data = (0..w * h).map(|i| (i as f32 * 0.37).sin()).collect();
            let map = Heightmap::from_vec(w, h, data).unwrap();
            assert_eq!(map.parallel_copy(), map);
        }
    }

    #[test]
    fn bilinear_hits_cells_and_midpoints() {
        let map = Heightmap::from_vec(2, 2, vec![0.0, 10.0, 20.0, 30.0]).unwrap();
        assert_eq!(map.sample_bilinear(0.0, 0.0), 0.0);
        assert_eq!(map.sample_bilinear(1.0, 1.0), 30.0);
        assert_eq!(map.sample_bilinear(0.5, 0.5), 15.0);
        assert_eq!(map.sample_bilinear(0.5, 0.0), 5.0);
        // The x/z average of the source article would give 12.5 at (0.25, 0.5).
        assert!((map.sample_bilinear(0.25, 0.5) - 12.5).abs() < 1e-6);
        assert!((map.sample_bilinear(0.25, 0.75) - 17.5).abs() < 1e-6);
    }

    #[test]
    fn crop_keeps_top_left() {
        let map = Heightmap::from_vec(3, 2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let c = map.cropped(2, 2);
        assert_eq!(c.data(), &[1.0, 2.0, 4.0, 5.0]);
    }
}

/// Minimum and maximum of one chunk: [`chunk_stats`] without the sums,
/// whose conversions to f64 cost more than the comparisons. Compiled for
/// AVX2 too; see [`crate::simd`].
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn chunk_range(chunk: &[f32]) -> (f32, f32) {
    chunk_range_body(chunk)
}

/// [`chunk_range`] without target features, for the tests of [`crate::simd`].
#[cfg(test)]
fn chunk_range_plain(chunk: &[f32]) -> (f32, f32) {
    chunk_range_body(chunk)
}

#[inline(always)]
fn chunk_range_body(chunk: &[f32]) -> (f32, f32) {
    // Four vectors' worth of independent minima and maxima: with one
    // vector each, every step waited for the last compare and blend, and
    // this pass took longer than a copy of the map.
    const LANES: usize = 32;
    let mut mins = [f32::INFINITY; LANES];
    let mut maxs = [f32::NEG_INFINITY; LANES];
    let blocks = chunk.chunks_exact(LANES);
    let rest = blocks.remainder();
    for block in blocks {
        for ((v, lo), hi) in block.iter().zip(&mut mins).zip(&mut maxs) {
            *lo = if *v < *lo { *v } else { *lo };
            *hi = if *v > *hi { *v } else { *hi };
        }
    }
    for ((v, lo), hi) in rest.iter().zip(&mut mins).zip(&mut maxs) {
        *lo = if *v < *lo { *v } else { *lo };
        *hi = if *v > *hi { *v } else { *hi };
    }
    let min = mins.iter().fold(f32::INFINITY, |a, &b| a.min(b));
    let max = maxs.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    (min, max)
}

/// Minimum, maximum and sum of one chunk. Compiled for AVX2 too; see
/// [`crate::simd`].
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn chunk_stats(chunk: &[f32]) -> (f32, f32, f64) {
    lane_extremes::<true>(chunk)
}

/// [`chunk_stats`] without target features, for the tests of [`crate::simd`].
#[cfg(test)]
fn chunk_stats_plain(chunk: &[f32]) -> (f32, f32, f64) {
    lane_extremes::<true>(chunk)
}

#[cfg(test)]
impl crate::simd::KernelChecks {
    /// Runs [`chunk_range`] and [`chunk_stats`] (the AVX2 copies where the CPU
    /// has AVX2) and their plain copies on random chunks of many lengths, and
    /// says where they differ in a single bit.
    pub(crate) fn chunk_range_and_stats(seed: u64) -> Result<(), String> {
        let mut rng = crate::rng::stage_rng(seed, 0);
        // The last: a whole `stats` chunk (2^16 cells) and three more.
        let lens = [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1000, 65_539];
        for (len, all_zero) in lens.into_iter().flat_map(|n| [(n, false), (n, true)]) {
            let mut chunk: Vec<f32> = (0..len)
                .map(|_| crate::rng::range_f32(&mut rng, -1000.0, 1000.0))
                .collect();
            // Exact zeros of both signs, where min/max lowerings could pick a
            // different zero: every fifth cell, or every cell.
            for k in (0..len).filter(|k| all_zero || k % 5 == 0) {
                chunk[k] = if k % 2 == 0 { 0.0 } else { -0.0 };
            }
            let (a, b) = (chunk_range(&chunk), chunk_range_plain(&chunk));
            if (a.0.to_bits(), a.1.to_bits()) != (b.0.to_bits(), b.1.to_bits()) {
                return Err(format!(
                    "chunk_range, seed {seed}, len {len}, all_zero {all_zero}: {a:?} vs plain {b:?}"
                ));
            }
            let (a, b) = (chunk_stats(&chunk), chunk_stats_plain(&chunk));
            if (a.0.to_bits(), a.1.to_bits(), a.2.to_bits())
                != (b.0.to_bits(), b.1.to_bits(), b.2.to_bits())
            {
                return Err(format!(
                    "chunk_stats, seed {seed}, len {len}, all_zero {all_zero}: {a:?} vs plain {b:?}"
                ));
            }
        }
        Ok(())
    }
}

/// Eight lanes of partial minima, maxima and (if `SUM`) sums break the
/// latency chains and vectorise; plain comparisons (cells are never NaN)
/// avoid `f32::min`'s NaN handling, which does not vectorise. Lane j sums
/// cells j, j + 8, … in order, a fixed order whatever the vector width.
/// This is the body of both kernels above.
#[inline(always)]
fn lane_extremes<const SUM: bool>(chunk: &[f32]) -> (f32, f32, f64) {
    let mut mins = [f32::INFINITY; 8];
    let mut maxs = [f32::NEG_INFINITY; 8];
    let mut sums = [0.0f64; 8];
    let mut take = |j: usize, v: f32| {
        mins[j] = if v < mins[j] { v } else { mins[j] };
        maxs[j] = if v > maxs[j] { v } else { maxs[j] };
        if SUM {
            sums[j] += v as f64;
        }
    };
    let lanes = chunk.chunks_exact(8);
    let rest = lanes.remainder();
    for lane in lanes {
        for (j, &v) in lane.iter().enumerate() {
            take(j, v);
        }
    }
    for (j, &v) in rest.iter().enumerate() {
        take(j, v);
    }
    let min = mins.iter().fold(f32::INFINITY, |a, &b| a.min(b));
    let max = maxs.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    (min, max, sums.iter().sum())
}
