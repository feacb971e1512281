//! An export killed midway leaves, under each final name, either the old
//! file or no file: never a partial one.

use std::process::Command;
use std::time::Duration;

#[test]
fn killing_an_export_never_leaves_a_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let exe = env!("CARGO_BIN_EXE_orogen");
    // A first, complete export of a smaller map: the "old" files.
    let status = Command::new(exe)
        .args([
            "generate",
            "--recipe",
            "article-003-diamond-square",
            "--size",
            "257",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let old_r16 = std::fs::read(out.join("heightmap.r16")).unwrap();
    assert_eq!(old_r16.len(), 257 * 257 * 2);
    // Then large exports killed at increasing delays.
    for delay_ms in [150u64, 400, 700, 1000, 1500] {
        let mut child = Command::new(exe)
            .args([
                "generate",
                "--recipe",
                "article-003-diamond-square",
                "--size",
                "2049",
                "--out",
            ])
            .arg(&out)
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let r16 = std::fs::read(out.join("heightmap.r16")).unwrap();
        assert!(
            r16 == old_r16 || r16.len() == 2049 * 2049 * 2,
            "heightmap.r16 is {} bytes after a kill at {delay_ms} ms",
            r16.len()
        );
        let png = std::fs::read(out.join("heightmap.png")).unwrap();
        assert!(
            image::load_from_memory(&png).is_ok(),
            "heightmap.png must stay a whole PNG"
        );
    }
}
