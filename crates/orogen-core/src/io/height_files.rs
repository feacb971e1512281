//! Height files, both ways: byte order, quantisation to 16 bits, RAW16 and
//! 16-bit PNG encoding and decoding, the 8-bit preview, the set of height
//! files an export writes, and the reader that opens any of them (the
//! float EXR and TIFF codecs live in [`float_files`](super::float_files)).

use crate::heightmap::Heightmap;
use crate::hugepages::{
    PageAligned, filled_in_parallel, page_aligned_in_parallel, zeroed_in_parallel,
};
use crate::io::errors::{EncodeError, OptionError};
pub use crate::io::height_format::HeightFormat;
use crate::io::png_strips::{
    PngPixels, encode_png_rows, encode_png_rows_page_aligned, encode_png_strips,
};
use crate::params::{Choice, Span};
use image::ExtendedColorType;
use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::io::Cursor;
use std::mem::MaybeUninit;

/// Byte order of the 16-bit samples in a RAW16 (`.r16`) file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ByteOrder {
    /// Little-endian: low byte first (the usual order for Unity and Unreal).
    #[default]
    Le,
    /// Big-endian: high byte first (Unity's "Mac" byte order).
    Be,
}

impl Choice for ByteOrder {
    const ALL: &'static [Self] = &[ByteOrder::Le, ByteOrder::Be];
    fn label(self) -> &'static str {
        match self {
            ByteOrder::Le => "little-endian",
            ByteOrder::Be => "big-endian",
        }
    }
}

/// How heights are quantised and laid out when written as RAW16 and 16-bit PNG.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportOptions {
    /// Byte order of the `.r16` samples (PNG is always big-endian).
    pub byte_order: ByteOrder,
    /// Write rows south-first (Unity's convention when importing a north-up file).
    pub flip_y: bool,
    /// Heights mapped to 0 and 65535; `None` = the map's own min..max.
    pub height_range: Option<Span>,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            byte_order: ByteOrder::Le,
            flip_y: false,
            height_range: None,
        }
    }
}

/// The height range exported as 0..65535.
pub fn export_range(map: &Heightmap, opts: &ExportOptions) -> Span {
    opts.height_range.unwrap_or_else(|| {
        let (min, max) = map.range();
        Span::new(min, max)
    })
}

/// Maps heights linearly onto 0..=65535 (clamping outside `range`),
/// row 0 = north. A flat range maps to 0.
pub fn quantize(map: &Heightmap, range: Span) -> Vec<u16> {
    filled_in_parallel(map.data().len(), QUANTIZE_CHUNK, quantizer(map, range))
}

/// [`quantize`] into page-aligned memory, whose little-endian bytes are
/// written to `heightmap.r16` without a copy by the kernel.
pub fn quantize_page_aligned(map: &Heightmap, range: Span) -> PageAligned<u16> {
    page_aligned_in_parallel(map.data().len(), QUANTIZE_CHUNK, quantizer(map, range))
}

const QUANTIZE_CHUNK: usize = 1 << 16;

/// Fills chunk `i` of the samples: every cell on its own, split over the
/// threads, the same values, written straight into fresh memory.
fn quantizer(map: &Heightmap, range: Span) -> impl Fn(usize, &mut [MaybeUninit<u16>]) + Sync + '_ {
    let span = range.max - range.min;
    let scale = if span > 0.0 {
        65535.0 / span as f64
    } else {
        0.0
    };
    let cells = map.data();
    let min = range.min;
    move |i, out| {
        for (o, &v) in out.iter_mut().zip(&cells[i * QUANTIZE_CHUNK..]) {
            // Clamp, then round half up with a cast (no libm `round`).
            let q = ((v - min) as f64 * scale).clamp(0.0, 65535.0);
            o.write((q + 0.5) as u16);
        }
    }
}

/// `values`' rows in output order (north first, or south first when
/// flipped), each turned into bytes by `put`, filled row by row on all
/// threads into one buffer of `bytes_per_sample` bytes a sample.
fn row_bytes(
    values: &[u16],
    width: usize,
    flip_y: bool,
    bytes_per_sample: usize,
    put: impl Fn(&[u16], &mut [u8]) + Sync,
) -> Vec<u8> {
    let width = width.max(1);
    let rows = values.len() / width;
    let mut out: Vec<u8> = zeroed_in_parallel(rows * width * bytes_per_sample);
    out.par_chunks_mut(width * bytes_per_sample)
        .enumerate()
        .for_each(|(i, out_row)| {
            let source = if flip_y { rows - 1 - i } else { i };
            put(&values[source * width..(source + 1) * width], out_row);
        });
    out
}

/// Encodes samples as headerless RAW16, north row first unless `flip_y`.
pub fn encode_r16(values: &[u16], width: usize, order: ByteOrder, flip_y: bool) -> Vec<u8> {
    row_bytes(values, width, flip_y, 2, |row, out| {
        for (&v, o) in row.iter().zip(out.chunks_exact_mut(2)) {
            o.copy_from_slice(&match order {
                ByteOrder::Le => v.to_le_bytes(),
                ByteOrder::Be => v.to_be_bytes(),
            });
        }
    })
}

/// Encodes samples as a 16-bit grayscale PNG, north row first unless `flip_y`.
pub fn encode_png16(values: &[u16], width: usize, flip_y: bool) -> Result<Vec<u8>, EncodeError> {
    let width = width.max(1);
    let height = values.len() / width;
    encode_png_rows(
        width,
        height,
        PngPixels::Gray16,
        png16_row(values, width, flip_y),
    )
}

/// [`encode_png16`] into page-aligned memory, written to its file without
/// a copy by the kernel.
pub fn encode_png16_page_aligned(
    values: &[u16],
    width: usize,
    flip_y: bool,
) -> Result<PageAligned<u8>, EncodeError> {
    let width = width.max(1);
    let height = values.len() / width;
    encode_png_rows_page_aligned(
        width,
        height,
        PngPixels::Gray16,
        png16_row(values, width, flip_y),
    )
}

/// Fills PNG row `y` from the samples: big-endian, as PNG stores 16 bits.
fn png16_row(values: &[u16], width: usize, flip_y: bool) -> impl Fn(usize, &mut [u8]) + Sync {
    let height = values.len() / width;
    move |y, out| {
        let source = if flip_y { height - 1 - y } else { y };
        for (&v, o) in values[source * width..(source + 1) * width]
            .iter()
            .zip(out.chunks_exact_mut(2))
        {
            o.copy_from_slice(&v.to_be_bytes());
        }
    }
}

impl HeightFormat {
    /// The file an export writes in this format.
    pub fn file_name(self) -> &'static str {
        match self {
            HeightFormat::R16 => "heightmap.r16",
            HeightFormat::Png => "heightmap.png",
            HeightFormat::Exr => "heightmap.exr",
            HeightFormat::Tif => "heightmap.tif",
        }
    }

    /// What the file's samples mean, as the sidecar says it.
    pub fn units(self) -> &'static str {
        match self {
            HeightFormat::R16 | HeightFormat::Png => {
                "16-bit samples: 0 = min_height, 65535 = max_height"
            }
            HeightFormat::Exr | HeightFormat::Tif => "world units (f32)",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The set of whole-map height files an export writes (`--formats
/// r16,png,exr,tif`); by default `r16` and `png`. The preview, `recipe.ron`
/// and `heightmap.json` are written whatever the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeightFormats {
    bits: u8,
}

impl Default for HeightFormats {
    fn default() -> Self {
        HeightFormats::of(&[HeightFormat::R16, HeightFormat::Png])
    }
}

impl HeightFormats {
    /// Whether any of the files is 16-bit (RAW16, PNG): those scale by the
    /// height range, which windows of one world must share.
    pub fn writes_16_bit(self) -> bool {
        self.contains(HeightFormat::R16) || self.contains(HeightFormat::Png)
    }

    /// The set holding exactly `formats`.
    pub fn of(formats: &[HeightFormat]) -> Self {
        HeightFormats {
            bits: formats.iter().fold(0, |bits, f| bits | f.bit()),
        }
    }

    /// Whether the set holds `format`.
    pub fn contains(self, format: HeightFormat) -> bool {
        self.bits & format.bit() != 0
    }

    /// The formats in the set, in [`HeightFormat::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = HeightFormat> {
        HeightFormat::ALL
            .into_iter()
            .filter(move |f| self.contains(*f))
    }

    /// Parses a comma-separated list such as `r16,png,exr,tif` (case and
    /// spaces ignored, `tiff` taken for `tif`); at least one format. The
    /// error is one line naming the valid values.
    pub fn parse(text: &str) -> Result<Self, OptionError> {
        let mut formats = Vec::new();
        for item in text.split(',') {
            let name = item.trim().to_ascii_lowercase();
            let format = HeightFormat::ALL
                .into_iter()
                .find(|f| f.name() == name || (name == "tiff" && *f == HeightFormat::Tif))
                .ok_or_else(|| {
                    if name.is_empty() {
                        OptionError::EmptyFormat {
                            text: text.to_string(),
                        }
                    } else {
                        OptionError::UnknownFormat {
                            text: text.to_string(),
                            item: item.trim().to_string(),
                        }
                    }
                })?;
            formats.push(format);
        }
        Ok(HeightFormats::of(&formats))
    }
}

impl std::fmt::Display for HeightFormats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.iter().map(HeightFormat::name).collect();
        f.write_str(&names.join(","))
    }
}

/// The preview's longest side, at most: a quick look, not a second copy
/// of the map (an 8193² map would give a 67-megapixel "preview").
pub const PREVIEW_MAX_SIDE: usize = 2048;

/// Encodes samples as the 8-bit grayscale quick-look preview, north up:
/// maps up to [`PREVIEW_MAX_SIDE`] a side pixel for pixel, larger ones
/// averaged over square blocks of the smallest whole number of cells that
/// brings them within it.
pub fn encode_preview(values: &[u16], width: usize) -> Result<Vec<u8>, EncodeError> {
    let width = width.max(1);
    let height = values.len() / width;
    let block = width.max(height).div_ceil(PREVIEW_MAX_SIDE).max(1);
    let (out_w, out_h) = (width.div_ceil(block), height.div_ceil(block));
    encode_png_rows(out_w, out_h, PngPixels::Gray8, |y, out| {
        let rows = y * block..((y + 1) * block).min(height);
        for (x, o) in out.iter_mut().enumerate().take(out_w) {
            let columns = x * block..((x + 1) * block).min(width);
            let mut sum = 0u64;
            for row in rows.clone() {
                sum += values[row * width + columns.start..row * width + columns.end]
                    .iter()
                    .map(|&v| v as u64)
                    .sum::<u64>();
            }
            let count = (rows.len() * columns.len()) as u64;
            *o = ((sum / count) >> 8) as u8;
        }
    })
}

/// Encodes raw samples of `color` as PNG bytes.
pub fn encode_png(
    raw: &[u8],
    width: usize,
    height: usize,
    color: image::ExtendedColorType,
) -> Result<Vec<u8>, EncodeError> {
    // Strips deflated on all threads (see `png_strips`).
    let pixels = match color {
        ExtendedColorType::L8 => PngPixels::Gray8,
        ExtendedColorType::Rgb8 => PngPixels::Rgb8,
        ExtendedColorType::Rgba8 => PngPixels::Rgba8,
        ExtendedColorType::L16 => {
            // Native-endian samples in, as the image crate takes them.
            let big_endian: Vec<u8> = raw
                .chunks_exact(2)
                .flat_map(|pair| u16::from_ne_bytes([pair[0], pair[1]]).to_be_bytes())
                .collect();
            return encode_png_strips(&big_endian, width, height, PngPixels::Gray16);
        }
        other => return Err(EncodeError::PngColor(other)),
    };
    encode_png_strips(raw, width, height, pixels)
}

// Decoding: heightmaps made elsewhere (16/8-bit grayscale PNG, RAW16, and
// through `float_files`, float OpenEXR and float or 16-bit TIFF).

/// Largest side accepted from a file.
pub const MAX_IMPORT_SIDE: u32 = 16_385;

/// The file format a heightmap import reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ImportFormat {
    /// From the file's contents (PNG, OpenEXR and TIFF signatures), else
    /// its extension (.png, .exr, .tif/.tiff, .r16/.raw).
    Auto,
    /// A 16- or 8-bit grayscale PNG (8-bit is widened, with a warning).
    Png,
    /// Headerless RAW16, little-endian samples.
    Raw16Le,
    /// Headerless RAW16, big-endian samples.
    Raw16Be,
    /// OpenEXR with a float `R` or `Y` channel (or a single one): true heights.
    Exr,
    /// Grayscale TIFF: 32-bit float (true heights) or 16-bit unsigned.
    Tiff,
}

impl Choice for ImportFormat {
    const ALL: &'static [Self] = &[
        ImportFormat::Auto,
        ImportFormat::Png,
        ImportFormat::Raw16Le,
        ImportFormat::Raw16Be,
        ImportFormat::Exr,
        ImportFormat::Tiff,
    ];
    fn label(self) -> &'static str {
        match self {
            ImportFormat::Auto => "Auto",
            ImportFormat::Png => "PNG",
            ImportFormat::Raw16Le => "RAW16 little-endian",
            ImportFormat::Raw16Be => "RAW16 big-endian",
            ImportFormat::Exr => "OpenEXR (float heights)",
            ImportFormat::Tiff => "TIFF (float heights or 16-bit)",
        }
    }
}

/// A decoded height file, rows in the file's order (row 0 = the file's
/// first row, north for orogen's own unflipped files). It holds either
/// 16-bit samples (PNG, RAW16, 16-bit TIFF), which a height range maps to
/// world heights, or true world heights (OpenEXR, float TIFF).
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedMap {
    /// Samples a row (west to east).
    pub width: usize,
    /// Rows (north to south).
    pub height: usize,
    /// The 16-bit samples, 0..=65535, row-major, `width * height` long;
    /// empty when the file held floats (then see `heights`).
    pub values: Vec<u16>,
    /// The true world heights of a float file, exactly as stored, all
    /// finite, row-major, `width * height` long; `None` for 16-bit data.
    pub heights: Option<Vec<f32>>,
    /// Notes for the user (8-bit precision, say).
    pub warnings: Vec<String>,
}

impl ImportedMap {
    /// A map of 16-bit samples.
    pub fn from_u16(width: usize, height: usize, values: Vec<u16>, warnings: Vec<String>) -> Self {
        Self {
            width,
            height,
            values,
            heights: None,
            warnings,
        }
    }

    /// A map of true heights.
    pub fn from_heights(
        width: usize,
        height: usize,
        heights: Vec<f32>,
        warnings: Vec<String>,
    ) -> Self {
        Self {
            width,
            height,
            values: Vec::new(),
            heights: Some(heights),
            warnings,
        }
    }

    /// How many samples the file gave, 16-bit or float: `width * height`.
    pub fn sample_count(&self) -> usize {
        self.heights.as_ref().map_or(self.values.len(), Vec::len)
    }
}

/// Why a heightmap file could not be imported.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub enum ImportError {
    /// The file could not be read from disk.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The file's path, as given.
        path: String,
        /// The operating system's error message.
        reason: String,
    },
    /// An import that names no file.
    #[error("no file chosen")]
    NoFile,
    /// One of the RAW16 sizes given without the other.
    #[error("give both raw_width and raw_height, or neither")]
    RawSizeHalfGiven,
    /// A file of no samples.
    #[error("empty image")]
    Empty,
    /// The file's kind could not be told from its bytes or its name.
    #[error(
        "{path}: unknown heightmap format (use .png, .exr, .tif, .r16 or .raw, or give the format)"
    )]
    UnknownFormat {
        /// The file, as given.
        path: String,
    },
    /// The decoder of `format` rejected the file.
    #[error("not a readable {format} heightmap: {reason}")]
    Unreadable {
        /// PNG, OpenEXR or TIFF.
        format: &'static str,
        /// The decoder's message.
        reason: String,
    },
    /// Pixels of a kind orogen does not read as heights.
    #[error("{format} is {pixels}; heightmaps must be {wanted}")]
    Pixels {
        /// PNG or TIFF.
        format: &'static str,
        /// What the file holds, as its decoder names it.
        pixels: String,
        /// What a heightmap of that format must hold.
        wanted: &'static str,
    },
    /// A TIFF whose samples are of a type orogen does not read.
    #[error("TIFF samples are {0}; heightmaps must be 32-bit float or 16-bit unsigned")]
    TiffSamples(&'static str),
    /// An image with no cells or over the import limit a side.
    #[error(
        "{what} is {width}x{height}; heightmaps must be 1 to {} a side",
        MAX_IMPORT_SIDE
    )]
    Side {
        /// "OpenEXR image", "TIFF image".
        what: &'static str,
        /// Pixels west to east.
        width: usize,
        /// Pixels north to south.
        height: usize,
    },
    /// A height that is NaN or infinite, at its place in the file.
    #[error(
        "height {value} at column {column}, row {row} (0-based, row 0 = the file's first) is not a finite number; heightmaps need finite heights"
    )]
    NotFinite {
        /// The value.
        value: f32,
        /// Its column.
        column: usize,
        /// Its row, 0 the file's first.
        row: usize,
    },
    /// Fewer or more samples than the pixels.
    #[error("{what} has {samples} samples for {width}x{height} pixels")]
    SampleCount {
        /// "TIFF", or "OpenEXR channel R".
        what: String,
        /// Samples read.
        samples: usize,
        /// Pixels west to east.
        width: usize,
        /// Pixels north to south.
        height: usize,
    },
    /// An OpenEXR file without an image.
    #[error("OpenEXR file has no image")]
    ExrNoImage,
    /// An OpenEXR file of deep data.
    #[error("OpenEXR file holds deep data; heightmaps must be flat images")]
    ExrDeep,
    /// No channel to read heights from.
    #[error(
        "OpenEXR channels are [{}]; a heightmap needs an R or Y channel, or a single channel",
        .0.join(", ")
    )]
    ExrChannels(Vec<String>),
    /// A channel with fewer samples than pixels.
    #[error("OpenEXR channel {0} is subsampled; heightmaps need one sample per pixel")]
    ExrSubsampled(String),
    /// An image too large to decode under the import's memory limit.
    #[error(
        "OpenEXR image of {width}x{height} with {channels} channels needs more memory than the import allows ({limit_mib} MiB)"
    )]
    ExrTooLarge {
        /// Pixels west to east.
        width: usize,
        /// Pixels north to south.
        height: usize,
        /// Its channels.
        channels: usize,
        /// The limit.
        limit_mib: u64,
    },
    /// The chosen channel missing from the decoded image.
    #[error("OpenEXR channel {0} could not be read")]
    ExrChannelUnread(String),
    /// A RAW16 file of no bytes.
    #[error("RAW16 file is empty")]
    RawEmpty,
    /// A RAW16 file of an odd byte count.
    #[error("RAW16 file has an odd byte count ({0}); it is truncated or not 16-bit")]
    RawOddBytes(usize),
    /// A RAW16 size given out of range.
    #[error(
        "RAW16 size {width}x{height} is out of range (1 to {} a side)",
        MAX_IMPORT_SIDE
    )]
    RawSizeRange {
        /// Samples west to east.
        width: usize,
        /// Samples north to south.
        height: usize,
    },
    /// A RAW16 size given that the file's bytes do not fill.
    #[error("RAW16 size {width}x{height} needs {} bytes but the file has {bytes}", .width * .height * 2)]
    RawSizeMismatch {
        /// Samples west to east.
        width: usize,
        /// Samples north to south.
        height: usize,
        /// The file's bytes.
        bytes: usize,
    },
    /// A square RAW16 file over the limit a side.
    #[error("RAW16 side {0} exceeds the limit of {max}", max = MAX_IMPORT_SIDE)]
    RawSideTooLarge(usize),
    /// A RAW16 file whose size was not given and whose samples make no
    /// square.
    #[error(
        "RAW16 file of {samples} samples is not square; give its width and height (raw_width and raw_height in the recipe)"
    )]
    RawNotSquare {
        /// The 16-bit samples the file holds.
        samples: usize,
    },
}

/// The first four bytes of every OpenEXR file.
pub const EXR_MAGIC: &[u8] = &[0x76, 0x2f, 0x31, 0x01];

/// The first four bytes of a TIFF: little-endian (`II*\0`), big-endian
/// (`MM\0*`), and the same for BigTIFF (`II+\0`, `MM\0+`).
pub const TIFF_MAGICS: [&[u8]; 4] = [b"II*\0", b"MM\0*", b"II+\0", b"MM\0+"];

/// Decodes a grayscale PNG (16-bit exact, 8-bit scaled by 257 with a warning).
pub fn decode_png(bytes: &[u8]) -> Result<ImportedMap, ImportError> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), ImageFormat::Png);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_IMPORT_SIDE);
    limits.max_image_height = Some(MAX_IMPORT_SIDE);
    limits.max_alloc = Some(2 * (MAX_IMPORT_SIDE as u64).pow(2) + (64 << 20));
    reader.limits(limits);
    let image = reader.decode().map_err(|e| ImportError::Unreadable {
        format: "PNG",
        reason: e.to_string(),
    })?;
    let (width, height) = (image.width() as usize, image.height() as usize);
    let mut warnings = Vec::new();
    let values = match image {
        DynamicImage::ImageLuma16(buf) => buf.into_raw(),
        DynamicImage::ImageLuma8(buf) => {
            warnings.push(
                "8-bit PNG: only 256 height levels; expect visible steps (16-bit PNG or RAW16 keeps full precision)"
                    .to_string(),
            );
            buf.into_raw().into_iter().map(|v| v as u16 * 257).collect()
        }
        other => {
            return Err(ImportError::Pixels {
                format: "PNG",
                pixels: format!("{:?}", other.color()),
                wanted: "8- or 16-bit grayscale",
            });
        }
    };
    Ok(ImportedMap::from_u16(width, height, values, warnings))
}

/// Decodes headerless unsigned 16-bit samples.
pub fn decode_raw16(
    bytes: &[u8],
    order: ByteOrder,
    size: Option<(usize, usize)>,
) -> Result<ImportedMap, ImportError> {
    if bytes.is_empty() {
        return Err(ImportError::RawEmpty);
    }
    if !bytes.len().is_multiple_of(2) {
        return Err(ImportError::RawOddBytes(bytes.len()));
    }
    let samples = bytes.len() / 2;
    let (width, height) = match size {
        Some((w, h)) => {
            if w == 0 || h == 0 || w > MAX_IMPORT_SIDE as usize || h > MAX_IMPORT_SIDE as usize {
                return Err(ImportError::RawSizeRange {
                    width: w,
                    height: h,
                });
            }
            if w * h != samples {
                return Err(ImportError::RawSizeMismatch {
                    width: w,
                    height: h,
                    bytes: bytes.len(),
                });
            }
            (w, h)
        }
        None => {
            let side = (samples as f64).sqrt().round() as usize;
            if side * side != samples {
                return Err(ImportError::RawNotSquare { samples });
            }
            if side > MAX_IMPORT_SIDE as usize {
                return Err(ImportError::RawSideTooLarge(side));
            }
            (side, side)
        }
    };
    let values = bytes
        .chunks_exact(2)
        .map(|b| match order {
            ByteOrder::Le => u16::from_le_bytes([b[0], b[1]]),
            ByteOrder::Be => u16::from_be_bytes([b[0], b[1]]),
        })
        .collect();
    Ok(ImportedMap::from_u16(width, height, values, Vec::new()))
}
