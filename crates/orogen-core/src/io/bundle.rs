//! An export's files, gathered in memory and then written together, each
//! atomically (see [`atomic`](super::atomic)).

use crate::io::atomic::{AtomicSet, discard_temp_file, remove_stale_temp_files, write_temp_file};
use crate::io::errors::ExportError;
use rayon::prelude::*;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Files of one export, in memory until written together.
#[derive(Default)]
pub struct ExportBundle {
    /// Each file's name in the output folder and its bytes, in the order
    /// added; files already being written (see [`ExportBundle::add_writing`])
    /// are not here but come before these.
    pub files: Vec<(String, Vec<u8>)>,
    /// Files whose temporary copies are already being written.
    early: Vec<EarlyFile>,
    /// The folder the early files are written into, and whether this
    /// export created it (then it is removed again, if empty, unless the
    /// export completes).
    early_dir: Option<(PathBuf, bool)>,
}

/// A file whose temporary copy is being written while the export goes on
/// encoding the others.
struct EarlyFile {
    name: String,
    bytes: SharedBytes,
    writer: Writer,
}

/// Where an early file's temporary copy stands.
enum Writer {
    /// A thread of its own writes it.
    Running(JoinHandle<io::Result<PathBuf>>),
    /// Written (or failed); the path not yet committed or discarded.
    Finished(io::Result<PathBuf>),
    /// Handed to [`ExportBundle::write_to`].
    Taken,
}

impl EarlyFile {
    /// Waits for the write; its result, once.
    fn take(&mut self) -> io::Result<PathBuf> {
        match std::mem::replace(&mut self.writer, Writer::Taken) {
            Writer::Running(thread) => thread
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("a file writer panicked"))),
            Writer::Finished(result) => result,
            Writer::Taken => Err(io::Error::other("file already written")),
        }
    }
}

impl Drop for EarlyFile {
    /// A file that never reaches [`ExportBundle::write_to`] leaves no
    /// temporary copy behind, however the export stopped.
    fn drop(&mut self) {
        if !matches!(self.writer, Writer::Taken)
            && let Ok(temp) = self.take()
        {
            discard_temp_file(&temp);
        }
    }
}

impl Drop for ExportBundle {
    /// An export that stops before [`write_to`](Self::write_to) leaves no
    /// temporary copy of its early files, nor a folder it created.
    fn drop(&mut self) {
        self.early.clear();
        if let Some((dir, true)) = &self.early_dir {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Creates `dir` if needed (saying whether it did) and clears the
/// temporary files that killed orogen processes left in it.
pub fn prepare_dir(dir: &Path) -> Result<bool, ExportError> {
    let created = !dir.exists();
    if dir.exists() && !dir.is_dir() {
        return Err(ExportError::FolderIsFile(dir.to_path_buf()));
    }
    std::fs::create_dir_all(dir).map_err(|source| ExportError::CreateFolder {
        path: dir.to_path_buf(),
        source,
    })?;
    if created {
        crate::io::atomic::register_created_dir(dir);
    }
    // Best effort: leftovers that cannot be listed or removed do not
    // stop the export, whose own files do not depend on them.
    let _ = remove_stale_temp_files(dir);
    Ok(created)
}

/// Starts writing `bytes` as the temporary copy of `dir/name` on a thread
/// of its own: the write and its sync wait on the disk, so they overlap
/// the encoding of the export's other files. Give the result to
/// [`ExportBundle::add_writing`]; `dir` must have been [prepared](prepare_dir).
pub fn start_writing(dir: &Path, name: &str, bytes: Vec<u8>) -> WritingFile {
    start_writing_shared(dir, name, Arc::new(bytes))
}

/// A file's bytes shared with the thread that writes them.
pub type SharedBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// [`start_writing`] for bytes the caller keeps using meanwhile.
pub fn start_writing_shared(dir: &Path, name: &str, bytes: SharedBytes) -> WritingFile {
    let path = dir.join(name);
    let shared = Arc::clone(&bytes);
    let spawned = std::thread::Builder::new()
        .name(format!("write {name}"))
        .spawn({
            let path = path.clone();
            move || write_temp_file(&path, (*shared).as_ref())
        });
    let writer = match spawned {
        Ok(thread) => Writer::Running(thread),
        // No thread to be had: write it here instead.
        Err(_) => Writer::Finished(write_temp_file(&path, (*bytes).as_ref())),
    };
    WritingFile(EarlyFile {
        name: name.to_string(),
        bytes,
        writer,
    })
}

/// A file being written by [`start_writing`]; dropped unused, its
/// temporary copy is removed.
pub struct WritingFile(EarlyFile);

impl ExportBundle {
    /// An empty bundle whose early files go into `dir`, which the export
    /// created when `created` (removed again if the export stops early).
    pub fn writing_into(dir: &Path, created: bool) -> Self {
        Self {
            files: Vec::new(),
            early: Vec::new(),
            early_dir: Some((dir.to_path_buf(), created)),
        }
    }

    /// Queues a file named `name` (relative to the output folder) for writing.
    pub fn add(&mut self, name: impl Into<String>, bytes: Vec<u8>) {
        self.files.push((name.into(), bytes));
    }

    /// Adds a file already being written (see [`start_writing`]) into the
    /// folder this bundle was made for ([`ExportBundle::writing_into`]).
    pub fn add_writing(&mut self, file: WritingFile) {
        self.early.push(file.0);
    }

    /// The bytes of the file named `name`, if the bundle has one.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.early
            .iter()
            .find(|f| f.name == name)
            .map(|f| (*f.bytes).as_ref())
            .or_else(|| {
                self.files
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, b)| b.as_slice())
            })
    }

    /// The names of the queued files, in the order they are written.
    pub fn names(&self) -> Vec<String> {
        self.early
            .iter()
            .map(|f| f.name.clone())
            .chain(self.files.iter().map(|(n, _)| n.clone()))
            .collect()
    }

    /// Creates `dir` if needed and writes every file atomically: all
    /// temporary copies first, then the renames in order, so nothing is
    /// replaced unless every file was written. First it clears the
    /// temporary files that killed orogen processes left in `dir`.
    pub fn write_to(&mut self, dir: &Path) -> Result<Vec<PathBuf>, ExportError> {
        if let Some((early_dir, _)) = &self.early_dir
            && !self.early.is_empty()
            && early_dir != dir
        {
            return Err(ExportError::OtherFolder {
                started: early_dir.clone(),
                asked: dir.to_path_buf(),
            });
        }
        let created_dir = prepare_dir(dir)? || matches!(self.early_dir, Some((_, true)));
        // The rest first, while the early files' syncs finish.
        let rest: Vec<io::Result<PathBuf>> = self
            .files
            .par_iter()
            .map(|(name, bytes)| write_temp_file(&dir.join(name), bytes))
            .collect();
        // Committed in the bundle's order: the early files, then the rest.
        let mut set = AtomicSet::new(dir);
        for early in &mut self.early {
            let temp = early.take();
            set.stage_written(&early.name, temp);
        }
        for ((name, _), temp) in self.files.iter().zip(rest) {
            set.stage_written(name, temp);
        }
        let paths = match set.commit() {
            Ok(paths) => paths,
            Err(source) => {
                if created_dir {
                    let _ = std::fs::remove_dir(dir);
                }
                return Err(ExportError::Write {
                    dir: dir.to_path_buf(),
                    source,
                });
            }
        };
        // Complete: the folder stays. A folder this export created is
        // itself an entry of its parent, durable only once that is synced.
        if created_dir && let Some(parent) = dir.parent() {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            crate::io::atomic::sync_dir(parent).map_err(|source| ExportError::SyncFolder {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        self.early_dir = None;
        Ok(paths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn early_files_are_written_with_the_rest_in_order() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        let created = prepare_dir(&dir).unwrap();
        assert!(created);
        let mut bundle = ExportBundle::writing_into(&dir, created);
        bundle.add_writing(start_writing(&dir, "a.r16", vec![1, 2, 3]));
        bundle.add("b.json", b"{}".to_vec());
        assert_eq!(bundle.names(), ["a.r16", "b.json"]);
        assert_eq!(bundle.get("a.r16"), Some(&[1u8, 2, 3][..]));
        bundle.write_to(&dir).unwrap();
        drop(bundle);
        assert_eq!(entries(&dir), ["a.r16", "b.json"]);
        assert_eq!(std::fs::read(dir.join("a.r16")).unwrap(), [1, 2, 3]);
    }

    #[test]
    fn an_export_that_stops_early_leaves_nothing() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        let created = prepare_dir(&dir).unwrap();
        let mut bundle = ExportBundle::writing_into(&dir, created);
        bundle.add_writing(start_writing(&dir, "a.r16", vec![7; 1 << 20]));
        // The export fails before write_to: its early file's temporary
        // copy and the folder it created go.
        drop(bundle);
        assert!(!dir.exists(), "left {:?}", entries(&dir));
    }

    #[test]
    fn a_file_started_but_never_added_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        drop(start_writing(dir.path(), "a.r16", vec![1; 4096]));
        assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
    }

    #[test]
    fn early_files_go_only_into_their_own_folder() {
        let root = tempfile::tempdir().unwrap();
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        let created = prepare_dir(&a).unwrap();
        let mut bundle = ExportBundle::writing_into(&a, created);
        bundle.add_writing(start_writing(&a, "x.r16", vec![1, 2]));
        let err = bundle.write_to(&b).unwrap_err();
        assert!(
            matches!(&err, ExportError::OtherFolder { started, asked } if *started == a && *asked == b),
            "{err:?}"
        );
        assert!(err.to_string().contains("started in"), "{err}");
        drop(bundle);
        assert!(!a.exists() && !b.exists());
    }

    /// A folder the export created is synced into its parent after the
    /// folder itself.
    #[test]
    fn a_created_folder_is_synced_into_its_parent() {
        use crate::io::atomic::{FileOp, record_file_ops};
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("new-export");
        let mut bundle = ExportBundle::default();
        bundle.add("heightmap.json", b"{}".to_vec());
        record_file_ops(true);
        bundle.write_to(&dir).unwrap();
        let ops = record_file_ops(false);
        let own = ops
            .iter()
            .position(|op| *op == FileOp::DirSynced(dir.clone()));
        let parent = ops
            .iter()
            .position(|op| *op == FileOp::DirSynced(root.path().to_path_buf()));
        assert!(
            matches!((own, parent), (Some(a), Some(b)) if a < b),
            "folder then parent synced: {ops:?}"
        );
    }
}
