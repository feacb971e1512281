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

/// Levels of the world lattice: its side is `2^WORLD_LEVELS + 1`.
pub const WORLD_LEVELS: u32 = 14;
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
        let place = ((level as u64) << 40) | ((x as u64) << 20) | y as u64;
        (mix64(self.0 ^ mix64(place)) >> 32) as u32
    }
}

/// The SplitMix64 finaliser (Stafford's mix 13): every input bit affects
/// every output bit, so neighbouring places get unrelated values.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
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
    fn power_of_two_sides_share_coordinates() {
        let (fine, coarse) = (world_steps_per_cell(1025), world_steps_per_cell(257));
        for i in 0..257 {
            assert_eq!(world_coordinate(4 * i, fine), world_coordinate(i, coarse));
        }
        assert_eq!(world_coordinate(1024, fine), WORLD_SPAN);
    }
}
