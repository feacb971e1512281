//! Lakes and rivers as water surfaces: each lake flat at its own spill
//! level, each river a ribbon just above its channel. Built from the
//! shown map (resampled to at most [`WATER_MAX_SIDE`] a side) with the
//! core's derived maps, so the viewer shows the same water that
//! `orogen generate --maps lakes,rivers` writes.
//!
//! A lake cell is a flat square one cell wide centred on the cell, at
//! the lake's level; runs of such cells along a row at one level are
//! merged into one quad. Where the square reaches past the shore the
//! terrain rises above the level and hides it, so the shoreline is the
//! terrain's own contour. A river cell is a square following the ground
//! (its corners sample the terrain) lifted by [`RIVER_LIFT`].

use super::flow::resampled;
use orogen_core::Heightmap;
use orogen_core::maps::MapSettings;
use orogen_core::maps::lakes::lake_depths;
use orogen_core::maps::rivers::{drainage_area, river_weights};

/// Longest side water is built on (a larger map is resampled first).
pub const WATER_MAX_SIDE: usize = 1025;
/// Lakes shallower than this (world units) are left dry: the centimetre
/// hollows of a noisy map are no lakes.
pub const MIN_LAKE_DEPTH: f32 = 0.05;
/// How far a river ribbon floats above the ground (world units).
pub const RIVER_LIFT: f32 = 0.15;

/// Plain mesh data of the water: positions in the scene's frame (x east
/// and z south from the map's centre, y the height before exaggeration),
/// up normals, triangles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WaterMesh {
    pub positions: Vec<[f32; 3]>,
    pub indices: Vec<u32>,
    /// Lake cells and river cells drawn (after resampling).
    pub lake_cells: usize,
    pub river_cells: usize,
}

impl WaterMesh {
    fn quad(&mut self, corners: [[f32; 3]; 4]) {
        let base = self.positions.len() as u32;
        self.positions.extend_from_slice(&corners);
        // Counter-clockwise seen from above (y up, z south).
        self.indices
            .extend_from_slice(&[base, base + 2, base + 1, base + 1, base + 2, base + 3]);
    }
}

/// The lakes and rivers of `map` (cells `cell_size` apart).
pub fn water_mesh(map: &Heightmap, cell_size: f32, settings: &MapSettings) -> WaterMesh {
    let (full_w, full_h) = (map.width(), map.height());
    let half_w = (full_w - 1) as f32 * cell_size * 0.5;
    let half_d = (full_h - 1) as f32 * cell_size * 0.5;
    let (small, cell) = resampled(map, cell_size, WATER_MAX_SIDE);
    let (w, h) = (small.width(), small.height());
    let heights = small.data();
    let at = |x: usize, y: usize| {
        let v = heights[y * w + x];
        if v.is_finite() { v } else { 0.0 }
    };
    let mut mesh = WaterMesh::default();
    let depth = lake_depths(&small, settings.sea_level);
    let level = |i: usize| at(i % w, i / w) + depth[i];
    let wet = |i: usize| depth[i] >= MIN_LAKE_DEPTH;
    let half = cell * 0.5;
    let place_x = |x: f32| (x * cell - half_w).clamp(-half_w, half_w);
    let place_z = |y: f32| (y * cell - half_d).clamp(-half_d, half_d);
    for y in 0..h {
        let mut x = 0;
        while x < w {
            let i = y * w + x;
            if !wet(i) {
                x += 1;
                continue;
            }
            let surface = level(i);
            let start = x;
            // Depth is level − height in f32, so height + depth gives the
            // level back only to rounding: one lake, one run.
            while x < w && wet(y * w + x) && (level(y * w + x) - surface).abs() <= 1e-3 {
                x += 1;
            }
            mesh.lake_cells += x - start;
            let (x0, x1) = (place_x(start as f32) - half, place_x((x - 1) as f32) + half);
            let (z0, z1) = (place_z(y as f32) - half, place_z(y as f32) + half);
            let (x0, x1) = (x0.max(-half_w), x1.min(half_w));
            let (z0, z1) = (z0.max(-half_d), z1.min(half_d));
            mesh.quad([
                [x0, surface, z0],
                [x1, surface, z0],
                [x0, surface, z1],
                [x1, surface, z1],
            ]);
        }
    }
    let area = drainage_area(&small, cell, settings.sea_level);
    let rivers = river_weights(&area, w, cell, &settings.rivers);
    let ground = |x: f32, y: f32| {
        let (fx, fy) = (x.clamp(0.0, (w - 1) as f32), y.clamp(0.0, (h - 1) as f32));
        let v = small.sample_bilinear(fx, fy);
        if v.is_finite() { v } else { 0.0 }
    };
    for (i, &weight) in rivers.iter().enumerate() {
        if weight < 0.5 || wet(i) {
            continue;
        }
        mesh.river_cells += 1;
        let (x, y) = ((i % w) as f32, (i / w) as f32);
        let corner = |dx: f32, dy: f32| {
            let (cx, cy) = (x + dx, y + dy);
            [place_x(cx), ground(cx, cy) + RIVER_LIFT, place_z(cy)]
        };
        mesh.quad([
            corner(-0.5, -0.5),
            corner(0.5, -0.5),
            corner(-0.5, 0.5),
            corner(0.5, 0.5),
        ]);
    }
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bowl with a notch in its rim and a valley leading out of it.
    fn bowl(size: usize) -> Heightmap {
        let c = (size / 2) as f32;
        let data = (0..size * size)
            .map(|i| {
                let (x, y) = ((i % size) as f32 - c, (i / size) as f32 - c);
                let r = (x * x + y * y).sqrt();
                // A basin 8 deep inside radius 10, a rim at 12, then down.
                if r < 10.0 {
                    2.0 + r * 0.1
                } else {
                    (12.0 - (r - 10.0) * 0.3).max(0.0)
                }
            })
            .collect();
        Heightmap::from_vec(size, size, data).unwrap_or_else(|| Heightmap::new(1, 1))
    }

    #[test]
    fn a_lake_is_flat_at_its_spill_level_and_merged_along_rows() {
        let map = bowl(41);
        let mesh = water_mesh(&map, 1.0, &MapSettings::default());
        assert!(
            mesh.lake_cells > 250,
            "the basin holds water: {}",
            mesh.lake_cells
        );
        // One level for the whole lake: the rim's lowest point.
        let levels: Vec<f32> = mesh.positions.iter().map(|p| p[1]).collect();
        let top = levels.iter().cloned().fold(f32::MIN, f32::max);
        assert!(
            (levels[0] - top).abs() < 1e-4,
            "every lake vertex at one level"
        );
        // Rows merged: far fewer quads than cells.
        assert!(mesh.indices.len() / 6 < mesh.lake_cells / 5);
        // Inside the map.
        assert!(
            mesh.positions
                .iter()
                .all(|p| p[0].abs() <= 20.0 && p[2].abs() <= 20.0)
        );
    }

    #[test]
    fn dry_slopes_have_no_water_and_channels_get_ribbons() {
        // A plane tilted south: no lakes; its southern rows collect water
        // into channels only if it is concave, so carve a valley.
        let size = 65;
        let data = (0..size * size)
            .map(|i| {
                let (x, y) = ((i % size) as f32, (i / size) as f32);
                (x - 32.0).abs() * 1.5 + (size as f32 - y) * 0.4
            })
            .collect();
        let map = Heightmap::from_vec(size, size, data).unwrap_or_else(|| Heightmap::new(1, 1));
        let settings = MapSettings {
            rivers: orogen_core::maps::rivers::RiverRule {
                min_area: 2_000.0,
                width_per_km: 40.0,
            },
            ..MapSettings::default()
        };
        let mesh = water_mesh(&map, 4.0, &settings);
        assert_eq!(mesh.lake_cells, 0);
        assert!(mesh.river_cells > 20, "{}", mesh.river_cells);
        // Ribbons float just above the ground they follow.
        for quad in mesh.positions.chunks(4) {
            for p in quad {
                let gx = (p[0] + 128.0) / 4.0;
                let gy = (p[2] + 128.0) / 4.0;
                let ground = map.sample_bilinear(gx.clamp(0.0, 64.0), gy.clamp(0.0, 64.0));
                assert!(
                    (p[1] - ground - RIVER_LIFT).abs() < 1e-3,
                    "{p:?} over {ground}"
                );
            }
        }
    }
}
