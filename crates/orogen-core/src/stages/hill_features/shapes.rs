//! The choices a hill feature is made of: its shape (a height profile
//! over the distance from its centre), the easing applied to it, how it
//! blends into the map, and where features are placed.

use crate::params::Choice;
use serde::{Deserialize, Serialize};
use std::f32::consts::PI;

/// Profile of a hill feature: a height factor over `t` = distance / radius.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FeatureShape {
    /// A smooth bump, 1 at the centre falling to 0 at the rim.
    Hill,
    /// An upside-down Hill: a smooth dip.
    Valley,
    /// A plateau, `1.25·min(0.8, e^(−t²))`: flat out to about half the radius.
    Mesa,
    /// An upside-down Mesa: a flat-floored pit.
    Hole,
    /// A parabolic cap, `1 − t²`.
    Dome,
    /// Zero: adds nothing, but levels cells toward 0 under Replace or Normal.
    Flat,
    /// A cone with a crater: the rim peaks about 0.4 of the radius out.
    Volcano,
}

impl FeatureShape {
    /// Profile at `t` = distance / radius.
    #[inline]
    pub fn eval(self, t: f32) -> f32 {
        match self {
            FeatureShape::Hill => hill(t),
            FeatureShape::Valley => -hill(t),
            FeatureShape::Mesa => mesa(t),
            FeatureShape::Hole => -mesa(t),
            FeatureShape::Dome => -(t + 1.0) * (t - 1.0),
            FeatureShape::Flat => 0.0,
            FeatureShape::Volcano => {
                let a = t.abs();
                0.94 - 0.32 * ((2.0 * t).abs() + (2.0 * PI * a + 0.4).cos())
            }
        }
    }
}

#[inline]
fn hill(t: f32) -> f32 {
    if t < 0.0 {
        let u = t + 1.0;
        u * u * (3.0 - 2.0 * u)
    } else {
        1.0 - t * t * (3.0 - 2.0 * t)
    }
}

#[inline]
fn mesa(t: f32) -> f32 {
    1.25 * 0.8f32.min((-(t * t)).exp())
}

/// `out[k] = f(ts[k])`: one plain loop per variant, so each vectorises
/// with its own arithmetic.
macro_rules! each {
    ($ts:expr, $out:expr, $f:expr) => {
        for (o, &t) in $out.iter_mut().zip($ts) {
            *o = $f(t);
        }
    };
}

impl FeatureShape {
    /// `eval` over a slice, with the match hoisted out of the loop so the
    /// loop vectorises; the same per-element arithmetic as `eval`.
    #[inline(always)]
    pub fn eval_slice(self, ts: &[f32], out: &mut [f32]) {
        match self {
            FeatureShape::Hill => each!(ts, out, |t| FeatureShape::Hill.eval(t)),
            FeatureShape::Valley => each!(ts, out, |t| FeatureShape::Valley.eval(t)),
            FeatureShape::Mesa => each!(ts, out, |t| FeatureShape::Mesa.eval(t)),
            FeatureShape::Hole => each!(ts, out, |t| FeatureShape::Hole.eval(t)),
            FeatureShape::Dome => each!(ts, out, |t| FeatureShape::Dome.eval(t)),
            FeatureShape::Flat => each!(ts, out, |t| FeatureShape::Flat.eval(t)),
            FeatureShape::Volcano => each!(ts, out, |t| FeatureShape::Volcano.eval(t)),
        }
    }
}

impl Choice for FeatureShape {
    const ALL: &'static [Self] = &[
        FeatureShape::Hill,
        FeatureShape::Valley,
        FeatureShape::Mesa,
        FeatureShape::Hole,
        FeatureShape::Dome,
        FeatureShape::Flat,
        FeatureShape::Volcano,
    ];
    fn label(self) -> &'static str {
        match self {
            FeatureShape::Hill => "Hill",
            FeatureShape::Valley => "Valley",
            FeatureShape::Mesa => "Mesa",
            FeatureShape::Hole => "Hole",
            FeatureShape::Dome => "Dome",
            FeatureShape::Flat => "Flat",
            FeatureShape::Volcano => "Volcano",
        }
    }
}

/// Falloff of a feature from centre to rim: its value is scaled by
/// `1 − easing(t)` for `t` = distance / radius.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Easing {
    /// A straight ramp, `x`.
    Linear,
    /// A quadratic ease-in, `x²`.
    EaseIn,
    /// A quadratic ease-out, `−x(x − 2)`.
    EaseOut,
    /// Smoothstep, `x²(3 − 2x)`.
    EaseInOut,
    /// A cubic centred on ½, `0.5(2x − 1)³ + 0.5`: steep at both ends.
    InEaseOut,
    /// A gentle ease-in, `x^1.55`.
    EaseInWeak,
    /// A strong ease-in, `x⁷`: features keep their height until near the rim.
    EaseInStrong,
}

impl Easing {
    /// The eased value of `x` in 0..=1, itself in 0..=1.
    #[inline]
    pub fn eval(self, x: f32) -> f32 {
        match self {
            Easing::Linear => x,
            Easing::EaseIn => x * x,
            Easing::EaseOut => -x * (x - 2.0),
            Easing::EaseInOut => x * x * (3.0 - 2.0 * x),
            Easing::InEaseOut => {
                let u = 2.0 * x - 1.0;
                0.5 * u * u * u + 0.5
            }
            Easing::EaseInWeak => x.powf(1.55),
            Easing::EaseInStrong => {
                // Spelled out: `powi` is a libm call that blocks vectorising.
                let x2 = x * x;
                x2 * x2 * x2 * x
            }
        }
    }
}

impl Easing {
    /// `eval` over a slice, match hoisted (see [`FeatureShape::eval_slice`]).
    #[inline(always)]
    pub fn eval_slice(self, ts: &[f32], out: &mut [f32]) {
        match self {
            Easing::Linear => each!(ts, out, |t| Easing::Linear.eval(t)),
            Easing::EaseIn => each!(ts, out, |t| Easing::EaseIn.eval(t)),
            Easing::EaseOut => each!(ts, out, |t| Easing::EaseOut.eval(t)),
            Easing::EaseInOut => each!(ts, out, |t| Easing::EaseInOut.eval(t)),
            Easing::InEaseOut => each!(ts, out, |t| Easing::InEaseOut.eval(t)),
            Easing::EaseInWeak => each!(ts, out, |t| Easing::EaseInWeak.eval(t)),
            Easing::EaseInStrong => each!(ts, out, |t| Easing::EaseInStrong.eval(t)),
        }
    }
}

impl Choice for Easing {
    const ALL: &'static [Self] = &[
        Easing::Linear,
        Easing::EaseIn,
        Easing::EaseOut,
        Easing::EaseInOut,
        Easing::InEaseOut,
        Easing::EaseInWeak,
        Easing::EaseInStrong,
    ];
    fn label(self) -> &'static str {
        match self {
            Easing::Linear => "Linear",
            Easing::EaseIn => "EaseIn",
            Easing::EaseOut => "EaseOut",
            Easing::EaseInOut => "EaseInOut",
            Easing::InEaseOut => "InEaseOut",
            Easing::EaseInWeak => "EaseInWeak",
            Easing::EaseInStrong => "EaseInStrong",
        }
    }
}

/// How a feature's value `d` merges with a cell's height `g`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FeatureBlend {
    /// Adds the feature, `g + d`.
    Additive,
    /// Subtracts the feature, `g − d`.
    Subtractive,
    /// Multiplies by the feature, `g·d`.
    Multiply,
    /// Replaces the height with the feature, `d` (THREE.Terrain's NoBlending).
    Replace,
    /// Fades the old height out toward the centre, `easing(t)·g + d`.
    Normal,
    /// Keeps the higher of the two, `max(g, d)`.
    Max,
    /// Keeps the lower of the two, `min(g, d)`.
    Min,
}

impl FeatureBlend {
    /// Blends feature value `d` into `g`; `eased` is easing(t).
    #[inline]
    pub fn apply(self, g: f32, d: f32, eased: f32) -> f32 {
        match self {
            FeatureBlend::Additive => g + d,
            FeatureBlend::Subtractive => g - d,
            FeatureBlend::Multiply => g * d,
            FeatureBlend::Replace => d,
            FeatureBlend::Normal => eased * g + d,
            FeatureBlend::Max => g.max(d),
            FeatureBlend::Min => g.min(d),
        }
    }
}

impl Choice for FeatureBlend {
    const ALL: &'static [Self] = &[
        FeatureBlend::Additive,
        FeatureBlend::Subtractive,
        FeatureBlend::Multiply,
        FeatureBlend::Replace,
        FeatureBlend::Normal,
        FeatureBlend::Max,
        FeatureBlend::Min,
    ];
    fn label(self) -> &'static str {
        match self {
            FeatureBlend::Additive => "Additive",
            FeatureBlend::Subtractive => "Subtractive",
            FeatureBlend::Multiply => "Multiply",
            FeatureBlend::Replace => "Replace",
            FeatureBlend::Normal => "Normal",
            FeatureBlend::Max => "Max",
            FeatureBlend::Min => "Min",
        }
    }
}

/// Where feature centres fall on the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Distribution {
    /// Uniformly over the whole map.
    Uniform,
    /// Around the middle, within 0.4 of the map's size and densest at the centre.
    Island,
}

impl Choice for Distribution {
    const ALL: &'static [Self] = &[Distribution::Uniform, Distribution::Island];
    fn label(self) -> &'static str {
        match self {
            Distribution::Uniform => "Uniform",
            Distribution::Island => "Island",
        }
    }
}
