//! An export stopped midway, by SIGKILL or by Ctrl+C (SIGINT), leaves
//! under each final name either the old file or a whole new one, never a
//! partial one; Ctrl+C removes its temporary files and exits with 130, and
//! the temporary files a killed export left are removed by the next export
//! into the folder.
//!
//! Each test proves it caught a write in progress: it watches the output
//! folder until a temporary file appears and stops the export at once.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Big enough that writing the files takes a while: an 8 MiB r16, two
/// 16-bit PNGs and a 2048 x 2048 texture with its splat maps.
const BIG: [&str; 4] = ["--size", "2049", "--texture", "2048"];
/// How many exports a test starts before it gives up catching a write.
const ATTEMPTS: usize = 8;

fn export(out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_orogen"));
    cmd.args(["generate", "--recipe", "article-003-diamond-square"])
        .args(extra)
        .arg("--out")
        .arg(out);
    cmd
}

/// Names in `dir` shaped like orogen's temporary files (`.<name>...tmp`).
fn temp_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with('.') && n.ends_with(".tmp"))
        .collect()
}

/// Starts a big export into `out` and returns it as soon as a temporary
/// file shows up there, still running; `None` if the export ended first.
fn start_and_catch_a_write(out: &Path, stderr: Stdio) -> Option<Child> {
    let mut child = export(out, &BIG)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        if !temp_names(out).is_empty() {
            return Some(child);
        }
        if child.try_wait().unwrap().is_some() || Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_micros(300));
    }
}

/// Each final height file is the old one or a whole new one, and every
/// PNG present decodes.
fn assert_no_partial_file(out: &Path, old_r16: &[u8], new_len: usize, when: &str) {
    let r16 = std::fs::read(out.join("heightmap.r16")).unwrap();
    assert!(
        r16 == old_r16 || r16.len() == new_len,
        "heightmap.r16 is {} bytes {when}",
        r16.len()
    );
    for png in final_files(out, "png") {
        let bytes = std::fs::read(&png).unwrap();
        assert!(
            image::load_from_memory(&bytes).is_ok(),
            "{} must stay a whole PNG {when}",
            png.display()
        );
    }
}

fn final_files(out: &Path, ext: &str) -> Vec<PathBuf> {
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect()
}

/// A first, complete export of a smaller map: the "old" files.
fn old_export(out: &Path) -> Vec<u8> {
    let status = export(out, &["--size", "257"]).status().unwrap();
    assert!(status.success());
    let old_r16 = std::fs::read(out.join("heightmap.r16")).unwrap();
    assert_eq!(old_r16.len(), 257 * 257 * 2);
    old_r16
}

#[test]
fn a_killed_export_leaves_old_or_whole_files_and_the_next_export_clears_its_temps() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let old_r16 = old_export(&out);

    // SIGKILL as soon as a temporary file exists. The kill proves it
    // interrupted a write when that file is still there afterwards (a
    // killed process cannot clean up); if the rename won the race, retry.
    let mut leftover = None;
    for attempt in 0..ATTEMPTS {
        let Some(mut child) = start_and_catch_a_write(&out, Stdio::null()) else {
            continue;
        };
        let pid = child.id();
        child.kill().unwrap();
        child.wait().unwrap();
        assert_no_partial_file(
            &out,
            &old_r16,
            2049 * 2049 * 2,
            &format!("after a kill (attempt {attempt})"),
        );
        let temps = temp_names(&out);
        if !temps.is_empty() {
            assert!(
                temps.iter().all(|t| t.contains(&format!(".{pid}."))),
                "temporary files {temps:?} must all be the killed export's ({pid})"
            );
            leftover = Some(temps);
            break;
        }
    }
    let leftover = leftover.expect("no kill caught a write in progress");

    // A temporary file of a live process (this test) must survive the
    // next export's sweep, as must a look-alike name.
    let live = format!(".heightmap.r16.{}.0.tmp", std::process::id());
    std::fs::write(out.join(&live), b"live").unwrap();
    std::fs::write(out.join(".foo.tmp"), b"not ours").unwrap();

    let status = export(&out, &["--size", "257", "--texture", "256"])
        .status()
        .unwrap();
    assert!(status.success());
    let mut temps = temp_names(&out);
    temps.sort();
    assert_eq!(
        temps,
        vec![".foo.tmp".to_string(), live],
        "the killed export's {leftover:?} must be gone, the others kept"
    );

    // Every final file is whole.
    assert_eq!(
        std::fs::read(out.join("heightmap.r16")).unwrap().len(),
        257 * 257 * 2
    );
    let pngs = final_files(&out, "png");
    assert!(pngs.iter().any(|p| p.ends_with("texture.png")));
    for png in pngs {
        let bytes = std::fs::read(&png).unwrap();
        assert!(image::load_from_memory(&bytes).is_ok(), "{}", png.display());
    }
    let json = std::fs::read(out.join("heightmap.json")).unwrap();
    assert!(serde_json::from_slice::<serde_json::Value>(&json).is_ok());
}

#[test]
fn ctrl_c_during_an_export_removes_its_temps_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let old_r16 = old_export(&out);

    let mut interrupted: Option<ExitStatus> = None;
    for attempt in 0..ATTEMPTS {
        let Some(child) = start_and_catch_a_write(&out, Stdio::piped()) else {
            continue;
        };
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        // SAFETY: signals our own child, which has not been waited for, so
        // its pid cannot have been reused.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
        let output = child.wait_with_output().unwrap();
        let status = output.status;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_no_partial_file(
            &out,
            &old_r16,
            2049 * 2049 * 2,
            &format!("after Ctrl+C (attempt {attempt})"),
        );
        // Success means the signal landed after the last rename: the write
        // was not caught after all, so try again.
        if status.success() {
            continue;
        }
        assert_eq!(status.code(), Some(130), "status {status:?}: {stderr}");
        assert_eq!(
            temp_names(&out),
            Vec::<String>::new(),
            "Ctrl+C must remove the export's temporary files"
        );
        // The handler reports what it removed; 0 means the file seen was
        // renamed before the signal landed, between two files: try again.
        if !stderr.contains("interrupted: removed 0 ") {
            assert!(stderr.contains("interrupted: removed "), "stderr: {stderr}");
            interrupted = Some(status);
            break;
        }
    }
    let status = interrupted.expect("no Ctrl+C caught a write in progress");
    assert_eq!(status.code(), Some(130));
    assert_eq!(
        temp_names(&out),
        Vec::<String>::new(),
        "Ctrl+C must remove the export's temporary files"
    );
}

/// Ctrl+C while an export writes into a folder it created: the folder
/// goes with the temporary files (no empty folder is left behind).
#[test]
fn ctrl_c_removes_the_folder_the_export_created() {
    let dir = tempfile::tempdir().unwrap();
    for attempt in 0..ATTEMPTS {
        let out = dir.path().join(format!("fresh-{attempt}"));
        let Some(child) = start_and_catch_a_write(&out, Stdio::piped()) else {
            continue;
        };
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        // SAFETY: signals our own child, which has not been waited for, so
        // its pid cannot have been reused.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Landed after the renames began (final files exist): try again.
        if output.status.success() || (out.exists() && !final_files(&out, "r16").is_empty()) {
            continue;
        }
        assert_eq!(output.status.code(), Some(130), "{stderr}");
        assert!(!out.exists(), "the created folder must go: {stderr}");
        return;
    }
    panic!("no Ctrl+C caught a write in progress");
}
