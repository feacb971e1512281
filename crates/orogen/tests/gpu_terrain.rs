//! The GPU terrain under Xvfb and Mesa's software Vulkan: its per-pixel
//! splat agrees with the CPU's `texture.png`, a grazing view over many
//! levels of detail has no cracks, and the CPU fallback still draws.

mod common;
#[path = "../../orogen-core/tests/support/outside_tools.rs"]
mod outside_tools;

use common::{run, view_screenshot};
use orogen_core::Heightmap;
use orogen_core::pipeline::{Pipeline, RunHooks};
use orogen_core::splat::slope_map;

/// The viewer's clear colour, as the window shows it.
const SKY: [u8; 3] = [140, 184, 229];

fn is_sky(p: [u8; 3]) -> bool {
    p.iter().zip(SKY).all(|(&a, b)| a.abs_diff(b) <= 2)
}

/// Straight down, orthographic, one pixel per texel, unlit: the GPU's
/// splat against `texture.png` of the same size, outside the triplanar
/// zones (map slope above 25°, where the GPU projects tiles sideways).
fn the_gpu_splat_agrees_with_texture_png() {
    let dir = tempfile::tempdir().expect("temp dir");
    gpu_and_cpu_splats_agree(&dir, "default");
}

/// The same with map rules: a riverbed tile where the drainage area is
/// large (soft edge) and a rock tile confined to valleys by curvature
/// (hard edge), read on the GPU from the rule-map pages.
fn the_gpu_splat_agrees_with_texture_png_under_map_rules() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut recipe = orogen_core::presets::load("default")
        .expect("the default preset")
        .expect("it parses");
    recipe.tiles.tiles[0].map = Some(orogen_core::splat::MapRule {
        map: orogen_core::maps::DerivedMap::Flow,
        range: orogen_core::params::Span::new(3000.0, 1e12),
        soft: 2000.0,
    });
    recipe.tiles.tiles[2].map = Some(orogen_core::splat::MapRule {
        map: orogen_core::maps::DerivedMap::Curvature,
        range: orogen_core::params::Span::new(-1e6, 0.0),
        soft: 0.0,
    });
    let path = dir.path().join("rules.ron");
    std::fs::write(&path, recipe.to_ron().expect("serialises")).expect("writes the recipe");
    let ruled = gpu_and_cpu_splats_agree(&dir, &path.to_string_lossy());
    // The rules matter: against the same map without them, a good share
    // of texels changes colour.
    let plain_dir = tempfile::tempdir().expect("temp dir");
    let plain_out = plain_dir.path().join("plain");
    let (ok, _, err) = run(&[
        "generate",
        "--recipe",
        "default",
        "--size",
        "129",
        "--texture",
        "258",
        "--out",
        &plain_out.to_string_lossy(),
    ]);
    assert!(ok, "{err}");
    let plain = image::open(plain_out.join("texture.png"))
        .expect("texture.png")
        .to_rgb8();
    let changed = ruled
        .pixels()
        .zip(plain.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(&x, y)| x.abs_diff(y) > 16))
        .count();
    let share = changed as f64 / (258.0 * 258.0);
    eprintln!("map rules changed {:.1} % of the texels", share * 100.0);
    assert!(share > 0.1, "the rules changed only {:.1} %", share * 100.0);
}

/// Exports `recipe` at 129² with a 258² texture, shows the exported
/// recipe straight down, one pixel per texel, and compares; returns
/// `texture.png`.
fn gpu_and_cpu_splats_agree(dir: &tempfile::TempDir, recipe: &str) -> image::RgbImage {
    let out = dir.path().join("export");
    let out_arg = out.to_string_lossy().into_owned();
    // 129² cells: the viewer's tile grid is two texels per cell, 258².
    let (ok, _, err) = run(&[
        "generate",
        "--recipe",
        recipe,
        "--size",
        "129",
        "--texture",
        "258",
        "--out",
        &out_arg,
    ]);
    assert!(ok, "{err}");
    let recipe_path = out.join("recipe.ron");
    let shot = view_screenshot(
        dir.path(),
        "top.png",
        &[
            "--recipe",
            &recipe_path.to_string_lossy(),
            "--top-texels",
            "--frames",
            "2",
        ],
    );
    let texture = image::open(out.join("texture.png"))
        .expect("texture.png")
        .to_rgb8();
    let (tw, th) = texture.dimensions();
    assert_eq!((tw, th), (258, 258));
    // The map is centred in the 1280×800 window.
    let (ox, oy) = ((1280 - tw) / 2, (800 - th) / 2);
    assert!(
        is_sky(shot.get_pixel(ox - 3, oy + th / 2).0),
        "sky left of the map"
    );
    assert!(
        !is_sky(shot.get_pixel(ox + 1, oy + th / 2).0),
        "terrain at its edge"
    );

    let recipe = orogen_core::bake::load_recipe(&recipe_path.to_string_lossy())
        .expect("the exported recipe loads")
        .0;
    let map = Pipeline::new()
        .run(&recipe, RunHooks::default())
        .expect("the recipe runs")
        .map;
    let slopes: Heightmap = slope_map(&map, recipe.cell_size());
    let (mut sum, mut count) = ([0.0f64; 3], 0usize);
    for ty in 0..th {
        for tx in 0..tw {
            // The CPU splat's texel centre on the map (splat::reference).
            let hx = (tx as f32 + 0.5) * (map.width() - 1) as f32 / tw as f32;
            let hy = (ty as f32 + 0.5) * (map.height() - 1) as f32 / th as f32;
            if slopes.sample_bilinear(hx, hy) > 25.0 {
                continue;
            }
            let gpu = shot.get_pixel(ox + tx, oy + ty).0;
            let cpu = texture.get_pixel(tx, ty).0;
            for c in 0..3 {
                sum[c] += (gpu[c] as f64 - cpu[c] as f64).abs();
            }
            count += 1;
        }
    }
    assert!(
        count > (tw * th / 4) as usize,
        "only {count} texels compared"
    );
    let mean = sum.map(|s| s / count as f64);
    eprintln!(
        "GPU vs CPU splat, mean absolute difference per channel: {mean:?} over {count} texels"
    );
    assert!(
        mean.iter().all(|&m| m <= 6.0),
        "mean absolute difference {mean:?} (limit 6 per channel)"
    );
    texture
}

/// A level camera skimming a 2049² map sees every level of detail from
/// full resolution to the horizon: no column may show sky below terrain
/// (a hole between patches of different levels).
fn a_grazing_view_across_every_level_has_no_cracks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let recipe = common::default_world_of(dir.path(), 2049, 2049);
    // Heights 0–150 over a 4096-unit world: eye 170 high at the west
    // edge, looking east along the middle, level (so each column of the
    // picture is a vertical plane and terrain can never hide sky below it).
    let shot = view_screenshot(
        dir.path(),
        "grazing.png",
        &[
            "--recipe",
            &recipe,
            "--look-from",
            "40,170,2048",
            "--look-at",
            "4000,170,2048",
            "--frames",
            "2",
        ],
    );
    // The 3D view: right of the panels, above the status bar.
    let (x0, x1, y1) = (420, 1270, 755);
    let mut holes = Vec::new();
    let mut terrain_columns = 0;
    for x in x0..x1 {
        let column: Vec<bool> = (0..y1).map(|y| is_sky(shot.get_pixel(x, y).0)).collect();
        let Some(first_ground) = column.iter().position(|&sky| !sky) else {
            continue;
        };
        terrain_columns += 1;
        for (y, &sky) in column.iter().enumerate().skip(first_ground) {
            if sky {
                holes.push((x, y));
            }
        }
    }
    assert!(
        terrain_columns > 800,
        "terrain in only {terrain_columns} columns"
    );
    assert!(
        holes.is_empty(),
        "{} sky pixels below terrain, first {:?}",
        holes.len(),
        &holes[..holes.len().min(10)]
    );
}

/// `--cpu-terrain` keeps the CPU mesh and splat texture path working.
fn the_cpu_fallback_still_draws_the_terrain() {
    let dir = tempfile::tempdir().expect("temp dir");
    let shot = view_screenshot(
        dir.path(),
        "cpu.png",
        &["--recipe", "default", "--cpu-terrain", "--frames", "2"],
    );
    let terrain: std::collections::HashSet<[u8; 3]> = (100..700)
        .flat_map(|y| (500..1200).map(move |x| (x, y)))
        .map(|(x, y)| shot.get_pixel(x, y).0)
        .filter(|&p| !is_sky(p))
        .collect();
    assert!(terrain.len() > 1000, "{} terrain colours", terrain.len());
}

fn main() -> std::process::ExitCode {
    let xvfb = outside_tools::xvfb();
    outside_tools::run(vec![
        xvfb.test(
            "the_gpu_splat_agrees_with_texture_png",
            the_gpu_splat_agrees_with_texture_png,
        ),
        xvfb.test(
            "the_gpu_splat_agrees_with_texture_png_under_map_rules",
            the_gpu_splat_agrees_with_texture_png_under_map_rules,
        ),
        xvfb.test(
            "a_grazing_view_across_every_level_has_no_cracks",
            a_grazing_view_across_every_level_has_no_cracks,
        ),
        xvfb.test(
            "the_cpu_fallback_still_draws_the_terrain",
            the_cpu_fallback_still_draws_the_terrain,
        ),
    ])
}
