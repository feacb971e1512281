//! PNG encoding on all threads.
//!
//! A PNG's pixels are one zlib stream, which the `png` crate compresses
//! on one thread: at 8193² with 16-bit samples that alone took longer than
//! generating the map. Here the rows are cut into strips of a fixed size
//! (so the bytes do not depend on the thread count), each strip is
//! filtered and deflated on its own, ending on a byte boundary with a full
//! flush, and the pieces are joined into one stream, the way `pigz` does.
//! The zlib checksum is combined from the strips' own. Every row uses the
//! Up filter (each byte minus the one above): smooth heights leave small
//! differences that deflate well, and the filter is one vectorised
//! subtraction where Paeth's per-byte choice would cost more than the
//! deflate.
//!
//! Hand-written because no kept crate compresses one PNG on several
//! threads without a C library. The deflate is `zlib-rs`'s quickest level,
//! except for 16-bit heights, whose strips get a literal-only Huffman
//! block ([`super::literal_deflate`]): their noisy low bytes leave a match
//! search little to find.

// zlib-rs's own Adler-32 and its combination of strips' checksums.
use crate::hugepages::{PageAligned, page_aligned_in_parallel};
use crate::io::errors::EncodeError;
use crate::io::literal_deflate::deflate_literals;
use rayon::prelude::*;
use zlib_rs::adler32::{adler32, adler32_combine};
use zlib_rs::{Deflate, DeflateConfig, DeflateFlush, Status};

/// Filtered bytes per independently deflated strip: large enough that the
/// restart costs nothing measurable in size, small enough for many jobs.
const STRIP_BYTES: usize = 2 << 20;
/// Largest IDAT chunk written.
const IDAT_BYTES: usize = 8 << 20;

/// The pixel layouts orogen writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PngPixels {
    /// 8-bit grayscale.
    Gray8,
    /// 16-bit grayscale, samples big-endian as PNG stores them.
    Gray16,
    /// 8-bit RGB.
    Rgb8,
    /// 8-bit RGBA.
    Rgba8,
}

impl PngPixels {
    /// Bytes a pixel takes.
    fn bytes(self) -> usize {
        match self {
            PngPixels::Gray8 => 1,
            PngPixels::Gray16 => 2,
            PngPixels::Rgb8 => 3,
            PngPixels::Rgba8 => 4,
        }
    }

    /// IHDR's bit depth and colour type.
    fn header(self) -> (u8, u8) {
        match self {
            PngPixels::Gray8 => (8, 0),
            PngPixels::Gray16 => (16, 0),
            PngPixels::Rgb8 => (8, 2),
            PngPixels::Rgba8 => (8, 6),
        }
    }
}

/// Encodes `raw` (rows top first, pixels in PNG byte order) as a PNG.
pub fn encode_png_strips(
    raw: &[u8],
    width: usize,
    height: usize,
    pixels: PngPixels,
) -> Result<Vec<u8>, EncodeError> {
    let row_len = width.saturating_mul(pixels.bytes());
    if Some(raw.len()) != row_len.checked_mul(height) {
        return Err(EncodeError::PngDataSize {
            len: raw.len(),
            width,
            height,
            pixel_bytes: pixels.bytes(),
        });
    }
    encode_png_rows(width, height, pixels, |y, row| {
        row.copy_from_slice(&raw[y * row_len..(y + 1) * row_len]);
    })
}

/// Encodes a PNG whose row `y` (top first, PNG byte order) `fill_row`
/// writes into the slice it is given. Rows are asked for strip by strip
/// on all threads, so the caller never builds the whole raw image (at
/// 8193² with 16-bit samples that copy alone cost as much as a third of
/// the deflate).
pub fn encode_png_rows(
    width: usize,
    height: usize,
    pixels: PngPixels,
    fill_row: impl Fn(usize, &mut [u8]) + Sync,
) -> Result<Vec<u8>, EncodeError> {
    Ok(png_parts(width, height, pixels, fill_row)?.joined())
}

/// [`encode_png_rows`] into page-aligned memory, for a file written
/// directly (see [`crate::io::atomic`]).
pub fn encode_png_rows_page_aligned(
    width: usize,
    height: usize,
    pixels: PngPixels,
    fill_row: impl Fn(usize, &mut [u8]) + Sync,
) -> Result<PageAligned<u8>, EncodeError> {
    let parts = png_parts(width, height, pixels, fill_row)?;
    let total = parts.len();
    Ok(page_aligned_in_parallel(total, total, |_, out| {
        let mut at = 0;
        for part in parts.iter() {
            for (slot, &byte) in out[at..at + part.len()].iter_mut().zip(part) {
                slot.write(byte);
            }
            at += part.len();
        }
    }))
}

/// A PNG's bytes in order: its head (signature, IHDR, zlib header), each
/// strip's IDAT chunks, its tail (checksum, IEND).
struct PngParts {
    head: Vec<u8>,
    strips: Vec<Vec<u8>>,
    tail: Vec<u8>,
}

impl PngParts {
    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        std::iter::once(&self.head[..])
            .chain(self.strips.iter().map(|s| &s[..]))
            .chain(std::iter::once(&self.tail[..]))
    }

    fn len(&self) -> usize {
        self.iter().map(<[u8]>::len).sum()
    }

    fn joined(&self) -> Vec<u8> {
        let mut png = Vec::with_capacity(self.len());
        for part in self.iter() {
            png.extend_from_slice(part);
        }
        png
    }
}

fn png_parts(
    width: usize,
    height: usize,
    pixels: PngPixels,
    fill_row: impl Fn(usize, &mut [u8]) + Sync,
) -> Result<PngParts, EncodeError> {
    if width == 0 || height == 0 || width > u32::MAX as usize || height > u32::MAX as usize {
        return Err(EncodeError::PngSize { width, height });
    }
    let Some(row_len) = width.checked_mul(pixels.bytes()) else {
        return Err(EncodeError::PngRowTooLong(width));
    };
    let rows_per_strip = (STRIP_BYTES / (row_len + 1)).max(1);
    let strips: Vec<(usize, usize)> = (0..height)
        .step_by(rows_per_strip)
        .map(|first| (first, (first + rows_per_strip).min(height)))
        .collect();
    let last = strips.len() - 1;
    // Each strip comes back as finished IDAT chunks (a PNG may split its
    // zlib stream over any number of them), so joining is one copy.
    // Each worker keeps its filter and deflate buffers from strip to
    // strip: fresh ones per strip cost a clearing pass and page faults
    // over twice the image's size.
    let pieces: Vec<(Vec<u8>, u32, usize)> = strips
        .par_iter()
        .enumerate()
        .map_init(
            || (Vec::new(), Vec::new()),
            |(filtered, deflated), (index, &(first, end))| {
                filter_rows(&fill_row, row_len, first, end, filtered);
                let checksum = adler32(1, filtered);
                let is_last = index == last;
                let n = if pixels == PngPixels::Gray16 {
                    // Heights: literals only (see `literal_deflate`).
                    deflate_literals(filtered, is_last, deflated);
                    deflated.len()
                } else {
                    deflate_strip(filtered, is_last, deflated)?
                };
                Ok((idat_chunks(&deflated[..n]), checksum, filtered.len()))
            },
        )
        .collect::<Result<_, EncodeError>>()?;

    let mut adler = 1u32;
    for (_, checksum, len) in &pieces {
        adler = adler32_combine(adler, *checksum, *len as u64);
    }
    let mut head = Vec::with_capacity(64);
    head.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let (depth, color_type) = pixels.header();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    ihdr.extend_from_slice(&[depth, color_type, 0, 0, 0]);
    chunk(&mut head, b"IHDR", &ihdr);
    // zlib header: CMF 0x78 (deflate, 32 KiB window), FLG 0x01 (fastest;
    // check bits), then the strips' deflate data, then the checksum.
    chunk(&mut head, b"IDAT", &[0x78, 0x01]);
    let mut tail = Vec::with_capacity(32);
    chunk(&mut tail, b"IDAT", &adler.to_be_bytes());
    chunk(&mut tail, b"IEND", &[]);
    Ok(PngParts {
        head,
        strips: pieces.into_iter().map(|(chunks, _, _)| chunks).collect(),
        tail,
    })
}

/// `deflated` as IDAT chunks of at most `IDAT_BYTES` each, CRCs included.
fn idat_chunks(deflated: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(deflated.len() + deflated.len() / IDAT_BYTES * 12 + 12);
    for part in deflated.chunks(IDAT_BYTES) {
        chunk(&mut out, b"IDAT", part);
    }
    out
}

/// Rows `first..end` into `out`, each as its filter byte (2, Up) and the
/// bytes minus the row above's: one vectorised subtraction a row.
fn filter_rows(
    fill_row: &(impl Fn(usize, &mut [u8]) + Sync),
    row_len: usize,
    first: usize,
    end: usize,
    out: &mut Vec<u8>,
) {
    out.clear();
    out.reserve((end - first) * (row_len + 1));
    let mut up = vec![0u8; row_len];
    let mut row = vec![0u8; row_len];
    if first > 0 {
        fill_row(first - 1, &mut up);
    }
    for y in first..end {
        fill_row(y, &mut row);
        out.push(2);
        // The row above of row 0 is zeros: Up leaves it as it is.
        out.extend(row.iter().zip(&up).map(|(&v, &u)| v.wrapping_sub(u)));
        std::mem::swap(&mut row, &mut up);
    }
}

/// Raw deflate of one strip at zlib level 1 (zlib-rs's quick deflate, the
/// fastest of its levels on filtered heights by a third), ending on a
/// byte boundary (full flush) so the next strip's blocks can follow, or
/// with the final block. Writes into `out` (grown as needed, kept for
/// the next strip) and returns how many bytes it wrote.
fn deflate_strip(input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, EncodeError> {
    let config = DeflateConfig {
        level: 1,
        window_bits: -15,
        ..DeflateConfig::default()
    };
    let mut deflate = Deflate::new_with_config(config);
    let bound = zlib_rs::compress_bound(input.len()) + 64;
    if out.len() < bound {
        out.resize(bound, 0);
    }
    let flush = if last {
        DeflateFlush::Finish
    } else {
        DeflateFlush::FullFlush
    };
    let status = deflate
        .compress(input, out, flush)
        .map_err(|e| EncodeError::PngCompression(e.as_str()))?;
    let complete = deflate.total_in() as usize == input.len()
        && match status {
            Status::StreamEnd => last,
            _ => !last && (deflate.total_out() as usize) < out.len(),
        };
    if !complete {
        return Err(EncodeError::PngCompressionIncomplete);
    }
    Ok(deflate.total_out() as usize)
}

/// Appends one chunk: length, type, data, CRC of type and data.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    png.extend_from_slice(&crc.finalize().to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stage_rng;
    use rand::RngCore;

    fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = stage_rng(seed, 7);
        let mut bytes = vec![0u8; len];
        rng.fill_bytes(&mut bytes);
        // Smooth runs too, so the deflate has matches to find.
        for (i, b) in bytes.iter_mut().enumerate().skip(len / 2) {
            *b = (i / 97) as u8;
        }
        bytes
    }

    #[test]
    fn decodes_to_the_same_pixels_with_the_image_crate() {
        for (pixels, width, height, color) in [
            (PngPixels::Gray16, 1500, 900, image::ColorType::L16),
            (PngPixels::Gray8, 3, 1, image::ColorType::L8),
            (PngPixels::Rgb8, 777, 1000, image::ColorType::Rgb8),
            (PngPixels::Rgba8, 1, 5000, image::ColorType::Rgba8),
        ] {
            let raw = random_bytes(width * height * pixels.bytes(), width as u64);
            let png = encode_png_strips(&raw, width, height, pixels).expect("it encodes");
            let image = image::load_from_memory(&png).expect("the image crate reads it");
            assert_eq!(
                (image.width() as usize, image.height() as usize),
                (width, height)
            );
            assert_eq!(image.color(), color);
            let decoded: Vec<u8> = match pixels {
                // The image crate hands 16-bit samples back native-endian.
                PngPixels::Gray16 => image
                    .to_luma16()
                    .into_raw()
                    .iter()
                    .flat_map(|v| v.to_be_bytes())
                    .collect(),
                _ => image.as_bytes().to_vec(),
            };
            assert!(decoded == raw, "{pixels:?} {width}x{height}: pixels differ");
        }
    }

    #[test]
    fn several_strips_make_one_valid_stream() {
        // 3000 rows of 1000 16-bit samples: several strips.
        let raw = random_bytes(2000 * 3000, 11);
        assert!(raw.len() > 2 * STRIP_BYTES);
        let png = encode_png_strips(&raw, 1000, 3000, PngPixels::Gray16).expect("it encodes");
        let mut decoder = png::Decoder::new(std::io::Cursor::new(&png))
            .read_info()
            .expect("png reads the header");
        let mut buf = vec![0u8; decoder.output_buffer_size().expect("a size")];
        decoder
            .next_frame(&mut buf)
            .expect("the stream and its checksum are valid");
        assert!(buf == raw);
    }

    #[test]
    fn checksums_combine_as_one_pass() {
        let data = random_bytes(300_001, 3);
        for split in [0, 1, 65_521, 150_000, 300_001] {
            let (a, b) = data.split_at(split);
            let combined = adler32_combine(adler32(1, a), adler32(1, b), b.len() as u64);
            assert_eq!(combined, adler32(1, &data), "split {split}");
        }
    }

    #[test]
    fn bad_sizes_are_refused() {
        assert!(matches!(
            encode_png_strips(&[], 0, 4, PngPixels::Gray8),
            Err(EncodeError::PngSize {
                width: 0,
                height: 4
            })
        ));
        assert_eq!(
            encode_png_strips(&[0; 5], 2, 2, PngPixels::Gray8)
                .unwrap_err()
                .to_string(),
            "PNG data of 5 bytes does not fill 2x2 pixels of 1 bytes"
        );
    }
}
