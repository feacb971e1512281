//! Soak test of the viewer's regeneration, headless: thousands of seeded
//! random recipe and tile edits (extreme but valid values, stage
//! add / remove / reorder / enable, band edits, size changes, undo and
//! redo, stage-by-stage view changes) hit a `MinimalPlugins` app with the
//! real regeneration, upload and history plugins. Checks that
//!
//! - it never panics (a panic in a system fails the test; one inside a
//!   generation job would surface as a "generation failed" error),
//! - it keeps regenerating: whenever the edits pause, the shown map,
//!   mesh and texture are exactly those of the latest recipe and stage
//!   (or the latest recipe's one-line error),
//! - memory stays bounded: one mesh, one image and one material asset
//!   however many generations, the undo stack at its limit, and resident
//!   memory after warm-up within a fixed allowance.
//!
//! Deterministic: the edits come from a fixed seed (`OROGEN_SOAK_SEED`
//! overrides it, `OROGEN_SOAK_EDITS` the count). About 15 s in the dev
//! profile on an idle 2-core machine; on a loaded one it stops after a
//! 45 s budget (never before 1000 edits). It is the only test in this
//! binary so the resident-memory figure is its own.

use bevy::prelude::*;
use orogen::viewer::camera::TerrainBounds;
use orogen::viewer::document::EditedRecipe;
use orogen::viewer::document::history::{
    History, HistoryAction, HistoryPlugin, apply_history_action,
};
use orogen::viewer::handoff::{Generated, PendingUpload};
use orogen::viewer::regen::{RegenJob, RegenerationPlugin, check_recipe};
use orogen::viewer::render::cpu_terrain::TerrainUploadPlugin;
use orogen::viewer::schedule::order_viewer_systems;
use orogen::viewer::settings::{DisplayPath, DisplayedStage};
use orogen_core::params::{ParamVisitor, Params, Span, clamp_all};
use orogen_core::pipeline::{Pipeline, RunHooks};
use orogen_core::splat::Tile;
use orogen_core::{Heightmap, Recipe, Stage, StageEntry};
use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

const DEFAULT_EDITS: usize = 6000;
/// Edits made even when the time budget runs out first.
const MIN_EDITS: usize = 1000;
const TIME_BUDGET: Duration = Duration::from_secs(45);
/// Edits between two checks that the shown terrain is the latest one.
const CHECK_EVERY: usize = 20;
const MAX_STAGES: usize = 10;
/// Resident memory may grow at most this much after warm-up.
const RSS_ALLOWANCE_MIB: u64 = 96;
/// Longest wait for the jobs to settle at a check.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(30);

/// SplitMix64: small, seeded, good enough to pick edits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    fn in_u32(&mut self, range: RangeInclusive<u32>) -> u32 {
        let (lo, hi) = (*range.start(), *range.end());
        if hi <= lo {
            return lo;
        }
        lo + (self.next() % (u64::from(hi - lo) + 1)) as u32
    }

    /// A float for a parameter with `range`: often an end of the range or
    /// something far outside it (NaN, ±inf, 1e39 as f32, f32::MAX), which
    /// `clamp_all` must bring back into range.
    fn float_for(&mut self, range: &RangeInclusive<f32>, current: f32) -> f32 {
        let (lo, hi) = (*range.start(), *range.end());
        match self.below(12) {
            0 => lo,
            1 => hi,
            2 => f32::NAN,
            3 => f32::INFINITY,
            4 => f32::NEG_INFINITY,
            5 => 1e39_f64 as f32,
            6 => f32::MAX,
            7 => -f32::MAX,
            8 => current * 1000.0,
            9 => -0.0,
            _ => lo + (hi - lo) * self.unit(),
        }
    }
}

/// Caps on work-count parameters so the soak stays fast (the values are
/// still valid; extreme ranges are exercised on everything else).
fn work_cap(name: &str) -> u32 {
    match name {
        "count" => 400,
        "droplets" => 2_000,
        "iterations" => 150,
        "max_lifetime" => 64,
        "brush_radius" => 8,
        _ => u32::MAX,
    }
}

/// Sets every parameter it visits to a random (often extreme or
/// invalid) value; `clamp_all` afterwards makes it valid.
struct Randomizer<'a> {
    rng: &'a mut Rng,
    /// Probability that a given parameter is changed.
    p: f64,
}

impl Randomizer<'_> {
    fn int_value(&mut self, name: &str, range: &RangeInclusive<u32>) -> u32 {
        let hi = (*range.end()).min(work_cap(name)).max(*range.start());
        match self.rng.below(4) {
            0 => *range.start(),
            1 => hi,
            _ => self.rng.in_u32(*range.start()..=hi),
        }
    }

    fn span_value(&mut self, range: &RangeInclusive<f32>, current: Span) -> Span {
        Span::new(
            self.rng.float_for(range, current.min),
            self.rng.float_for(range, current.max),
        )
    }
}

impl ParamVisitor for Randomizer<'_> {
    fn float(&mut self, _: &str, value: &mut f32, range: RangeInclusive<f32>, _: &str) {
        if self.rng.chance(self.p) {
            *value = self.rng.float_for(&range, *value);
        }
    }

    fn int(&mut self, name: &str, value: &mut u32, range: RangeInclusive<u32>, _: &str) {
        if self.rng.chance(self.p) {
            *value = self.int_value(name, &range);
        }
    }

    fn span(&mut self, _: &str, value: &mut Span, range: RangeInclusive<f32>, _: &str) {
        if self.rng.chance(self.p) {
            *value = self.span_value(&range, *value);
        }
    }

    fn toggle(&mut self, _: &str, value: &mut bool, _: &str) {
        if self.rng.chance(self.p) {
            *value = self.rng.chance(0.5);
        }
    }

    fn choice(&mut self, _: &str, index: &mut usize, labels: &[&'static str], _: &str) {
        if self.rng.chance(self.p) {
            // One past the end now and then: must be ignored, not panic.
            *index = self.rng.below(labels.len() + 1);
        }
    }

    fn optional_span(
        &mut self,
        _: &str,
        value: &mut Option<Span>,
        range: RangeInclusive<f32>,
        _: &str,
    ) {
        if self.rng.chance(self.p) {
            *value = if self.rng.chance(0.4) {
                None
            } else {
                Some(self.span_value(&range, value.unwrap_or(Span::new(0.0, 1.0))))
            };
        }
    }

    fn optional_int(
        &mut self,
        name: &str,
        value: &mut Option<u32>,
        range: RangeInclusive<u32>,
        _: &str,
    ) {
        if self.rng.chance(self.p) {
            *value = if self.rng.chance(0.4) {
                None
            } else {
                Some(self.int_value(name, &range))
            };
        }
    }
}

/// Clamps the work counts the randomizer caps (a stage added with its
/// defaults, say 200 000 droplets, would otherwise dominate the run time).
struct WorkCapper;

impl ParamVisitor for WorkCapper {
    fn int(&mut self, name: &str, value: &mut u32, range: RangeInclusive<u32>, _: &str) {
        *value = (*value).min(work_cap(name)).max(*range.start());
    }
    fn text(&mut self, _: &str, _: &mut String, _: &str) {}
    fn optional_int(
        &mut self,
        name: &str,
        value: &mut Option<u32>,
        range: RangeInclusive<u32>,
        _: &str,
    ) {
        if let Some(v) = value {
            self.int(name, v, range, "");
        }
    }
}

fn randomize(stage: &mut Stage, rng: &mut Rng, p: f64) {
    stage.visit(&mut Randomizer { rng, p });
    clamp_all(stage);
    cap_work(stage);
}

fn cap_work(stage: &mut Stage) {
    stage.visit(&mut WorkCapper);
    // Hill features derive their count from the frequency (f²·10 with
    // f = 2·frequency, up to 16 000) when it is not set.
    if let Stage::HillFeatures(h) = stage
        && h.count.is_none()
    {
        h.frequency = h.frequency.min(3.0);
    }
}

/// A map side: mostly 2^n+1 or anything small, now and then the minimum.
fn random_side(rng: &mut Rng) -> u32 {
    match rng.below(10) {
        0 => 2,
        1 => 3,
        2..=5 => [17, 33, 65, 129][rng.below(4)],
        _ => rng.in_u32(17..=129),
    }
}

const IMAGES: &[&str] = &[
    "builtin:sand",
    "builtin:grass",
    "builtin:rock",
    "builtin:snow",
    "builtin:no-such-tile",
    "/nonexistent/orogen-soak/tile.png",
];

/// One random edit of the recipe (tiles included).
fn edit_recipe(recipe: &mut Recipe, rng: &mut Rng) {
    let stages = recipe.stages.len();
    match rng.below(100) {
        // A few parameters of one stage.
        0..=24 => {
            if let Some(entry) = recipe.stages.get_mut(rng.below(stages)) {
                let p = if rng.chance(0.2) { 1.0 } else { 0.3 };
                randomize(&mut entry.stage, rng, p);
            }
        }
        // Add a stage of any kind (import rarely: its empty path fails).
        25..=34 if stages < MAX_STAGES => {
            let kind = Stage::KINDS[rng.below(Stage::KINDS.len())];
            if kind == "import" && !rng.chance(0.2) {
                return;
            }
            if let Some(mut stage) = Stage::default_of(kind) {
                if rng.chance(0.5) {
                    randomize(&mut stage, rng, 0.5);
                } else {
                    cap_work(&mut stage);
                }
                let at = rng.below(stages + 1);
                recipe.stages.insert(at, StageEntry::new(stage));
            }
        }
        35..=42 if stages > 0 => {
            recipe.stages.remove(rng.below(stages));
        }
        43..=50 if stages > 1 => {
            let (a, b) = (rng.below(stages), rng.below(stages));
            if rng.chance(0.5) {
                recipe.stages.swap(a, b);
            } else {
                let entry = recipe.stages.remove(a);
                recipe.stages.insert(b, entry);
            }
        }
        51..=58 if stages > 0 => {
            let entry = &mut recipe.stages[rng.below(stages)];
            entry.enabled = !entry.enabled;
        }
        59..=66 => {
            recipe.width = random_side(rng);
            recipe.height = if rng.chance(0.6) {
                recipe.width
            } else {
                random_side(rng)
            };
        }
        67..=70 => recipe.seed = rng.next(),
        71..=73 => {
            let cell = [0.001, 0.01, 1.0, 2.0, 10_000.0][rng.below(5)];
            recipe.extent = orogen_core::recipe::Extent {
                x: (recipe.width.max(2) - 1) as f32 * cell,
                y: (recipe.height.max(2) - 1) as f32 * cell,
            };
        }
        _ => edit_tiles(recipe, rng),
    }
}

fn edit_tiles(recipe: &mut Recipe, rng: &mut Rng) {
    let tiles = &mut recipe.tiles;
    let count = tiles.tiles.len();
    match rng.below(10) {
        // A band edit: ordered (valid) mostly, unordered (refused) sometimes.
        0..=3 if count > 0 => {
            let tile = &mut tiles.tiles[rng.below(count)];
            let range = -1_000_000.0..=1_000_000.0;
            let mut band = [0.0f32; 3];
            for v in &mut band {
                *v = if rng.chance(0.7) {
                    rng.unit() * 200.0 - 20.0
                } else {
                    rng.float_for(&range, 1.0)
                };
            }
            for v in &mut band {
                clamp_all(&mut OneFloat(v, range.clone()));
            }
            if rng.chance(0.97) {
                band.sort_by(f32::total_cmp);
            }
            (tile.low, tile.optimal, tile.high) = (band[0], band[1], band[2]);
            tiles.auto_bands = false;
        }
        4 if count > 0 => {
            let tile = &mut tiles.tiles[rng.below(count)];
            let (low, optimal, high) = (tile.low, tile.optimal, tile.high);
            tile.visit(&mut Randomizer { rng, p: 0.5 });
            clamp_all(tile);
            // Keep the band valid here; band edits above test invalid ones.
            if !(tile.low <= tile.optimal && tile.optimal <= tile.high) {
                (tile.low, tile.optimal, tile.high) = (low, optimal, high);
            }
        }
        5 => tiles.auto_bands = !tiles.auto_bands,
        6 if count < 16 => {
            let mut tile: Tile = tiles
                .tiles
                .last()
                .cloned()
                .unwrap_or_else(|| recipe_default_tile(rng));
            tile.name = format!("soak {}", rng.below(1000));
            tiles.tiles.insert(rng.below(count + 1), tile);
        }
        // Removing the last tile leaves an invalid set (0 tiles): refused.
        7 if count > 0 && (count > 1 || rng.chance(0.2)) => {
            tiles.tiles.remove(rng.below(count));
        }
        8 if count > 0 => {
            tiles.tiles[rng.below(count)].image = IMAGES[rng.below(IMAGES.len())].to_string();
        }
        _ => {
            // Repair: what the user does after seeing the red message.
            if count == 0 {
                tiles.tiles.push(recipe_default_tile(rng));
            }
            for tile in &mut tiles.tiles {
                let mut band = [tile.low, tile.optimal, tile.high];
                band.sort_by(f32::total_cmp);
                (tile.low, tile.optimal, tile.high) = (band[0], band[1], band[2]);
            }
        }
    }
}

fn recipe_default_tile(rng: &mut Rng) -> Tile {
    let mut set = orogen_core::splat::TileSet::default().tiles;
    let index = rng.below(set.len());
    set.swap_remove(index)
}

/// Lets `clamp_all` clamp one float into `range`.
struct OneFloat<'a>(&'a mut f32, RangeInclusive<f32>);

impl Params for OneFloat<'_> {
    fn visit(&mut self, v: &mut dyn ParamVisitor) {
        v.float("value", self.0, self.1.clone(), "");
    }
}

fn resident_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

fn soak_app(recipe: Recipe) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        bevy::input::InputPlugin,
    ))
    .init_asset::<Mesh>()
    .init_asset::<Image>()
    .init_asset::<StandardMaterial>()
    .insert_resource(EditedRecipe(recipe))
    // The CPU display path: its mesh and texture upload runs headless
    // (the GPU path's material needs a render device; its band-edit
    // shortcut is tested in the regeneration plugin's own tests).
    .insert_resource(DisplayPath::Cpu("soak test".into()))
    // Every edit its own undo step, so the undo limit is reached.
    .insert_resource({
        let mut history = History::default();
        history.coalesce = Duration::ZERO;
        history
    })
    .add_plugins((RegenerationPlugin, TerrainUploadPlugin, HistoryPlugin));
    order_viewer_systems(&mut app);
    app
}

fn set_recipe(app: &mut App, recipe: Recipe) {
    app.world_mut()
        .resource_mut::<EditedRecipe>()
        .set_if_neq(EditedRecipe(recipe));
}

fn history_action(app: &mut App, action: HistoryAction) {
    app.world_mut()
        .run_system_cached_with(
            |In(action): In<HistoryAction>,
             mut history: ResMut<History>,
             mut recipe: ResMut<EditedRecipe>| {
                apply_history_action(action, history.bypass_change_detection(), &mut recipe);
            },
            action,
        )
        .unwrap_or_else(|e| panic!("history system failed: {e}"));
}

/// Updates until no job runs and nothing waits for upload.
fn settle(app: &mut App) {
    let deadline = Instant::now() + SETTLE_TIMEOUT;
    let mut quiet_frames = 0;
    while quiet_frames < 3 {
        assert!(
            Instant::now() < deadline,
            "regeneration did not settle within {SETTLE_TIMEOUT:?} for {:?}",
            app.world().resource::<EditedRecipe>().0
        );
        app.update();
        let busy = app.world().resource::<RegenJob>().is_busy();
        let pending = app.world().resource::<PendingUpload>().mesh.is_some();
        if busy || pending {
            quiet_frames = 0;
            std::thread::sleep(Duration::from_millis(1));
        } else {
            quiet_frames += 1;
        }
    }
}

fn bits(map: &Heightmap) -> Vec<u32> {
    map.data().iter().map(|v| v.to_bits()).collect()
}

/// Counts of what the check found, for the final report.
#[derive(Default, Debug)]
struct Tally {
    shown: usize,
    refused: usize,
    failed: usize,
}

/// The shown terrain is the latest recipe's (or its error is shown).
fn check_latest(app: &App, reference: &mut Pipeline, tally: &mut Tally, edit: usize) {
    let world = app.world();
    let edited = world.resource::<EditedRecipe>().0.clone();
    let stage = world.resource::<DisplayedStage>().0;
    let generated = world.resource::<Generated>();
    let context = || format!("after edit {edit}: {edited:?}, stage {stage:?}");
    let checked = match check_recipe(&edited) {
        Ok(checked) => checked,
        Err(message) => {
            assert_eq!(
                generated.error.as_deref(),
                Some(message.as_str()),
                "{}",
                context()
            );
            tally.refused += 1;
            return;
        }
    };
    let output = match reference.run(&checked, RunHooks::default()) {
        Ok(output) => output,
        Err(error) => {
            assert_eq!(
                generated.error.as_deref(),
                Some(error.to_string().as_str()),
                "{}",
                context()
            );
            tally.failed += 1;
            return;
        }
    };
    assert_eq!(generated.error, None, "{}", context());
    assert_eq!(generated.recipe.as_ref(), Some(&checked), "{}", context());
    let last = output.stages.len().checked_sub(1);
    let shown_stage = stage.filter(|&s| Some(s) < last);
    assert_eq!(generated.shown_stage, shown_stage, "{}", context());
    let expected = match shown_stage {
        Some(index) => output.after_stage(index),
        None => output.map.clone(),
    };
    let shown = generated
        .shown_map
        .as_ref()
        .unwrap_or_else(|| panic!("no shown map {}", context()));
    assert_eq!(
        (shown.width(), shown.height()),
        (edited.width as usize, edited.height as usize),
        "{}",
        context()
    );
    assert!(
        bits(shown) == bits(&expected),
        "shown map differs from the recipe's {}",
        context()
    );
    // The uploaded assets are this map's, replaced in place.
    let meshes = world.resource::<Assets<Mesh>>();
    let images = world.resource::<Assets<Image>>();
    assert_eq!(meshes.len(), 1, "mesh assets leak");
    assert_eq!(images.len(), 1, "image assets leak");
    assert_eq!(world.resource::<Assets<StandardMaterial>>().len(), 1);
    let (_, mesh) = meshes.iter().next().unwrap_or_else(|| panic!("no mesh"));
    let vertices = mesh
        .attribute(Mesh::ATTRIBUTE_POSITION)
        .map(|a| a.len())
        .unwrap_or(0);
    assert!(!generated.decimated, "small maps are shown in full");
    assert_eq!(vertices, shown.width() * shown.height(), "{}", context());
    let (_, image) = images.iter().next().unwrap_or_else(|| panic!("no image"));
    assert_eq!(
        (image.width() as usize, image.height() as usize),
        generated.texture_side,
        "{}",
        context()
    );
    let bounds = world.resource::<TerrainBounds>();
    assert!(bounds.ready, "{}", context());
    for v in [
        bounds.half_width,
        bounds.half_depth,
        bounds.min_height,
        bounds.max_height,
    ] {
        assert!(v.is_finite(), "terrain bounds {bounds:?} {}", context());
    }
    // The pipeline refuses a stage that overflows (a stage error), so a
    // shown map is finite everywhere.
    assert!(
        shown.data().iter().all(|v| v.is_finite()),
        "a shown map has non-finite heights {}",
        context()
    );
    tally.shown += 1;
}

fn start_recipe() -> Recipe {
    let mut recipe = orogen_core::presets::load("eroded-mountains")
        .and_then(Result::ok)
        .unwrap_or_default();
    recipe.width = 65;
    recipe.height = 65;
    for entry in &mut recipe.stages {
        cap_work(&mut entry.stage);
    }
    recipe
}

#[test]
fn thousands_of_random_edits_keep_the_viewer_regenerating_in_bounded_memory() {
    // The allocator as the binary tunes it at start (this is the binary's
    // only test, so this is before any large allocation): the resident
    // memory measured below is the viewer's.
    orogen_core::memory::keep_freed_memory();
    let seed: u64 = std::env::var("OROGEN_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x50A4_2026);
    let edits: usize = std::env::var("OROGEN_SOAK_EDITS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_EDITS);
    let started = Instant::now();
    let mut rng = Rng(seed);
    let mut app = soak_app(start_recipe());
    let mut reference = Pipeline::new();
    let mut tally = Tally::default();
    settle(&mut app);
    check_latest(&app, &mut reference, &mut tally, 0);

    let warm_up = edits / 4;
    let mut baseline_rss = 0u64;
    let mut peak_rss_after_warm_up = 0u64;
    let mut edit = 0;
    let mut stopped_early = false;
    while edit < edits {
        // On a machine busy with other work, stop after the time budget
        // (with the same checks at the end) rather than run for minutes.
        if edit >= MIN_EDITS && started.elapsed() > TIME_BUDGET {
            stopped_early = true;
            settle(&mut app);
            check_latest(&app, &mut reference, &mut tally, edit);
            break;
        }
        // One to three edits land in the same frame now and then.
        let in_frame = if rng.chance(0.2) { 1 + rng.below(3) } else { 1 };
        for _ in 0..in_frame {
            edit += 1;
            match rng.below(100) {
                0..=3 => history_action(&mut app, HistoryAction::Undo),
                4..=5 => history_action(&mut app, HistoryAction::Redo),
                6..=10 => {
                    let count = app.world().resource::<EditedRecipe>().0.stages.len();
                    let shown = match rng.below(4) {
                        0 => None,
                        1 => Some(count + rng.below(3)),
                        _ => Some(rng.below(count.max(1))),
                    };
                    app.world_mut()
                        .resource_mut::<DisplayedStage>()
                        .set_if_neq(DisplayedStage(shown));
                }
                _ => {
                    let mut recipe = app.world().resource::<EditedRecipe>().0.clone();
                    edit_recipe(&mut recipe, &mut rng);
                    set_recipe(&mut app, recipe);
                }
            }
        }
        app.update();
        // Pauses now and then let some jobs finish (and upload) while the
        // edits go on, as between two slider drags.
        if rng.chance(0.08) {
            for _ in 0..1 + rng.below(8) {
                std::thread::sleep(Duration::from_millis(1 + rng.below(4) as u64));
                app.update();
            }
        }
        if edit % CHECK_EVERY < in_frame || edit >= edits {
            settle(&mut app);
            check_latest(&app, &mut reference, &mut tally, edit);
            let (undo, redo) = app.world().resource::<History>().depth();
            let limit = app.world().resource::<History>().limit;
            assert!(
                undo <= limit && redo <= limit,
                "history {undo}+{redo} over {limit}"
            );
            if let Some(rss) = resident_mib() {
                if edit <= warm_up {
                    baseline_rss = baseline_rss.max(rss);
                } else {
                    peak_rss_after_warm_up = peak_rss_after_warm_up.max(rss);
                }
            }
        }
    }
    let (undo, _) = app.world().resource::<History>().depth();
    let jobs = app.world().resource::<RegenJob>().started_count;
    let serial = app.world().resource::<Generated>().serial;
    eprintln!(
        "soak: {edit} edits{} (seed {seed:#x}) in {:.1} s; {jobs} jobs started, {serial} generations \
         shown; checks: {} shown, {} refused, {} stage errors; undo depth {undo}; \
         resident {baseline_rss} MiB after warm-up, peak {peak_rss_after_warm_up} MiB after",
        if stopped_early {
            " (time budget reached)"
        } else {
            ""
        },
        started.elapsed().as_secs_f64(),
        tally.shown,
        tally.refused,
        tally.failed,
    );
    assert!(
        tally.shown > edit / CHECK_EVERY / 3,
        "too few checks saw a terrain: {tally:?}"
    );
    assert!(
        jobs as usize > edit / 4,
        "only {jobs} jobs for {edit} edits"
    );
    if baseline_rss > 0 {
        assert!(
            peak_rss_after_warm_up <= baseline_rss + RSS_ALLOWANCE_MIB,
            "resident memory grew from {baseline_rss} MiB to {peak_rss_after_warm_up} MiB"
        );
    }
}
