//! Atomic file writes: a temporary file in the target folder, synced, then
//! renamed over the final name. A write that is interrupted leaves either
//! the old file or none, never half a file.
//!
//! Temporary files are named `.<name>.<pid>.<n>.tmp` (`<pid>` is the
//! writing process, `<n>` a per-process counter). Two things keep them from
//! piling up when an export is stopped midway:
//!
//! - every temporary file this process has open is listed in a
//!   process-wide registry, and [`remove_live_temp_files`] deletes them
//!   all. The core installs no signal handler: the application calls that
//!   function from its own Ctrl+C handler, just before it exits;
//! - a process that was killed outright (SIGKILL, power loss) runs no
//!   handler, so [`remove_stale_temp_files`] clears the temporary files of
//!   processes that no longer exist; [`ExportBundle::write_to`] calls it on
//!   its folder before each export.
//!
//! [`ExportBundle::write_to`]: super::bundle::ExportBundle::write_to

use rayon::prelude::*;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Temporary files this process has created and not yet renamed or removed.
struct LiveTemps {
    paths: Vec<PathBuf>,
    /// Output folders this process created: an interrupted export removes
    /// them again when its cleanup leaves them empty.
    created_dirs: Vec<PathBuf>,
    /// Set by [`remove_live_temp_files`]: from then on no temporary file may
    /// be created, so a write racing the cleanup cannot leave one behind.
    closed: bool,
}

static LIVE_TEMPS: Mutex<LiveTemps> = Mutex::new(LiveTemps {
    paths: Vec::new(),
    created_dirs: Vec::new(),
    closed: false,
});

/// The registry, even if a thread panicked while holding it: the list of
/// paths stays valid whatever that thread was doing, and cleanup must still
/// work after a panic.
fn live_temps() -> MutexGuard<'static, LiveTemps> {
    LIVE_TEMPS.lock().unwrap_or_else(|e| e.into_inner())
}

fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}.{unique}.tmp", std::process::id()))
}

/// Creates the temporary file and registers it, both under the registry's
/// lock, so [`remove_live_temp_files`] sees either no file or a registered
/// one, never a file it does not know of.
fn create_registered(temp: &Path) -> io::Result<fs::File> {
    let mut live = live_temps();
    if live.closed {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "the export was interrupted",
        ));
    }
    // Exclusively: never truncate a file someone else holds open under
    // this name (an earlier process with the same pid, say).
    let file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(temp)?;
    record(FileOp::Created(temp.to_path_buf()));
    live.paths.push(temp.to_path_buf());
    Ok(file)
}

/// A fresh temporary name beside `path`, created exclusively and
/// registered: a name already taken (a leftover of an earlier process
/// that had this pid) moves on to the next counter value.
fn create_temp_for(path: &Path) -> io::Result<(PathBuf, fs::File)> {
    let mut last = None;
    for _ in 0..16 {
        let temp = temp_path(path);
        match create_registered(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
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

fn unregister(temp: &Path) {
    let mut live = live_temps();
    if let Some(i) = live.paths.iter().position(|p| p == temp) {
        live.paths.swap_remove(i);
    }
}

/// Removes every temporary file this process is writing, and refuses to
/// create new ones from then on: every later [`write_atomic`] fails with
/// [`io::ErrorKind::Interrupted`]. Meant to be called once, just before
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

/// The writer's pid if `file_name` is exactly an orogen temporary name,
/// `.<name>.<pid>.<n>.tmp` with a non-empty `<name>` and decimal `<pid>`
/// and `<n>`; `None` for anything else, so look-alikes are never touched.
fn temp_file_pid(file_name: &str) -> Option<u32> {
    let inner = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    // `<name>` may itself hold dots (`heightmap.r16`): split from the right.
    let mut parts = inner.rsplitn(3, '.');
    let n = parts.next()?;
    let pid = parts.next()?;
    let name = parts.next()?;
    let decimal = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if name.is_empty() || !decimal(n) || !decimal(pid) {
        return None;
    }
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether no process with this pid exists. Errs on the side of "alive":
/// only a definite "no such process" counts as dead.
#[cfg(unix)]
fn process_is_gone(pid: u32) -> bool {
    if pid == std::process::id() {
        return false;
    }
    // pid 0 and values past pid_t would make kill() signal a process group
    // or wrap round; no orogen process has such a pid, so keep the file.
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // Signal 0 only checks that the process exists; ESRCH means it does
    // not. EPERM means it exists under another user: alive.
    // SAFETY: kill with signal 0 sends nothing and touches no memory.
    let result = unsafe { libc::kill(pid, 0) };
    result == -1 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Without a portable existence check, every writer is taken to be alive.
#[cfg(not(unix))]
fn process_is_gone(_pid: u32) -> bool {
    false
}

/// Removes the temporary files in `dir` left by orogen processes that no
/// longer exist (killed midway, so they could not clean up). Only names of
/// exactly the form `.<name>.<pid>.<n>.tmp` that are regular files are
/// considered, and only when process `<pid>` is gone; a running export's
/// temporary files and every other file stay. Returns how many were removed.
///
/// The pid is checked on this machine: a folder shared over the network
/// with an export running on another machine could lose that export's
/// temporary file, which then fails its rename and reports an error
/// (its final file is not damaged).
pub fn remove_stale_temp_files(dir: &Path) -> io::Result<usize> {
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let Some(pid) = entry.file_name().to_str().and_then(temp_file_pid) else {
            continue;
        };
        // Not a symlink or folder that happens to match the pattern.
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        if process_is_gone(pid) && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn temp_names_are_recognised_exactly() {
        assert_eq!(temp_file_pid(".heightmap.r16.1234.5.tmp"), Some(1234));
        assert_eq!(temp_file_pid(".a.7.0.tmp"), Some(7));
        let written = temp_path(Path::new("/x/texture.png"));
        let name = written.file_name().unwrap().to_str().unwrap();
        assert_eq!(temp_file_pid(name), Some(std::process::id()));
        for other in [
            ".foo.tmp",
            "x.123.4.tmp",
            "..1.2.tmp",
            ".a.1.2.tmp.bak",
            ".a.1x.2.tmp",
            ".a.1.2x.tmp",
            ".a..2.tmp",
            ".a.1..tmp",
            ".a.-1.2.tmp",
            ".a.99999999999999999999.2.tmp",
            "heightmap.r16",
        ] {
            assert_eq!(temp_file_pid(other), None, "{other}");
        }
    }

    /// The pid of a process that has exited and been reaped.
    #[cfg(unix)]
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[cfg(unix)]
    #[test]
    fn stale_temps_of_dead_processes_are_removed_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dead_pid();
        assert!(process_is_gone(dead));
        let stale = format!(".heightmap.r16.{dead}.0.tmp");
        let live = format!(".heightmap.r16.{}.3.tmp", std::process::id());
        // Pid 1 (init) always exists; kill() may say EPERM, still alive.
        let init = ".heightmap.png.1.0.tmp".to_string();
        let keep = [
            live.clone(),
            init,
            ".foo.tmp".into(),
            "x.123.4.tmp".into(),
            format!("x.{dead}.4.tmp"),
            format!(".{dead}.4.tmp"),
            format!(".a.{dead}.4.tmp.bak"),
            "heightmap.r16".into(),
        ];
        for name in keep.iter().chain([&stale]) {
            fs::write(dir.path().join(name), b"x").unwrap();
        }
        // A folder with a dead pid's temp name is not a file: kept.
        let stale_dir = format!(".d.{dead}.1.tmp");
        fs::create_dir(dir.path().join(&stale_dir)).unwrap();

        assert_eq!(remove_stale_temp_files(dir.path()).unwrap(), 1);
        assert!(!dir.path().join(&stale).exists());
        for name in keep.iter().chain([&stale_dir]) {
            assert!(dir.path().join(name).exists(), "{name} must be kept");
        }
    }

    /// Cleanup closes the registry for the rest of the process, so this
    /// test runs its body in a fresh copy of the test binary.
    #[test]
    fn cleanup_removes_live_temps_and_refuses_new_ones() {
        const DIR_VAR: &str = "OROGEN_ATOMIC_CLEANUP_TEST_DIR";
        if let Some(dir) = std::env::var_os(DIR_VAR) {
            let dir = PathBuf::from(dir);
            // A write in progress: its temporary file created, not renamed.
            let temp = temp_path(&dir.join("heightmap.r16"));
            let _file = create_registered(&temp).unwrap();
            assert!(temp.exists());
            assert_eq!(remove_live_temp_files(), 1);
            assert!(!temp.exists());
            let late = write_atomic(&dir.join("late.bin"), b"x").unwrap_err();
            assert_eq!(late.kind(), io::ErrorKind::Interrupted);
            assert!(!dir.join("late.bin").exists());
            return;
        }
        let dir = tempfile::tempdir().unwrap();
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
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
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
                FileOp::Created(p) | FileOp::DataSynced(p) | FileOp::DirSynced(p) => {
                    p.starts_with(dir.path())
                }
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
    }

    /// A temporary name that is already taken is never truncated.
    #[test]
    fn temporary_files_are_created_exclusively() {
        let dir = tempfile::tempdir().unwrap();
        let taken = dir.path().join(".x.tmp");
        fs::write(&taken, b"someone else's").unwrap();
        let err = create_registered(&taken).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&taken).unwrap(), b"someone else's");
    }
}
