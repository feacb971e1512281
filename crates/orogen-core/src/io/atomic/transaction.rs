//! Several files written as one: [`AtomicSet`].

use super::naming::parent_dir;
use super::record::{FileOp, record};
use super::registry::unregister;
use super::write::{discard_temp_file, sync_dir, write_temp_file};
use rayon::prelude::*;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Files written into one folder as one: each is staged as a synced
/// temporary copy beside its final name, and [`commit`](Self::commit)
/// renames them over their names in the order staged, only once every
/// copy was written, so a sidecar staged last never describes files that
/// failed; then it syncs their folders. If any copy failed, commit
/// removes them all and replaces nothing. A set dropped without commit
/// removes its copies.
///
/// ```no_run
/// # fn main() -> std::io::Result<()> {
/// use orogen_core::io::atomic::AtomicSet;
/// let mut set = AtomicSet::new(std::path::Path::new("out"));
/// set.stage("heightmap.r16", &[0, 0]);
/// set.stage("sidecar.json", b"{}");
/// let written = set.commit()?;
/// # Ok(()) }
/// ```
pub struct AtomicSet {
    dir: PathBuf,
    /// Each file's final path and its temporary copy (or why it could
    /// not be written), in commit order.
    staged: Vec<(PathBuf, io::Result<PathBuf>)>,
}

impl AtomicSet {
    /// An empty set of files for `dir`, which must exist.
    pub fn new(dir: &Path) -> Self {
        AtomicSet {
            dir: dir.to_path_buf(),
            staged: Vec::new(),
        }
    }

    /// Writes `bytes` now as the synced temporary copy of `dir/name`.
    pub fn stage(&mut self, name: &str, bytes: &[u8]) {
        let path = self.dir.join(name);
        let temp = write_temp_file(&path, bytes);
        self.staged.push((path, temp));
    }

    /// Stages `files` in their order, their copies written all at once
    /// (each on a worker of its own: the syncs wait on the disk, and the
    /// files are independent).
    pub fn stage_all<B: AsRef<[u8]> + Sync>(&mut self, files: &[(String, B)]) {
        let temps: Vec<io::Result<PathBuf>> = files
            .par_iter()
            .map(|(name, bytes)| write_temp_file(&self.dir.join(name), bytes.as_ref()))
            .collect();
        for ((name, _), temp) in files.iter().zip(temps) {
            self.staged.push((self.dir.join(name), temp));
        }
    }

    /// Stages the temporary copy of `dir/name` that [`write_temp_file`]
    /// wrote elsewhere (on a thread of its own, say), or why it could not.
    pub fn stage_written(&mut self, name: &str, temp: io::Result<PathBuf>) {
        self.staged.push((self.dir.join(name), temp));
    }

    /// Renames every staged copy over its name, in order, and syncs the
    /// folders; returns the files' paths. On an error (a copy that was
    /// not written, a folder where a file goes, a failed rename) nothing
    /// more is replaced and the copies not renamed are removed; the error
    /// names the file.
    pub fn commit(mut self) -> io::Result<Vec<PathBuf>> {
        let staged = std::mem::take(&mut self.staged);
        let (paths, temps): (Vec<PathBuf>, Vec<io::Result<PathBuf>>) = staged.into_iter().unzip();
        // A folder where a file goes would stop the renames halfway, after
        // some files were replaced: refuse before the first.
        let blocked = paths
            .iter()
            .find(|path| fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()));
        let temps = match blocked {
            Some(path) => {
                let mut temps = temps;
                temps.push(Err(io::Error::other(format!(
                    "cannot write {}: a folder of that name is in the way",
                    path.display()
                ))));
                // The folder's error, not a file's, when both failed.
                temps.rotate_right(1);
                temps
            }
            None => temps,
        };
        if temps.iter().any(Result::is_err) {
            let mut first_error = None;
            for temp in temps {
                match temp {
                    Ok(temp) => discard_temp_file(&temp),
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            return Err(first_error.unwrap_or_else(|| io::Error::other("an export file failed")));
        }
        let temps: Vec<PathBuf> = temps.into_iter().flatten().collect();
        for (index, (path, temp)) in paths.iter().zip(&temps).enumerate() {
            if let Err(e) = fs::rename(temp, path) {
                // Files already renamed stay (each whole); the rest go.
                for rest in &temps[index..] {
                    discard_temp_file(rest);
                }
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot write {}: {e}", path.display()),
                ));
            }
            record(FileOp::Renamed(temp.clone(), path.clone()));
            unregister(temp);
        }
        // The renames reach the disk only with their folders.
        let mut dirs: Vec<PathBuf> = paths.iter().map(|p| parent_dir(p)).collect();
        dirs.dedup();
        for dir in dirs {
            sync_dir(&dir).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot sync folder {}: {e}", dir.display()),
                )
            })?;
        }
        Ok(paths)
    }
}

impl Drop for AtomicSet {
    /// A set that is never committed leaves no temporary copy behind.
    fn drop(&mut self) {
        for (_, temp) in self.staged.drain(..) {
            if let Ok(temp) = temp {
                discard_temp_file(&temp);
            }
        }
    }
}
