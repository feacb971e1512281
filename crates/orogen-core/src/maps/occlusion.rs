//! Ambient occlusion: how much of the sky each cell sees, from the
//! horizon in eight directions out to a radius in world units (Miller's
//! horizon mapping, 1998). Open ground is 1; the floor of a narrow gorge
//! approaches 0. Horizons are sampled at growing steps (1, 2, 3, 4, 6,
//! 8, … cells), so the cost grows with the logarithm of the radius.

use crate::heightmap::Heightmap;
use crate::hydro::NEIGHBOURS;
use rayon::prelude::*;

/// Sky visibility per cell, 0..1, looking `radius` world units out.
pub fn sky_visibility(map: &Heightmap, cell_size: f32, radius: f32) -> Vec<f32> {
    let (width, height) = (map.width(), map.height());
    let data = map.data();
    let h = |i: usize| {
        let v = data[i];
        if v.is_finite() { v } else { 0.0 }
    };
    let steps = sample_steps(radius / cell_size.max(f32::MIN_POSITIVE));
    let mut out = vec![1.0f32; data.len()];
    out.par_chunks_mut(width.max(1))
        .enumerate()
        .for_each(|(y, row)| {
            for (x, cell) in row.iter_mut().enumerate() {
                let here = h(y * width + x);
                let mut seen = 0.0f32;
                for &(dx, dy) in &NEIGHBOURS {
                    let run = if dx != 0 && dy != 0 {
                        std::f32::consts::SQRT_2
                    } else {
                        1.0
                    };
                    let mut tangent = 0.0f32;
                    for &step in &steps {
                        let (sx, sy) = (x as isize + dx * step, y as isize + dy * step);
                        if sx < 0 || sy < 0 || sx >= width as isize || sy >= height as isize {
                            break;
                        }
                        let rise = h(sy as usize * width + sx as usize) - here;
                        let distance = step as f32 * run * cell_size;
                        tangent = tangent.max(rise / distance);
                    }
                    // The sky above a horizon at elevation angle a: 1 − sin a.
                    seen += 1.0 - tangent / (1.0 + tangent * tangent).sqrt();
                }
                *cell = seen / NEIGHBOURS.len() as f32;
            }
        });
    out
}

/// Distances in cells at which the horizon is sampled, up to `reach`.
fn sample_steps(reach: f32) -> Vec<isize> {
    let mut steps = Vec::new();
    let mut step = 1isize;
    while (step as f32) <= reach.max(1.0) && steps.len() < 64 {
        steps.push(step);
        // 1, 2, 3, 4, 6, 8, 12, 16, …: each step at most half again.
        step = (step + (step / 2).max(1)).max(step + 1);
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_ground_sees_all_the_sky_and_a_trench_floor_less() {
        let size = 33;
        let flat = Heightmap::new(size, size);
        assert!(sky_visibility(&flat, 1.0, 16.0).iter().all(|&v| v == 1.0));
        // A trench running north-south, 10 deep and 4 wide.
        let data: Vec<f32> = (0..size * size)
            .map(|i| {
                if (i % size).abs_diff(16) <= 2 {
                    0.0
                } else {
                    10.0
                }
            })
            .collect();
        let trench = Heightmap::from_vec(size, size, data).unwrap_or_else(|| Heightmap::new(1, 1));
        let sky = sky_visibility(&trench, 1.0, 16.0);
        let floor = sky[16 * size + 16];
        let rim = sky[16 * size + 2];
        assert!(floor < 0.7, "the floor sees less sky: {floor}");
        assert_eq!(rim, 1.0, "the plateau sees it all");
    }

    #[test]
    fn steps_grow_and_stop_at_the_radius() {
        assert_eq!(sample_steps(10.0), vec![1, 2, 3, 4, 6, 9]);
        assert_eq!(sample_steps(0.2), vec![1]);
    }
}
