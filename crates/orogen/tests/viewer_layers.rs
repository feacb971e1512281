//! The viewer reads one way: each of its modules sits on a layer, and a
//! file may name only modules on lower layers (or its own module's
//! files). This test reads every viewer source file and checks each
//! `super::…` and `crate::viewer::…` path against the layers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The viewer's modules, bottom (0) to top.
const LAYERS: &[(&str, u32)] = &[
    ("schedule", 0),
    ("settings", 0),
    ("sampling", 0),
    ("display_data", 1),
    ("document", 1),
    ("picking", 1),
    ("handoff", 2),
    ("regen", 3),
    ("camera", 4),
    ("render", 5),
    ("panels", 6),
    ("screenshot", 6),
];

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under the viewer folder: `regen/job.rs` is
/// `[regen, job]`, `regen/mod.rs` is `[regen]`, `mod.rs` is `[]`.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The viewer modules a source text names: the absolute path each
/// `super::…` or `crate::viewer::…` prefix resolves to, first segment only.
fn named_modules(text: &str, module: &[String]) -> Vec<String> {
    let mut named = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let starts_word = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let (mut base, tail) = if starts_word && rest.starts_with("crate::viewer::") {
            (Vec::new(), &rest["crate::viewer::".len()..])
        } else if starts_word && rest.starts_with("super::") {
            let mut base = module.to_vec();
            let mut tail = rest;
            while let Some(after) = tail.strip_prefix("super::") {
                base.pop();
                tail = after;
            }
            (base, tail)
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let ident: String = tail
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // Past the whole path, so `super::super::x` counts once.
        i += rest.len() - tail.len() + ident.len();
        if !ident.is_empty() {
            base.push(ident);
        }
        if let Some(first) = base.first() {
            named.push(first.clone());
        }
    }
    named
}

#[test]
fn viewer_imports_point_down_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/viewer");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 20, "viewer sources found: {}", files.len());
    let mut wrong: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file);
        let module = module_path(relative);
        let own = module.first().cloned().unwrap_or_default();
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for named in named_modules(&text, &module) {
            if named == own {
                continue;
            }
            let ok = match (module.first(), layer(&named)) {
                // The viewer's root (its plugin and `run`) may name all.
                (None, _) => true,
                (Some(_), None) => false,
                (Some(m), Some(to)) => layer(m).is_some_and(|from| to < from),
            };
            if !ok {
                wrong
                    .entry(relative.display().to_string())
                    .or_default()
                    .push(named);
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "viewer files naming a module on their own layer or above: {wrong:?}"
    );
}

#[test]
fn every_viewer_module_has_a_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/viewer");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file);
        if let Some(first) = module_path(relative).first() {
            assert!(layer(first).is_some(), "{first} has no layer");
        }
    }
}

#[test]
fn the_path_reader_resolves_super_and_crate_paths() {
    let module = vec!["regen".to_string(), "job".to_string()];
    let text = "use super::cache::JobCache;\nuse super::super::handoff::Generated;\n\
                use crate::viewer::display_data::gpu;\nlet x = not_super::y;";
    assert_eq!(
        named_modules(text, &module),
        vec!["regen".to_string(), "handoff".into(), "display_data".into()]
    );
}
