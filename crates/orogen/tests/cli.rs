//! The `orogen` binary end to end.

mod common;
use common::*;

#[test]
fn presets_lists_and_shows() {
    let (ok, stdout, _) = run(&["presets"]);
    assert!(ok);
    let names: Vec<&str> = stdout.lines().collect();
    for expected in [
        "default",
        "article-000-hills-and-pits",
        "three-terrain-hill",
        "three-terrain-hill-island",
        "article-003-diamond-square",
    ] {
        assert!(names.contains(&expected), "missing {expected}");
    }
    let (ok, stdout, _) = run(&["presets", "show", "article-003-diamond-square"]);
    assert!(ok);
    assert!(stdout.contains("DiamondSquare"));
    let (ok, _, stderr) = run(&["presets", "show", "nope"]);
    assert!(!ok);
    assert!(stderr.contains("no preset named 'nope'"));
}

#[test]
fn generate_writes_every_file_and_timings() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        &default_world_of(dir.path(), 65, 33),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "9",
        "--timings",
        "--texture",
        "48",
    ]);
    assert!(ok, "{stderr}");
    for f in [
        "heightmap.r16",
        "heightmap.png",
        "heightmap.preview.png",
        "heightmap.json",
        "recipe.ron",
        "texture.png",
        "splat.png",
        "splat_0.png",
        "splat_3.png",
    ] {
        assert!(out.join(f).exists(), "missing {f}");
    }
    assert_eq!(
        std::fs::metadata(out.join("heightmap.r16")).unwrap().len(),
        65 * 33 * 2
    );
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("timing "))
        .collect();
    for kind in ["diamond-square", "noise", "blur", "normalize", "total"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("timing {kind} "))),
            "no {kind} in {stderr}"
        );
    }
    for l in &lines {
        let ms: f64 = l.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(ms >= 0.0);
    }
    let sidecar: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("heightmap.json")).unwrap())
            .unwrap();
    assert_eq!(sidecar["width"], 65);
    assert_eq!(sidecar["height"], 33);
    assert_eq!(sidecar["byte_order"], "le");
    assert_eq!(sidecar["recipe"]["seed"], 9);
    assert_eq!(sidecar["tiles"].as_array().unwrap().len(), 4);
    // The written recipe reproduces the same heightmap.
    let again = dir.path().join("again");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        out.join("recipe.ron").to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(
        std::fs::read(out.join("heightmap.r16")).unwrap()
            == std::fs::read(again.join("heightmap.r16")).unwrap(),
        "recipe.ron must reproduce the heightmap"
    );
}

#[test]
fn import_starts_from_an_existing_heightmap() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        "article-003-diamond-square",
        "--out",
        first.to_str().unwrap(),
        "--size",
        "33",
    ]);
    assert!(ok, "{stderr}");
    let recipe = dir.path().join("identity.ron");
    std::fs::write(
        &recipe,
        "(width: 8, height: 8, seed: 1, cell_size: 1.0, stages: [])",
    )
    .unwrap();
    let flat = dir.path().join("flat-out");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        recipe.to_str().unwrap(),
        "--out",
        flat.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("the map is flat"), "{stderr}");
    let second = dir.path().join("second");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        recipe.to_str().unwrap(),
        "--out",
        second.to_str().unwrap(),
        "--import",
        first.join("heightmap.png").to_str().unwrap(),
        "--timings",
    ]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("timing import "));
    assert!(
        std::fs::read(first.join("heightmap.r16")).unwrap()
            == std::fs::read(second.join("heightmap.r16")).unwrap(),
        "re-exporting an imported heightmap must give the same samples"
    );

    // Without a recipe: the file alone, the same samples again.
    let bare = dir.path().join("bare");
    let (ok, _, stderr) = run(&[
        "generate",
        "--import",
        first.join("heightmap.png").to_str().unwrap(),
        "--out",
        bare.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(
        std::fs::read(first.join("heightmap.r16")).unwrap(),
        std::fs::read(bare.join("heightmap.r16")).unwrap()
    );

    // A RAW file without a sidecar: its size and byte order on the
    // command line (here 3x2 samples, big-endian 0..5 * 1000).
    let raw = dir.path().join("odd.raw");
    let samples: Vec<u8> = (0..6u16).flat_map(|v| (v * 1000).to_be_bytes()).collect();
    std::fs::write(&raw, samples).unwrap();
    let raw_out = dir.path().join("raw-out");
    let (raw_s, out_s) = (raw.to_str().unwrap(), raw_out.to_str().unwrap());
    let run_raw = |extra: &[&str]| {
        let mut args = vec!["generate", "--import", raw_s, "--out", out_s];
        args.extend_from_slice(extra);
        run(&args)
    };
    let (ok, _, stderr) = run_raw(&[]);
    assert!(!ok && stderr.contains("--import-size"), "{stderr}");
    let (ok, _, stderr) = run_raw(&["--import-size", "3x2", "--import-byte-order", "be"]);
    assert!(ok, "{stderr}");
    let r16 = std::fs::read(raw_out.join("heightmap.r16")).unwrap();
    let values: Vec<u16> = r16
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    // Heights 0..5000 spread over 0..65535 again: strictly rising.
    assert_eq!(values.len(), 6);
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");

    // A preset whose first stage replaces the map: that stage is switched
    // off (and said so), so the import shows through its other stages.
    let flat = dir.path().join("flat.r16");
    std::fs::write(&flat, vec![0u8; 33 * 33 * 2]).unwrap();
    let over = |file: &std::path::Path, name: &str| {
        let out = dir.path().join(name);
        let (ok, _, stderr) = run(&[
            "generate",
            "--recipe",
            "default",
            "--import",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(ok, "{stderr}");
        (std::fs::read(out.join("heightmap.r16")).unwrap(), stderr)
    };
    let (from_export, stderr) = over(&first.join("heightmap.png"), "over-export");
    assert!(
        stderr.contains("stage 1 (diamond-square) would replace the imported map"),
        "{stderr}"
    );
    let (from_flat, _) = over(&flat, "over-flat");
    assert_ne!(from_export, from_flat, "the imported map must matter");
}

#[test]
fn formats_choose_the_height_files_and_float_files_reimport_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        &default_world_of(dir.path(), 37, 21),
        "--out",
        first.to_str().unwrap(),
        "--flip-y",
        "--formats",
        "exr,tif",
    ]);
    assert!(ok, "{stderr}");
    let mut names: Vec<String> = std::fs::read_dir(&first)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "heightmap.exr",
            "heightmap.json",
            "heightmap.preview.png",
            "heightmap.tif",
            "recipe.ron"
        ]
    );
    let sidecar: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(first.join("heightmap.json")).unwrap())
            .unwrap();
    assert_eq!(sidecar["height_files"][0]["file"], "heightmap.exr");
    assert_eq!(sidecar["height_files"][1]["units"], "world units (f32)");
    let recipe = dir.path().join("identity.ron");
    std::fs::write(
        &recipe,
        "(width: 8, height: 8, seed: 1, cell_size: 1.0, stages: [])",
    )
    .unwrap();
    // Each float file re-imports (the sidecar undoes --flip-y) and
    // re-exports to the same bytes: every height came back exactly.
    for file in ["heightmap.exr", "heightmap.tif"] {
        let second = dir.path().join(format!("second-{file}"));
        let (ok, _, stderr) = run(&[
            "generate",
            "--recipe",
            recipe.to_str().unwrap(),
            "--out",
            second.to_str().unwrap(),
            "--import",
            first.join(file).to_str().unwrap(),
            "--flip-y",
            "--formats",
            "exr,tif",
        ]);
        assert!(ok, "{stderr}");
        for written in ["heightmap.exr", "heightmap.tif"] {
            assert!(
                std::fs::read(first.join(written)).unwrap()
                    == std::fs::read(second.join(written)).unwrap(),
                "{written} from an import of {file} differs"
            );
        }
    }
}

#[test]
fn bad_input_exits_nonzero_with_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    let bad_recipe = dir.path().join("bad.ron");
    std::fs::write(&bad_recipe, "(extent: (x: 63.0, y: 63.0), size: (width: 64, height: 64), seed: 1, stages: [(enabled: true, stage: Blur(passes: 2, width: -1.0))])").unwrap();
    let typo = dir.path().join("typo.ron");
    std::fs::write(
        &typo,
        "(width: 64, heigth: 64, seed: 1, cell_size: 1.0, stages: [])",
    )
    .unwrap();
    let odd = dir.path().join("odd.r16");
    std::fs::write(&odd, [0u8; 7]).unwrap();
    let not_exr = dir.path().join("broken.exr");
    std::fs::write(&not_exr, [0x76, 0x2f, 0x31, 0x01, 2, 0, 0]).unwrap();
    assert_refused(
        &["generate", "--recipe", "no-such-preset", "--out", o],
        &out,
        "cannot read recipe",
    );
    // Mistakes the option parser catches are one line too.
    let generate = |extra: &[&'static str]| {
        let mut args = vec!["generate", "--recipe", "default", "--out", o];
        args.extend_from_slice(extra);
        args
    };
    assert_refused(
        &generate(&["--byte-order", "middle"]),
        &out,
        "possible values: le, be",
    );
    assert_refused(&generate(&["--seed", "-1"]), &out, "--seed");
    assert_refused(&generate(&["--no-such-flag"]), &out, "--no-such-flag");
    assert_refused(
        &generate(&["--import", "x.png", "--import-size", "abc"]),
        &out,
        "--import-size 'abc'",
    );
    // The texture counts against the memory limit too.
    assert_refused(
        &generate(&[
            "--size",
            "129",
            "--texture",
            "4096",
            "--memory-limit",
            "100",
        ]),
        &out,
        "a 4096x4096 texture",
    );
    assert_refused(&["generate", "--out", o], &out, "--recipe");
    // Camera placements are refused before the viewer opens a window.
    let look = |from: &'static str, at: Option<&'static str>| {
        let mut args = vec!["view", "--look-from", from];
        if let Some(at) = at {
            args.extend(["--look-at", at]);
        }
        args
    };
    assert_refused(&look("1,2", Some("0,0,0")), &out, "--look-from '1,2'");
    assert_refused(&look("1,nan,3", Some("0,0,0")), &out, "three numbers");
    assert_refused(&look("1,2,3", Some("a,b,c")), &out, "--look-at 'a,b,c'");
    assert_refused(&look("1,2,3", None), &out, "--look-at too");
    assert_refused(&look("1,2,3", Some("1,2,3")), &out, "same point");
    assert_refused(
        &[
            "generate",
            "--recipe",
            bad_recipe.to_str().unwrap(),
            "--out",
            o,
        ],
        &out,
        "stages[0](blur).width",
    );
    assert_refused(
        &["generate", "--recipe", typo.to_str().unwrap(), "--out", o],
        &out,
        "heigth",
    );
    assert_refused(
        &["generate", "--recipe", "default", "--out", o, "--size", "1"],
        &out,
        "width",
    );
    assert_refused(
        &[
            "generate", "--recipe", "default", "--out", o, "--size", "banana",
        ],
        &out,
        "--size 'banana'",
    );
    assert_refused(
        &[
            "generate",
            "--recipe",
            "default",
            "--out",
            o,
            "--size",
            "unity-1000",
        ],
        &out,
        "unity-1000",
    );
    assert_refused(
        &[
            "generate",
            "--recipe",
            "default",
            "--out",
            o,
            "--import",
            odd.to_str().unwrap(),
        ],
        &out,
        "odd byte count",
    );
    assert_refused(
        &[
            "generate",
            "--recipe",
            "default",
            "--out",
            o,
            "--import",
            not_exr.to_str().unwrap(),
        ],
        &out,
        "not a readable OpenEXR heightmap",
    );
    assert_refused(
        &[
            "generate",
            "--recipe",
            "default",
            "--out",
            o,
            "--formats",
            "r16,jpg",
        ],
        &out,
        "--formats 'r16,jpg': unknown format 'jpg' (valid: r16, png, exr, tif)",
    );
    assert_refused(
        &[
            "generate",
            "--recipe",
            "default",
            "--out",
            o,
            "--texture",
            "0",
        ],
        &out,
        "--texture",
    );
    assert_refused(
        &[
            "generate",
            "--recipe",
            "default",
            "--out",
            o,
            "--size",
            "16385",
            "--memory-limit",
            "64",
        ],
        &out,
        "MiB",
    );
}

#[test]
fn unwritable_output_folder_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let out = file.join("sub");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        "default",
        "--size",
        "17",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(stderr.contains("cannot create output folder"), "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

/// `--engine` writes what the engine's importer reads: Unity's RAW16 rows
/// south first (the same bytes as `--flip-y`), Unreal's north first with a
/// 16-bit PNG and weight maps; the import dialog's numbers are printed and
/// in the sidecar; sizes the engine does not take are snapped (the
/// recipe's own) or refused (an explicit `--size`), naming the nearest.
#[test]
fn engine_profiles_write_what_each_importer_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let arg = |name: &str| path(name).to_string_lossy().into_owned();

    let (ok, stdout, stderr) = run(&[
        "generate",
        "--recipe",
        "default",
        "--size",
        "257",
        "--engine",
        "unity",
        "--out",
        &arg("unity"),
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("Height 150.0000"), "{stdout}");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        "default",
        "--size",
        "257",
        "--flip-y",
        "--out",
        &arg("flipped"),
    ]);
    assert!(ok, "{stderr}");
    let unity_r16 = std::fs::read(path("unity").join("heightmap.r16")).unwrap();
    assert_eq!(
        unity_r16,
        std::fs::read(path("flipped").join("heightmap.r16")).unwrap()
    );
    assert!(path("unity").join("splat_0.png").exists());
    assert!(!path("unity").join("heightmap.png").exists());
    let splat = image::open(path("unity").join("splat.png")).unwrap();
    assert_eq!(
        (splat.width(), splat.height()),
        (256, 256),
        "Unity's alphamap size"
    );

    // The default recipe is 513²: Unreal takes 505², with a note.
    let (ok, stdout, stderr) = run(&[
        "generate",
        "--recipe",
        "default",
        "--engine",
        "unreal",
        "--out",
        &arg("unreal"),
    ]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("made at 505x505"), "{stderr}");
    assert!(stdout.contains("Scale Z = 29.2969"), "{stdout}");
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path("unreal").join("heightmap.json")).unwrap())
            .unwrap();
    assert_eq!(sidecar["width"], 505);
    assert_eq!(sidecar["flip_y"], false);
    assert_eq!(sidecar["engine_import"]["engine"], "unreal");
    assert_eq!(sidecar["engine_import"]["scale_z"], 150.0 * 100.0 / 512.0);
    assert_eq!(sidecar["engine_import"]["location_z"], 7500.0);
    for name in ["heightmap.r16", "heightmap.png", "splat_3.png"] {
        assert!(path("unreal").join(name).exists(), "{name}");
    }

    assert_refused(
        &[
            "generate",
            "--recipe",
            "default",
            "--engine",
            "unity",
            "--size",
            "1000",
            "--out",
            &arg("bad-size"),
        ],
        &path("bad-size"),
        "nearest: 513 or 1025",
    );
    assert_refused(
        &[
            "generate",
            "--recipe",
            "default",
            "--engine",
            "godot",
            "--formats",
            "tif",
            "--out",
            &arg("bad-flags"),
        ],
        &path("bad-flags"),
        "drop --formats",
    );
    assert_refused(
        &[
            "generate",
            "--recipe",
            "default",
            "--engine",
            "cryengine",
            "--out",
            &arg("bad-engine"),
        ],
        &path("bad-engine"),
        "expected unity, unreal or godot",
    );
}

/// Without a Vulkan driver the viewer says so in one line (Bevy alone
/// would panic with a backtrace). DISPLAY only has to be set: the adapter
/// is asked for before any window opens.
#[test]
fn view_without_a_graphics_driver_says_so_in_one_line() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_orogen"))
        .arg("view")
        .env("DISPLAY", ":4321")
        .env("WGPU_BACKEND", "vulkan")
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .env_remove("VK_ADD_DRIVER_FILES")
        .output()
        .expect("the orogen binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line expected: {stderr}");
    assert!(stderr.contains("no graphics adapter found"), "{stderr}");
}

/// Output piped into a reader that stops early ends the process quietly
/// (SIGPIPE), not with a panic and a backtrace.
#[test]
fn a_closed_pipe_ends_output_without_a_panic() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_orogen"))
        .args(["presets", "show", "default"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the orogen binary runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("it ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
}

/// Re-exporting into a folder that holds a larger earlier export names
/// the earlier files left behind (they no longer match the map).
#[test]
fn a_re_export_names_the_earlier_files_it_did_not_replace() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    let base = [
        "generate", "--recipe", "default", "--size", "65", "--out", o,
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let (ok, _, stderr) = run(&args);
        assert!(ok, "{stderr}");
        stderr
    };
    let first = with(&["--formats", "r16,png,exr", "--texture", "64"]);
    assert!(!first.contains("earlier export"), "{first}");
    let second = with(&[]);
    let line = second
        .lines()
        .find(|l| l.contains("earlier export"))
        .unwrap_or_else(|| panic!("no note of the earlier files: {second}"));
    for name in ["heightmap.exr", "texture.png"] {
        assert!(line.contains(name), "{line}");
    }
    assert!(!line.contains("heightmap.r16"), "{line}");
    // The sidecar now lists only this export's files: no note again.
    let third = with(&[]);
    assert!(!third.contains("earlier export"), "{third}");
}

/// `--out` naming a file, and an import stage with only its path.
#[test]
fn an_output_path_that_is_a_file_is_refused_and_import_needs_only_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("afile");
    std::fs::write(&file, b"keep").unwrap();
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        "default",
        "--size",
        "33",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("is a file"), "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), b"keep");

    let recipe = dir.path().join("import.ron");
    std::fs::write(
        &recipe,
        "(size: (width: 9, height: 9), extent: (x: 8, y: 8), seed: 1, \
         stages: [(enabled: true, stage: Import(path: \"missing.png\"))])",
    )
    .unwrap();
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        recipe.to_str().unwrap(),
        "--out",
        dir.path().join("out").to_str().unwrap(),
    ]);
    assert!(!ok);
    // The recipe parses; the run names the missing file once.
    assert!(stderr.contains("stage 0 (import): cannot read"), "{stderr}");
    assert!(!stderr.contains("import: import"), "{stderr}");
}

/// A file named like a preset: the preset is used, and a note says how to
/// read the file instead.
#[test]
fn a_file_named_like_a_preset_gets_a_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("default"), "()").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_orogen"))
        .current_dir(dir.path())
        .args([
            "generate", "--recipe", "default", "--size", "33", "--out", "o",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("give ./default to read it"), "{stderr}");
}

#[test]
fn maps_are_written_beside_the_heights_and_bad_lists_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    let generate = |extra: &[&'static str]| {
        let mut args = vec![
            "generate", "--recipe", "default", "--size", "65", "--out", o,
        ];
        args.extend_from_slice(extra);
        args
    };
    assert_refused(
        &generate(&["--maps", "lakes,moss"]),
        &out,
        "--maps: unknown map \"moss\"",
    );
    assert_refused(&generate(&["--maps", ""]), &out, "--maps: unknown map \"\"");
    assert_refused(&generate(&["--sea-level", "3"]), &out, "--maps");
    let (ok, stdout, stderr) = run(&generate(&[
        "--maps",
        "lakes,flow",
        "--sea-level",
        "20",
        "--flip-y",
    ]));
    assert!(ok, "{stderr}");
    assert!(stdout.contains("wrote"), "{stdout}");
    for file in ["lakes.png", "flow.png"] {
        let image = image::open(out.join(file)).expect("a readable map");
        assert_eq!((image.width(), image.height()), (65, 65), "{file}");
    }
    assert!(!out.join("rivers.png").exists(), "only the maps asked for");
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("heightmap.json")).unwrap()).unwrap();
    let maps = sidecar["maps"].as_array().expect("the maps are listed");
    assert_eq!(maps[0]["file"], "flow.png");
    assert_eq!(maps[1]["file"], "lakes.png");
    assert_eq!(maps[1]["sea_level"], 20.0);
}

#[test]
fn a_view_overlay_that_is_no_map_is_refused_in_one_line() {
    let (ok, _, stderr) = run(&["view", "--overlay", "moss"]);
    assert!(!ok);
    assert_eq!(stderr.lines().count(), 1, "one line expected: {stderr}");
    assert!(
        stderr.contains("--overlay \"moss\"")
            && stderr.contains("curvature")
            && stderr.contains("deposition"),
        "{stderr}"
    );
    // Wear and deposition come from the run's record: the overlay takes
    // them (what stops this run, before any window opens, is the recipe).
    let (ok, _, stderr) = run(&[
        "view",
        "--overlay",
        "deposition",
        "--recipe",
        "no-such-preset",
    ]);
    assert!(!ok, "{stderr}");
    assert!(
        !stderr.contains("--overlay") && stderr.contains("no-such-preset"),
        "{stderr}"
    );
}

/// Sediment, scree and gully parameters out of range or not finite: one
/// line naming the field, and no output folder.
#[test]
fn bad_sediment_parameters_are_refused_and_nothing_is_written() {
    let text = orogen_core::presets::text("eroded-mountains").expect("shipped preset");
    let dir = tempfile::tempdir().expect("a temp folder");
    let cases = [
        ("deposition: 1.0)", "deposition: 1.5)", "deposition"),
        ("deposition: 1.0)", "deposition: -0.1)", "deposition"),
        ("deposition: 1.0)", "deposition: NaN)", "deposition"),
        (
            "deposition: 1.0)",
            "deposition: 1.0, sediment_erodibility: 11.0)",
            "sediment_erodibility",
        ),
        (
            "deposition: 1.0)",
            "deposition: 1.0, talus_angle: 95.0)",
            "talus_angle",
        ),
        (
            "deposition: 1.0)",
            "deposition: 1.0, talus_angle: -1.0)",
            "talus_angle",
        ),
        ("gullies: 0.1,", "gullies: inf,", "gullies"),
    ];
    for (i, (from, to, field)) in cases.into_iter().enumerate() {
        assert!(text.contains(from), "{from}");
        let recipe = dir.path().join(format!("bad-{i}.ron"));
        std::fs::write(&recipe, text.replacen(from, to, 1)).expect("a recipe file");
        let out = dir.path().join(format!("out-{i}"));
        let args = [
            "generate",
            "--recipe",
            recipe.to_str().expect("a UTF-8 path"),
            "--out",
            out.to_str().expect("a UTF-8 path"),
        ];
        assert_refused(&args, &out, field);
    }
}
