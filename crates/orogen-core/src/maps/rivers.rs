//! Rivers: channels where the drainage area passes a threshold in square
//! world units, drawn as wide as their area makes them.
//!
//! A channel's width follows hydraulic geometry (width grows with the
//! square root of discharge, and discharge with drainage area):
//! `width = width_per_km · √(area / 1 km²)`, at least one cell. Each
//! channel cell paints a disc of that width, with a one-cell soft edge;
//! overlapping discs keep the larger weight, so the result does not
//! depend on the order cells are painted in.

use super::lakes::finite_heights;
use crate::heightmap::Heightmap;
use crate::hydro::{Outlets, Routing};
use serde::{Deserialize, Serialize};

/// What makes a river and how wide it is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RiverRule {
    /// Drainage area (square world units) from which a cell is a channel.
    pub min_area: f32,
    /// Channel width (world units) where the drainage area is 1 km².
    pub width_per_km: f32,
}

impl Default for RiverRule {
    fn default() -> Self {
        // 5 ha: the presets' 1 km² worlds show a dozen main channels.
        RiverRule {
            min_area: 50_000.0,
            width_per_km: 12.0,
        }
    }
}

impl RiverRule {
    /// The channel width (world units) for a drainage area, before the
    /// one-cell minimum.
    pub fn width(&self, area: f32) -> f32 {
        self.width_per_km * (area.max(0.0) / 1.0e6).sqrt()
    }
}

/// Drainage area in square world units per cell (steepest descent,
/// depressions spilled through their lowest pass, every edge an outlet).
pub fn drainage_area(map: &Heightmap, cell_size: f32, sea_level: Option<f32>) -> Vec<f32> {
    let heights = finite_heights(map);
    let outlets = Outlets {
        sea_level,
        ..Outlets::ALL_EDGES
    };
    let routing = Routing::new(&heights, map.width(), &outlets);
    let cell_area = cell_size * cell_size;
    routing
        .cells
        .into_iter()
        .map(|cells| cells as f32 * cell_area)
        .collect()
}

/// The river weight per cell, 0..1: 1 inside a channel's width, fading to
/// 0 over one cell at its banks.
pub fn river_weights(area: &[f32], width: usize, cell_size: f32, rule: &RiverRule) -> Vec<f32> {
    let height = area.len() / width.max(1);
    let mut weight = vec![0.0f32; area.len()];
    if cell_size <= 0.0 || !cell_size.is_finite() {
        return weight;
    }
    for (i, &a) in area.iter().enumerate() {
        if a < rule.min_area {
            continue;
        }
        let (cx, cy) = ((i % width) as isize, (i / width) as isize);
        // Radius in cells: half the width, and at least half a cell so
        // every channel cell is painted.
        let radius = (rule.width(a) * 0.5 / cell_size).max(0.5);
        let reach = (radius + 1.0).ceil() as isize;
        for dy in -reach..=reach {
            let y = cy + dy;
            if y < 0 || y >= height as isize {
                continue;
            }
            for dx in -reach..=reach {
                let x = cx + dx;
                if x < 0 || x >= width as isize {
                    continue;
                }
                let distance = ((dx * dx + dy * dy) as f32).sqrt();
                let w = (radius + 0.5 - distance).clamp(0.0, 1.0);
                let cell = &mut weight[y as usize * width + x as usize];
                if w > *cell {
                    *cell = w;
                }
            }
        }
    }
    weight
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A valley sloping south: its floor collects the whole width.
    fn valley(size: usize) -> Heightmap {
        let mid = (size / 2) as f32;
        let data = (0..size * size)
            .map(|i| {
                let (x, y) = ((i % size) as f32, (i / size) as f32);
                (x - mid).abs() * 2.0 + (size as f32 - y) * 0.5
            })
            .collect();
        Heightmap::from_vec(size, size, data).unwrap_or_else(|| Heightmap::new(1, 1))
    }

    #[test]
    fn the_valley_floor_is_a_river_and_its_width_grows_downstream() {
        let size = 129;
        let m = valley(size);
        let cell = 10.0;
        let area = drainage_area(&m, cell, None);
        let rule = RiverRule {
            min_area: 20_000.0,
            width_per_km: 60.0,
        };
        let weights = river_weights(&area, size, cell, &rule);
        let mid = size / 2;
        let row = |y: usize| &weights[y * size..(y + 1) * size];
        // Upstream (north) no channel yet; downstream the floor is wet.
        assert_eq!(row(1)[mid], 0.0);
        assert_eq!(row(size - 2)[mid], 1.0);
        let wet = |y: usize| row(y).iter().filter(|&&w| w > 0.5).count();
        assert!(wet(size - 2) > wet(size / 2), "wider downstream");
        assert!(wet(size - 2) < size / 4, "still a channel, not a flood");
        // Hillsides stay dry.
        assert_eq!(row(size - 2)[5], 0.0);
    }

    #[test]
    fn width_follows_the_square_root_of_area() {
        let rule = RiverRule {
            min_area: 1.0,
            width_per_km: 10.0,
        };
        assert_eq!(rule.width(1.0e6), 10.0);
        assert!((rule.width(4.0e6) - 20.0).abs() < 1e-4);
        assert_eq!(rule.width(-5.0), 0.0);
    }
}
