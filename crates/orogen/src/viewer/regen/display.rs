//! Turns a pipeline result into what the screen shows: a Bevy mesh, the
//! splat texture as a Bevy image, a height histogram, two small previews
//! and, with the flow overlay on, the drainage network. Runs inside the
//! regeneration job, never on the main thread; it takes only what it
//! shows (the output, its recipe, the stage), so it knows nothing of the
//! job that calls it.

use crate::viewer::display_data::cpu::{MAX_MESH_SIDE, texture_size, to_bevy_image, to_bevy_mesh};
use crate::viewer::display_data::flow::{erosion_overlay_field, overlay_field};
use crate::viewer::display_data::gpu::{HeightUpload, gpu_upload, splat_texels};
use crate::viewer::display_data::preview::{
    HISTOGRAM_BINS, PreviewImage, downsample_rgba, grey_preview, histogram, paint_preview,
    resample_for_preview,
};
use crate::viewer::display_data::water::water_mesh;
use crate::viewer::handoff::{Generated, ShownBands};
use crate::viewer::settings::DisplayPath;
use bevy::prelude::*;
use orogen_core::Recipe;
use orogen_core::maps::{DerivedMap, MapSettings};
use orogen_core::mesh::build_mesh;
use orogen_core::pipeline::PipelineOutput;
use orogen_core::splat::{RuleMaps, TileImages, render_splat_with_maps, rule_map_kinds};
use std::sync::Arc;
use std::time::Instant;

/// The derived layers a level builds with its display, as wished when it
/// is built (switching one on later builds it from the shown map).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layers {
    /// The overlay, of this map.
    pub overlay: Option<DerivedMap>,
    /// Lakes and rivers as water.
    pub water: bool,
}

/// What one level hands the main thread: the panels' facts, and either
/// the CPU mesh and texture or the GPU path's height texture.
pub struct DisplayBuild {
    pub generated: Generated,
    /// The bands it is drawn with, and the texture preview painted with them.
    pub bands: ShownBands,
    pub cpu: Option<(Mesh, Image)>,
    pub gpu: Option<HeightUpload>,
}

/// Builds the display of `output`, generated from `recipe`: the final map,
/// or the map after stage `stage` when that is an earlier one. Tile images
/// come with the warnings of loading them. With `layers.overlay` (the
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
    layers: Layers,
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
    // The maps the tiles' map rules read, of the shown map; wear and
    // deposition from the erosion stages up to it.
    let kinds = rule_map_kinds(tiles.tiles.iter().map(|t| &t.map));
    let record = kinds
        .iter()
        .any(|k| k.needs_erosion_record())
        .then(|| output.erosion_record(recipe, shown_stage));
    let rule_maps = if kinds.is_empty() {
        RuleMaps::default()
    } else {
        RuleMaps::compute(&kinds, &map, recipe.cell_size(), record.as_ref())
    };
    // The panels' facts, whichever path draws the terrain.
    let mut generated = Generated {
        histogram: histogram(&map, stats.min, stats.max, HISTOGRAM_BINS),
        output: Some(output),
        recipe: Some(recipe.clone()),
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
    let mut bands = ShownBands {
        tiles: Some(recipe.tiles.clone()),
        effective: Some(tiles.effective(stats.min, stats.max)),
        ..ShownBands::default()
    };
    let cell = recipe.cell_size();
    if layers.water {
        generated.water = Some(Arc::new(water_mesh(&map, cell, &MapSettings::default())));
    }
    if let Some(kind) = layers.overlay {
        // Wear and deposition come from the run's record (the rules'
        // own when they read it too).
        let own = (kind.needs_erosion_record() && record.is_none())
            .then_some(generated.output.as_ref())
            .flatten()
            .map(|output| output.erosion_record(recipe, shown_stage));
        let field = match own.as_ref().or(record.as_ref()) {
            Some(record) if kind.needs_erosion_record() => {
                erosion_overlay_field(&map, record, cell, kind)
            }
            _ => overlay_field(&map, cell, kind),
        };
        generated.flow = Some(Arc::new(field));
    }

    if path.is_gpu() {
        let start = Instant::now();
        let texels = splat_texels(export_size.0, export_size.1);
        let gpu = gpu_upload(&map, cell, texels, &rule_maps);
        generated.mesh_millis = start.elapsed().as_secs_f64() * 1000.0;
        // The texture preview is painted from the map resampled to the
        // preview's size; a band edit repaints it from the same small map.
        let start = Instant::now();
        let preview_map = Arc::new(resample_for_preview(&map));
        let resolved = tiles.effective(stats.min, stats.max);
        bands.texture_preview = paint_preview(&preview_map, map.width(), cell, &resolved, &images);
        generated.texture_millis = start.elapsed().as_secs_f64() * 1000.0;
        generated.texture_side = texels;
        generated.preview_map = Some(preview_map);
        generated.tile_images = Some(images);
        return Ok(DisplayBuild {
            generated,
            bands,
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
    let splat = render_splat_with_maps(&map, cell, &tiles, &images, tex_w, tex_h, &rule_maps)
        .map_err(|e| e.to_string())?;
    let mut texture_rgba = splat.rgba();
    generated.texture_millis = start.elapsed().as_secs_f64() * 1000.0;
    bands.texture_preview = downsample_rgba(&texture_rgba, splat.width, splat.height);
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
        bands,
        cpu: Some((mesh, image)),
        gpu: None,
    })
}
