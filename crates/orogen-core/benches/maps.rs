//! Each derived map of `--maps` over the default preset at 1025²: the
//! routing or filter and its encoding, not the PNG.

use criterion::{BenchmarkId, Criterion, criterion_group};
use orogen_core::maps::{DerivedMap, MapSettings, derive_map};
use orogen_core::pipeline::{RunHooks, run_once};
use std::hint::black_box;

fn derived_maps(c: &mut Criterion) {
    let mut recipe = orogen_core::presets::load("default").unwrap().unwrap();
    let (w, h) = recipe.sampling_for(1025);
    recipe.set_sampling(w, h);
    let map = run_once(&recipe, None, RunHooks::default()).unwrap().map;
    let settings = MapSettings::default();
    let mut group = c.benchmark_group("maps-1025");
    group.sample_size(10);
    for kind in DerivedMap::FROM_HEIGHTS {
        group.bench_with_input(
            BenchmarkId::from_parameter(kind.name()),
            &kind,
            |b, &kind| {
                b.iter(|| black_box(derive_map(&map, recipe.cell_size(), kind, &settings)));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, derived_maps);

fn main() {
    orogen_core::memory::keep_freed_memory();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
