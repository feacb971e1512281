//! Curvature: convex (ridges, crests) and concave (valleys, hollows)
//! ground, as minus the Laplacian of the heights in 1/world units, so
//! ridges are positive. Edge cells reuse their nearest row or column.

use crate::heightmap::Heightmap;
use rayon::prelude::*;

/// Convexity per cell in 1/world units: −∇²h, positive on ridges and
/// negative in valleys. Non-finite heights count as 0.
pub fn convexity(map: &Heightmap, cell_size: f32) -> Vec<f32> {
    let (width, height) = (map.width(), map.height());
    let data = map.data();
    let h = |x: usize, y: usize| {
        let v = data[y * width + x];
        if v.is_finite() { v } else { 0.0 }
    };
    let inv = if cell_size > 0.0 && cell_size.is_finite() {
        1.0 / (cell_size * cell_size)
    } else {
        0.0
    };
    let mut out = vec![0.0f32; data.len()];
    out.par_chunks_mut(width.max(1))
        .enumerate()
        .for_each(|(y, row)| {
            let (up, down) = (y.saturating_sub(1), (y + 1).min(height - 1));
            for (x, cell) in row.iter_mut().enumerate() {
                let (left, right) = (x.saturating_sub(1), (x + 1).min(width - 1));
                let centre = h(x, y);
                let laplacian = h(left, y) + h(right, y) + h(x, up) + h(x, down) - 4.0 * centre;
                *cell = -laplacian * inv;
            }
        });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dome_is_convex_and_a_bowl_concave() {
        let size = 33;
        let c = 16.0;
        let dome: Vec<f32> = (0..size * size)
            .map(|i| {
                let (x, y) = ((i % size) as f32 - c, (i / size) as f32 - c);
                100.0 - 0.1 * (x * x + y * y)
            })
            .collect();
        let map =
            Heightmap::from_vec(size, size, dome.clone()).unwrap_or_else(|| Heightmap::new(1, 1));
        let k = convexity(&map, 2.0);
        // −∇²(−0.1 r²) = 0.4 per cell², over a 2-unit cell: 0.1.
        assert!(
            (k[16 * size + 16] - 0.1).abs() < 1e-4,
            "{}",
            k[16 * size + 16]
        );
        let bowl = Heightmap::from_vec(size, size, dome.iter().map(|v| -v).collect())
            .unwrap_or_else(|| Heightmap::new(1, 1));
        assert!((convexity(&bowl, 2.0)[16 * size + 16] + 0.1).abs() < 1e-4);
        let flat = Heightmap::new(size, size);
        assert!(convexity(&flat, 2.0).iter().all(|&v| v == 0.0));
    }
}
