//! Painted masks: a grey image over the world's extent, painted with a
//! brush, saved beside the recipe as a 16-bit grey PNG and named in the
//! recipe by a hash of its pixels.
//!
//! The recipe holds only the file name and the hash, so comparing two
//! recipes (edit detection, the pipeline's cache) compares a short string,
//! never the pixels. The image has a fixed resolution over the world, not
//! the map's, and is sampled bilinearly at each map's cells: the mask
//! holds at every size.
//!
//! Images are found by hash in a process-wide registry first (where the
//! viewer puts a mask while it is painted, before it is on disk), then in
//! the recipe's folder, whose file must hash to the recipe's hash. The
//! registry is keyed by content, so any number of recipes share it
//! safely, and every run (a viewer job, an export, the coarse re-runs of
//! a stage's earlier stages) sees the same images without a handle being
//! passed down.

use crate::world_window::WorldWindow;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

/// Pixels along each side of a newly painted mask.
pub const PAINT_SIDE: u32 = 512;

/// Hex digits of a painted mask's hash (128 bits of BLAKE3).
pub const HASH_DIGITS: usize = 32;

/// A painted mask as the recipe names it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaintedMask {
    /// The PNG beside the recipe (relative to the recipe's folder); empty
    /// until the recipe is first saved.
    #[serde(default)]
    pub file: String,
    /// The hash of the image's pixels ([`PaintedImage::hash`]).
    pub hash: String,
}

/// Two painted masks are the same when their pixels are: where the file
/// sits does not change the terrain, so a save that names the file is no
/// edit.
impl PartialEq for PaintedMask {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash
    }
}

/// Why a painted mask could not be found, read or written.
#[derive(Debug, thiserror::Error)]
pub enum PaintedMaskError {
    /// Neither in memory nor on disk (a recipe copied without its masks).
    #[error("painted mask {hash}: not in memory and the recipe names no file for it")]
    NoFile {
        /// The hash the recipe names.
        hash: String,
    },
    /// The file could not be read or written.
    #[error("painted mask {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a PNG the mask can be read from.
    #[error("painted mask {}: {message}", path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        message: String,
    },
    /// The file's pixels are not the ones the recipe names.
    #[error(
        "painted mask {}: its pixels hash to {found}, the recipe expects {expected} (the file was changed or replaced)",
        path.display()
    )]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The recipe's hash.
        expected: String,
        /// The file's.
        found: String,
    },
    /// Pixels that do not fill a `width × height` image.
    #[error("painted mask: {len} pixels do not make a {width}x{height} image")]
    Size {
        /// Pixels west to east.
        width: u32,
        /// Pixels north to south.
        height: u32,
        /// Pixels given.
        len: usize,
    },
}

/// Two errors are equal when they say the same (the operating system's
/// errors have no equality of their own).
impl PartialEq for PaintedMaskError {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

/// A grey image over the world: 0 keeps the input, 65535 takes the
/// stage's output. Row-major, north row first; its corner pixels sit on
/// the world's corners.
#[derive(Clone, PartialEq, Eq)]
pub struct PaintedImage {
    width: u32,
    height: u32,
    pixels: Vec<u16>,
}

impl std::fmt::Debug for PaintedImage {
    // A summary: the pixels would fill a terminal.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaintedImage")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("hash", &self.hash())
            .finish_non_exhaustive()
    }
}

/// A round brush: its radius in world units, how much of it paints at
/// full strength, how strongly, and whether it paints or erases.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Brush {
    /// World units from the centre to where the brush stops.
    pub radius: f32,
    /// 1: full strength to the rim; 0: falling off from the centre.
    pub hardness: f32,
    /// The level the brush's centre paints up to (0..1): at 0.5 painting
    /// raises the mask to half weight and erasing lowers it to half.
    /// Painting over a stroke at the same strength changes nothing.
    pub strength: f32,
    /// Lower the mask instead of raising it.
    pub erase: bool,
}

impl PaintedImage {
    /// An image where nothing is painted: the stage acts nowhere.
    pub fn blank(width: u32, height: u32) -> Self {
        let (width, height) = (width.max(2), height.max(2));
        Self {
            width,
            height,
            pixels: vec![0; width as usize * height as usize],
        }
    }

    /// An image from its pixels (row-major).
    pub fn from_pixels(
        width: u32,
        height: u32,
        pixels: Vec<u16>,
    ) -> Result<Self, PaintedMaskError> {
        if width < 2 || height < 2 || pixels.len() != width as usize * height as usize {
            return Err(PaintedMaskError::Size {
                width,
                height,
                len: pixels.len(),
            });
        }
        Ok(Self {
            width,
            height,
            pixels,
        })
    }

    /// Pixels west to east.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Pixels north to south.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The pixels, row-major.
    pub fn pixels(&self) -> &[u16] {
        &self.pixels
    }

    /// The hash the recipe names this image by: BLAKE3 of its size and
    /// pixels (not of a PNG, whose bytes depend on the encoder), as
    /// [`HASH_DIGITS`] lowercase hex digits.
    pub fn hash(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"orogen painted mask\0");
        hasher.update(&self.width.to_le_bytes());
        hasher.update(&self.height.to_le_bytes());
        for chunk in self.pixels.chunks(4096) {
            let bytes: Vec<u8> = chunk.iter().flat_map(|p| p.to_le_bytes()).collect();
            hasher.update(&bytes);
        }
        hasher.finalize().to_hex()[..HASH_DIGITS].to_string()
    }

    /// The weight 0..1 at world fraction (`u`, `v`) (0 at the west or
    /// north edge, 1 at the east or south), bilinear between pixels.
    pub fn sample(&self, u: f32, v: f32) -> f32 {
        let x = (u.clamp(0.0, 1.0) * (self.width - 1) as f32).min((self.width - 1) as f32);
        let y = (v.clamp(0.0, 1.0) * (self.height - 1) as f32).min((self.height - 1) as f32);
        let (x0, y0) = (x.floor() as usize, y.floor() as usize);
        let x1 = (x0 + 1).min(self.width as usize - 1);
        let y1 = (y0 + 1).min(self.height as usize - 1);
        let (fx, fy) = (x - x0 as f32, y - y0 as f32);
        let w = self.width as usize;
        let at = |x: usize, y: usize| f32::from(self.pixels[y * w + x]) / 65535.0;
        let top = at(x0, y0) * (1.0 - fx) + at(x1, y0) * fx;
        let bottom = at(x0, y1) * (1.0 - fx) + at(x1, y1) * fx;
        (top * (1.0 - fy) + bottom * fy).clamp(0.0, 1.0)
    }

    /// The weights at a `width × height` map's cells, which span the
    /// world corner to corner as the image does.
    pub fn weights(&self, width: usize, height: usize) -> Vec<f32> {
        self.weights_at(&WorldWindow::whole(width, height))
    }

    /// The weights at the cells of `place`, a window of a world whose
    /// cells span it corner to corner as the image does.
    pub fn weights_at(&self, place: &WorldWindow) -> Vec<f32> {
        let fraction = |i: usize, n: usize| i as f32 / (n.max(2) - 1) as f32;
        let w = place.window;
        let mut out = Vec::with_capacity(w.width * w.height);
        for y in w.y..w.y + w.height {
            let v = fraction(y, place.world_height);
            for x in w.x..w.x + w.width {
                out.push(self.sample(fraction(x, place.world_width), v));
            }
        }
        out
    }

    /// One dab of `brush` centred at world point `at` of a world
    /// `extent` wide and deep. Painting raises pixels to the brush's
    /// strength there and erasing lowers them to one minus it, so going
    /// over a spot again changes nothing. Returns whether a pixel changed.
    pub fn dab(&mut self, at: [f32; 2], extent: [f32; 2], brush: &Brush) -> bool {
        if !(brush.radius > 0.0 && extent[0] > 0.0 && extent[1] > 0.0) {
            return false;
        }
        // Pixels per world unit along each axis.
        let sx = (self.width - 1) as f32 / extent[0];
        let sy = (self.height - 1) as f32 / extent[1];
        let (cx, cy) = (at[0] * sx, at[1] * sy);
        let (rx, ry) = (brush.radius * sx, brush.radius * sy);
        if cx + rx < 0.0 || cy + ry < 0.0 {
            return false;
        }
        let x_lo = (cx - rx).floor().max(0.0) as usize;
        let y_lo = (cy - ry).floor().max(0.0) as usize;
        let x_hi = ((cx + rx).ceil().min((self.width - 1) as f32)).max(0.0) as usize;
        let y_hi = ((cy + ry).ceil().min((self.height - 1) as f32)).max(0.0) as usize;
        let hard = brush.hardness.clamp(0.0, 1.0);
        // NaN paints nothing.
        let full = if brush.strength.is_nan() {
            0.0
        } else {
            brush.strength.clamp(0.0, 1.0)
        };
        let w = self.width as usize;
        let mut changed = false;
        for y in y_lo..=y_hi {
            for x in x_lo..=x_hi {
                let (dx, dy) = ((x as f32 - cx) / rx, (y as f32 - cy) / ry);
                let d = (dx * dx + dy * dy).sqrt();
                if d >= 1.0 {
                    continue;
                }
                let strength = falloff(d, hard) * full;
                let level = (strength * 65535.0).round() as u16;
                let pixel = &mut self.pixels[y * w + x];
                let new = if brush.erase {
                    (*pixel).min(65535 - level)
                } else {
                    (*pixel).max(level)
                };
                changed |= new != *pixel;
                *pixel = new;
            }
        }
        changed
    }

    /// Dabs along the segment `from`–`to` (world points), a quarter of the
    /// radius apart, so a quick drag leaves a line and not beads.
    pub fn stroke(
        &mut self,
        from: [f32; 2],
        to: [f32; 2],
        extent: [f32; 2],
        brush: &Brush,
    ) -> bool {
        let length = ((to[0] - from[0]).powi(2) + (to[1] - from[1]).powi(2)).sqrt();
        let spacing = (brush.radius * 0.25).max(1e-6);
        let steps = ((length / spacing).ceil() as usize).clamp(1, 10_000);
        let mut changed = false;
        for i in 0..=steps {
            let t = i as f32 / steps as f32;
            let at = [
                from[0] + (to[0] - from[0]) * t,
                from[1] + (to[1] - from[1]) * t,
            ];
            changed |= self.dab(at, extent, brush);
        }
        changed
    }

    /// The image as a 16-bit grey PNG.
    pub fn to_png(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        let encoder = image::codecs::png::PngEncoder::new(&mut bytes);
        // The encoder takes 16-bit samples in native byte order.
        let raw: Vec<u8> = self.pixels.iter().flat_map(|p| p.to_ne_bytes()).collect();
        // Writing to memory fails only on a size that `from_pixels` refuses.
        let _ = image::ImageEncoder::write_image(
            encoder,
            &raw,
            self.width,
            self.height,
            image::ExtendedColorType::L16,
        );
        bytes
    }

    /// An image from PNG bytes (any grey or colour PNG; colour is made grey,
    /// 8-bit is widened to 16) read from `path`.
    pub fn from_png(bytes: &[u8], path: &Path) -> Result<Self, PaintedMaskError> {
        let decoded = image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
            .map_err(|e| PaintedMaskError::Decode {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?
            .into_luma16();
        let (width, height) = decoded.dimensions();
        Self::from_pixels(width, height, decoded.into_raw()).map_err(|e| PaintedMaskError::Decode {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }
}

/// The brush's strength at `d` (0 centre, 1 rim): full out to `hardness`,
/// then a smooth step down to 0 at the rim.
fn falloff(d: f32, hardness: f32) -> f32 {
    if d <= hardness {
        return 1.0;
    }
    let t = ((d - hardness) / (1.0 - hardness).max(1e-6)).clamp(0.0, 1.0);
    1.0 - t * t * (3.0 - 2.0 * t)
}

/// Whether `hash` looks like a painted mask's hash.
pub fn is_hash(hash: &str) -> bool {
    hash.len() == HASH_DIGITS
        && hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The process's painted images by hash.
fn registry() -> &'static RwLock<HashMap<String, Arc<PaintedImage>>> {
    static REGISTRY: OnceLock<RwLock<HashMap<String, Arc<PaintedImage>>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// Keeps `image` in memory under its hash, which it returns: runs find it
/// there before looking on disk.
pub fn remember(image: PaintedImage) -> String {
    let hash = image.hash();
    remember_as(hash.clone(), Arc::new(image));
    hash
}

fn remember_as(hash: String, image: Arc<PaintedImage>) {
    // A poisoned lock still holds whole entries (each is inserted at once).
    let mut map = registry().write().unwrap_or_else(|e| e.into_inner());
    map.entry(hash).or_insert(image);
}

/// The image kept in memory under `hash`, if any.
pub fn recall(hash: &str) -> Option<Arc<PaintedImage>> {
    let map = registry().read().unwrap_or_else(|e| e.into_inner());
    map.get(hash).cloned()
}

/// Drops the images in memory whose hash `keep` does not hold (those no
/// recipe or undo step names any more); returns how many went.
pub fn forget_all_but(keep: &HashSet<String>) -> usize {
    let mut map = registry().write().unwrap_or_else(|e| e.into_inner());
    let before = map.len();
    map.retain(|hash, _| keep.contains(hash));
    before - map.len()
}

/// The image `mask` names: from memory, else from its file in `base_dir`
/// (which must hash to the mask's hash; it is then kept in memory).
pub fn resolve(
    mask: &PaintedMask,
    base_dir: Option<&Path>,
) -> Result<Arc<PaintedImage>, PaintedMaskError> {
    if let Some(image) = recall(&mask.hash) {
        return Ok(image);
    }
    if mask.file.trim().is_empty() {
        return Err(PaintedMaskError::NoFile {
            hash: mask.hash.clone(),
        });
    }
    let path = in_dir(&mask.file, base_dir);
    let image = read_checked(&path, &mask.hash)?;
    let image = Arc::new(image);
    remember_as(mask.hash.clone(), image.clone());
    Ok(image)
}

/// Reads the PNG at `path` and checks its pixels hash to `expected`.
pub fn read_checked(path: &Path, expected: &str) -> Result<PaintedImage, PaintedMaskError> {
    let bytes = std::fs::read(path).map_err(|source| PaintedMaskError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let image = PaintedImage::from_png(&bytes, path)?;
    let found = image.hash();
    if found != expected {
        return Err(PaintedMaskError::Mismatch {
            path: path.to_path_buf(),
            expected: expected.to_string(),
            found,
        });
    }
    Ok(image)
}

fn in_dir(file: &str, base_dir: Option<&Path>) -> PathBuf {
    match base_dir {
        Some(base) if Path::new(file).is_relative() => base.join(file),
        _ => PathBuf::from(file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brush(radius: f32, hardness: f32, erase: bool) -> Brush {
        Brush {
            radius,
            hardness,
            strength: 1.0,
            erase,
        }
    }

    #[test]
    fn a_dab_paints_a_disc_full_inside_its_hardness_and_none_outside() {
        // 101 pixels over 100 world units: one pixel per unit.
        let mut image = PaintedImage::blank(101, 101);
        assert!(image.dab([50.0, 50.0], [100.0, 100.0], &brush(10.0, 0.5, false)));
        let at = |image: &PaintedImage, x: usize, y: usize| image.pixels()[y * 101 + x];
        assert_eq!(at(&image, 50, 50), 65535);
        assert_eq!(at(&image, 54, 50), 65535, "inside the hard core");
        // Halfway through the falloff: the smooth step is at one half.
        assert_eq!(
            at(&image, 57, 50),
            (falloff(0.7, 0.5) * 65535.0).round() as u16
        );
        assert!(at(&image, 57, 50) > 10_000 && at(&image, 57, 50) < 55_535);
        assert_eq!(at(&image, 60, 50), 0, "on the rim");
        assert_eq!(at(&image, 70, 50), 0);
        assert_eq!(at(&image, 50, 39), 0);
        // Erasing the middle leaves a ring.
        image.dab([50.0, 50.0], [100.0, 100.0], &brush(3.0, 1.0, true));
        assert_eq!(at(&image, 50, 50), 0);
        assert_eq!(at(&image, 54, 50), 65535);
        // Painting the same dab again changes nothing.
        let before = image.clone();
        assert!(!image.dab([50.0, 50.0], [100.0, 100.0], &brush(3.0, 1.0, true)));
        assert_eq!(image, before);
    }

    #[test]
    fn strength_caps_what_a_dab_paints_and_erases() {
        let at = |image: &PaintedImage| image.pixels()[50 * 101 + 50];
        let mut image = PaintedImage::blank(101, 101);
        let half = Brush {
            strength: 0.5,
            ..brush(10.0, 1.0, false)
        };
        assert!(image.dab([50.0, 50.0], [100.0, 100.0], &half));
        assert_eq!(at(&image), 32768, "half way up");
        assert!(
            !image.dab([50.0, 50.0], [100.0, 100.0], &half),
            "no build-up"
        );
        image.dab([50.0, 50.0], [100.0, 100.0], &brush(10.0, 1.0, false));
        assert_eq!(at(&image), 65535);
        image.dab(
            [50.0, 50.0],
            [100.0, 100.0],
            &Brush {
                erase: true,
                ..half
            },
        );
        assert_eq!(at(&image), 65535 - 32768, "erased half way down");
        let none = Brush {
            strength: f32::NAN,
            ..brush(10.0, 1.0, false)
        };
        let mut blank = PaintedImage::blank(101, 101);
        assert!(
            !blank.dab([50.0, 50.0], [100.0, 100.0], &none),
            "NaN paints nothing"
        );
    }

    #[test]
    fn the_hash_follows_the_pixels_and_a_png_round_trip_keeps_them() {
        let mut image = PaintedImage::blank(64, 32);
        let blank_hash = image.hash();
        assert!(is_hash(&blank_hash), "{blank_hash}");
        image.stroke(
            [10.0, 10.0],
            [90.0, 40.0],
            [100.0, 50.0],
            &brush(6.0, 0.3, false),
        );
        assert_ne!(image.hash(), blank_hash);
        let back = PaintedImage::from_png(&image.to_png(), Path::new("m.png")).unwrap();
        assert_eq!(back, image);
        assert_eq!(back.hash(), image.hash());
        // A stroke leaves no gap along its line.
        for x in 10..=58 {
            let u = x as f32 / 100.0;
            let v = (10.0 + (x as f32 - 10.0) * 30.0 / 80.0) / 50.0;
            assert!(image.sample(u, v) > 0.99, "gap at x={x}");
        }
    }

    #[test]
    fn sampling_is_bilinear_between_corner_pixels() {
        let image = PaintedImage::from_pixels(2, 2, vec![0, 65535, 65535, 65535]).unwrap();
        assert_eq!(image.sample(0.0, 0.0), 0.0);
        assert_eq!(image.sample(1.0, 0.0), 1.0);
        assert!((image.sample(0.5, 0.0) - 0.5).abs() < 1e-6);
        assert!((image.sample(0.5, 0.5) - 0.75).abs() < 1e-6);
        assert_eq!(image.weights(3, 1), vec![0.0, 0.5, 1.0]);
        assert!(PaintedImage::from_pixels(2, 2, vec![0; 3]).is_err());
    }
}
