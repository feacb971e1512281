//! The same recipe gives the same bytes for any thread count.

use orogen_core::io::height_files::quantize;
use orogen_core::params::Span;
use orogen_core::splat::{TileImages, render_splat};
use orogen_core::{generate, presets};

fn run_with_threads(threads: usize, name: &str) -> (Vec<u32>, Vec<u8>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut recipe = presets::load(name).unwrap().unwrap();
        // A small map that is not square, of a world whose cells stay
        // square: a recipe `Recipe::validate` accepts, as every recipe
        // that reaches `generate` from a file or the viewer is.
        let (width, height) = (200u32, 170u32);
        recipe.extent.y = recipe.extent.x * (height - 1) as f32 / (width - 1) as f32;
        recipe.set_sampling(width, height);
        if let Err(e) = recipe.validate() {
            panic!("{name} at {width}x{height}: {e}");
        }
        let out = generate(&recipe, None).unwrap();
        let bits = out.map.data().iter().map(|v| v.to_bits()).collect();
        let (images, _) = TileImages::load(&recipe.tiles, None);
        let splat =
            render_splat(&out.map, recipe.cell_size(), &recipe.tiles, &images, 96, 80).unwrap();
        (bits, splat.rgb)
    })
}

#[test]
fn identical_bytes_for_1_2_and_8_threads() {
    for name in presets::names() {
        let one = run_with_threads(1, name);
        assert_eq!(one, run_with_threads(2, name), "{name}: 1 vs 2 threads");
        assert_eq!(one, run_with_threads(8, name), "{name}: 1 vs 8 threads");
    }
}

#[test]
fn same_recipe_same_bytes_and_seed_changes_them() {
    let recipe = presets::load("default").unwrap().unwrap();
    let mut small = recipe.clone();
    small.width = 129;
    small.height = 129;
    let a = generate(&small, None).unwrap();
    let b = generate(&small, None).unwrap();
    let range = Span::new(0.0, 150.0);
    assert_eq!(quantize(&a.map, range), quantize(&b.map, range));
    small.seed += 1;
    let c = generate(&small, None).unwrap();
    assert_ne!(quantize(&a.map, range), quantize(&c.map, range));
}

#[test]
fn disabling_a_stage_does_not_reshuffle_later_stages() {
    use orogen_core::{Recipe, Stage, StageEntry};
    let blur_free = |enabled_first: bool| {
        let mut r = Recipe {
            width: 64,
            height: 64,
            ..Recipe::default()
        };
        let mut first = StageEntry::new(Stage::default_of("random-values").unwrap());
        first.enabled = enabled_first;
        r.stages = vec![
            first,
            StageEntry::new(Stage::default_of("hills-and-pits").unwrap()),
        ];
        r
    };
    // With the random start disabled, the hills are the same hills: the
    // difference between the two maps is exactly the random start.
    let with = generate(&blur_free(true), None).unwrap();
    let without = generate(&blur_free(false), None).unwrap();
    let random = generate(
        &Recipe {
            stages: vec![blur_free(true).stages[0].clone()],
            ..blur_free(true)
        },
        None,
    )
    .unwrap();
    for i in 0..with.map.data().len() {
        let expected = without.map.data()[i] + random.map.data()[i];
        let tolerance = 1e-5 * expected.abs().max(1.0);
        assert!(
            (with.map.data()[i] - expected).abs() <= tolerance,
            "cell {i}"
        );
    }
}
