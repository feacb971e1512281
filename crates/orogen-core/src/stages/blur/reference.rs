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

/// One blur pass of fractional half-width `r` cells: cells within
/// `floor(r)` weigh 1, the next ones `r − floor(r)`; the weighted mean
/// over the cells on the map.
pub fn fractional_box_pass(src: &Heightmap, r: f64) -> Heightmap {
    let (w, h) = (src.width(), src.height());
    let whole = r.floor() as isize;
    let weight = |offset: isize| {
        let d = offset.abs();
        if d <= whole {
            1.0
        } else if d == whole + 1 {
            r - r.floor()
        } else {
            0.0
        }
    };
    let mut out = Heightmap::new(w, h);
    for y in 0..h as isize {
        for x in 0..w as isize {
            let (mut sum, mut total) = (0.0f64, 0.0f64);
            for yy in (y - whole - 1).max(0)..=(y + whole + 1).min(h as isize - 1) {
                for xx in (x - whole - 1).max(0)..=(x + whole + 1).min(w as isize - 1) {
                    let wgt = weight(xx - x) * weight(yy - y);
                    sum += wgt * src.get(xx as usize, yy as usize) as f64;
                    total += wgt;
                }
            }
            out.set(x as usize, y as usize, (sum / total) as f32);
        }
    }
    out
}
