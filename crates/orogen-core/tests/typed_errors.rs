//! Errors are types a caller can match, with the one-line messages users
//! read; no public function hands back a bare `String` as its error.

use orogen_core::bake::{check_runnable, load_recipe, start_from_file};
use orogen_core::io::bundle::{ExportBundle, prepare_dir};
use orogen_core::io::height_files::ImportError;
use orogen_core::pipeline::{RunHooks, run_once};
use orogen_core::splat::load_tile_image;
use orogen_core::stages::{Import, Stage};
use orogen_core::{
    ExportError, LoadError, PipelineError, Recipe, RecipeError, StageEntry, StageError,
    TileImageError,
};
use std::error::Error as _;
use std::path::{Path, PathBuf};

/// The `pub fn` signatures in `text` whose return type is
/// `Result<…, String>`, each on one line, signatures that wrap included.
fn string_error_signatures(text: &str) -> Vec<String> {
    // Comments may quote code; only code counts.
    let code: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = Vec::new();
    for (start, _) in code.match_indices("pub fn ") {
        let rest = &code[start..];
        let end = rest.find(['{', ';']).unwrap_or(rest.len());
        let signature: String = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let Some((_, returns)) = signature.rsplit_once("->") else {
            continue;
        };
        let returns = returns.split(" where ").next().unwrap_or(returns);
        let compact: String = returns.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.starts_with("Result<") && compact.ends_with(",String>") {
            found.push(signature);
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the source folder lists")
        .map(|e| e.expect("a folder entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_signature_check_sees_wrapped_signatures() {
    let text = "pub fn a() -> Result<(), String> {}\n\
                pub fn b(\n    x: u32,\n) -> Result<(Vec<u8>, Option<u32>), String>\nwhere\n    T: Sized,\n{}\n\
                pub fn c() -> Result<String, MyError> {}\n\
                // pub fn d() -> Result<(), String> {}\n\
                pub fn e() -> Option<String> {}\n";
    let found = string_error_signatures(text);
    assert_eq!(
        found,
        [
            "pub fn a() -> Result<(), String>",
            "pub fn b( x: u32, ) -> Result<(Vec<u8>, Option<u32>), String> where T: Sized,",
        ]
    );
}

#[test]
fn no_public_function_returns_a_string_error() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "only {} source files found", files.len());
    let mut offenders = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file reads");
        for signature in string_error_signatures(&text) {
            offenders.push(format!("{}: {signature}", file.display()));
        }
    }
    assert!(
        offenders.is_empty(),
        "public functions returning Result<_, String>; give them a typed error:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn a_missing_recipe_file_is_a_read_error_with_its_cause() {
    let err = load_recipe("/nonexistent/orogen/recipe.ron").unwrap_err();
    let LoadError::Read { name, source } = &err else {
        panic!("expected LoadError::Read, got {err:?}");
    };
    assert_eq!(name, "/nonexistent/orogen/recipe.ron");
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert!(err.source().is_some());
    assert!(
        err.to_string()
            .starts_with("cannot read recipe /nonexistent/orogen/recipe.ron: "),
        "{err}"
    );
}

#[test]
fn a_recipe_file_that_does_not_parse_names_the_file() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = dir.path().join("bad.ron");
    std::fs::write(&path, "(seed: 1,").expect("the file is written");
    let err = load_recipe(&path.to_string_lossy()).unwrap_err();
    assert!(
        matches!(&err, LoadError::Recipe { path: p, source: RecipeError::Syntax { line: 1, column: 9, .. } } if *p == path),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{}: line 1, column 9: Unexpected end of RON",
            path.display()
        )
    );
}

#[test]
fn too_large_is_its_own_kind_with_the_front_ends_hint() {
    let (mut recipe, _) = load_recipe("default").expect("the default preset loads");
    let err = check_runnable(&mut recipe, 1 << 20).unwrap_err();
    assert!(matches!(err, RecipeError::TooLarge { .. }), "{err:?}");
    assert!(
        err.with_remedy("the hint").ends_with("MiB (the hint)"),
        "{err}"
    );
    let (mut recipe, _) = load_recipe("default").expect("the default preset loads");
    recipe.width = 1;
    let err = check_runnable(&mut recipe, 1 << 40).unwrap_err();
    assert!(matches!(err, RecipeError::Invalid(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "size.width: 1 is out of range (allowed 2 to 65537)"
    );
}

#[test]
fn an_import_file_that_vanished_is_an_import_error_of_its_stage() {
    let missing = "/nonexistent/orogen/height.png";
    let recipe = Recipe {
        stages: vec![StageEntry::new(Stage::Import(Import {
            path: missing.into(),
            ..Import::default()
        }))],
        ..Recipe::default()
    };
    let err = run_once(&recipe, None, RunHooks::default()).unwrap_err();
    let PipelineError::Stage {
        index: 0,
        kind: "import",
        error: StageError::Import(ImportError::Io { path, .. }),
    } = &err
    else {
        panic!("expected the import stage's read error, got {err:?}");
    };
    assert_eq!(path, missing);
    assert_eq!(
        err.to_string(),
        format!("stage 0 (import): cannot read {missing}: No such file or directory (os error 2)")
    );
    let err = start_from_file(
        &mut Recipe::default(),
        Path::new(missing),
        Default::default(),
    )
    .unwrap_err();
    assert!(
        matches!(err, LoadError::Import(StageError::Import(_))),
        "{err:?}"
    );
    assert!(err.to_string().starts_with("import: cannot read "), "{err}");
}

#[test]
fn cancelled_is_a_variant_not_a_message() {
    assert_eq!(StageError::Cancelled.to_string(), "cancelled");
    assert_ne!(
        StageError::Cancelled,
        StageError::MaskImage {
            path: "cancelled".into(),
            reason: "cancelled".into(),
        },
        "a stage's message that reads \"cancelled\" is not a cancel"
    );
}

#[test]
fn export_folder_errors_keep_the_path_and_the_cause() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").expect("the file is written");
    let err = prepare_dir(&file).unwrap_err();
    assert!(
        matches!(&err, ExportError::FolderIsFile(p) if *p == file),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "output folder {} is a file; give a folder (it is created if missing)",
            file.display()
        )
    );
    let under = file.join("sub");
    let err = prepare_dir(&under).unwrap_err();
    let ExportError::CreateFolder { path, source } = &err else {
        panic!("expected CreateFolder, got {err:?}");
    };
    assert_eq!(*path, under);
    assert_eq!(
        err.to_string(),
        format!("cannot create output folder {}: {source}", under.display())
    );

    // A folder where a file goes: nothing is written, and the error says
    // which file, with the operating system's error as its source.
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("heightmap.json")).expect("the folder is made");
    let mut bundle = ExportBundle::default();
    bundle.add("heightmap.json", b"{}".to_vec());
    let err = bundle.write_to(&out).unwrap_err();
    assert!(
        matches!(&err, ExportError::Write { dir, .. } if *dir == out),
        "{err:?}"
    );
    assert!(err.source().is_some_and(|s| s.is::<std::io::Error>()));
    assert_eq!(
        err.to_string(),
        format!(
            "cannot write {}: a folder of that name is in the way",
            out.join("heightmap.json").display()
        )
    );
}

#[test]
fn tile_image_errors_say_which_file_and_why() {
    let err = load_tile_image("builtin:nope", None).unwrap_err();
    assert!(
        matches!(&err, TileImageError::UnknownBuiltin { name } if name == "nope"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "no built-in tile 'nope' (built-in: sand, grass, rock, snow)"
    );
    let dir = tempfile::tempdir().expect("a temp folder");
    let err = load_tile_image("missing.png", Some(dir.path())).unwrap_err();
    let TileImageError::File { path, source } = &err else {
        panic!("expected TileImageError::File, got {err:?}");
    };
    assert_eq!(*path, dir.path().join("missing.png"));
    assert!(matches!(**source, TileImageError::Read(_)), "{source:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "tile image {}: No such file or directory (os error 2)",
            path.display()
        )
    );
    std::fs::write(dir.path().join("empty.png"), b"not an image").expect("written");
    let err = load_tile_image("empty.png", Some(dir.path())).unwrap_err();
    assert!(
        matches!(&err, TileImageError::File { source, .. } if matches!(**source, TileImageError::Unreadable(_))),
        "{err:?}"
    );
    assert!(err.to_string().contains(": unreadable image: "), "{err}");
}
