use orogen_core::Heightmap;
use orogen_core::flow::{add_sidecar, heightmap_bundle};
use orogen_core::io::engine_sizes::named_size;
use orogen_core::io::height_files::*;
use orogen_core::params::Span;
use orogen_core::recipe::Recipe;
use orogen_core::rng::stage_rng;
use orogen_core::stages::{Import, StageContext, StageOp};

/// 5 wide, 3 tall; the north-west corner is the highest cell, the
/// south-east the lowest.
fn marked_map() -> Heightmap {
    let mut m = Heightmap::filled(5, 3, 10.0);
    m.set(0, 0, 100.0);
    m.set(4, 2, -20.0);
    m.set(2, 1, 37.0);
    m
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

#[test]
fn r16_and_png16_hold_identical_values_and_corners_land_right() {
    let map = marked_map();
    let range = export_range(&map, &ExportOptions::default());
    let q = quantize(&map, range);
    assert_eq!(q[0], 65535, "north-west is the highest");
    assert_eq!(q[14], 0, "south-east is the lowest");
    let r16 = u16s(&encode_r16(&q, 5, ByteOrder::Le, false), ByteOrder::Le);
    let png = decode_png(&encode_png16(&q, 5, false).unwrap()).unwrap();
    assert_eq!((png.width, png.height), (5, 3));
    assert_eq!(r16, q);
    assert_eq!(png.values, q);
    let preview = image::load_from_memory(&encode_preview(&q, 5).unwrap())
        .unwrap()
        .to_luma8();
    assert_eq!(preview.get_pixel(0, 0)[0], 255);
    assert_eq!(preview.get_pixel(4, 2)[0], 0);
}

#[test]
fn flip_y_reverses_rows_and_big_endian_is_the_byte_swap() {
    let map = marked_map();
    let q = quantize(&map, export_range(&map, &ExportOptions::default()));
    let le = encode_r16(&q, 5, ByteOrder::Le, false);
    let be = encode_r16(&q, 5, ByteOrder::Be, false);
    for (a, b) in le.chunks_exact(2).zip(be.chunks_exact(2)) {
        assert_eq!([a[1], a[0]], [b[0], b[1]]);
    }
    let flipped = u16s(&encode_r16(&q, 5, ByteOrder::Le, true), ByteOrder::Le);
    for y in 0..3 {
        assert_eq!(&flipped[y * 5..y * 5 + 5], &q[(2 - y) * 5..(2 - y) * 5 + 5]);
    }
    assert_eq!(
        flipped[10], 65535,
        "the north-west corner is now in the last row"
    );
    let png = decode_png(&encode_png16(&q, 5, true).unwrap()).unwrap();
    assert_eq!(png.values, flipped);
}

#[test]
fn fixed_range_clamps_and_quantizes_linearly() {
    let map = Heightmap::from_vec(3, 1, vec![-5.0, 50.0, 500.0]).unwrap();
    let q = quantize(&map, Span::new(0.0, 100.0));
    assert_eq!(q, vec![0, 32768, 65535]);
    let flat = Heightmap::filled(2, 2, 3.0);
    assert_eq!(quantize(&flat, Span::new(3.0, 3.0)), vec![0; 4]);
}

#[test]
fn import_of_an_export_round_trips_at_16_bits() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = stage_rng(11, 0);
    let data = (0..64 * 48)
        .map(|_| orogen_core::rng::range_f32(&mut rng, -40.0, 260.0))
        .collect();
    let map = Heightmap::from_vec(64, 48, data).unwrap();
    let recipe = Recipe {
        width: 64,
        height: 48,
        ..Recipe::default()
    };
    for flip_y in [false, true] {
        for order in [ByteOrder::Le, ByteOrder::Be] {
            let opts = ExportOptions {
                byte_order: order,
                flip_y,
                height_range: None,
            };
            let (mut bundle, range) = heightmap_bundle(&map, &recipe, &opts).unwrap();
            add_sidecar(&mut bundle, &map, &recipe, &opts, range, None, None).unwrap();
            bundle.write_to(dir.path()).unwrap();
            let original = quantize(&map, range);
            for (file, format) in [
                ("heightmap.png", ImportFormat::Png),
                (
                    "heightmap.r16",
                    match order {
                        ByteOrder::Le => ImportFormat::Raw16Le,
                        ByteOrder::Be => ImportFormat::Raw16Be,
                    },
                ),
            ] {
                let stage = Import {
                    path: file.into(),
                    format,
                    raw_width: Some(64),
                    raw_height: Some(48),
                    ..Import::default()
                };
                let ctx = StageContext {
                    base_dir: Some(dir.path().to_path_buf()),
                    ..StageContext::new(stage_rng(0, 0))
                };
                let (imported, _) = stage.load(&ctx).unwrap();
                assert_eq!(
                    quantize(&imported, range),
                    original,
                    "{file} flip={flip_y} {order:?}"
                );
                let mut resized = Heightmap::new(64, 48);
                let mut ctx = ctx;
                stage.apply(&mut resized, &mut ctx).unwrap();
                assert_eq!(quantize(&resized, range), original);
            }
        }
    }
}

#[test]
fn eight_bit_png_imports_with_a_warning() {
    let gray = image::GrayImage::from_fn(4, 4, |x, y| image::Luma([(x * 60 + y) as u8]));
    let bytes = encode_png(gray.as_raw(), 4, 4, image::ExtendedColorType::L8).unwrap();
    let m = decode_png(&bytes).unwrap();
    assert_eq!(m.values[1], 60 * 257);
    assert_eq!(m.warnings.len(), 1);
    assert!(m.warnings[0].contains("8-bit"));
}

#[test]
fn bad_imports_are_refused_with_a_reason() {
    let err = |r: Result<_, orogen_core::io::height_files::ImportError>| r.unwrap_err().to_string();
    assert!(err(decode_raw16(&[1, 2, 3], ByteOrder::Le, None)).contains("odd byte count"));
    assert!(err(decode_raw16(&[0; 6], ByteOrder::Le, None)).contains("not square"));
    assert!(err(decode_raw16(&[0; 8], ByteOrder::Le, Some((3, 3)))).contains("needs 18 bytes"));
    assert!(err(decode_raw16(&[], ByteOrder::Le, None)).contains("empty"));
    let png = encode_png16(&[1, 2, 3, 4], 2, false).unwrap();
    assert!(err(decode_png(&png[..png.len() / 2])).contains("not a readable PNG"));
    let rgb = encode_png(&[0; 12], 2, 2, image::ExtendedColorType::Rgb8).unwrap();
    assert!(err(decode_png(&rgb)).contains("grayscale"));
    let missing = read_heightmap_file(
        std::path::Path::new("/nonexistent/x.png"),
        ImportFormat::Auto,
        None,
    );
    assert!(err(missing).contains("cannot read"));
}

#[test]
fn engine_sizes_resolve_by_name() {
    assert_eq!(named_size("unity-1025"), Some(1025));
    assert_eq!(named_size("unreal-2017"), Some(2017));
    assert_eq!(named_size("unreal-2000"), None);
    assert_eq!(named_size("300"), Some(300));
}
