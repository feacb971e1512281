//! The flow overlay's drainage network, built from a shown map.

use orogen_core::Heightmap;

/// Longest side the flow overlay's drainage is routed on: a larger shown
/// map is resampled to it first (a 16385² map would take seconds and
/// gigabytes; the network's look is set in world units, so it stays the
/// same, only coarser).
pub const FLOW_MAX_SIDE: usize = 1025;

/// The drainage network of a shown map: a 0..1 strength per cell of a
/// grid over the map's extent (the map itself, or the map resampled to
/// at most [`FLOW_MAX_SIDE`] a side).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowField {
    pub width: usize,
    pub height: usize,
    pub strength: Vec<f32>,
}

impl FlowField {
    /// `rgba` (`width × height` pixels over the same extent) with the
    /// network tinted in.
    pub fn tint(&self, rgba: &mut [u8], width: usize, height: usize) {
        orogen_core::maps::flow::tint_rgba(
            rgba,
            width,
            height,
            &self.strength,
            self.width,
            self.height,
        );
    }
}

/// The drainage network of `map` (cells `cell_size` apart) for the flow
/// overlay, routed on the map itself or, above [`FLOW_MAX_SIDE`] a side,
/// on the map resampled (bilinear, corner to corner) to that.
pub fn flow_field(map: &Heightmap, cell_size: f32) -> FlowField {
    let (w, h) = (map.width(), map.height());
    let longest = w.max(h);
    if longest <= FLOW_MAX_SIDE {
        return FlowField {
            width: w,
            height: h,
            strength: orogen_core::maps::flow::flow_strength(map, cell_size),
        };
    }
    let (small, cell) = resampled(map, cell_size, FLOW_MAX_SIDE);
    let (fw, fh) = (small.width(), small.height());
    FlowField {
        width: fw,
        height: fh,
        strength: orogen_core::maps::flow::flow_strength(&small, cell),
    }
}

/// `map` resampled (bilinear, corner to corner) to at most `max_side`
/// cells a side, with the cell size that keeps its extent; the map itself
/// when it is no larger.
pub fn resampled(map: &Heightmap, cell_size: f32, max_side: usize) -> (Heightmap, f32) {
    let (w, h) = (map.width(), map.height());
    let longest = w.max(h);
    if longest <= max_side {
        return (map.clone(), cell_size);
    }
    let scale = (max_side - 1) as f32 / (longest - 1) as f32;
    let fw = (((w - 1) as f32 * scale).round() as usize + 1).max(2);
    let fh = (((h - 1) as f32 * scale).round() as usize + 1).max(2);
    let mut data = Vec::with_capacity(fw * fh);
    for y in 0..fh {
        let my = y as f32 * (h - 1) as f32 / (fh - 1) as f32;
        for x in 0..fw {
            let mx = x as f32 * (w - 1) as f32 / (fw - 1) as f32;
            data.push(map.sample_bilinear(mx, my));
        }
    }
    let small = Heightmap::from_vec(fw, fh, data).unwrap_or_else(|| Heightmap::new(fw, fh));
    (small, cell_size * (w - 1) as f32 / (fw - 1) as f32)
}
