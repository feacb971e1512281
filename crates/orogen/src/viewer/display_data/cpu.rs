//! The CPU path's terrain: a Bevy mesh of the map (decimated to at most
//! [`MAX_MESH_SIDE`] a side) and the splat texture as a Bevy image.

use super::flow::FlowField;
use super::preview::PreviewImage;
use bevy::asset::RenderAssetUsages;
use bevy::image::{ImageAddressMode, ImageSampler, ImageSamplerDescriptor};
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use orogen_core::mesh::MeshData;

/// Display meshes keep at most this many vertices a side (exports keep
/// the full map).
pub const MAX_MESH_SIDE: usize = 1025;
/// Longest side of the splat texture shown on the mesh.
pub const MAX_TEXTURE_SIDE: usize = 1024;
pub const MIN_TEXTURE_SIDE: usize = 256;

/// Texture size: about two texels per cell, within the limits, keeping
/// the map's aspect ratio.
pub fn texture_size(map_width: usize, map_height: usize) -> (usize, usize) {
    let longest = map_width.max(map_height).max(1);
    let side = (longest * 2).clamp(MIN_TEXTURE_SIDE, MAX_TEXTURE_SIDE);
    let scale = side as f32 / longest as f32;
    let w = ((map_width as f32 * scale).round() as usize).max(2);
    let h = ((map_height as f32 * scale).round() as usize).max(2);
    (w, h)
}

/// The terrain's mesh and texture live in the render world only: with
/// the main world keeping them too, every upload would first clone the
/// whole mesh (59 MB at 1025²) on the frame's critical path. Nothing in
/// the main world reads them back.
const RENDER_ONLY: RenderAssetUsages = RenderAssetUsages::RENDER_WORLD;

pub fn to_bevy_mesh(data: MeshData) -> Mesh {
    Mesh::new(PrimitiveTopology::TriangleList, RENDER_ONLY)
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, data.positions)
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, data.normals)
        .with_inserted_attribute(Mesh::ATTRIBUTE_UV_0, data.uvs)
        .with_inserted_indices(Indices::U32(data.indices))
}

/// The CPU path's terrain texture from `splat`, with the flow network
/// tinted in when `flow` is given.
pub fn cpu_terrain_image(splat: &PreviewImage, flow: Option<&FlowField>) -> Image {
    let mut rgba = splat.rgba.clone();
    if let Some(flow) = flow {
        flow.tint(&mut rgba, splat.width, splat.height);
    }
    to_bevy_image(splat.width, splat.height, rgba)
}

pub fn to_bevy_image(width: usize, height: usize, rgba: Vec<u8>) -> Image {
    let mut image = Image::new(
        Extent3d {
            width: width as u32,
            height: height as u32,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        rgba,
        TextureFormat::Rgba8UnormSrgb,
        RENDER_ONLY,
    );
    // Clamp so the texture does not bleed from one edge to the other.
    image.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
        address_mode_u: ImageAddressMode::ClampToEdge,
        address_mode_v: ImageAddressMode::ClampToEdge,
        ..ImageSamplerDescriptor::linear()
    });
    image
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_size_keeps_aspect_and_limits() {
        assert_eq!(texture_size(513, 513), (1024, 1024));
        assert_eq!(texture_size(33, 33), (256, 256));
        assert_eq!(texture_size(4097, 2049), (1024, 512));
    }
}
