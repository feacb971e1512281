//! The derived maps an export can write beside the heights, each as a
//! grey PNG of the export's size with a fixed, documented encoding, so a
//! value means the same at every size and in every world. Most come from
//! the final heights ([`derive_map`]); `wear` and `deposition` come from
//! what the erosion stages changed as they ran ([`erosion_pixels`]),
//! which the final heights no longer show.

use super::curvature::convexity;
use super::flow::strength_of_area;
use super::lakes::lake_depths;
use super::occlusion::sky_visibility;
use super::rivers::{RiverRule, drainage_area, river_weights};
use super::wetness::spread_drainage_area;
use crate::heightmap::Heightmap;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// A map derived from the terrain (named in recipes as on the command
/// line: `flow`, `wetness`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DerivedMap {
    /// Steepest-descent (D8) drainage area.
    Flow,
    /// Multiple-flow-direction drainage area, for smooth masks.
    Wetness,
    /// Water depth of lakes at their spill levels (and the sea).
    Lakes,
    /// River channels, as wide as their drainage area makes them.
    Rivers,
    /// Convex (ridges) and concave (valleys) ground.
    Curvature,
    /// Sky visibility (ambient occlusion).
    Occlusion,
    /// Material the erosion stages wore away.
    Wear,
    /// Material the erosion stages laid down.
    Deposition,
}

/// Convexity (1/world units) where `curvature.png`'s log scale bends:
/// gentle hills (|k| near 0.05) and sharp eroded ridges (near 5) both
/// keep their steps, where a linear scale saturates one or flattens the
/// other.
pub const CURVATURE_KNEE: f32 = 0.05;
/// Convexity drawn at full scale: 100 knees.
pub const CURVATURE_FULL_SCALE: f32 = 100.0 * CURVATURE_KNEE;

/// A convexity's `curvature.png` sample: 128 + sign(k) · round(127 ·
/// ln(1 + |k| / knee) / ln 101), clamped to full scale.
pub fn curvature_sample(k: f32) -> u8 {
    if k.is_nan() {
        return 128;
    }
    let magnitude = ((1.0 + k.abs() / CURVATURE_KNEE).ln() / 101.0f32.ln()).min(1.0);
    let step = (127.0 * magnitude).round();
    (128.0 + step.copysign(k)) as u8
}
/// Steps per doubling of drainage area in `flow.png`.
pub const FLOW_STEPS_PER_DOUBLING: f32 = 2048.0;
/// Steps per world unit of depth in `lakes.png` (centimetres for metres).
pub const LAKE_STEPS_PER_UNIT: f32 = 100.0;
/// Steps per world unit of material in `wear.png` and `deposition.png`
/// (centimetres for metres).
pub const EROSION_STEPS_PER_UNIT: f32 = 100.0;

/// Where a map comes from.
#[derive(Clone, Copy)]
enum Source {
    /// Computed from the final heights and encoded in one function.
    Heights(fn(&Heightmap, f32, &MapSettings) -> MapPixels),
    /// Encoded from the erosion stages' record of the run
    /// ([`erosion_pixels`]), with this sign of height change counted.
    ErosionRecord(f32),
}

/// Everything about one derived map, in one row of [`CATALOGUE`].
struct MapFacts {
    map: DerivedMap,
    /// The name on the command line and the file's stem.
    name: &'static str,
    /// Bits per grey sample: 8 or 16.
    bits: u8,
    /// How a sample's value maps to the quantity (for `heightmap.json`).
    meaning: &'static str,
    /// The quantity's units.
    units: &'static str,
    source: Source,
}

/// Every derived map, in [`DerivedMap`]'s order (the order exports list
/// them): adding a map is adding a variant and a row here.
const CATALOGUE: [MapFacts; 8] = [
    MapFacts {
        map: DerivedMap::Flow,
        name: "flow",
        bits: 16,
        meaning: "steepest-descent (D8) drainage area A: v = round(2048 · log2(1 + A)); \
                  ties between equally steep neighbours go to the first in row-major order, \
                  and flats and closed basins drain through their lowest pass",
        units: "square world units",
        source: Source::Heights(flow_pixels),
    },
    MapFacts {
        map: DerivedMap::Wetness,
        name: "wetness",
        bits: 8,
        meaning: "multiple-flow-direction (Freeman, slope^1.1) drainage area on a log scale: \
                  0 at or below 500, 255 at or above 250000",
        units: "square world units",
        source: Source::Heights(wetness_pixels),
    },
    MapFacts {
        map: DerivedMap::Lakes,
        name: "lakes",
        bits: 16,
        meaning: "water depth of lakes filled to their spill levels (and the sea below the \
                  sea level): v = round(100 · depth), 0 on dry land",
        units: "world units (centimetres for metres)",
        source: Source::Heights(lake_pixels),
    },
    MapFacts {
        map: DerivedMap::Rivers,
        name: "rivers",
        bits: 8,
        meaning: "river weight: 255 inside a channel (drainage area at least the river \
                  threshold, width growing with √area), fading to 0 over one cell",
        units: "weight",
        source: Source::Heights(river_pixels),
    },
    MapFacts {
        map: DerivedMap::Curvature,
        name: "curvature",
        bits: 8,
        meaning: "convexity k = −∇²h on a log scale: v = 128 + sign(k) · round(127 · \
                  min(1, ln(1 + |k| / 0.05) / ln 101)), full at |k| = 5; above 128 convex \
                  (ridges), below concave (valleys)",
        units: "1 / world units",
        source: Source::Heights(curvature_pixels),
    },
    MapFacts {
        map: DerivedMap::Occlusion,
        name: "occlusion",
        bits: 8,
        meaning: "sky visibility from horizons in eight directions: 255 open sky, 0 none",
        units: "weight",
        source: Source::Heights(occlusion_pixels),
    },
    MapFacts {
        map: DerivedMap::Wear,
        name: "wear",
        bits: 16,
        meaning: "material worn away by the erosion stages (hydraulic, fluvial, thermal), \
                  summed over them as each ran, so later stages such as normalize do not \
                  rescale it: v = round(100 · metres), clamped at 65535; 0 where none was removed",
        units: "world units (centimetres for metres)",
        source: Source::ErosionRecord(-1.0),
    },
    MapFacts {
        map: DerivedMap::Deposition,
        name: "deposition",
        bits: 16,
        meaning: "material laid down by the erosion stages (hydraulic, fluvial, thermal), \
                  summed over them as each ran, so later stages such as normalize do not \
                  rescale it: v = round(100 · metres), clamped at 65535; 0 where none was added",
        units: "world units (centimetres for metres)",
        source: Source::ErosionRecord(1.0),
    },
];

impl DerivedMap {
    /// Every map, in the order exports list them.
    pub const ALL: [DerivedMap; 8] = {
        let mut all = [DerivedMap::Flow; 8];
        let mut i = 0;
        while i < CATALOGUE.len() {
            all[i] = CATALOGUE[i].map;
            i += 1;
        }
        all
    };

    /// The maps [`derive_map`] makes from the final heights alone.
    pub const FROM_HEIGHTS: [DerivedMap; 6] = {
        let mut maps = [DerivedMap::Flow; 6];
        let (mut i, mut n) = (0, 0);
        while i < CATALOGUE.len() {
            if let Source::Heights(_) = CATALOGUE[i].source {
                maps[n] = CATALOGUE[i].map;
                n += 1;
            }
            i += 1;
        }
        assert!(
            n == maps.len(),
            "FROM_HEIGHTS lists every map made from heights"
        );
        maps
    };

    /// This map's row of the catalogue.
    fn facts(self) -> &'static MapFacts {
        &CATALOGUE[self as usize]
    }

    /// Whether the map needs the erosion stages' record of the run
    /// ([`erosion_pixels`]) rather than the final heights.
    pub fn needs_erosion_record(self) -> bool {
        matches!(self.facts().source, Source::ErosionRecord(_))
    }

    /// The name used on the command line and as the file's stem.
    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// The map of `name`, if any.
    pub fn from_name(name: &str) -> Option<DerivedMap> {
        CATALOGUE.iter().find(|f| f.name == name).map(|f| f.map)
    }

    /// A comma-separated list (`lakes,rivers,flow`, or `all`), each map
    /// once, in [`DerivedMap::ALL`]'s order.
    pub fn parse_list(text: &str) -> Result<Vec<DerivedMap>, MapListError> {
        let mut maps = Vec::new();
        for part in text.split(',').map(str::trim) {
            if part == "all" {
                maps.extend(DerivedMap::ALL);
                continue;
            }
            match DerivedMap::from_name(part) {
                Some(map) => maps.push(map),
                None => return Err(MapListError::Unknown(part.to_string())),
            }
        }
        maps.sort();
        maps.dedup();
        Ok(maps)
    }

    /// What a pixel of this map's PNG means, for `heightmap.json`.
    pub fn meaning(self) -> MapMeaning {
        let facts = self.facts();
        MapMeaning {
            file: format!("{}.png", facts.name),
            bits: facts.bits,
            meaning: facts.meaning,
            units: facts.units,
        }
    }
}

/// A list of derived maps that names a map orogen does not derive, or
/// one it cannot make from what the export was given. The message begins
/// with the option's name, [`UserOption::Maps`](crate::io::errors::UserOption).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapListError {
    /// The item not understood, trimmed.
    #[error("maps: unknown map {item:?} (choose from {names}, or all)", item = .0, names = map_names())]
    Unknown(String),
    /// Maps that need the erosion stages' record of the run (these names,
    /// comma-separated), asked of an export given only the final map.
    #[error(
        "maps {0}: needs the record of what the erosion stages changed while the map was made, and this export has only the final map"
    )]
    NoErosionRecord(String),
    /// An erosion record made at another size than the exported map.
    #[error(
        "maps: the erosion record is {}x{} but the map is {}x{}; record the run that made this map",
        .record.0, .record.1, .map.0, .map.1
    )]
    ErosionRecordSize {
        /// The record's cells (width, height).
        record: (usize, usize),
        /// The map's cells (width, height).
        map: (usize, usize),
    },
}

fn map_names() -> String {
    let names: Vec<&str> = DerivedMap::ALL.iter().map(|m| m.name()).collect();
    names.join(", ")
}

/// One derived map's file and the meaning of its pixels.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MapMeaning {
    /// The PNG's file name.
    pub file: String,
    /// Bits per grey sample: 8 or 16.
    pub bits: u8,
    /// How a sample's value maps to the quantity.
    pub meaning: &'static str,
    /// The quantity's units.
    pub units: &'static str,
}

/// The settings derived maps are computed with, in world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapSettings {
    /// Cells at or below this height are sea (lakes and drainage).
    pub sea_level: Option<f32>,
    /// What counts as a river, and how wide it is drawn.
    pub rivers: RiverRule,
    /// How far out horizons are looked for (world units).
    pub occlusion_radius: f32,
}

impl Default for MapSettings {
    fn default() -> Self {
        MapSettings {
            sea_level: None,
            rivers: RiverRule::default(),
            occlusion_radius: 64.0,
        }
    }
}

/// A derived map's pixels, row-major, one grey sample per cell.
#[derive(Clone, Debug, PartialEq)]
pub enum MapPixels {
    /// 8-bit samples.
    Grey8(Vec<u8>),
    /// 16-bit samples.
    Grey16(Vec<u16>),
}

/// Computes `kind` over `map` (cells `cell_size` world units apart) and
/// encodes it as [`DerivedMap::meaning`] says; `None` for the maps the
/// final heights cannot give ([`DerivedMap::needs_erosion_record`]).
pub fn derive_map(
    map: &Heightmap,
    cell_size: f32,
    kind: DerivedMap,
    settings: &MapSettings,
) -> Option<MapPixels> {
    match kind.facts().source {
        Source::Heights(encode) => Some(encode(map, cell_size, settings)),
        Source::ErosionRecord(_) => None,
    }
}

/// A weight 0..1 as an 8-bit sample.
fn weight8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn flow_pixels(map: &Heightmap, cell_size: f32, settings: &MapSettings) -> MapPixels {
    MapPixels::Grey16(
        drainage_area(map, cell_size, settings.sea_level)
            .into_iter()
            .map(|a| {
                (FLOW_STEPS_PER_DOUBLING * (1.0 + a).log2())
                    .round()
                    .clamp(0.0, 65535.0) as u16
            })
            .collect(),
    )
}

fn wetness_pixels(map: &Heightmap, cell_size: f32, settings: &MapSettings) -> MapPixels {
    MapPixels::Grey8(
        spread_drainage_area(map, cell_size, settings.sea_level)
            .into_iter()
            .map(|a| weight8(strength_of_area(a)))
            .collect(),
    )
}

fn lake_pixels(map: &Heightmap, _cell_size: f32, settings: &MapSettings) -> MapPixels {
    MapPixels::Grey16(
        lake_depths(map, settings.sea_level)
            .into_iter()
            .map(|d| (d * LAKE_STEPS_PER_UNIT).round().clamp(0.0, 65535.0) as u16)
            .collect(),
    )
}

fn river_pixels(map: &Heightmap, cell_size: f32, settings: &MapSettings) -> MapPixels {
    let area = drainage_area(map, cell_size, settings.sea_level);
    MapPixels::Grey8(
        river_weights(&area, map.width(), cell_size, &settings.rivers)
            .into_iter()
            .map(weight8)
            .collect(),
    )
}

fn curvature_pixels(map: &Heightmap, cell_size: f32, _settings: &MapSettings) -> MapPixels {
    MapPixels::Grey8(
        convexity(map, cell_size)
            .into_iter()
            .map(curvature_sample)
            .collect(),
    )
}

fn occlusion_pixels(map: &Heightmap, cell_size: f32, settings: &MapSettings) -> MapPixels {
    MapPixels::Grey8(
        sky_visibility(map, cell_size, settings.occlusion_radius)
            .into_iter()
            .map(weight8)
            .collect(),
    )
}

/// Encodes `wear` or `deposition` from `change`, each cell's height
/// change by the erosion stages in world units (negative = worn away),
/// as [`DerivedMap::meaning`] says; `None` for the other maps.
pub fn erosion_pixels(change: &[f32], kind: DerivedMap) -> Option<MapPixels> {
    let Source::ErosionRecord(sign) = kind.facts().source else {
        return None;
    };
    // Cells are independent: the same bytes on any thread count.
    Some(MapPixels::Grey16(
        change
            .par_iter()
            .map(|&c| {
                (sign * c * EROSION_STEPS_PER_UNIT)
                    .round()
                    .clamp(0.0, 65535.0) as u16
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue's rows follow the enum, so `facts` finds each map's.
    #[test]
    fn the_catalogue_lists_every_map_in_order_once() {
        for (i, facts) in CATALOGUE.iter().enumerate() {
            assert_eq!(facts.map as usize, i, "{}", facts.name);
            assert_eq!(DerivedMap::from_name(facts.name), Some(facts.map));
            assert!(facts.bits == 8 || facts.bits == 16, "{}", facts.name);
        }
        assert_eq!(DerivedMap::ALL.len(), CATALOGUE.len());
        assert!(
            DerivedMap::FROM_HEIGHTS
                .iter()
                .all(|m| !m.needs_erosion_record())
        );
    }

    #[test]
    fn lists_parse_in_order_once_and_name_the_choices_when_wrong() {
        assert_eq!(
            DerivedMap::parse_list("rivers, lakes,flow,lakes"),
            Ok(vec![
                DerivedMap::Flow,
                DerivedMap::Lakes,
                DerivedMap::Rivers
            ])
        );
        assert_eq!(DerivedMap::parse_list("all").map(|l| l.len()), Ok(8));
        let error = DerivedMap::parse_list("lakes,moss").unwrap_err();
        assert_eq!(error, MapListError::Unknown("moss".into()));
        let error = error.to_string();
        assert!(
            error.contains("\"moss\"") && error.contains("occlusion"),
            "{error}"
        );
        assert_eq!(error.lines().count(), 1);
    }

    #[test]
    fn every_map_has_a_pixel_per_cell_and_its_bit_depth() {
        let size = 17;
        let data: Vec<f32> = (0..size * size).map(|i| ((i * 37) % 23) as f32).collect();
        let map = Heightmap::from_vec(size, size, data).unwrap_or_else(|| Heightmap::new(1, 1));
        let change: Vec<f32> = map.data().iter().map(|h| h - 11.0).collect();
        for kind in DerivedMap::ALL {
            let pixels = if kind.needs_erosion_record() {
                assert_eq!(derive_map(&map, 2.0, kind, &MapSettings::default()), None);
                erosion_pixels(&change, kind)
            } else {
                assert_eq!(erosion_pixels(&change, kind), None);
                derive_map(&map, 2.0, kind, &MapSettings::default())
            }
            .expect("every map comes from one of the two");
            let (len, bits) = match &pixels {
                MapPixels::Grey8(v) => (v.len(), 8),
                MapPixels::Grey16(v) => (v.len(), 16),
            };
            assert_eq!(len, size * size, "{kind:?}");
            assert_eq!(bits, kind.meaning().bits, "{kind:?}");
        }
    }

    #[test]
    fn flow_pixels_decode_to_the_drainage_area() {
        let size = 9;
        let data: Vec<f32> = (0..size * size).map(|i| -((i / size) as f32)).collect();
        let map = Heightmap::from_vec(size, size, data).unwrap_or_else(|| Heightmap::new(1, 1));
        let area = drainage_area(&map, 3.0, None);
        let Some(MapPixels::Grey16(v)) =
            derive_map(&map, 3.0, DerivedMap::Flow, &MapSettings::default())
        else {
            panic!("flow is 16-bit");
        };
        for (a, p) in area.iter().zip(&v) {
            let decoded = (f32::from(*p) / FLOW_STEPS_PER_DOUBLING).exp2() - 1.0;
            assert!((decoded - a).abs() <= a * 1e-3 + 1e-3, "{decoded} vs {a}");
        }
    }

    #[test]
    fn wear_and_deposition_are_centimetres_of_each_sign_clamped() {
        let change = [-1.234, 0.0, 2.5, -0.004, 0.006, 1000.0, -700.0, f32::NAN];
        let Some(MapPixels::Grey16(wear)) = erosion_pixels(&change, DerivedMap::Wear) else {
            panic!("wear is 16-bit");
        };
        let Some(MapPixels::Grey16(deposition)) = erosion_pixels(&change, DerivedMap::Deposition)
        else {
            panic!("deposition is 16-bit");
        };
        assert_eq!(wear, [123, 0, 0, 0, 0, 0, 65535, 0]);
        assert_eq!(deposition, [0, 0, 250, 0, 1, 65535, 0, 0]);
    }

    #[test]
    fn curvature_samples_grow_with_convexity_on_both_sides() {
        assert_eq!(curvature_sample(0.0), 128);
        assert_eq!(curvature_sample(-0.0), 128);
        assert_eq!(curvature_sample(f32::NAN), 128);
        assert_eq!(curvature_sample(CURVATURE_FULL_SCALE), 255);
        assert_eq!(curvature_sample(-CURVATURE_FULL_SCALE), 1);
        assert_eq!(curvature_sample(1.0e9), 255);
        let steps: Vec<u8> = [0.01, 0.05, 0.2, 1.0, 4.0]
            .iter()
            .map(|&k| curvature_sample(k))
            .collect();
        assert!(steps.windows(2).all(|w| w[0] < w[1]), "{steps:?}");
        assert_eq!(curvature_sample(0.3) - 128, 128 - curvature_sample(-0.3));
    }
}
