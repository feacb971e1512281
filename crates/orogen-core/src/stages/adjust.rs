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
        map.data_mut()
            .par_iter_mut()
            .for_each(|v| *v = v.clamp(lo, hi));
        Ok(())
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
    fn apply(&self, map: &mut Heightmap, _: &mut StageContext) -> Result<(), StageError> {
        let stats = map.stats();
        let span = stats.max - stats.min;
        let (lo, hi) = (self.range.min, self.range.max);
        let scale = if span > 0.0 { (hi - lo) / span } else { 0.0 };
        let min = stats.min;
        map.data_mut()
            .par_iter_mut()
            .for_each(|v| *v = lo + (*v - min) * scale);
        Ok(())
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
    fn apply(&self, map: &mut Heightmap, _: &mut StageContext) -> Result<(), StageError> {
        let stats = map.stats();
        let span = stats.max - stats.min;
        if span <= 0.0 {
            return Ok(());
        }
        let n = self.levels as f32;
        let (min, sharpness) = (stats.min, self.sharpness);
        map.data_mut().par_iter_mut().for_each(|v| {
            let s = ((*v - min) / span * n).min(n);
            let step = s.floor();
            let f = s - step;
            *v = min + (step + terrace_profile(f, sharpness)) / n * span;
        });
        Ok(())
    }
}
