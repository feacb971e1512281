//! `orogen generate` with a painted mask: a file that is missing, broken
//! or not the one the recipe's hash names is refused in one line before
//! anything is written; the right file runs, and its export carries the
//! mask beside the recipe copy.

mod common;
use common::*;
use orogen_core::params::Span;
use orogen_core::stages::mask::painted::{Brush, PaintedImage, PaintedMask};
use orogen_core::stages::mask::{MaskSource, StageMask};
use orogen_core::{Stage, StageEntry};
use std::path::Path;

/// The default world at 65² with a blur confined to a painted mask
/// `file` named by `hash`; returns the recipe's path.
fn recipe_with_mask(dir: &Path, file: &str, hash: &str) -> String {
    let path = default_world_of(dir, 65, 65);
    let mut recipe = orogen_core::Recipe::from_ron(&std::fs::read_to_string(&path).unwrap())
        .expect("the written recipe loads");
    recipe.stages.push(StageEntry {
        mask: Some(StageMask {
            source: MaskSource::Painted(PaintedMask {
                file: file.into(),
                hash: hash.into(),
            }),
            range: Span::new(0.0, 1.0),
            soft: 0.0,
            invert: false,
        }),
        ..StageEntry::new(Stage::default_of("blur").expect("blur exists"))
    });
    std::fs::write(&path, recipe.to_ron().unwrap()).unwrap();
    path
}

#[test]
fn a_bad_painted_mask_file_is_refused_in_one_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut image = PaintedImage::blank(64, 64);
    image.dab(
        [64.0, 64.0],
        [128.0, 128.0],
        &Brush {
            radius: 30.0,
            hardness: 0.5,
            strength: 1.0,
            erase: false,
        },
    );
    std::fs::write(dir.path().join("good.png"), image.to_png()).unwrap();
    std::fs::write(dir.path().join("broken.png"), b"no png").unwrap();
    let wrong = "0123456789abcdef0123456789abcdef";
    for (file, hash, expect) in [
        ("good.png", wrong, "the recipe expects 0123456789abcdef"),
        ("broken.png", wrong, "broken.png"),
        ("gone.png", wrong, "gone.png"),
    ] {
        let recipe = recipe_with_mask(dir.path(), file, hash);
        let out = dir.path().join(format!("out-{file}"));
        assert_refused(
            &[
                "generate",
                "--recipe",
                &recipe,
                "--out",
                out.to_str().unwrap(),
            ],
            &out,
            expect,
        );
    }
    // The file that hashes right runs.
    let recipe = recipe_with_mask(dir.path(), "good.png", &image.hash());
    let out = dir.path().join("out-ok");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        &recipe,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(out.join("heightmap.png").is_file());
    // The export carries the mask beside its recipe copy, so that folder's
    // recipe runs on its own, to the same heights.
    let copy = out.join("recipe.mask-4.png");
    let copied = PaintedImage::from_png(&std::fs::read(&copy).expect("the mask is copied"), &copy)
        .expect("the copy reads");
    assert_eq!(copied.hash(), image.hash());
    let again = dir.path().join("out-again");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        out.join("recipe.ron").to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(
        std::fs::read(out.join("heightmap.r16")).unwrap(),
        std::fs::read(again.join("heightmap.r16")).unwrap()
    );
}
