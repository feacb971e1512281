//! Tiled export (`--tiles N`): neighbouring tiles share their border row
//! and column exactly, and stitching the tiles gives back the whole map.

mod common;
use common::*;

use orogen_core::Heightmap;
use orogen_core::io::bundle::ExportBundle;
use orogen_core::io::height_files::{
    ByteOrder, ExportOptions, decode_png, encode_r16, export_range, quantize,
};
use orogen_core::io::tiled_export::{
    MapTileGrid, MapTileGridInfo, add_map_tile_files, map_tile_grid,
};
use orogen_core::rng::{range_f32, stage_rng};

fn random_map(width: usize, height: usize, seed: u64) -> Heightmap {
    let mut rng = stage_rng(seed, 0);
    let data = (0..width * height)
        .map(|_| range_f32(&mut rng, -30.0, 420.0))
        .collect();
    Heightmap::from_vec(width, height, data).unwrap()
}

fn u16s(bytes: &[u8], order: ByteOrder) -> Vec<u16> {
    bytes
        .chunks_exact(2)
        .map(|b| match order {
            ByteOrder::Le => u16::from_le_bytes([b[0], b[1]]),
            ByteOrder::Be => u16::from_be_bytes([b[0], b[1]]),
        })
        .collect()
}

/// Undoes flip-y: file rows back to north-first.
fn north_first(values: Vec<u16>, width: usize, flip_y: bool) -> Vec<u16> {
    if !flip_y {
        return values;
    }
    values
        .chunks_exact(width)
        .rev()
        .flatten()
        .copied()
        .collect()
}

fn file<'a>(bundle: &'a ExportBundle, name: &str) -> &'a [u8] {
    bundle.get(name).unwrap_or_else(|| panic!("missing {name}"))
}

/// One tile's samples, north-first, from its `.r16`, checked against its `.png`.
fn read_tile(
    bundle: &ExportBundle,
    info: &MapTileGridInfo,
    i: usize,
    j: usize,
    opts: &ExportOptions,
) -> Vec<u16> {
    let entry = info.tiles.iter().find(|t| (t.i, t.j) == (i, j)).unwrap();
    let raw = u16s(file(bundle, &entry.r16), opts.byte_order);
    let png = decode_png(file(bundle, &entry.png)).unwrap();
    assert_eq!((png.width, png.height), (entry.width, entry.height));
    assert_eq!(png.values, raw, "{} and {} differ", entry.r16, entry.png);
    north_first(raw, entry.width, opts.flip_y)
}

fn column(values: &[u16], width: usize, x: usize) -> Vec<u16> {
    values.chunks_exact(width).map(|row| row[x]).collect()
}

fn row(values: &[u16], width: usize, y: usize) -> &[u16] {
    &values[y * width..(y + 1) * width]
}

/// Stitches north-first tiles, checking shared borders on the way.
fn stitch(tiles: &[Vec<Vec<u16>>], grid: &MapTileGrid, width: usize, height: usize) -> Vec<u16> {
    let (tw, th) = (grid.tile_width, grid.tile_height);
    let mut out = vec![0u16; width * height];
    for (j, tile_row) in tiles.iter().enumerate() {
        for (i, tile) in tile_row.iter().enumerate() {
            if i + 1 < grid.n {
                assert_eq!(
                    column(tile, tw, tw - 1),
                    column(&tiles[j][i + 1], tw, 0),
                    "x{i}_y{j} east border"
                );
            }
            if j + 1 < grid.n {
                assert_eq!(
                    row(tile, tw, th - 1),
                    row(&tiles[j + 1][i], tw, 0),
                    "x{i}_y{j} south border"
                );
            }
            let (x0, y0) = grid.origin(i, j);
            for y in 0..th {
                out[(y0 + y) * width + x0..][..tw].copy_from_slice(row(tile, tw, y));
            }
        }
    }
    out
}

#[test]
fn tiles_share_borders_and_stitch_back_to_the_quantised_map() {
    let cases = [
        (65, 65, 4),
        (65, 33, 8),
        (33, 17, 2),
        (9, 9, 8),
        (17, 17, 1),
        (129, 65, 16),
    ];
    for (k, &(w, h, n)) in cases.iter().enumerate() {
        let map = random_map(w, h, k as u64 + 1);
        for flip_y in [false, true] {
            for byte_order in [ByteOrder::Le, ByteOrder::Be] {
                let opts = ExportOptions {
                    byte_order,
                    flip_y,
                    height_range: None,
                };
                let range = export_range(&map, &opts);
                let grid = map_tile_grid(w, h, n).unwrap();
                let mut bundle = ExportBundle::default();
                let info = add_map_tile_files(&mut bundle, &map, range, &opts, &grid).unwrap();
                assert_eq!(info.tiles.len(), n * n);
                assert_eq!(bundle.files.len(), 2 * n * n);
                let tiles: Vec<Vec<Vec<u16>>> = (0..n)
                    .map(|j| {
                        (0..n)
                            .map(|i| read_tile(&bundle, &info, i, j, &opts))
                            .collect()
                    })
                    .collect();
                let stitched = stitch(&tiles, &grid, w, h);
                assert_eq!(
                    stitched,
                    quantize(&map, range),
                    "{w}x{h} N={n} flip={flip_y} {byte_order:?}"
                );
            }
        }
    }
}

#[test]
fn flipped_tiles_in_reverse_row_order_rebuild_the_flipped_whole_file() {
    // With flip-y, j still counts north to south; reading the files as
    // they lie (south-first rows) means taking the tile rows from j = N-1.
    let (w, h, n) = (33, 17, 4);
    let map = random_map(w, h, 7);
    let opts = ExportOptions {
        byte_order: ByteOrder::Le,
        flip_y: true,
        height_range: None,
    };
    let range = export_range(&map, &opts);
    let grid = map_tile_grid(w, h, n).unwrap();
    let mut bundle = ExportBundle::default();
    let info = add_map_tile_files(&mut bundle, &map, range, &opts, &grid).unwrap();
    let whole = u16s(
        &encode_r16(&quantize(&map, range), w, ByteOrder::Le, true),
        ByteOrder::Le,
    );
    for entry in &info.tiles {
        let raw = u16s(file(&bundle, &entry.r16), ByteOrder::Le);
        // The tile's first file row is its southern row: whole-file row
        // (h-1) - (y + height - 1).
        let file_y0 = (h - 1) - (entry.y + entry.height - 1);
        for r in 0..entry.height {
            let whole_row = &whole[(file_y0 + r) * w + entry.x..][..entry.width];
            assert_eq!(
                &raw[r * entry.width..][..entry.width],
                whole_row,
                "x{}_y{} row {r}",
                entry.i,
                entry.j
            );
        }
    }
    let north_west = info.tiles.iter().find(|t| (t.i, t.j) == (0, 0)).unwrap();
    assert_eq!(
        (north_west.x, north_west.y, north_west.r16.as_str()),
        (0, 0, "heightmap_x0_y0.r16")
    );
    let south_east = info.tiles.iter().find(|t| (t.i, t.j) == (3, 3)).unwrap();
    assert_eq!((south_east.x, south_east.y), (24, 12));
    assert_eq!((south_east.width, south_east.height), (9, 5));
}

// ---------------------------------------------------------------- CLI

#[test]
fn generate_writes_tiles_listed_in_the_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let world = default_world_of(dir.path(), 65, 33);
    for flip in [false, true] {
        let out = dir.path().join(format!("out-{flip}"));
        let mut args = vec![
            "generate",
            "--recipe",
            &world,
            "--out",
            out.to_str().unwrap(),
            "--tiles",
            "4",
            "--byte-order",
            "be",
            "--timings",
        ];
        if flip {
            args.push("--flip-y");
        }
        let (ok, _, stderr) = run(&args);
        assert!(ok, "{stderr}");
        assert!(stderr.contains("timing tiles "), "{stderr}");
        let sidecar: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("heightmap.json")).unwrap())
                .unwrap();
        let info: MapTileGridInfo = serde_json::from_value(sidecar["tiles_grid"].clone()).unwrap();
        assert_eq!(
            (info.columns, info.rows, info.tile_width, info.tile_height),
            (4, 4, 17, 9)
        );
        let files: Vec<&str> = sidecar["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        for name in [
            "heightmap.r16",
            "heightmap.png",
            "heightmap_x0_y0.r16",
            "heightmap_x3_y3.png",
        ] {
            assert!(files.contains(&name), "sidecar misses {name}");
        }
        let whole = north_first(
            u16s(
                &std::fs::read(out.join("heightmap.r16")).unwrap(),
                ByteOrder::Be,
            ),
            65,
            flip,
        );
        let grid = map_tile_grid(65, 33, 4).unwrap();
        let tiles: Vec<Vec<Vec<u16>>> = (0..4)
            .map(|j| {
                (0..4)
                    .map(|i| {
                        let entry = info.tiles.iter().find(|t| (t.i, t.j) == (i, j)).unwrap();
                        assert_eq!((entry.x, entry.y), grid.origin(i, j));
                        let raw =
                            u16s(&std::fs::read(out.join(&entry.r16)).unwrap(), ByteOrder::Be);
                        north_first(raw, entry.width, flip)
                    })
                    .collect()
            })
            .collect();
        assert_eq!(stitch(&tiles, &grid, 65, 33), whole, "flip={flip}");
    }
}

#[test]
fn bad_tile_counts_are_refused_with_one_line_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    let world = default_world_of(dir.path(), 65, 33);
    let base = ["generate", "--recipe", &world, "--out", o];
    let with =
        |extra: &[&'static str]| -> Vec<&str> { base.iter().chain(extra).copied().collect() };
    assert_refused(
        &with(&["--tiles", "3"]),
        &out,
        "valid N: 1, 2, 4, 8, 16, 32",
    );
    assert_refused(
        &with(&["--tiles", "64"]),
        &out,
        "divides both width-1 (64) and height-1 (32)",
    );
    assert_refused(&with(&["--tiles", "0"]), &out, "1 to 64");
    assert_refused(&with(&["--tiles", "65"]), &out, "1 to 64");
    assert_refused(&with(&["--tiles", "four"]), &out, "--tiles 'four'");
    assert_refused(&with(&["--tiles", "-2"]), &out, "--tiles '-2'");
}
