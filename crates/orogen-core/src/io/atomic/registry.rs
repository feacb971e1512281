//! The process-wide registry of the temporary files this process is
//! writing, with each folder's owner lock, and the Ctrl+C cleanup that
//! removes them ([`remove_live_temp_files`]).

use super::naming::{OwnerId, parent_dir};
use super::record::{FileOp, record};
use crate::io::owner_lock::{OwnerLock, fresh_nonce};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// This process's owner lock in one folder: taken before its first
/// temporary file there, removed after its last is gone.
pub(super) struct FolderOwner {
    pub(super) dir: PathBuf,
    pub(super) id: OwnerId,
    lock: OwnerLock,
    /// Registered temporary files in `dir`.
    temps: usize,
}

/// Temporary files this process has created and not yet renamed or removed.
pub(super) struct LiveTemps {
    pub(super) paths: Vec<PathBuf>,
    pub(super) owners: Vec<FolderOwner>,
    /// Output folders this process created: an interrupted export removes
    /// them again when its cleanup leaves them empty.
    created_dirs: Vec<PathBuf>,
    /// Set by [`remove_live_temp_files`]: from then on no temporary file may
    /// be created, so a write racing the cleanup cannot leave one behind.
    closed: bool,
}

static LIVE_TEMPS: Mutex<LiveTemps> = Mutex::new(LiveTemps {
    paths: Vec::new(),
    owners: Vec::new(),
    created_dirs: Vec::new(),
    closed: false,
});

/// The registry, even if a thread panicked while holding it: the list of
/// paths stays valid whatever that thread was doing, and cleanup must still
/// work after a panic.
pub(super) fn live_temps() -> MutexGuard<'static, LiveTemps> {
    LIVE_TEMPS.lock().unwrap_or_else(|e| e.into_inner())
}

impl LiveTemps {
    /// This process's owner in `dir`, its lock taken first if it has none.
    fn owner_in(&mut self, dir: &Path) -> io::Result<&mut FolderOwner> {
        let index = match self.owners.iter().position(|o| o.dir == dir) {
            Some(index) => index,
            None => {
                let id = OwnerId {
                    pid: std::process::id(),
                    nonce: fresh_nonce(),
                };
                let lock = OwnerLock::create(&dir.join(id.lock_name()))?;
                record(FileOp::Locked(lock.path().to_path_buf()));
                self.owners.push(FolderOwner {
                    dir: dir.to_path_buf(),
                    id,
                    lock,
                    temps: 0,
                });
                self.owners.len() - 1
            }
        };
        Ok(&mut self.owners[index])
    }

    /// Removes `dir`'s owner lock once no temporary file there needs it.
    fn release_if_idle(&mut self, dir: &Path) {
        if let Some(index) = self
            .owners
            .iter()
            .position(|o| o.dir == dir && o.temps == 0)
        {
            remove_owner_lock(self.owners.swap_remove(index));
        }
    }
}

fn remove_owner_lock(owner: FolderOwner) {
    let path = owner.lock.path().to_path_buf();
    // A lock file that cannot be removed is left unheld: the next sweep
    // of the folder takes it and tries again.
    let _ = owner.lock.remove();
    record(FileOp::Unlocked(path));
}

/// Creates a fresh temporary file beside `path` and registers it, both
/// under the registry's lock, so [`remove_live_temp_files`] sees either no
/// file or a registered one, never a file it does not know of. The
/// folder's owner lock is held before the file exists.
pub(super) fn create_temp_for(path: &Path) -> io::Result<(PathBuf, fs::File)> {
    let mut live = live_temps();
    if live.closed {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "the export was interrupted",
        ));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let dir = parent_dir(path);
    let id = live.owner_in(&dir)?.id;
    let mut last = None;
    // A name already taken (a leftover) moves on to the next counter value.
    for _ in 0..16 {
        let temp =
            path.with_file_name(id.temp_name(&name, COUNTER.fetch_add(1, Ordering::Relaxed)));
        match create_exclusive(&temp) {
            Ok(file) => {
                record(FileOp::Created(temp.clone()));
                live.paths.push(temp.clone());
                live.owner_in(&dir)?.temps += 1;
                return Ok((temp, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => {
                last = Some(e);
                break;
            }
        }
    }
    live.release_if_idle(&dir);
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Creates `temp`, exclusively: never truncate a file someone else holds
/// open under this name.
pub(super) fn create_exclusive(temp: &Path) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(temp)
}

/// Notes a folder this process created for an export; see
/// [`remove_live_temp_files`].
pub fn register_created_dir(dir: &Path) {
    live_temps().created_dirs.push(dir.to_path_buf());
}

/// Forgets a temporary file that was renamed or removed; its folder's
/// owner lock goes with the last one there.
pub(super) fn unregister(temp: &Path) {
    let mut live = live_temps();
    let Some(i) = live.paths.iter().position(|p| p == temp) else {
        return;
    };
    live.paths.swap_remove(i);
    let dir = parent_dir(temp);
    if let Some(owner) = live.owners.iter_mut().find(|o| o.dir == dir) {
        owner.temps = owner.temps.saturating_sub(1);
    }
    live.release_if_idle(&dir);
}

/// Removes every temporary file this process is writing, with its owner
/// lock files, and refuses to create new ones from then on: every later
/// [`write_atomic`](super::write_atomic) fails with [`io::ErrorKind::Interrupted`]. Meant to be called once, just before
/// the process exits on Ctrl+C; final files already renamed into place
/// are left alone (each is whole), and folders this process created are
/// removed when that leaves them empty. Returns how many files were
/// removed.
///
/// The core installs no signal handler. This function takes a lock and
/// removes files, so it is not async-signal-safe: call it from an ordinary
/// thread, such as the one the `ctrlc` crate runs its handler on, not from
/// inside a raw signal handler.
pub fn remove_live_temp_files() -> usize {
    let mut live = live_temps();
    live.closed = true;
    let mut removed = 0;
    for path in live.paths.drain(..) {
        if fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    // The lock files after the files they cover, before the folders.
    for owner in live.owners.drain(..) {
        remove_owner_lock(owner);
    }
    // Fails, as it should, on a folder that holds anything.
    for dir in live.created_dirs.drain(..).rev() {
        let _ = fs::remove_dir(&dir);
    }
    removed
}
