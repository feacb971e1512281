//! orogen's height files read back by other people's readers: Pillow (the
//! float TIFF as mode "F", the 16-bit PNG), the OpenEXR Python bindings
//! (the EXR's float channel) and GDAL (the TIFF, the PNG and the RAW16
//! through an ENVI header), each compared value for value with what orogen
//! wrote. A test whose reader is not installed is ignored as skipped
//! (`support/outside_tools.rs`), except in CI; `scripts/test.sh` run as
//! root installs them (gdal-bin, and pillow, OpenEXR and numpy from PyPI).

#[path = "support/outside_tools.rs"]
mod outside_tools;

use orogen_core::Heightmap;
use orogen_core::bake::heightmap_bundle;
use orogen_core::io::height_files::{ExportOptions, HeightFormats, quantize};
use orogen_core::recipe::Recipe;
use orogen_core::rng::{range_f32, stage_rng};
use std::path::{Path, PathBuf};
use std::process::Command;

const WIDTH: usize = 53;
const HEIGHT: usize = 29;

/// Writes a random non-square map with negative heights in every format
/// (north row first); returns the folder, the heights and the 16-bit
/// samples.
fn write_all_formats() -> (tempfile::TempDir, Vec<f32>, Vec<u16>) {
    let mut rng = stage_rng(4242, 1);
    let data: Vec<f32> = (0..WIDTH * HEIGHT)
        .map(|_| range_f32(&mut rng, -431.7, 2962.25))
        .collect();
    let map = Heightmap::from_vec(WIDTH, HEIGHT, data.clone()).unwrap();
    let recipe = Recipe {
        width: WIDTH as u32,
        height: HEIGHT as u32,
        ..Recipe::default()
    };
    let opts = ExportOptions::default();
    let formats = HeightFormats::parse("r16,png,exr,tif").unwrap();
    let (mut bundle, range) = heightmap_bundle(&map, &recipe, &opts, formats).unwrap();
    let dir = tempfile::tempdir().unwrap();
    bundle.write_to(dir.path()).unwrap();
    (dir, data, quantize(&map, range))
}

fn run(program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} did not start: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn f32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

fn u16s(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect()
}

fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// Reads `file` with Python (`reader` = pil-tif, pil-png16 or openexr) and
/// returns the little-endian samples it saw, row-major. The script also
/// checks the shape and, for the EXR, that the one channel is named R.
fn python_read(reader: &str, file: &Path, out: &Path) -> Vec<u8> {
    const SCRIPT: &str = r#"
import sys
import numpy as np
reader, src, dst, width, height = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
if reader == "pil-tif":
    from PIL import Image
    im = Image.open(src)
    assert im.mode == "F", im.mode
    a = np.asarray(im).astype("<f4")
elif reader == "pil-png16":
    from PIL import Image
    im = Image.open(src)
    assert im.mode.startswith("I;16") or im.mode == "I", im.mode
    a = np.asarray(im).astype("<u2")
elif reader == "openexr":
    import OpenEXR
    if hasattr(OpenEXR, "File"):
        channels = OpenEXR.File(src).channels()
        assert list(channels) == ["R"], list(channels)
        a = np.asarray(channels["R"].pixels)
        assert a.dtype == np.float32, a.dtype
        a = a.astype("<f4")
    else:
        import Imath
        f = OpenEXR.InputFile(src)
        names = list(f.header()["channels"])
        assert names == ["R"], names
        raw = f.channel("R", Imath.PixelType(Imath.PixelType.FLOAT))
        a = np.frombuffer(raw, dtype="<f4").reshape(height, width)
else:
    raise SystemExit("unknown reader " + reader)
assert a.shape == (height, width), a.shape
a.tofile(dst)
"#;
    let dst = out.with_extension(format!("{reader}.bin"));
    run(
        "python3",
        &[
            "-c",
            SCRIPT,
            reader,
            file.to_str().unwrap(),
            dst.to_str().unwrap(),
            &WIDTH.to_string(),
            &HEIGHT.to_string(),
        ],
    );
    std::fs::read(&dst).unwrap()
}

fn python_readers_see_exactly_what_orogen_wrote() {
    let (dir, heights, samples) = write_all_formats();
    let d = dir.path();
    let tif = python_read("pil-tif", &d.join("heightmap.tif"), &d.join("out"));
    assert_eq!(f32s(&tif), bits(&heights), "Pillow's view of heightmap.tif");
    let png = python_read("pil-png16", &d.join("heightmap.png"), &d.join("out"));
    assert_eq!(u16s(&png), samples, "Pillow's view of heightmap.png");
    let exr = python_read("openexr", &d.join("heightmap.exr"), &d.join("out"));
    assert_eq!(
        f32s(&exr),
        bits(&heights),
        "OpenEXR's view of heightmap.exr"
    );
}

/// `gdal_translate -of ENVI` writes the raster as raw native-order
/// samples (little-endian here), which are compared directly.
fn gdal_raw(src: &Path, dst: &Path) -> Vec<u8> {
    run(
        "gdal_translate",
        &[
            "-q",
            "-of",
            "ENVI",
            src.to_str().unwrap(),
            dst.to_str().unwrap(),
        ],
    );
    std::fs::read(dst).unwrap()
}

fn gdal_has_driver(name: &str) -> bool {
    Command::new("gdalinfo")
        .arg("--formats")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{name} ")))
        })
        .unwrap_or(false)
}

fn gdal_sees_exactly_what_orogen_wrote() {
    let (dir, heights, samples) = write_all_formats();
    let d = dir.path();
    let info = Command::new("gdalinfo")
        .arg(d.join("heightmap.tif"))
        .output()
        .unwrap();
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(
        info.contains(&format!("Size is {WIDTH}, {HEIGHT}")),
        "{info}"
    );
    assert!(info.contains("Type=Float32"), "{info}");
    let tif = gdal_raw(&d.join("heightmap.tif"), &d.join("tif.bin"));
    assert_eq!(f32s(&tif), bits(&heights), "GDAL's view of heightmap.tif");
    let png = gdal_raw(&d.join("heightmap.png"), &d.join("png.bin"));
    assert_eq!(u16s(&png), samples, "GDAL's view of heightmap.png");
    // RAW16 has no header: an ENVI header beside it says what it is
    // (data type 12 = unsigned 16-bit, byte order 0 = little-endian).
    let hdr: PathBuf = d.join("heightmap.hdr");
    std::fs::write(
        &hdr,
        format!(
            "ENVI\nsamples = {WIDTH}\nlines = {HEIGHT}\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 12\ninterleave = bsq\nbyte order = 0\n"
        ),
    )
    .unwrap();
    let r16 = gdal_raw(&d.join("heightmap.r16"), &d.join("r16.bin"));
    assert_eq!(u16s(&r16), samples, "GDAL's view of heightmap.r16");
    // Debian's GDAL is built without its EXR driver; where it has one,
    // the EXR is checked too.
    if gdal_has_driver("EXR") {
        let exr = gdal_raw(&d.join("heightmap.exr"), &d.join("exr.bin"));
        assert_eq!(f32s(&exr), bits(&heights), "GDAL's view of heightmap.exr");
    } else {
        eprintln!("note: this GDAL has no EXR driver; heightmap.exr checked by OpenEXR only");
    }
}

fn main() -> std::process::ExitCode {
    use outside_tools::{Needs, Tool};
    let python = Needs::probe(&[
        Tool::Program("python3", "Debian package python3"),
        Tool::PythonModule("numpy", "numpy"),
        Tool::PythonModule("PIL", "pillow"),
        Tool::PythonModule("OpenEXR", "OpenEXR"),
    ]);
    let gdal = Needs::probe(&[
        Tool::Program("gdal_translate", "Debian package gdal-bin"),
        Tool::Program("gdalinfo", "Debian package gdal-bin"),
    ]);
    outside_tools::run(vec![
        python.test(
            "python_readers_see_exactly_what_orogen_wrote",
            python_readers_see_exactly_what_orogen_wrote,
        ),
        gdal.test(
            "gdal_sees_exactly_what_orogen_wrote",
            gdal_sees_exactly_what_orogen_wrote,
        ),
    ])
}
