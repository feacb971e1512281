//! Which point of the shown terrain lies under the cursor: a ray from the
//! camera marched over the displaced surface, and the way back from the
//! scene to world coordinates. Pure functions over the shown map.
//!
//! The scene centres the map on the origin: cell `(col, row)` sits at
//! `(col·cell − half_width, height·height_scale, row·cell − half_depth)`,
//! so world point `(x, y)` (x east, y south, world units from the
//! north-west corner) is scene `(x − half_width, …, y − half_depth)`.
//! The brush on the terrain, in the panels, feeds these the camera's ray.

use bevy::math::Vec3;
use orogen_core::Heightmap;

/// The shown terrain as the scene draws it.
#[derive(Clone, Copy, Debug)]
pub struct SceneTerrain<'a> {
    pub map: &'a Heightmap,
    /// World units between cells.
    pub cell: f32,
    /// The view's vertical exaggeration.
    pub height_scale: f32,
    /// The map's lowest and highest heights (before exaggeration).
    pub low: f32,
    pub high: f32,
}

/// Bisection steps after the march finds a crossing: 2^-24 of half a cell.
const BISECTIONS: u32 = 24;
/// Most samples along one ray; a longer ray takes longer steps.
const MAX_SAMPLES: f32 = 100_000.0;

impl SceneTerrain<'_> {
    fn half_width(&self) -> f32 {
        (self.map.width().saturating_sub(1)) as f32 * self.cell * 0.5
    }

    fn half_depth(&self) -> f32 {
        (self.map.height().saturating_sub(1)) as f32 * self.cell * 0.5
    }

    /// The exaggerated surface height under scene point `(x, z)`
    /// (bilinear between cells, clamped at the edges).
    pub fn surface(&self, x: f32, z: f32) -> f32 {
        let col = (x + self.half_width()) / self.cell;
        let row = (z + self.half_depth()) / self.cell;
        self.map.sample_bilinear(col, row) * self.height_scale
    }

    /// The world point (x east, y south) of scene point `p`.
    pub fn to_world(&self, p: Vec3) -> [f32; 2] {
        [p.x + self.half_width(), p.z + self.half_depth()]
    }

    /// The scene point on the surface at world point `at`.
    pub fn on_surface(&self, at: [f32; 2]) -> Vec3 {
        let (x, z) = (at[0] - self.half_width(), at[1] - self.half_depth());
        Vec3::new(x, self.surface(x, z), z)
    }

    /// The first point where the ray from `origin` along `direction`
    /// meets the surface, `None` when it misses the terrain's box or
    /// passes over it. A ray that starts under the surface (inside a
    /// wall of the box) hits where it enters the box.
    pub fn ray_hit(&self, origin: Vec3, direction: Vec3) -> Option<Vec3> {
        let dir = direction.try_normalize()?;
        if !(self.cell > 0.0 && self.map.width() > 1 && self.map.height() > 1) {
            return None;
        }
        let (hw, hd) = (self.half_width(), self.half_depth());
        let scale = self.height_scale;
        let (y0, y1) = (self.low * scale, self.high * scale);
        let (y0, y1) = (y0.min(y1), y0.max(y1));
        let (mut enter, mut leave) = (0.0f32, f32::INFINITY);
        for (o, d, lo, hi) in [
            (origin.x, dir.x, -hw, hw),
            (origin.y, dir.y, y0, y1),
            (origin.z, dir.z, -hd, hd),
        ] {
            if d.abs() < 1e-12 {
                if o < lo || o > hi {
                    return None;
                }
                continue;
            }
            let (a, b) = ((lo - o) / d, (hi - o) / d);
            enter = enter.max(a.min(b));
            leave = leave.min(a.max(b));
        }
        // NaN (a degenerate camera) misses too.
        if enter > leave || enter.is_nan() || leave.is_nan() {
            return None;
        }
        let below = |t: f32| {
            let p = origin + dir * t;
            p.y - self.surface(p.x, p.z)
        };
        let mut step = self.cell * 0.5;
        if (leave - enter) / step > MAX_SAMPLES {
            step = (leave - enter) / MAX_SAMPLES;
        }
        if below(enter) <= 0.0 {
            return Some(origin + dir * enter);
        }
        let mut before = enter;
        loop {
            let t = (before + step).min(leave);
            if below(t) <= 0.0 {
                // The crossing lies in (before, t]: halve it down.
                let (mut above, mut under) = (before, t);
                for _ in 0..BISECTIONS {
                    let mid = 0.5 * (above + under);
                    if below(mid) <= 0.0 {
                        under = mid;
                    } else {
                        above = mid;
                    }
                }
                return Some(origin + dir * under);
            }
            if t >= leave {
                return None;
            }
            before = t;
        }
    }

    /// `points` world points around `centre` at `radius`, lifted onto the
    /// surface: the brush's ring as the terrain carries it.
    pub fn ring(&self, centre: [f32; 2], radius: f32, points: usize) -> Vec<Vec3> {
        (0..=points)
            .map(|i| {
                let a = i as f32 / points.max(1) as f32 * std::f32::consts::TAU;
                self.on_surface([centre[0] + radius * a.cos(), centre[1] + radius * a.sin()])
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn terrain(map: &Heightmap, cell: f32, scale: f32) -> SceneTerrain<'_> {
        let (low, high) = map
            .data()
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        SceneTerrain {
            map,
            cell,
            height_scale: scale,
            low,
            high,
        }
    }

    fn map_of(width: usize, height: usize, values: &[f32]) -> Heightmap {
        let mut map = Heightmap::new(width, height);
        map.data_mut().copy_from_slice(values);
        map
    }

    /// The obvious way: tiny steps from the camera until the ray is under
    /// the surface.
    fn naive_hit(t: &SceneTerrain, origin: Vec3, dir: Vec3, step: f32) -> Option<Vec3> {
        let dir = dir.normalize();
        let (hw, hd) = (t.half_width(), t.half_depth());
        let mut s = 0.0;
        while s < 200.0 {
            let p = origin + dir * s;
            let inside = p.x.abs() <= hw && p.z.abs() <= hd;
            if inside && p.y <= t.surface(p.x, p.z) {
                return Some(p);
            }
            s += step;
        }
        None
    }

    #[test]
    fn straight_down_finds_the_bilinear_height_and_maps_back_to_the_world() {
        // 3×3 cells 10 apart: the scene spans -10..10.
        let map = map_of(3, 3, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let t = terrain(&map, 10.0, 2.0);
        let hit = t
            .ray_hit(Vec3::new(2.5, 100.0, -5.0), Vec3::NEG_Y)
            .expect("the ray falls on the terrain");
        // Cell (1.25, 0.5): 1.25 + 3·0.5 = 2.75, exaggerated twice.
        assert!((hit.y - 5.5).abs() < 1e-4, "{hit}");
        assert!((hit.x - 2.5).abs() < 1e-5 && (hit.z + 5.0).abs() < 1e-5);
        assert_eq!(t.to_world(hit), [12.5, 5.0]);
        let back = t.on_surface([12.5, 5.0]);
        assert!((back - hit).length() < 1e-4);
    }

    #[test]
    fn rays_that_miss_or_pass_over_find_nothing() {
        let map = map_of(2, 2, &[0.0, 0.0, 0.0, 1.0]);
        let t = terrain(&map, 10.0, 1.0);
        // Beside the terrain, falling.
        assert_eq!(t.ray_hit(Vec3::new(50.0, 10.0, 0.0), Vec3::NEG_Y), None);
        // Over it, level, above the highest point.
        assert_eq!(t.ray_hit(Vec3::new(-20.0, 2.0, 0.0), Vec3::X), None);
        // Looking up from above.
        assert_eq!(t.ray_hit(Vec3::new(0.0, 5.0, 0.0), Vec3::Y), None);
        // No direction.
        assert_eq!(t.ray_hit(Vec3::new(0.0, 5.0, 0.0), Vec3::ZERO), None);
    }

    #[test]
    fn a_level_ray_hits_the_first_rise_in_its_way() {
        // A wall of height 5 at the east column of a flat 5×1 strip.
        let mut values = vec![0.0; 10];
        values[4] = 5.0;
        values[9] = 5.0;
        let map = map_of(5, 2, &values);
        let t = terrain(&map, 1.0, 1.0);
        // Level at height 2.5, from the west: the slope from column 3 to
        // 4 reaches 2.5 half way, at scene x = 1.5 − 2 + 0.5 = 1.5.
        let hit = t
            .ray_hit(Vec3::new(-10.0, 2.5, 0.0), Vec3::X)
            .expect("it hits the slope");
        assert!((hit.x - 1.5).abs() < 1e-4, "{hit}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Gentle random maps and steep rays (so the ray crosses the
        /// surface once): the march agrees with tiny steps.
        #[test]
        fn the_march_agrees_with_tiny_steps(
            values in proptest::collection::vec(0.0f32..3.0, 64),
            x in -30.0f32..30.0, z in -30.0f32..30.0,
            yaw in 0.0f32..std::f32::consts::TAU,
            down in 0.8f32..1.5,
        ) {
            let map = map_of(8, 8, &values);
            let t = terrain(&map, 10.0, 1.0);
            let dir = Vec3::new(yaw.cos() * down.cos(), -down.sin(), yaw.sin() * down.cos());
            let origin = Vec3::new(x, 40.0, z) - dir * 10.0;
            let fast = t.ray_hit(origin, dir);
            let slow = naive_hit(&t, origin, dir, 0.001);
            match (fast, slow) {
                (Some(a), Some(b)) => prop_assert!((a - b).length() < 0.01, "{a} vs {b}"),
                (None, None) => {}
                // The box's rim: the tiny steps may land a hair outside.
                (a, b) => {
                    let p = a.or(b).unwrap_or_default();
                    prop_assert!(p.x.abs() > 34.9 || p.z.abs() > 34.9, "{a:?} vs {b:?}");
                }
            }
        }
    }

    #[test]
    fn the_ring_lies_on_the_surface_at_the_radius() {
        let map = map_of(3, 3, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let t = terrain(&map, 10.0, 1.0);
        let ring = t.ring([10.0, 10.0], 4.0, 16);
        assert_eq!(ring.len(), 17, "closed: the last point is the first");
        for p in &ring {
            let w = t.to_world(*p);
            let r = ((w[0] - 10.0).powi(2) + (w[1] - 10.0).powi(2)).sqrt();
            assert!((r - 4.0).abs() < 1e-4);
            assert!((p.y - t.surface(p.x, p.z)).abs() < 1e-6);
        }
    }
}
