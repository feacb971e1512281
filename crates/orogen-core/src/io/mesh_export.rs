//! Mesh export (`--mesh glb|obj`): the terrain as a triangle mesh with
//! normals and UVs, at full or decimated resolution.
//!
//! The GLB (glTF 2.0 binary) is one JSON chunk and one binary buffer.
//! The JSON document is built from `gltf-json`'s typed structures (the
//! crate the `gltf` reader parses with); only the GLB container framing —
//! header, chunk headers, 4-byte padding — is written here, as gltf-json
//! has none. The node, mesh and material are named `terrain` (what an
//! importer such as Blender shows), the embedded image `texture`.
//! Coordinates are the mesh's own (x east, y up, z south, centred on the
//! origin, world units), which is glTF's right-handed, y-up frame.

use crate::heightmap::Heightmap;
use crate::io::errors::{EncodeError, OptionError};
use crate::mesh::{MeshData, build_mesh, decimated_axis};
use gj::accessor::{ComponentType, GenericComponentType, Type};
use gj::buffer::{Target, View};
use gj::image::MimeType;
use gj::material::{PbrBaseColorFactor, PbrMetallicRoughness, StrengthFactor};
use gj::mesh::{Mode, Primitive, Semantic};
use gj::texture::{self, MagFilter, MinFilter, Sampler, WrappingMode};
use gj::validation::Checked::Valid;
use gltf_json::{
    self as gj, Accessor, Asset, Image, Index, Material, Node, Root, Scene, Texture, Value,
};
use rayon::prelude::*;
use std::fmt::Write as _;

/// A mesh file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshFormat {
    /// glTF 2.0 binary (`terrain.glb`), self-contained.
    Glb,
    /// Wavefront OBJ (`terrain.obj`, with `terrain.mtl` when textured).
    Obj,
}

impl MeshFormat {
    /// Parses `--mesh glb|obj`.
    pub fn parse(text: &str) -> Result<Self, OptionError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "glb" => Ok(Self::Glb),
            "obj" => Ok(Self::Obj),
            _ => Err(OptionError::UnknownMeshFormat(text.to_string())),
        }
    }
}

/// What `--mesh` and `--mesh-size` ask for, checked against the map size
/// before any work is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshPlan {
    /// The file format to write.
    pub format: MeshFormat,
    /// Most vertices a side (decimation keeps the last row and column).
    pub max_side: usize,
}

/// The texture that the mesh's material shows: the PNG bytes and the
/// file name an OBJ's material refers to.
pub struct MeshTexture<'a> {
    /// The encoded PNG (embedded in a GLB).
    pub png: &'a [u8],
    /// The PNG's file name beside the mesh (an OBJ's material refers to it).
    pub file_name: &'a str,
}

/// File name of the GLB mesh.
pub const GLB_NAME: &str = "terrain.glb";
/// File name of the OBJ mesh.
pub const OBJ_NAME: &str = "terrain.obj";
/// File name of the OBJ's material library.
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
    ) -> Result<Self, OptionError> {
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

fn parse_mesh_size(text: &str) -> Result<usize, OptionError> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 2 => Ok(n),
        _ => Err(OptionError::MeshSize(text.to_string())),
    }
}

/// GLB sizes are u32 (4 GiB); refuse early rather than after generating.
fn check_glb_fits((columns, rows): (usize, usize)) -> Result<(), OptionError> {
    let (c, r) = (columns as u64, rows as u64);
    let bytes = c * r * VERTEX_BYTES + c.saturating_sub(1) * r.saturating_sub(1) * QUAD_BYTES;
    if bytes > u32::MAX as u64 {
        return Err(OptionError::MeshTooLarge {
            columns,
            rows,
            bytes,
        });
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
) -> Result<Vec<(&'static str, Vec<u8>)>, EncodeError> {
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

// The container framing (gltf-json covers only the JSON document).
const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"

/// The GLB's one binary chunk is buffer 0 of the document.
fn bin_buffer() -> Index<gj::Buffer> {
    Index::new(0)
}

/// The binary chunk under construction and the document describing it.
struct GlbBuilder {
    root: Root,
    bin: Vec<u8>,
}

impl GlbBuilder {
    /// Appends what `write` writes as a new buffer view (4-byte aligned,
    /// as glTF requires for float and u32 accessors) and returns its
    /// index. Writing in place avoids a second copy of big meshes.
    fn push_view(
        &mut self,
        target: Option<Target>,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> Index<View> {
        pad_to_4(&mut self.bin, 0);
        let start = self.bin.len();
        write(&mut self.bin);
        self.root.push(View {
            buffer: bin_buffer(),
            byte_length: (self.bin.len() - start).into(),
            byte_offset: Some(start.into()),
            byte_stride: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
            name: None,
        })
    }

    /// A tightly packed accessor over all of `view`, with per-component
    /// `(min, max)` bounds if given.
    fn push_accessor(
        &mut self,
        view: Index<View>,
        count: usize,
        component: ComponentType,
        type_: Type,
        bounds: Option<([f32; 3], [f32; 3])>,
    ) -> Index<Accessor> {
        self.root.push(Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: count.into(),
            component_type: Valid(GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(type_),
            min: bounds.map(|(min, _)| Value::from(min.to_vec())),
            max: bounds.map(|(_, max)| Value::from(max.to_vec())),
            normalized: false,
            sparse: None,
            name: None,
        })
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

/// A plain matte material, or one that shows `texture`.
fn material(texture: Option<Index<Texture>>) -> Material {
    let base_color = if texture.is_some() {
        [1.0; 4]
    } else {
        [0.8, 0.8, 0.8, 1.0]
    };
    Material {
        pbr_metallic_roughness: PbrMetallicRoughness {
            base_color_factor: PbrBaseColorFactor(base_color),
            base_color_texture: texture.map(|index| texture::Info {
                index,
                tex_coord: 0,
                extensions: None,
                extras: Default::default(),
            }),
            metallic_factor: StrengthFactor(0.0),
            roughness_factor: StrengthFactor(1.0),
            ..Default::default()
        },
        name: Some("terrain".into()),
        ..Default::default()
    }
}

/// The image, sampler and texture for the PNG in `view`. Clamping stops
/// the far edge bleeding into the near one under filtering.
fn push_texture(root: &mut Root, view: Index<View>) -> Index<Texture> {
    let source = root.push(Image {
        buffer_view: Some(view),
        mime_type: Some(MimeType("image/png".into())),
        uri: None,
        extensions: None,
        extras: Default::default(),
        name: Some("texture".into()),
    });
    let sampler = root.push(Sampler {
        mag_filter: Some(Valid(MagFilter::Linear)),
        min_filter: Some(Valid(MinFilter::LinearMipmapLinear)),
        wrap_s: Valid(WrappingMode::ClampToEdge),
        wrap_t: Valid(WrappingMode::ClampToEdge),
        ..Default::default()
    });
    root.push(Texture {
        sampler: Some(sampler),
        source,
        extensions: None,
        extras: Default::default(),
        name: None,
    })
}

/// Encodes `mesh` as a self-contained GLB, embedding `texture_png` (if
/// any) as the base colour of its material.
pub fn encode_glb(mesh: &MeshData, texture_png: Option<&[u8]>) -> Result<Vec<u8>, EncodeError> {
    let count = mesh.positions.len();
    let mut glb = GlbBuilder {
        root: Root {
            asset: Asset {
                version: "2.0".into(),
                generator: Some(format!("orogen {}", env!("CARGO_PKG_VERSION"))),
                ..Default::default()
            },
            ..Default::default()
        },
        bin: Vec::new(),
    };
    // One allocation for the whole chunk (plus alignment slack).
    glb.bin.reserve(
        count * VERTEX_BYTES as usize
            + mesh.indices.len() * 4
            + texture_png.map_or(0, <[u8]>::len)
            + 16,
    );
    let vertex_data = Some(Target::ArrayBuffer);
    let pos_view = glb.push_view(vertex_data, put_f32s(&mesh.positions));
    let normal_view = glb.push_view(vertex_data, put_f32s(&mesh.normals));
    let uv_view = glb.push_view(vertex_data, put_f32s(&mesh.uvs));
    let index_view = glb.push_view(Some(Target::ElementArrayBuffer), |out| {
        out.extend(mesh.indices.iter().flat_map(|i| i.to_le_bytes()))
    });
    let image_view = texture_png.map(|png| glb.push_view(None, |out| out.extend_from_slice(png)));
    pad_to_4(&mut glb.bin, 0);

    let (f32s, u32s) = (ComponentType::F32, ComponentType::U32);
    let extent = Some(bounds(&mesh.positions));
    let position = glb.push_accessor(pos_view, count, f32s, Type::Vec3, extent);
    let normal = glb.push_accessor(normal_view, count, f32s, Type::Vec3, None);
    let uv = glb.push_accessor(uv_view, count, f32s, Type::Vec2, None);
    let indices = glb.push_accessor(index_view, mesh.indices.len(), u32s, Type::Scalar, None);

    let root = &mut glb.root;
    let buffer = root.push(gj::Buffer {
        byte_length: glb.bin.len().into(),
        uri: None,
        extensions: None,
        extras: Default::default(),
        name: None,
    });
    debug_assert_eq!(buffer.value(), bin_buffer().value());
    let texture = image_view.map(|view| push_texture(root, view));
    let material = root.push(material(texture));
    let primitive = Primitive {
        attributes: [
            (Semantic::Positions, position),
            (Semantic::Normals, normal),
            (Semantic::TexCoords(0), uv),
        ]
        .into_iter()
        .map(|(semantic, accessor)| (Valid(semantic), accessor))
        .collect(),
        extensions: None,
        extras: Default::default(),
        indices: Some(indices),
        material: Some(material),
        mode: Valid(Mode::Triangles),
        targets: None,
    };
    let mesh = root.push(gj::Mesh {
        extensions: None,
        extras: Default::default(),
        primitives: vec![primitive],
        weights: None,
        name: Some("terrain".into()),
    });
    let node = root.push(Node {
        mesh: Some(mesh),
        name: Some("terrain".into()),
        ..Default::default()
    });
    let scene = root.push(Scene {
        extensions: None,
        extras: Default::default(),
        nodes: vec![node],
        name: None,
    });
    root.scene = Some(scene);
    let json = root.to_vec().map_err(EncodeError::GltfJson)?;
    glb_container(json, &glb.bin)
}

/// Wraps the JSON and binary chunks in the GLB header.
fn glb_container(mut json: Vec<u8>, bin: &[u8]) -> Result<Vec<u8>, EncodeError> {
    // The JSON chunk is padded with spaces, which JSON parsers ignore.
    pad_to_4(&mut json, b' ');
    let total = 12 + 8 + json.len() as u64 + 8 + bin.len() as u64;
    let total_u32 = u32::try_from(total).map_err(|_| EncodeError::GlbTooLarge { bytes: total })?;
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

    /// A 7x5 map whose heights span -3..=11 with the extremes inside.
    fn test_map() -> Heightmap {
        let data = (0..7 * 5)
            .map(|i| match i {
                16 => -3.0,
                22 => 11.0,
                _ => ((i * 13) % 9) as f32 * 0.75,
            })
            .collect();
        Heightmap::from_vec(7, 5, data).unwrap()
    }

    /// Reads a GLB back with the `gltf` crate (which also validates the
    /// document): the mesh data, the POSITION accessor's min/max and the
    /// embedded texture bytes, if any.
    fn read_back(glb: &[u8]) -> (MeshData, [[f32; 3]; 2], Option<Vec<u8>>) {
        let gltf = gltf::Gltf::from_slice(glb).expect("a valid glTF 2.0 binary");
        let blob = gltf.blob.as_deref().expect("a binary chunk");
        assert_eq!(gltf.buffers().len(), 1);
        assert_eq!(gltf.buffers().next().unwrap().length(), blob.len());
        let scene = gltf.default_scene().expect("a default scene");
        let nodes: Vec<_> = scene.nodes().collect();
        assert_eq!(nodes.len(), 1);
        let mesh = nodes[0].mesh().expect("the node shows the mesh");
        assert_eq!(gltf.meshes().len(), 1);
        let prims: Vec<_> = mesh.primitives().collect();
        assert_eq!(prims.len(), 1);
        let prim = &prims[0];
        assert_eq!(prim.mode(), gltf::mesh::Mode::Triangles);
        let reader = prim.reader(|b| (b.index() == 0).then_some(blob));
        let pbr = prim.material().pbr_metallic_roughness();
        assert_eq!(pbr.metallic_factor(), 0.0);
        assert_eq!(pbr.roughness_factor(), 1.0);
        let texture = pbr.base_color_texture().map(|info| {
            assert_eq!(info.tex_coord(), 0);
            let sampler = info.texture().sampler();
            assert_eq!(sampler.wrap_s(), gltf::texture::WrappingMode::ClampToEdge);
            assert_eq!(sampler.wrap_t(), gltf::texture::WrappingMode::ClampToEdge);
            assert_eq!(
                sampler.min_filter(),
                Some(gltf::texture::MinFilter::LinearMipmapLinear)
            );
            assert_eq!(sampler.mag_filter(), Some(gltf::texture::MagFilter::Linear));
            match info.texture().source().source() {
                gltf::image::Source::View { view, mime_type } => {
                    assert_eq!(mime_type, "image/png");
                    blob[view.offset()..view.offset() + view.length()].to_vec()
                }
                gltf::image::Source::Uri { .. } => panic!("the texture must be embedded"),
            }
        });
        if texture.is_none() {
            assert_eq!(pbr.base_color_factor(), [0.8, 0.8, 0.8, 1.0]);
            assert_eq!(gltf.textures().len() + gltf.images().len(), 0);
        }
        let bb = prim.bounding_box();
        let read = MeshData {
            positions: reader.read_positions().unwrap().collect(),
            normals: reader.read_normals().unwrap().collect(),
            uvs: reader.read_tex_coords(0).unwrap().into_f32().collect(),
            indices: match reader.read_indices().unwrap() {
                gltf::mesh::util::ReadIndices::U32(it) => it.collect(),
                _ => panic!("indices must be u32"),
            },
            columns: 0,
            rows: 0,
        };
        (read, [bb.min, bb.max], texture)
    }

    #[test]
    fn glb_reads_back_with_the_gltf_crate() {
        let mesh = build_mesh(&test_map(), 2.0, 1.0, 16);
        let (read, [min, max], texture) = read_back(&encode_glb(&mesh, None).unwrap());
        assert_eq!(read.positions.len(), 7 * 5);
        assert_eq!(read.indices.len(), 6 * 4 * 6);
        // The binary data is the mesh's, bit for bit.
        assert_eq!(read.positions, mesh.positions);
        assert_eq!(read.normals, mesh.normals);
        assert_eq!(read.uvs, mesh.uvs);
        assert_eq!(read.indices, mesh.indices);
        // x east and z south centred on the origin; y spans the heights.
        assert_eq!(min, [-6.0, -3.0, -4.0]);
        assert_eq!(max, [6.0, 11.0, 4.0]);
        assert_eq!((min, max), bounds(&mesh.positions));
        assert!(texture.is_none(), "a plain material without a texture");
        let glb = encode_glb(&mesh, None).unwrap();
        let gltf = gltf::Gltf::from_slice(&glb).expect("the GLB reads back");
        let node = gltf.nodes().next().expect("one node");
        assert_eq!(node.name(), Some("terrain"));
        assert_eq!(node.mesh().and_then(|m| m.name()), Some("terrain"));
    }

    #[test]
    fn decimated_textured_glb_embeds_the_png() {
        // An odd length, so the chunk needs padding after the image.
        let png = b"\x89PNG\r\n\x1a\n not really an image".to_vec();
        let plan = MeshPlan::parse("glb", Some("4"), 7, 5).unwrap();
        let texture = Some(MeshTexture {
            png: &png,
            file_name: "texture.png",
        });
        let files = mesh_files(&test_map(), 2.0, &plan, texture).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].0, GLB_NAME);
        assert_eq!(files[0].1.len() % 4, 0);
        let (read, [min, max], embedded) = read_back(&files[0].1);
        // Decimated to at most 4 vertices a side, keeping the extent.
        let (cols, rows) = plan.sides(7, 5);
        assert_eq!((cols, rows), (4, 3));
        assert_eq!(read.positions.len(), cols * rows);
        assert_eq!(read.indices.len(), (cols - 1) * (rows - 1) * 6);
        assert_eq!((min, max), bounds(&read.positions));
        assert_eq!([min[0], min[2], max[0], max[2]], [-6.0, -4.0, 6.0, 4.0]);
        assert_eq!(embedded.as_deref(), Some(png.as_slice()));
    }

    #[test]
    fn plans_are_checked_before_work() {
        assert_eq!(
            MeshPlan::parse("stl", None, 9, 9).unwrap_err().to_string(),
            "mesh 'stl': expected glb or obj"
        );
        assert_eq!(
            MeshPlan::parse("glb", Some("1"), 9, 9),
            Err(OptionError::MeshSize("1".into()))
        );
        assert_eq!(
            MeshPlan::parse("obj", Some("5"), 9, 9).unwrap().sides(9, 9),
            (5, 5)
        );
        assert_eq!(
            MeshPlan::parse("GLB", None, 9, 7).unwrap().sides(9, 7),
            (9, 7)
        );
        let err = MeshPlan::parse("glb", None, 16385, 16385).unwrap_err();
        assert!(
            matches!(
                err,
                OptionError::MeshTooLarge {
                    columns: 16385,
                    rows: 16385,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("4 GiB"), "{err}");
    }
}
