//! Coherent noise via the `noise` crate, blended into the map.

use super::combine::{COMBINE_HELP, Combine};
use super::perlin::{Octaves, PerlinLattice, fbm_row, ridged_row};
use super::{StageContext, StageError, StageOp, row_is_finite};
use crate::heightmap::Heightmap;
use crate::params::{Choice, ParamVisitor, Params, visit_choice};
use noise::{NoiseFn, OpenSimplex, Seedable, Worley};
use rand::RngCore;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};

/// The coherent noise function a noise stage evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoiseKind {
    /// Single-octave Perlin gradient noise.
    Perlin,
    /// OpenSimplex gradient noise (the `noise` crate's).
    OpenSimplex,
    /// Fractal Brownian motion: octaves of Perlin noise summed.
    Fbm,
    /// Ridged multifractal: octaves of folded Perlin noise giving sharp crests.
    Ridged,
    /// Worley (cellular) noise: a random value per cell around feature points.
    Worley,
}

impl Choice for NoiseKind {
    const ALL: &'static [Self] = &[
        NoiseKind::Perlin,
        NoiseKind::OpenSimplex,
        NoiseKind::Fbm,
        NoiseKind::Ridged,
        NoiseKind::Worley,
    ];
    fn label(self) -> &'static str {
        match self {
            NoiseKind::Perlin => "Perlin",
            NoiseKind::OpenSimplex => "OpenSimplex",
            NoiseKind::Fbm => "fBm",
            NoiseKind::Ridged => "Ridged multifractal",
            NoiseKind::Worley => "Worley",
        }
    }
}

/// Noise stage: coherent noise, scaled and offset, merged into the map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoiseStage {
    /// Which noise function.
    pub kind: NoiseKind,
    /// Cycles across the map's longer side.
    pub frequency: f32,
    /// Layers of detail, 1..=16 (fBm and ridged only).
    pub octaves: u32,
    /// Frequency multiplier between octaves, 1..=4.
    pub lacunarity: f32,
    /// Amplitude multiplier between octaves, 0..=1.
    pub persistence: f32,
    /// Noise (about -1..1) is multiplied by this...
    pub amplitude: f32,
    /// ...and this is added.
    pub offset: f32,
    /// How the noise layer merges with the map so far.
    pub combine: Combine,
}

impl Default for NoiseStage {
    fn default() -> Self {
        Self {
            kind: NoiseKind::Fbm,
            frequency: 4.0,
            octaves: 6,
            lacunarity: 2.0,
            persistence: 0.5,
            amplitude: 40.0,
            offset: 0.0,
            combine: Combine::Add,
        }
    }
}

impl Params for NoiseStage {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        visit_choice(v, "kind", &mut self.kind, "Which noise function.");
        v.float(
            "frequency",
            &mut self.frequency,
            0.01..=512.0,
            "Base frequency: cycles across the world's longer side (any map size shows the same features).",
        );
        v.int(
            "octaves",
            &mut self.octaves,
            1..=16,
            "Layers of detail (fBm and ridged only).",
        );
        v.float(
            "lacunarity",
            &mut self.lacunarity,
            1.0..=4.0,
            "Frequency multiplier between octaves.",
        );
        v.float(
            "persistence",
            &mut self.persistence,
            0.0..=1.0,
            "Amplitude multiplier between octaves.",
        );
        v.float(
            "amplitude",
            &mut self.amplitude,
            -100_000.0..=100_000.0,
            "Height of the noise (it ranges about ±1 before this).",
        );
        v.float(
            "offset",
            &mut self.offset,
            -100_000.0..=100_000.0,
            "Added to every noise value.",
        );
        visit_choice(v, "combine", &mut self.combine, COMBINE_HELP);
    }
}

/// The kinds evaluated cell by cell through the `noise` crate (orogen
/// evaluates Perlin, fBm and ridged row-wise itself, see `perlin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CrateNoise {
    OpenSimplex,
    Worley,
}

impl CrateNoise {
    fn function(self, seed: u32) -> Box<dyn NoiseFn<f64, 2>> {
        match self {
            CrateNoise::OpenSimplex => Box::new(OpenSimplex::new(seed)),
            CrateNoise::Worley => Box::new(Worley::new(seed).set_seed(seed)),
        }
    }
}

impl NoiseStage {
    fn octaves(&self) -> Octaves {
        Octaves {
            count: match self.kind {
                NoiseKind::Perlin => 1,
                _ => self.octaves,
            },
            lacunarity: self.lacunarity,
            persistence: self.persistence,
        }
    }
}

impl StageOp for NoiseStage {
    fn discards_input(&self) -> bool {
        self.combine == Combine::Replace
    }

    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        let width = map.width();
        // Cycles across the world's longer side, whose far edge is cell
        // `max(w, h) − 1` of the whole map: the same world point gets the
        // same noise at any sampling, and a window the whole map's values.
        let window = ctx.window_of(map);
        let scale = self.frequency as f64 / (window.world_longer_side().max(2) - 1) as f64;
        let (x_first, y_first) = (window.window.x, window.window.y);
        let (amplitude, offset, combine) = (self.amplitude, self.offset, self.combine);
        // Rows with a non-finite cell (an overflow), noted as each row is
        // finished, so the pipeline need not scan the map again.
        let overflowed = AtomicBool::new(false);
        let finish = |row: &mut [f32], noise: &[f32]| {
            for (cell, &n) in row.iter_mut().zip(noise) {
                *cell = combine.apply(*cell, n * amplitude + offset);
            }
            if !row_is_finite(row) {
                overflowed.store(true, Ordering::Relaxed);
            }
        };
        // Every kind named: a new kind must say how it is evaluated.
        let crate_noise = match self.kind {
            NoiseKind::Perlin | NoiseKind::Fbm | NoiseKind::Ridged => None,
            NoiseKind::OpenSimplex => Some(CrateNoise::OpenSimplex),
            NoiseKind::Worley => Some(CrateNoise::Worley),
        };
        match crate_noise {
            None => {
                let octaves = self.octaves();
                let lattices: Vec<PerlinLattice> = (0..octaves.count)
                    .map(|_| PerlinLattice::new(&mut ctx.rng))
                    .collect();
                let ridged = self.kind == NoiseKind::Ridged;
                map.data_mut()
                    .par_chunks_mut(width)
                    .enumerate()
                    .for_each_init(
                        || (vec![0.0f32; width], Vec::new(), Vec::new()),
                        |(noise, scratch, weights), (y, row)| {
                            let py = (y_first + y) as f64 * scale;
                            let x = (scale, x_first);
                            if ridged {
                                ridged_row(&lattices, octaves, noise, scratch, weights, x, py);
                            } else {
                                fbm_row(&lattices, octaves, noise, scratch, x, py);
                            }
                            finish(row, noise);
                        },
                    );
            }
            Some(noise) => {
                // Worley holds an `Rc`, so each worker builds its own.
                let seed = ctx.rng.next_u32();
                map.data_mut()
                    .par_chunks_mut(width)
                    .enumerate()
                    .for_each_init(
                        || (vec![0.0f32; width], noise.function(seed)),
                        |(noise, function), (y, row)| {
                            let py = (y_first + y) as f64 * scale;
                            for (x, n) in noise.iter_mut().enumerate() {
                                *n = function.get([(x_first + x) as f64 * scale, py]) as f32;
                            }
                            finish(row, noise);
                        },
                    );
            }
        }
        ctx.output_finite = Some(!overflowed.load(Ordering::Relaxed));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stage_rng;

    /// OpenSimplex and Worley each come from their own `noise` function:
    /// the stage's cells equal that function evaluated directly.
    #[test]
    fn crate_kinds_evaluate_their_own_function() {
        for (kind, noise) in [
            (NoiseKind::OpenSimplex, CrateNoise::OpenSimplex),
            (NoiseKind::Worley, CrateNoise::Worley),
        ] {
            let stage = NoiseStage {
                kind,
                amplitude: 1.0,
                offset: 0.0,
                combine: Combine::Add,
                ..NoiseStage::default()
            };
            let mut map = Heightmap::new(17, 9);
            let mut ctx = StageContext::new(stage_rng(5, 0));
            stage.apply(&mut map, &mut ctx).expect("noise runs");
            let seed = stage_rng(5, 0).next_u32();
            let function = noise.function(seed);
            let scale = stage.frequency as f64 / 16.0;
            for (x, y) in [(0, 0), (3, 4), (16, 8)] {
                let want = function.get([x as f64 * scale, y as f64 * scale]) as f32;
                assert_eq!(map.get(x, y), want, "{kind:?} at ({x},{y})");
            }
        }
    }
}
