use super::naming::{OwnerId, lock_file_owner, temp_file_owner};
use super::registry::{create_exclusive, create_temp_for, live_temps};
use super::write::DIRECT_MIN_BYTES;
use super::*;
use crate::io::owner_lock::{OwnerLock, fork_guard, no_fork_while_locks_are_let_go};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The files (all under the first one's folder) written as one
/// [`AtomicSet`].
fn write_all_atomic(files: &[(PathBuf, &[u8])]) -> io::Result<()> {
    let dir = files[0].0.parent().expect("files in a folder");
    let named: Vec<(String, &[u8])> = files
        .iter()
        .map(|(path, bytes)| {
            let name = path
                .strip_prefix(dir)
                .expect("under the first file's folder");
            (name.to_string_lossy().into_owned(), *bytes)
        })
        .collect();
    let mut set = AtomicSet::new(dir);
    set.stage_all(&named);
    set.commit().map(drop)
}

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
        let mut set = AtomicSet::new(dir.path());
        set.stage(name, data);
        assert_eq!(set.commit().unwrap(), vec![path.clone()]);
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
    let mut set = AtomicSet::new(dir.path());
    set.stage("a.r16", b"new");
    set.stage("b.png", b"new");
    let error = set.commit().unwrap_err();
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
