//! Row-coherent 2D Perlin noise for the fBm and ridged stages.
//!
//! Same construction as the `noise` crate's Perlin (diagonal gradients,
//! quintic fade, hashed lattice, output scaled to about ±1), evaluated a
//! row at a time: the four corner gradients are looked up once per lattice
//! cell and the samples inside the cell run in a branch-free loop the
//! compiler vectorises. The crate evaluates every point from scratch
//! (hashing, f64, clamping) and is ~8x slower at 1025² fBm; see the
//! benches.

use crate::rng::StageRng;
use rand::RngCore;

/// One octave's lattice: a seeded permutation of 0..256.
#[derive(Clone)]
pub struct PerlinLattice {
    perm: [u8; 512],
}

const SCALE: f32 = 2.0 / std::f32::consts::SQRT_2;

#[inline(always)]
fn quintic(t: f32) -> f32 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

/// The diagonal gradient selected by a hash: (±1, ±1).
#[inline(always)]
fn gradient(hash: u8) -> (f32, f32) {
    match hash & 3 {
        0 => (1.0, 1.0),
        1 => (-1.0, 1.0),
        2 => (1.0, -1.0),
        _ => (-1.0, -1.0),
    }
}

impl PerlinLattice {
    /// A lattice shuffled from the stage's stream (Fisher–Yates).
    pub fn new(rng: &mut StageRng) -> Self {
        let mut p: [u8; 256] = std::array::from_fn(|i| i as u8);
        for i in (1..256).rev() {
            let j = (rng.next_u32() % (i as u32 + 1)) as usize;
            p.swap(i, j);
        }
        let mut perm = [0u8; 512];
        perm[..256].copy_from_slice(&p);
        perm[256..].copy_from_slice(&p);
        Self { perm }
    }

    #[inline(always)]
    fn hash(&self, ix: i64, iy: i64) -> u8 {
        let x = (ix & 255) as usize;
        let y = (iy & 255) as usize;
        self.perm[self.perm[x] as usize + y]
    }

    /// Noise at a single point (reference for the row path).
    pub fn sample(&self, x: f64, y: f64) -> f32 {
        let (ix, iy) = (x.floor() as i64, y.floor() as i64);
        let (fx, fy) = ((x - ix as f64) as f32, (y - iy as f64) as f32);
        let (g00, g10) = (gradient(self.hash(ix, iy)), gradient(self.hash(ix + 1, iy)));
        let (g01, g11) = (
            gradient(self.hash(ix, iy + 1)),
            gradient(self.hash(ix + 1, iy + 1)),
        );
        corner_blend([g00, g10, g01, g11], (fx, fy), (quintic(fx), quintic(fy)))
    }

    /// Writes noise at `(x0 + i·dx, y)` for every `i` into `out`.
    #[inline(always)]
    pub fn row(&self, out: &mut [f32], x0: f64, dx: f64, y: f64) {
        self.row_from(out, x0, dx, y, 0)
    }

    /// Writes noise at `(x0 + (start + i)·dx, y)` for every `i` into
    /// `out`: a row's cells from column `start` on, the same bits as a
    /// row from column 0 (a window of the world starts at its column).
    #[inline(always)]
    pub fn row_from(&self, out: &mut [f32], x0: f64, dx: f64, y: f64, start: usize) {
        let iy = y.floor() as i64;
        let fy = (y - iy as f64) as f32;
        let v = quintic(fy);
        let mut i = start;
        let end = start + out.len();
        while i < end {
            let x = x0 + i as f64 * dx;
            let ix = x.floor() as i64;
            // Samples up to the next lattice line share this cell.
            let end_x = (ix + 1) as f64;
            let mut count = (((end_x - x0) / dx).ceil() as usize)
                .saturating_sub(i)
                .max(1);
            count = count.min(end - i);
            let g00 = gradient(self.hash(ix, iy));
            let g10 = gradient(self.hash(ix + 1, iy));
            let g01 = gradient(self.hash(ix, iy + 1));
            let g11 = gradient(self.hash(ix + 1, iy + 1));
            let base = ix as f64;
            // Indices go through i32 (rows are far shorter than 2^31):
            // the same f64 values, but an i32 conversion vectorises where
            // a usize one does not.
            let first = i as i32;
            for (k, cell) in out[i - start..i - start + count].iter_mut().enumerate() {
                let fx = ((x0 + (first + k as i32) as f64 * dx) - base) as f32;
                *cell = corner_blend([g00, g10, g01, g11], (fx, fy), (quintic(fx), v));
            }
            i += count;
        }
    }
}

/// The four corners' gradients dotted with the offset (`fx`, `fy`) from
/// each, blended by the eased offset (`u`, `v`).
#[inline(always)]
fn corner_blend(
    [g00, g10, g01, g11]: [(f32, f32); 4],
    (fx, fy): (f32, f32),
    (u, v): (f32, f32),
) -> f32 {
    let n00 = g00.0 * fx + g00.1 * fy;
    let n10 = g10.0 * (fx - 1.0) + g10.1 * fy;
    let n01 = g01.0 * fx + g01.1 * (fy - 1.0);
    let n11 = g11.0 * (fx - 1.0) + g11.1 * (fy - 1.0);
    let a = n00 + u * (n10 - n00);
    let b = n01 + u * (n11 - n01);
    // Diagonal gradients can reach ±√2 after scaling; clamp like the
    // `noise` crate does so amplitudes mean the same thing.
    ((a + v * (b - a)) * SCALE).clamp(-1.0, 1.0)
}

/// Octave settings shared by fBm and ridged noise.
#[derive(Clone, Copy, Debug)]
pub struct Octaves {
    /// Number of octaves summed.
    pub count: u32,
    /// Frequency multiplier between octaves.
    pub lacunarity: f32,
    /// Amplitude multiplier between octaves.
    pub persistence: f32,
}

/// Fractal Brownian motion over one row: octaves summed with amplitudes
/// `persistence^i`, normalised by their sum to about ±1. Compiled for AVX2
/// too; see `simd.rs`.
#[multiversion::multiversion(targets("x86_64+avx2"))]
pub fn fbm_row(
    lattices: &[PerlinLattice],
    octaves: Octaves,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
    (x_scale, x_first): (f64, usize),
    y: f64,
) {
    fbm_row_body(lattices, octaves, out, scratch, (x_scale, x_first), y)
}

/// [`fbm_row`] without target features, for the tests of [`crate::simd`].
#[cfg(test)]
fn fbm_row_plain(
    lattices: &[PerlinLattice],
    octaves: Octaves,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
    (x_scale, x_first): (f64, usize),
    y: f64,
) {
    fbm_row_body(lattices, octaves, out, scratch, (x_scale, x_first), y)
}

#[inline(always)]
fn fbm_row_body(
    lattices: &[PerlinLattice],
    octaves: Octaves,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
    (x_scale, x_first): (f64, usize),
    y: f64,
) {
    scratch.resize(out.len(), 0.0);
    out.iter_mut().for_each(|v| *v = 0.0);
    let (mut freq, mut amp, mut norm) = (1.0f64, 1.0f32, 0.0f32);
    for lattice in lattices.iter().take(octaves.count as usize) {
        lattice.row_from(scratch, 0.0, x_scale * freq, y * freq, x_first);
        for (o, &n) in out.iter_mut().zip(scratch.iter()) {
            *o += n * amp;
        }
        norm += amp;
        amp *= octaves.persistence;
        freq *= octaves.lacunarity as f64;
    }
    if norm > 0.0 {
        let inv = 1.0 / norm;
        out.iter_mut().for_each(|v| *v *= inv);
    }
}

/// Ridged multifractal (Musgrave's, as in the `noise` crate): each octave
/// is `(1 - |n|)²` weighted by the previous octave, mapped to about ±1.
/// Compiled for AVX2 too; see `simd.rs`.
#[multiversion::multiversion(targets("x86_64+avx2"))]
pub fn ridged_row(
    lattices: &[PerlinLattice],
    octaves: Octaves,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
    weights: &mut Vec<f32>,
    (x_scale, x_first): (f64, usize),
    y: f64,
) {
    ridged_row_body(
        lattices,
        octaves,
        out,
        scratch,
        weights,
        (x_scale, x_first),
        y,
    )
}

/// [`ridged_row`] without target features, for the tests of [`crate::simd`].
#[cfg(test)]
fn ridged_row_plain(
    lattices: &[PerlinLattice],
    octaves: Octaves,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
    weights: &mut Vec<f32>,
    (x_scale, x_first): (f64, usize),
    y: f64,
) {
    ridged_row_body(
        lattices,
        octaves,
        out,
        scratch,
        weights,
        (x_scale, x_first),
        y,
    )
}

#[inline(always)]
fn ridged_row_body(
    lattices: &[PerlinLattice],
    octaves: Octaves,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
    weights: &mut Vec<f32>,
    (x_scale, x_first): (f64, usize),
    y: f64,
) {
    scratch.resize(out.len(), 0.0);
    weights.clear();
    weights.resize(out.len(), 1.0);
    out.iter_mut().for_each(|v| *v = 0.0);
    let (mut freq, mut amp, mut norm) = (1.0f64, 1.0f32, 0.0f32);
    for lattice in lattices.iter().take(octaves.count as usize) {
        lattice.row_from(scratch, 0.0, x_scale * freq, y * freq, x_first);
        for ((o, w), &n) in out.iter_mut().zip(weights.iter_mut()).zip(scratch.iter()) {
            let mut signal = 1.0 - n.abs();
            signal *= signal;
            signal *= *w;
            *w = (signal * 2.0).clamp(0.0, 1.0);
            *o += signal * amp;
        }
        norm += amp;
        amp *= octaves.persistence;
        freq *= octaves.lacunarity as f64;
    }
    if norm > 0.0 {
        let inv = 2.0 / norm;
        out.iter_mut().for_each(|v| *v = *v * inv - 1.0);
    }
}

#[cfg(test)]
impl crate::simd::KernelChecks {
    /// Runs [`fbm_row`] and [`ridged_row`] (the AVX2 copies where the CPU has
    /// it) and their plain copies on random lattices, octave settings and
    /// positions, rows of many widths, and says where they differ in a single
    /// bit.
    pub(crate) fn octave_rows(seed: u64) -> Result<(), String> {
        use crate::rng::{range_f32, stage_rng};
        let mut rng = stage_rng(seed, 2);
        let lattices: Vec<PerlinLattice> = (0..8).map(|_| PerlinLattice::new(&mut rng)).collect();
        for width in [1usize, 2, 3, 5, 7, 8, 9, 16, 17, 31, 100, 1025] {
            for _ in 0..4 {
                let octaves = Octaves {
                    count: 1 + (range_f32(&mut rng, 0.0, 8.0) as u32).min(7),
                    lacunarity: range_f32(&mut rng, 1.5, 3.0),
                    persistence: range_f32(&mut rng, 0.2, 0.8),
                };
                let x_scale = range_f32(&mut rng, 0.001, 0.5) as f64;
                let y = range_f32(&mut rng, -50.0, 50.0) as f64;
                let check = |what: &str, a: &[f32], b: &[f32]| match Self::first_difference(a, b) {
                    Some(x) => Err(format!(
                        "{what}, seed {seed}, width {width}, {octaves:?}, x_scale {x_scale}, \
                         y {y}, x {x}: {} vs plain {}",
                        a[x], b[x]
                    )),
                    None => Ok(()),
                };
                let (mut a, mut b) = (vec![0.0f32; width], vec![0.0f32; width]);
                let (mut scratch, mut weights) = (Vec::new(), Vec::new());
                fbm_row(&lattices, octaves, &mut a, &mut scratch, (x_scale, 0), y);
                fbm_row_plain(&lattices, octaves, &mut b, &mut scratch, (x_scale, 0), y);
                check("fbm_row", &a, &b)?;
                ridged_row(
                    &lattices,
                    octaves,
                    &mut a,
                    &mut scratch,
                    &mut weights,
                    (x_scale, 0),
                    y,
                );
                ridged_row_plain(
                    &lattices,
                    octaves,
                    &mut b,
                    &mut scratch,
                    &mut weights,
                    (x_scale, 0),
                    y,
                );
                check("ridged_row", &a, &b)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stage_rng;

    #[test]
    fn a_row_from_a_column_is_the_same_bits_as_the_whole_row() {
        let lattice = PerlinLattice::new(&mut stage_rng(8, 0));
        let (dx, y) = (3.0 / 1024.0 * 5.3, 11.7);
        let mut whole = vec![0.0f32; 700];
        lattice.row(&mut whole, 0.0, dx, y);
        for (first, len) in [(0, 1), (1, 5), (193, 200), (499, 201), (699, 1)] {
            let mut part = vec![0.0f32; len];
            lattice.row_from(&mut part, 0.0, dx, y, first);
            assert_eq!(part, whole[first..first + len], "from {first}");
        }
    }

    #[test]
    fn row_matches_point_samples() {
        let lattice = PerlinLattice::new(&mut stage_rng(5, 0));
        for &(x0, dx, y) in &[(0.0, 0.013, 3.7), (-2.5, 0.31, -1.2), (10.0, 1.7, 0.0)] {
            let mut row = vec![0.0; 300];
            lattice.row(&mut row, x0, dx, y);
            for (i, &v) in row.iter().enumerate() {
                let p = lattice.sample(x0 + i as f64 * dx, y);
                assert!((v - p).abs() < 1e-5, "i={i}: {v} vs {p}");
            }
        }
    }

    /// The octave sums (run through the AVX2 build where the CPU has it)
    /// against plain per-point sampling in the same order: bit for bit,
    /// so the bytes cannot depend on the machine.
    #[test]
    fn octave_rows_match_point_samples_exactly() {
        let mut rng = stage_rng(8, 0);
        let lattices: Vec<PerlinLattice> = (0..6).map(|_| PerlinLattice::new(&mut rng)).collect();
        let octaves = Octaves {
            count: 6,
            lacunarity: 2.0,
            persistence: 0.5,
        };
        let (x_scale, y) = (3.0 / 1025.0, 417.0 * 3.0 / 1025.0);
        let n = 1025;
        let (mut fbm, mut ridged) = (vec![0.0f32; n], vec![0.0f32; n]);
        let (mut scratch, mut weights) = (Vec::new(), Vec::new());
        fbm_row(&lattices, octaves, &mut fbm, &mut scratch, (x_scale, 0), y);
        ridged_row(
            &lattices,
            octaves,
            &mut ridged,
            &mut scratch,
            &mut weights,
            (x_scale, 0),
            y,
        );
        for i in 0..n {
            let (mut f, mut r, mut w) = (0.0f32, 0.0f32, 1.0f32);
            let (mut freq, mut amp, mut norm) = (1.0f64, 1.0f32, 0.0f32);
            for lattice in &lattices {
                let v = lattice.sample(i as f64 * (x_scale * freq), y * freq);
                f += v * amp;
                let mut signal = 1.0 - v.abs();
                signal *= signal;
                signal *= w;
                w = (signal * 2.0).clamp(0.0, 1.0);
                r += signal * amp;
                norm += amp;
                amp *= octaves.persistence;
                freq *= octaves.lacunarity as f64;
            }
            assert_eq!(fbm[i], f * (1.0 / norm), "fbm at {i}");
            assert_eq!(ridged[i], r * (2.0 / norm) - 1.0, "ridged at {i}");
        }
    }

    #[test]
    fn noise_is_zero_on_lattice_points_and_bounded() {
        let lattice = PerlinLattice::new(&mut stage_rng(6, 0));
        assert_eq!(lattice.sample(3.0, 4.0), 0.0);
        let mut row = vec![0.0; 4096];
        let mut max = 0.0f32;
        for y in 0..64 {
            lattice.row(&mut row, 0.0, 0.037, y as f64 * 0.29);
            max = row.iter().fold(max, |m, v| m.max(v.abs()));
        }
        assert!(max <= 1.0 && max > 0.5, "max {max}");
    }
}
