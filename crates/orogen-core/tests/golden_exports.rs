//! Golden exports: every shipped preset exported at 513² exactly as
//! `orogen generate --recipe NAME --size 513` does, plus the optional
//! files, each file's hash checked against `tests/golden/exports-513.txt`.
//! Any change to an exported byte shows up here, named by preset and file.
//!
//! What counts as "the same export": non-PNG files byte for byte; PNGs by
//! their decoded pixels (size, colour type, samples), so a different but
//! lossless encoding passes; `heightmap.json` without its `generator`
//! line, which names the program's version and changes with every release.
//!
//! `OROGEN_WRITE_GOLDEN=1 cargo test -p orogen-core --test golden_exports`
//! rewrites the file instead (for an intended change only).

use orogen_core::bake::{ExportRequest, check_runnable, export_map, load_recipe};
use orogen_core::io::height_files::{ByteOrder, ExportOptions, HeightFormat, HeightFormats};
use orogen_core::io::mesh_export::MeshPlan;
use orogen_core::io::tiled_export::map_tile_grid;
use orogen_core::pipeline::{RunHooks, run_once};
use orogen_core::presets;
use orogen_core::recipe::{Recipe, default_memory_limit};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Cells along each preset's longer side (`--size 513`).
const SIDE: u32 = 513;

/// The checked-in hashes, relative to this crate.
const GOLDEN_FILE: &str = "tests/golden/exports-513.txt";

/// Set to `1` to rewrite [`GOLDEN_FILE`] from this tree's exports.
const WRITE_VAR: &str = "OROGEN_WRITE_GOLDEN";

/// One export per preset: a name for the golden file, the command-line
/// flags it stands for, and the request those flags make.
struct ExportCase {
    name: &'static str,
    flags: &'static str,
    request: fn(width: usize, height: usize) -> Result<ExportRequest, String>,
}

/// The GLB is made without a texture: it would embed `texture.png`'s
/// bytes, which may change while its pixels do not.
const CASES: &[ExportCase] = &[
    ExportCase {
        name: "default",
        flags: "(none)",
        request: |_, _| Ok(ExportRequest::default()),
    },
    ExportCase {
        name: "all-formats",
        flags: "--formats r16,png,exr,tif --texture 513 --mesh obj",
        request: |width, height| {
            Ok(ExportRequest {
                formats: HeightFormats::of(&HeightFormat::ALL),
                texture: Some((SIDE as usize, SIDE as usize)),
                mesh: Some(MeshPlan::parse("obj", None, width, height).map_err(|e| e.to_string())?),
                ..ExportRequest::default()
            })
        },
    },
    ExportCase {
        name: "glb-tiles",
        flags: "--mesh glb --tiles 2 --byte-order be --flip-y",
        request: |width, height| {
            let plan = MeshPlan::parse("glb", None, width, height).map_err(|e| e.to_string())?;
            Ok(ExportRequest {
                options: ExportOptions {
                    byte_order: ByteOrder::Be,
                    flip_y: true,
                    height_range: None,
                },
                tiles: Some(map_tile_grid(width, height, 2).map_err(|e| e.to_string())?),
                mesh: Some(plan),
                ..ExportRequest::default()
            })
        },
    },
];

/// The recipe as `orogen generate --recipe NAME --size 513` prepares it.
/// (Errors are taken by their text throughout, so the test reads the same
/// whatever error types the core returns.)
fn cli_recipe(preset: &str) -> Result<Recipe, String> {
    let (mut recipe, _) = load_recipe(preset).map_err(|e| format!("{preset}: {e}"))?;
    let (width, height) = recipe.sampling_for(SIDE);
    recipe.set_sampling(width, height);
    check_runnable(&mut recipe, default_memory_limit()).map_err(|e| format!("{preset}: {e}"))?;
    Ok(recipe)
}

/// `(preset, case/file, hash)` for every file every case writes, in
/// preset order, then case order, then file name.
fn export_hashes(out: &Path) -> Result<Vec<(String, String, u64)>, String> {
    let mut rows = Vec::new();
    for preset in presets::names() {
        let recipe = cli_recipe(preset)?;
        let map = run_once(&recipe, None, RunHooks::default())
            .map_err(|e| format!("{preset}: {e}"))?
            .map;
        for case in CASES {
            let request = (case.request)(map.width(), map.height())
                .map_err(|e| format!("{preset} {}: {e}", case.name))?;
            let dir = out.join(preset).join(case.name);
            let report = export_map(&map, &recipe, None, &request, &dir)
                .map_err(|e| format!("{preset} {}: {e}", case.name))?;
            let mut written: Vec<PathBuf> = report.written;
            written.sort();
            for path in written {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .ok_or_else(|| format!("{}: no file name", path.display()))?;
                let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let hash = file_hash(&name, &bytes).map_err(|e| format!("{preset} {name}: {e}"))?;
                rows.push((preset.to_string(), format!("{}/{name}", case.name), hash));
            }
        }
    }
    Ok(rows)
}

/// A file's hash as the golden file records it: see the module comment.
fn file_hash(name: &str, bytes: &[u8]) -> Result<u64, String> {
    let mut hash = Fnv64::new();
    if name.ends_with(".png") {
        let image = image::load_from_memory(bytes).map_err(|e| e.to_string())?;
        let color = image.color();
        hash.write(format!("{}x{} {color:?}", image.width(), image.height()).as_bytes());
        // Samples wider than a byte are in the machine's order in memory:
        // hashed little-endian so the hash is the same on any machine.
        let sample_bytes = usize::from(color.bytes_per_pixel() / color.channel_count());
        if sample_bytes == 2 {
            for sample in image.as_bytes().chunks_exact(2) {
                hash.write(&u16::from_ne_bytes([sample[0], sample[1]]).to_le_bytes());
            }
        } else {
            hash.write(image.as_bytes());
        }
    } else if name.ends_with(".json") {
        let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
        let mut generator_lines = 0;
        for line in text.split_inclusive('\n') {
            if line.trim_start().starts_with("\"generator\":") {
                generator_lines += 1;
            } else {
                hash.write(line.as_bytes());
            }
        }
        if generator_lines != 1 {
            return Err(format!(
                "expected one \"generator\" line, found {generator_lines}"
            ));
        }
    } else {
        hash.write(bytes);
    }
    Ok(hash.finish())
}

/// FNV-1a, 64 bits: a few lines, stable forever, and no dependency
/// (none of the hash crates in Cargo.lock is one of this crate's). It
/// tells a few hundred files apart; it need not resist forgery.
struct Fnv64(u64);

impl Fnv64 {
    fn new() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[test]
fn fnv1a_64_matches_the_published_test_vectors() {
    let hash = |text: &str| {
        let mut h = Fnv64::new();
        h.write(text.as_bytes());
        h.finish()
    };
    assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
}

#[test]
fn a_png_is_hashed_by_its_pixels_and_the_sidecar_without_its_version() {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let pixels = image::GrayImage::from_fn(64, 48, |x, y| image::Luma([(x * 7 + y * y) as u8]));
    let encode = |pixels: &image::GrayImage, filter| {
        let mut png = Vec::new();
        let encoder = PngEncoder::new_with_quality(&mut png, CompressionType::Default, filter);
        pixels
            .write_with_encoder(encoder)
            .expect("a 64x48 image encodes");
        png
    };
    let unfiltered = encode(&pixels, FilterType::NoFilter);
    let paeth = encode(&pixels, FilterType::Paeth);
    assert_ne!(unfiltered, paeth, "two encodings of the same pixels");
    assert_eq!(file_hash("a.png", &unfiltered), file_hash("a.png", &paeth));
    let mut changed = pixels.clone();
    changed.put_pixel(5, 5, image::Luma([0]));
    assert_ne!(
        file_hash("a.png", &unfiltered),
        file_hash("a.png", &encode(&changed, FilterType::NoFilter))
    );
    let v1 = "{\n  \"generator\": \"orogen 0.1.0\",\n  \"width\": 3\n}";
    let v2 = "{\n  \"generator\": \"orogen 0.2.0\",\n  \"width\": 3\n}";
    let wider = "{\n  \"generator\": \"orogen 0.1.0\",\n  \"width\": 4\n}";
    assert_eq!(
        file_hash("heightmap.json", v1.as_bytes()),
        file_hash("heightmap.json", v2.as_bytes())
    );
    assert_ne!(
        file_hash("heightmap.json", v1.as_bytes()),
        file_hash("heightmap.json", wider.as_bytes())
    );
    assert!(file_hash("heightmap.json", b"{\n  \"width\": 3\n}").is_err());
}

/// The golden file's text: a header, then one `preset case/file hash` line
/// per file.
fn golden_text(rows: &[(String, String, u64)]) -> String {
    let mut text = String::new();
    let baseline = baseline_commit();
    let _ = writeln!(
        text,
        "# Hashes of every file `orogen generate --recipe PRESET --size {SIDE}` writes, by default\n\
         # and with the optional files (cases in crates/orogen-core/tests/golden_exports.rs).\n\
         # Baseline: commit {baseline}.\n\
         # Hash: FNV-1a 64 of the bytes; PNGs of their decoded pixels; heightmap.json\n\
         # without its \"generator\" line.\n\
         # Regenerate only for an intended change, naming it and its largest difference:\n\
         #   OROGEN_WRITE_GOLDEN=1 cargo test -p orogen-core --test golden_exports\n\
         # preset case/file hash"
    );
    for case in CASES {
        let _ = writeln!(text, "# case {}: {}", case.name, case.flags);
    }
    for (preset, file, hash) in rows {
        let _ = writeln!(text, "{preset} {file} {hash:016x}");
    }
    text
}

/// This tree's commit, marked when tracked files differ from it.
fn baseline_commit() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
    };
    let commit = git(&["rev-parse", "--short", "HEAD"])
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let clean = git(&["diff", "--quiet", "HEAD"]).is_some_and(|out| out.status.success());
    if clean {
        commit
    } else {
        format!("{commit} with uncommitted changes")
    }
}

/// `(preset, case/file)` to hash, from the golden file's text.
fn parse_golden(text: &str) -> Result<BTreeMap<(String, String), u64>, String> {
    let mut hashes = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [preset, file, hash] = fields[..] else {
            return Err(format!("line {}: expected `preset file hash`", number + 1));
        };
        let hash = u64::from_str_radix(hash, 16)
            .map_err(|e| format!("line {}: hash '{hash}': {e}", number + 1))?;
        hashes.insert((preset.to_string(), file.to_string()), hash);
    }
    Ok(hashes)
}

#[test]
fn every_presets_exports_match_the_golden_hashes() {
    let out = tempfile::tempdir().expect("a temp folder");
    let rows = export_hashes(out.path()).unwrap_or_else(|e| panic!("export failed: {e}"));
    let golden_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN_FILE);
    if std::env::var(WRITE_VAR).is_ok_and(|v| v == "1") {
        if let Some(dir) = golden_path.parent() {
            std::fs::create_dir_all(dir).expect("the golden folder can be made");
        }
        std::fs::write(&golden_path, golden_text(&rows)).expect("the golden file can be written");
        eprintln!("wrote {} hashes to {}", rows.len(), golden_path.display());
        return;
    }
    let text = std::fs::read_to_string(&golden_path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (write it with {WRITE_VAR}=1)",
            golden_path.display()
        )
    });
    let expected = parse_golden(&text).unwrap_or_else(|e| panic!("{GOLDEN_FILE}: {e}"));
    assert!(!expected.is_empty(), "{GOLDEN_FILE} holds no hashes");
    let mut mismatches = Vec::new();
    let mut seen = BTreeSet::new();
    for (preset, file, hash) in &rows {
        let key = (preset.clone(), file.clone());
        match expected.get(&key) {
            Some(want) if want == hash => {}
            Some(want) => {
                mismatches.push(format!("{preset} {file}: {hash:016x}, golden {want:016x}"))
            }
            None => mismatches.push(format!(
                "{preset} {file}: written ({hash:016x}) but not in the golden file"
            )),
        }
        seen.insert(key);
    }
    for (preset, file) in expected.keys().filter(|key| !seen.contains(*key)) {
        mismatches.push(format!(
            "{preset} {file}: in the golden file but no longer written"
        ));
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} exported files differ from {GOLDEN_FILE}:\n{}",
        mismatches.len(),
        rows.len(),
        mismatches.join("\n")
    );
}
