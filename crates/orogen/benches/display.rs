//! What the viewer does between a finished pipeline run and the GPU, at
//! 1025² (the default preset): the GPU path's height texture and LOD
//! bounds against the CPU path's mesh and splat texture, and a whole
//! edit (every stage re-run) up to the GPU path's data.

use criterion::{Criterion, criterion_group};
use orogen::viewer::display_data::cpu::{MAX_MESH_SIDE, texture_size};
use orogen::viewer::display_data::gpu::{gpu_upload, splat_texels};
use orogen_core::mesh::build_mesh;
use orogen_core::pipeline::{Pipeline, RunHooks};
use orogen_core::presets;
use orogen_core::splat::RuleMaps;
use orogen_core::splat::{TileImages, render_splat};
use std::hint::black_box;

fn display_data(c: &mut Criterion) {
    let recipe = presets::load("default")
        .expect("the default preset exists")
        .expect("the default preset loads")
        .resampled(1025);
    let map = Pipeline::new()
        .run(&recipe, RunHooks::default())
        .expect("the default preset runs")
        .map;
    let cell = recipe.cell_size();
    let texels = splat_texels(recipe.width, recipe.height);
    let mut group = c.benchmark_group("display-1025");
    group.sample_size(30);
    group.bench_function("gpu-height-texture-and-bounds", |b| {
        b.iter(|| {
            black_box(
                gpu_upload(&map, cell, texels, &RuleMaps::default())
                    .bounds
                    .levels
                    .len(),
            )
        })
    });
    let (images, _) = TileImages::load(&recipe.tiles, None);
    let (tw, th) = texture_size(map.width(), map.height());
    group.sample_size(10);
    group.bench_function("cpu-mesh-and-splat-texture", |b| {
        b.iter(|| {
            let mesh = build_mesh(&map, cell, 1.0, MAX_MESH_SIDE);
            let splat = render_splat(&map, cell, &recipe.tiles, &images, tw, th)
                .expect("the default tiles paint");
            black_box((mesh.positions.len(), splat.rgb.len()))
        })
    });
    // An edit of the first stage: every stage runs again, then the GPU
    // path's data is built (the seed alternates so nothing is cached).
    let mut pipeline = Pipeline::new();
    let mut edited = recipe.clone();
    let mut seed = 0u64;
    group.bench_function("edit-to-gpu-data", |b| {
        b.iter(|| {
            seed += 1;
            edited.seed = seed;
            let out = pipeline
                .run(&edited, RunHooks::default())
                .expect("the default preset runs");
            black_box(
                gpu_upload(&out.map, cell, texels, &RuleMaps::default())
                    .bounds
                    .levels
                    .len(),
            )
        })
    });
    group.finish();

    // Larger maps: the height texture in pages (4097² texels each).
    let mut group = c.benchmark_group("display-large");
    group.sample_size(10);
    for side in [4097u32, 8193] {
        let recipe = recipe.resampled(side);
        let map = Pipeline::new()
            .run(&recipe, RunHooks::default())
            .expect("the default preset runs")
            .map;
        let texels = splat_texels(side, side);
        group.bench_function(format!("gpu-height-texture-and-bounds-{side}"), |b| {
            b.iter(|| {
                black_box(
                    gpu_upload(&map, recipe.cell_size(), texels, &RuleMaps::default())
                        .bounds
                        .levels
                        .len(),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, display_data);

/// `criterion_main!` with the allocator tuned first, as the binary does.
fn main() {
    orogen_core::memory::keep_freed_memory();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
