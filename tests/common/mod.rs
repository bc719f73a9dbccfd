//! Shared by the integration tests: where the catalogue is, and how to run the binary.

#![allow(dead_code)] // each test crate uses part of this module

pub mod mermaid;
pub mod story;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh folder of this test process in the system's temp folder, for files a test writes.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("locksim-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the temp folder is writable");
    dir
}

/// Writes `text` to `path` whole: tests run on several threads and some write the same file, so
/// a reader must never see it truncated mid-write. Each writer fills its own file, then renames it
/// over `path` (atomic on one file system).
pub fn write_whole(path: &Path, text: &str) {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let staging = path.with_extension(format!("writing-{n}"));
    std::fs::write(&staging, text).expect("the temp folder is writable");
    std::fs::rename(&staging, path).expect("rename within the temp folder");
}

/// Every scenario file under `scenarios/`, sorted.
pub fn catalogue() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("scenarios/ is readable")
            .map(|e| e.expect("dir entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("scenarios"), &mut out);
    assert!(!out.is_empty(), "the catalogue is empty");
    out
}

pub fn scenario(rel: &str) -> PathBuf {
    root().join("scenarios").join(rel)
}

/// Runs the `locksim` binary.
pub fn locksim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the locksim binary runs")
}

/// Runs `scenario` at its own seed with no timeline, writing its trace to `trace`.
pub fn run_writing_trace(scenario: &Path, trace: &Path) -> Output {
    locksim(&[
        "run",
        scenario.to_str().unwrap(),
        "--timeline",
        "none",
        "--trace",
        trace.to_str().unwrap(),
    ])
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
