//! One bench per stage at 513², 1025² and 4097², plus splat, mesh,
//! erosion and the blur's fractional and whole widths at 1025².

use criterion::{BenchmarkId, Criterion, criterion_group};
use orogen_core::Heightmap;
use orogen_core::mesh::{build_mesh, build_mesh_into};
use orogen_core::params::Span;
use orogen_core::rng::stage_rng;
use orogen_core::splat::{TileImages, TileSet, render_splat};
use orogen_core::stages::hills_pits::HillLayer;
use orogen_core::stages::noise::NoiseKind;
use orogen_core::stages::*;
use std::hint::black_box;

fn base_map(side: usize) -> Heightmap {
    let mut map = Heightmap::new(side, side);
    let mut ctx = StageContext::new(stage_rng(1, 0));
    DiamondSquare::default().apply(&mut map, &mut ctx).unwrap();
    map
}

fn stage_cases() -> Vec<(&'static str, Stage)> {
    vec![
        (
            "random-values",
            Stage::RandomValues(RandomValues::default()),
        ),
        (
            "diamond-square",
            Stage::DiamondSquare(DiamondSquare::default()),
        ),
        (
            "blur-r1",
            Stage::Blur(Blur {
                passes: 1,
                width: 3.0,
                ..Blur::default()
            }),
        ),
        (
            "blur-r8",
            Stage::Blur(Blur {
                passes: 1,
                width: 17.0,
                ..Blur::default()
            }),
        ),
        (
            "hill-features",
            Stage::HillFeatures(HillFeatures::default()),
        ),
        (
            "hills-and-pits",
            // The article's recipe scaled to ~2,000 hills and pits, radius 7–28.
            Stage::HillsAndPits(HillsAndPits {
                layers: vec![
                    HillLayer {
                        count: 1000,
                        radius: Span::new(14.0, 28.0),
                        ..HillLayer::hills()
                    },
                    HillLayer {
                        count: 1000,
                        radius: Span::new(7.0, 11.0),
                        ..HillLayer::pits()
                    },
                ],
            }),
        ),
        (
            "hills-600-large",
            // wgen's default hills at 1025² (scripts/peer-bench.sh): 600
            // caps of radius 24.6–139.4 cells.
            Stage::HillsAndPits(HillsAndPits {
                layers: vec![HillLayer {
                    count: 600,
                    radius: Span::new(24.6, 139.4),
                    height: Span::new(0.00002, 0.0004),
                    ..HillLayer::hills()
                }],
            }),
        ),
        (
            "noise-fbm6",
            Stage::Noise(NoiseStage {
                kind: NoiseKind::Fbm,
                octaves: 6,
                ..NoiseStage::default()
            }),
        ),
        ("normalize", Stage::Normalize(Normalize::default())),
        ("clamp", Stage::Clamp(Clamp::default())),
        ("terrace", Stage::Terrace(Terrace::default())),
    ]
}

fn stages(c: &mut Criterion) {
    // As the binary does at start.
    for side in [513usize, 1025, 4097] {
        let map = base_map(side);
        let mut group = c.benchmark_group(format!("stage-{side}"));
        // 4097² runs take tens to hundreds of milliseconds each.
        group.sample_size(if side > 1025 { 10 } else { 20 });
        // The floor for passes bound by memory: the map copied over a
        // map of the same size, by all threads, as the stages' own
        // passes read and write it.
        group.bench_function("parallel-copy", |b| {
            use rayon::prelude::*;
            b.iter_batched_ref(
                || map.clone(),
                |m| {
                    m.data_mut()
                        .par_chunks_mut(1 << 16)
                        .zip(map.data().par_chunks(1 << 16))
                        .for_each(|(dst, src)| dst.copy_from_slice(src));
                },
                criterion::BatchSize::LargeInput,
            )
        });
        for (name, stage) in stage_cases() {
            group.bench_with_input(BenchmarkId::from_parameter(name), &stage, |b, stage| {
                b.iter_batched_ref(
                    || map.clone(),
                    |m| {
                        let mut ctx = StageContext::new(stage_rng(7, 1));
                        stage.op().apply(m, &mut ctx).unwrap();
                    },
                    criterion::BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }
}

/// Three passes of a box 12 cells wide (between whole cells: the
/// fractional path) against one 13 cells wide (the integer path), the
/// nearest whole width.
fn blur(c: &mut Criterion) {
    let map = base_map(1025);
    let mut group = c.benchmark_group("blur-1025");
    group.sample_size(20);
    for width in [12.0f32, 13.0] {
        let stage = Blur {
            passes: 3,
            width,
            ..Blur::default()
        };
        group.bench_function(format!("width-{width}-3-passes"), |b| {
            b.iter_batched_ref(
                || map.clone(),
                |m| {
                    stage
                        .apply(m, &mut StageContext::new(stage_rng(7, 1)))
                        .unwrap()
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

fn splat_and_mesh(c: &mut Criterion) {
    // As the binary does at start.
    let map = base_map(1025);
    let tiles = TileSet::default();
    let (images, _) = TileImages::load(&tiles, None);
    let mut group = c.benchmark_group("output-1025");
    group.sample_size(20);
    group.bench_function("splat-1024-4-tiles-slope", |b| {
        b.iter(|| {
            black_box(
                render_splat(&map, 1.0, &tiles, &images, 1024, 1024)
                    .expect("the default tiles paint"),
            )
        })
    });
    group.bench_function("mesh-1025-fresh", |b| {
        b.iter(|| black_box(build_mesh(&map, 1.0, 1.0, 1025)))
    });
    let mut mesh = build_mesh(&map, 1.0, 1.0, 1025);
    group.bench_function("mesh-1025-reused", |b| {
        b.iter(|| build_mesh_into(&mut mesh, &map, 1.0, 1.0, 1025))
    });
    group.finish();
}

fn erosion(c: &mut Criterion) {
    // As the binary does at start.
    let map = base_map(1025);
    let mut group = c.benchmark_group("erosion-1025");
    group.sample_size(10);
    // 200,000 droplets, lifetime 30, brush radius 3: droplets/s = 200k / time.
    let hydraulic = HydraulicErosion {
        droplets: 200_000,
        max_lifetime: 30,
        brush_radius: 3,
        ..HydraulicErosion::default()
    };
    group.bench_function("hydraulic-200k-droplets", |b| {
        b.iter_batched_ref(
            || map.clone(),
            |m| hydraulic.erode(m, &stage_rng(3, 0)),
            criterion::BatchSize::LargeInput,
        )
    });
    // 10 iterations over 1025² cells: ns per cell per iteration = time / 10.5M.
    let thermal = Stage::ThermalErosion(ThermalErosion {
        iterations: 10,
        ..ThermalErosion::default()
    });
    group.bench_function("thermal-10-iterations", |b| {
        b.iter_batched_ref(
            || map.clone(),
            |m| {
                thermal
                    .op()
                    .apply(m, &mut StageContext::new(stage_rng(3, 0)))
                    .unwrap()
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

/// One stream-power step at 1025² (1 m cells) on eroded-mountains' input
/// (its stages before the fluvial one): routing and the implicit solve,
/// bedrock only and with deposition (G = 1, sediment twice as erodible):
/// the sediment solve's Gauss–Seidel sweeps against the plain step.
fn stream_power(c: &mut Criterion) {
    use orogen_core::hydro::{Edges, FlowGrid, Outlets, Routing};
    use orogen_core::stages::fluvial::deposition::{SedimentParams, incise_depositing};
    use orogen_core::stages::fluvial::step::{StepParams, incise};
    let mut recipe = orogen_core::presets::load("eroded-mountains")
        .expect("shipped preset")
        .expect("valid preset")
        .resampled(1025);
    let fluvial = recipe
        .stages
        .iter()
        .position(|e| matches!(e.stage, Stage::FluvialErosion(_)))
        .expect("a fluvial stage");
    recipe.stages.truncate(fluvial);
    let input = orogen_core::pipeline::run_once(&recipe, None, Default::default())
        .expect("the input runs")
        .map;
    let p = StepParams {
        erodibility: 1e-4,
        area_exponent: 0.5,
        slope_exponent: 1.0,
        dt: 1000.0,
        cell_size: recipe.cell_size() as f64,
        outlets: Outlets::ALL_EDGES,
        held: Edges::default(),
        base_level: None,
    };
    let settling = SedimentParams {
        deposition: 1.0,
        sediment_share: 2.0,
    };
    let grid = FlowGrid::new(input.data(), input.width(), &p.outlets, p.held);
    let mut group = c.benchmark_group("stream-power-1025");
    group.sample_size(10);
    group.bench_function("step-bedrock", |b| {
        b.iter_batched_ref(
            || input.data().to_vec(),
            |m| {
                let routing = Routing::on_grid(m, &grid);
                incise(m, &routing, &grid, None, &p);
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("step-depositing-g1", |b| {
        b.iter_batched_ref(
            || (input.data().to_vec(), vec![0f32; input.data().len()]),
            |(m, layer)| {
                let routing = Routing::on_grid(m, &grid);
                incise_depositing::<false>(m, layer, &routing, &grid, None, &p, &settling);
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, stages, blur, splat_and_mesh, erosion, stream_power);

/// `criterion_main!` with the allocator tuned first, as the binary does at
/// start, so every figure is measured under the same allocator settings.
fn main() {
    orogen_core::memory::keep_freed_memory();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
