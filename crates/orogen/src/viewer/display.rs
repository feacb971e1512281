//! Turns a pipeline result into what the screen shows: a Bevy mesh, the
//! splat texture as a Bevy image, a height histogram, two small previews
//! and, with the flow overlay on, the drainage network. Runs inside the
//! regeneration job, never on the main thread; it takes only what it
//! shows (the output, its recipe, the stage), so it knows nothing of the
//! job that calls it.

use super::gpu_terrain::HeightUpload;
use super::gpu_terrain::lod::HeightBounds;
use super::gpu_terrain::material::{SplatGrid, height_image};
use super::state::{DisplayPath, FlowField, Generated, PreviewImage};
use bevy::asset::RenderAssetUsages;
use bevy::image::{ImageAddressMode, ImageSampler, ImageSamplerDescriptor};
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use orogen_core::mesh::{MeshData, build_mesh};
use orogen_core::pipeline::PipelineOutput;
use orogen_core::splat::{TileImages, render_splat};
use orogen_core::{Heightmap, Recipe};
use std::sync::Arc;
use std::time::Instant;

/// Display meshes keep at most this many vertices a side (exports keep
/// the full map).
pub const MAX_MESH_SIDE: usize = 1025;
/// Longest side of the splat texture shown on the mesh.
pub const MAX_TEXTURE_SIDE: usize = 1024;
pub const MIN_TEXTURE_SIDE: usize = 256;
/// Longest side of the 2D preview in the View panel.
pub const PREVIEW_SIDE: usize = 192;
pub const HISTOGRAM_BINS: usize = 64;
/// Longest side the flow overlay's drainage is routed on: a larger shown
/// map is resampled to it first (a 16385² map would take seconds and
/// gigabytes; the network's look is set in world units, so it stays the
/// same, only coarser).
pub const FLOW_MAX_SIDE: usize = 1025;

/// What one level hands the main thread: the panels' facts, and either
/// the CPU mesh and texture or the GPU path's height texture.
pub struct DisplayBuild {
    pub generated: Generated,
    pub cpu: Option<(Mesh, Image)>,
    pub gpu: Option<HeightUpload>,
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

/// The GPU path's data for `map`: its height texture and LOD bounds.
pub fn gpu_upload(map: &Heightmap, cell_size: f32, texels: (usize, usize)) -> HeightUpload {
    let (w, h) = (map.width() as u32, map.height() as u32);
    let bounds = HeightBounds::new(w, h, map.data());
    HeightUpload {
        image: height_image(w, h, map.data(), bounds.all_finite),
        bounds,
        grid: SplatGrid {
            map_width: w,
            map_height: h,
            cell_size,
            texels,
        },
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
    let scale = (FLOW_MAX_SIDE - 1) as f32 / (longest - 1) as f32;
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
    let cell = cell_size * (w - 1) as f32 / (fw - 1) as f32;
    FlowField {
        width: fw,
        height: fh,
        strength: orogen_core::maps::flow::flow_strength(&small, cell),
    }
}

/// Builds the display of `output`, generated from `recipe`: the final map,
/// or the map after stage `stage` when that is an earlier one. Tile images
/// come with the warnings of loading them. With `with_flow` (the flow
/// overlay is on) the drainage network is built too, and the CPU path's
/// texture is uploaded tinted. A map the splat cannot paint (no tiles) is
/// an error, as is any other job failure.
pub fn build_display(
    output: PipelineOutput,
    recipe: &Recipe,
    stage: Option<usize>,
    (images, warnings): (Arc<TileImages>, Vec<String>),
    path: &DisplayPath,
    export_size: (u32, u32),
    with_flow: bool,
) -> Result<DisplayBuild, String> {
    let last_stage = output.stages.len().checked_sub(1);
    let shown_stage = stage.filter(|&s| Some(s) < last_stage);
    let map = match shown_stage {
        Some(index) => output.after_stage(index),
        None => output.map.clone(),
    };
    let stats = map.stats();
    // An intermediate stage can have a very different height range from
    // the final map (diamond-square before normalising, say); edited bands
    // would paint it all one tile, so it is coloured with bands spread
    // over its own range.
    let mut tiles = recipe.tiles.clone();
    if shown_stage.is_some() {
        tiles.auto_bands = true;
    }
    // The panels' facts, whichever path draws the terrain.
    let mut generated = Generated {
        histogram: histogram(&map, stats.min, stats.max, HISTOGRAM_BINS),
        output: Some(output),
        recipe: Some(recipe.clone()),
        effective_tiles: Some(tiles.effective(stats.min, stats.max)),
        shown_map: Some(map.clone()),
        shown_stage,
        shown_min: stats.min,
        shown_max: stats.max,
        mesh_columns: map.width(),
        mesh_rows: map.height(),
        heightmap_preview: grey_preview(&map, stats.min, stats.max),
        warnings,
        ..Generated::default()
    };
    let cell = recipe.cell_size();
    if with_flow {
        generated.flow = Some(Arc::new(flow_field(&map, cell)));
    }

    if path.is_gpu() {
        let start = Instant::now();
        let texels = splat_texels(export_size.0, export_size.1);
        let gpu = gpu_upload(&map, cell, texels);
        generated.mesh_millis = start.elapsed().as_secs_f64() * 1000.0;
        // The texture preview is painted from the map resampled to the
        // preview's size; a band edit repaints it from the same small map.
        let start = Instant::now();
        let preview_map = Arc::new(resample_for_preview(&map));
        let resolved = tiles.effective(stats.min, stats.max);
        generated.texture_preview =
            paint_preview(&preview_map, map.width(), cell, &resolved, &images);
        generated.texture_millis = start.elapsed().as_secs_f64() * 1000.0;
        generated.texture_side = texels;
        generated.preview_map = Some(preview_map);
        generated.tile_images = Some(images);
        return Ok(DisplayBuild {
            generated,
            cpu: None,
            gpu: Some(gpu),
        });
    }

    let start = Instant::now();
    let mesh_data = build_mesh(&map, cell, 1.0, MAX_MESH_SIDE);
    generated.decimated = mesh_data.is_decimated(&map);
    (generated.mesh_columns, generated.mesh_rows) = (mesh_data.columns, mesh_data.rows);
    let mesh = to_bevy_mesh(mesh_data);
    generated.mesh_millis = start.elapsed().as_secs_f64() * 1000.0;

    let start = Instant::now();
    let (tex_w, tex_h) = texture_size(map.width(), map.height());
    let splat = render_splat(&map, cell, &tiles, &images, tex_w, tex_h)?;
    let mut texture_rgba = splat.rgba();
    generated.texture_millis = start.elapsed().as_secs_f64() * 1000.0;
    generated.texture_preview = downsample_rgba(&texture_rgba, splat.width, splat.height);
    generated.texture_side = (splat.width, splat.height);
    // The untinted texture stays with the panels' facts: switching the
    // flow overlay re-uploads it, tinted or not, without a job.
    generated.cpu_splat = Some(Arc::new(PreviewImage {
        width: splat.width,
        height: splat.height,
        rgba: texture_rgba.clone(),
    }));
    if let Some(flow) = &generated.flow {
        flow.tint(&mut texture_rgba, splat.width, splat.height);
        generated.cpu_splat_tinted = true;
    }
    let image = to_bevy_image(splat.width, splat.height, texture_rgba);
    Ok(DisplayBuild {
        generated,
        cpu: Some((mesh, image)),
        gpu: None,
    })
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

fn to_bevy_mesh(data: MeshData) -> Mesh {
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

fn to_bevy_image(width: usize, height: usize, rgba: Vec<u8>) -> Image {
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

fn downsample_rgba(rgba: &[u8], width: usize, height: usize) -> PreviewImage {
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

fn grey_preview(map: &Heightmap, min: f32, max: f32) -> PreviewImage {
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
    fn texture_size_keeps_aspect_and_limits() {
        assert_eq!(texture_size(513, 513), (1024, 1024));
        assert_eq!(texture_size(33, 33), (256, 256));
        assert_eq!(texture_size(4097, 2049), (1024, 512));
    }

    #[test]
    fn histogram_counts_every_cell() {
        let map = Heightmap::from_vec(2, 2, vec![0.0, 1.0, 2.0, 3.0])
            .unwrap_or_else(|| Heightmap::new(2, 2));
        let counts = histogram(&map, 0.0, 3.0, 3);
        assert_eq!(counts.iter().sum::<u32>(), 4);
        assert_eq!(counts, vec![1, 1, 2]);
    }
}
