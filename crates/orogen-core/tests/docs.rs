//! docs/recipe-format.md is generated; this keeps it current.
//! Regenerate with `OROGEN_UPDATE_DOCS=1 cargo test -p orogen-core --test docs`.

#[test]
fn recipe_reference_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/recipe-format.md");
    let expected = orogen_core::recipe::docs::recipe_reference_markdown();
    if std::env::var_os("OROGEN_UPDATE_DOCS").is_some() {
        std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs")).unwrap();
        std::fs::write(path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/recipe-format.md is stale: run OROGEN_UPDATE_DOCS=1 cargo test -p orogen-core --test docs"
    );
}
