//! Mesh export (`--mesh glb|obj`): the terrain as a triangle mesh with
//! normals and UVs, at full or decimated resolution.
//!
//! The GLB (glTF 2.0 binary) is written by hand — a JSON chunk and one
//! binary buffer — rather than through a glTF crate: the format is small
//! and fixed here, and it keeps the runtime dependencies as they are.
//! Coordinates are the mesh's own (x east, y up, z south, centred on the
//! origin, world units), which is glTF's right-handed, y-up frame.

use crate::heightmap::Heightmap;
use crate::mesh::{MeshData, build_mesh, decimated_axis};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshFormat {
    Glb,
    Obj,
}

impl MeshFormat {
    /// Parses `--mesh glb|obj`.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "glb" => Ok(Self::Glb),
            "obj" => Ok(Self::Obj),
            _ => Err(format!("--mesh '{text}': expected glb or obj")),
        }
    }
}

/// What `--mesh` and `--mesh-size` ask for, checked against the map size
/// before any work is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshPlan {
    pub format: MeshFormat,
    /// Most vertices a side (decimation keeps the last row and column).
    pub max_side: usize,
}

/// The texture that the mesh's material shows: the PNG bytes and the
/// file name an OBJ's material refers to.
pub struct MeshTexture<'a> {
    pub png: &'a [u8],
    pub file_name: &'a str,
}

pub const GLB_NAME: &str = "terrain.glb";
pub const OBJ_NAME: &str = "terrain.obj";
pub const MTL_NAME: &str = "terrain.mtl";

/// Vertex bytes in the GLB: position, normal (3 x f32 each), uv (2 x f32).
const VERTEX_BYTES: u64 = 32;
/// Two triangles of three u32 indices per grid quad.
const QUAD_BYTES: u64 = 24;

impl MeshPlan {
    /// Checks `--mesh` / `--mesh-size` for a `width x height` map.
    pub fn parse(
        format: &str,
        size: Option<&str>,
        width: usize,
        height: usize,
    ) -> Result<Self, String> {
        let format = MeshFormat::parse(format)?;
        let max_side = match size {
            Some(text) => parse_mesh_size(text)?,
            None => width.max(height),
        };
        let plan = Self { format, max_side };
        if format == MeshFormat::Glb {
            check_glb_fits(plan.sides(width, height))?;
        }
        Ok(plan)
    }

    /// Vertices a side the mesh will have: (columns, rows).
    pub fn sides(&self, width: usize, height: usize) -> (usize, usize) {
        (
            decimated_axis(width, self.max_side).len(),
            decimated_axis(height, self.max_side).len(),
        )
    }
}

fn parse_mesh_size(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 2 => Ok(n),
        _ => Err(format!(
            "--mesh-size '{text}': expected a whole number of vertices a side, at least 2"
        )),
    }
}

/// GLB sizes are u32 (4 GiB); refuse early rather than after generating.
fn check_glb_fits((cols, rows): (usize, usize)) -> Result<(), String> {
    let (c, r) = (cols as u64, rows as u64);
    let bytes = c * r * VERTEX_BYTES + c.saturating_sub(1) * r.saturating_sub(1) * QUAD_BYTES;
    if bytes > u32::MAX as u64 {
        return Err(format!(
            "--mesh glb: a {cols}x{rows} vertex mesh needs {} MiB, over glTF's 4 GiB limit; pass a smaller --mesh-size",
            bytes >> 20
        ));
    }
    Ok(())
}

/// Builds the mesh for `plan` and encodes its file(s), named as they go
/// into the export bundle. Returned rather than added so the texture can
/// be borrowed from the same bundle without a copy.
pub fn mesh_files(
    map: &Heightmap,
    cell_size: f32,
    plan: &MeshPlan,
    texture: Option<MeshTexture>,
) -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    let mesh = build_mesh(map, cell_size, 1.0, plan.max_side);
    Ok(match plan.format {
        MeshFormat::Glb => vec![(GLB_NAME, encode_glb(&mesh, texture.map(|t| t.png))?)],
        MeshFormat::Obj => match texture {
            Some(t) => vec![
                (OBJ_NAME, encode_obj(&mesh, Some(MTL_NAME)).into_bytes()),
                (MTL_NAME, encode_mtl(t.file_name).into_bytes()),
            ],
            None => vec![(OBJ_NAME, encode_obj(&mesh, None).into_bytes())],
        },
    })
}

// ---------------------------------------------------------------- GLB

static TIMING_JSON_NANOS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"
const FLOAT: u32 = 5126;
const UNSIGNED_INT: u32 = 5125;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// The binary chunk under construction and the views into it.
#[derive(Default)]
struct BinBuffer {
    bytes: Vec<u8>,
    views: Vec<Value>,
}

impl BinBuffer {
    /// Appends what `write` writes as a new buffer view (4-byte aligned,
    /// as glTF requires for float and u32 accessors) and returns its
    /// index. Writing in place avoids a second copy of big meshes.
    fn push_view(&mut self, target: Option<u32>, write: impl FnOnce(&mut Vec<u8>)) -> usize {
        pad_to_4(&mut self.bytes, 0);
        let start = self.bytes.len();
        write(&mut self.bytes);
        let mut view = json!({
            "buffer": 0,
            "byteOffset": start,
            "byteLength": self.bytes.len() - start,
        });
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.views.push(view);
        self.views.len() - 1
    }
}

fn pad_to_4(bytes: &mut Vec<u8>, fill: u8) {
    while !bytes.len().is_multiple_of(4) {
        bytes.push(fill);
    }
}

fn put_f32s<const N: usize>(items: &[[f32; N]]) -> impl FnOnce(&mut Vec<u8>) + '_ {
    move |out| out.extend(items.iter().flatten().flat_map(|v| v.to_le_bytes()))
}

/// Per-axis min and max of the positions (glTF requires them on POSITION).
fn bounds(positions: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for p in positions {
        for k in 0..3 {
            min[k] = min[k].min(p[k]);
            max[k] = max[k].max(p[k]);
        }
    }
    (min, max)
}

fn accessor(view: usize, count: usize, component: u32, kind: &str) -> Value {
    json!({ "bufferView": view, "componentType": component, "count": count, "type": kind })
}

/// A plain matte material, or one that shows texture 0.
fn material(textured: bool) -> Value {
    let mut pbr = json!({ "metallicFactor": 0.0, "roughnessFactor": 1.0 });
    if textured {
        pbr["baseColorTexture"] = json!({ "index": 0 });
    } else {
        pbr["baseColorFactor"] = json!([0.8, 0.8, 0.8, 1.0]);
    }
    json!({ "name": "terrain", "pbrMetallicRoughness": pbr })
}

/// Encodes `mesh` as a self-contained GLB, embedding `texture_png` (if
/// any) as the base colour of its material.
pub fn encode_glb(mesh: &MeshData, texture_png: Option<&[u8]>) -> Result<Vec<u8>, String> {
    let count = mesh.positions.len();
    let mut bin = BinBuffer::default();
    // One allocation for the whole chunk (plus alignment slack).
    bin.bytes.reserve(
        count * VERTEX_BYTES as usize
            + mesh.indices.len() * 4
            + texture_png.map_or(0, <[u8]>::len)
            + 16,
    );
    let pos_view = bin.push_view(Some(ARRAY_BUFFER), put_f32s(&mesh.positions));
    let normal_view = bin.push_view(Some(ARRAY_BUFFER), put_f32s(&mesh.normals));
    let uv_view = bin.push_view(Some(ARRAY_BUFFER), put_f32s(&mesh.uvs));
    let index_view = bin.push_view(Some(ELEMENT_ARRAY_BUFFER), |out| {
        out.extend(mesh.indices.iter().flat_map(|i| i.to_le_bytes()))
    });
    let image_view = texture_png.map(|png| bin.push_view(None, |out| out.extend_from_slice(png)));

    let (min, max) = bounds(&mesh.positions);
    let t_json = std::time::Instant::now();
    let mut position = accessor(pos_view, count, FLOAT, "VEC3");
    position["min"] = json!(min);
    position["max"] = json!(max);
    let accessors = vec![
        position,
        accessor(normal_view, count, FLOAT, "VEC3"),
        accessor(uv_view, count, FLOAT, "VEC2"),
        accessor(index_view, mesh.indices.len(), UNSIGNED_INT, "SCALAR"),
    ];
    pad_to_4(&mut bin.bytes, 0);
    let mut doc = json!({
        "asset": { "version": "2.0", "generator": format!("orogen {}", env!("CARGO_PKG_VERSION")) },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0, "name": "terrain" }],
        "meshes": [{
            "name": "terrain",
            "primitives": [{
                "attributes": { "POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2 },
                "indices": 3,
                "material": 0,
                "mode": 4,
            }],
        }],
        "materials": [material(image_view.is_some())],
        "accessors": accessors,
        "bufferViews": bin.views,
        "buffers": [{ "byteLength": bin.bytes.len() }],
    });
    if let Some(view) = image_view {
        add_texture(&mut doc, view);
    }
    let json = serde_json::to_vec(&doc).map_err(|e| format!("glTF JSON: {e}"))?;
    TIMING_JSON_NANOS.fetch_add(t_json.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
    glb_container(json, &bin.bytes)
}

/// The image, sampler and texture entries for the embedded PNG. Clamping
/// stops the far edge bleeding into the near one under filtering.
fn add_texture(doc: &mut Value, view: usize) {
    const LINEAR: u32 = 9729;
    const LINEAR_MIPMAP_LINEAR: u32 = 9987;
    const CLAMP_TO_EDGE: u32 = 33071;
    doc["images"] = json!([{ "bufferView": view, "mimeType": "image/png", "name": "texture" }]);
    doc["samplers"] = json!([{
        "magFilter": LINEAR, "minFilter": LINEAR_MIPMAP_LINEAR,
        "wrapS": CLAMP_TO_EDGE, "wrapT": CLAMP_TO_EDGE,
    }]);
    doc["textures"] = json!([{ "source": 0, "sampler": 0 }]);
}

/// Wraps the JSON and binary chunks in the GLB header.
fn glb_container(mut json: Vec<u8>, bin: &[u8]) -> Result<Vec<u8>, String> {
    // The JSON chunk is padded with spaces, which JSON parsers ignore.
    pad_to_4(&mut json, b' ');
    let total = 12 + 8 + json.len() as u64 + 8 + bin.len() as u64;
    let too_big = || {
        format!(
            "--mesh glb: the file would be {} MiB, over glTF's 4 GiB limit; pass a smaller --mesh-size",
            total >> 20
        )
    };
    let total_u32 = u32::try_from(total).map_err(|_| too_big())?;
    let mut out = Vec::with_capacity(total as usize);
    for word in [GLB_MAGIC, 2, total_u32] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    // Each chunk is below `total`, so these lengths fit in u32 too.
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    out.extend_from_slice(bin);
    Ok(out)
}

// ---------------------------------------------------------------- OBJ

/// Rows of text built in parallel, then joined in order: OBJ files of big
/// maps run to gigabytes and formatting floats is the slow part.
fn par_lines<T: Sync>(items: &[T], line: impl Fn(&mut String, &T) + Sync) -> String {
    const CHUNK: usize = 4096;
    let parts: Vec<String> = items
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut s = String::with_capacity(chunk.len() * 40);
            for item in chunk {
                line(&mut s, item);
            }
            s
        })
        .collect();
    parts.concat()
}

/// Encodes `mesh` as Wavefront OBJ; `mtl` names the material library to
/// use (with material `terrain`), if any. OBJ's texture origin is the
/// bottom-left, so v is flipped relative to the mesh's north-up UVs.
pub fn encode_obj(mesh: &MeshData, mtl: Option<&str>) -> String {
    let mut head = format!(
        "# orogen {} terrain mesh: {}x{} vertices, x east, y up, z south\n",
        env!("CARGO_PKG_VERSION"),
        mesh.columns,
        mesh.rows
    );
    if let Some(mtl) = mtl {
        let _ = writeln!(head, "mtllib {mtl}");
    }
    head.push_str("o terrain\n");
    let v = par_lines(&mesh.positions, |s, p| {
        let _ = writeln!(s, "v {} {} {}", p[0], p[1], p[2]);
    });
    let vt = par_lines(&mesh.uvs, |s, t| {
        let _ = writeln!(s, "vt {} {}", t[0], 1.0 - t[1]);
    });
    let vn = par_lines(&mesh.normals, |s, n| {
        let _ = writeln!(s, "vn {} {} {}", n[0], n[1], n[2]);
    });
    let usemtl = if mtl.is_some() {
        "usemtl terrain\n"
    } else {
        ""
    };
    // Position, uv and normal share an index per vertex; OBJ counts from 1.
    let triangles: Vec<&[u32]> = mesh.indices.chunks_exact(3).collect();
    let f = par_lines(&triangles, |s, t| {
        let (a, b, c) = (t[0] + 1, t[1] + 1, t[2] + 1);
        let _ = writeln!(s, "f {a}/{a}/{a} {b}/{b}/{b} {c}/{c}/{c}");
    });
    [head.as_str(), &v, &vt, &vn, usemtl, &f].concat()
}

/// The material library for a textured OBJ: matte, showing `texture`.
pub fn encode_mtl(texture: &str) -> String {
    format!(
        "# orogen {}\nnewmtl terrain\nKa 1 1 1\nKd 1 1 1\nKs 0 0 0\nillum 1\nmap_Kd {texture}\n",
        env!("CARGO_PKG_VERSION")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[ignore]
    fn dump_glb_for_comparison() {
        let tag = std::env::var("GLB_DUMP_TAG").unwrap();
        let data = (0..5 * 4)
            .map(|i| ((i * 37) % 11) as f32 * 0.5 - 1.0)
            .collect();
        let map = Heightmap::from_vec(5, 4, data).unwrap();
        let mesh = build_mesh(&map, 2.0, 1.0, 16);
        for (label, tex) in [("plain", None), ("tex", Some(&[1u8, 2, 3, 4, 5][..]))] {
            let glb = encode_glb(&mesh, tex).unwrap();
            std::fs::write(format!("/tmp/glb_{tag}_{label}.glb"), &glb).unwrap();
        }
    }

    #[test]
    #[ignore]
    fn timing_encode_glb_1025() {
        use std::sync::atomic::Ordering;
        let n = 1025;
        let data = (0..n * n)
            .map(|i| ((i * 7919) % 1000) as f32 * 0.25)
            .collect();
        let map = Heightmap::from_vec(n, n, data).unwrap();
        let mesh = build_mesh(&map, 1.0, 1.0, n);
        let png = vec![7u8; 1 << 20];
        for (label, tex) in [("untextured", None), ("textured", Some(png.as_slice()))] {
            let mut total = Vec::new();
            let mut json = Vec::new();
            let mut len = 0;
            for _ in 0..20 {
                TIMING_JSON_NANOS.store(0, Ordering::Relaxed);
                let t = std::time::Instant::now();
                let glb = encode_glb(&mesh, tex).unwrap();
                total.push(t.elapsed().as_nanos() as u64);
                json.push(TIMING_JSON_NANOS.load(Ordering::Relaxed));
                len = glb.len();
                std::hint::black_box(glb);
            }
            total.sort();
            json.sort();
            println!(
                "TIMING {label}: encode_glb median {:.3} ms, JSON part median {:.1} us (min {:.1}, max {:.1}), {len} bytes",
                total[10] as f64 / 1e6,
                json[10] as f64 / 1e3,
                json[0] as f64 / 1e3,
                json[19] as f64 / 1e3
            );
        }
    }

    #[test]
    fn glb_header_and_chunks_are_aligned() {
        let map = Heightmap::filled(3, 2, 1.0);
        let mesh = build_mesh(&map, 1.0, 1.0, 16);
        let glb = encode_glb(&mesh, None).unwrap();
        assert_eq!(&glb[0..4], b"glTF");
        assert_eq!(
            u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
            glb.len()
        );
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        assert_eq!(json_len % 4, 0);
        assert_eq!(glb.len() % 4, 0);
    }

    #[test]
    fn plans_are_checked_before_work() {
        assert!(
            MeshPlan::parse("stl", None, 9, 9)
                .unwrap_err()
                .contains("glb or obj")
        );
        assert!(MeshPlan::parse("glb", Some("1"), 9, 9).is_err());
        assert_eq!(
            MeshPlan::parse("obj", Some("5"), 9, 9).unwrap().sides(9, 9),
            (5, 5)
        );
        assert_eq!(
            MeshPlan::parse("GLB", None, 9, 7).unwrap().sides(9, 7),
            (9, 7)
        );
        let err = MeshPlan::parse("glb", None, 16385, 16385).unwrap_err();
        assert!(err.contains("4 GiB"), "{err}");
    }
}
