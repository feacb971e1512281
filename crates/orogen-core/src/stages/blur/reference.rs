//! The box blur as defined (ALGORITHMS §3): each cell becomes the mean of
//! the `(2r+1)²` box around it, clipped to the map, read from the map as it
//! was before the pass. One loop per cell and one per box cell, in f64:
//! slow, obviously right, and the oracle the fast pass is tested against.

use crate::heightmap::Heightmap;

/// One blur pass of radius `r` over `src`, returned as a new map.
pub fn box_blur_pass(src: &Heightmap, r: usize) -> Heightmap {
    let (w, h) = (src.width(), src.height());
    let mut out = Heightmap::new(w, h);
    for y in 0..h {
        for x in 0..w {
            let (mut sum, mut n) = (0.0f64, 0);
            for yy in y.saturating_sub(r)..=(y + r).min(h - 1) {
                for xx in x.saturating_sub(r)..=(x + r).min(w - 1) {
                    sum += src.get(xx, yy) as f64;
                    n += 1;
                }
            }
            out.set(x, y, (sum / n as f64) as f32);
        }
    }
    out
}
