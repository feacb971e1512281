//! Diamond-square as defined (ALGORITHMS §5), point by point and serially:
//! the readable version of the row-parallel lattice in the parent module,
//! and its oracle (the tests require the same bits).

use super::{DiamondSquare, at_least};
use crate::rng::{at_word, stage_rng, unit_from_word};
use rand::RngCore;

/// Diamond-square written point by point from its definition, serially:
/// each (level, phase, row) draws its words from its own position of the
/// stage stream (word `((level·2 + phase)·n + y)·n`), point k of a row
/// taking word k; square points wrap across the border; border twins are
/// copied after each level. `n` is the lattice side, `2^k + 1`.
pub fn lattice(ds: &DiamondSquare, n: usize, seed: u64) -> Vec<f32> {
    let rng = stage_rng(seed, 0);
    let period = n - 1;
    let mut g = vec![0.0f32; n * n];
    for (x, y) in [(0, 0), (period, 0), (0, period), (period, period)] {
        g[y * n + x] = at_least(ds.base, ds.value_floor());
    }
    let row_words = |level: usize, phase: usize, y: usize| -> Vec<u32> {
        let mut r = at_word(&rng, (((level * 2 + phase) * n + y) * n) as u128);
        (0..n).map(|_| r.next_u32()).collect()
    };
    let (mut range, mut step, mut level) = (1.0f32, period, 0);
    while step > 1 {
        let half = step / 2;
        let scale = range * ds.extent;
        let offset = |word: u32| (unit_from_word(word) - 0.5) * scale;
        // A new value is clamped when computed, before anything reads it.
        let new_value = |sum: f32, word: u32| at_least(sum * 0.25 + offset(word), ds.value_floor());
        for y in (half..n).step_by(step) {
            let words = row_words(level, 0, y);
            for x in (half..n).step_by(step) {
                let sum = g[(y - half) * n + x - half]
                    + g[(y - half) * n + x + half]
                    + g[(y + half) * n + x - half]
                    + g[(y + half) * n + x + half];
                g[y * n + x] = new_value(sum, words[(x - half) / step]);
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
            let words = row_words(level, 1, y);
            let first = first_column(y);
            let (up, down) = ((y + period - half) % period, (y + half) % period);
            for x in (first..n).step_by(step) {
                let (left, right) = ((x + period - half) % period, (x + half) % period);
                let sum = before[up * n + x]
                    + before[down * n + x]
                    + before[y * n + left]
                    + before[y * n + right];
                g[y * n + x] = new_value(sum, words[(x - first) / step]);
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
