//! The overlay: one derived map of the shown map (by default the
//! drainage network) as a 0..1 strength per cell, tinted over the terrain
//! and the 2D preview in a colour of its own.

use orogen_core::Heightmap;
use orogen_core::maps::DerivedMap;
use orogen_core::maps::ErosionRecord;
use orogen_core::maps::MapSettings;
use orogen_core::maps::curvature::convexity;
use orogen_core::maps::derived::curvature_sample;
use orogen_core::maps::flow::{TINT, strength_of_area};
use orogen_core::maps::lakes::lake_depths;
use orogen_core::maps::occlusion::sky_visibility;
use orogen_core::maps::rivers::{drainage_area, river_weights};
use orogen_core::maps::wetness::spread_drainage_area;

/// Longest side the flow overlay's drainage is routed on: a larger shown
/// map is resampled to it first (a 16385² map would take seconds and
/// gigabytes; the network's look is set in world units, so it stays the
/// same, only coarser).
pub const FLOW_MAX_SIDE: usize = 1025;

/// The drainage network of a shown map: a 0..1 strength per cell of a
/// grid over the map's extent (the map itself, or the map resampled to
/// at most [`FLOW_MAX_SIDE`] a side).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowField {
    pub width: usize,
    pub height: usize,
    pub strength: Vec<f32>,
    /// The map it shows, and the colour it is tinted in.
    pub kind: DerivedMap,
    pub tint: [u8; 3],
}

impl Default for FlowField {
    fn default() -> Self {
        FlowField {
            width: 0,
            height: 0,
            strength: Vec::new(),
            kind: DerivedMap::Flow,
            tint: TINT,
        }
    }
}

/// The maps derived from the shown map alone (what the export panel
/// writes beside it).
pub const OVERLAY_MAPS: [DerivedMap; 6] = DerivedMap::FROM_HEIGHTS;

/// The maps the overlay offers: those, and wear and deposition from the
/// record of what the erosion stages did.
pub const VIEW_OVERLAYS: [DerivedMap; 8] = DerivedMap::ALL;

/// Wear or deposition (world units) the overlay shows at full strength.
pub const EROSION_OVERLAY_DEPTH: f32 = 1.0;

/// Lake depth (world units) the overlay shows at full strength.
pub const LAKE_OVERLAY_DEPTH: f32 = 10.0;

/// The colour each map is tinted in: water blue for water, amber for
/// curvature, near black for occlusion.
pub fn overlay_tint(kind: DerivedMap) -> [u8; 3] {
    match kind {
        DerivedMap::Flow | DerivedMap::Rivers => TINT,
        DerivedMap::Wetness => [20, 150, 170],
        DerivedMap::Lakes => [15, 60, 160],
        DerivedMap::Curvature => [235, 150, 30],
        DerivedMap::Occlusion => [10, 10, 20],
        DerivedMap::Wear => [200, 40, 30],
        DerivedMap::Deposition => [235, 110, 20],
    }
}

/// `kind` of `map` (cells `cell_size` apart) as the overlay draws it,
/// 0..1 per cell: drainage on a log scale (flow, wetness), depth up to
/// [`LAKE_OVERLAY_DEPTH`], river weight, |convexity| on `curvature.png`'s
/// log scale, and for occlusion the sky hidden (1 − visibility).
pub fn overlay_strength(map: &Heightmap, cell_size: f32, kind: DerivedMap) -> Vec<f32> {
    let settings = MapSettings::default();
    match kind {
        DerivedMap::Flow => orogen_core::maps::flow::flow_strength(map, cell_size),
        DerivedMap::Wetness => spread_drainage_area(map, cell_size, None)
            .into_iter()
            .map(strength_of_area)
            .collect(),
        DerivedMap::Lakes => lake_depths(map, None)
            .into_iter()
            .map(|d| (d / LAKE_OVERLAY_DEPTH).clamp(0.0, 1.0))
            .collect(),
        DerivedMap::Rivers => {
            let area = drainage_area(map, cell_size, None);
            river_weights(&area, map.width(), cell_size, &settings.rivers)
        }
        // The log scale of `curvature.png`, so the overlay and the file agree.
        DerivedMap::Curvature => convexity(map, cell_size)
            .into_iter()
            .map(|k| f32::from(curvature_sample(k).abs_diff(128)) / 127.0)
            .collect(),
        DerivedMap::Occlusion => sky_visibility(map, cell_size, settings.occlusion_radius)
            .into_iter()
            .map(|v| 1.0 - v)
            .collect(),
        // Recorded by the erosion stages while they run, not derivable
        // from the map shown: [`erosion_overlay_field`] draws them.
        DerivedMap::Wear | DerivedMap::Deposition => vec![0.0; map.data().len()],
    }
}

/// The overlay of `kind` over `map`, built on the map itself or, above
/// [`FLOW_MAX_SIDE`] a side, on the map resampled to that.
pub fn overlay_field(map: &Heightmap, cell_size: f32, kind: DerivedMap) -> FlowField {
    let (small, cell) = resampled(map, cell_size, FLOW_MAX_SIDE);
    FlowField {
        width: small.width(),
        height: small.height(),
        strength: overlay_strength(&small, cell, kind),
        kind,
        tint: overlay_tint(kind),
    }
}

/// Wear or deposition from the run's `record` (cells `cell_size` apart)
/// as the overlay draws it: the thickness up to [`EROSION_OVERLAY_DEPTH`],
/// on at most [`FLOW_MAX_SIDE`] cells a side. Another map: its
/// [`overlay_field`] of `map`.
pub fn erosion_overlay_field(
    map: &Heightmap,
    record: &ErosionRecord,
    cell_size: f32,
    kind: DerivedMap,
) -> FlowField {
    let values = match kind {
        DerivedMap::Deposition => record.deposited(),
        DerivedMap::Wear => record.worn(),
        _ => return overlay_field(map, cell_size, kind),
    };
    let strength = values
        .into_iter()
        .map(|v| (v / EROSION_OVERLAY_DEPTH).clamp(0.0, 1.0))
        .collect();
    let Some(full) = Heightmap::from_vec(record.width(), record.height(), strength) else {
        return overlay_field(map, cell_size, kind);
    };
    let (small, _) = resampled(&full, cell_size, FLOW_MAX_SIDE);
    FlowField {
        width: small.width(),
        height: small.height(),
        strength: small.data().to_vec(),
        kind,
        tint: overlay_tint(kind),
    }
}

impl FlowField {
    /// `rgba` (`width × height` pixels over the same extent) with the
    /// network tinted in.
    pub fn tint(&self, rgba: &mut [u8], width: usize, height: usize) {
        orogen_core::maps::flow::tint_rgba_with(
            rgba,
            (width, height),
            &self.strength,
            (self.width, self.height),
            self.tint,
        );
    }
}

/// The drainage network of `map` (cells `cell_size` apart) for the flow
/// overlay ([`overlay_field`] of [`DerivedMap::Flow`]).
pub fn flow_field(map: &Heightmap, cell_size: f32) -> FlowField {
    overlay_field(map, cell_size, DerivedMap::Flow)
}

/// `map` resampled (bilinear, corner to corner) to at most `max_side`
/// cells a side, with the cell size that keeps its extent; the map itself
/// when it is no larger.
pub fn resampled(map: &Heightmap, cell_size: f32, max_side: usize) -> (Heightmap, f32) {
    let (w, h) = (map.width(), map.height());
    let longest = w.max(h);
    if longest <= max_side {
        return (map.clone(), cell_size);
    }
    let scale = (max_side - 1) as f32 / (longest - 1) as f32;
    let fw = (((w - 1) as f32 * scale).round() as usize + 1).max(2);
    let fh = (((h - 1) as f32 * scale).round() as usize + 1).max(2);
    let mut data = Vec::with_capacity(fw * fh);
    for y in 0..fh {
        let my = y as f32 * (h - 1) as f32 / (fh - 1) as f32;
        for x in 0..fw {
            let mx = x as f32 * (w - 1) as f32 / (fw - 1) as f32;
            data.push(map.sample_bilinear(mx, my));
        }
    }
    let small = Heightmap::from_vec(fw, fh, data).unwrap_or_else(|| Heightmap::new(fw, fh));
    (small, cell_size * (w - 1) as f32 / (fw - 1) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deposition and wear come from the record, full from 1 m; at most
    /// `FLOW_MAX_SIDE` cells a side; other maps from the shown map.
    #[test]
    fn erosion_overlays_read_the_record() {
        let side = 9;
        let before = vec![10.0f32; side * side];
        let mut after = before.clone();
        after[4 * side + 4] = 10.5; // half a metre laid down
        after[0] = 7.0; // three metres worn away
        let mut record = ErosionRecord::new(side, side);
        record.add("thermal-erosion", &before, &after);
        let map = Heightmap::from_vec(side, side, after).expect("sizes match");
        let laid = erosion_overlay_field(&map, &record, 1.0, DerivedMap::Deposition);
        assert_eq!((laid.width, laid.height), (side, side));
        assert_eq!(laid.strength[4 * side + 4], 0.5);
        assert_eq!(laid.strength[0], 0.0);
        assert_eq!(laid.tint, overlay_tint(DerivedMap::Deposition));
        let worn = erosion_overlay_field(&map, &record, 1.0, DerivedMap::Wear);
        assert_eq!(worn.strength[0], 1.0);
        assert_eq!(worn.strength[4 * side + 4], 0.0);
        let flow = erosion_overlay_field(&map, &record, 1.0, DerivedMap::Flow);
        assert_eq!(flow, overlay_field(&map, 1.0, DerivedMap::Flow));
    }
}
