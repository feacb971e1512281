//! Diamond-square as defined (ALGORITHMS §5), point by point and serially:
//! the readable version of the row-parallel lattice in the parent module,
//! and its oracle (the tests require the same bits).

use super::{DiamondSquare, at_least};
use crate::place_rng::{LatticePlace, PlaceKey};
use crate::rng::{stage_rng, unit_from_word};

/// Diamond-square written point by point from its definition, serially:
/// the point at (x, y) set at `level` takes the random word of its place,
/// level and world lattice coordinate (x, y)·2^(14 − k) (levels from 14
/// on, of lattices finer than 2^14, on the 2^16 lattice); square points
/// wrap across the border; border twins are copied after each level. `n`
/// is the lattice side, `2^k + 1`.
pub fn lattice(ds: &DiamondSquare, n: usize, seed: u64) -> Vec<f32> {
    let key = PlaceKey::of_stage(&stage_rng(seed, 0));
    let period = n - 1;
    let place = LatticePlace::of_period(period);
    let word = |level: usize, x: usize, y: usize| {
        let level = level as u32;
        key.word(
            level,
            place.coordinate(level, x),
            place.coordinate(level, y),
        )
    };
    let mut g = vec![0.0f32; n * n];
    for (x, y) in [(0, 0), (period, 0), (0, period), (period, period)] {
        g[y * n + x] = at_least(ds.base, ds.value_floor());
    }
    let (mut range, mut step, mut level) = (1.0f32, period, 0);
    while step > 1 {
        let half = step / 2;
        let scale = range * ds.extent;
        let offset = |word: u32| (unit_from_word(word) - 0.5) * scale;
        // A new value is clamped when computed, before anything reads it.
        let new_value = |sum: f32, word: u32| at_least(sum * 0.25 + offset(word), ds.value_floor());
        for y in (half..n).step_by(step) {
            for x in (half..n).step_by(step) {
                let sum = g[(y - half) * n + x - half]
                    + g[(y - half) * n + x + half]
                    + g[(y + half) * n + x - half]
                    + g[(y + half) * n + x + half];
                g[y * n + x] = new_value(sum, word(level, x, y));
            }
        }
        let first_column = |y: usize| {
            if (y / half).is_multiple_of(2) {
                half
            } else {
                0
            }
        };
        let before = g.clone();
        for y in (0..n).step_by(half) {
            let first = first_column(y);
            let (up, down) = ((y + period - half) % period, (y + half) % period);
            for x in (first..n).step_by(step) {
                let (left, right) = ((x + period - half) % period, (x + half) % period);
                let sum = before[up * n + x]
                    + before[down * n + x]
                    + before[y * n + left]
                    + before[y * n + right];
                g[y * n + x] = new_value(sum, word(level, x, y));
            }
        }
        for y in (0..n).step_by(half) {
            if first_column(y) == 0 {
                g[y * n + period] = g[y * n];
            }
        }
        for x in (half..n).step_by(step) {
            g[period * n + x] = g[x];
        }
        range *= 0.5f32.powf(ds.roughness);
        step = half;
        level += 1;
    }
    g
}
