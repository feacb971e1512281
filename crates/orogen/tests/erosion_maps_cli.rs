//! `orogen generate --maps wear,deposition`: the record of what the
//! erosion stages changed, asked of the run only when these maps are.

mod common;
use common::*;
use orogen_core::maps::DerivedMap;
use orogen_core::maps::MapPixels;
use orogen_core::maps::derived::erosion_pixels;
use orogen_core::pipeline::{RunHooks, run_once_recording};

#[test]
fn wear_and_deposition_come_from_the_run_and_all_includes_them() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let out = dir.path().join("out");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        "eroded-mountains",
        "--size",
        "129",
        "--maps",
        "wear,deposition",
        "--out",
        out.to_str().expect("a UTF-8 path"),
    ]);
    assert!(ok, "{stderr}");
    let mut recipe = orogen_core::presets::load("eroded-mountains")
        .expect("shipped preset")
        .expect("valid preset");
    let (w, h) = recipe.sampling_for(129);
    recipe.set_sampling(w, h);
    let (_, record) =
        run_once_recording(&recipe, None, RunHooks::default()).expect("the preset runs");
    assert_eq!(record.stages(), ["fluvial-erosion"]);
    for kind in [DerivedMap::Wear, DerivedMap::Deposition] {
        let image = image::open(out.join(format!("{}.png", kind.name())))
            .expect("a readable map")
            .into_luma16();
        assert_eq!(image.dimensions(), (w, h));
        // Deposition is the sediment the fluvial stage laid down (its
        // layer), wear what the stages took away.
        let source = match kind {
            DerivedMap::Deposition => record.deposited(),
            _ => record.change().to_vec(),
        };
        let Some(MapPixels::Grey16(expected)) = erosion_pixels(&source, kind) else {
            panic!("{kind:?} is 16-bit");
        };
        assert!(expected.iter().any(|&v| v > 0), "{kind:?} is not empty");
        assert_eq!(image.into_raw(), expected, "{kind:?}");
    }

    // A recipe without erosion: every map, the erosion ones empty, and said.
    let plain = dir.path().join("plain");
    let (ok, _, stderr) = run(&[
        "generate",
        "--recipe",
        "default",
        "--size",
        "65",
        "--maps",
        "all",
        "--out",
        plain.to_str().expect("a UTF-8 path"),
    ]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains(
            "warning: the recipe has no erosion stage: wear.png and deposition.png are empty"
        ),
        "{stderr}"
    );
    for kind in DerivedMap::ALL {
        assert!(
            plain.join(format!("{}.png", kind.name())).is_file(),
            "{kind:?}"
        );
    }
}
