use orogen_core::Heightmap;
use orogen_core::bake::{
    ExportRequest, add_sidecar, clipping_warning, export_map, heightmap_bundle,
};
use orogen_core::io::engine_sizes::named_size;
use orogen_core::io::float_files::{decode_exr, decode_tiff, encode_exr, encode_tiff_f32};
use orogen_core::io::height_files::*;
use orogen_core::io::import::read_heightmap_file;
use orogen_core::io::sidecar::{HeightFileInfo, Sidecar, find_sidecar};
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

/// A map wider than the preview's limit is averaged over square blocks:
/// 4099 columns need blocks of 3 (1367 pixels), the last block clipped.
#[test]
fn a_large_maps_preview_averages_blocks_of_cells() {
    use orogen_core::io::height_files::PREVIEW_MAX_SIDE;
    let (w, h) = (2 * PREVIEW_MAX_SIDE + 3, 4);
    let q: Vec<u16> = (0..w * h)
        .map(|i| (((i % w) * 7 + (i / w) * 1000) * 3 % 65536) as u16)
        .collect();
    let preview = image::load_from_memory(&encode_preview(&q, w).unwrap())
        .unwrap()
        .to_luma8();
    assert_eq!(preview.dimensions(), (w.div_ceil(3) as u32, 2));
    let naive = |px: usize, py: usize| {
        let (mut sum, mut n) = (0u64, 0u64);
        for y in py * 3..(py * 3 + 3).min(h) {
            for x in px * 3..(px * 3 + 3).min(w) {
                sum += q[y * w + x] as u64;
                n += 1;
            }
        }
        ((sum / n) >> 8) as u8
    };
    for (px, py) in [
        (0, 0),
        (500, 1),
        (w.div_ceil(3) - 1, 0),
        (w.div_ceil(3) - 1, 1),
    ] {
        assert_eq!(
            preview.get_pixel(px as u32, py as u32)[0],
            naive(px, py),
            "pixel ({px}, {py})"
        );
    }
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
            let (mut bundle, range) =
                heightmap_bundle(&map, &recipe, &opts, HeightFormats::default()).unwrap();
            add_sidecar(&mut bundle, &map, &recipe, &opts, range, Default::default()).unwrap();
            bundle.write_to(dir.path()).unwrap();
            let original = quantize(&map, range);
            // The last case names nothing: the sidecar gives the RAW
            // file's byte order and its (not square) size.
            let raw_size = (Some(64), Some(48));
            for (file, format, (raw_width, raw_height)) in [
                ("heightmap.png", ImportFormat::Png, raw_size),
                (
                    "heightmap.r16",
                    match order {
                        ByteOrder::Le => ImportFormat::Raw16Le,
                        ByteOrder::Be => ImportFormat::Raw16Be,
                    },
                    raw_size,
                ),
                ("heightmap.r16", ImportFormat::Auto, (None, None)),
            ] {
                let stage = Import {
                    path: file.into(),
                    format,
                    raw_width,
                    raw_height,
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

/// A non-square map of awkward floats: negative heights, a negative zero,
/// a subnormal, huge and tiny magnitudes, and values no 16-bit file holds.
fn awkward_map(width: usize, height: usize) -> Heightmap {
    let mut rng = stage_rng(29, 3);
    let mut data: Vec<f32> = (0..width * height)
        .map(|_| orogen_core::rng::range_f32(&mut rng, -1234.5, 8848.86))
        .collect();
    data[0] = -0.0;
    data[1] = f32::MIN_POSITIVE / 8.0;
    data[2] = -3.0e38;
    data[3] = 1.0e-30;
    data[width * height - 1] = f32::MAX;
    Heightmap::from_vec(width, height, data).unwrap()
}

fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// The map's rows as a file holds them: north first, or south first.
fn file_rows(map: &Heightmap, flip_y: bool) -> Vec<f32> {
    let rows: Vec<&[f32]> = map.data().chunks_exact(map.width()).collect();
    let rows: Vec<&[f32]> = if flip_y {
        rows.into_iter().rev().collect()
    } else {
        rows
    };
    rows.concat()
}

#[test]
fn float_files_round_trip_bit_for_bit_through_orogens_reader() {
    let map = awkward_map(37, 23);
    for flip_y in [false, true] {
        let expected = bits(&file_rows(&map, flip_y));
        let exr = encode_exr(map.data(), 37, flip_y).unwrap();
        let tif = encode_tiff_f32(map.data(), 37, flip_y).unwrap();
        for (name, decoded) in [("exr", decode_exr(&exr)), ("tif", decode_tiff(&tif))] {
            let decoded = decoded.unwrap();
            assert_eq!((decoded.width, decoded.height), (37, 23), "{name}");
            assert!(
                decoded.warnings.is_empty(),
                "{name}: {:?}",
                decoded.warnings
            );
            let heights = decoded.heights.as_deref().expect("float heights");
            assert_eq!(bits(heights), expected, "{name} flip={flip_y}");
        }
    }
}

#[test]
fn float_exports_import_as_exactly_the_stored_heights() {
    let dir = tempfile::tempdir().unwrap();
    let map = awkward_map(41, 17);
    let recipe = Recipe {
        width: 41,
        height: 17,
        ..Recipe::default()
    };
    let formats = HeightFormats::parse("exr,tif").unwrap();
    for flip_y in [false, true] {
        let opts = ExportOptions {
            flip_y,
            ..ExportOptions::default()
        };
        let (mut bundle, range) = heightmap_bundle(&map, &recipe, &opts, formats).unwrap();
        add_sidecar(&mut bundle, &map, &recipe, &opts, range, Default::default()).unwrap();
        assert_eq!(
            bundle.names(),
            [
                "heightmap.exr",
                "heightmap.tif",
                "heightmap.preview.png",
                "recipe.ron",
                "heightmap.json"
            ]
        );
        bundle.write_to(dir.path()).unwrap();
        for (file, format) in [
            ("heightmap.exr", ImportFormat::Auto),
            ("heightmap.tif", ImportFormat::Auto),
            ("heightmap.exr", ImportFormat::Exr),
            ("heightmap.tif", ImportFormat::Tiff),
        ] {
            let path = dir.path().join(file);
            let read = read_heightmap_file(&path, format, None).unwrap();
            assert_eq!(
                bits(read.heights.as_deref().unwrap()),
                bits(&file_rows(&map, flip_y)),
                "{file} {format:?} flip={flip_y}"
            );
            // Through the stage, with a range that would ruin 16-bit data:
            // float heights ignore it, and the sidecar's flip is undone.
            for use_sidecar in [true, false] {
                let stage = Import {
                    path: file.into(),
                    format,
                    heights: Span::new(-1.0, 1.0),
                    use_sidecar,
                    ..Import::default()
                };
                let mut ctx = StageContext {
                    base_dir: Some(dir.path().to_path_buf()),
                    ..StageContext::new(stage_rng(0, 0))
                };
                let (imported, warnings) = stage.load(&ctx).unwrap();
                assert!(warnings.is_empty());
                let want = if use_sidecar {
                    map.data().to_vec()
                } else {
                    file_rows(&map, flip_y)
                };
                assert_eq!(bits(imported.data()), bits(&want), "{file} flip={flip_y}");
                let mut out = Heightmap::new(41, 17);
                stage.apply(&mut out, &mut ctx).unwrap();
                assert_eq!(bits(out.data()), bits(&want));
            }
        }
    }
}

#[test]
fn start_from_a_float_file_takes_its_size_and_heights() {
    let dir = tempfile::tempdir().unwrap();
    let map = awkward_map(9, 5);
    for name in ["start.exr", "start.tif"] {
        let path = dir.path().join(name);
        let bytes = if name.ends_with("exr") {
            encode_exr(map.data(), 9, false).unwrap()
        } else {
            encode_tiff_f32(map.data(), 9, false).unwrap()
        };
        std::fs::write(&path, bytes).unwrap();
        let mut recipe = Recipe {
            stages: Vec::new(),
            ..Recipe::default()
        };
        let warnings =
            orogen_core::bake::start_from_file(&mut recipe, &path, Default::default()).unwrap();
        assert!(warnings.is_empty());
        assert_eq!((recipe.width, recipe.height), (9, 5));
        let output = orogen_core::Pipeline::new()
            .run(&recipe, Default::default())
            .unwrap();
        assert_eq!(bits(output.map.data()), bits(map.data()), "{name}");
    }
}

#[test]
fn formats_parse_and_name_the_valid_values() {
    assert_eq!(
        HeightFormats::default(),
        HeightFormats::of(&[HeightFormat::R16, HeightFormat::Png])
    );
    assert_eq!(HeightFormats::default().to_string(), "r16,png");
    let all = HeightFormats::parse(" TIF, exr,png ,r16,tiff").unwrap();
    assert_eq!(all.to_string(), "r16,png,exr,tif");
    assert_eq!(HeightFormats::parse("exr").unwrap().to_string(), "exr");
    for bad in ["", "r16,", "jpg", "r16,PNG16", " , "] {
        let err = HeightFormats::parse(bad).unwrap_err().to_string();
        assert!(err.contains("r16, png, exr, tif"), "{bad:?}: {err}");
        assert!(!err.contains('\n'), "{err}");
    }
    assert_eq!(
        HeightFormats::parse("r16,").unwrap_err().to_string(),
        "formats 'r16,': expected a comma-separated list of r16, png, exr, tif"
    );
    assert_eq!(
        HeightFormats::parse("r16,PNG16"),
        Err(orogen_core::OptionError::UnknownFormat {
            text: "r16,PNG16".into(),
            item: "PNG16".into()
        })
    );
    assert_eq!(
        HeightFormats::parse("r16,PNG16").unwrap_err().to_string(),
        "formats 'r16,PNG16': unknown format 'PNG16' (valid: r16, png, exr, tif)"
    );
}

#[test]
fn the_sidecar_lists_each_height_file_with_its_units() {
    let dir = tempfile::tempdir().unwrap();
    let map = awkward_map(6, 4);
    let recipe = Recipe {
        width: 6,
        height: 4,
        ..Recipe::default()
    };
    let request = ExportRequest {
        formats: HeightFormats::parse("tif,r16").unwrap(),
        ..ExportRequest::default()
    };
    let out = dir.path().join("x");
    export_map(&map, &recipe, None, &request, &out).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "heightmap.json",
            "heightmap.preview.png",
            "heightmap.r16",
            "heightmap.tif",
            "recipe.ron"
        ]
    );
    let text = std::fs::read_to_string(out.join("heightmap.json")).unwrap();
    let sidecar: Sidecar<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let info = |file: &str, format: &str, units: &str| HeightFileInfo {
        file: file.into(),
        format: format.into(),
        units: units.into(),
    };
    assert_eq!(
        sidecar.height_files,
        [
            info(
                "heightmap.r16",
                "r16",
                "16-bit samples: 0 = min_height, 65535 = max_height"
            ),
            info("heightmap.tif", "tif", "world units (f32)"),
        ]
    );
    // A sidecar from before the field existed still reads.
    let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
    old.as_object_mut().unwrap().remove("height_files");
    std::fs::write(out.join("heightmap.json"), old.to_string()).unwrap();
    let found = find_sidecar(&out.join("heightmap.r16")).expect("the old sidecar is found");
    assert!(found.height_files.is_empty());
}

#[test]
fn bad_float_files_are_refused_with_one_line() {
    let err = |r: Result<ImportedMap, ImportError>| r.unwrap_err().to_string();
    let exr = encode_exr(&[1.0, 2.0, 3.0, 4.0], 2, false).unwrap();
    let tif = encode_tiff_f32(&[1.0, 2.0, 3.0, 4.0], 2, false).unwrap();
    for cut in [0, 3, 4, 20, exr.len() / 2, exr.len() - 1] {
        let e = err(decode_exr(&exr[..cut]));
        assert!(e.contains("OpenEXR"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
    for cut in [0, 3, 8, tif.len() / 2, tif.len() - 1] {
        let e = err(decode_tiff(&tif[..cut]));
        assert!(e.contains("TIFF"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
    assert!(err(decode_exr(b"not an exr at all")).contains("not a readable OpenEXR"));
    assert!(err(decode_tiff(b"II*\0garbage")).contains("not a readable TIFF"));
    // An unknown extension and no signature: the reader says what it takes.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.dat");
    std::fs::write(&path, [0u8; 8]).unwrap();
    let e = err(read_heightmap_file(&path, ImportFormat::Auto, None));
    assert!(e.contains(".exr, .tif"), "{e}");
    // The signature wins over a wrong extension.
    let path = dir.path().join("really-an-exr.png");
    std::fs::write(&path, &exr).unwrap();
    let read = read_heightmap_file(&path, ImportFormat::Auto, None).unwrap();
    assert_eq!(read.heights, Some(vec![1.0, 2.0, 3.0, 4.0]));
}

#[test]
fn a_fixed_range_narrower_than_the_map_says_how_much_it_clips() {
    let mut rng = stage_rng(5, 0);
    let data: Vec<f32> = (0..40 * 30)
        .map(|_| orogen_core::rng::range_f32(&mut rng, 0.0, 150.0))
        .collect();
    let naive = data
        .iter()
        .filter(|&&v| !(50.0..=100.0).contains(&v))
        .count();
    let map = Heightmap::from_vec(40, 30, data).unwrap();
    let warning = clipping_warning(&map, map.range(), Span::new(50.0, 100.0)).expect("clips");
    let share = format!("{:.1}%", naive as f64 / 1200.0 * 100.0);
    assert!(warning.contains(&share), "{warning} should say {share}");
    assert_eq!(
        clipping_warning(&map, map.range(), Span::new(-1.0, 151.0)),
        None
    );
}

/// `--import` of a non-square big-endian export: the first read (which
/// sizes the recipe) takes the sidecar's byte order and size too.
#[test]
fn starting_from_a_non_square_big_endian_export_reads_its_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let map = awkward_map(64, 48);
    let recipe = Recipe {
        width: 64,
        height: 48,
        ..Recipe::default()
    };
    let opts = ExportOptions {
        byte_order: ByteOrder::Be,
        flip_y: true,
        height_range: None,
    };
    let (mut bundle, range) =
        heightmap_bundle(&map, &recipe, &opts, HeightFormats::default()).unwrap();
    add_sidecar(&mut bundle, &map, &recipe, &opts, range, Default::default()).unwrap();
    bundle.write_to(dir.path()).unwrap();
    let mut started = Recipe::default();
    orogen_core::bake::start_from_file(
        &mut started,
        &dir.path().join("heightmap.r16"),
        Default::default(),
    )
    .unwrap();
    assert_eq!((started.width, started.height), (64, 48));
}
