//! Portable seeded streams.
//!
//! Every stage draws from its own ChaCha8 stream derived from (recipe seed,
//! stage index), so disabling or editing one stage never reshuffles another.
//! Floats are built from raw `u32` words here rather than through `rand`'s
//! distributions, whose algorithms may change between releases: the bit
//! recipe is part of orogen's determinism contract.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Each stage's random stream: ChaCha8, bit-identical on every machine.
pub type StageRng = ChaCha8Rng;

/// The stream of stage `stage_index` under `seed`.
pub fn stage_rng(seed: u64, stage_index: usize) -> StageRng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stage_index as u64 + 1);
    rng
}

/// Uniform in `[0, 1)` with 24 bits of precision.
#[inline]
pub fn unit_f32(rng: &mut StageRng) -> f32 {
    unit_from_word(rng.next_u32())
}

/// [`unit_f32`] of a word already drawn (for bulk fills).
#[inline]
pub fn unit_from_word(word: u32) -> f32 {
    // Through i32, the same value (24 bits fit either way): x86 vectors
    // convert signed integers to floats in one instruction, unsigned ones
    // only in a longer sequence that kept bulk fills scalar.
    ((word >> 8) as i32) as f32 * (1.0 / 16_777_216.0)
}

/// Uniform in `[low, high)`.
#[inline]
pub fn range_f32(rng: &mut StageRng, low: f32, high: f32) -> f32 {
    low + (high - low) * unit_f32(rng)
}

/// A copy of `rng` positioned at `word`: lets rows of a stage draw their
/// own sub-streams in parallel yet produce the same numbers as a serial run.
pub fn at_word(rng: &StageRng, word: u128) -> StageRng {
    let mut r = rng.clone();
    r.set_word_pos(word);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_per_stage_and_repeat_per_seed() {
        let a: Vec<u32> = (0..4).map(|_| stage_rng(7, 0).next_u32()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(stage_rng(7, 0).next_u32(), stage_rng(7, 1).next_u32());
        assert_ne!(stage_rng(7, 0).next_u32(), stage_rng(8, 0).next_u32());
    }

    #[test]
    fn unit_stays_below_one() {
        let mut rng = stage_rng(1, 0);
        for _ in 0..10_000 {
            let u = unit_f32(&mut rng);
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn word_position_seeks() {
        let base = stage_rng(3, 2);
        let mut serial = base.clone();
        for _ in 0..10 {
            serial.next_u32();
        }
        let mut seeked = at_word(&base, 10);
        assert_eq!(serial.next_u32(), seeked.next_u32());
    }
}
