//! Lakes: the depth of water that fills each closed depression to its
//! spill level, and of the sea below an optional sea level.
//!
//! Water is routed as the erosion routes it ([`crate::hydro::Routing`]):
//! a depression's cells reach its lowest pass along carved paths, and the
//! level a cell's water stands at is the highest height on its way to an
//! outlet ([`crate::hydro::fill_levels`]), which is exactly a priority
//! flood's fill. Every edge drains.

use crate::heightmap::Heightmap;
use crate::hydro::{Outlets, Routing, fill_levels};

/// Water depth in world units per cell (0 on dry land): lakes filled to
/// their spill levels and, with `sea_level`, the sea below it.
pub fn lake_depths(map: &Heightmap, sea_level: Option<f32>) -> Vec<f32> {
    let heights = finite_heights(map);
    let outlets = Outlets {
        sea_level,
        ..Outlets::ALL_EDGES
    };
    let routing = Routing::new(&heights, map.width(), &outlets);
    let levels = fill_levels(&heights, &routing);
    heights
        .iter()
        .zip(&levels)
        .map(|(&h, &level)| {
            let sea = sea_level.map_or(0.0, |sea| (sea - h).max(0.0));
            (level - h).max(sea).max(0.0)
        })
        .collect()
}

/// The map's heights with non-finite values as 0, so routing never sees one.
pub(crate) fn finite_heights(map: &Heightmap) -> Vec<f32> {
    map.data()
        .iter()
        .map(|&v| if v.is_finite() { v } else { 0.0 })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(width: usize, rows: &[&[f32]]) -> Heightmap {
        let data: Vec<f32> = rows.iter().flat_map(|r| r.iter().copied()).collect();
        Heightmap::from_vec(width, rows.len(), data).unwrap_or_else(|| Heightmap::new(1, 1))
    }

    #[test]
    fn a_bowl_fills_to_its_lowest_pass() {
        // A 5×5 bowl: rim 10 with one notch at 6, floor 2 and 3.
        let m = map(
            5,
            &[
                &[10.0, 10.0, 10.0, 10.0, 10.0],
                &[10.0, 3.0, 3.0, 3.0, 10.0],
                &[6.0, 3.0, 2.0, 3.0, 10.0],
                &[10.0, 3.0, 3.0, 3.0, 10.0],
                &[10.0, 10.0, 10.0, 10.0, 10.0],
            ],
        );
        let depth = lake_depths(&m, None);
        assert_eq!(depth[2 * 5 + 2], 4.0, "floor under 4 m of water");
        assert_eq!(depth[5 + 1], 3.0);
        assert!(depth[..5].iter().all(|&d| d == 0.0), "the rim is dry");
        assert_eq!(depth[2 * 5], 0.0, "the notch is the spill point");
    }

    #[test]
    fn the_sea_covers_what_lies_below_it() {
        let m = map(3, &[&[-2.0, 1.0, 5.0], &[-1.0, 2.0, 5.0], &[0.5, 3.0, 5.0]]);
        let depth = lake_depths(&m, Some(1.0));
        assert_eq!(depth[0], 3.0);
        assert_eq!(depth[3], 2.0);
        assert_eq!(depth[6], 0.5);
        assert_eq!(depth[1], 0.0);
        assert!(lake_depths(&m, None).iter().all(|&d| d == 0.0));
    }
}
