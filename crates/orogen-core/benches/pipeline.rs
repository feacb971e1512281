//! The whole `default` preset (heightmap + splat + mesh), and an edit of
//! each eroded preset through to its eroded map.

use criterion::{Criterion, criterion_group};
use orogen_core::mesh::build_mesh;
use orogen_core::splat::{TileImages, render_splat};
use orogen_core::{generate, presets};
use std::hint::black_box;

fn whole_default(c: &mut Criterion) {
    let mut group = c.benchmark_group("default-preset");
    for (side, texture, samples) in [
        (513usize, 512usize, 20usize),
        (1025, 1024, 10),
        (4097, 4096, 10),
    ] {
        let recipe = presets::load("default")
            .unwrap()
            .unwrap()
            .resampled(side as u32);
        let (images, _) = TileImages::load(&recipe.tiles, None);
        group.sample_size(samples);
        group.bench_function(format!("{side}"), |b| {
            b.iter(|| {
                let out = generate(&recipe, None).unwrap();
                let splat = render_splat(
                    &out.map,
                    recipe.cell_size(),
                    &recipe.tiles,
                    &images,
                    texture,
                    texture,
                )
                .expect("the default tiles paint");
                let mesh = build_mesh(&out.map, recipe.cell_size(), 1.0, 1025);
                black_box((splat.rgb.len(), mesh.positions.len()))
            })
        });
    }
    group.finish();
}

/// An edit of the first stage of every shipped preset with fluvial
/// erosion, through to the eroded map: the whole pipeline at each preview
/// size (the viewer re-runs every stage after an edited one).
fn eroded_presets(c: &mut Criterion) {
    let mut group = c.benchmark_group("eroded-edit");
    group.sample_size(10);
    for preset in [
        "eroded-mountains",
        "river-valley",
        "lake-valley",
        "alluvial-fans",
    ] {
        for side in [257u32, 513, 1025] {
            let recipe = presets::load(preset).unwrap().unwrap().resampled(side);
            group.bench_function(format!("{preset}/{side}"), |b| {
                b.iter(|| black_box(generate(&recipe, None).unwrap().map.data().len()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, whole_default, eroded_presets);

/// `criterion_main!` with the allocator tuned first, as the binary does at
/// start, so every figure is measured under the same allocator settings.
fn main() {
    orogen_core::memory::keep_freed_memory();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
