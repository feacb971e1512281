//! Thermal erosion: material on slopes steeper than the talus angle slides
//! to lower neighbours.
//!
//! Each iteration computes, for every cell, the net flow with its four
//! neighbours from the previous iteration's heights only (a gather, so
//! rows run in parallel with identical results for any thread count). The
//! flow between two cells is antisymmetric, so material is conserved up to
//! float rounding.

use super::{Progress, ProgressValue, StageContext, StageError, StageOp};
use crate::heightmap::Heightmap;
use crate::params::{ParamVisitor, Params};
use crate::world_window::WorldWindow;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Thermal erosion stage: slopes steeper than the talus angle shed material.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThermalErosion {
    /// Slopes steeper than this (degrees) shed material.
    pub talus_angle: f32,
    /// Fraction of the excess moved per iteration.
    pub amount: f32,
    /// How many times material is moved, 0..=5000.
    pub iterations: u32,
}

impl Default for ThermalErosion {
    fn default() -> Self {
        Self {
            talus_angle: 35.0,
            amount: 0.5,
            iterations: 50,
        }
    }
}

impl Params for ThermalErosion {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.float(
            "talus_angle",
            &mut self.talus_angle,
            0.0..=89.0,
            "Slopes steeper than this angle (degrees) shed material downhill.",
        );
        v.float(
            "amount",
            &mut self.amount,
            0.0..=1.0,
            "Fraction of the excess height moved per iteration (1 = fastest, still stable).",
        );
        v.int(
            "iterations",
            &mut self.iterations,
            0..=5000,
            "How many times material is moved. Step through them in the stage-by-stage view.",
        );
    }
}

impl ThermalErosion {
    /// One iteration from `src` into `dst`.
    pub fn step(src: &Heightmap, dst: &mut Heightmap, talus: f32, rate: f32) {
        let (w, h) = (src.width(), src.height());
        let data = src.data();
        dst.data_mut()
            .par_chunks_mut(w)
            .enumerate()
            .for_each(|(y, out)| {
                let row = &data[y * w..(y + 1) * w];
                let up = &data[y.saturating_sub(1) * w..][..w];
                let down = &data[(y + 1).min(h - 1) * w..][..w];
                let flow =
                    |hc: f32, hn: f32| (hn - hc - talus).max(0.0) - (hc - hn - talus).max(0.0);
                // At the borders a missing neighbour is the cell itself:
                // no flow.
                let cell = |x: usize, left: f32, right: f32| {
                    let hc = row[x];
                    let net =
                        flow(hc, left) + flow(hc, right) + flow(hc, up[x]) + flow(hc, down[x]);
                    hc + rate * net
                };
                if w < 3 {
                    for (x, o) in out.iter_mut().enumerate() {
                        *o = cell(x, row[x.saturating_sub(1)], row[(x + 1).min(w - 1)]);
                    }
                    return;
                }
                out[0] = cell(0, row[0], row[1]);
                out[w - 1] = cell(w - 1, row[w - 2], row[w - 1]);
                // Interior cells: zipped slices, no index arithmetic, so the
                // loop vectorises.
                let interior = out[1..w - 1]
                    .iter_mut()
                    .zip(row.windows(3))
                    .zip(up[1..w - 1].iter().zip(&down[1..w - 1]));
                for ((o, lcr), (&u, &d)) in interior {
                    let hc = lcr[1];
                    let net = flow(hc, lcr[0]) + flow(hc, lcr[2]) + flow(hc, u) + flow(hc, d);
                    *o = hc + rate * net;
                }
            });
    }
}

impl StageOp for ThermalErosion {
    fn moves_material(&self) -> bool {
        true
    }

    fn progress(&mut self) -> Option<Progress<'_>> {
        Some(Progress {
            label: "thermal erosion iterations",
            help: "Watch the erosion progress: the stage re-runs with this many iterations.",
            value: ProgressValue::Count(&mut self.iterations),
            range: 0.0..=5000.0,
            click_share: 0.0,
            note: None,
        })
    }

    /// Each iteration reads the four neighbours only: a window is exact
    /// from a halo one cell wider per iteration.
    fn input_window(&self, output: &WorldWindow, _: f32) -> WorldWindow {
        let halo = self.iterations as usize;
        output.grown(halo, halo, halo, halo)
    }

    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        let talus = self.talus_angle.to_radians().tan() * ctx.cell_size;
        // Each cell trades with 4 neighbours; a pair moves half the excess
        // at amount = 1, so 1/8 per pair keeps the scheme stable.
        let rate = self.amount * 0.125;
        let mut next = map.clone();
        for _ in 0..self.iterations {
            Self::step(map, &mut next, talus, rate);
            std::mem::swap(map, &mut next);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stage_rng;

    #[test]
    fn a_spike_slumps_and_material_is_conserved() {
        let mut map = Heightmap::new(21, 21);
        map.set(10, 10, 100.0);
        let before: f64 = map.data().iter().map(|&v| v as f64).sum();
        let stage = ThermalErosion {
            talus_angle: 30.0,
            amount: 1.0,
            iterations: 200,
        };
        stage
            .apply(&mut map, &mut StageContext::new(stage_rng(0, 0)))
            .unwrap();
        let after: f64 = map.data().iter().map(|&v| v as f64).sum();
        assert!((before - after).abs() < 1e-3, "{before} vs {after}");
        assert!(map.get(10, 10) < 20.0);
        assert!(map.get(11, 10) > 1.0);
        // Nothing steeper than the talus slope (plus a small margin) remains.
        let talus = 30f32.to_radians().tan();
        for y in 0..21 {
            for x in 0..20 {
                assert!((map.get(x, y) - map.get(x + 1, y)).abs() < talus + 1.0);
            }
        }
    }
}
