//! 32-bit float height files, both ways: single-channel OpenEXR
//! (`heightmap.exr`) and TIFF (`heightmap.tif`) holding true world heights,
//! with no quantisation and no height range to carry beside them.
//!
//! Both are written north row first (row 0 = north) unless `flip_y`, like
//! the 16-bit files. The readers take what other tools write too: an EXR's
//! `R` or `Y` channel (or its only one) as 16- or 32-bit float, and a
//! grayscale TIFF as 32-bit float (true heights) or 16-bit unsigned
//! (samples for a height range, like a 16-bit PNG).

use crate::io::errors::EncodeError;
use crate::io::height_files::{ImportError, ImportedMap, MAX_IMPORT_SIDE};
use exr::meta::MetaData;
use exr::meta::attribute::SampleType;
use exr::prelude::{
    AnyChannel, AnyChannels, Blocks, Compression, Encoding, FlatSamples, Image, Layer,
    LayerAttributes, LineOrder, ReadChannels, ReadLayers, WritableImage,
};
use std::borrow::Cow;
use std::io::Cursor;
use tiff::ColorType;
use tiff::decoder::{Decoder, DecodingResult, Limits};
use tiff::encoder::{TiffEncoder, colortype::Gray32Float};

/// The EXR channel the height is written to.
///
/// `R`, not `Y`: Godot's EXR loader (`Image::load_exr`, through tinyexr),
/// which both HTerrain and Terrain3D import with, turns a lone `R` channel
/// into a one-channel 32-bit float image (`FORMAT_RF`), exactly the format
/// those plugins keep heights in and read back through the red channel. A
/// lone `Y` (luminance) channel is loaded too, but copied into R, G and B
/// (`FORMAT_RGBF`, three times the memory), and Godot's own
/// `Image.save_exr` writes a `FORMAT_RF` image as a single `R` channel.
/// OpenEXR's tools, GDAL and Blender read any channel name.
pub const EXR_HEIGHT_CHANNEL: &str = "R";

/// Bytes a float file may decode into: one 32-bit sample per cell of the
/// largest accepted map, plus some headroom.
const MAX_DECODE_BYTES: u64 = 4 * (MAX_IMPORT_SIDE as u64) * (MAX_IMPORT_SIDE as u64) + (64 << 20);

/// The number of rows `len` samples make at `width` a row.
fn rows_of(len: usize, width: usize) -> Result<usize, EncodeError> {
    if width == 0 || len == 0 || !len.is_multiple_of(width) {
        return Err(EncodeError::FloatRows { len, width });
    }
    Ok(len / width)
}

/// The samples with their rows in output order: north first (borrowed as
/// they are), or south first when flipped.
fn in_row_order(values: &[f32], width: usize, flip_y: bool) -> Cow<'_, [f32]> {
    if !flip_y {
        return Cow::Borrowed(values);
    }
    Cow::Owned(
        values
            .chunks_exact(width)
            .rev()
            .flatten()
            .copied()
            .collect(),
    )
}

/// Encodes heights as a single-channel 32-bit float OpenEXR file (channel
/// [`EXR_HEIGHT_CHANNEL`], lossless ZIP compression, scan lines top to
/// bottom), north row first unless `flip_y`.
pub fn encode_exr(values: &[f32], width: usize, flip_y: bool) -> Result<Vec<u8>, EncodeError> {
    let height = rows_of(values.len(), width)?;
    let channel = AnyChannel::new(
        EXR_HEIGHT_CHANNEL,
        FlatSamples::F32(in_row_order(values, width, flip_y).into_owned()),
    );
    // ZIP (16 scan lines a block) is lossless and read by every EXR reader
    // that matters here: OpenEXR itself, tinyexr (Godot), GDAL, Blender.
    let encoding = Encoding {
        compression: Compression::ZIP16,
        blocks: Blocks::ScanLines,
        line_order: LineOrder::Increasing,
    };
    let layer = Layer::new(
        (width, height),
        LayerAttributes::default(),
        encoding,
        AnyChannels::sort(std::iter::once(channel).collect()),
    );
    let mut out = Vec::new();
    Image::from_layer(layer)
        .write()
        .to_buffered(Cursor::new(&mut out))
        .map_err(EncodeError::Exr)?;
    Ok(out)
}

/// Encodes heights as an uncompressed grayscale 32-bit float TIFF (one
/// sample per pixel, SampleFormat IEEE float, BitsPerSample 32), north row
/// first unless `flip_y`.
pub fn encode_tiff_f32(values: &[f32], width: usize, flip_y: bool) -> Result<Vec<u8>, EncodeError> {
    let height = rows_of(values.len(), width)?;
    let (w, h) = match (u32::try_from(width), u32::try_from(height)) {
        (Ok(w), Ok(h)) => (w, h),
        _ => return Err(EncodeError::TiffSize { width, height }),
    };
    let mut out = Vec::new();
    TiffEncoder::new(Cursor::new(&mut out))
        .and_then(|mut encoder| {
            encoder.write_image::<Gray32Float>(w, h, &in_row_order(values, width, flip_y))
        })
        .map_err(EncodeError::Tiff)?;
    Ok(out)
}

/// Refuses NaN and infinite heights, naming the first one by its column
/// and row in the file.
fn check_finite(values: &[f32], width: usize) -> Result<(), ImportError> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(ImportError::NotFinite {
            value: values[i],
            column: i % width,
            row: i / width,
        }),
    }
}

/// Checks a file's dimensions against [`MAX_IMPORT_SIDE`].
fn check_side(what: &'static str, width: usize, height: usize) -> Result<(), ImportError> {
    let max = MAX_IMPORT_SIDE as usize;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(ImportError::Side {
            what,
            width,
            height,
        });
    }
    Ok(())
}

/// Decodes a float OpenEXR heightmap: the first layer's `R` channel, else
/// its `Y` channel, else its only channel, at full resolution. 32-bit
/// floats are kept exactly, 16-bit ones widened exactly; 32-bit unsigned
/// integers are converted to floats (exact up to 2^24).
pub fn decode_exr(bytes: &[u8]) -> Result<ImportedMap, ImportError> {
    let unreadable = |e: exr::error::Error| ImportError::Unreadable {
        format: "OpenEXR",
        reason: e.to_string(),
    };
    // The header first: sizes and channels are checked before any pixel
    // buffer is allocated.
    let meta = MetaData::read_from_buffered(Cursor::new(bytes), false).map_err(unreadable)?;
    let header = meta.headers.first().ok_or(ImportError::ExrNoImage)?;
    if header.deep {
        return Err(ImportError::ExrDeep);
    }
    let (width, height) = (header.layer_size.0, header.layer_size.1);
    check_side("OpenEXR image", width, height)?;
    let channels = &header.channels.list;
    let names: Vec<String> = channels.iter().map(|c| c.name.to_string()).collect();
    let chosen = names
        .iter()
        .position(|n| n == "R")
        .or_else(|| names.iter().position(|n| n == "Y"))
        .or_else(|| (names.len() == 1).then_some(0))
        .ok_or_else(|| ImportError::ExrChannels(names.clone()))?;
    if let Some(c) = channels
        .iter()
        .find(|c| c.sampling.0 != 1 || c.sampling.1 != 1)
    {
        return Err(ImportError::ExrSubsampled(c.name.to_string()));
    }
    let bytes_per_pixel: u64 = channels
        .iter()
        .map(|c| match c.sample_type {
            SampleType::F16 => 2,
            SampleType::F32 | SampleType::U32 => 4,
        })
        .sum();
    if (width as u64) * (height as u64) * bytes_per_pixel > MAX_DECODE_BYTES {
        return Err(ImportError::ExrTooLarge {
            width,
            height,
            channels: channels.len(),
            limit_mib: MAX_DECODE_BYTES >> 20,
        });
    }
    let image = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .all_channels()
        .first_valid_layer()
        .all_attributes()
        .from_buffered(Cursor::new(bytes))
        .map_err(unreadable)?;
    let layer = &image.layer_data;
    let channel = layer
        .channel_data
        .list
        .iter()
        .find(|c| c.name.to_string() == names[chosen])
        .ok_or_else(|| ImportError::ExrChannelUnread(names[chosen].clone()))?;
    let (width, height) = (layer.size.0, layer.size.1);
    let mut warnings = Vec::new();
    let heights: Vec<f32> = match &channel.sample_data {
        FlatSamples::F32(v) => v.clone(),
        FlatSamples::F16(v) => {
            warnings.push(
                "16-bit float EXR: about 3 significant digits of height (32-bit float keeps full precision)"
                    .to_string(),
            );
            v.iter().map(|h| h.to_f32()).collect()
        }
        FlatSamples::U32(v) => v.iter().map(|&u| u as f32).collect(),
    };
    if heights.len() != width * height {
        return Err(ImportError::SampleCount {
            what: format!("OpenEXR channel {}", names[chosen]),
            samples: heights.len(),
            width,
            height,
        });
    }
    check_finite(&heights, width)?;
    Ok(ImportedMap::from_heights(width, height, heights, warnings))
}

/// Decodes a grayscale TIFF heightmap: 32-bit float samples are true
/// heights, kept exactly (16-bit float ones are widened); 16-bit unsigned
/// samples come back as 16-bit data, to be mapped by a height range like a
/// 16-bit PNG. Other layouts are refused, naming what the file holds.
pub fn decode_tiff(bytes: &[u8]) -> Result<ImportedMap, ImportError> {
    let unreadable = |e: tiff::TiffError| ImportError::Unreadable {
        format: "TIFF",
        reason: e.to_string(),
    };
    let mut limits = Limits::default();
    limits.decoding_buffer_size = MAX_DECODE_BYTES as usize;
    // Other tools write a large uncompressed map as one strip.
    limits.intermediate_buffer_size = MAX_DECODE_BYTES as usize;
    let mut decoder = Decoder::new(Cursor::new(bytes))
        .map_err(unreadable)?
        .with_limits(limits);
    let (w, h) = decoder.dimensions().map_err(unreadable)?;
    let (width, height) = (w as usize, h as usize);
    check_side("TIFF image", width, height)?;
    let color = decoder.colortype().map_err(unreadable)?;
    if !matches!(color, ColorType::Gray(16 | 32)) {
        return Err(ImportError::Pixels {
            format: "TIFF",
            pixels: format!("{color:?}"),
            wanted: "one sample per pixel, 32-bit float or 16-bit unsigned",
        });
    }
    let decoded = decoder.read_image().map_err(unreadable)?;
    let map = match decoded {
        DecodingResult::F32(v) => ImportedMap::from_heights(width, height, v, Vec::new()),
        DecodingResult::F16(v) => ImportedMap::from_heights(
            width,
            height,
            v.iter().map(|h| h.to_f32()).collect(),
            Vec::new(),
        ),
        DecodingResult::U16(v) => ImportedMap::from_u16(width, height, v, Vec::new()),
        other => {
            return Err(ImportError::TiffSamples(sample_kind(&other)));
        }
    };
    if map.sample_count() != width * height {
        return Err(ImportError::SampleCount {
            what: "TIFF".into(),
            samples: map.sample_count(),
            width,
            height,
        });
    }
    if let Some(heights) = &map.heights {
        check_finite(heights, width)?;
    }
    Ok(map)
}

/// What a refused TIFF's samples are, in words.
fn sample_kind(decoded: &DecodingResult) -> &'static str {
    match decoded {
        DecodingResult::U8(_) => "8-bit unsigned",
        DecodingResult::U16(_) => "16-bit unsigned",
        DecodingResult::U32(_) => "32-bit unsigned",
        DecodingResult::U64(_) => "64-bit unsigned",
        DecodingResult::F16(_) => "16-bit float",
        DecodingResult::F32(_) => "32-bit float",
        DecodingResult::F64(_) => "64-bit float",
        DecodingResult::I8(_) => "8-bit signed",
        DecodingResult::I16(_) => "16-bit signed",
        DecodingResult::I32(_) => "32-bit signed",
        DecodingResult::I64(_) => "64-bit signed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exr_writes_one_float_channel_named_r() {
        let bytes = encode_exr(&[1.0, -2.5, 3.25, 1e6, -1e-7, 0.0], 3, false).expect("encodes");
        assert_eq!(&bytes[..4], &[0x76, 0x2f, 0x31, 0x01]);
        let meta = MetaData::read_from_buffered(Cursor::new(&bytes), true).expect("a header");
        let channels = &meta.headers[0].channels.list;
        assert_eq!(channels.len(), 1);
        assert_eq!(channels[0].name.to_string(), EXR_HEIGHT_CHANNEL);
        assert_eq!(channels[0].sample_type, SampleType::F32);
        assert_eq!(meta.headers[0].compression, Compression::ZIP16);
    }

    #[test]
    fn a_y_channel_and_a_half_float_channel_are_read() {
        let layer = Layer::new(
            (2, 1),
            LayerAttributes::default(),
            Encoding::UNCOMPRESSED,
            AnyChannels::sort(
                [
                    AnyChannel::new(
                        "Y",
                        FlatSamples::F16(vec![
                            exr::prelude::f16::from_f32(0.5),
                            exr::prelude::f16::from_f32(-3.0),
                        ]),
                    ),
                    AnyChannel::new("Z", FlatSamples::F32(vec![9.0, 9.0])),
                ]
                .into_iter()
                .collect(),
            ),
        );
        let mut bytes = Vec::new();
        Image::from_layer(layer)
            .write()
            .to_buffered(Cursor::new(&mut bytes))
            .expect("writes");
        let map = decode_exr(&bytes).expect("reads");
        assert_eq!(map.warnings.len(), 1);
        assert_eq!(map.heights, Some(vec![0.5, -3.0]));
        assert!(map.values.is_empty());
    }

    #[test]
    fn non_finite_heights_are_refused_naming_the_first() {
        let bytes =
            encode_exr(&[0.0, 1.0, 2.0, f32::NAN, f32::INFINITY, 5.0], 3, false).expect("encodes");
        let err = decode_exr(&bytes).unwrap_err().to_string();
        assert!(err.contains("NaN at column 0, row 1"), "{err}");
        let bytes = encode_tiff_f32(&[0.0, f32::NEG_INFINITY], 2, false).expect("encodes");
        let err = decode_tiff(&bytes).unwrap_err().to_string();
        assert!(err.contains("-inf at column 1, row 0"), "{err}");
    }

    #[test]
    fn sixteen_bit_tiff_is_sixteen_bit_data_and_eight_bit_is_refused() {
        let mut bytes = Vec::new();
        TiffEncoder::new(Cursor::new(&mut bytes))
            .and_then(|mut e| {
                e.write_image::<tiff::encoder::colortype::Gray16>(2, 2, &[0, 1, 65535, 300])
            })
            .expect("writes");
        let map = decode_tiff(&bytes).expect("reads");
        assert_eq!(map.values, vec![0, 1, 65535, 300]);
        assert_eq!(map.heights, None);
        let mut bytes = Vec::new();
        TiffEncoder::new(Cursor::new(&mut bytes))
            .and_then(|mut e| e.write_image::<tiff::encoder::colortype::Gray8>(2, 1, &[0, 1]))
            .expect("writes");
        let err = decode_tiff(&bytes).unwrap_err().to_string();
        assert!(err.contains("Gray(8)"), "{err}");
        let mut bytes = Vec::new();
        TiffEncoder::new(Cursor::new(&mut bytes))
            .and_then(|mut e| e.write_image::<tiff::encoder::colortype::GrayI16>(2, 1, &[-1, 1]))
            .expect("writes");
        let err = decode_tiff(&bytes).unwrap_err().to_string();
        assert!(err.contains("16-bit signed"), "{err}");
    }

    #[test]
    fn rows_must_be_whole() {
        assert!(matches!(
            encode_exr(&[1.0, 2.0, 3.0], 2, false),
            Err(EncodeError::FloatRows { len: 3, width: 2 })
        ));
        assert!(encode_tiff_f32(&[], 2, false).is_err());
        assert!(encode_tiff_f32(&[1.0], 0, false).is_err());
    }
}
