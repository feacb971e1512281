//! The flow's second half: every requested file built in memory, then
//! written together into one folder, each atomically.

use super::leftovers::{earlier_export_files, left_from_earlier_export};
use super::map_layers::MapLayerPlan;
use crate::heightmap::Heightmap;
use crate::hugepages::PageAligned;
use crate::io::bundle::{
    ExportBundle, SharedBytes, WritingFile, prepare_dir, start_writing, start_writing_shared,
};
use crate::io::engines::{Engine, ImportSettings};
use crate::io::errors::{EncodeError, ExportError, OptionError};
use crate::io::float_files::{encode_exr, encode_tiff_f32};
use crate::io::height_files::{
    ByteOrder, ExportOptions, HeightFormat, HeightFormats, encode_png16, encode_png16_page_aligned,
    encode_preview, encode_r16, export_range, quantize_page_aligned,
};
use crate::io::mesh_export::{MeshPlan, MeshTexture, mesh_files};
use crate::io::sidecar::{HeightFileInfo, Sidecar, SidecarWindow};
use crate::io::tiled_export::{MapTileGrid, MapTileGridInfo, add_map_tile_files};
use crate::maps::ErosionRecord;
use crate::maps::{DerivedMap, MapSettings};
use crate::params::Span;
use crate::recipe::Recipe;
use crate::splat::{
    RuleMaps, TileImages, add_texture_files, render_splat_with_maps, rule_map_kinds,
};
use crate::world_window::WorldWindow;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What to write: the chosen height files (by default `heightmap.r16` and
/// `heightmap.png`) and the optional extras, besides the always-written
/// `heightmap.preview.png`, `recipe.ron` and `heightmap.json`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExportRequest {
    /// Byte order, row order and height range of the height files.
    pub options: ExportOptions,
    /// Which whole-map height files to write (`--formats`); tiles stay
    /// RAW16 and 16-bit PNG.
    pub formats: HeightFormats,
    /// `texture.png`, `splat.png` and `splat_<i>.png` at this size in
    /// texels (width, height).
    pub texture: Option<(usize, usize)>,
    /// The map also cut into border-sharing tiles.
    pub tiles: Option<MapTileGrid>,
    /// The terrain also as a mesh (textured when `texture` is set).
    pub mesh: Option<MeshPlan>,
    /// The engine the export is made for (see [`ExportRequest::for_engine`]):
    /// its import-dialog numbers go into the sidecar and the report.
    pub engine: Option<Engine>,
    /// Derived maps written beside the heights (`--maps`), each a grey
    /// PNG of the map's size; with an `engine`, also as its terrain layers
    /// ([`map_layers`](super::map_layers)).
    pub maps: Vec<DerivedMap>,
    /// What the derived maps are computed with (sea level, rivers).
    pub map_settings: MapSettings,
    /// What the erosion stages changed in the run that made the map
    /// ([`run_once_recording`](crate::pipeline::run_once_recording)): the
    /// source of `wear` and `deposition`, which are refused without it.
    pub erosion: Option<Arc<ErosionRecord>>,
    /// The map is this window of its world (`generate --window`), not the
    /// whole world: the sidecar says where it lies.
    pub window: Option<WorldWindow>,
}

impl ExportRequest {
    /// This request made into what `engine`'s terrain importer takes, for
    /// a `width x height` map: little-endian 16-bit files with the
    /// engine's row order, its files (Unity: RAW16 and the splat maps at
    /// the alphamap size, `width − 1`; Unreal: RAW16, 16-bit PNG and one
    /// 8-bit weight map per layer at the map size; Godot: float EXR and
    /// RAW16), and tiles named for its batch importer. A size the engine
    /// does not take is refused, naming the nearest it does.
    pub fn for_engine(
        self,
        engine: Engine,
        width: usize,
        height: usize,
    ) -> Result<Self, OptionError> {
        engine.check_size(width as u32, height as u32)?;
        let formats: &[HeightFormat] = match engine {
            Engine::Unity => &[HeightFormat::R16],
            Engine::Unreal => &[HeightFormat::R16, HeightFormat::Png],
            Engine::Godot => &[HeightFormat::R16, HeightFormat::Exr],
        };
        let texture = self.texture.or(match engine {
            Engine::Unity => Some((width - 1, height - 1)),
            Engine::Unreal => Some((width, height)),
            Engine::Godot => None,
        });
        let tiles = self.tiles.map(|grid| grid.for_engine(engine)).transpose()?;
        Ok(Self {
            options: ExportOptions {
                byte_order: ByteOrder::Le,
                flip_y: engine.rows_south_first(),
                ..self.options
            },
            formats: HeightFormats::of(formats),
            texture,
            tiles,
            engine: Some(engine),
            ..self
        })
    }
}

/// What an export wrote, for the user.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportReport {
    /// Every file written, in the folder.
    pub written: Vec<PathBuf>,
    /// The folder written into.
    pub dir: PathBuf,
    /// Map size in cells.
    pub width: usize,
    /// Map size in cells.
    pub height: usize,
    /// World heights stored as 0 and 65535.
    pub range: Span,
    /// Problems that did not stop the export (a tile image that could not
    /// be read and was replaced by its flat colour, say).
    pub warnings: Vec<String>,
    /// Milliseconds of each part, in this order: `heightmap` (quantising
    /// and encoding the height files), then `splat`, `maps`, `tiles` and `mesh`
    /// when they ran, and `write` (writing and syncing every file).
    pub timings: Vec<(&'static str, f64)>,
    /// What to type into the engine's import dialog, for an engine export.
    pub engine_import: Option<ImportSettings>,
}

impl ExportReport {
    /// The one line both the command line and the viewer show.
    pub fn summary(&self) -> String {
        format!(
            "wrote {} files to {} ({}x{}, heights {:.3}..{:.3})",
            self.written.len(),
            self.dir.display(),
            self.width,
            self.height,
            self.range.min,
            self.range.max
        )
    }
}

/// Builds the chosen height files (r16, 16-bit PNG, float EXR, float
/// TIFF, in that order), the 8-bit preview and `recipe.ron`; returns them
/// with the height range the 16-bit files store. The sidecar comes last,
/// once every other file is known.
pub fn heightmap_bundle(
    map: &Heightmap,
    recipe: &Recipe,
    opts: &ExportOptions,
    formats: HeightFormats,
) -> Result<(ExportBundle, Span), ExportError> {
    heightmap_bundle_into(map, recipe, opts, formats, None)
}

/// [`heightmap_bundle`], and with `dir` each height file starts being
/// written into that folder as soon as it is encoded, while the others
/// are still encoding (the files replace their names only at
/// [`ExportBundle::write_to`]).
pub fn heightmap_bundle_into(
    map: &Heightmap,
    recipe: &Recipe,
    opts: &ExportOptions,
    formats: HeightFormats,
    dir: Option<&Path>,
) -> Result<(ExportBundle, Span), ExportError> {
    let range = export_range(map, opts);
    let samples = Arc::new(Samples(quantize_page_aligned(map, range)));
    let values: &[u16] = &samples.0;
    let w = map.width();
    // RAW16 in the machine's own order is the samples' memory: written
    // from it directly, without a copy.
    let r16_is_memory =
        cfg!(target_endian = "little") && opts.byte_order == ByteOrder::Le && !opts.flip_y;
    let created_dir = match dir {
        Some(dir) => prepare_dir(dir)?,
        None => false,
    };
    let finish = |name: &str, bytes: Vec<u8>| match dir {
        Some(dir) => Encoded::Writing(start_writing(dir, name, bytes)),
        None => Encoded::Bytes(bytes),
    };
    // The files are independent: each is encoded on a worker of its own
    // (a PNG's strips on all of them), in a fixed order.
    let chosen: Vec<HeightFormat> = formats.iter().collect();
    let (encoded, preview) = rayon::join(
        || {
            chosen
                .par_iter()
                .map(|&format| {
                    if let (HeightFormat::R16, true, Some(dir)) = (format, r16_is_memory, dir) {
                        let shared: SharedBytes = samples.clone();
                        return Ok(Encoded::Writing(start_writing_shared(
                            dir,
                            format.file_name(),
                            shared,
                        )));
                    }
                    if let (HeightFormat::Png, Some(dir)) = (format, dir) {
                        // Page-aligned, so the file is written directly.
                        let png: SharedBytes =
                            Arc::new(encode_png16_page_aligned(values, w, opts.flip_y)?);
                        return Ok(Encoded::Writing(start_writing_shared(
                            dir,
                            format.file_name(),
                            png,
                        )));
                    }
                    let bytes = match format {
                        HeightFormat::R16 => encode_r16(values, w, opts.byte_order, opts.flip_y),
                        HeightFormat::Png => encode_png16(values, w, opts.flip_y)?,
                        HeightFormat::Exr => encode_exr(map.data(), w, opts.flip_y)?,
                        HeightFormat::Tif => encode_tiff_f32(map.data(), w, opts.flip_y)?,
                    };
                    Ok(finish(format.file_name(), bytes))
                })
                .collect::<Vec<Result<Encoded, EncodeError>>>()
        },
        || encode_preview(values, w).map(|bytes| finish(PREVIEW, bytes)),
    );
    // Every file goes into the bundle before any error is returned, so a
    // file already being written is cleaned up with the bundle.
    let mut bundle = match dir {
        Some(dir) => ExportBundle::writing_into(dir, created_dir),
        None => ExportBundle::default(),
    };
    let mut first_error = None;
    let names = chosen.iter().map(|f| f.file_name()).chain([PREVIEW]);
    for (name, file) in names.zip(encoded.into_iter().chain([preview])) {
        match file {
            Ok(Encoded::Bytes(bytes)) => bundle.add(name, bytes),
            Ok(Encoded::Writing(file)) => bundle.add_writing(file),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e.into());
    }
    bundle.add("recipe.ron", recipe.to_ron()?.into_bytes());
    Ok((bundle, range))
}

/// Quantised samples, whose memory is their little-endian RAW16 bytes on
/// a little-endian machine, starting on a page (for a direct write).
struct Samples(PageAligned<u16>);

impl AsRef<[u8]> for Samples {
    fn as_ref(&self) -> &[u8] {
        bytemuck::cast_slice(&self.0)
    }
}

/// The quick-look preview's file name.
const PREVIEW: &str = "heightmap.preview.png";

/// An encoded height file: its bytes, or already being written.
enum Encoded {
    Bytes(Vec<u8>),
    Writing(WritingFile),
}

/// A fixed height range narrower than the map flattens what lies
/// outside it to 0 or 65535 in the 16-bit files: say how much.
/// `map_range` is the map's own `(min, max)`.
pub fn clipping_warning(map: &Heightmap, map_range: (f32, f32), fixed: Span) -> Option<String> {
    let (low, high) = map_range;
    if low >= fixed.min && high <= fixed.max {
        return None;
    }
    let clipped = map
        .data()
        .iter()
        .filter(|&&v| v < fixed.min || v > fixed.max)
        .count();
    let share = clipped as f64 / map.data().len().max(1) as f64 * 100.0;
    let amount = if share < 0.1 {
        format!("{clipped} cells (under 0.1%)")
    } else {
        format!("{share:.1}% of the cells")
    };
    Some(format!(
        "height range {}..{} clips {amount} (the map spans {low:.3}..{high:.3}); \
         16-bit height files hold them at the range's ends, float files keep them",
        fixed.min, fixed.max
    ))
}

/// Exports `map`, generated from `recipe`, into `dir` (created if
/// missing). Tile images resolve against `base_dir`. Nothing is written
/// unless every file could be built and written: the files replace their
/// names only once all of them are on disk, the sidecar last.
pub fn export_map(
    map: &Heightmap,
    recipe: &Recipe,
    base_dir: Option<&Path>,
    request: &ExportRequest,
    dir: &Path,
) -> Result<ExportReport, ExportError> {
    // Before any file is started: a map without its source writes nothing.
    super::map_files::check_erosion_record(map, &request.maps, request.erosion.as_deref())?;
    // The exported recipe names its painted masks' copies beside it, so
    // the folder runs again on its own.
    let (recipe_copy, mask_files) =
        crate::recipe::painted_files::copies_beside(recipe, Path::new("recipe.ron"), base_dir)?;
    let opts = &request.options;
    let mut timings = Vec::new();
    let start = Instant::now();
    let (mut bundle, range) =
        heightmap_bundle_into(map, &recipe_copy, opts, request.formats, Some(dir))?;
    for (name, bytes) in mask_files {
        bundle.add(name, bytes);
    }
    timings.push(("heightmap", millis_since(start)));
    // Without a fixed range the export's range is the map's: no second scan.
    let (low, high) = match opts.height_range {
        None => (range.min, range.max),
        Some(_) => map.range(),
    };
    let mut warnings: Vec<String> = opts
        .height_range
        .and_then(|fixed| clipping_warning(map, (low, high), fixed))
        .into_iter()
        .collect();
    if low == high {
        warnings.push(format!(
            "the map is flat (every height is {low}): no stage shaped it; check the recipe's stages"
        ));
    }
    let mut tiles_json = None;
    if let Some((width, height)) = request.texture {
        let start = Instant::now();
        let (images, image_warnings) = TileImages::load(&recipe.tiles, base_dir);
        warnings.extend(image_warnings);
        // The tiles' map rules read maps of the final map; wear and
        // deposition come from the run's erosion record.
        let kinds = rule_map_kinds(recipe.tiles.tiles.iter().map(|t| &t.map));
        let rule_maps =
            RuleMaps::compute(&kinds, map, recipe.cell_size(), request.erosion.as_deref());
        let splat = render_splat_with_maps(
            map,
            recipe.cell_size(),
            &recipe.tiles,
            &images,
            width,
            height,
            &rule_maps,
        )?;
        add_texture_files(&mut bundle, &splat)?;
        timings.push(("splat", millis_since(start)));
        let stats = map.stats();
        let effective = recipe.tiles.effective(stats.min, stats.max);
        tiles_json = Some(serde_json::to_value(&effective.tiles).map_err(EncodeError::Json)?);
    }
    let mut maps_json = None;
    if !request.maps.is_empty() {
        let start = Instant::now();
        let erosion = request.erosion.as_deref();
        // An engine's layers; Unity's alphamaps share the splat textures'
        // size (the alphamap resolution), one texel narrower than the map.
        let layers = request.engine.map(|engine| MapLayerPlan {
            engine,
            alpha_size: request.texture.unwrap_or((
                map.width().saturating_sub(1),
                map.height().saturating_sub(1),
            )),
        });
        maps_json = Some(super::map_files::add_map_files(
            &mut bundle,
            map,
            super::map_files::MapGrid {
                cell_size: recipe.cell_size(),
                flip_y: opts.flip_y,
            },
            &super::map_files::MapFiles {
                maps: &request.maps,
                settings: &request.map_settings,
                erosion,
                layers: layers.as_ref(),
                tiles: request.tiles.as_ref(),
            },
        )?);
        if erosion.is_some_and(|r| r.stages().is_empty())
            && request.maps.iter().any(|m| m.needs_erosion_record())
        {
            warnings.push(
                "the recipe has no erosion stage: wear.png and deposition.png are empty".into(),
            );
        }
        timings.push(("maps", millis_since(start)));
    }
    let mut tiles_grid = None;
    if let Some(grid) = &request.tiles {
        let start = Instant::now();
        tiles_grid = Some(add_map_tile_files(&mut bundle, map, range, opts, grid)?);
        timings.push(("tiles", millis_since(start)));
    }
    if let Some(plan) = &request.mesh {
        let start = Instant::now();
        add_mesh(&mut bundle, map, recipe.cell_size(), plan)?;
        timings.push(("mesh", millis_since(start)));
    }
    // Unity makes one terrain of each tile: its numbers are a tile's.
    let (terrain_width, terrain_height) = match (request.engine, &request.tiles) {
        (Some(Engine::Unity), Some(grid)) if grid.n > 1 => (grid.tile_width, grid.tile_height),
        _ => (map.width(), map.height()),
    };
    let engine_import = request.engine.map(|engine| {
        engine.import_settings(terrain_width, terrain_height, recipe.cell_size(), range)
    });
    let extras = SidecarExtras {
        tiles: tiles_json,
        maps: maps_json,
        tiles_grid,
        engine_import: engine_import.clone(),
        window: request.window.map(|w| SidecarWindow {
            x: w.window.x,
            y: w.window.y,
            width: w.window.width,
            height: w.window.height,
            world_width: w.world_width,
            world_height: w.world_height,
        }),
    };
    add_sidecar(&mut bundle, map, recipe, opts, range, extras)?;
    let earlier = earlier_export_files(dir);
    let start = Instant::now();
    let written = bundle.write_to(dir)?;
    timings.push(("write", millis_since(start)));
    warnings.extend(left_from_earlier_export(dir, &earlier, &bundle.names()));
    Ok(ExportReport {
        written,
        dir: dir.to_path_buf(),
        width: map.width(),
        height: map.height(),
        range,
        warnings,
        timings,
        engine_import,
    })
}

/// What a sidecar says besides the map itself, when the export has it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SidecarExtras {
    /// The effective bands of the splat texture.
    pub tiles: Option<serde_json::Value>,
    /// The derived maps' files and what their pixels mean.
    pub maps: Option<serde_json::Value>,
    /// The tiled export's grid.
    pub tiles_grid: Option<MapTileGridInfo>,
    /// The engine import dialog's numbers.
    pub engine_import: Option<ImportSettings>,
    /// Where a window export lies in its world.
    pub window: Option<SidecarWindow>,
}

/// Appends `heightmap.json` describing everything in the bundle: the
/// height range and cell size to re-import at true scale, each whole-map
/// height file with its units, and the [extras](SidecarExtras): the
/// effective texture bands, the tiled export's grid and the engine
/// import numbers, when there are.
pub fn add_sidecar(
    bundle: &mut ExportBundle,
    map: &Heightmap,
    recipe: &Recipe,
    opts: &ExportOptions,
    range: Span,
    extras: SidecarExtras,
) -> Result<(), EncodeError> {
    let mut files = bundle.names();
    files.push("heightmap.json".into());
    let height_files = HeightFormat::ALL
        .into_iter()
        .filter(|f| bundle.get(f.file_name()).is_some())
        .map(|f| HeightFileInfo {
            file: f.file_name().into(),
            format: f.name().into(),
            units: f.units().into(),
        })
        .collect();
    let sidecar = Sidecar {
        generator: format!("orogen {}", env!("CARGO_PKG_VERSION")),
        width: map.width(),
        height: map.height(),
        min_height: range.min,
        max_height: range.max,
        byte_order: opts.byte_order,
        flip_y: opts.flip_y,
        cell_size: recipe.cell_size(),
        files,
        height_files,
        tiles: extras.tiles,
        maps: extras.maps,
        tiles_grid: extras.tiles_grid,
        engine_import: extras.engine_import,
        window: extras.window,
        recipe,
    };
    let json = serde_json::to_string_pretty(&sidecar).map_err(EncodeError::Json)?;
    bundle.add("heightmap.json", json.into_bytes());
    Ok(())
}

/// Adds the mesh, textured with texture.png when the export made one.
fn add_mesh(
    bundle: &mut ExportBundle,
    map: &Heightmap,
    cell_size: f32,
    plan: &MeshPlan,
) -> Result<(), EncodeError> {
    const TEXTURE: &str = "texture.png";
    // The GLB embeds the PNG; the OBJ's material refers to the file.
    let texture = bundle.get(TEXTURE).map(|png| MeshTexture {
        png,
        file_name: TEXTURE,
    });
    for (name, bytes) in mesh_files(map, cell_size, plan, texture)? {
        bundle.add(name, bytes);
    }
    Ok(())
}

fn millis_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::mesh_export::MeshFormat;

    fn small_map() -> Heightmap {
        let data = (0..9 * 9).map(|i| (i % 7) as f32 * 3.0 - 4.0).collect();
        Heightmap::from_vec(9, 9, data).expect("81 values make a 9x9 map")
    }

    #[test]
    fn writes_what_was_asked_and_reports_it() {
        let dir = tempfile::tempdir().expect("a temp folder");
        let out = dir.path().join("export");
        let request = ExportRequest {
            texture: Some((16, 16)),
            tiles: Some(crate::io::tiled_export::map_tile_grid(9, 9, 2).expect("9 splits in 2")),
            mesh: Some(MeshPlan {
                format: MeshFormat::Obj,
                max_side: 9,
            }),
            ..ExportRequest::default()
        };
        let report = export_map(&small_map(), &Recipe::default(), None, &request, &out)
            .expect("the export succeeds");
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .expect("the folder exists")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        assert_eq!(names.len(), report.written.len());
        for name in [
            "heightmap.r16",
            "texture.png",
            "heightmap_x1_y1.r16",
            "terrain.obj",
            "terrain.mtl",
            "heightmap.json",
        ] {
            assert!(
                names.iter().any(|n| n == name),
                "{name} missing from {names:?}"
            );
        }
        let labels: Vec<&str> = report.timings.iter().map(|(l, _)| *l).collect();
        assert_eq!(labels, ["heightmap", "splat", "tiles", "mesh", "write"]);
        assert_eq!((report.range.min, report.range.max), (-4.0, 14.0));
        assert_eq!(
            report.summary(),
            format!(
                "wrote {} files to {} (9x9, heights -4.000..14.000)",
                names.len(),
                out.display()
            )
        );
    }

    #[test]
    fn an_engine_export_writes_what_its_importer_reads_and_the_dialog_numbers() {
        let dir = tempfile::tempdir().expect("a temp folder");
        let data = (0..65 * 65).map(|i| (i % 11) as f32 * 2.0 - 5.0).collect();
        let map = Heightmap::from_vec(65, 65, data).expect("65x65 values");
        let recipe = Recipe {
            extent: crate::recipe::Extent {
                x: 1024.0,
                y: 1024.0,
            },
            ..Recipe::default()
        };
        let tiles = crate::io::tiled_export::map_tile_grid(65, 65, 2).expect("65 splits in 2");
        let request = ExportRequest {
            tiles: Some(tiles),
            ..ExportRequest::default()
        }
        .for_engine(Engine::Unity, 65, 65)
        .expect("65 and its 33-cell tiles are Unity sizes");
        assert!(request.options.flip_y);
        assert_eq!(request.texture, Some((64, 64)));
        let out = dir.path().join("unity");
        let report = export_map(&map, &recipe, None, &request, &out).expect("the export succeeds");
        let names: Vec<String> = report
            .written
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        for name in [
            "heightmap.r16",
            "splat_0.png",
            "heightmap_0_1.r16",
            "heightmap_1_0.png",
        ] {
            assert!(
                names.iter().any(|n| n == name),
                "{name} missing from {names:?}"
            );
        }
        assert!(!names.iter().any(|n| n == "heightmap.png"), "{names:?}");
        let json: serde_json::Value = serde_json::from_slice(
            &std::fs::read(out.join("heightmap.json")).expect("the sidecar exists"),
        )
        .expect("the sidecar parses");
        assert_eq!(json["engine_import"]["engine"], "unity");
        assert_eq!(json["engine_import"]["terrain_height"], 20.0);
        // One Unity terrain per tile: a 33-cell tile of 2 m cells is 64 m wide.
        assert_eq!(json["engine_import"]["terrain_width"], 64.0);
        assert_eq!(json["engine_import"]["heightmap_resolution"], 33);
        assert!(report.engine_import.is_some());
        let err = ExportRequest::default()
            .for_engine(Engine::Unreal, 33, 33)
            .unwrap_err();
        assert!(
            matches!(
                err,
                OptionError::EngineSize {
                    engine: Engine::Unreal,
                    side: 33,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("nearest: 127"), "{err}");
    }
}
