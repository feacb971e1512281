//! Atomic file writes: a temporary file in the target folder, synced, then
//! renamed over the final name. A write that is interrupted leaves either
//! the old file or none, never half a file. One file goes through
//! [`write_atomic`]; several that must land together through an
//! [`AtomicSet`], a transaction: stage each, then commit.
//!
//! Temporary files are named `.<name>.<pid>.<nonce>.<n>.tmp` (`naming`):
//! `<pid>` is the writing process (for people reading the folder),
//! `<nonce>` 16 hex digits drawn per folder, `<n>` a per-process counter.
//! Before its first temporary file in a folder, the process takes an
//! [owner lock] there, `.orogen-<pid>-<nonce>.lock`, and holds it until
//! its last temporary file in that folder is renamed or removed; then the
//! lock file goes. Two things keep temporary files from piling up when an
//! export is stopped midway:
//!
//! - every temporary file this process has open is listed in a
//!   process-wide registry (`registry`), and [`remove_live_temp_files`]
//!   deletes them all, with their lock files. The core installs no
//!   signal handler: the application calls that function from its own
//!   Ctrl+C handler, just before it exits;
//! - a process that was killed outright (SIGKILL, power loss) runs no
//!   handler, so [`remove_stale_temp_files`] (`sweep`) clears the
//!   temporary files whose owner lock it can take itself (their writer is
//!   gone, on this machine or any other sharing the folder), then the
//!   lock file; [`ExportBundle::write_to`] calls it on its folder before
//!   each export.
//!
//! [owner lock]: super::owner_lock
//! [`ExportBundle::write_to`]: super::bundle::ExportBundle::write_to

mod naming;
mod record;
mod registry;
mod sweep;
mod transaction;
mod write;

#[cfg(test)]
pub(crate) use record::{FileOp, record_file_ops};
pub use registry::{register_created_dir, remove_live_temp_files};
pub use sweep::remove_stale_temp_files;
pub use transaction::AtomicSet;
pub use write::{discard_temp_file, sync_dir, write_atomic, write_temp_file};

#[cfg(test)]
mod tests;
