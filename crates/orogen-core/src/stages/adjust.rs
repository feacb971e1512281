//! Height adjustments: clamp, normalize, terrace.

use super::{StageContext, StageError, StageOp};
use crate::heightmap::Heightmap;
use crate::params::{ParamVisitor, Params, Span};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

const HEIGHT_RANGE: std::ops::RangeInclusive<f32> = -1_000_000.0..=1_000_000.0;

/// Stage that limits heights to a range (`min = 0`: negatives to 0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clamp {
    /// Allowed heights in world units; values outside become the nearer end.
    pub range: Span,
}

impl Default for Clamp {
    fn default() -> Self {
        // The article's "negatives to 0".
        Self {
            range: Span::new(0.0, 1_000_000.0),
        }
    }
}

impl Params for Clamp {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.span(
            "range",
            &mut self.range,
            HEIGHT_RANGE,
            "Heights below min become min, above max become max. min = 0 is the article's 'negatives to 0'.",
        );
    }
}

impl StageOp for Clamp {
    fn apply(&self, map: &mut Heightmap, _: &mut StageContext) -> Result<(), StageError> {
        let (lo, hi) = (self.range.min, self.range.max);
        map.data_mut().par_chunks_mut(1 << 16).for_each(|chunk| {
            for v in chunk {
                *v = v.clamp(lo, hi);
            }
        });
        Ok(())
    }

    /// Finite bounds keep finite cells finite.
    fn keeps_finite(&self) -> bool {
        true
    }
}

/// Stage that rescales the map linearly onto a height range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Normalize {
    /// Heights the lowest and highest cells become; a flat map gets `min`.
    pub range: Span,
}

impl Default for Normalize {
    fn default() -> Self {
        Self {
            range: Span::new(0.0, 100.0),
        }
    }
}

impl Params for Normalize {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.span(
            "range",
            &mut self.range,
            HEIGHT_RANGE,
            "The lowest cell becomes min, the highest max, linearly in between. A flat map becomes min.",
        );
    }
}

impl StageOp for Normalize {
    fn needs_world_range(&self) -> bool {
        true
    }

    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        // The world's range, not the window's: a window's cells then equal
        // the whole map's.
        let (min, max) = ctx.world_range(map)?;
        let span = max - min;
        let (lo, hi) = (self.range.min, self.range.max);
        if !span.is_finite() {
            // Heights near ±f32::MAX: their span overflows f32, so work in
            // f64, where it cannot.
            let scale = (hi as f64 - lo as f64) / (max as f64 - min as f64);
            map.data_mut().par_chunks_mut(1 << 16).for_each(|chunk| {
                for v in chunk {
                    *v = (lo as f64 + (*v as f64 - min as f64) * scale) as f32;
                }
            });
            return Ok(());
        }
        let scale = if span > 0.0 { (hi - lo) / span } else { 0.0 };
        // Chunks with a plain loop inside, which vectorises; a closure per
        // cell does not.
        map.data_mut().par_chunks_mut(1 << 16).for_each(|chunk| {
            for v in chunk {
                *v = lo + (*v - min) * scale;
            }
        });
        Ok(())
    }

    /// Every cell lands between the range's finite ends.
    fn keeps_finite(&self) -> bool {
        true
    }
}

/// Stage that quantises heights into flat steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Terrace {
    /// Number of steps between the map's lowest and highest cell, 1..=256.
    pub levels: u32,
    /// Step edges, 0..=1: 0 leaves slopes as they are, 1 makes vertical risers.
    pub sharpness: f32,
}

impl Default for Terrace {
    fn default() -> Self {
        Self {
            levels: 8,
            sharpness: 0.7,
        }
    }
}

impl Params for Terrace {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.int(
            "levels",
            &mut self.levels,
            1..=256,
            "Number of steps between the map's lowest and highest cell.",
        );
        v.float(
            "sharpness",
            &mut self.sharpness,
            0.0..=1.0,
            "0 leaves slopes untouched, 1 gives flat steps with vertical risers.",
        );
    }
}

/// Terrace profile within one step: `f` in `[0, 1)` → `[0, 1]`.
#[inline]
pub fn terrace_profile(f: f32, sharpness: f32) -> f32 {
    f.powf(1.0 + 24.0 * sharpness * sharpness)
}

impl StageOp for Terrace {
    fn needs_world_range(&self) -> bool {
        true
    }

    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        // The world's range, not the window's: a window's cells then equal
        // the whole map's.
        let (min, max) = ctx.world_range(map)?;
        let span = max - min;
        if span <= 0.0 {
            return Ok(());
        }
        let n = self.levels as f32;
        let sharpness = self.sharpness;
        map.data_mut().par_chunks_mut(1 << 16).for_each(|chunk| {
            for v in chunk {
                let s = ((*v - min) / span * n).min(n);
                let step = s.floor();
                let f = s - step;
                *v = min + (step + terrace_profile(f, sharpness)) / n * span;
            }
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stage_rng;

    fn normalized(data: Vec<f32>, lo: f32, hi: f32) -> Vec<f32> {
        let mut map = Heightmap::from_vec(data.len(), 1, data).unwrap();
        let stage = Normalize {
            range: Span::new(lo, hi),
        };
        stage
            .apply(&mut map, &mut StageContext::new(stage_rng(1, 0)))
            .unwrap();
        map.into_vec()
    }

    #[test]
    fn normalize_maps_the_lowest_and_highest_cells_to_the_range_ends() {
        let out = normalized(vec![3.0, -1.0, 7.0, 1.0], 10.0, 20.0);
        assert_eq!(out, vec![15.0, 10.0, 20.0, 12.5]);
        assert_eq!(normalized(vec![4.0; 5], 2.0, 9.0), vec![2.0; 5]);
    }

    /// Its `keeps_finite` promise holds even when the span of finite
    /// heights overflows f32.
    #[test]
    fn normalize_keeps_heights_near_the_f32_limits_finite() {
        let out = normalized(vec![-3.0e38, 0.0, 3.0e38, 1.5e38], 0.0, 100.0);
        assert!(out.iter().all(|v| v.is_finite()), "{out:?}");
        assert_eq!((out[0], out[2]), (0.0, 100.0));
        assert!((out[1] - 50.0).abs() < 1e-3 && (out[3] - 75.0).abs() < 1e-3);
    }
}
