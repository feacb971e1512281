//! Built-in seamless tile images (sand, grass, rock, snow), made from
//! periodic value noise so they repeat without seams. `assets/tiles/*.png`
//! are these images written out (`orogen tiles --out assets/tiles`).

use image::RgbImage;

/// Names usable as `builtin:<name>` tile images, lowest band first.
pub const BUILTIN_TILES: &[&str] = &["sand", "grass", "rock", "snow"];
/// Side of every built-in tile image in pixels.
pub const TILE_SIDE: u32 = 256;

/// Hash of a lattice point: a fixed integer mix, identical everywhere.
fn lattice(ix: i64, iy: i64, seed: u32) -> f32 {
    let mut h = (ix as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (iy as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (seed as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^= h >> 31;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 29;
    (h >> 40) as f32 / (1u64 << 24) as f32
}

/// Value noise with period `period` lattice cells over the tile side.
fn periodic_value(x: f32, y: f32, period: u32, seed: u32) -> f32 {
    let scale = period as f32 / TILE_SIDE as f32;
    let (fx, fy) = (x * scale, y * scale);
    let (x0, y0) = (fx.floor(), fy.floor());
    let (tx, ty) = (fx - x0, fy - y0);
    let smooth = |t: f32| t * t * (3.0 - 2.0 * t);
    let (sx, sy) = (smooth(tx), smooth(ty));
    let p = period as i64;
    let wrap = |v: f32| (v as i64).rem_euclid(p);
    let (ix0, iy0) = (wrap(x0), wrap(y0));
    let (ix1, iy1) = ((ix0 + 1) % p, (iy0 + 1) % p);
    let a = lattice(ix0, iy0, seed);
    let b = lattice(ix1, iy0, seed);
    let c = lattice(ix0, iy1, seed);
    let d = lattice(ix1, iy1, seed);
    let top = a + (b - a) * sx;
    let bottom = c + (d - c) * sx;
    top + (bottom - top) * sy
}

/// Sum of octaves, each period doubling: in [0, 1].
fn periodic_fbm(x: f32, y: f32, base_period: u32, octaves: u32, seed: u32) -> f32 {
    let (mut sum, mut amp, mut norm, mut period) = (0.0, 1.0, 0.0, base_period);
    for o in 0..octaves {
        sum += periodic_value(x, y, period, seed.wrapping_add(o * 101)) * amp;
        norm += amp;
        amp *= 0.5;
        period = (period * 2).min(TILE_SIDE);
    }
    sum / norm
}

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

fn pixel(name: &str, x: f32, y: f32) -> [f32; 3] {
    match name {
        "sand" => {
            let grain = periodic_fbm(x, y, 64, 3, 11);
            let dunes = periodic_fbm(x, y, 4, 3, 12);
            let ripple =
                ((y + dunes * 40.0) * std::f32::consts::TAU * 8.0 / TILE_SIDE as f32).sin();
            let c = mix([176.0, 152.0, 104.0], [222.0, 204.0, 150.0], dunes);
            let k = 0.88 + 0.14 * grain + 0.04 * ripple;
            [c[0] * k, c[1] * k, c[2] * k]
        }
        "grass" => {
            let patches = periodic_fbm(x, y, 4, 4, 21);
            let blades = periodic_fbm(x, y, 128, 2, 22);
            let c = mix([52.0, 86.0, 30.0], [104.0, 138.0, 52.0], patches);
            let k = 0.8 + 0.35 * blades;
            [c[0] * k, c[1] * k, c[2] * k]
        }
        "rock" => {
            let body = periodic_fbm(x, y, 8, 5, 31);
            let ridge = 1.0 - (periodic_fbm(x, y, 16, 3, 32) * 2.0 - 1.0).abs();
            let crack = ridge.powi(12);
            let c = mix([92.0, 86.0, 80.0], [150.0, 144.0, 136.0], body);
            let k = 1.0 - 0.45 * crack;
            [c[0] * k, c[1] * k, c[2] * k]
        }
        _ => {
            let drift = periodic_fbm(x, y, 4, 4, 41);
            let sparkle = periodic_fbm(x, y, 128, 1, 42);
            let c = mix([208.0, 216.0, 232.0], [246.0, 248.0, 252.0], drift);
            let k = 0.97 + 0.05 * sparkle;
            [c[0] * k, c[1] * k, c[2] * k]
        }
    }
}

/// The built-in tile `name` (one of [`BUILTIN_TILES`]).
pub fn builtin_tile(name: &str) -> Option<RgbImage> {
    if !BUILTIN_TILES.contains(&name) {
        return None;
    }
    Some(RgbImage::from_fn(TILE_SIDE, TILE_SIDE, |x, y| {
        let p = pixel(name, x as f32, y as f32);
        image::Rgb(p.map(|c| c.round().clamp(0.0, 255.0) as u8))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_are_seamless_and_varied() {
        for name in BUILTIN_TILES {
            let tile = builtin_tile(name).unwrap();
            let last = TILE_SIDE - 1;
            // Across the wrap, neighbours differ no more than inside the tile.
            let mut seam = 0.0f64;
            let mut inner = 0.0f64;
            for y in 0..TILE_SIDE {
                let a = tile.get_pixel(last, y)[1] as f64;
                let b = tile.get_pixel(0, y)[1] as f64;
                let c = tile.get_pixel(1, y)[1] as f64;
                seam += (a - b).abs();
                inner += (b - c).abs();
            }
            assert!(
                seam <= inner * 1.6 + 64.0,
                "{name}: seam {seam} vs inner {inner}"
            );
            let distinct: std::collections::HashSet<_> = tile.pixels().map(|p| p.0).collect();
            assert!(
                distinct.len() > 200,
                "{name} has only {} colours",
                distinct.len()
            );
        }
    }
}
