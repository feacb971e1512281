//! Who draws the terrain: once the render device is known, the GPU path
//! is kept where the adapter can draw it (and the display limit raised to
//! every export size), or the CPU path takes over with one line saying
//! why.

use super::gpu_terrain::material::MAX_TILES;
use crate::viewer::display_data::gpu::PAGE_CELLS;
use crate::viewer::sampling::PreviewSampling;
use crate::viewer::settings::DisplayPath;
use bevy::prelude::*;
use bevy::render::renderer::RenderDevice;

/// The smallest texture side the GPU path needs: one page of the height
/// texture ([`PAGE_CELLS`] + 1).
const MIN_TEXTURE_SIDE: u32 = PAGE_CELLS + 1;
/// The largest map side shown (the recipe's own limit on a side).
const MAX_SHOWN_SIDE: u32 = 16385;

/// Whether an adapter with these limits can draw the GPU terrain; the
/// reason when not.
pub fn gpu_path_supported(
    max_texture_side: u32,
    max_array_layers: u32,
    vertex_textures: u32,
) -> Result<(), String> {
    if vertex_textures < 1 {
        return Err("the graphics adapter cannot read textures in vertex shaders".into());
    }
    if max_texture_side < MIN_TEXTURE_SIDE {
        return Err(format!(
            "the graphics adapter's textures are at most {max_texture_side} texels a side \
             (the GPU terrain needs {MIN_TEXTURE_SIDE})"
        ));
    }
    // 16 tiles, or the 16 pages of a 16385² map.
    if max_array_layers < MAX_TILES as u32 {
        return Err(format!(
            "the graphics adapter's texture arrays hold at most {max_array_layers} layers"
        ));
    }
    Ok(())
}

/// The finest map side the GPU path shows: every export size up to
/// 16385² (the height texture is paged, so the adapter's texture limit
/// does not cap it), or the CPU path's limit.
pub fn gpu_display_limit() -> u32 {
    MAX_SHOWN_SIDE
}

/// Once the render device exists: keep the GPU path if it can, or fall
/// back to the CPU mesh with one line saying why.
pub fn choose_display_path(
    device: Option<Res<RenderDevice>>,
    mut path: ResMut<DisplayPath>,
    mut sampling: ResMut<PreviewSampling>,
    mut decided: Local<bool>,
) {
    if *decided {
        return;
    }
    let Some(device) = device else {
        return;
    };
    *decided = true;
    if let DisplayPath::Cpu(reason) = &*path {
        info!("terrain drawn on the CPU: {reason}");
        return;
    }
    let limits = device.limits();
    match gpu_path_supported(
        limits.max_texture_dimension_2d,
        limits.max_texture_array_layers,
        limits.max_sampled_textures_per_shader_stage,
    ) {
        Ok(()) => {
            let limit = gpu_display_limit();
            if sampling.display_limit != limit {
                sampling.display_limit = limit;
            }
        }
        Err(reason) => {
            warn!("{reason}; drawing the terrain on the CPU");
            *path = DisplayPath::Cpu(format!("{reason}; the terrain is drawn on the CPU"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gpu_path_needs_vertex_textures_large_textures_and_arrays() {
        assert_eq!(gpu_path_supported(16384, 256, 16), Ok(()));
        let no_vertex = gpu_path_supported(16384, 256, 0).unwrap_err();
        assert!(no_vertex.contains("vertex shaders"), "{no_vertex}");
        let small = gpu_path_supported(4096, 256, 16).unwrap_err();
        assert!(small.contains("4096") && small.contains("4097"), "{small}");
        let layers = gpu_path_supported(8192, 8, 16).unwrap_err();
        assert!(layers.contains("8 layers"), "{layers}");
        for reason in [no_vertex, small, layers] {
            assert_eq!(reason.lines().count(), 1, "one line: {reason}");
        }
    }
}
