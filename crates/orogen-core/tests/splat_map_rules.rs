//! Splat rules by derived map: the renderer against the per-texel
//! reference, a riverbed tile that shows only along the drainage, the
//! recipe syntax, and validation.

use orogen_core::Heightmap;
use orogen_core::maps::DerivedMap;
use orogen_core::params::Span;
use orogen_core::recipe::Recipe;
use orogen_core::rng::{range_f32, stage_rng};
use orogen_core::splat::*;

/// Rolling hills with valleys: drainage gathers into channels.
fn valleys(width: usize, height: usize, seed: u64) -> Heightmap {
    let mut rng = stage_rng(seed, 1);
    let phase: [f32; 4] = std::array::from_fn(|_| range_f32(&mut rng, 0.0, 6.0));
    let mut map = Heightmap::new(width, height);
    for y in 0..height {
        for x in 0..width {
            let (fx, fy) = (x as f32 / 9.0, y as f32 / 7.0);
            let v = 40.0
                + 12.0 * (fx + phase[0]).sin() * (fy + phase[1]).cos()
                + 5.0 * (2.3 * fx + phase[2]).cos()
                + 3.0 * (1.7 * fy + phase[3]).sin()
                + 0.2 * x as f32;
            map.set(x, y, v);
        }
    }
    map
}

fn flat_colours() -> (TileSet, TileImages) {
    let colours = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]];
    let mut set = TileSet::default();
    for (t, c) in set.tiles.iter_mut().zip(colours) {
        t.slope = None;
        t.image = "missing-on-purpose.png".into();
        t.fallback_color = c;
    }
    let (images, _) = TileImages::load(&set, None);
    (set, images)
}

fn rule(map: DerivedMap, min: f32, max: f32, soft: f32) -> Option<MapRule> {
    Some(MapRule {
        map,
        range: Span::new(min, max),
        soft,
    })
}

/// The table-driven rows against the texel-by-texel definition, with
/// soft rules on three maps (hard edges may flip on a rounding of the
/// bilinear sample, so they are checked separately below).
#[test]
fn map_rules_render_as_the_per_texel_reference_defines() {
    for (seed, (w, h), (tw, th)) in [
        (1u64, (40, 30), (39, 29)),
        (2, (33, 33), (70, 50)),
        (3, (50, 20), (17, 9)),
    ] {
        let map = valleys(w, h, seed);
        let mut set = TileSet::default();
        set.tiles[0].map = rule(DerivedMap::Flow, 40.0, 1e9, 30.0);
        set.tiles[1].map = rule(DerivedMap::Curvature, -1e9, 0.0, 0.05);
        set.tiles[3].map = rule(DerivedMap::Occlusion, 0.9, 1.0, 0.1);
        let (images, _) = TileImages::load(&set, None);
        let fast = render_splat(&map, 2.0, &set, &images, tw, th).expect("renders");
        let slow = orogen_core::splat::reference::splat_rgb(&map, 2.0, &set, &images, tw, th);
        assert_eq!(fast.rgb.len(), slow.len());
        let mut worst = 0.0f32;
        for (&got, &want) in fast.rgb.iter().zip(&slow) {
            worst = worst.max((got as f32 - want).abs());
        }
        assert!(worst <= 1.0, "seed {seed}: off by {worst}");
    }
}

/// A riverbed tile with a hard rule on drainage area shows exactly where
/// the texel's bilinear drainage area reaches the threshold, and nowhere
/// else; the other tiles fill the rest.
#[test]
fn a_riverbed_tile_shows_only_where_the_drainage_area_is_high() {
    let map = valleys(64, 48, 9);
    let cell = 4.0;
    let (mut set, images) = flat_colours();
    set.auto_bands = false;
    for (i, t) in set.tiles.iter_mut().enumerate() {
        t.low = 0.0;
        t.optimal = 40.0;
        t.high = 100.0;
        t.map = None;
        if i == 0 {
            t.map = rule(DerivedMap::Flow, 2000.0, 1e12, 0.0);
        }
    }
    let area = rule_values(&map, cell, DerivedMap::Flow, None);
    let grid = Heightmap::from_vec(64, 48, area.clone()).expect("cells");
    let (tw, th) = (63, 47);
    let tex = render_splat(&map, cell, &set, &images, tw, th).expect("renders");
    let riverbed = &tex.weights[..tw * th];
    let (mut inside, mut checked) = (0, 0);
    for ty in 0..th {
        for tx in 0..tw {
            let hx = (tx as f32 + 0.5) * 63.0 / tw as f32;
            let hy = (ty as f32 + 0.5) * 47.0 / th as f32;
            let a = grid.sample_bilinear(hx, hy);
            // Skip texels within a rounding of the threshold.
            if (a - 2000.0).abs() < 1.0 {
                continue;
            }
            checked += 1;
            let w = riverbed[ty * tw + tx];
            if a >= 2000.0 {
                inside += 1;
                assert!(
                    w > 0,
                    "texel ({tx},{ty}) drains {a} m² but shows no riverbed"
                );
            } else {
                assert_eq!(w, 0, "texel ({tx},{ty}) drains {a} m² yet shows riverbed");
            }
        }
    }
    assert!(inside > 20, "only {inside} channel texels");
    assert!(
        inside < checked / 2,
        "{inside} of {checked} texels are channel"
    );
}

/// Rules on wear and deposition read the erosion record handed in: with
/// none every cell reads 0, so a rule above 0 hides its tile.
#[test]
fn deposition_rules_read_the_erosion_record() {
    let map = valleys(20, 20, 4);
    let (mut set, images) = flat_colours();
    set.auto_bands = false;
    for t in set.tiles.iter_mut() {
        (t.low, t.optimal, t.high) = (0.0, 40.0, 100.0);
    }
    set.tiles[2].map = rule(DerivedMap::Deposition, 0.5, 1e6, 0.0);
    let kinds = rule_map_kinds(set.tiles.iter().map(|t| &t.map));
    assert_eq!(kinds, vec![DerivedMap::Deposition]);
    let mut record = orogen_core::pipeline::ErosionRecord::new(20, 20);
    let before = map.data().to_vec();
    let mut after = before.clone();
    // Two metres laid down over the left half.
    for y in 0..20 {
        for x in 0..10 {
            after[y * 20 + x] += 2.0;
        }
    }
    record.add("fluvial", &before, &after);
    let maps = RuleMaps::compute(&kinds, &map, 1.0, Some(&record));
    let with = render_splat_with_maps(&map, 1.0, &set, &images, 19, 19, &maps).expect("renders");
    let without = render_splat(&map, 1.0, &set, &images, 19, 19).expect("renders");
    let plane = |tex: &SplatTexture| tex.weights[2 * 19 * 19..3 * 19 * 19].to_vec();
    let (with, without) = (plane(&with), plane(&without));
    assert!(without.iter().all(|&w| w == 0));
    for ty in 0..19 {
        // Texel centres up to x = 8.5 cells lie over the deposit; from
        // x = 9.5 their bilinear sample is below 0.5 m or 0.
        for tx in 0..9 {
            assert!(with[ty * 19 + tx] > 0, "texel ({tx},{ty}) on the deposit");
        }
        for tx in 10..19 {
            assert_eq!(
                with[ty * 19 + tx],
                0,
                "texel ({tx},{ty}) right of the deposit"
            );
        }
    }
}

#[test]
fn a_map_rule_is_written_and_read_in_the_recipe() {
    let mut recipe = Recipe::default();
    recipe.tiles.tiles[0].map = rule(DerivedMap::Flow, 5000.0, 1e12, 2000.0);
    let text = recipe.to_ron().expect("serialises");
    let compact: String = text.split_whitespace().collect();
    assert!(
        compact.contains("map:(map:flow,range:(min:5000.0,max:"),
        "{text}"
    );
    let back = Recipe::from_ron(&text).expect("reads back");
    assert_eq!(back.tiles, recipe.tiles);
    // Tiles without a rule write no `map` at all.
    assert_eq!(compact.matches("map:(map:").count(), 1);
    // Written by hand on one line, as the README shows it.
    let by_hand = Recipe::default().to_ron().expect("serialises").replacen(
        "scale:",
        "map: (map: lakes, range: (min: 0.5, max: 100.0)), scale:",
        1,
    );
    let read = Recipe::from_ron(&by_hand).expect("a hand-written rule reads");
    assert_eq!(
        read.tiles.tiles[0].map,
        rule(DerivedMap::Lakes, 0.5, 100.0, 0.0)
    );
}

#[test]
fn bad_map_rules_are_refused_naming_the_field() {
    let mut recipe = Recipe::default();
    recipe.tiles.tiles[1].map = rule(DerivedMap::Lakes, 3.0, 1.0, 0.0);
    let error = recipe.validate().expect_err("an unordered range");
    assert!(error.to_string().contains("tiles[1].map.range"), "{error}");

    let mut recipe = Recipe::default();
    recipe.tiles.tiles[1].map = rule(DerivedMap::Lakes, 0.0, 1.0, -2.0);
    let error = recipe.validate().expect_err("a negative soft edge");
    assert!(error.to_string().contains("tiles[1].map.soft"), "{error}");

    let mut recipe = Recipe::default();
    let kinds = [
        DerivedMap::Flow,
        DerivedMap::Lakes,
        DerivedMap::Rivers,
        DerivedMap::Curvature,
        DerivedMap::Occlusion,
    ];
    recipe.tiles.tiles.push(recipe.tiles.tiles[0].clone());
    for (tile, kind) in recipe.tiles.tiles.iter_mut().zip(kinds) {
        tile.map = rule(kind, 0.0, 1.0, 0.0);
    }
    let error = recipe.validate().expect_err("five maps");
    assert!(error.to_string().contains("at most 4"), "{error}");

    let unknown = Recipe::default().to_ron().expect("serialises").replacen(
        "slope:",
        "map: (map: sparkle, range: (min: 0.0, max: 1.0)), slope:",
        1,
    );
    assert!(Recipe::from_ron(&unknown).is_err());
}
