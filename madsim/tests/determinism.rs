//! Issue 13, point 7: a seed's trace is byte-identical in two processes, a summary does not
//! depend on how many threads ran the seeds, and `MADSIM_TEST_SEED` is read as a seed.
#![cfg(madsim)]

#[path = "common/user_client.rs"]
mod user_client;

use std::path::{Path, PathBuf};
use std::process::Command;

use locksim::load::{LoadedScenario, load_file};
use locksim_madsim::{ClientFn, explore, refuse, run_traced, seed_from_env};
use user_redis_lock::ValidityFrom;

const STORY: &str = "../scenarios/single-redis/kleppmann-gc-pause-fenced.toml";
/// Set in a child process: the file its trace goes to.
const CHILD_TRACE: &str = "LOCKSIM_MADSIM_CHILD_TRACE";

fn story() -> (LoadedScenario, ClientFn) {
    let loaded = load_file(STORY.as_ref()).expect("loads");
    let model = refuse::supported(&loaded.scenario).expect("supported");
    let client = user_client::client_fn(&model.client, ValidityFrom::Send).expect("client");
    (loaded, client)
}

/// In a child process (the parent test sets `CHILD_TRACE`): writes seed 5's trace. Alone, it
/// does nothing.
#[test]
fn child_writes_a_trace() {
    if let Ok(path) = std::env::var(CHILD_TRACE) {
        let (loaded, client) = story();
        run_traced(&loaded, 5, Path::new(&path), &client).expect("runs");
    }
}

fn trace_in_a_child(path: &Path) -> Vec<u8> {
    let status = Command::new(std::env::current_exe().expect("this test binary"))
        .args(["child_writes_a_trace", "--exact", "--test-threads", "1"])
        .env(CHILD_TRACE, path)
        .status()
        .expect("runs the child");
    assert!(status.success());
    std::fs::read(path).expect("the child wrote its trace")
}

#[test]
fn the_same_seed_gives_the_same_trace_bytes_in_two_processes() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("determinism");
    std::fs::create_dir_all(&dir).expect("a scratch dir");
    let a = trace_in_a_child(&dir.join("a.json"));
    let b = trace_in_a_child(&dir.join("b.json"));
    assert!(a.len() > 10_000, "a whole trace");
    assert!(a == b, "the two processes wrote different traces");
    // Another seed is another run.
    let (loaded, client) = story();
    let other = dir.join("other.json");
    run_traced(&loaded, 6, &other, &client).expect("runs");
    assert!(std::fs::read(&other).expect("written") != a);
}

#[test]
fn a_summary_does_not_depend_on_the_thread_count() {
    let (loaded, client) = story();
    let one = explore(&loaded, 10..40, 1, &client).expect("runs");
    let three = explore(&loaded, 10..40, 3, &client).expect("runs");
    assert_eq!(one, three);
    assert_eq!(one.seeds, 30);
}

#[test]
fn madsim_test_seed_is_read_as_a_seed() {
    // Only this test touches the variable in this process.
    unsafe { std::env::set_var("MADSIM_TEST_SEED", "42") };
    assert_eq!(seed_from_env(), Ok(Some(42)));
    unsafe { std::env::set_var("MADSIM_TEST_SEED", "x") };
    assert!(seed_from_env().unwrap_err().contains("MADSIM_TEST_SEED"));
    unsafe { std::env::remove_var("MADSIM_TEST_SEED") };
    assert_eq!(seed_from_env(), Ok(None));
}

#[test]
fn the_trace_is_a_locksim_trace_that_renders() {
    let (loaded, client) = story();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("render");
    std::fs::create_dir_all(&dir).expect("a scratch dir");
    let path = dir.join("trace.json");
    let result = run_traced(&loaded, 2, &path, &client).expect("runs");
    let trace = locksim::trace_file::read(&path).expect("reads as a locksim trace");
    assert_eq!(Some(trace.events as u64), result["events"].as_u64());
    assert_eq!(trace.seed, 2);
    let cast = trace.cast().expect("its scenario loads");
    let lanes = locksim::trace_view::trace_lanes(&trace, &cast, &locksim::render::Marks::default()).expect("lanes");
    assert!(lanes.contains("client-0  PAUSED for 15 s"), "{lanes}");
    assert!(lanes.contains("REJECTED"), "the late write is rejected:\n{lanes}");
}
