//! An interrupted run removes its temporary output (issue 12, point 7): Ctrl-C, SIGTERM or
//! SIGHUP in the middle of a long `--trace` run leaves neither the temporary file nor a
//! half-written trace behind, and the run ends with status 130, as a shell reports an
//! interrupted command.

#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Twelve simulated hours of three clients: seconds of writing, time enough to interrupt.
const LONG_RUN: &str = r#"
name = "long-run"
duration_ms = 43200000

[protocol]
kind = "single-redis"
clients = 3
"#;

fn temporary_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("the folder is readable")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp-"))
        .collect()
}

fn interrupt_mid_run(signal: &str) {
    let dir = common::scratch_dir("interrupt").join(signal);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    let scenario = dir.join("long-run.toml");
    common::write_whole(&scenario, LONG_RUN);
    let trace = dir.join("out.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args([
            "run",
            scenario.to_str().unwrap(),
            "--timeline",
            "none",
            "--max-events",
            "1000000000",
        ])
        .arg("--trace")
        .arg(&trace)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the locksim binary starts");
    let started = Instant::now();
    while temporary_files(&dir).is_empty() {
        assert!(
            child.try_wait().expect("the run is waited for").is_none(),
            "the run ended before its temporary trace file appeared"
        );
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no temporary trace file appeared"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = child.wait().expect("the run is waited for");
    assert_eq!(status.code(), Some(130), "{signal}: the run ends as interrupted");
    assert_eq!(
        temporary_files(&dir),
        Vec::<String>::new(),
        "{signal}: no temporary file is left"
    );
    assert!(!trace.exists(), "{signal}: no trace appears");
}

#[test]
fn ctrl_c_removes_the_temporary_trace() {
    interrupt_mid_run("INT");
}

#[test]
fn sigterm_and_sighup_remove_the_temporary_trace() {
    interrupt_mid_run("TERM");
    interrupt_mid_run("HUP");
}
