//! Atomic file writes: a temporary file in the target folder, synced, then
//! renamed over the final name. A write that is interrupted leaves either
//! the old file or none, never half a file.
//!
//! Temporary files are named `.<name>.<pid>.<nonce>.<n>.tmp`: `<pid>` is
//! the writing process (for people reading the folder), `<nonce>` 16 hex
//! digits drawn per folder, `<n>` a per-process counter. Before its first
//! temporary file in a folder, the process takes an [owner lock] there,
//! `.orogen-<pid>-<nonce>.lock`, and holds it until its last temporary file
//! in that folder is renamed or removed; then the lock file goes. Two things
//! keep temporary files from piling up when an export is stopped midway:
//!
//! - every temporary file this process has open is listed in a
//!   process-wide registry, and [`remove_live_temp_files`] deletes them
//!   all, with their lock files. The core installs no signal handler: the
//!   application calls that function from its own Ctrl+C handler, just
//!   before it exits;
//! - a process that was killed outright (SIGKILL, power loss) runs no
//!   handler, so [`remove_stale_temp_files`] clears the temporary files
//!   whose owner lock it can take itself (their writer is gone, on this
//!   machine or any other sharing the folder), then the lock file;
//!   [`ExportBundle::write_to`] calls it on its folder before each export.
//!
//! [owner lock]: super::owner_lock
//! [`ExportBundle::write_to`]: super::bundle::ExportBundle::write_to

use super::owner_lock::{OwnerLock, fresh_nonce, remove_abandoned_pending};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Whose temporary files these are: the writing process and the nonce of
/// its lock in that folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct OwnerId {
    pid: u32,
    nonce: u64,
}

impl OwnerId {
    /// The owner lock's file name, in the temporary files' folder.
    fn lock_name(self) -> String {
        format!(".orogen-{}-{:016x}.lock", self.pid, self.nonce)
    }

    /// A temporary name for `name` under this owner.
    fn temp_name(self, name: &str, n: u64) -> String {
        format!(".{name}.{}.{:016x}.{n}.tmp", self.pid, self.nonce)
    }
}

/// This process's owner lock in one folder: taken before its first
/// temporary file there, removed after its last is gone.
struct FolderOwner {
    dir: PathBuf,
    id: OwnerId,
    lock: OwnerLock,
    /// Registered temporary files in `dir`.
    temps: usize,
}

/// Temporary files this process has created and not yet renamed or removed.
struct LiveTemps {
    paths: Vec<PathBuf>,
    owners: Vec<FolderOwner>,
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
fn live_temps() -> MutexGuard<'static, LiveTemps> {
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
fn create_temp_for(path: &Path) -> io::Result<(PathBuf, fs::File)> {
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
fn create_exclusive(temp: &Path) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(temp)
}

/// Makes a folder's entries (renames, new files) durable: without it a
/// power cut after the renames can lose them although every file's data
/// was synced. Folders cannot be opened for syncing off Unix; there the
/// renames' own durability is the file system's.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        fs::File::open(dir)?.sync_all()?;
    }
    record(FileOp::DirSynced(dir.to_path_buf()));
    Ok(())
}

/// The folder a path's entry lives in (`.` for a bare name).
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A file operation, as the durability test sees them in order.
#[derive(Clone, Debug, PartialEq)]
pub enum FileOp {
    /// A temporary file was created.
    Created(PathBuf),
    /// A file's data was synced.
    DataSynced(PathBuf),
    /// A temporary file was renamed over its name.
    Renamed(PathBuf, PathBuf),
    /// A folder was synced.
    DirSynced(PathBuf),
    /// An owner lock was taken on this lock file, which then appeared
    /// (before any temporary file it covers).
    Locked(PathBuf),
    /// An owner lock file was removed (after the temporary files it
    /// covered were gone) and let go.
    Unlocked(PathBuf),
}

/// Operations recorded while [`record_file_ops`] is on (tests only).
static RECORDED: Mutex<Option<Vec<FileOp>>> = Mutex::new(None);

fn record(op: FileOp) {
    if let Some(ops) = RECORDED.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        ops.push(op);
    }
}

/// Starts (`true`) or stops recording file operations, returning what
/// was recorded: an in-process view of the order in which data is synced,
/// renamed and made durable, for tests on any platform.
pub fn record_file_ops(on: bool) -> Vec<FileOp> {
    let mut recorded = RECORDED.lock().unwrap_or_else(|e| e.into_inner());
    let taken = recorded.take().unwrap_or_default();
    if on {
        *recorded = Some(Vec::new());
    }
    taken
}

/// Notes a folder this process created for an export; see
/// [`remove_live_temp_files`].
pub fn register_created_dir(dir: &Path) {
    live_temps().created_dirs.push(dir.to_path_buf());
}

/// Forgets a temporary file that was renamed or removed; its folder's
/// owner lock goes with the last one there.
fn unregister(temp: &Path) {
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
/// [`write_atomic`] fails with [`io::ErrorKind::Interrupted`]. Meant to be called once, just before
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

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (temp, mut file) = create_temp_for(path)?;
    let result = (|| {
        write_with_early_writeback(&mut file, bytes)?;
        file.sync_all()?;
        record(FileOp::DataSynced(temp.clone()));
        fs::rename(&temp, path)?;
        record(FileOp::Renamed(temp.clone(), path.to_path_buf()));
        sync_dir(&parent_dir(path))
    })();
    drop(file);
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    // After the rename the temporary name is gone; if Ctrl+C's cleanup
    // runs before this line it finds nothing to remove under that name.
    unregister(&temp);
    result
}

/// Writes `bytes` to a registered temporary file beside `path`, synced;
/// returns its name. On an error nothing is left behind. The file takes
/// `path`'s name only through [`commit_temp_files`].
pub fn write_temp_file(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    write_temp(path, bytes)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display())))
}

fn write_temp(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let (temp, mut file) = create_temp_for(path)?;
    let result = (|| {
        if !write_direct(&mut file, bytes)? {
            write_with_early_writeback(&mut file, bytes)?;
        }
        file.sync_all()?;
        record(FileOp::DataSynced(temp.clone()));
        Ok(())
    })();
    drop(file);
    if let Err(e) = result {
        let _ = fs::remove_file(&temp);
        unregister(&temp);
        return Err(e);
    }
    Ok(temp)
}

/// Bytes per piece of a large write; the disk starts on each piece while
/// the next is copied.
const WRITEBACK_PIECE: usize = 8 << 20;

/// Writes `bytes` in pieces and, on Linux, asks the kernel to start
/// writing each piece to disk at once (`sync_file_range`, which does not
/// wait): the final sync then waits only for the last pieces, not for a
/// whole 128 MiB file that the kernel would otherwise begin flushing late.
fn write_with_early_writeback(file: &mut fs::File, bytes: &[u8]) -> io::Result<()> {
    let mut offset = 0usize;
    for piece in bytes.chunks(WRITEBACK_PIECE) {
        file.write_all(piece)?;
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: a plain syscall on an open descriptor; it only
            // schedules writeback of bytes already written. Failure (an
            // old kernel, a file system without it) just leaves the work
            // to the final sync, so its result is ignored.
            unsafe {
                libc::sync_file_range(
                    file.as_raw_fd(),
                    offset as libc::off64_t,
                    piece.len() as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
        }
        offset += piece.len();
    }
    Ok(())
}

/// Files from this size up are written directly when their bytes start
/// on a page.
const DIRECT_MIN_BYTES: usize = 32 << 20;

/// Writes a large, page-aligned `bytes` to the empty `file` with
/// `O_DIRECT`: the disk reads the bytes from this process's memory, so the
/// kernel neither copies them into its page cache nor takes fresh pages
/// for it (on a virtual machine, touching 128 MiB of fresh pages cost
/// about 0.35 s of CPU on every export of an 8193² map). The last partial
/// page goes through the cache as usual. Returns `Ok(false)`, with the
/// file empty again, where that is not possible (unaligned bytes, a small
/// file, a file system without direct I/O): the caller then writes
/// normally. Every direct write is whole pages at page offsets, as
/// `O_DIRECT` requires.
#[cfg(target_os = "linux")]
fn write_direct(file: &mut fs::File, bytes: &[u8]) -> io::Result<bool> {
    use crate::hugepages::PAGE_BYTES;
    use std::io::{Seek, SeekFrom};
    use std::os::fd::AsRawFd;
    if bytes.len() < DIRECT_MIN_BYTES || !(bytes.as_ptr() as usize).is_multiple_of(PAGE_BYTES) {
        return Ok(false);
    }
    let fd = file.as_raw_fd();
    let set_direct = |on: bool| -> bool {
        // SAFETY: fcntl on an open descriptor, reading then setting its
        // status flags; no memory is passed.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags >= 0 && {
                let flags = if on {
                    flags | libc::O_DIRECT
                } else {
                    flags & !libc::O_DIRECT
                };
                libc::fcntl(fd, libc::F_SETFL, flags) == 0
            }
        }
    };
    if !set_direct(true) {
        return Ok(false);
    }
    let whole_pages = bytes.len() / PAGE_BYTES * PAGE_BYTES;
    let direct = bytes[..whole_pages]
        .chunks(WRITEBACK_PIECE)
        .try_for_each(|piece| file.write_all(piece));
    let restored = set_direct(false);
    if direct.is_err() || !restored {
        // Start again through the cache: a real failure (a full disk)
        // shows up there with its own error.
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        return Ok(false);
    }
    file.write_all(&bytes[whole_pages..])?;
    Ok(true)
}

#[cfg(not(target_os = "linux"))]
fn write_direct(_: &mut fs::File, _: &[u8]) -> io::Result<bool> {
    Ok(false)
}

/// Removes a temporary copy from [`write_temp_file`] that will not be
/// committed.
pub fn discard_temp_file(temp: &Path) {
    let _ = fs::remove_file(temp);
    unregister(temp);
}

/// Writes several files as one export: every file's temporary copy is
/// written and synced first, all at once (each on a worker of its own:
/// the syncs wait on the disk, and the files are independent); only when
/// all succeeded are they renamed over their names, in the given order,
/// so a sidecar listed last never describes files that failed. If any
/// write fails, every temporary file is removed and nothing is replaced.
pub fn write_all_atomic(files: &[(PathBuf, &[u8])]) -> io::Result<()> {
    let temps: Vec<io::Result<PathBuf>> = files
        .par_iter()
        .map(|(path, bytes)| write_temp_file(path, bytes))
        .collect();
    let paths: Vec<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
    commit_temp_files(&paths, temps)
}

/// Renames each temporary copy (from [`write_temp_file`]) over its path,
/// in order, once every copy was written; if any was not, removes them all
/// and replaces nothing.
pub fn commit_temp_files(paths: &[PathBuf], temps: Vec<io::Result<PathBuf>>) -> io::Result<()> {
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
                Ok(temp) => {
                    let _ = fs::remove_file(&temp);
                    unregister(&temp);
                }
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
                let _ = fs::remove_file(rest);
                unregister(rest);
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
    Ok(())
}

/// Whether `s` is a decimal number of type `T` (digits only: no sign).
fn decimal<T: std::str::FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Exactly 16 lowercase hex digits.
fn nonce(s: &str) -> Option<u64> {
    let hex = s.len() == 16 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !hex {
        return None;
    }
    u64::from_str_radix(s, 16).ok()
}

/// The owner if `file_name` is exactly an orogen temporary name,
/// `.<name>.<pid>.<nonce>.<n>.tmp` with a non-empty `<name>`; `None` for
/// anything else, so look-alikes are never touched.
fn temp_file_owner(file_name: &str) -> Option<OwnerId> {
    let inner = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    // `<name>` may itself hold dots (`heightmap.r16`): split from the right.
    let mut parts = inner.rsplitn(4, '.');
    let n = parts.next()?;
    let nonce = nonce(parts.next()?)?;
    let pid = decimal(parts.next()?)?;
    let name = parts.next()?;
    if name.is_empty() {
        return None;
    }
    decimal::<u64>(n)?;
    Some(OwnerId { pid, nonce })
}

/// The owner if `file_name` is exactly an owner lock's name,
/// `.orogen-<pid>-<nonce>.lock`.
fn lock_file_owner(file_name: &str) -> Option<OwnerId> {
    let inner = file_name.strip_prefix(".orogen-")?.strip_suffix(".lock")?;
    let (pid, nonce_hex) = inner.split_once('-')?;
    Some(OwnerId {
        pid: decimal(pid)?,
        nonce: nonce(nonce_hex)?,
    })
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::owner_lock::{fork_guard, no_fork_while_locks_are_let_go};

    /// Large page-aligned bytes (written directly where the file system
    /// allows it, with a tail of a partial page) and the same bytes one
    /// byte off a page (written through the cache) both land whole.
    #[test]
    fn large_files_land_whole_aligned_or_not() {
        use crate::hugepages::page_aligned_in_parallel;
        let dir = tempfile::tempdir().unwrap();
        let len = DIRECT_MIN_BYTES + 3 * 4096 + 1234;
        let bytes = page_aligned_in_parallel(len + 1, 1 << 16, |i, chunk| {
            for (j, slot) in chunk.iter_mut().enumerate() {
                let k = (i << 16) + j;
                slot.write((k.wrapping_mul(2_654_435_761) >> 13) as u8);
            }
        });
        for (name, data) in [("aligned.bin", &bytes[..len]), ("offset.bin", &bytes[1..])] {
            let path = dir.path().join(name);
            let temp = write_temp_file(&path, data).unwrap();
            commit_temp_files(std::slice::from_ref(&path), vec![Ok(temp)]).unwrap();
            let back = fs::read(&path).unwrap();
            assert_eq!(back.len(), data.len(), "{name}");
            assert!(back == data, "{name}: contents differ");
        }
    }

    #[test]
    fn a_failed_file_leaves_every_name_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept.bin");
        fs::write(&kept, b"old").unwrap();
        let fresh = dir.path().join("fresh.bin");
        let impossible = dir.path().join("missing-folder").join("x.bin");
        let files = [
            (kept.clone(), &b"new"[..]),
            (impossible, &b"x"[..]),
            (fresh.clone(), &b"fresh"[..]),
        ];
        let err = write_all_atomic(&files).unwrap_err();
        assert!(err.to_string().contains("missing-folder"), "{err}");
        assert_eq!(fs::read(&kept).unwrap(), b"old", "nothing is replaced");
        assert!(!fresh.exists(), "nothing is created");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
        write_all_atomic(&[(kept.clone(), &b"new"[..]), (fresh.clone(), &b"fresh"[..])]).unwrap();
        assert_eq!(fs::read(&kept).unwrap(), b"new");
        assert_eq!(fs::read(&fresh).unwrap(), b"fresh");
    }

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
    fn a_folder_in_the_way_replaces_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.r16"), dir.path().join("b.png"));
        fs::write(&a, b"old").unwrap();
        fs::create_dir(&b).unwrap();
        let temps = vec![write_temp_file(&a, b"new"), write_temp_file(&b, b"new")];
        let error = commit_temp_files(&[a.clone(), b.clone()], temps).unwrap_err();
        assert!(error.to_string().contains("folder"), "{error}");
        assert_eq!(fs::read(&a).unwrap(), b"old", "nothing replaced");
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["a.r16", "b.png"], "no temporary file left");
    }

    #[test]
    fn failed_write_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("missing-folder").join("a.bin");
        assert!(write_atomic(&p, b"x").is_err());
        assert!(!p.exists());
    }

    #[test]
    fn finished_writes_leave_the_registry_empty() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.bin");
        write_atomic(&p, b"x").unwrap();
        let _ = write_atomic(&dir.path().join("missing").join("b.bin"), b"y");
        // Other tests write in parallel, so look for this test's temps only.
        let live = live_temps();
        assert!(!live.paths.iter().any(|t| t.starts_with(dir.path())));
        assert!(
            !live.owners.iter().any(|o| o.dir.starts_with(dir.path())),
            "no owner lock kept"
        );
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "a.bin alone");
    }

    #[test]
    fn temp_and_lock_names_are_recognised_exactly() {
        let owner = OwnerId {
            pid: 1234,
            nonce: 0x0123_4567_89ab_cdef,
        };
        assert_eq!(
            temp_file_owner(".heightmap.r16.1234.0123456789abcdef.5.tmp"),
            Some(owner)
        );
        assert_eq!(
            owner.temp_name("heightmap.r16", 5),
            ".heightmap.r16.1234.0123456789abcdef.5.tmp"
        );
        assert_eq!(owner.lock_name(), ".orogen-1234-0123456789abcdef.lock");
        assert_eq!(
            lock_file_owner(".orogen-1234-0123456789abcdef.lock"),
            Some(owner)
        );
        let hex = "0123456789abcdef";
        for other in [
            ".foo.tmp".to_string(),
            "x.1.0123456789abcdef.4.tmp".into(),
            format!("..1.{hex}.2.tmp"),
            format!(".a.1.{hex}.2.tmp.bak"),
            format!(".a.1x.{hex}.2.tmp"),
            format!(".a.1.{hex}.2x.tmp"),
            format!(".a..{hex}.2.tmp"),
            format!(".a.1.{hex}..tmp"),
            format!(".a.-1.{hex}.2.tmp"),
            format!(".a.99999999999.{hex}.2.tmp"),
            ".a.1.0123456789ABCDEF.2.tmp".into(),
            ".a.1.0123456789abcde.2.tmp".into(),
            // The earlier pid-only form is not this scheme's.
            ".heightmap.r16.1234.5.tmp".into(),
            "heightmap.r16".into(),
        ] {
            assert_eq!(temp_file_owner(&other), None, "{other}");
        }
        for other in [
            ".orogen-1234-0123456789abcdef.lock.bak",
            "orogen-1234-0123456789abcdef.lock",
            ".orogen-1234-0123456789abcdef-.lock",
            ".orogen--0123456789abcdef.lock",
            ".orogen-1234.lock",
            ".orogen-12a4-0123456789abcdef.lock",
        ] {
            assert_eq!(lock_file_owner(other), None, "{other}");
        }
    }

    /// Another writer's files: its lock file, taken through a handle of
    /// its own (as another process's would be), and temporary files.
    fn other_owner(dir: &Path, nonce: u64, temps: usize) -> (OwnerId, OwnerLock, Vec<PathBuf>) {
        let id = OwnerId { pid: 77, nonce };
        let lock = OwnerLock::create(&dir.join(id.lock_name())).unwrap();
        let files: Vec<PathBuf> = (0..temps as u64)
            .map(|n| {
                let path = dir.join(id.temp_name("heightmap.r16", n));
                fs::write(&path, b"partial").unwrap();
                path
            })
            .collect();
        (id, lock, files)
    }

    /// A temporary file is kept while its owner lock is held, and removed
    /// with the lock file once the lock is free; a look-alike stays.
    #[test]
    fn a_temp_is_kept_while_its_owner_lock_is_held_and_removed_once_free() {
        let _no_fork = no_fork_while_locks_are_let_go();
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (id, lock, temps) = other_owner(d, 1, 2);
        fs::write(d.join(".foo.tmp"), b"not ours").unwrap();

        assert_eq!(remove_stale_temp_files(d).unwrap(), 0);
        assert!(temps.iter().all(|t| t.exists()), "the writer runs");
        assert!(d.join(id.lock_name()).exists());

        drop(lock); // what the writer's end does, however it ends
        assert_eq!(remove_stale_temp_files(d).unwrap(), 2);
        assert!(temps.iter().all(|t| !t.exists()));
        assert!(!d.join(id.lock_name()).exists(), "its lock file goes too");
        assert!(d.join(".foo.tmp").exists());
    }

    /// What a dead writer can leave: a lock file alone (cleared), a
    /// temporary file whose lock file is already gone (cleared), a lock
    /// file it never published (cleared); a running writer's files and
    /// folders or links with such names stay.
    #[test]
    fn a_dead_writers_leftovers_go_a_running_writers_stay() {
        let _no_fork = no_fork_while_locks_are_let_go();
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (dead, dead_lock, _) = other_owner(d, 2, 0);
        drop(dead_lock);
        let lockless = OwnerId { pid: 78, nonce: 3 }.temp_name("texture.png", 0);
        fs::write(d.join(&lockless), b"x").unwrap();
        let unpublished = format!(
            "{}.00000000000000aa.pending",
            OwnerId { pid: 79, nonce: 4 }.lock_name()
        );
        fs::write(d.join(&unpublished), b"").unwrap();
        let (running, _running_lock, running_temps) = other_owner(d, 5, 1);
        let folder = OwnerId { pid: 80, nonce: 6 }.temp_name("a", 0);
        fs::create_dir(d.join(&folder)).unwrap();

        assert_eq!(remove_stale_temp_files(d).unwrap(), 1, "the lockless temp");
        let mut names: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        let mut kept = vec![
            running.lock_name(),
            running_temps[0]
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned(),
            folder,
        ];
        kept.sort();
        assert_eq!(names, kept, "{} and the rest gone", dead.lock_name());
    }

    /// A writer in another process: its temporary file stays while the
    /// process runs and goes, with its lock file, once it was killed.
    #[test]
    fn a_killed_writers_temp_goes_a_running_ones_stays() {
        const DIR_VAR: &str = "OROGEN_ATOMIC_OWNER_TEST_DIR";
        if let Some(dir) = std::env::var_os(DIR_VAR) {
            let dir = PathBuf::from(dir);
            let (_temp, _file) = create_temp_for(&dir.join("heightmap.r16")).unwrap();
            println!("writing");
            // Waits, holding the lock, until it is killed.
            let _ = io::stdin().read_line(&mut String::new());
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let fork = fork_guard();
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "io::atomic::tests::a_killed_writers_temp_goes_a_running_ones_stays",
                "--exact",
                "--test-threads=1",
                "--nocapture",
            ])
            .env(DIR_VAR, dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(fork);
        let mut stdout = io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while !line.contains("writing") {
            line.clear();
            assert_ne!(
                io::BufRead::read_line(&mut stdout, &mut line).unwrap(),
                0,
                "child ended"
            );
        }
        let names = || -> Vec<String> {
            let mut names: Vec<String> = fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            names
        };
        let before = names();
        assert_eq!(
            before.len(),
            2,
            "a lock file and a temporary file: {before:?}"
        );
        let temp = before
            .iter()
            .find_map(|n| temp_file_owner(n))
            .expect("a temp");
        assert_eq!(temp.pid, child.id());
        assert_eq!(lock_file_owner(&temp.lock_name()), Some(temp));
        assert!(before.contains(&temp.lock_name()), "{before:?}");

        assert_eq!(remove_stale_temp_files(dir.path()).unwrap(), 0);
        assert_eq!(names(), before, "kept while the writer runs");

        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(remove_stale_temp_files(dir.path()).unwrap(), 1);
        assert!(names().is_empty(), "{:?}", names());
    }

    /// Cleanup closes the registry for the rest of the process, so this
    /// test runs its body in a fresh copy of the test binary.
    #[test]
    fn cleanup_removes_live_temps_and_refuses_new_ones() {
        const DIR_VAR: &str = "OROGEN_ATOMIC_CLEANUP_TEST_DIR";
        if let Some(dir) = std::env::var_os(DIR_VAR) {
            let dir = PathBuf::from(dir);
            // A write in progress: its temporary file created, not renamed.
            let (temp, _file) = create_temp_for(&dir.join("heightmap.r16")).unwrap();
            assert!(temp.exists());
            assert_eq!(fs::read_dir(&dir).unwrap().count(), 2, "with its lock file");
            assert_eq!(remove_live_temp_files(), 1);
            assert!(!temp.exists());
            let late = write_atomic(&dir.join("late.bin"), b"x").unwrap_err();
            assert_eq!(late.kind(), io::ErrorKind::Interrupted);
            assert!(!dir.join("late.bin").exists());
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let _fork = fork_guard();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "io::atomic::tests::cleanup_removes_live_temps_and_refuses_new_ones",
                "--exact",
                "--test-threads=1",
            ])
            .env(DIR_VAR, dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        assert!(
            stdout.contains("1 passed"),
            "the body did not run: {stdout}"
        );
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            0,
            "neither temporary nor lock file left"
        );
    }

    #[test]
    fn stale_scan_of_a_missing_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(remove_stale_temp_files(&dir.path().join("none")).is_err());
    }

    /// The order that makes an export durable: every file's data synced
    /// before any rename, the renames in order, then the folder synced, so
    /// that a power cut after success loses nothing.
    #[test]
    fn data_is_synced_then_renamed_then_the_folder_synced() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            (dir.path().join("a.bin"), &b"first"[..]),
            (dir.path().join("b.bin"), &b"second"[..]),
        ];
        record_file_ops(true);
        write_all_atomic(&files).unwrap();
        let ops: Vec<FileOp> = record_file_ops(false)
            .into_iter()
            .filter(|op| match op {
                FileOp::Created(p)
                | FileOp::DataSynced(p)
                | FileOp::DirSynced(p)
                | FileOp::Locked(p)
                | FileOp::Unlocked(p) => p.starts_with(dir.path()),
                FileOp::Renamed(_, to) => to.starts_with(dir.path()),
            })
            .collect();
        let at = |want: &dyn Fn(&FileOp) -> bool| ops.iter().position(want).expect("recorded");
        let renamed = |name: &str| {
            let name = name.to_string();
            at(&move |op: &FileOp| matches!(op, FileOp::Renamed(_, to) if to.ends_with(&name)))
        };
        let (rename_a, rename_b) = (renamed("a.bin"), renamed("b.bin"));
        assert!(rename_a < rename_b, "renames in the given order: {ops:?}");
        for op in &ops {
            if let FileOp::DataSynced(temp) = op {
                let synced = at(&|o: &FileOp| o == op);
                let its_rename =
                    at(&|o: &FileOp| matches!(o, FileOp::Renamed(from, _) if from == temp));
                assert!(
                    synced < rename_a && synced < its_rename,
                    "data synced first: {ops:?}"
                );
            }
        }
        let dir_synced = at(&|op: &FileOp| *op == FileOp::DirSynced(dir.path().to_path_buf()));
        assert!(
            dir_synced > rename_b,
            "folder synced after the last rename: {ops:?}"
        );
        assert_eq!(fs::read(dir.path().join("b.bin")).unwrap(), b"second");

        // The owner lock: taken before the first temporary file exists,
        // named by every one of them, removed after the last rename.
        let Some(FileOp::Locked(lock)) = ops.first() else {
            panic!("the lock comes first: {ops:?}");
        };
        let owner = lock_file_owner(&lock.file_name().unwrap().to_string_lossy()).expect("a lock");
        let created: Vec<&PathBuf> = ops
            .iter()
            .filter_map(|op| match op {
                FileOp::Created(p) => Some(p),
                _ => None,
            })
            .collect();
        assert_eq!(created.len(), 2, "{ops:?}");
        for temp in created {
            let name = temp.file_name().unwrap().to_string_lossy();
            assert_eq!(temp_file_owner(&name), Some(owner), "{name}");
        }
        let unlocked = at(&|op: &FileOp| *op == FileOp::Unlocked(lock.clone()));
        assert!(
            unlocked > rename_b,
            "lock removed after the renames: {ops:?}"
        );
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["a.bin", "b.bin"], "no lock file left");
    }

    /// A temporary name that is already taken is never truncated.
    #[test]
    fn temporary_files_are_created_exclusively() {
        let dir = tempfile::tempdir().unwrap();
        let taken = dir.path().join(".x.tmp");
        fs::write(&taken, b"someone else's").unwrap();
        let err = create_exclusive(&taken).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&taken).unwrap(), b"someone else's");
    }
}
