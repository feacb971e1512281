//! The export's own cost, apart from the stages: quantising and encoding
//! the default height files (r16, 16-bit PNG, preview) in memory, and the
//! whole export into a folder (encode, write, sync, rename), for the
//! `default` preset's map at 4097².

use criterion::{Criterion, criterion_group};
use orogen_core::bake::{ExportRequest, export_map, heightmap_bundle};
use orogen_core::io::height_files::{ExportOptions, HeightFormats};
use orogen_core::pipeline::{RunHooks, run_once};
use orogen_core::presets;
use std::hint::black_box;

fn export_4097(c: &mut Criterion) {
    let recipe = presets::load("default").unwrap().unwrap().resampled(4097);
    let map = run_once(&recipe, None, RunHooks::default()).unwrap().map;
    let mut group = c.benchmark_group("export-4097");
    group.sample_size(10);
    group.bench_function("encode-default-files", |b| {
        b.iter(|| {
            let (bundle, _) = heightmap_bundle(
                &map,
                &recipe,
                &ExportOptions::default(),
                HeightFormats::default(),
            )
            .unwrap();
            black_box(bundle.names().len())
        })
    });
    let dir = tempfile::tempdir().unwrap();
    group.bench_function("export-default-files", |b| {
        b.iter(|| {
            let report =
                export_map(&map, &recipe, None, &ExportRequest::default(), dir.path()).unwrap();
            black_box(report.written.len())
        })
    });
    group.finish();
}

criterion_group!(benches, export_4097);

fn main() {
    orogen_core::memory::keep_freed_memory();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
