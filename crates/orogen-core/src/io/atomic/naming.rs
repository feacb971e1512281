//! The names of temporary files and owner locks, made and recognised
//! exactly: `.<name>.<pid>.<nonce>.<n>.tmp` and `.orogen-<pid>-<nonce>.lock`.

use std::path::{Path, PathBuf};

/// Whose temporary files these are: the writing process and the nonce of
/// its lock in that folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct OwnerId {
    pub(super) pid: u32,
    pub(super) nonce: u64,
}

impl OwnerId {
    /// The owner lock's file name, in the temporary files' folder.
    pub(super) fn lock_name(self) -> String {
        format!(".orogen-{}-{:016x}.lock", self.pid, self.nonce)
    }

    /// A temporary name for `name` under this owner.
    pub(super) fn temp_name(self, name: &str, n: u64) -> String {
        format!(".{name}.{}.{:016x}.{n}.tmp", self.pid, self.nonce)
    }
}

/// The folder a path's entry lives in (`.` for a bare name).
pub(super) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
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
pub(super) fn temp_file_owner(file_name: &str) -> Option<OwnerId> {
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
pub(super) fn lock_file_owner(file_name: &str) -> Option<OwnerId> {
    let inner = file_name.strip_prefix(".orogen-")?.strip_suffix(".lock")?;
    let (pid, nonce_hex) = inner.split_once('-')?;
    Some(OwnerId {
        pid: decimal(pid)?,
        nonce: nonce(nonce_hex)?,
    })
}
