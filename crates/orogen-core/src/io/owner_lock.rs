//! Owner locks: how orogen tells a file whose writer is still running from
//! one a dead writer left behind, on any machine that shares the storage.
//!
//! The owner of some files (an export's temporary files, the viewer's
//! recovery copy) holds an exclusive lock ([`File::try_lock`]) on a lock
//! file beside them, from before the first of them exists until after the
//! last is gone. The operating system (or the file server) drops the lock
//! when the owner's process ends, however it ends, so a scanner judges
//! files by taking the lock itself: if it can, the owner is gone. No pid is
//! compared, which a reused pid or another machine would fool.
//!
//! Three rules keep the judgement unambiguous:
//!
//! - a lock file appears under its name already locked: it is created
//!   under a unique pending name (`<name>.<nonce>.pending`), locked, and
//!   only then linked (or renamed) to its name. A scanner never sees an
//!   unheld lock file of a live owner;
//! - the owner removes its files before its lock file, so files whose
//!   lock file is missing are a dead owner's;
//! - nobody removes a lock file without holding its lock, and names are
//!   never reused, so a removal cannot take away a live owner's file.
//!
//! A pending file whose lock is free is abandoned (its creator died before
//! locking it, or gave it up); [`remove_abandoned_pending`] clears those.
//! A creator whose pending file a scanner removed notices it (the link
//! fails) and starts again under a fresh name.
//!
//! Where the file system has no locks, the owner still creates its lock
//! file, unheld, and every scanner's attempt to take it fails with an
//! error: such files are never judged abandoned.

use std::fs::{self, File, TryLockError};
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// How a pending lock file's name ends.
const PENDING_SUFFIX: &str = ".pending";

/// An exclusive lock on a lock file, released when dropped or when the
/// process ends; the file itself stays until [`OwnerLock::remove`].
#[derive(Debug)]
pub struct OwnerLock {
    path: PathBuf,
    /// Keeps the lock: it belongs to this open file.
    _file: File,
}

impl OwnerLock {
    /// Creates the lock file `path`, locked before it appears under that
    /// name, for an owner about to create the files it covers. `path` must
    /// be a name no one else creates (callers put a [`fresh_nonce`] in
    /// it); fails with [`io::ErrorKind::AlreadyExists`] if it exists.
    pub fn create(path: &Path) -> io::Result<OwnerLock> {
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a lock needs a file name"))?
            .to_string_lossy()
            .into_owned();
        // A scanner may take a pending file away between our creating and
        // locking it; each try uses a fresh pending name.
        for _ in 0..8 {
            let pending =
                path.with_file_name(format!("{name}.{:016x}{PENDING_SUFFIX}", fresh_nonce()));
            let file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&pending)?;
            match file.try_lock() {
                Ok(()) => {}
                // A scanner holds it and is removing it: try another name.
                Err(TryLockError::WouldBlock) => continue,
                // No locks on this file system: the file is created all the
                // same, so its covered files are never judged abandoned.
                Err(TryLockError::Error(_)) => {}
            }
            match publish(&pending, path) {
                Ok(()) => {
                    return Ok(OwnerLock {
                        path: path.to_path_buf(),
                        _file: file,
                    });
                }
                // A scanner removed the pending file before we locked it.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => {
                    let _ = fs::remove_file(&pending);
                    return Err(e);
                }
            }
        }
        Err(io::Error::other(format!(
            "cannot create the lock file {}: its pending files kept being taken",
            path.display()
        )))
    }

    /// Takes the lock on the existing lock file `path` if no one holds it:
    /// `Ok(None)` while its owner runs, [`io::ErrorKind::NotFound`] if the
    /// file does not exist (it is not created), any other error where the
    /// lock cannot be judged (a file system without locks).
    pub fn try_take(path: &Path) -> io::Result<Option<OwnerLock>> {
        let file = fs::OpenOptions::new().write(true).open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(OwnerLock {
                path: path.to_path_buf(),
                _file: file,
            })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the lock file while still holding it, then lets the lock go.
    /// A file already gone is not an error.
    pub fn remove(self) -> io::Result<()> {
        match fs::remove_file(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// Gives the pending file its final name without ever replacing a file
/// there: a hard link where the file system has them, else a rename after
/// a check (names are unique, so the check only guards against misuse).
fn publish(pending: &Path, path: &Path) -> io::Result<()> {
    match fs::hard_link(pending, path) {
        Ok(()) => {
            // The lock is held through the final name now.
            let _ = fs::remove_file(pending);
            Ok(())
        }
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::AlreadyExists
            ) =>
        {
            Err(e)
        }
        Err(_) => {
            if fs::symlink_metadata(path).is_ok() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{} exists", path.display()),
                ));
            }
            fs::rename(pending, path)
        }
    }
}

/// 64 bits no other process (on this machine or another) draws: std's
/// hasher keys come from the operating system's randomness, and the time
/// and a counter make each draw within the process differ.
pub fn fresh_nonce() -> u64 {
    static DRAWN: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    hasher.write_u64(DRAWN.fetch_add(1, Ordering::Relaxed));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    hasher.write_u128(nanos);
    hasher.finish()
}

/// Whether `file_name` is exactly a pending lock file's name,
/// `<name>.lock.<16 hex digits>.pending`.
fn is_pending_name(file_name: &str) -> bool {
    let Some(rest) = file_name.strip_suffix(PENDING_SUFFIX) else {
        return false;
    };
    let Some((lock_name, nonce)) = rest.rsplit_once('.') else {
        return false;
    };
    lock_name.len() > ".lock".len()
        && lock_name.ends_with(".lock")
        && nonce.len() == 16
        && nonce
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Removes the pending lock files in `dir` whose lock is free (their
/// creator died before publishing them, or gave them up); pending files
/// being published are held, and kept. Returns how many were removed.
pub fn remove_abandoned_pending(dir: &Path) -> io::Result<usize> {
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let is_pending = entry.file_name().to_str().is_some_and(is_pending_name);
        if !is_pending || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        if let Ok(Some(lock)) = OwnerLock::try_take(&entry.path())
            && lock.remove().is_ok()
        {
            removed += 1;
        }
    }
    Ok(removed)
}

/// A child process shares every open file of its parent between its fork
/// and its exec, locks included: a test that lets a lock go and expects
/// it free at once must not overlap another test's spawn. Spawning tests
/// hold [`fork_guard`] while they spawn, lock-release tests hold
/// [`no_fork_while_locks_are_let_go`] throughout.
#[cfg(test)]
static FORK_GUARD: std::sync::RwLock<()> = std::sync::RwLock::new(());

#[cfg(test)]
pub(crate) fn fork_guard() -> std::sync::RwLockWriteGuard<'static, ()> {
    FORK_GUARD.write().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
pub(crate) fn no_fork_while_locks_are_let_go() -> std::sync::RwLockReadGuard<'static, ()> {
    FORK_GUARD.read().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    /// The created lock is held (a second handle cannot take it), leaves
    /// no pending file, and once removed is gone for every scanner.
    #[test]
    fn a_created_lock_is_held_until_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("owner.lock");
        let lock = OwnerLock::create(&path).unwrap();
        assert_eq!(lock.path(), path);
        assert_eq!(names_in(dir.path()), ["owner.lock"]);
        assert!(OwnerLock::try_take(&path).unwrap().is_none(), "held");
        lock.remove().unwrap();
        assert!(names_in(dir.path()).is_empty());
        let gone = OwnerLock::try_take(&path).unwrap_err();
        assert_eq!(gone.kind(), io::ErrorKind::NotFound, "not created");
        assert!(names_in(dir.path()).is_empty());
    }

    /// A lock file whose owner let go (here: dropped, as a process end
    /// does) can be taken, and then removed.
    #[test]
    fn a_lock_let_go_can_be_taken_and_removed() {
        let _no_fork = no_fork_while_locks_are_let_go();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("owner.lock");
        drop(OwnerLock::create(&path).unwrap());
        assert!(path.exists(), "dropping keeps the file");
        let taken = OwnerLock::try_take(&path).unwrap().expect("free");
        assert!(OwnerLock::try_take(&path).unwrap().is_none(), "now ours");
        taken.remove().unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn an_existing_name_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("owner.lock");
        fs::write(&path, b"someone's").unwrap();
        let err = OwnerLock::create(&path).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&path).unwrap(), b"someone's");
        assert_eq!(names_in(dir.path()), ["owner.lock"], "no pending file left");
        let missing = OwnerLock::create(&dir.path().join("none").join("x.lock")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    /// Pending files: a free one goes, a held one (being published) stays,
    /// and look-alikes stay.
    #[test]
    fn abandoned_pending_files_are_removed_held_ones_kept() {
        let _no_fork = no_fork_while_locks_are_let_go();
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let free = "a.lock.0123456789abcdef.pending";
        let held = "b.lock.fedcba9876543210.pending";
        let others = [
            "c.lock.0123456789ABCDEF.pending",
            "c.lock.0123.pending",
            ".lock.0123456789abcdef.pending",
            "c.txt.0123456789abcdef.pending",
            "c.lock.0123456789abcdef.pending.bak",
            "c.lock",
        ];
        for name in others.iter().chain([&free, &held]) {
            fs::write(d.join(name), b"").unwrap();
        }
        fs::create_dir(d.join("d.lock.0123456789abcdef.pending")).unwrap();
        let holder = OwnerLock::try_take(&d.join(held)).unwrap().expect("free");
        assert_eq!(remove_abandoned_pending(d).unwrap(), 1);
        assert!(!d.join(free).exists());
        assert!(d.join(held).exists());
        for name in others {
            assert!(d.join(name).exists(), "{name} must be kept");
        }
        drop(holder);
        assert_eq!(remove_abandoned_pending(d).unwrap(), 1);
        assert!(!d.join(held).exists());
    }

    #[test]
    fn nonces_differ() {
        let drawn: std::collections::HashSet<u64> = (0..1000).map(|_| fresh_nonce()).collect();
        assert_eq!(drawn.len(), 1000);
    }
}
