//! Files are safe (issue 12, point 7): `--trace` replaces only a regular file and keeps its
//! mode, temporary files of dead runs are cleaned, `explore --out` writes a finding's scenario
//! and trace as a pair under a new name rather than over an earlier finding, and a scenario
//! name cannot make `explore --out DIR` write outside DIR.

#![cfg(unix)]

mod common;

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A fresh, empty folder for one test.
fn fresh(name: &str) -> PathBuf {
    let dir = common::scratch_dir("files").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir
}

fn run_with_trace(trace: &Path) -> std::process::Output {
    let scenario = common::scenario("single-redis/kleppmann-gc-pause.toml");
    common::locksim(&["run", s(&scenario), "--timeline", "none", "--trace", s(trace)])
}

fn assert_refused(o: &std::process::Output, path: &Path, says: &str) {
    let err = common::stderr(o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(s(path)) && err.contains(says),
        "names {path:?} and says {says:?}: {err}"
    );
}

#[test]
fn a_trace_is_not_renamed_over_a_fifo_a_symlink_or_a_directory() {
    let dir = fresh("non-regular");
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    assert_refused(&run_with_trace(&fifo), &fifo, "it is a FIFO");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .expect("still there")
            .file_type()
            .is_fifo()
    );

    let target = dir.join("kept.json");
    std::fs::write(&target, "kept").expect("write");
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    assert_refused(&run_with_trace(&link), &link, "symbolic link");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("still there")
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "kept");

    let folder = dir.join("folder");
    std::fs::create_dir(&folder).expect("mkdir");
    assert_refused(&run_with_trace(&folder), &folder, "directory");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 4, "no temporary file left: {left:?}");
}

#[test]
fn a_replaced_trace_keeps_its_mode() {
    let trace = fresh("mode").join("trace.json");
    std::fs::write(&trace, "old").expect("write");
    std::fs::set_permissions(&trace, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let o = run_with_trace(&trace);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let meta = std::fs::metadata(&trace).expect("written");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(std::fs::read_to_string(&trace).expect("read").contains("\"events\""));
}

#[test]
fn temporary_files_of_dead_runs_are_cleaned_and_live_ones_left() {
    let dir = fresh("stale");
    let trace = dir.join("trace.json");
    // No process has this pid (Linux pids stop at 2^22); this test process is alive.
    let dead = dir.join(".trace.json.tmp-999999999");
    let alive = dir.join(format!(".trace.json.tmp-{}", std::process::id()));
    let unrelated = dir.join(".trace.json.tmp-notapid");
    for p in [&dead, &alive, &unrelated] {
        std::fs::write(p, "partial").expect("write");
    }
    let o = run_with_trace(&trace);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(!dead.exists(), "a dead run's temporary file is removed");
    assert!(alive.exists() && unrelated.exists(), "others are left alone");
    assert!(trace.exists());
}

/// Kleppmann's GC pause with its pause taken out, to be found again by exploring pauses.
fn gc_pause_space(dir: &Path, name: &str) -> PathBuf {
    let text = std::fs::read_to_string(common::scenario("single-redis/kleppmann-gc-pause.toml")).expect("read");
    let base = text.split("[[fault]]").next().expect("text before the fault");
    let base = base.replace("name = \"kleppmann-gc-pause\"", &format!("name = \"{name}\""));
    let path = dir.join("space.toml");
    common::write_whole(&path, &format!("{base}[explore]\nfaults = [\"pause\"]\n"));
    path
}

fn explore(scenario: &Path, out: &Path) -> std::process::Output {
    let args = ["explore", s(scenario), "--seeds", "200", "--invariant", "stale_write"];
    common::locksim(&[&args[..], &["--out", s(out)]].concat())
}

#[test]
fn a_second_finding_gets_a_new_name_and_the_earlier_one_is_kept() {
    let dir = fresh("findings");
    let out = dir.join("out");
    let scenario = gc_pause_space(&dir, "gc");
    let first = explore(&scenario, &out);
    assert_eq!(first.status.code(), Some(1), "{}", common::stderr(&first));
    let stem = "gc-seed4-stale-write";
    let earlier = out.join(format!("{stem}.toml"));
    let edited = format!("# edited by hand\n{}", std::fs::read_to_string(&earlier).expect("read"));
    std::fs::write(&earlier, &edited).expect("edit");
    let earlier_trace = std::fs::read(out.join(format!("{stem}.trace.json"))).expect("read");

    let second = explore(&scenario, &out);
    let stdout = common::stdout(&second);
    assert_eq!(second.status.code(), Some(1), "{}", common::stderr(&second));
    assert_eq!(
        std::fs::read_to_string(&earlier).expect("read"),
        edited,
        "the edit is kept"
    );
    assert_eq!(
        std::fs::read(out.join(format!("{stem}.trace.json"))).expect("read"),
        earlier_trace
    );
    let new = out.join(format!("{stem}-2.toml"));
    assert!(stdout.contains(s(&new)) && stdout.contains("a new name"), "{stdout}");
    assert!(stdout.contains(s(&earlier)), "says which finding it kept: {stdout}");

    // The pair matches: the new trace holds the new scenario, named by its path.
    let trace = out.join(format!("{stem}-2.trace.json"));
    let trace: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).expect("read")).expect("json");
    assert_eq!(trace["scenario_file"].as_str(), Some(s(&new)));
    let text = std::fs::read_to_string(&new).expect("read");
    assert_eq!(trace["scenario"].as_str(), Some(text.as_str()));
    assert!(text.contains(&format!("name = \"{stem}-2\"")), "{text}");
    let temporaries = std::fs::read_dir(&out).expect("dir").flatten();
    assert_eq!(temporaries.count(), 4, "two pairs and no temporary file");
}

#[test]
fn a_name_with_a_path_in_it_writes_nothing_outside_the_out_folder() {
    let dir = fresh("escape");
    let out = dir.join("out");
    let scenario = gc_pause_space(&dir, "../escaped");
    let o = explore(&scenario, &out);
    assert_refused(&o, &scenario, "key `name`");
    assert!(common::stderr(&o).contains(":15:"), "the line: {}", common::stderr(&o));
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["space.toml"], "nothing written beside the out folder");
}
