//! One file written atomically: a synced temporary copy beside it,
//! renamed over its name, then the folder synced. Large files start
//! their writeback early or skip the page cache.

use super::naming::parent_dir;
use super::record::{FileOp, record};
use super::registry::{create_temp_for, unregister};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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
/// `path`'s name only through an [`AtomicSet`](super::AtomicSet).
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
pub(super) const DIRECT_MIN_BYTES: usize = 32 << 20;

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

/// Removes a temporary copy from [`write_temp_file`] that will not be
/// committed.
pub fn discard_temp_file(temp: &Path) {
    let _ = fs::remove_file(temp);
    unregister(temp);
}
