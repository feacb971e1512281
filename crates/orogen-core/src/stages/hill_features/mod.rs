//! THREE.Terrain's Hill method (ALGORITHMS §4): frequency-driven features,
//! each an eased shape blended into the map within its radius. Features
//! are clipped at the map's edges (THREE.Terrain wraps them into the
//! neighbouring row).
//!
//! The readable definition, every feature over every cell, is
//! `reference.rs` (with the `reference` feature); the tests require this
//! version to give the same bits.

#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod shapes;

pub use shapes::{Distribution, Easing, FeatureBlend, FeatureShape};

use super::{StageContext, StageError, StageOp};
use crate::heightmap::Heightmap;
use crate::params::{ParamVisitor, Params, Span, visit_choice};
use crate::rng::{StageRng, range_f32, unit_f32};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::f32::consts::PI;

/// THREE.Terrain's Hill method as a stage: randomly placed features of one
/// shape, eased and blended into the map within their radii.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HillFeatures {
    /// THREE.Terrain's `frequency`; counts, radii and heights derive from it.
    pub frequency: f32,
    /// THREE.Terrain's `minHeight..maxHeight`, world units.
    pub terrain_height: Span,
    /// Explicit overrides of the derived values, `None` to derive them: the
    /// number of features (default f²·10).
    pub count: Option<u32>,
    /// Override of the radius range in cells (default side/f² .. side/f).
    pub radius: Option<Span>,
    /// Override of the feature height range in world units (default
    /// range/f² .. range/f).
    pub feature_height: Option<Span>,
    /// Profile of each feature.
    pub shape: FeatureShape,
    /// Falloff from centre to rim: `d = shape(t)·height·(1 − easing(t))`.
    pub easing: Easing,
    /// How each feature merges with the map.
    pub blend: FeatureBlend,
    /// Where feature centres fall.
    pub distribution: Distribution,
}

impl Default for HillFeatures {
    fn default() -> Self {
        // THREE.Terrain's defaults.
        Self {
            frequency: 2.5,
            terrain_height: Span::new(-100.0, 100.0),
            count: None,
            radius: None,
            feature_height: None,
            shape: FeatureShape::Hill,
            easing: Easing::EaseInStrong,
            blend: FeatureBlend::Additive,
            distribution: Distribution::Uniform,
        }
    }
}

impl Params for HillFeatures {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.float(
            "frequency",
            &mut self.frequency,
            0.1..=20.0,
            "THREE.Terrain frequency: with f = 2·frequency there are f²·10 features, radii side/f²..side/f and heights range/f²..range/f.",
        );
        v.span(
            "terrain_height",
            &mut self.terrain_height,
            -100_000.0..=100_000.0,
            "THREE.Terrain minHeight..maxHeight: the range feature heights derive from.",
        );
        v.optional_int(
            "count",
            &mut self.count,
            0..=1_000_000,
            "Override the number of features (default f²·10).",
        );
        v.optional_span(
            "radius",
            &mut self.radius,
            0.5..=100_000.0,
            "Override the radius range in cells (default side/f² .. side/f).",
        );
        v.optional_span(
            "feature_height",
            &mut self.feature_height,
            -100_000.0..=100_000.0,
            "Override the feature height range (default range/f² .. range/f).",
        );
        visit_choice(v, "shape", &mut self.shape, "Profile of each feature.");
        visit_choice(
            v,
            "easing",
            &mut self.easing,
            "Falloff from centre to rim: d = shape(t)·height·(1 − easing(t)).",
        );
        visit_choice(
            v,
            "blend",
            &mut self.blend,
            "How each feature merges with the map: Normal = easing(t)·g + d.",
        );
        visit_choice(
            v,
            "distribution",
            &mut self.distribution,
            "Where centres fall: Uniform over the map, or Island (around the middle, densest at the centre).",
        );
    }
}

/// One placed feature: centre cell, radius in cells, height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feature {
    /// Centre column (x, east).
    pub cx: i64,
    /// Centre row (row 0 = north).
    pub cy: i64,
    /// Radius of influence, in cells.
    pub radius: f32,
    /// Height the shape is scaled by, in world units.
    pub height: f32,
}

/// The values THREE.Terrain derives from `frequency`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Derived {
    /// Number of features to place.
    pub count: u32,
    /// Range radii are drawn from, in cells.
    pub radius: Span,
    /// Range feature heights are drawn from, in world units.
    pub height: Span,
}

impl HillFeatures {
    /// The feature count and the radius and height ranges for a
    /// `width x height` map, with any overrides applied.
    pub fn derived(&self, width: usize, height: usize) -> Derived {
        let f = 2.0 * self.frequency;
        let range = self.terrain_height.max - self.terrain_height.min;
        let side = (width.min(height).saturating_sub(1)).max(1) as f32;
        Derived {
            // The source's `for (i = 0; i < numFeatures; i++)` runs ceil() times.
            count: self.count.unwrap_or((f * f * 10.0).ceil() as u32),
            radius: self.radius.unwrap_or(Span::new(side / (f * f), side / f)),
            height: self
                .feature_height
                .unwrap_or(Span::new(range / (f * f), range / f)),
        }
    }

    /// Draws every feature in a fixed order: radius, height, x, y (and the
    /// island angle), as THREE.Terrain does.
    pub fn place(&self, width: usize, height: usize, rng: &mut StageRng) -> Vec<Feature> {
        let d = self.derived(width, height);
        (0..d.count)
            .map(|_| {
                let radius = range_f32(rng, d.radius.min, d.radius.max);
                let h = range_f32(rng, d.height.min, d.height.max);
                let mut x = unit_f32(rng);
                let mut y = unit_f32(rng);
                if self.distribution == Distribution::Island {
                    let theta = unit_f32(rng) * 2.0 * PI;
                    x = 0.5 + theta.cos() * x * 0.4;
                    y = 0.5 + theta.sin() * y * 0.4;
                }
                Feature {
                    cx: (x * (width - 1) as f32).floor() as i64,
                    cy: (y * (height - 1) as f32).floor() as i64,
                    radius: radius.max(f32::MIN_POSITIVE),
                    height: h,
                }
            })
            .collect()
    }

    /// The feature's new value for a cell holding `g` at offset (dx, dy),
    /// or `None` outside its radius. Shared by the fast and naive paths.
    #[inline]
    pub fn influence(&self, feature: &Feature, dx: i64, dy: i64, g: f32) -> Option<f32> {
        let (dx, dy) = (dx as f32, dy as f32);
        let fd = (dx * dx + dy * dy).sqrt();
        if fd > feature.radius {
            return None;
        }
        // A reciprocal multiply, not a division: division is several
        // times slower in the vectorised loop, and both paths must agree.
        let t = fd * (1.0 / feature.radius);
        let eased = self.easing.eval(t);
        let d = self.shape.eval(t) * feature.height * (1.0 - eased);
        Some(self.blend.apply(g, d, eased))
    }

    /// Applies features in order; each row walks only the features that
    /// reach it and only the columns inside their radius. Per row segment
    /// the distance, easing, shape and blend run as separate branch-free
    /// loops (vectorised), with exactly the arithmetic of [`Self::influence`].
    pub fn apply_features(&self, map: &mut Heightmap, features: &[Feature]) {
        let width = map.width() as i64;
        map.data_mut()
            .par_chunks_mut(width as usize)
            .enumerate()
            .for_each_init(
                || Segment::with_capacity(width as usize),
                |seg, (y, row)| apply_row(self, seg, features, y as i64, row),
            );
    }

    #[inline(always)]
    fn apply_segment(&self, seg: &mut Segment, f: &Feature, dx0: i64, dyf: f32, cells: &mut [f32]) {
        let n = cells.len();
        seg.resize(n);
        let (t, eased, shaped, inside, out) = (
            &mut seg.t[..n],
            &mut seg.eased[..n],
            &mut seg.shaped[..n],
            &mut seg.inside[..n],
            &mut seg.out[..n],
        );
        let radius = f.radius;
        let inv_radius = 1.0 / radius;
        // Offsets fit in i32 (maps are far narrower than 2^31), and i32 to
        // f32 vectorises where i64 to f32 does not.
        let (dx0, dy2) = (dx0 as i32, dyf * dyf);
        for (k, (tk, ik)) in t.iter_mut().zip(inside.iter_mut()).enumerate() {
            let dx = (dx0 + k as i32) as f32;
            let fd = (dx * dx + dy2).sqrt();
            *ik = fd <= radius;
            *tk = fd * inv_radius;
        }
        self.easing.eval_slice(t, eased);
        self.shape.eval_slice(t, shaped);
        let h = f.height;
        // Written to a scratch row, then copied: written back in place,
        // the cells outside the disc become a masked store (`vmaskmovps`
        // in the AVX2 copy), which AMD's Zen cores run in microcode.
        macro_rules! blend {
            ($op:expr) => {
                for ((((o, &g), &s), &e), &ok) in out
                    .iter_mut()
                    .zip(&*cells)
                    .zip(&*shaped)
                    .zip(&*eased)
                    .zip(&*inside)
                {
                    let d = s * h * (1.0 - e);
                    let v = $op(g, d, e);
                    *o = if ok { v } else { g };
                }
            };
        }
        match self.blend {
            FeatureBlend::Additive => blend!(|g: f32, d: f32, _e: f32| g + d),
            FeatureBlend::Subtractive => blend!(|g: f32, d: f32, _e: f32| g - d),
            FeatureBlend::Multiply => blend!(|g: f32, d: f32, _e: f32| g * d),
            FeatureBlend::Replace => blend!(|_g: f32, d: f32, _e: f32| d),
            FeatureBlend::Normal => blend!(|g: f32, d: f32, e: f32| e * g + d),
            FeatureBlend::Max => blend!(|g: f32, d: f32, _e: f32| g.max(d)),
            FeatureBlend::Min => blend!(|g: f32, d: f32, _e: f32| g.min(d)),
        }
        cells.copy_from_slice(out);
    }
}

/// One row of [`HillFeatures::apply_features`]. Compiled for AVX2 too, so
/// the loops run eight lanes wide instead of four; see [`crate::simd`].
#[multiversion::multiversion(targets("x86_64+avx2"))]
fn apply_row(
    stage: &HillFeatures,
    seg: &mut Segment,
    features: &[Feature],
    y: i64,
    row: &mut [f32],
) {
    apply_row_body(stage, seg, features, y, row)
}

/// [`apply_row`] without target features, for the tests of [`crate::simd`].
#[cfg(test)]
fn apply_row_plain(
    stage: &HillFeatures,
    seg: &mut Segment,
    features: &[Feature],
    y: i64,
    row: &mut [f32],
) {
    apply_row_body(stage, seg, features, y, row)
}

#[cfg(test)]
impl crate::simd::KernelChecks {
    /// Runs [`apply_row`] (the AVX2 copy where the CPU has it) and its plain
    /// copy for every shape, easing and blend on random rows and features,
    /// rows of many widths, and says where they differ in a single bit.
    pub(crate) fn apply_row(seed: u64) -> Result<(), String> {
        use crate::params::Choice;
        let n = (
            FeatureShape::ALL.len(),
            Easing::ALL.len(),
            FeatureBlend::ALL.len(),
        );
        let stages: Vec<HillFeatures> = (0..n.0 * n.1 * n.2)
            .map(|i| HillFeatures {
                shape: FeatureShape::ALL[i % n.0],
                easing: Easing::ALL[i / n.0 % n.1],
                blend: FeatureBlend::ALL[i / (n.0 * n.1)],
                ..HillFeatures::default()
            })
            .collect();
        let mut rng = crate::rng::stage_rng(seed, 1);
        for width in [1usize, 2, 3, 5, 7, 8, 9, 16, 17, 33, 100, 257] {
            let w = width as f32;
            let features: Vec<Feature> = (0..12)
                .map(|_| Feature {
                    cx: range_f32(&mut rng, -0.5 * w, 1.5 * w).floor() as i64,
                    cy: range_f32(&mut rng, -8.0, 8.0).floor() as i64,
                    radius: range_f32(&mut rng, 0.5, 1.5 * w + 4.0),
                    height: range_f32(&mut rng, -40.0, 40.0),
                })
                .collect();
            let start: Vec<f32> = (0..width)
                .map(|_| range_f32(&mut rng, -50.0, 50.0))
                .collect();
            for (stage, y) in stages.iter().flat_map(|s| (-2..3).map(move |y| (s, y))) {
                let (mut a, mut b) = (start.clone(), start.clone());
                apply_row(stage, &mut Segment::with_capacity(1), &features, y, &mut a);
                apply_row_plain(stage, &mut Segment::with_capacity(1), &features, y, &mut b);
                if let Some(x) = Self::first_difference(&a, &b) {
                    let kind = (stage.shape, stage.easing, stage.blend);
                    return Err(format!(
                        "apply_row, seed {seed}, width {width}, {kind:?}, y {y}, x {x}: \
                         {} vs plain {}",
                        a[x], b[x]
                    ));
                }
            }
        }
        Ok(())
    }
}

#[inline(always)]
fn apply_row_body(
    stage: &HillFeatures,
    seg: &mut Segment,
    features: &[Feature],
    y: i64,
    row: &mut [f32],
) {
    let width = row.len() as i64;
    for f in features {
        let dy = y - f.cy;
        let dyf = dy as f32;
        if dyf.abs() > f.radius {
            continue;
        }
        let reach = (f.radius * f.radius - dyf * dyf).max(0.0).sqrt().ceil() as i64 + 1;
        let x0 = (f.cx - reach).max(0);
        let x1 = (f.cx + reach).min(width - 1);
        if x1 < x0 {
            continue;
        }
        let cells = &mut row[x0 as usize..=x1 as usize];
        stage.apply_segment(seg, f, x0 - f.cx, dyf, cells);
    }
}

/// Scratch buffers for one row segment.
struct Segment {
    t: Vec<f32>,
    eased: Vec<f32>,
    shaped: Vec<f32>,
    inside: Vec<bool>,
    out: Vec<f32>,
}

impl Segment {
    fn with_capacity(n: usize) -> Self {
        Self {
            t: vec![0.0; n],
            eased: vec![0.0; n],
            shaped: vec![0.0; n],
            inside: vec![false; n],
            out: vec![0.0; n],
        }
    }

    fn resize(&mut self, n: usize) {
        if self.t.len() < n {
            *self = Self::with_capacity(n);
        }
    }
}

impl StageOp for HillFeatures {
    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        // Placed over the whole world, then moved into the window's cells:
        // offsets between a cell and a centre are whole cells either way,
        // so a window's cells equal the whole map's.
        let window = ctx.window_of(map);
        let mut features = self.place(window.world_width, window.world_height, &mut ctx.rng);
        let (ox, oy) = (window.window.x as i64, window.window.y as i64);
        for f in &mut features {
            f.cx -= ox;
            f.cy -= oy;
        }
        self.apply_features(map, &features);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Choice;

    #[test]
    fn shapes_match_the_formulas() {
        assert_eq!(FeatureShape::Hill.eval(0.0), 1.0);
        assert_eq!(FeatureShape::Hill.eval(1.0), 0.0);
        assert!((FeatureShape::Hill.eval(0.5) - 0.5).abs() < 1e-6);
        assert_eq!(FeatureShape::Valley.eval(0.0), -1.0);
        assert!((FeatureShape::Mesa.eval(0.0) - 1.0).abs() < 1e-6);
        assert!((FeatureShape::Hole.eval(0.0) + 1.0).abs() < 1e-6);
        assert_eq!(FeatureShape::Dome.eval(0.0), 1.0);
        assert_eq!(FeatureShape::Dome.eval(1.0), 0.0);
        assert_eq!(FeatureShape::Flat.eval(0.3), 0.0);
        let v0 = 0.94 - 0.32 * (0.4f32).cos();
        assert!((FeatureShape::Volcano.eval(0.0) - v0).abs() < 1e-6);
    }

    #[test]
    fn easings_match_the_formulas() {
        for e in Easing::ALL {
            assert!(e.eval(0.0).abs() < 1e-6, "{e:?} at 0");
            assert!((e.eval(1.0) - 1.0).abs() < 1e-6, "{e:?} at 1");
        }
        assert!((Easing::EaseInStrong.eval(0.5) - 0.5f32.powi(7)).abs() < 1e-9);
        assert!((Easing::EaseOut.eval(0.5) - 0.75).abs() < 1e-6);
        assert!((Easing::InEaseOut.eval(0.25) - (0.5 * (-0.5f32).powi(3) + 0.5)).abs() < 1e-6);
    }

    #[test]
    fn defaults_derive_like_three_terrain() {
        let d = HillFeatures::default().derived(1025, 1025);
        assert_eq!(d.count, 250);
        assert!((d.radius.min - 1024.0 / 25.0).abs() < 1e-3);
        assert!((d.radius.max - 1024.0 / 5.0).abs() < 1e-3);
        assert!((d.height.min - 8.0).abs() < 1e-4);
        assert!((d.height.max - 40.0).abs() < 1e-4);
    }
}
