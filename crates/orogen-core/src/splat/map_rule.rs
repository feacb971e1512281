//! Splat rules by derived map: a tile that shows only where a map of the
//! terrain (drainage, lakes, curvature, erosion) lies within a range — a
//! riverbed where flow is high, sediment on deposition, wet grass near
//! water. Values are in each map's own world units, so a rule means the
//! same at every size.

use crate::heightmap::Heightmap;
use crate::maps::DerivedMap;
use crate::maps::ErosionRecord;
use crate::maps::MapSettings;
use crate::maps::curvature::convexity;
use crate::maps::lakes::lake_depths;
use crate::maps::occlusion::sky_visibility;
use crate::maps::rivers::{drainage_area, river_weights};
use crate::maps::wetness::spread_drainage_area;
use crate::params::{ParamError, Span};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// At most this many different maps drive one tile set's rules: the GPU
/// samples each one per pixel.
pub const MAX_RULE_MAPS: usize = 4;

/// Where a derived map lets a tile show: weight 1 with the map's value
/// inside `range`, falling linearly to 0 over `soft` beyond each end.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapRule {
    /// The map whose value is tested.
    pub map: DerivedMap,
    /// Values where the tile may show, in the map's units
    /// ([`rule_units`]).
    pub range: Span,
    /// Width of the fade beyond each end of the range (0: a hard edge).
    #[serde(default)]
    pub soft: f32,
}

/// What a rule's values mean for each map.
pub fn rule_units(map: DerivedMap) -> &'static str {
    match map {
        DerivedMap::Flow => "steepest-descent drainage area, square world units",
        DerivedMap::Wetness => "multiple-flow-direction drainage area, square world units",
        DerivedMap::Lakes => "lake depth, world units",
        DerivedMap::Rivers => "river weight, 0..1",
        DerivedMap::Curvature => "convexity −∇²h, 1/world units (> 0 ridges, < 0 valleys)",
        DerivedMap::Occlusion => "sky visibility, 0 (none) .. 1 (open sky)",
        DerivedMap::Wear => "material worn away by erosion, world units",
        DerivedMap::Deposition => "material laid down by erosion, world units",
    }
}

impl MapRule {
    /// The rule's weight for a map value. The same expressions as the GPU
    /// material's `map_factor`, so both paths agree.
    pub fn factor(&self, value: f32) -> f32 {
        let (lo, hi, inv_soft) = self.constants();
        ramp_factor(value, lo, hi, inv_soft)
    }

    /// Low end, high end and the reciprocal of the soft width (0 for a
    /// hard edge): what the renderer and the GPU uniform carry.
    pub fn constants(&self) -> (f32, f32, f32) {
        let inv_soft = if self.soft > 0.0 {
            1.0 / self.soft
        } else {
            0.0
        };
        (self.range.min, self.range.max, inv_soft)
    }

    /// Refuses a range that is not finite and ordered and a soft edge that
    /// is negative or not finite, naming the field under `path`.
    pub fn validate(&self, path: &str) -> Result<(), ParamError> {
        let (lo, hi) = (self.range.min, self.range.max);
        if !(lo.is_finite() && hi.is_finite()) || lo > hi {
            return Err(ParamError {
                path: format!("{path}.range"),
                message: format!("{lo}..{hi}: expected finite numbers with min ≤ max"),
            });
        }
        if !self.soft.is_finite() || self.soft < 0.0 {
            return Err(ParamError {
                path: format!("{path}.soft"),
                message: format!("{}: expected 0 or more", self.soft),
            });
        }
        Ok(())
    }
}

/// 1 inside `lo..=hi`, a linear fade over `1 / inv_soft` beyond each end
/// (a step when `inv_soft` is 0), 0 further out and for NaN.
#[inline(always)]
pub(super) fn ramp_factor(value: f32, lo: f32, hi: f32, inv_soft: f32) -> f32 {
    if inv_soft > 0.0 {
        let below = ((value - lo) * inv_soft + 1.0).clamp(0.0, 1.0);
        let above = ((hi - value) * inv_soft + 1.0).clamp(0.0, 1.0);
        let f = if below < above { below } else { above };
        if f.is_nan() { 0.0 } else { f }
    } else if value >= lo && value <= hi {
        1.0
    } else {
        0.0
    }
}

/// The values of the maps a tile set's rules read, one per map cell, in
/// slot order (the order the tiles first name them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleMaps {
    /// The map in each slot.
    pub kinds: Vec<DerivedMap>,
    /// Each slot's values, row-major over the map's cells.
    pub values: Vec<Vec<f32>>,
}

/// The maps the rules of `rules` read, each once, in the order first named.
pub fn rule_map_kinds<'a>(rules: impl IntoIterator<Item = &'a Option<MapRule>>) -> Vec<DerivedMap> {
    let mut kinds = Vec::new();
    for rule in rules.into_iter().flatten() {
        if !kinds.contains(&rule.map) {
            kinds.push(rule.map);
        }
    }
    kinds
}

impl RuleMaps {
    /// The maps `kinds` of `map` (cells `cell_size` apart). Wear and
    /// deposition come from `erosion` (what the erosion stages changed as
    /// they ran); without it they are 0 everywhere.
    pub fn compute(
        kinds: &[DerivedMap],
        map: &Heightmap,
        cell_size: f32,
        erosion: Option<&ErosionRecord>,
    ) -> RuleMaps {
        let values = kinds
            .par_iter()
            .map(|&kind| rule_values(map, cell_size, kind, erosion))
            .collect();
        RuleMaps {
            kinds: kinds.to_vec(),
            values,
        }
    }

    /// The slot of `kind`, if the rules read it.
    pub fn slot(&self, kind: DerivedMap) -> Option<usize> {
        self.kinds.iter().position(|&k| k == kind)
    }
}

/// One map's rule values at every cell of `map`, in the units of
/// [`rule_units`].
pub fn rule_values(
    map: &Heightmap,
    cell_size: f32,
    kind: DerivedMap,
    erosion: Option<&ErosionRecord>,
) -> Vec<f32> {
    let settings = MapSettings::default();
    let cells = map.data().len();
    match kind {
        DerivedMap::Flow => drainage_area(map, cell_size, None),
        DerivedMap::Wetness => spread_drainage_area(map, cell_size, None),
        DerivedMap::Lakes => lake_depths(map, None),
        DerivedMap::Rivers => {
            let area = drainage_area(map, cell_size, None);
            river_weights(&area, map.width(), cell_size, &settings.rivers)
        }
        DerivedMap::Curvature => convexity(map, cell_size),
        DerivedMap::Occlusion => sky_visibility(map, cell_size, settings.occlusion_radius),
        DerivedMap::Wear | DerivedMap::Deposition => match erosion {
            Some(record) if record.change().len() == cells => {
                if kind == DerivedMap::Wear {
                    record.worn()
                } else {
                    record.deposited()
                }
            }
            _ => vec![0.0; cells],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(lo: f32, hi: f32, soft: f32) -> MapRule {
        MapRule {
            map: DerivedMap::Flow,
            range: Span::new(lo, hi),
            soft,
        }
    }

    #[test]
    fn the_factor_is_one_inside_fades_over_the_soft_edge_and_is_zero_beyond() {
        let r = rule(10.0, 20.0, 4.0);
        assert_eq!(r.factor(10.0), 1.0);
        assert_eq!(r.factor(20.0), 1.0);
        assert_eq!(r.factor(8.0), 0.5);
        assert_eq!(r.factor(23.0), 0.25);
        assert_eq!(r.factor(5.9), 0.0);
        assert_eq!(r.factor(24.5), 0.0);
        assert_eq!(r.factor(f32::NAN), 0.0);
        let hard = rule(10.0, 20.0, 0.0);
        assert_eq!(hard.factor(10.0), 1.0);
        assert_eq!(hard.factor(9.999), 0.0);
        assert_eq!(hard.factor(20.001), 0.0);
    }

    #[test]
    fn bad_ranges_and_soft_edges_are_refused_by_field() {
        assert!(rule(1.0, 2.0, 0.5).validate("t").is_ok());
        assert_eq!(
            rule(3.0, 2.0, 0.0).validate("t").unwrap_err().path,
            "t.range"
        );
        assert_eq!(
            rule(f32::NAN, 2.0, 0.0).validate("t").unwrap_err().path,
            "t.range"
        );
        assert_eq!(
            rule(1.0, 2.0, -1.0).validate("t").unwrap_err().path,
            "t.soft"
        );
    }

    #[test]
    fn kinds_are_listed_once_in_the_order_first_named() {
        let flow = Some(rule(0.0, 1.0, 0.0));
        let lakes = Some(MapRule {
            map: DerivedMap::Lakes,
            ..rule(0.0, 1.0, 0.0)
        });
        let kinds = rule_map_kinds([&None, &lakes, &flow, &lakes]);
        assert_eq!(kinds, vec![DerivedMap::Lakes, DerivedMap::Flow]);
    }

    #[test]
    fn wear_and_deposition_split_the_recorded_change_by_sign() {
        let map = Heightmap::from_vec(2, 1, vec![0.0, 0.0]).expect("2 cells");
        let mut record = ErosionRecord::new(2, 1);
        record.add("fluvial", &[5.0, 5.0], &[3.0, 6.5]);
        let wear = rule_values(&map, 1.0, DerivedMap::Wear, Some(&record));
        let deposition = rule_values(&map, 1.0, DerivedMap::Deposition, Some(&record));
        assert_eq!(wear, vec![2.0, 0.0]);
        assert_eq!(deposition, vec![0.0, 1.5]);
        assert_eq!(
            rule_values(&map, 1.0, DerivedMap::Wear, None),
            vec![0.0, 0.0]
        );
    }
}
