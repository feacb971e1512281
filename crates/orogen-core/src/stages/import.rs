//! Import stage: start from an existing heightmap file. 16-bit files
//! (PNG, RAW16, 16-bit TIFF) hold samples that a height range maps to
//! world heights; float files (OpenEXR, 32-bit float TIFF) hold the
//! heights themselves, taken exactly.

use super::{StageContext, StageError, StageOp};
use crate::heightmap::Heightmap;
use crate::io::height_files::{ByteOrder, ImportError, ImportFormat};
use crate::io::import::read_heightmap_file;
use crate::io::sidecar::find_sidecar;
use crate::params::{ParamVisitor, Params, Span, visit_choice};
use crate::world_window::WorldWindow;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Import stage: a heightmap file, resized to the recipe's map. In a
/// recipe file only `path` is needed; the rest defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Import {
    /// File path; relative paths are resolved against the recipe's folder.
    pub path: String,
    /// File format; `Auto` looks at the extension and contents.
    pub format: ImportFormat,
    /// RAW16 dimensions; `None` = infer from a square file.
    pub raw_width: Option<u32>,
    /// RAW16 height in rows; `None` = infer from a square file.
    pub raw_height: Option<u32>,
    /// World heights of sample 0 and 65535, for 16-bit files only: float
    /// files hold true heights.
    pub heights: Span,
    /// Take the height range (16-bit files) and row order from an orogen
    /// `heightmap.json` beside the file when there is one.
    pub use_sidecar: bool,
}

impl Default for Import {
    fn default() -> Self {
        Self {
            path: String::new(),
            format: ImportFormat::Auto,
            raw_width: None,
            raw_height: None,
            heights: Span::new(0.0, 100.0),
            use_sidecar: true,
        }
    }
}

impl Params for Import {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.text(
            "path",
            &mut self.path,
            "Heightmap file: PNG 8/16-bit grayscale, .r16/.raw, 32-bit float OpenEXR (.exr) or TIFF (.tif, float or 16-bit). Relative to the recipe's folder.",
        );
        visit_choice(
            v,
            "format",
            &mut self.format,
            "File format; Auto looks at the file's signature, then its extension.",
        );
        v.optional_int(
            "raw_width",
            &mut self.raw_width,
            1..=16_385,
            "RAW16 width; leave empty for a square file.",
        );
        v.optional_int(
            "raw_height",
            &mut self.raw_height,
            1..=16_385,
            "RAW16 height; leave empty for a square file.",
        );
        v.span(
            "heights",
            &mut self.heights,
            -1_000_000.0..=1_000_000.0,
            "World heights that samples 0 and 65535 stand for (16-bit files only; float EXR/TIFF hold true heights).",
        );
        v.toggle(
            "use_sidecar",
            &mut self.use_sidecar,
            "Use the height range (16-bit files), the row order and a RAW file's byte order and size from an orogen heightmap.json beside the file.",
        );
    }
}

impl Import {
    /// The file's path, joined to the recipe's folder when it is relative.
    pub fn resolved_path(&self, ctx: &StageContext) -> PathBuf {
        let p = PathBuf::from(&self.path);
        match &ctx.base_dir {
            Some(base) if p.is_relative() => base.join(p),
            _ => p,
        }
    }

    /// Reads the file as a map at its own size, plus warnings.
    pub fn load(&self, ctx: &StageContext) -> Result<(Heightmap, Vec<String>), StageError> {
        if self.path.trim().is_empty() {
            return Err(ImportError::NoFile.into());
        }
        let path = self.resolved_path(ctx);
        let raw_size = match (self.raw_width, self.raw_height) {
            (Some(w), Some(h)) => Some((w as usize, h as usize)),
            (None, None) => None,
            _ => {
                return Err(ImportError::RawSizeHalfGiven.into());
            }
        };
        let sidecar = if self.use_sidecar {
            find_sidecar(&path)
        } else {
            None
        };
        // A RAW file says nothing of itself: an orogen sidecar beside it
        // gives its byte order and (when the bytes fit) its size.
        let (mut format, mut raw_size) = (self.format, raw_size);
        let listed = |sidecar: &crate::io::sidecar::Sidecar<_>| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            sidecar.files.iter().any(|f| Some(f) == name.as_ref())
        };
        if let Some(sidecar) = &sidecar
            && is_raw16(&path, format)
            && listed(sidecar)
        {
            if format == ImportFormat::Auto && sidecar.byte_order == ByteOrder::Be {
                format = ImportFormat::Raw16Be;
            }
            let sidecar_bytes = (sidecar.width * sidecar.height * 2) as u64;
            if raw_size.is_none()
                && std::fs::metadata(&path).is_ok_and(|m| m.len() == sidecar_bytes)
            {
                raw_size = Some((sidecar.width, sidecar.height));
            }
        }
        let imported = read_heightmap_file(&path, format, raw_size)?;
        let (width, height) = (imported.width, imported.height);
        let (mut range, mut flip) = (self.heights, false);
        if let Some(sidecar) = sidecar
            && sidecar.width == width
            && sidecar.height == height
        {
            range = Span::new(sidecar.min_height, sidecar.max_height);
            flip = sidecar.flip_y;
        }
        let mut data: Vec<f32> = match imported.heights {
            // Float files hold true heights; the range maps 16-bit samples.
            Some(heights) => heights,
            None => {
                let scale = (range.max - range.min) as f64 / 65535.0;
                imported
                    .values
                    .iter()
                    .map(|&v| (range.min as f64 + v as f64 * scale) as f32)
                    .collect()
            }
        };
        if flip && width > 0 {
            let rows: Vec<Vec<f32>> = data
                .chunks_exact(width)
                .rev()
                .map(<[f32]>::to_vec)
                .collect();
            data = rows.concat();
        }
        let map = Heightmap::from_vec(width, height, data).ok_or(ImportError::Empty)?;
        Ok((map, imported.warnings))
    }
}

/// Whether `format` reads `path` as RAW16 samples.
fn is_raw16(path: &std::path::Path, format: ImportFormat) -> bool {
    match format {
        ImportFormat::Raw16Le | ImportFormat::Raw16Be => true,
        ImportFormat::Auto => path.extension().is_some_and(|ext| {
            let ext = ext.to_string_lossy().to_ascii_lowercase();
            ext == "r16" || ext == "raw"
        }),
        _ => false,
    }
}

impl StageOp for Import {
    fn discards_input(&self) -> bool {
        true
    }

    fn apply(&self, map: &mut Heightmap, ctx: &mut StageContext) -> Result<(), StageError> {
        let (imported, _) = self.load(ctx)?;
        let window = ctx.window_of(map);
        *map = if window.is_whole() {
            imported.resized(map.width(), map.height())
        } else {
            resampled_window(&imported, &window)
        };
        Ok(())
    }
}

/// The cells of `window` of `source` resampled to the whole world's size:
/// [`Heightmap::resized`]'s sampling, at the window's world columns and
/// rows only, so the window equals that crop of the whole resampled map.
fn resampled_window(source: &Heightmap, window: &WorldWindow) -> Heightmap {
    let (world_w, world_h) = (window.world_width, window.world_height);
    if source.width() == world_w && source.height() == world_h {
        return window.crop_of(&WorldWindow::whole(world_w, world_h), source);
    }
    let step = |from: usize, to: usize| {
        if to > 1 {
            (from - 1) as f32 / (to - 1) as f32
        } else {
            0.0
        }
    };
    let (sx, sy) = (
        step(source.width(), world_w),
        step(source.height(), world_h),
    );
    let w = window.window;
    let mut data = Vec::with_capacity(w.width * w.height);
    for y in w.y..w.y + w.height {
        for x in w.x..w.x + w.width {
            data.push(source.sample_bilinear(x as f32 * sx, y as f32 * sy));
        }
    }
    Heightmap::from_vec(w.width, w.height, data).unwrap_or_else(|| Heightmap::new(1, 1))
}
