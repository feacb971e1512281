//! Tests only: the file operations in the order they happen, for the
//! durability test on any platform. Outside tests, recording compiles to
//! nothing.

use std::path::PathBuf;
#[cfg(test)]
use std::sync::Mutex;

/// A file operation, as the durability test sees them in order.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum FileOp {
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
#[cfg(test)]
static RECORDED: Mutex<Option<Vec<FileOp>>> = Mutex::new(None);

#[cfg(test)]
pub(crate) fn record(op: FileOp) {
    if let Some(ops) = RECORDED.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        ops.push(op);
    }
}

/// Starts (`true`) or stops recording file operations, returning what
/// was recorded: an in-process view of the order in which data is synced,
/// renamed and made durable, for tests on any platform.
#[cfg(test)]
pub(crate) fn record_file_ops(on: bool) -> Vec<FileOp> {
    let mut recorded = RECORDED.lock().unwrap_or_else(|e| e.into_inner());
    let taken = recorded.take().unwrap_or_default();
    if on {
        *recorded = Some(Vec::new());
    }
    taken
}

/// Outside tests nothing is recorded.
#[cfg(not(test))]
#[inline(always)]
pub(crate) fn record(_op: FileOp) {}
