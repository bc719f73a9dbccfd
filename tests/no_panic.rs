//! Issue 12, point 6: the panics found on input locksim accepted (or on a hostile system) are
//! errors now — exit 2 with a message naming what was wrong — never a panic.

mod common;

use std::process::Command;

/// A thread the system refuses panicked `explore` ("failed to spawn thread"). A minimum stack
/// no system can map makes every spawn fail, as memory or process limits do.
#[test]
fn explore_reports_a_thread_the_system_refuses() {
    let scenario = common::scenario("single-redis/fencing-is-ordering.toml");
    let o = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(["explore", scenario.to_str().unwrap(), "--seeds", "2", "--jobs", "2"])
        .env("RUST_MIN_STACK", "1000000000000000")
        .current_dir(common::root())
        .output()
        .expect("the locksim binary runs");
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "exit 2; stderr: {err}");
    assert!(!err.contains("panicked"), "no panic: {err}");
    assert!(err.contains("cannot start the exploring thread"), "{err}");
}
