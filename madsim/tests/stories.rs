//! Issue 13, point 5: the example user client on the madsim front-end violates exactly the
//! invariants the native model violates on the same single-Redis stories, over 100 seeds
//! each. The native side is computed here through the `locksim` library, never written down.
#![cfg(madsim)]

#[path = "common/user_client.rs"]
mod user_client;

use std::collections::BTreeSet;

use locksim::load::{LoadedScenario, load_file};
use locksim_madsim::{explore, refuse};
use locksim_protocols::{Expected, run};
use locksim_sim::{Recording, Status};
use user_redis_lock::ValidityFrom;

const SEEDS: u64 = 100;

/// The invariants the native engine violates in at least one of the seeds.
fn native(loaded: &LoadedScenario) -> BTreeSet<&'static str> {
    (0..SEEDS)
        .flat_map(|seed| run(&loaded.scenario, seed, Recording::Facts).verdicts)
        .filter(|v| matches!(v.status, Status::Violated(_)))
        .map(|v| v.invariant.id())
        .collect()
}

fn front_end(loaded: &LoadedScenario) -> BTreeSet<&'static str> {
    let model = refuse::supported(&loaded.scenario).expect("a single-Redis story");
    let client = user_client::client_fn(&model.client, ValidityFrom::Send).expect("knobs the client honours");
    let summary = explore(loaded, 0..SEEDS, 2, &client).expect("runs");
    assert_eq!(summary.seeds, SEEDS);
    summary.violated().into_iter().collect()
}

fn same_as_native(path: &str) {
    let loaded = load_file(path.as_ref()).expect("loads");
    let native = native(&loaded);
    let front = front_end(&loaded);
    assert_eq!(front, native, "{path}: front-end vs native");
    // Both meet the story's own expectation of what is violated.
    for (invariant, expected) in &loaded.scenario.expect {
        if *expected == Expected::Violated {
            assert!(
                front.contains(invariant.id()),
                "{path}: {} never violated",
                invariant.id()
            );
        }
    }
}

#[test]
fn gc_pause_unfenced() {
    same_as_native("../scenarios/single-redis/kleppmann-gc-pause.toml");
}

#[test]
fn gc_pause_fenced() {
    same_as_native("../scenarios/single-redis/kleppmann-gc-pause-fenced.toml");
}

#[test]
fn vm_suspend() {
    same_as_native("../scenarios/single-redis/vm-suspend.toml");
}

#[test]
fn plain_del_release() {
    same_as_native("../scenarios/single-redis/plain-del-release.toml");
}

#[test]
fn plain_del_release_fixed() {
    same_as_native("../scenarios/single-redis/plain-del-release-fixed.toml");
}

#[test]
fn server_clock_jump() {
    same_as_native("tests/scenarios/server-clock-jump.toml");
}

#[test]
fn check_then_write_pause() {
    same_as_native("../scenarios/single-redis/check-then-write-pause.toml");
}

#[test]
fn server_crash_restart_without_persistence() {
    same_as_native("tests/scenarios/server-restart-empty.toml");
}

#[test]
fn server_crash_restart_with_persistence() {
    same_as_native("tests/scenarios/server-restart-always.toml");
}

/// Every other single-Redis catalogue story the example client can run (it refuses
/// `acquire = "setnx-then-expire"` and `renew = "blind"`, which it does not implement).
#[test]
fn the_rest_of_the_single_redis_catalogue() {
    let named = [
        "kleppmann-gc-pause",
        "kleppmann-gc-pause-fenced",
        "vm-suspend",
        "plain-del-release",
        "plain-del-release-fixed",
        "check-then-write-pause",
    ];
    let mut ran = 0;
    for entry in std::fs::read_dir("../scenarios/single-redis").expect("the catalogue") {
        let path = entry.expect("a file").path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if named.contains(&stem.as_str()) {
            continue;
        }
        let loaded = load_file(&path).expect("loads");
        let model = refuse::supported(&loaded.scenario).expect("single Redis without replicas");
        if user_client::user_config(&model.client, ValidityFrom::Send).is_err() {
            continue;
        }
        same_as_native(path.to_str().expect("utf-8"));
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} stories ran");
}
