//! An export's files, gathered in memory and then written together, each
//! atomically (see [`atomic`](super::atomic)).

use crate::io::atomic::write_all_atomic;
use std::path::{Path, PathBuf};

/// Files of one export, in memory until written together.
#[derive(Default)]
pub struct ExportBundle {
    /// Each file's name in the output folder and its bytes, in the order added.
    pub files: Vec<(String, Vec<u8>)>,
}

impl ExportBundle {
    /// Queues a file named `name` (relative to the output folder) for writing.
    pub fn add(&mut self, name: impl Into<String>, bytes: Vec<u8>) {
        self.files.push((name.into(), bytes));
    }

    /// The bytes of the file named `name`, if the bundle has one.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }

    /// The names of the queued files, in the order they were added.
    pub fn names(&self) -> Vec<String> {
        self.files.iter().map(|(n, _)| n.clone()).collect()
    }

    /// Creates `dir` if needed and writes every file atomically.
    pub fn write_to(&self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        let created_dir = !dir.exists();
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create output folder {}: {e}", dir.display()))?;
        let files: Vec<(PathBuf, Vec<u8>)> = self
            .files
            .iter()
            .map(|(name, bytes)| (dir.join(name), bytes.clone()))
            .collect();
        if let Err(e) = write_all_atomic(&files) {
            if created_dir {
                let _ = std::fs::remove_dir(dir);
            }
            return Err(e.to_string());
        }
        Ok(files.into_iter().map(|(p, _)| p).collect())
    }
}
