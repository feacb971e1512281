//! Atomic file writes: a temporary file in the target folder, synced, then
//! renamed over the final name. A write that is interrupted leaves either
//! the old file or none, never half a file.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}.{unique}.tmp", std::process::id()))
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = temp_path(path);
    let result = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Writes several files, each atomically; if one fails, the files this
/// call already created are removed again (files it replaced stay replaced,
/// each whole).
pub fn write_all_atomic(files: &[(PathBuf, Vec<u8>)]) -> io::Result<()> {
    let mut created = Vec::new();
    for (path, bytes) in files {
        let existed = path.exists();
        if let Err(e) = write_atomic(path, bytes) {
            for p in created {
                let _ = fs::remove_file(p);
            }
            return Err(io::Error::new(
                e.kind(),
                format!("cannot write {}: {e}", path.display()),
            ));
        }
        if !existed {
            created.push(path.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.bin");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"second");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn failed_write_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("missing-folder").join("a.bin");
        assert!(write_atomic(&p, b"x").is_err());
        assert!(!p.exists());
    }
}
