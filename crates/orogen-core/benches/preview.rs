//! Edit → first displayable preview, for a 4097² export of each preset:
//! an edit every stage depends on (the seed: the worst case, every stage re-runs) at
//! the preview sizes the viewer picks from, with the display data built
//! (mesh and splat texture at the preview's size). The viewer's automatic
//! preview is the largest of these within a frame (16.7 ms).

use criterion::{BenchmarkId, Criterion, criterion_group};
use orogen_core::mesh::build_mesh;
use orogen_core::pipeline::{Pipeline, RunHooks};
use orogen_core::presets;
use orogen_core::splat::{TileImages, render_splat};
use std::hint::black_box;

/// An edit every stage depends on: the seed, flipped back and forth so
/// the pipeline's cache never helps (every stage re-runs, the worst case).
fn edit_everything(recipe: &mut orogen_core::Recipe) {
    recipe.seed ^= 1;
}

fn preview_of_4097(c: &mut Criterion) {
    let mut group = c.benchmark_group("edit-to-preview-4097");
    group.sample_size(20);
    for name in presets::names() {
        let export = presets::load(name).unwrap().unwrap().resampled(4097);
        let (images, _) = TileImages::load(&export.tiles, None);
        for side in [65u32, 129, 257] {
            let mut recipe = export.resampled(side);
            let mut pipeline = Pipeline::new();
            group.bench_with_input(BenchmarkId::new(name, side), &side, |b, &side| {
                b.iter(|| {
                    edit_everything(&mut recipe);
                    let out = pipeline.run(&recipe, RunHooks::default()).unwrap();
                    let cells = side as usize;
                    let splat = render_splat(
                        &out.map,
                        recipe.cell_size(),
                        &recipe.tiles,
                        &images,
                        cells,
                        cells,
                    )
                    .expect("tiles paint");
                    let mesh = build_mesh(&out.map, recipe.cell_size(), 1.0, 1025);
                    black_box((splat.rgb.len(), mesh.positions.len()))
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, preview_of_4097);

fn main() {
    orogen_core::memory::keep_freed_memory();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
