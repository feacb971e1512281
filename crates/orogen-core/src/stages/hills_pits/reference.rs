//! Hills and pits as the article defines them (ALGORITHMS §2): every cap
//! visits every cell and adds `(r² − d²) · factor` where that is positive
//! (the intended `d > 0` test, not the article's `d > 1` typo). The oracle
//! the fast, bounding-box version is tested against.

use super::Cap;
use crate::heightmap::Heightmap;

/// Adds every cap to `map`, cap by cap, cell by cell.
pub fn apply_caps(map: &mut Heightmap, caps: &[Cap]) {
    let (w, h) = (map.width(), map.height());
    for cap in caps {
        for y in 0..h {
            for x in 0..w {
                let dx = cap.cx - x as f32;
                let dy = cap.cy - y as f32;
                let d = cap.radius * cap.radius - (dx * dx + dy * dy);
                if d > 0.0 {
                    let v = map.get(x, y) + d * cap.factor;
                    map.set(x, y, v);
                }
            }
        }
    }
}
