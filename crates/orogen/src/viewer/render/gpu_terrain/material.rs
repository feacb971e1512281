//! The terrain material: its uniform (map placement, LOD ranges, the
//! splat's bands and slope rules), the height texture, the tile array and
//! the flow overlay's strength texture. Band and slope edits and switching
//! the overlay rewrite the uniform only.

use crate::viewer::display_data::flow::FlowField;
#[cfg(doc)]
use crate::viewer::display_data::gpu::paged_image;
use crate::viewer::display_data::gpu::{PAGE_CELLS, PageLayout, SplatGrid};
use crate::viewer::display_data::lod::{LodRanges, MAX_LEVELS, MORPH_START};
use bevy::asset::RenderAssetUsages;
use bevy::image::{ImageAddressMode, ImageFilterMode, ImageSampler, ImageSamplerDescriptor};
use bevy::mesh::MeshVertexBufferLayoutRef;
use bevy::pbr::{MaterialPipeline, MaterialPipelineKey};
use bevy::prelude::*;
use bevy::render::render_resource::{
    AsBindGroup, Extent3d, PolygonMode, RenderPipelineDescriptor, ShaderType,
    SpecializedMeshPipelineError, TextureDimension, TextureFormat, TextureViewDescriptor,
    TextureViewDimension,
};
use bevy::shader::ShaderRef;
use orogen_core::maps::DerivedMap;
use orogen_core::splat::{TileImages, TileSet};

/// Most tiles the shader's tables hold (the recipe's own limit).
pub const MAX_TILES: usize = 16;
/// Longest side a tile keeps in the array (larger tiles are scaled down).
pub const MAX_TILE_SIDE: u32 = 2048;

pub const SHADER_PATH: &str = "embedded://orogen/viewer/render/gpu_terrain/terrain.wgsl";

/// What the shader reads besides the textures (see `terrain.wgsl`).
#[derive(ShaderType, Clone, Copy, Debug, Default, PartialEq)]
pub struct TerrainUniform {
    /// Half width, half depth, cell size, the map's highest point.
    pub map: Vec4,
    /// Map width and height in cells, texels per world unit along x and z.
    pub grid: Vec4,
    /// Tile count, unlit, triplanar on, morph start share.
    pub options: Vec4,
    /// Cells a page of the height texture spans, pages along x, pages per
    /// map (the rule maps' layers are that many per slot).
    pub pages: Vec4,
    /// The camera position the patches were selected for: every pass
    /// (shadow cascades too) morphs with it, so all draw the same mesh.
    pub eye: Vec4,
    pub ranges: [Vec4; MAX_LEVELS / 4],
    /// Per tile: low, optimal, high, unused.
    pub bands: [Vec4; MAX_TILES],
    /// Per tile: slope min (negative: no rule), slope max, unused, unused.
    pub slopes: [Vec4; MAX_TILES],
    /// Per tile: tile repeats per texel along x and z, offsets along x and z.
    pub tiling: [Vec4; MAX_TILES],
    /// Per tile: the map rule's slot in the rule-map texture (negative: no
    /// rule), low, high, reciprocal soft width (0: a hard edge).
    pub map_rules: [Vec4; MAX_TILES],
    /// The flow overlay: tint colour (sRGB, 0..1) and its opacity at full
    /// strength, 0 when the overlay is off.
    pub overlay: Vec4,
}

/// Switches of the drawing itself.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DrawOptions {
    /// Show the splat colour without lighting or fog (the agreement test).
    pub unlit: bool,
    pub triplanar: bool,
}

/// The uniform for `tiles` (effective bands), drawn on `grid`, with
/// tiles of the given pixel sizes and the rule maps uploaded in the slots
/// of `rule_kinds` (a rule whose map is not uploaded yet is left out until
/// its job lands).
pub fn terrain_uniform(
    grid: &SplatGrid,
    top_height: f32,
    tiles: &TileSet,
    tile_sizes: &[(u32, u32)],
    rule_kinds: &[DerivedMap],
    options: DrawOptions,
) -> TerrainUniform {
    let layout = PageLayout::of(grid.map_width, grid.map_height);
    let cell = grid.cell_size;
    let extent_x = (grid.map_width.max(2) - 1) as f32 * cell;
    let extent_z = (grid.map_height.max(2) - 1) as f32 * cell;
    let ranges = LodRanges { cell_size: cell };
    let mut uniform = TerrainUniform {
        map: Vec4::new(extent_x * 0.5, extent_z * 0.5, cell, top_height),
        grid: Vec4::new(
            grid.map_width as f32,
            grid.map_height as f32,
            grid.texels.0 as f32 / extent_x,
            grid.texels.1 as f32 / extent_z,
        ),
        options: Vec4::new(
            tiles.tiles.len().min(MAX_TILES) as f32,
            if options.unlit { 1.0 } else { 0.0 },
            if options.triplanar { 1.0 } else { 0.0 },
            MORPH_START,
        ),
        pages: Vec4::new(
            PAGE_CELLS as f32,
            layout.columns as f32,
            (layout.columns * layout.rows) as f32,
            0.0,
        ),
        ..default()
    };
    for level in 0..MAX_LEVELS {
        uniform.ranges[level / 4][level % 4] = ranges.range(level as u32);
    }
    for (i, tile) in tiles.tiles.iter().take(MAX_TILES).enumerate() {
        uniform.bands[i] = Vec4::new(tile.low, tile.optimal, tile.high, 0.0);
        uniform.slopes[i] = match tile.slope {
            Some(span) => Vec4::new(span.min.max(0.0), span.max, 0.0, 0.0),
            None => Vec4::new(-1.0, 0.0, 0.0, 0.0),
        };
        uniform.map_rules[i] = tile
            .map
            .and_then(|rule| {
                let slot = rule_kinds.iter().position(|&k| k == rule.map)?;
                let (lo, hi, inv_soft) = rule.constants();
                Some(Vec4::new(slot as f32, lo, hi, inv_soft))
            })
            .unwrap_or(Vec4::new(-1.0, 0.0, 0.0, 0.0));
        let (w, h) = tile_sizes.get(i).copied().unwrap_or((1, 1));
        let (w, h) = (w.max(1) as f32, h.max(1) as f32);
        // The CPU splat takes pixel ⌊tx·scale⌋ for texel tx; texel tx's
        // centre is at tx + 0.5, so the pixel centre there is reached by
        // (t − 0.5)·scale + 0.5.
        let s = tile.scale;
        uniform.tiling[i] = Vec4::new(s / w, s / h, (0.5 - 0.5 * s) / w, (0.5 - 0.5 * s) / h);
    }
    uniform
}

#[derive(Asset, TypePath, AsBindGroup, Clone, Debug)]
#[bind_group_data(TerrainMaterialKey)]
pub struct TerrainMaterial {
    #[uniform(0)]
    pub uniform: TerrainUniform,
    /// The map's heights, one R32Float texel per cell in pages
    /// ([`PageLayout`]), read with `textureLoad`.
    #[texture(
        1,
        sample_type = "float",
        filterable = false,
        dimension = "2d_array",
        visibility(vertex, fragment)
    )]
    pub heights: Handle<Image>,
    #[texture(2, dimension = "2d_array")]
    #[sampler(3)]
    pub tiles: Handle<Image>,
    /// The flow overlay's strength (R8Unorm) over the map's extent,
    /// corner to corner; 1×1 until a network is known ([`flow_image`]).
    #[texture(4)]
    #[sampler(5)]
    pub flow: Handle<Image>,
    /// The maps the splat's map rules read: per rule slot, R32Float pages
    /// laid out as the heights' ([`paged_image`]), read with `textureLoad`.
    #[texture(
        6,
        sample_type = "float",
        filterable = false,
        dimension = "2d_array",
        visibility(fragment)
    )]
    pub rule_maps: Handle<Image>,
    pub wireframe: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TerrainMaterialKey {
    wireframe: bool,
}

impl From<&TerrainMaterial> for TerrainMaterialKey {
    fn from(material: &TerrainMaterial) -> Self {
        TerrainMaterialKey {
            wireframe: material.wireframe,
        }
    }
}

impl Material for TerrainMaterial {
    fn vertex_shader() -> ShaderRef {
        SHADER_PATH.into()
    }

    fn fragment_shader() -> ShaderRef {
        SHADER_PATH.into()
    }

    fn prepass_vertex_shader() -> ShaderRef {
        SHADER_PATH.into()
    }

    fn specialize(
        _pipeline: &MaterialPipeline,
        descriptor: &mut RenderPipelineDescriptor,
        _layout: &MeshVertexBufferLayoutRef,
        key: MaterialPipelineKey<Self>,
    ) -> Result<(), SpecializedMeshPipelineError> {
        // Lines in the main pass only: shadows stay solid.
        let prepass = descriptor
            .vertex
            .shader_defs
            .contains(&"PREPASS_PIPELINE".into());
        if key.bind_group_data.wireframe && !prepass {
            descriptor.primitive.polygon_mode = PolygonMode::Line;
        }
        Ok(())
    }
}

/// The overlay's uniform entry: its tint and opacity when one is shown,
/// all zero otherwise (the shader then samples nothing).
pub fn overlay_uniform(tint: Option<[u8; 3]>) -> Vec4 {
    use orogen_core::maps::flow::TINT_OPACITY;
    let Some(tint) = tint else {
        return Vec4::ZERO;
    };
    let [r, g, b] = tint.map(|c| f32::from(c) / 255.0);
    Vec4::new(r, g, b, TINT_OPACITY)
}

/// The flow overlay's strength as an R8Unorm texture, one texel per cell
/// of the network's grid (a 1×1 zero texel without one), sampled
/// bilinearly and clamped at the edges.
pub fn flow_image(flow: Option<&FlowField>) -> Image {
    let (width, height, data) = match flow {
        Some(f) if f.width > 0 && f.height > 0 && f.strength.len() == f.width * f.height => (
            f.width as u32,
            f.height as u32,
            f.strength
                .iter()
                .map(|s| (s.clamp(0.0, 1.0) * 255.0).round() as u8)
                .collect(),
        ),
        _ => (1, 1, vec![0u8]),
    };
    let mut image = Image::new(
        Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::R8Unorm,
        RenderAssetUsages::RENDER_WORLD,
    );
    image.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
        address_mode_u: ImageAddressMode::ClampToEdge,
        address_mode_v: ImageAddressMode::ClampToEdge,
        mag_filter: ImageFilterMode::Linear,
        min_filter: ImageFilterMode::Linear,
        ..default()
    });
    image
}

/// The tile images as one array texture with a full mip chain, every
/// layer scaled to the largest tile's size (at most [`MAX_TILE_SIDE`]).
/// Stored as plain RGBA8: the shader mixes tiles in sRGB, as the CPU
/// splat mixes its bytes, and converts the result.
pub fn tile_array(images: &TileImages) -> Image {
    let side_x = images.images.iter().map(|i| i.width()).max().unwrap_or(1);
    let side_y = images.images.iter().map(|i| i.height()).max().unwrap_or(1);
    let (sx, sy) = (
        side_x.clamp(1, MAX_TILE_SIDE),
        side_y.clamp(1, MAX_TILE_SIDE),
    );
    let layers = images.images.len().max(1) as u32;
    let mips = 32 - sx.max(sy).leading_zeros();
    let mut data = Vec::new();
    for layer in 0..layers as usize {
        let rgba = match images.images.get(layer) {
            Some(image) => image::DynamicImage::ImageRgb8(image.clone()).to_rgba8(),
            None => image::RgbaImage::from_pixel(1, 1, image::Rgba([128, 128, 128, 255])),
        };
        let mut level = if rgba.dimensions() == (sx, sy) {
            rgba
        } else {
            image::imageops::resize(&rgba, sx, sy, image::imageops::FilterType::Triangle)
        };
        for mip in 0..mips {
            data.extend_from_slice(level.as_raw());
            if mip + 1 < mips {
                let (w, h) = ((level.width() / 2).max(1), (level.height() / 2).max(1));
                level =
                    image::imageops::resize(&level, w, h, image::imageops::FilterType::Triangle);
            }
        }
    }
    let mut image = Image::new_uninit(
        Extent3d {
            width: sx,
            height: sy,
            depth_or_array_layers: layers,
        },
        TextureDimension::D2,
        TextureFormat::Rgba8Unorm,
        RenderAssetUsages::RENDER_WORLD,
    );
    image.data = Some(data);
    image.texture_descriptor.mip_level_count = mips;
    image.texture_view_descriptor = Some(TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2Array),
        ..default()
    });
    image.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
        address_mode_u: ImageAddressMode::Repeat,
        address_mode_v: ImageAddressMode::Repeat,
        mag_filter: ImageFilterMode::Linear,
        min_filter: ImageFilterMode::Linear,
        mipmap_filter: ImageFilterMode::Linear,
        anisotropy_clamp: 8,
        ..default()
    });
    image
}

#[cfg(test)]
mod tests {
    use super::*;
    use orogen_core::params::Span;

    #[test]
    fn the_uniform_carries_bands_slopes_and_the_texel_grid() {
        let mut tiles = TileSet::default();
        tiles.tiles[1].slope = Some(Span::new(10.0, 30.0));
        tiles.tiles[2].scale = 0.5;
        let grid = SplatGrid {
            map_width: 129,
            map_height: 65,
            cell_size: 2.0,
            texels: (256, 128),
        };
        let sizes = vec![(256, 256); 4];
        tiles.tiles[3].map = Some(orogen_core::splat::MapRule {
            map: DerivedMap::Lakes,
            range: Span::new(0.5, 20.0),
            soft: 0.25,
        });
        tiles.tiles[0].map = Some(orogen_core::splat::MapRule {
            map: DerivedMap::Wear,
            range: Span::new(0.5, 20.0),
            soft: 0.0,
        });
        let kinds = [DerivedMap::Flow, DerivedMap::Lakes];
        let u = terrain_uniform(&grid, 37.0, &tiles, &sizes, &kinds, DrawOptions::default());
        assert_eq!(
            u.map_rules[3],
            Vec4::new(1.0, 0.5, 20.0, 4.0),
            "lakes in slot 1"
        );
        assert_eq!(u.map_rules[0].x, -1.0, "wear is not uploaded: no rule yet");
        assert_eq!(u.map_rules[1].x, -1.0, "grass has no map rule");
        assert_eq!(u.pages.z, 1.0, "one page per map");
        assert_eq!(u.map, Vec4::new(128.0, 64.0, 2.0, 37.0));
        assert_eq!(u.grid.z, 1.0, "256 texels over 256 world units");
        assert_eq!(u.options.x, 4.0);
        assert_eq!(u.bands[2].y, tiles.tiles[2].optimal);
        assert_eq!(u.slopes[1].x, 10.0);
        assert_eq!(u.slopes[0].x, -1.0, "sand has no slope rule");
        // Scale 0.5 stretches the tile twice as wide, and texel 0's centre
        // samples pixel 0's centre.
        assert_eq!(u.tiling[2].x, 0.5 / 256.0);
        let t = 0.5;
        assert!(((t * u.tiling[2].x + u.tiling[2].z) * 256.0 - 0.5).abs() < 1e-6);
    }

    #[test]
    fn the_flow_texture_holds_the_strength_and_the_tint_is_off_by_default() {
        let field = FlowField {
            width: 3,
            height: 2,
            strength: vec![0.0, 0.5, 1.0, 2.0, -1.0, 0.25],
            ..FlowField::default()
        };
        let image = flow_image(Some(&field));
        let size = image.texture_descriptor.size;
        assert_eq!((size.width, size.height), (3, 2));
        assert_eq!(image.texture_descriptor.format, TextureFormat::R8Unorm);
        assert_eq!(
            image.data.as_deref(),
            Some(&[0u8, 128, 255, 255, 0, 64][..])
        );
        let empty = flow_image(None);
        assert_eq!(empty.data.as_deref(), Some(&[0u8][..]));
        assert_eq!(overlay_uniform(None), Vec4::ZERO);
        let on = overlay_uniform(Some(orogen_core::maps::flow::TINT));
        assert_eq!(on.w, orogen_core::maps::flow::TINT_OPACITY);
        assert_eq!(on.z, 235.0 / 255.0);
        assert_eq!(TerrainUniform::default().overlay, Vec4::ZERO);
    }

    #[test]
    fn the_tile_array_has_a_layer_per_tile_and_a_full_mip_chain() {
        let images = TileImages {
            images: vec![
                image::RgbImage::from_pixel(64, 64, image::Rgb([10, 20, 30])),
                image::RgbImage::from_pixel(1, 1, image::Rgb([200, 100, 50])),
            ],
        };
        let array = tile_array(&images);
        let size = array.texture_descriptor.size;
        assert_eq!(
            (size.width, size.height, size.depth_or_array_layers),
            (64, 64, 2)
        );
        assert_eq!(array.texture_descriptor.mip_level_count, 7);
        // Layer-major: 64² + 32² + … + 1² texels per layer.
        let per_layer: usize = (0..7).map(|m| (64usize >> m).pow(2) * 4).sum();
        let data = array.data.as_deref().unwrap_or_default();
        assert_eq!(data.len(), 2 * per_layer);
        assert_eq!(
            &data[per_layer..per_layer + 4],
            &[200, 100, 50, 255],
            "flat tile scaled up"
        );
        assert_eq!(
            &data[per_layer - 4..per_layer],
            &[10, 20, 30, 255],
            "smallest mip keeps the colour"
        );
    }
}
