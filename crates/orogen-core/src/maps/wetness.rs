//! Wetness: drainage area routed by multiple flow directions (Freeman
//! 1991), which spreads water over every lower neighbour in proportion to
//! slope^1.1 instead of sending it all down the steepest one. Its masks
//! are smooth where steepest descent draws one-cell lines.
//!
//! Routed over the filled surface (lakes at their spill levels): a cell
//! with no lower neighbour there (a lake, a flat) passes all its water to
//! its steepest-descent receiver ([`crate::hydro::Routing`]), which leads
//! out of every depression. Cells are visited highest first, so every
//! cell's inflow is complete before it passes water on; equal levels go
//! in the drainage order's reverse, donors before receivers.

use super::lakes::finite_heights;
use crate::heightmap::Heightmap;
use crate::hydro::{NEIGHBOURS, Outlets, Routing, fill_levels};

/// Freeman's slope exponent.
const SLOPE_EXPONENT: f32 = 1.1;

/// Multiple-flow-direction drainage area in square world units per cell
/// (every edge an outlet, with an optional sea level).
pub fn spread_drainage_area(map: &Heightmap, cell_size: f32, sea_level: Option<f32>) -> Vec<f32> {
    let (width, height) = (map.width(), map.height());
    let heights = finite_heights(map);
    let outlets = Outlets {
        sea_level,
        ..Outlets::ALL_EDGES
    };
    let routing = Routing::new(&heights, width, &outlets);
    let levels = fill_levels(&heights, &routing);
    // Each cell's place in the drainage order: receivers come first.
    let mut place = vec![0u32; heights.len()];
    for (k, &i) in routing.order.iter().enumerate() {
        place[i as usize] = k as u32;
    }
    let mut visit: Vec<u32> = (0..heights.len() as u32).collect();
    visit.sort_unstable_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        levels[b]
            .total_cmp(&levels[a])
            .then(place[b].cmp(&place[a]))
    });
    let cell_area = cell_size * cell_size;
    let mut area = vec![cell_area; heights.len()];
    let mut shares = [(0usize, 0.0f32); 8];
    for &i in &visit {
        let i = i as usize;
        let (x, y) = (i % width, i / width);
        if outlets.is_outlet(x, y, width, height, heights[i]) {
            continue;
        }
        let mut count = 0;
        let mut total = 0.0f32;
        for &(dx, dy) in &NEIGHBOURS {
            let (nx, ny) = (x as isize + dx, y as isize + dy);
            if nx < 0 || ny < 0 || nx >= width as isize || ny >= height as isize {
                continue;
            }
            let j = ny as usize * width + nx as usize;
            let drop = levels[i] - levels[j];
            if drop > 0.0 {
                let run = if dx != 0 && dy != 0 {
                    std::f32::consts::SQRT_2
                } else {
                    1.0
                };
                let weight = (drop / run).powf(SLOPE_EXPONENT);
                shares[count] = (j, weight);
                count += 1;
                total += weight;
            }
        }
        let water = area[i];
        if count == 0 || total.is_nan() || total <= 0.0 {
            let r = routing.receivers[i] as usize;
            if r != i {
                area[r] += water;
            }
            continue;
        }
        for &(j, weight) in &shares[..count] {
            area[j] += water * weight / total;
        }
    }
    area
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_drop_reaches_an_outlet_and_a_cone_spreads_evenly() {
        // A cone: water spreads away from the summit in all directions.
        let size = 41;
        let c = 20.0;
        let data: Vec<f32> = (0..size * size)
            .map(|i| {
                let (x, y) = ((i % size) as f32 - c, (i / size) as f32 - c);
                100.0 - (x * x + y * y).sqrt()
            })
            .collect();
        let map = Heightmap::from_vec(size, size, data).unwrap_or_else(|| Heightmap::new(1, 1));
        let area = spread_drainage_area(&map, 1.0, None);
        // All water ends at the edges: the outlets hold the map's area.
        let edge_total: f64 = (0..size * size)
            .filter(|&i| {
                let (x, y) = (i % size, i / size);
                x == 0 || y == 0 || x == size - 1 || y == size - 1
            })
            .map(|i| f64::from(area[i]))
            .sum();
        assert!((edge_total - (size * size) as f64).abs() < 1e-2 * (size * size) as f64);
        // Symmetric spreading: the four cells beside the summit get the same.
        let at = |x: usize, y: usize| area[y * size + x];
        let s = at(21, 20);
        for v in [at(19, 20), at(20, 21), at(20, 19)] {
            assert!((v - s).abs() < 1e-4 * s, "{v} vs {s}");
        }
    }

    #[test]
    fn a_closed_bowl_still_drains_through_its_pass() {
        let data = vec![
            9.0, 9.0, 9.0, 9.0, 9.0, //
            9.0, 2.0, 2.0, 2.0, 9.0, //
            9.0, 2.0, 1.0, 2.0, 5.0, //
            9.0, 2.0, 2.0, 2.0, 9.0, //
            9.0, 9.0, 9.0, 9.0, 9.0,
        ];
        let map = Heightmap::from_vec(5, 5, data).unwrap_or_else(|| Heightmap::new(1, 1));
        let area = spread_drainage_area(&map, 1.0, None);
        // The pass (an east-edge outlet at 5) receives the bowl's 9 cells.
        assert!(area[2 * 5 + 4] >= 10.0 - 1e-4, "{}", area[2 * 5 + 4]);
    }
}
