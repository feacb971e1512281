//! The panels' small pictures of a map: a grey heightmap, the splat
//! painted at the preview's size, a height histogram.

use orogen_core::Heightmap;
use orogen_core::splat::{TileImages, render_splat};

/// Longest side of the 2D preview in the View panel.
pub const PREVIEW_SIDE: usize = 192;
pub const HISTOGRAM_BINS: usize = 64;

/// A small RGBA image for the 2D preview (egui texture data).
#[derive(Clone, Debug, Default)]
pub struct PreviewImage {
    pub width: usize,
    pub height: usize,
    pub rgba: Vec<u8>,
}

/// The map resampled (bilinear, corner to corner) to the 2D preview's size.
pub fn resample_for_preview(map: &Heightmap) -> Heightmap {
    let (pw, ph) = preview_size(map.width(), map.height());
    let (pw, ph) = (pw.max(2), ph.max(2));
    let mut data = Vec::with_capacity(pw * ph);
    for y in 0..ph {
        let my = y as f32 * (map.height() - 1) as f32 / (ph - 1) as f32;
        for x in 0..pw {
            let mx = x as f32 * (map.width() - 1) as f32 / (pw - 1) as f32;
            data.push(map.sample_bilinear(mx, my));
        }
    }
    Heightmap::from_vec(pw, ph, data).unwrap_or_else(|| Heightmap::new(pw, ph))
}

/// The splat of `small` (a map `full_width` cells wide resampled) at the
/// preview's size, with `resolved` bands (auto bands already resolved over
/// the full map's range); grey when it cannot be painted.
pub fn paint_preview(
    small: &Heightmap,
    full_width: usize,
    cell_size: f32,
    resolved: &orogen_core::splat::TileSet,
    images: &TileImages,
) -> PreviewImage {
    let mut resolved = resolved.clone();
    resolved.auto_bands = false;
    let cell = cell_size * full_width.saturating_sub(1) as f32 / (small.width() - 1).max(1) as f32;
    let (w, h) = (small.width(), small.height());
    match render_splat(small, cell, &resolved, images, w, h) {
        Ok(splat) => PreviewImage {
            width: w,
            height: h,
            rgba: splat.rgba(),
        },
        Err(_) => PreviewImage {
            width: w,
            height: h,
            rgba: [96u8, 96, 96, 255].repeat(w * h),
        },
    }
}

/// Size of a preview of a `width x height` image, longest side
/// [`PREVIEW_SIDE`].
fn preview_size(width: usize, height: usize) -> (usize, usize) {
    let longest = width.max(height).max(1);
    let scale = PREVIEW_SIDE as f32 / longest as f32;
    (
        ((width as f32 * scale).round() as usize).max(1),
        ((height as f32 * scale).round() as usize).max(1),
    )
}

pub fn downsample_rgba(rgba: &[u8], width: usize, height: usize) -> PreviewImage {
    let (pw, ph) = preview_size(width, height);
    let mut out = Vec::with_capacity(pw * ph * 4);
    for y in 0..ph {
        let sy = (y * height / ph).min(height.saturating_sub(1));
        for x in 0..pw {
            let sx = (x * width / pw).min(width.saturating_sub(1));
            let i = (sy * width + sx) * 4;
            out.extend_from_slice(rgba.get(i..i + 4).unwrap_or(&[0, 0, 0, 255]));
        }
    }
    PreviewImage {
        width: pw,
        height: ph,
        rgba: out,
    }
}

pub fn grey_preview(map: &Heightmap, min: f32, max: f32) -> PreviewImage {
    let (pw, ph) = preview_size(map.width(), map.height());
    let span = (max - min).max(f32::EPSILON);
    let mut out = Vec::with_capacity(pw * ph * 4);
    for y in 0..ph {
        let my = y as f32 * (map.height() - 1) as f32 / (ph.max(2) - 1) as f32;
        for x in 0..pw {
            let mx = x as f32 * (map.width() - 1) as f32 / (pw.max(2) - 1) as f32;
            let v = ((map.sample_bilinear(mx, my) - min) / span * 255.0).clamp(0.0, 255.0) as u8;
            out.extend_from_slice(&[v, v, v, 255]);
        }
    }
    PreviewImage {
        width: pw,
        height: ph,
        rgba: out,
    }
}

/// Counts heights into `bins` equal bins over `min..=max`.
pub fn histogram(map: &Heightmap, min: f32, max: f32, bins: usize) -> Vec<u32> {
    let mut counts = vec![0u32; bins.max(1)];
    let span = max - min;
    let last = counts.len() - 1;
    for &v in map.data() {
        let bin = if span > 0.0 {
            (((v - min) / span) * counts.len() as f32) as usize
        } else {
            0
        };
        counts[bin.min(last)] += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_counts_every_cell() {
        let map = Heightmap::from_vec(2, 2, vec![0.0, 1.0, 2.0, 3.0])
            .unwrap_or_else(|| Heightmap::new(2, 2));
        let counts = histogram(&map, 0.0, 3.0, 3);
        assert_eq!(counts.iter().sum::<u32>(), 4);
        assert_eq!(counts, vec![1, 1, 2]);
    }
}
