//! Random numbers keyed by place: a counter-based generator.
//!
//! A value comes from a strong integer hash of (stage key, level, world
//! lattice coordinate), not from a position in a sequential stream. The
//! world lattice is the finest orogen samples, 2^14 + 1 points along the
//! extent's longer side, so a point has the same coordinate, and the same
//! random value, at every map size that samples it: a 257² map's points
//! are every fourth of a 1025² map's. Any window of the world can be
//! computed alone, in any order, on any thread count.

use crate::rng::StageRng;
use rand::RngCore;

/// Levels of the key lattice: its side is `2^WORLD_LEVELS + 1`. Keys of
/// lattice levels below this (and random values of worlds up to
/// `2^WORLD_LEVELS + 1` cells a side) are keyed on it.
pub const WORLD_LEVELS: u32 = 14;
/// Levels of the finest world lattice a world can have (65537 a side).
/// Its points at levels below [`WORLD_LEVELS`] sit on the key lattice and
/// keep their keys there, so worlds up to 16385 a side keep their values;
/// the finer levels are keyed by their coordinate on this lattice (their
/// level tells them apart).
pub const FINE_LEVELS: u32 = 16;
/// Points along the longer side of the world lattice, minus one.
pub const WORLD_SPAN: u32 = 1 << WORLD_LEVELS;

/// One stage's key: the first word of its stream, so each stage (and
/// seed) gets its own values and disabling a stage reshuffles no other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaceKey(u64);

impl PlaceKey {
    /// The key of the stage whose stream is `rng`.
    pub fn of_stage(rng: &StageRng) -> Self {
        Self(rng.clone().next_u64())
    }

    /// The random word of world lattice point (`x`, `y`) at `level`
    /// (`x`, `y` ≤ 2^20; levels below 2^24).
    #[inline]
    pub fn word(self, level: u32, x: u32, y: u32) -> u32 {
        let (a, b) = self.row_seeds(level, y);
        point_word(x, (a, b))
    }

    /// The two seeds of row `y` at `level`: everything of a word that does
    /// not depend on `x`, hashed once per row.
    #[inline]
    fn row_seeds(self, level: u32, y: u32) -> (u32, u32) {
        let (low, high) = (self.0 as u32, (self.0 >> 32) as u32);
        let a = lowbias32(lowbias32(level ^ low) ^ y);
        (a, lowbias32(a ^ high))
    }
}

/// The word of column `x` in a row with seeds `(a, b)`: two rounds, so
/// two rows' words are unrelated (with one, `hash(x ^ a)`, another row
/// would hold the same values in a shuffled order).
#[inline(always)]
fn point_word(x: u32, (a, b): (u32, u32)) -> u32 {
    lowbias32(lowbias32(x ^ a) ^ b)
}

impl PlaceKey {
    /// The words of a row of world lattice points: `out[k]` is
    /// `self.word(level, x0 + k·dx, y)`, the same bits, computed in a loop
    /// that vectorises (the 64-bit multiplies run four lanes at a time
    /// under AVX2) where a call per point stays scalar.
    pub fn row_words(self, level: u32, (x0, dx): (u32, u32), y: u32, out: &mut [u32]) {
        row_words(self.row_seeds(level, y), (x0, dx), out)
    }
}

/// Where the points of a `2^k + 1` lattice (`k` ≤ [`FINE_LEVELS`]) sit
/// on the world lattice: the coordinate a point's key takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatticePlace {
    /// Lattice index `i` is fine-lattice coordinate `i << shift`.
    shift: u32,
}

impl LatticePlace {
    /// The place of a lattice whose side is `period + 1` (a power of two
    /// up to `2^FINE_LEVELS`).
    pub fn of_period(period: usize) -> Self {
        Self {
            shift: FINE_LEVELS - period.trailing_zeros().min(FINE_LEVELS),
        }
    }

    /// The key coordinate of lattice index `i` for a point set at `level`:
    /// on the key lattice for the coarse levels (the same coordinate as
    /// before finer worlds existed), on the fine lattice for the others.
    #[inline]
    pub fn coordinate(self, level: u32, i: usize) -> u32 {
        let fine = (i << self.shift) as u32;
        if level < WORLD_LEVELS {
            fine >> (FINE_LEVELS - WORLD_LEVELS)
        } else {
            fine
        }
    }
}

/// The random word of a world cell `(ix, iy)` in a world whose longer side
/// has `cells` cells: worlds up to `2^WORLD_LEVELS + 1` a side key a cell
/// by its rounded coordinate on the key lattice (as they always have);
/// finer worlds by their coordinate on the fine lattice, reusing the key
/// lattice's word wherever the cell sits on it (so a 32769² world shares
/// every other cell with the 16385² one) and a level of its own elsewhere.
pub fn cell_word(key: PlaceKey, level: u32, (ix, iy): (usize, usize), cells: usize) -> u32 {
    if cells <= WORLD_SPAN as usize + 1 {
        let steps = world_steps_per_cell(cells);
        return key.word(
            level,
            world_coordinate(ix, steps),
            world_coordinate(iy, steps),
        );
    }
    let steps = (1u64 << FINE_LEVELS) as f64 / (cells - 1) as f64;
    let (fx, fy) = (world_coordinate(ix, steps), world_coordinate(iy, steps));
    let ratio = 1 << (FINE_LEVELS - WORLD_LEVELS);
    if fx % ratio == 0 && fy % ratio == 0 {
        key.word(level, fx / ratio, fy / ratio)
    } else {
        key.word(level + FINE_CELL_LEVEL, fx, fy)
    }
}

/// Added to the level of a fine world's cells that are off the key
/// lattice: far above any lattice level, so their words are their own.
const FINE_CELL_LEVEL: u32 = 1 << 20;

#[multiversion::multiversion(targets("x86_64+avx2"))]
fn row_words(seeds: (u32, u32), (x0, dx): (u32, u32), out: &mut [u32]) {
    row_words_body(seeds, (x0, dx), out)
}

/// [`row_words`] without target features, for the tests of [`crate::simd`].
#[cfg(test)]
fn row_words_plain(seeds: (u32, u32), (x0, dx): (u32, u32), out: &mut [u32]) {
    row_words_body(seeds, (x0, dx), out)
}

#[inline(always)]
fn row_words_body(seeds: (u32, u32), (x0, dx): (u32, u32), out: &mut [u32]) {
    let mut x = x0;
    for word in out.iter_mut() {
        *word = point_word(x, seeds);
        x = x.wrapping_add(dx);
    }
}

#[cfg(test)]
impl crate::simd::KernelChecks {
    /// [`row_words`] (the AVX2 copy where the CPU has it) against its plain
    /// copy and against [`PlaceKey::word`] point by point.
    pub(crate) fn row_words(seed: u64) -> Result<(), String> {
        let key = PlaceKey::of_stage(&crate::rng::stage_rng(seed, 3));
        for len in [0usize, 1, 3, 4, 5, 8, 9, 31, 257] {
            for (level, x0, dx, y) in [(0, 0, 1, 0), (3, 5, 8, 77), (13, 1 << 19, 1 << 14, 1 << 20)]
            {
                let (mut a, mut b) = (vec![0u32; len], vec![0u32; len]);
                let seeds = key.row_seeds(level, y);
                row_words(seeds, (x0, dx), &mut a);
                row_words_plain(seeds, (x0, dx), &mut b);
                for k in 0..len {
                    let x = x0.wrapping_add(k as u32 * dx);
                    let expected = key.word(level, x, y);
                    if a[k] != expected || b[k] != expected {
                        return Err(format!(
                            "row_words, seed {seed}, level {level}, x {x}, y {y}: {} / plain {} vs word {expected}",
                            a[k], b[k]
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Chris Wellons's `lowbias32` integer hash (from his hash prospector):
/// every input bit affects every output bit with a bias near the best
/// known for two multiplies, so neighbouring places get unrelated values.
/// 32-bit on purpose: its multiplies run eight lanes at a time under AVX2,
/// where a 64-bit mix needs three multiplies per lane of four (it made
/// hashing a third of diamond-square's time).
#[inline(always)]
fn lowbias32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// How many world lattice steps one cell of a map spans, when the map's
/// side along the extent's longer side has `cells` cells: exact (a power
/// of two) for sides of `2^k + 1`.
pub fn world_steps_per_cell(cells: usize) -> f64 {
    WORLD_SPAN as f64 / (cells.max(2) - 1) as f64
}

/// The world lattice coordinate of cell index `i`, `steps` lattice steps
/// per cell (see [`world_steps_per_cell`]).
#[inline]
pub fn world_coordinate(i: usize, steps: f64) -> u32 {
    (i as f64 * steps).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stage_rng, unit_from_word};

    #[test]
    fn same_place_same_word_and_neighbours_differ() {
        let key = PlaceKey::of_stage(&stage_rng(5, 2));
        assert_eq!(key.word(3, 100, 200), key.word(3, 100, 200));
        assert_ne!(key.word(3, 100, 200), key.word(3, 101, 200));
        assert_ne!(key.word(3, 100, 200), key.word(3, 100, 201));
        assert_ne!(key.word(3, 100, 200), key.word(4, 100, 200));
        let other = PlaceKey::of_stage(&stage_rng(5, 3));
        assert_ne!(key.word(3, 100, 200), other.word(3, 100, 200));
    }

    #[test]
    fn words_are_uniform_over_a_grid() {
        // 65,536 neighbouring places: mean near 1/2, each tenth of [0, 1)
        // holds about a tenth, and a value is uncorrelated with its
        // east neighbour.
        let key = PlaceKey::of_stage(&stage_rng(9, 0));
        let values: Vec<f64> = (0..256u32)
            .flat_map(|y| (0..256u32).map(move |x| unit_from_word(key.word(0, x, y)) as f64))
            .collect();
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
        let mut bins = [0usize; 10];
        for v in &values {
            bins[(v * 10.0) as usize] += 1;
        }
        for b in bins {
            assert!((b as f64 / n - 0.1).abs() < 0.006, "bins {bins:?}");
        }
        let pairs: Vec<(f64, f64)> = values
            .chunks_exact(256)
            .flat_map(|row| row.windows(2).map(|w| (w[0], w[1])))
            .collect();
        let cov = pairs
            .iter()
            .map(|(a, b)| (a - 0.5) * (b - 0.5))
            .sum::<f64>()
            / pairs.len() as f64;
        assert!(
            (cov / (1.0 / 12.0)).abs() < 0.02,
            "neighbour correlation {}",
            cov * 12.0
        );
    }

    #[test]
    fn fine_worlds_share_the_key_lattice_cells() {
        let key = PlaceKey::of_stage(&stage_rng(3, 1));
        for (ix, iy) in [(0, 0), (5, 9), (16384, 16384), (1234, 77)] {
            let coarse = cell_word(key, 0, (ix, iy), 16385);
            assert_eq!(cell_word(key, 0, (2 * ix, 2 * iy), 32769), coarse);
            assert_eq!(cell_word(key, 0, (4 * ix, 4 * iy), 65537), coarse);
        }
        // Cells between the key lattice's points have words of their own.
        let a = cell_word(key, 0, (1, 0), 32769);
        assert_ne!(a, cell_word(key, 0, (0, 0), 32769));
        assert_ne!(a, cell_word(key, 0, (2, 0), 32769));
        let place = LatticePlace::of_period(1 << 16);
        assert_eq!(place.coordinate(3, 8), 2);
        assert_eq!(place.coordinate(15, 9), 9);
        assert_eq!(LatticePlace::of_period(512).coordinate(2, 3), 3 << 5);
    }

    #[test]
    fn power_of_two_sides_share_coordinates() {
        let (fine, coarse) = (world_steps_per_cell(1025), world_steps_per_cell(257));
        for i in 0..257 {
            assert_eq!(world_coordinate(4 * i, fine), world_coordinate(i, coarse));
        }
        assert_eq!(world_coordinate(1024, fine), WORLD_SPAN);
    }
}
