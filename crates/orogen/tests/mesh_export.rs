//! Mesh export (`--mesh glb|obj`): the GLB loads back with the `gltf`
//! crate with the right vertex count and bounds, and the OBJ has the right
//! number of lines of each kind.

mod common;
use common::*;

use orogen_core::Heightmap;
use orogen_core::io::height_files::encode_png;
use orogen_core::io::mesh_export::{MeshPlan, MeshTexture, encode_mtl, mesh_files};
use orogen_core::rng::{range_f32, stage_rng};
use std::path::Path;

fn random_map(width: usize, height: usize, seed: u64) -> Heightmap {
    let mut rng = stage_rng(seed, 0);
    let data = (0..width * height)
        .map(|_| range_f32(&mut rng, -12.5, 310.0))
        .collect();
    Heightmap::from_vec(width, height, data).unwrap()
}

/// The one file `mesh_files` makes for a GLB plan.
fn glb_bytes(
    map: &Heightmap,
    cell_size: f32,
    size: Option<&str>,
    texture: Option<MeshTexture>,
) -> Vec<u8> {
    let plan = MeshPlan::parse("glb", size, map.width(), map.height()).unwrap();
    let mut files = mesh_files(map, cell_size, &plan, texture).unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].0, "terrain.glb");
    files.remove(0).1
}

/// What the test reads back from a GLB.
struct Loaded {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    uvs: Vec<[f32; 2]>,
    indices: Vec<u32>,
    accessor_bounds: ([f32; 3], [f32; 3]),
    texture_png: Option<Vec<u8>>,
}

fn load(glb: &[u8]) -> Loaded {
    let gltf = gltf::Gltf::from_slice(glb).expect("valid glTF 2.0 binary");
    let blob = gltf.blob.as_deref().expect("binary chunk");
    let mesh = gltf.meshes().next().expect("a mesh");
    let prim = mesh.primitives().next().expect("a primitive");
    assert_eq!(prim.mode(), gltf::mesh::Mode::Triangles);
    let reader = prim.reader(|buffer| (buffer.index() == 0).then_some(blob));
    let bounds = prim.bounding_box();
    let base = prim
        .material()
        .pbr_metallic_roughness()
        .base_color_texture();
    let texture_png = base.map(|info| match info.texture().source().source() {
        gltf::image::Source::View { view, mime_type } => {
            assert_eq!(mime_type, "image/png");
            blob[view.offset()..view.offset() + view.length()].to_vec()
        }
        gltf::image::Source::Uri { .. } => panic!("texture must be embedded"),
    });
    Loaded {
        positions: reader.read_positions().unwrap().collect(),
        normals: reader.read_normals().unwrap().collect(),
        uvs: reader.read_tex_coords(0).unwrap().into_f32().collect(),
        indices: reader.read_indices().unwrap().into_u32().collect(),
        accessor_bounds: (bounds.min, bounds.max),
        texture_png,
    }
}

fn bounds(points: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (lo, hi)
}

/// x east and z south centred on the origin in world units, y = height.
fn expected_bounds(map: &Heightmap, cell_size: f32) -> ([f32; 3], [f32; 3]) {
    let half_w = (map.width() - 1) as f32 * cell_size / 2.0;
    let half_h = (map.height() - 1) as f32 * cell_size / 2.0;
    let s = map.stats();
    ([-half_w, s.min, -half_h], [half_w, s.max, half_h])
}

fn assert_close(a: [f32; 3], b: [f32; 3], what: &str) {
    for k in 0..3 {
        assert!(
            (a[k] - b[k]).abs() <= 1e-4 * (1.0 + b[k].abs()),
            "{what}: {a:?} vs {b:?}"
        );
    }
}

#[test]
fn full_resolution_glb_loads_back_with_every_vertex_and_the_map_bounds() {
    let (w, h, cell) = (33, 17, 2.5);
    let map = random_map(w, h, 3);
    let loaded = load(&glb_bytes(&map, cell, None, None));
    assert_eq!(loaded.positions.len(), w * h);
    assert_eq!(loaded.normals.len(), w * h);
    assert_eq!(loaded.uvs.len(), w * h);
    assert_eq!(loaded.indices.len(), (w - 1) * (h - 1) * 6);
    assert!(loaded.indices.iter().all(|&i| (i as usize) < w * h));
    let (lo, hi) = expected_bounds(&map, cell);
    let (read_lo, read_hi) = bounds(&loaded.positions);
    assert_close(read_lo, lo, "min of positions");
    assert_close(read_hi, hi, "max of positions");
    assert_eq!(
        loaded.accessor_bounds,
        (read_lo, read_hi),
        "POSITION min/max must be exact"
    );
    for n in &loaded.normals {
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        assert!((len - 1.0).abs() < 1e-4 && n[1] > 0.0, "normal {n:?}");
    }
    assert_eq!(loaded.uvs[0], [0.0, 0.0], "north-west corner");
    assert_eq!(loaded.uvs[w * h - 1], [1.0, 1.0], "south-east corner");
    assert!(
        loaded.texture_png.is_none(),
        "plain material without --texture"
    );
}

#[test]
fn decimated_glb_has_mesh_size_vertices_a_side_and_keeps_the_extent() {
    let (w, h, cell) = (65, 65, 1.0);
    let map = random_map(w, h, 4);
    let loaded = load(&glb_bytes(&map, cell, Some("17"), None));
    assert_eq!(loaded.positions.len(), 17 * 17);
    assert_eq!(loaded.indices.len(), 16 * 16 * 6);
    let (lo, hi) = expected_bounds(&map, cell);
    let (read_lo, read_hi) = bounds(&loaded.positions);
    // Decimation keeps the first and last rows and columns, so the
    // horizontal extent is the map's; heights are those of kept cells.
    assert_close(
        [read_lo[0], 0.0, read_lo[2]],
        [lo[0], 0.0, lo[2]],
        "min extent",
    );
    assert_close(
        [read_hi[0], 0.0, read_hi[2]],
        [hi[0], 0.0, hi[2]],
        "max extent",
    );
    assert!(read_lo[1] >= lo[1] && read_hi[1] <= hi[1]);
}

#[test]
fn textured_glb_embeds_the_png_in_its_material() {
    let map = random_map(9, 9, 5);
    let png = encode_png(&[200u8; 4 * 4 * 3], 4, 4, image::ExtendedColorType::Rgb8).unwrap();
    let texture = MeshTexture {
        png: &png,
        file_name: "texture.png",
    };
    let loaded = load(&glb_bytes(&map, 1.0, None, Some(texture)));
    assert_eq!(loaded.texture_png.as_deref(), Some(png.as_slice()));
}

fn count_lines(text: &str, tag: &str) -> usize {
    text.lines()
        .filter(|l| l.split_whitespace().next() == Some(tag))
        .count()
}

#[test]
fn obj_has_one_v_vt_vn_per_vertex_and_two_faces_per_quad() {
    let map = random_map(21, 13, 6);
    for (size, cols, rows) in [(None, 21, 13), (Some("11"), 11, 7)] {
        let plan = MeshPlan::parse("obj", size, 21, 13).unwrap();
        assert_eq!(plan.sides(21, 13), (cols, rows));
        let files = mesh_files(&map, 1.5, &plan, None).unwrap();
        assert_eq!(files.len(), 1, "no material library without a texture");
        let text = String::from_utf8(files[0].1.clone()).unwrap();
        for tag in ["v", "vt", "vn"] {
            assert_eq!(
                count_lines(&text, tag),
                cols * rows,
                "{tag} lines at {size:?}"
            );
        }
        assert_eq!(count_lines(&text, "f"), 2 * (cols - 1) * (rows - 1));
        assert_eq!(count_lines(&text, "mtllib"), 0);
        // Every face refers to an existing vertex (OBJ counts from 1).
        let max_ref = text
            .lines()
            .filter(|l| l.starts_with("f "))
            .flat_map(|l| {
                l.split_whitespace()
                    .skip(1)
                    .map(|r| r.split('/').next().unwrap().parse::<usize>().unwrap())
            })
            .max()
            .unwrap();
        assert_eq!(max_ref, cols * rows);
    }
}

#[test]
fn textured_obj_comes_with_a_material_library() {
    let map = random_map(5, 5, 8);
    let plan = MeshPlan::parse("obj", None, 5, 5).unwrap();
    let texture = MeshTexture {
        png: &[],
        file_name: "texture.png",
    };
    let files = mesh_files(&map, 1.0, &plan, Some(texture)).unwrap();
    let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["terrain.obj", "terrain.mtl"]);
    let obj = String::from_utf8(files[0].1.clone()).unwrap();
    assert!(obj.lines().any(|l| l == "mtllib terrain.mtl"));
    assert!(obj.lines().any(|l| l == "usemtl terrain"));
    assert_eq!(
        String::from_utf8(files[1].1.clone()).unwrap(),
        encode_mtl("texture.png")
    );
    assert!(
        encode_mtl("texture.png")
            .lines()
            .any(|l| l == "map_Kd texture.png")
    );
    // OBJ's v runs bottom-up: the north-west vertex has vt (0, 1).
    let first_vt = obj.lines().find(|l| l.starts_with("vt ")).unwrap();
    assert_eq!(first_vt, "vt 0 1");
}

// ---------------------------------------------------------------- CLI

fn sidecar_files(out: &Path) -> Vec<String> {
    let sidecar: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("heightmap.json")).unwrap())
            .unwrap();
    sidecar["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn generate_writes_a_textured_glb_beside_the_heightmap() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        "default",
        "--out",
        out.to_str().unwrap(),
        "--size",
        "33",
        "--texture",
        "24",
        "--mesh",
        "glb",
        "--timings",
    ]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("timing mesh "), "{stderr}");
    assert!(sidecar_files(&out).contains(&"terrain.glb".to_string()));
    let loaded = load(&std::fs::read(out.join("terrain.glb")).unwrap());
    assert_eq!(loaded.positions.len(), 33 * 33);
    let texture = std::fs::read(out.join("texture.png")).unwrap();
    assert_eq!(
        loaded.texture_png,
        Some(texture),
        "the GLB embeds texture.png"
    );
    // Heights span the exported range (the sidecar's min/max heights).
    let sidecar: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("heightmap.json")).unwrap())
            .unwrap();
    let (lo, hi) = bounds(&loaded.positions);
    assert!((lo[1] as f64 - sidecar["min_height"].as_f64().unwrap()).abs() < 1e-3);
    assert!((hi[1] as f64 - sidecar["max_height"].as_f64().unwrap()).abs() < 1e-3);
}

#[test]
fn generate_writes_a_decimated_obj_with_its_material() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        "default",
        "--out",
        out.to_str().unwrap(),
        "--size",
        "33",
        "--texture",
        "16",
        "--mesh",
        "obj",
        "--mesh-size",
        "9",
    ]);
    assert!(ok, "{stderr}");
    let obj = std::fs::read_to_string(out.join("terrain.obj")).unwrap();
    assert_eq!(count_lines(&obj, "v"), 81);
    assert_eq!(count_lines(&obj, "f"), 2 * 64);
    assert!(
        std::fs::read_to_string(out.join("terrain.mtl"))
            .unwrap()
            .contains("map_Kd texture.png")
    );
    for f in ["terrain.obj", "terrain.mtl", "texture.png"] {
        assert!(
            sidecar_files(&out).contains(&f.to_string()),
            "sidecar misses {f}"
        );
    }
}

#[test]
fn bad_mesh_options_are_refused_with_one_line_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    for (extra, expect) in [
        (
            &["--size", "33", "--mesh", "stl"][..],
            "--mesh 'stl': expected glb or obj",
        ),
        (
            &["--size", "33", "--mesh", "glb", "--mesh-size", "1"][..],
            "--mesh-size '1'",
        ),
        (
            &["--size", "33", "--mesh-size", "9"][..],
            "--mesh-size needs --mesh",
        ),
        // Refused before generating: 16385^2 vertices do not fit a GLB.
        (
            &[
                "--size",
                "16385",
                "--mesh",
                "glb",
                "--memory-limit",
                "100000",
            ][..],
            "4 GiB",
        ),
    ] {
        let mut args = vec!["generate", "--recipe", "default", "--out", o];
        args.extend_from_slice(extra);
        let (ok, _, stderr) = run(&args);
        assert!(!ok, "{args:?} should fail");
        assert_eq!(stderr.lines().count(), 1, "one line expected: {stderr}");
        assert!(stderr.contains(expect), "expected '{expect}' in: {stderr}");
        assert!(!out.exists(), "nothing may be written");
    }
}
