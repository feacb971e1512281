//! What the GPU path uploads for a map: its heights as paged R32Float
//! layers of one array texture, the LOD node bounds, and the grid the
//! splat's tiles repeat on.

use super::cpu::MIN_TEXTURE_SIDE;
use super::lod::HeightBounds;
use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{
    Extent3d, TextureDimension, TextureFormat, TextureViewDescriptor, TextureViewDimension,
};
use orogen_core::Heightmap;
use orogen_core::maps::DerivedMap;
use orogen_core::splat::RuleMaps;

/// What a job hands over for the GPU path: the height texture, the node
/// bounds for LOD, the grid the splat is drawn on, and the maps the
/// splat's map rules read (paged like the heights, one run of pages per
/// map, in `rule_kinds`' order).
pub struct HeightUpload {
    pub image: Image,
    pub bounds: HeightBounds,
    pub grid: SplatGrid,
    pub rule_maps: Image,
    pub rule_kinds: Vec<DerivedMap>,
}

/// Where and how densely the splat is drawn: the map's size and cell, and
/// the texel grid the tiles repeat on (that of `texture.png` at
/// `texels`), as world facts independent of the sampling shown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplatGrid {
    pub map_width: u32,
    pub map_height: u32,
    pub cell_size: f32,
    /// Texture size whose texel grid the tiles follow.
    pub texels: (usize, usize),
}

/// The texel grid the tiles repeat on, for an export of `width × height`
/// cells: about two texels per export cell (`texture.png` at that size
/// shows the tiles at the same scale), whatever sampling is on screen.
pub fn splat_texels(width: u32, height: u32) -> (usize, usize) {
    let longest = width.max(height).max(1) as usize;
    let side = (longest * 2).clamp(MIN_TEXTURE_SIDE, 16384);
    let scale = side as f32 / longest as f32;
    let w = ((width as f32 * scale).round() as usize).max(2);
    let h = ((height as f32 * scale).round() as usize).max(2);
    (w, h)
}

/// The GPU path's data for `map`: its height texture and LOD bounds, and
/// `rules`' maps (values per cell of `map`) as their own texture.
pub fn gpu_upload(
    map: &Heightmap,
    cell_size: f32,
    texels: (usize, usize),
    rules: &RuleMaps,
) -> HeightUpload {
    let (w, h) = (map.width() as u32, map.height() as u32);
    let bounds = HeightBounds::new(w, h, map.data());
    let cells = map.data().len();
    let (rule_kinds, grids): (Vec<DerivedMap>, Vec<&[f32]>) = rules
        .kinds
        .iter()
        .zip(&rules.values)
        .filter(|(_, v)| v.len() == cells)
        .map(|(&k, v)| (k, v.as_slice()))
        .unzip();
    let rule_maps = if grids.is_empty() {
        paged_image(1, 1, &[&[0.0]], true)
    } else {
        paged_image(w, h, &grids, false)
    };
    HeightUpload {
        image: height_image(w, h, map.data(), bounds.all_finite),
        rule_maps,
        rule_kinds,
        bounds,
        grid: SplatGrid {
            map_width: w,
            map_height: h,
            cell_size,
            texels,
        },
    }
}

/// Cells a side of one page of the height texture: maps up to 4097² are
/// one page, larger ones are split into pages of 4097² texels (sharing
/// their edge rows and columns), layers of one array texture, so a 16385²
/// map is drawn in full on any adapter whose textures reach 4097 a side.
pub const PAGE_CELLS: u32 = 4096;

/// How a map is split into pages: pages along x and z, and a page's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageLayout {
    pub columns: u32,
    pub rows: u32,
    pub page_width: u32,
    pub page_height: u32,
}

impl PageLayout {
    pub fn of(width: u32, height: u32) -> PageLayout {
        let pages = |side: u32| (side.max(2) - 1).div_ceil(PAGE_CELLS);
        PageLayout {
            columns: pages(width),
            rows: pages(height),
            page_width: width.min(PAGE_CELLS + 1),
            page_height: height.min(PAGE_CELLS + 1),
        }
    }

    /// The page holding map cell `(x, z)` and the cell's place in it (the
    /// shader's formula: the last page takes the shared edge).
    pub fn locate(&self, x: u32, z: u32) -> (u32, u32, u32) {
        let px = (x / PAGE_CELLS).min(self.columns - 1);
        let pz = (z / PAGE_CELLS).min(self.rows - 1);
        (
            pz * self.columns + px,
            x - px * PAGE_CELLS,
            z - pz * PAGE_CELLS,
        )
    }
}

/// The map's heights as R32Float pages of one array texture (native byte
/// order, which is what the GPU reads on every platform Bevy runs on).
/// Non-finite heights become 0, so the shader never sees one; `all_finite`
/// (known from the node bounds' pass) spares a scan for them.
pub fn height_image(width: u32, height: u32, heights: &[f32], all_finite: bool) -> Image {
    paged_image(width, height, &[heights], all_finite)
}

/// Grids of `width × height` values (heights, or the splat's rule maps)
/// as R32Float pages of one array texture: grid g's pages are layers
/// `g · pages ..`, each laid out as [`PageLayout`] says.
pub fn paged_image(width: u32, height: u32, grids: &[&[f32]], all_finite: bool) -> Image {
    use rayon::prelude::*;
    let layout = PageLayout::of(width, height);
    let pages = layout.columns * layout.rows;
    let layers = pages * grids.len().max(1) as u32;
    let (pw, ph) = (layout.page_width as usize, layout.page_height as usize);
    let mut bytes = vec![0u8; pw * ph * layers as usize * 4];
    // Pages written by all threads (a 16385² map is 1 GiB), straight into
    // the texture's bytes.
    bytes
        .par_chunks_mut(pw * ph * 4)
        .enumerate()
        .for_each(|(layer, page)| {
            let Some(heights) = grids.get(layer / pages as usize) else {
                return;
            };
            let layer = layer % pages as usize;
            let (px, pz) = (layer as u32 % layout.columns, layer as u32 / layout.columns);
            let (x0, z0) = ((px * PAGE_CELLS) as usize, (pz * PAGE_CELLS) as usize);
            let columns = pw.min(width as usize - x0);
            for (row, line) in page.chunks_exact_mut(pw * 4).enumerate() {
                let z = z0 + row;
                if z >= height as usize {
                    break;
                }
                let start = z * width as usize + x0;
                let source = &heights[start..start + columns];
                line[..columns * 4].copy_from_slice(bytemuck::cast_slice(source));
                if !all_finite {
                    for (texel, &v) in line.chunks_exact_mut(4).zip(source) {
                        if !v.is_finite() {
                            texel.copy_from_slice(&0.0f32.to_ne_bytes());
                        }
                    }
                }
            }
        });
    let mut image = Image::new(
        Extent3d {
            width: layout.page_width,
            height: layout.page_height,
            depth_or_array_layers: layers,
        },
        TextureDimension::D2,
        bytes,
        TextureFormat::R32Float,
        RenderAssetUsages::RENDER_WORLD,
    );
    image.texture_view_descriptor = Some(TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2Array),
        ..default()
    });
    image
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_maps_are_split_into_pages_that_hold_every_cell() {
        assert_eq!(
            PageLayout::of(4097, 1025),
            PageLayout {
                columns: 1,
                rows: 1,
                page_width: 4097,
                page_height: 1025
            }
        );
        // 9000 × 4200 cells: three pages across, two down, edge pages
        // partly empty.
        let (w, h) = (9000u32, 4200u32);
        let layout = PageLayout::of(w, h);
        assert_eq!((layout.columns, layout.rows), (3, 2));
        let heights: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
        let image = height_image(w, h, &heights, true);
        let size = image.texture_descriptor.size;
        assert_eq!(
            (size.width, size.height, size.depth_or_array_layers),
            (4097, 4097, 6)
        );
        let data = image.data.as_deref().unwrap_or_default();
        let texel = |layer: u32, x: u32, z: u32| {
            let i = (((layer * 4097 + z) * 4097 + x) * 4) as usize;
            f32::from_ne_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]])
        };
        // Every cell is where the shader's lookup finds it (a sample).
        for (x, z) in [
            (0, 0),
            (4095, 17),
            (4096, 4096),
            (4097, 4096),
            (8999, 4199),
            (8192, 10),
            (8193, 4100),
        ] {
            let (layer, lx, lz) = layout.locate(x, z);
            assert_eq!(
                texel(layer, lx, lz),
                heights[(z * w + x) as usize],
                "cell {x},{z}"
            );
        }
    }
}
