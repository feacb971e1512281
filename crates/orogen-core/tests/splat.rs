//! Splat texture: the article's visibility, orientation, bilinear heights.

use orogen_core::Heightmap;
use orogen_core::io::height_files::{ByteOrder, decode_raw16, quantize};
use orogen_core::params::Span;
use orogen_core::splat::*;
use proptest::prelude::*;

fn band(low: f32, optimal: f32, high: f32) -> Tile {
    Tile {
        name: "t".into(),
        image: "builtin:rock".into(),
        low,
        optimal,
        high,
        slope: None,
        map: None,
        scale: 1.0,
        fallback_color: [0, 0, 0],
    }
}

/// The article's `CalculateTilePresent`, transcribed.
fn article_visibility(t: &Tile, v: f32) -> f32 {
    if v == t.optimal {
        1.0
    } else if v > t.low && v < t.optimal {
        (v - t.low) / (t.optimal - t.low)
    } else if v > t.optimal && v < t.high {
        (t.high - v) / (t.high - t.optimal)
    } else {
        0.0
    }
}

#[test]
fn auto_assign_is_the_articles() {
    let mut set = TileSet::default();
    set.auto_assign(0.0, 100.0);
    for (i, t) in set.tiles.iter().enumerate() {
        let unit = 20.0;
        assert!((t.optimal - (i as f32 + 1.0) * unit).abs() < 1e-4);
        assert!((t.low - i as f32 * unit).abs() < 1e-4);
        assert!((t.high - (i as f32 + 2.0) * unit).abs() < 1e-4);
    }
    set.auto_assign(-50.0, 50.0);
    assert!(
        (set.tiles[0].optimal - (-30.0)).abs() < 1e-4,
        "min..max, not 0..max"
    );
}

#[test]
fn visibility_equals_the_formula_inside_and_saturates_at_the_ends() {
    let mut set = TileSet::default();
    set.auto_assign(0.0, 100.0);
    let k = set.tiles.len();
    for (i, t) in set.tiles.iter().enumerate() {
        for v in [
            t.low,
            t.low + 0.1,
            (t.low + t.optimal) / 2.0,
            t.optimal,
            t.optimal + 7.0,
            t.high - 0.1,
            t.high,
        ] {
            let ours = visibility(t, i, k, v);
            let saturated = (i == 0 && v < t.optimal) || (i == k - 1 && v > t.optimal);
            let expected = if saturated {
                1.0
            } else {
                article_visibility(t, v)
            };
            assert!(
                (ours - expected).abs() < 1e-6,
                "tile {i} at {v}: {ours} vs {expected}"
            );
        }
    }
    assert_eq!(visibility(&set.tiles[0], 0, k, -1000.0), 1.0);
    assert_eq!(visibility(&set.tiles[k - 1], k - 1, k, 1000.0), 1.0);
    assert_eq!(visibility(&set.tiles[1], 1, k, -1000.0), 0.0);
    assert_eq!(visibility(&set.tiles[1], 1, k, 1000.0), 0.0);
}

proptest! {
    #[test]
    fn weights_sum_to_one(h in -200.0f32..300.0, slope in 0.0f32..90.0,
                          l0 in 0.0f32..50.0, l1 in 0.0f32..50.0, gap in any::<bool>()) {
        let mut tiles = vec![band(0.0, l0, l0 + 10.0), band(l1, l1 + 20.0, l1 + 30.0), band(60.0, 80.0, 90.0)];
        if gap {
            tiles[1].slope = Some(Span::new(40.0, 60.0));
        }
        let mut w = vec![0.0; 3];
        weights_at(&tiles, h, slope, &mut w);
        let sum: f32 = w.iter().sum();
        prop_assert!((sum - 1.0).abs() < 1e-5, "sum {sum} for {w:?}");
        prop_assert!(w.iter().all(|&x| (0.0..=1.0).contains(&x)));
    }

    #[test]
    fn bilinear_matches_a_reference(x in 0.0f32..15.0, y in 0.0f32..9.0, seed in any::<u64>()) {
        let mut rng = orogen_core::rng::stage_rng(seed, 0);
        let data = (0..16 * 10).map(|_| orogen_core::rng::range_f32(&mut rng, -100.0, 100.0)).collect();
        let map = Heightmap::from_vec(16, 10, data).unwrap();
        let (x0, y0) = (x.floor() as usize, y.floor() as usize);
        let (fx, fy) = ((x - x0 as f32) as f64, (y - y0 as f32) as f64);
        let g = |xx: usize, yy: usize| map.get(xx.min(15), yy.min(9)) as f64;
        let reference = g(x0, y0) * (1.0 - fx) * (1.0 - fy) + g(x0 + 1, y0) * fx * (1.0 - fy)
            + g(x0, y0 + 1) * (1.0 - fx) * fy + g(x0 + 1, y0 + 1) * fx * fy;
        prop_assert!((map.sample_bilinear(x, y) as f64 - reference).abs() < 1e-3);
    }
}

/// A ramp with one high peak (north-east) and one deep pit (south-west).
fn peak_and_pit() -> Heightmap {
    let mut map = Heightmap::filled(40, 30, 50.0);
    for y in 0..30 {
        for x in 0..40 {
            let dp = ((x as f32 - 33.0).powi(2) + (y as f32 - 5.0).powi(2)).sqrt();
            let dv = ((x as f32 - 6.0).powi(2) + (y as f32 - 24.0).powi(2)).sqrt();
            let v = 50.0 + 50.0 * (1.0 - dp / 6.0).max(0.0) - 50.0 * (1.0 - dv / 6.0).max(0.0);
            map.set(x, y, v);
        }
    }
    map
}

fn flat_colour_tiles() -> (TileSet, TileImages) {
    let colours = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]];
    let mut set = TileSet::default();
    for (t, c) in set.tiles.iter_mut().zip(colours) {
        t.slope = None;
        t.image = "missing-on-purpose.png".into();
        t.fallback_color = c;
    }
    let (images, warnings) = TileImages::load(&set, None);
    assert_eq!(warnings.len(), 4);
    assert!(warnings[0].contains("missing-on-purpose.png"));
    (set, images)
}

#[test]
fn highest_cell_gets_the_top_tile_and_lowest_the_bottom_tile_in_every_output() {
    let map = peak_and_pit();
    let (set, images) = flat_colour_tiles();
    // A texture of a different resolution than the map: 80x60 texels.
    let tex = render_splat(&map, 1.0, &set, &images, 80, 60).unwrap();
    let texel = |cx: usize, cy: usize| {
        let tx = ((cx as f32 / 39.0) * 80.0) as usize;
        let ty = ((cy as f32 / 29.0) * 60.0) as usize;
        (tx.min(79), ty.min(59))
    };
    let (px, py) = texel(33, 5);
    let (vx, vy) = texel(6, 24);
    let rgb = |x: usize, y: usize| &tex.rgb[(y * 80 + x) * 3..(y * 80 + x) * 3 + 3];
    assert_eq!(rgb(px, py), &[255, 255, 255], "snow on the peak");
    assert_eq!(rgb(vx, vy), &[255, 0, 0], "sand in the pit");
    let splat = tex.splat_rgba();
    let at = |x: usize, y: usize| &splat[(y * 80 + x) * 4..(y * 80 + x) * 4 + 4];
    assert_eq!(at(px, py), &[0, 0, 0, 255]);
    assert_eq!(at(vx, vy), &[255, 0, 0, 0]);
    assert_eq!(tex.layer(3)[py * 80 + px], 255);
    assert_eq!(tex.layer(0)[vy * 80 + vx], 255);
    // And through the PNG encoder (row 0 = north).
    let mut bundle = orogen_core::io::bundle::ExportBundle::default();
    add_texture_files(&mut bundle, &tex).unwrap();
    let png = |name: &str| {
        let bytes = &bundle.files.iter().find(|(n, _)| n == name).unwrap().1;
        image::load_from_memory(bytes).unwrap()
    };
    assert_eq!(
        png("texture.png")
            .to_rgb8()
            .get_pixel(px as u32, py as u32)
            .0,
        [255, 255, 255]
    );
    assert_eq!(
        png("splat.png")
            .to_rgba8()
            .get_pixel(vx as u32, vy as u32)
            .0,
        [255, 0, 0, 0]
    );
    assert_eq!(
        png("splat_3.png")
            .to_luma8()
            .get_pixel(px as u32, py as u32)
            .0,
        [255]
    );
    assert_eq!(
        png("splat_0.png")
            .to_luma8()
            .get_pixel(vx as u32, vy as u32)
            .0,
        [255]
    );
}

#[test]
fn bmp_tiles_load_the_right_way_up() {
    let img = image::RgbImage::from_fn(4, 4, |_, y| {
        if y == 0 {
            image::Rgb([255, 0, 0])
        } else {
            image::Rgb([0, 0, 255])
        }
    });
    let mut bytes = std::io::Cursor::new(Vec::new());
    img.write_to(&mut bytes, image::ImageFormat::Bmp).unwrap();
    let back = decode_tile_image(bytes.get_ref()).unwrap();
    assert_eq!(
        back.get_pixel(0, 0).0,
        [255, 0, 0],
        "BMP rows are bottom-up on disk; row 0 must stay on top"
    );
    assert_eq!(back.get_pixel(0, 3).0, [0, 0, 255]);
    assert!(decode_tile_image(b"definitely not an image").is_err());
}

#[test]
fn heights_near_the_top_of_16_bits_do_not_overflow() {
    // A 16-bit import near 65535: averaging neighbours must not wrap around.
    let mut bytes = Vec::new();
    for i in 0..16u16 {
        bytes.extend_from_slice(&(65535 - (i % 4)).to_le_bytes());
    }
    let imported = decode_raw16(&bytes, ByteOrder::Le, None).unwrap();
    let data: Vec<f32> = imported.values.iter().map(|&v| v as f32).collect();
    let mut map = Heightmap::from_vec(4, 4, data).unwrap();
    map.set(0, 3, 0.0);
    let mid = map.sample_bilinear(0.5, 0.5);
    assert!(mid > 65530.0 && mid <= 65535.0, "{mid}");
    let (set, images) = flat_colour_tiles();
    let tex = render_splat(&map, 1.0, &set, &images, 8, 8).unwrap();
    assert_eq!(
        &tex.rgb[0..3],
        &[255, 255, 255],
        "snow stays snow at the top of the range"
    );
    let q = quantize(&map, Span::new(0.0, 65535.0));
    assert_eq!(q[0], 65535);
}

#[test]
fn slope_rules_pick_rock_on_steep_faces() {
    // A 45° ramp in world units (cell size 1, rise 1 per cell) next to a flat area.
    let map = Heightmap::from_vec(
        20,
        4,
        (0..80)
            .map(|i| {
                let x = i % 20;
                if x < 10 { 0.0 } else { (x - 10) as f32 }
            })
            .collect(),
    )
    .unwrap();
    let slopes = slope_map(&map, 1.0);
    assert!(slopes.get(2, 1).abs() < 1e-3);
    assert!((slopes.get(15, 1) - 45.0).abs() < 1e-3);
    let tiles = vec![
        Tile {
            slope: Some(Span::new(0.0, 20.0)),
            ..band(-10.0, 0.0, 100.0)
        },
        Tile {
            slope: Some(Span::new(30.0, 90.0)),
            ..band(-10.0, 5.0, 100.0)
        },
    ];
    let mut w = vec![0.0; 2];
    weights_at(&tiles, 3.0, 45.0, &mut w);
    assert_eq!(w, vec![0.0, 1.0]);
    weights_at(&tiles, 3.0, 2.0, &mut w);
    assert_eq!(w, vec![1.0, 0.0]);
}

#[test]
fn fast_atan_matches_std_within_a_thousandth_of_a_degree() {
    for i in 0..20_000 {
        let g = i as f32 * 0.001;
        let exact = g.atan().to_degrees();
        assert!((atan_degrees(g) - exact).abs() < 1e-3, "g={g}");
    }
    assert!((atan_degrees(1e6) - 90.0).abs() < 1e-3);
}

/// The table-driven renderer against a per-texel reference written from
/// the definitions: bilinear height and slope, weights, wrapped tiles.
/// Sizes cover upsampling, downsampling (texel rows skipping map rows),
/// a texture wider than a tile (wrapped runs) and one row.
#[test]
fn render_matches_a_naive_per_texel_reference() {
    for (w, h) in [(53, 41), (600, 23), (17, 9), (31, 1)] {
        render_matches_reference_at(w, h);
    }
}

fn render_matches_reference_at(w: usize, h: usize) {
    let map = peak_and_pit();
    let mut set = TileSet::default();
    set.tiles[2].scale = 0.37;
    let (images, _) = TileImages::load(&set, None);
    let tex = render_splat(&map, 1.5, &set, &images, w, h).unwrap();
    let expected = orogen_core::splat::reference::splat_rgb(&map, 1.5, &set, &images, w, h);
    for (i, (got, want)) in tex.rgb.iter().zip(&expected).enumerate() {
        let texel = i / 3;
        assert!(
            (*got as f32 - want).abs() <= 1.0,
            "texel ({},{}) channel {}: {got} vs {want}",
            texel % w,
            texel / w,
            i % 3
        );
    }
    assert_eq!(tex.rgb.len(), expected.len());
}

#[test]
fn render_splat_refuses_what_it_cannot_paint() {
    let map = peak_and_pit();
    let (set, images) = flat_colour_tiles();
    let no_tiles = TileSet {
        tiles: Vec::new(),
        ..TileSet::default()
    };
    let err = render_splat(&map, 1.0, &no_tiles, &images, 8, 8).unwrap_err();
    assert_eq!(err, SplatError::NoTiles);
    assert_eq!(
        err.to_string(),
        "cannot paint a splat texture without tiles"
    );
    let no_images = TileImages { images: Vec::new() };
    let err = render_splat(&map, 1.0, &set, &no_images, 8, 8).unwrap_err();
    assert_eq!(err, SplatError::NoTileImages);
    assert_eq!(
        err.to_string(),
        "cannot paint a splat texture without tile images"
    );
    let err = render_splat(&map, 1.0, &set, &images, 0, 8).unwrap_err();
    assert_eq!(
        err.to_string(),
        "splat texture size 0x8: each side needs at least one texel"
    );
    let err = render_splat(&map, 0.0, &set, &images, 8, 8).unwrap_err();
    assert_eq!(err, SplatError::CellSize(0.0));
    assert_eq!(err.to_string(), "cell size 0: expected a positive number");
    assert!(render_splat(&map, 1.0, &set, &images, 1, 1).is_ok());
}

/// Article 003's bands depend on height only: its preset carries no slope
/// rules, so each texel's weights, and the texture, are the same whatever
/// the slope (a map rendered with cells 1000 times wider, nearly flat,
/// paints the same bytes).
#[test]
fn article_003_texture_depends_on_height_alone() {
    let mut recipe = orogen_core::presets::load("article-003-diamond-square")
        .expect("the preset ships")
        .expect("the preset parses");
    assert!(recipe.tiles.tiles.iter().all(|t| t.slope.is_none()));
    let set = recipe.tiles.effective(0.0, 200.0);
    let (mut steep, mut flat) = (vec![0.0; set.tiles.len()], vec![0.0; set.tiles.len()]);
    for h in (0..=40).map(|i| i as f32 * 5.0) {
        for slope in [10.0, 38.0, 45.0, 80.0] {
            weights_at(&set.tiles, h, slope, &mut steep);
            weights_at(&set.tiles, h, 0.0, &mut flat);
            assert_eq!(steep, flat, "height {h}, slope {slope}");
        }
    }
    recipe.width = 65;
    recipe.height = 65;
    let map = orogen_core::generate(&recipe, None)
        .expect("the preset runs")
        .map;
    let (images, _) = TileImages::load(&recipe.tiles, None);
    let sharp = render_splat(&map, 1.0, &recipe.tiles, &images, 64, 64).unwrap();
    let gentle = render_splat(&map, 1000.0, &recipe.tiles, &images, 64, 64).unwrap();
    assert_eq!(sharp.rgb, gentle.rgb);
}

/// `bands_from_zero` spreads the auto bands over 0..max, as article 003's
/// `AssainTilesRange` does; off, they follow the map's own lowest cell.
#[test]
fn bands_from_zero_start_the_lowest_band_at_sea_level() {
    let mut set = TileSet::default();
    // Four tiles: unit = range / 5, tile i (1-based) at low + i·unit.
    let own = set.effective(20.0, 170.0);
    assert_eq!(own.tiles[0].optimal, 20.0 + 30.0);
    assert_eq!(own.tiles[3].optimal, 20.0 + 4.0 * 30.0);
    set.bands_from_zero = true;
    let from_zero = set.effective(20.0, 170.0);
    assert_eq!(from_zero.tiles[0].optimal, 34.0);
    assert_eq!(from_zero.tiles[0].low, 0.0);
    assert_eq!(from_zero.tiles[3].optimal, 4.0 * 34.0);
    // A map entirely below sea level keeps its own range.
    assert_eq!(set.effective(-50.0, -10.0).tiles[0].optimal, -42.0);
}

/// The optional switches are left out of saved recipes while off, so a
/// recipe that does not use them saves exactly as it did before them.
#[test]
fn optional_switches_are_saved_only_when_on() {
    let recipe = orogen_core::presets::load("default").unwrap().unwrap();
    let text = recipe.to_ron().unwrap();
    assert!(!text.contains("bands_from_zero"), "{text}");
    assert!(!text.contains("clamp_negatives_as_generated"), "{text}");
    let article = orogen_core::presets::load("article-003-diamond-square")
        .unwrap()
        .unwrap();
    let text = article.to_ron().unwrap();
    assert!(text.contains("bands_from_zero: true"), "{text}");
    assert!(
        text.contains("clamp_negatives_as_generated: true"),
        "{text}"
    );
    assert_eq!(orogen_core::Recipe::from_ron(&text).unwrap(), article);
}
