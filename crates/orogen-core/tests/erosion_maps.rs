//! `wear` and `deposition`: what the erosion stages changed as they ran,
//! recorded by `run_once_recording`, against a reimplementation that runs
//! the stages one by one through `StageOp::apply` and sums each erosion
//! stage's output minus its input. A Normalize after the erosion scales
//! the heights by 10 and must not scale the record.

use orogen_core::bake::{ExportRequest, export_map};
use orogen_core::maps::derived::erosion_pixels;
use orogen_core::maps::{DerivedMap, MapPixels};
use orogen_core::params::Span;
use orogen_core::pipeline::{ErosionRecord, RunHooks, is_erosion, run_once, run_once_recording};
use orogen_core::rng::stage_rng;
use orogen_core::stages::{
    Blur, Combine, DiamondSquare, FluvialErosion, HydraulicErosion, Normalize, Stage, StageContext,
    ThermalErosion,
};
use orogen_core::{Heightmap, Recipe, StageEntry};
use std::sync::Arc;

/// A base, the three erosion stages with a blur between them, a disabled
/// erosion stage (not counted) and, when `normalize_to` is set, a
/// Normalize to that range.
fn eroding_recipe(normalize_to: Option<Span>) -> Recipe {
    let mut recipe = Recipe {
        extent: orogen_core::recipe::Extent { x: 256.0, y: 256.0 },
        seed: 11,
        ..Recipe::default()
    };
    recipe.set_sampling(129, 129);
    let mut stages = vec![
        StageEntry::new(Stage::DiamondSquare(DiamondSquare {
            extent: 60.0,
            combine: Combine::Replace,
            ..DiamondSquare::default()
        })),
        StageEntry::new(Stage::HydraulicErosion(HydraulicErosion {
            droplets: 20_000,
            simulation_size: 129,
            ..HydraulicErosion::default()
        })),
        StageEntry::new(Stage::Blur(Blur::default())),
        StageEntry::new(Stage::ThermalErosion(ThermalErosion {
            iterations: 10,
            ..ThermalErosion::default()
        })),
        StageEntry::new(Stage::FluvialErosion(FluvialErosion {
            duration: 2_000.0,
            coarse_size: 65,
            steps: 20,
            refine_steps: 2,
            ..FluvialErosion::default()
        })),
        StageEntry {
            enabled: false,
            ..StageEntry::new(Stage::ThermalErosion(ThermalErosion::default()))
        },
    ];
    if let Some(range) = normalize_to {
        stages.push(StageEntry::new(Stage::Normalize(Normalize { range })));
    }
    recipe.stages = stages;
    recipe
}

/// The recipe with a Normalize after erosion that scales its heights ×10.
fn scaled_recipe() -> Recipe {
    let unscaled = run_once(&eroding_recipe(None), None, RunHooks::default()).expect("it runs");
    let (low, high) = unscaled.map.range();
    eroding_recipe(Some(Span::new(10.0 * low, 10.0 * high)))
}

/// The stages one at a time through `StageOp::apply`, on copies: the final
/// map and the sum over erosion stages of (after − before).
fn naive_run(recipe: &Recipe) -> (Heightmap, Vec<f32>) {
    let (w, h) = (recipe.width as usize, recipe.height as usize);
    let mut map = Heightmap::new(w, h);
    let mut change = vec![0.0f32; w * h];
    for (index, entry) in recipe.stages.iter().enumerate() {
        if !entry.enabled {
            continue;
        }
        let before = map.clone();
        let mut ctx = StageContext::new(stage_rng(recipe.seed, index));
        ctx.cell_size = recipe.cell_size();
        if entry.stage.op().uses_coarse_levels() {
            let mut prefix = recipe.clone();
            prefix.stages.truncate(index);
            ctx.earlier_stages = Some(Arc::new(move |width, height| {
                let mut at = prefix.clone();
                at.width = width as u32;
                at.height = height as u32;
                Ok(Arc::unwrap_or_clone(
                    run_once(&at, None, RunHooks::default())
                        .expect("the earlier stages run")
                        .map,
                ))
            }));
        }
        entry
            .stage
            .op()
            .apply(&mut map, &mut ctx)
            .expect("the stage runs");
        if is_erosion(&entry.stage) {
            for ((c, a), b) in change.iter_mut().zip(map.data()).zip(before.data()) {
                *c += a - b;
            }
        }
    }
    (map, change)
}

fn grey16(pixels: Option<MapPixels>) -> Vec<u16> {
    match pixels {
        Some(MapPixels::Grey16(v)) => v,
        other => panic!("wear and deposition are 16-bit, got {other:?}"),
    }
}

fn recorded_on(threads: usize, recipe: &Recipe) -> (Arc<Heightmap>, ErosionRecord) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    pool.install(|| {
        let (output, record) =
            run_once_recording(recipe, None, RunHooks::default()).expect("the recipe runs");
        (output.map, record)
    })
}

#[test]
fn wear_and_deposition_are_the_erosion_stages_change_before_a_normalize() {
    let recipe = scaled_recipe();
    let (naive_map, naive_change) = naive_run(&recipe);
    let (map, record) = recorded_on(2, &recipe);
    // The reimplementation is the pipeline's run, stage for stage.
    assert_eq!(naive_map.data(), map.data());
    let plain = run_once(&recipe, None, RunHooks::default()).expect("it runs");
    assert_eq!(plain.map.data(), map.data(), "recording changes no height");
    assert_eq!(
        record.stages(),
        ["hydraulic-erosion", "thermal-erosion", "fluvial-erosion"]
    );
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    assert_eq!(bits(record.change()), bits(&naive_change));

    let wear = grey16(erosion_pixels(record.change(), DerivedMap::Wear));
    let deposition = grey16(erosion_pixels(record.change(), DerivedMap::Deposition));
    for ((&c, &w), &d) in naive_change.iter().zip(&wear).zip(&deposition) {
        let cm = (c * 100.0).round().clamp(-65535.0, 65535.0);
        assert_eq!(w, (-cm).max(0.0) as u16, "change {c}");
        assert_eq!(d, cm.max(0.0) as u16, "change {c}");
    }
    // Both kinds happened, and in metres of the erosion: smaller than the
    // base's relief, where the ×10 normalized map is far larger.
    assert!(wear.iter().filter(|&&v| v > 0).count() > 1000);
    assert!(deposition.iter().filter(|&&v| v > 0).count() > 100);
    let max_change = naive_change.iter().fold(0.0f32, |m, c| m.max(c.abs()));
    let base = run_once(
        &Recipe {
            stages: recipe.stages[..1].to_vec(),
            ..recipe.clone()
        },
        None,
        RunHooks::default(),
    )
    .expect("the base runs");
    let (low, high) = base.map.range();
    assert!(
        max_change > 0.05 && max_change < (high - low),
        "{max_change}"
    );
    let (final_low, final_high) = map.range();
    assert!(final_high - final_low > 5.0 * (high - low));

    // The same bytes on any thread count.
    for threads in [1, 8] {
        let (other_map, other) = recorded_on(threads, &recipe);
        assert_eq!(other_map.data(), map.data(), "{threads} threads");
        assert_eq!(
            bits(other.change()),
            bits(record.change()),
            "{threads} threads"
        );
    }
}

#[test]
fn the_export_writes_the_recorded_maps_and_refuses_them_without_a_record() {
    let recipe = eroding_recipe(Some(Span::new(0.0, 500.0)));
    let (map, record) = recorded_on(2, &recipe);
    let dir = tempfile::tempdir().expect("a temp folder");
    let out = dir.path().join("export");
    let request = ExportRequest {
        maps: vec![DerivedMap::Wear, DerivedMap::Deposition],
        erosion: Some(Arc::new(record.clone())),
        ..ExportRequest::default()
    };
    let report = export_map(&map, &recipe, None, &request, &out).expect("the export");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    for kind in [DerivedMap::Wear, DerivedMap::Deposition] {
        let image = image::open(out.join(format!("{}.png", kind.name())))
            .expect("a readable PNG")
            .into_luma16();
        assert_eq!(image.dimensions(), (129, 129));
        assert_eq!(
            image.into_raw(),
            grey16(erosion_pixels(record.change(), kind)),
            "{kind:?}"
        );
    }
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("heightmap.json")).expect("a sidecar"))
            .expect("JSON");
    assert_eq!(sidecar["maps"][0]["file"], "wear.png");
    assert_eq!(sidecar["maps"][1]["bits"], 16);

    // Without the record: one line, nothing written.
    let refused = dir.path().join("refused");
    let error = export_map(
        &map,
        &recipe,
        None,
        &ExportRequest {
            erosion: None,
            ..request.clone()
        },
        &refused,
    )
    .expect_err("no record, no wear");
    let message = error.to_string();
    assert!(
        message.starts_with("maps wear,deposition: needs the record"),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1);
    assert!(!refused.exists());

    // A record of another size is refused too.
    let error = export_map(
        &map,
        &recipe,
        None,
        &ExportRequest {
            erosion: Some(Arc::new(ErosionRecord::new(65, 65))),
            ..request
        },
        &refused,
    )
    .expect_err("a record of another map");
    assert!(error.to_string().contains("65x65"), "{error}");
}

#[test]
fn a_recipe_without_erosion_gives_empty_maps_and_says_so() {
    let mut recipe = eroding_recipe(None);
    recipe.stages.retain(|e| !is_erosion(&e.stage));
    let (map, record) = recorded_on(2, &recipe);
    assert!(record.stages().is_empty());
    assert!(record.change().iter().all(|&c| c == 0.0));
    assert_eq!(record.change().len(), 129 * 129);
    let dir = tempfile::tempdir().expect("a temp folder");
    let request = ExportRequest {
        maps: vec![DerivedMap::Deposition],
        erosion: Some(Arc::new(record)),
        ..ExportRequest::default()
    };
    let report = export_map(&map, &recipe, None, &request, dir.path()).expect("the export");
    assert_eq!(
        report.warnings,
        ["the recipe has no erosion stage: wear.png and deposition.png are empty"]
    );
    let image = image::open(dir.path().join("deposition.png"))
        .expect("a readable PNG")
        .into_luma16();
    assert!(image.pixels().all(|p| p.0[0] == 0));
}
