//! Property-based fuzzing of everything that parses user files: the
//! recipe loader, the PNG, RAW16, OpenEXR and TIFF importers and the
//! tile-image loader.
//! None may panic; each either accepts the input or returns an error.
//! (`cargo fuzz` targets for longer runs are described in docs/testing.md.)

use orogen_core::Recipe;
use orogen_core::io::float_files::{decode_exr, decode_tiff, encode_exr, encode_tiff_f32};
use orogen_core::io::height_files::{
    ByteOrder, decode_png, decode_raw16, encode_png, encode_png16,
};
use orogen_core::presets;
use orogen_core::splat::decode_tile_image;
use proptest::prelude::*;

fn valid_png16() -> Vec<u8> {
    let values: Vec<u16> = (0..64u16).map(|v| v * 1000).collect();
    encode_png16(&values, 8, false).unwrap()
}

fn float_heights() -> Vec<f32> {
    (0..48).map(|i| i as f32 * 3.5 - 60.0).collect()
}

fn valid_exr() -> Vec<u8> {
    encode_exr(&float_heights(), 8, false).unwrap()
}

fn valid_float_tiff() -> Vec<u8> {
    encode_tiff_f32(&float_heights(), 8, false).unwrap()
}

/// What every accepted float file must satisfy: one sample per cell, and
/// float heights all finite.
fn check_decoded(m: &orogen_core::io::height_files::ImportedMap) -> Result<(), TestCaseError> {
    prop_assert_eq!(m.sample_count(), m.width * m.height);
    if let Some(heights) = &m.heights {
        prop_assert!(m.values.is_empty());
        prop_assert!(heights.iter().all(|h| h.is_finite()));
    }
    Ok(())
}

fn valid_rgb_png() -> Vec<u8> {
    encode_png(&[90u8; 4 * 4 * 3], 4, 4, image::ExtendedColorType::Rgb8).unwrap()
}

/// Applies byte edits (position, value) and an optional truncation.
fn mutate(mut bytes: Vec<u8>, edits: &[(usize, u8)], cut: Option<usize>) -> Vec<u8> {
    if !bytes.is_empty() {
        for &(pos, val) in edits {
            let i = pos % bytes.len();
            bytes[i] = val;
        }
    }
    if let Some(c) = cut {
        bytes.truncate(c % (bytes.len() + 1));
    }
    bytes
}

/// Cases per target: 512 by default, more with `OROGEN_FUZZ_CASES=N`.
fn cases() -> u32 {
    std::env::var("OROGEN_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn recipe_parser_never_panics_on_random_text(text in "\\PC{0,300}") {
        let _ = Recipe::from_ron(&text);
    }

    #[test]
    fn recipe_parser_never_panics_on_mutated_presets(
        preset in proptest::sample::select(presets::names().collect::<Vec<_>>()),
        edits in proptest::collection::vec((any::<usize>(), 32u8..127), 0..6),
        cut in proptest::option::of(any::<usize>()),
    ) {
        let bytes = mutate(presets::text(preset).unwrap().as_bytes().to_vec(), &edits, cut);
        if let Ok(text) = String::from_utf8(bytes)
            && let Ok(mut recipe) = Recipe::from_ron(&text)
        {
            // Whatever parses must also be valid.
            prop_assert!(recipe.validate().is_ok());
        }
    }

    #[test]
    fn png_importer_never_panics(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
        cut in proptest::option::of(any::<usize>()),
    ) {
        let bytes = mutate(valid_png16(), &edits, cut);
        if let Ok(m) = decode_png(&bytes) {
            prop_assert_eq!(m.values.len(), m.width * m.height);
        }
    }

    #[test]
    fn exr_importer_never_panics(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
        cut in proptest::option::of(any::<usize>()),
        random in proptest::collection::vec(any::<u8>(), 0..300),
        use_random in any::<bool>(),
    ) {
        let bytes = if use_random {
            // Garbage behind a real signature reaches the header parser.
            let mut b = vec![0x76, 0x2f, 0x31, 0x01];
            b.extend(random);
            b
        } else {
            mutate(valid_exr(), &edits, cut)
        };
        if let Ok(m) = decode_exr(&bytes) {
            check_decoded(&m)?;
        }
    }

    #[test]
    fn tiff_importer_never_panics(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
        cut in proptest::option::of(any::<usize>()),
        random in proptest::collection::vec(any::<u8>(), 0..300),
        use_random in any::<bool>(),
    ) {
        let bytes = if use_random {
            let mut b = b"II*\0".to_vec();
            b.extend(random);
            b
        } else {
            mutate(valid_float_tiff(), &edits, cut)
        };
        if let Ok(m) = decode_tiff(&bytes) {
            check_decoded(&m)?;
        }
    }

    #[test]
    fn raw_importer_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600),
                                 w in 0usize..40, h in 0usize..40, sized in any::<bool>()) {
        let size = sized.then_some((w, h));
        if let Ok(m) = decode_raw16(&bytes, ByteOrder::Be, size) {
            prop_assert_eq!(m.values.len() * 2, bytes.len());
            prop_assert_eq!(m.width * m.height, m.values.len());
        }
    }

    #[test]
    fn tile_loader_never_panics(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
        cut in proptest::option::of(any::<usize>()),
        random in proptest::collection::vec(any::<u8>(), 0..200),
        use_random in any::<bool>(),
    ) {
        let bytes = if use_random { random } else { mutate(valid_rgb_png(), &edits, cut) };
        if let Ok(img) = decode_tile_image(&bytes) {
            prop_assert!(img.width() > 0 && img.height() > 0);
        }
    }
}

/// A PNG whose header claims 100000 x 100000 pixels is refused before
/// anything that size is allocated.
#[test]
fn huge_png_dimensions_are_refused() {
    let mut png = valid_png16();
    // IHDR data starts at byte 16: width (4 bytes BE), height (4 bytes BE).
    png[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    png[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    // Fix the IHDR CRC so the decoder reaches the size check.
    let crc = crc32(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    let err = decode_png(&png).unwrap_err().to_string();
    assert!(err.contains("not a readable PNG"), "{err}");
    assert!(
        err.to_lowercase().contains("limit") || err.contains("dimension"),
        "{err}"
    );
}

/// Float files whose headers claim huge sizes are refused before anything
/// that size is allocated.
#[test]
fn huge_float_file_dimensions_are_refused() {
    // TIFF: ImageWidth (tag 256), ImageLength (257) and RowsPerStrip (278,
    // so the one strip still covers the image) in the first IFD, all set
    // to 100000.
    let mut tif = valid_float_tiff();
    let ifd = u32::from_le_bytes([tif[4], tif[5], tif[6], tif[7]]) as usize;
    let count = u16::from_le_bytes([tif[ifd], tif[ifd + 1]]) as usize;
    for i in 0..count {
        let entry = ifd + 2 + i * 12;
        let tag = u16::from_le_bytes([tif[entry], tif[entry + 1]]);
        if tag == 256 || tag == 257 || tag == 278 {
            let kind = u16::from_le_bytes([tif[entry + 2], tif[entry + 3]]);
            let value: Vec<u8> = match kind {
                3 => vec![0xff, 0xff, 0, 0], // SHORT: 65535
                _ => 100_000u32.to_le_bytes().to_vec(),
            };
            tif[entry + 8..entry + 12].copy_from_slice(&value);
        }
    }
    let err = decode_tiff(&tif).unwrap_err().to_string();
    assert!(
        err.contains("100000x100000") && err.contains("1 to 16385 a side"),
        "{err}"
    );
    // EXR: the dataWindow attribute's box2i (xMin, yMin, xMax, yMax).
    let mut exr = valid_exr();
    let at = exr
        .windows(b"dataWindow\0box2i\0".len())
        .position(|w| w == b"dataWindow\0box2i\0")
        .expect("the header has a data window")
        + b"dataWindow\0box2i\0".len()
        + 4;
    exr[at + 8..at + 12].copy_from_slice(&99_999i32.to_le_bytes());
    exr[at + 12..at + 16].copy_from_slice(&99_999i32.to_le_bytes());
    let err = decode_exr(&exr).unwrap_err().to_string();
    assert!(
        err.contains("100000x100000") && err.contains("1 to 16385 a side"),
        "{err}"
    );
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Found by the coverage-guided recipe target: an older recipe (cells and
/// `cell_size`) saves in the world format and loads back as the same
/// world; only the mark that it was converted is not saved.
#[test]
fn a_converted_recipe_saves_and_loads_back_as_the_same_world() {
    let legacy = "(width: 513, height: 513, seed: 3, cell_size: 2.0, stages: [
        (enabled: true, stage: HillsAndPits(layers: [
            (pit: false, count: 40, radius: (min: 5.0, max: 9.0), height: (min: 0.2, max: 0.4)),
        ])),
        (enabled: true, stage: Blur(passes: 2, radius: 1)),
    ])";
    let recipe = Recipe::from_ron(legacy).expect("an older recipe loads");
    assert!(recipe.converted_from_cells);
    assert_eq!((recipe.extent.x, recipe.extent.y), (1024.0, 1024.0));
    let again = Recipe::from_ron(&recipe.to_ron().unwrap()).expect("its save loads");
    assert!(!again.converted_from_cells);
    assert_eq!(
        again,
        Recipe {
            converted_from_cells: false,
            ..recipe
        }
    );
}
