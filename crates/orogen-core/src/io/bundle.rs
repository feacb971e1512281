//! An export's files, gathered in memory and then written together, each
//! atomically (see [`atomic`](super::atomic)).

use crate::io::atomic::{remove_stale_temp_files, write_all_atomic};
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

    /// Creates `dir` if needed and writes every file atomically. First it
    /// clears the temporary files that killed orogen processes left in
    /// `dir` (see [`remove_stale_temp_files`]).
    pub fn write_to(&self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        let created_dir = !dir.exists();
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create output folder {}: {e}", dir.display()))?;
        // Best effort: leftovers that cannot be listed or removed do not
        // stop the export, whose own files do not depend on them.
        let _ = remove_stale_temp_files(dir);
        let files: Vec<(PathBuf, &[u8])> = self
            .files
            .iter()
            .map(|(name, bytes)| (dir.join(name), bytes.as_slice()))
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
