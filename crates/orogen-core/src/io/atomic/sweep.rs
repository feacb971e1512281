//! Clearing the temporary files that killed writers left in a folder.

use super::naming::{OwnerId, lock_file_owner, temp_file_owner};
use super::registry::live_temps;
use crate::io::owner_lock::{OwnerLock, remove_abandoned_pending};
use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Removes the temporary files in `dir` whose writer is gone (killed
/// midway, so it could not clean up), and their lock files. Only regular
/// files named exactly `.<name>.<pid>.<nonce>.<n>.tmp` are considered, and
/// only when their owner lock `.orogen-<pid>-<nonce>.lock` can be taken
/// here (its holder is gone, on whatever machine it ran) or does not exist
/// (the lock file is made before the first temporary file and removed
/// after the last, so files without one are a dead writer's). A running
/// export's temporary files and every other file stay; so do all of them
/// where the file system cannot lock. Returns how many temporary files
/// were removed.
pub fn remove_stale_temp_files(dir: &Path) -> io::Result<usize> {
    let mut temps: HashMap<OwnerId, Vec<PathBuf>> = HashMap::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let Some(owner) = temp_file_owner(name).or_else(|| lock_file_owner(name)) else {
            continue;
        };
        // Not a symlink or folder that happens to match the pattern.
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let files = temps.entry(owner).or_default();
        if temp_file_owner(name).is_some() {
            files.push(entry.path());
        }
    }
    // This process's own owners are alive by definition.
    let own: Vec<OwnerId> = live_temps().owners.iter().map(|o| o.id).collect();
    let mut removed = 0;
    for (owner, files) in temps {
        if own.contains(&owner) {
            continue;
        }
        let lock = match OwnerLock::try_take(&dir.join(owner.lock_name())) {
            Ok(Some(lock)) => Some(lock),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            // Held by a running writer, or not to be judged here.
            Ok(None) | Err(_) => continue,
        };
        let mut all_gone = true;
        for file in files {
            match fs::remove_file(file) {
                Ok(()) => removed += 1,
                Err(e) => all_gone &= e.kind() == io::ErrorKind::NotFound,
            }
        }
        // Only once every file it covered is gone; else it stays, free,
        // for the next sweep.
        if let Some(lock) = lock
            && all_gone
        {
            let _ = lock.remove();
        }
    }
    // Best effort: a lock file its writer never published hides nothing.
    let _ = remove_abandoned_pending(dir);
    Ok(removed)
}
