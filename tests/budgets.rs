//! Issue 12, point 5: budgets instead of hangs. Input that used to spin, wait or grow for ever
//! now ends with exit 2 and a message naming the cause, within seconds.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `locksim` with `args`, killing it if it has not ended within `limit`: a hang is a
/// failure of the test, not a test that never ends.
fn locksim_within(limit: Duration, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(args)
        .current_dir(common::root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the locksim binary runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            child.kill().expect("kill the hung run");
            let _ = child.wait();
            panic!("locksim {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// Checks exit 2, no panic, and that stderr says each of `says`.
fn refused(o: &Output, says: &[&str]) {
    let err = common::stderr(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "exit 2, got {:?}; stderr: {err}",
        o.status.code()
    );
    assert!(!err.contains("panicked"), "no panic: {err}");
    for s in says {
        assert!(err.contains(s), "says {s:?}: {err}");
    }
}

fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("budgets").join(name)
}

const SECONDS_10: Duration = Duration::from_secs(10);

#[test]
fn devices_directories_and_fifos_are_refused_before_reading() {
    let fifo = scratch("fifo.toml");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    let dir = common::scratch_dir("budgets");
    for path in [Path::new("/dev/zero"), fifo.as_path(), dir.as_path()] {
        let p = path.to_str().unwrap();
        for args in [vec!["run", p], vec!["replay", p], vec!["render", p]] {
            let o = locksim_within(SECONDS_10, &args);
            refused(&o, &[p, "not a regular file"]);
        }
    }
}

/// A scenario is read whole, so its size is capped; a trace is read as a stream, so it is not:
/// the same big file is refused as a scenario for its size, and as a trace for its content.
#[test]
fn scenario_files_over_16_mib_are_refused_before_reading() {
    let big = scratch("big.toml");
    let file = std::fs::File::create(&big).expect("scratch is writable");
    // Sparse: the size is what is refused, no byte needs to be written.
    file.set_len(16 * 1024 * 1024 + 1).expect("set_len");
    let p = big.to_str().unwrap();
    let o = locksim_within(SECONDS_10, &["run", p]);
    refused(
        &o,
        &[p, "larger than 16 MiB, the most locksim reads from one scenario file"],
    );
    for command in ["replay", "render"] {
        let o = locksim_within(SECONDS_10, &[command, p]);
        refused(&o, &[p, "not a JSON trace"]);
        assert!(!common::stderr(&o).contains("MiB"), "{}", common::stderr(&o));
    }
    std::fs::remove_file(&big).expect("remove the sparse file");
}

/// A lock client with no work, no think time and instant links: every round at true time 0.
fn spinning(kind: &str) -> String {
    format!(
        "name = \"spin\"\nduration_ms = 1000\n\n[protocol]\nkind = \"{kind}\"\nwork_ms = 0\nthink_ms = 0\n\n\
         [network]\nlatency_min_ms = 0\nlatency_max_ms = 0\n"
    )
}

#[test]
fn a_run_that_stops_advancing_time_is_refused_naming_its_knobs() {
    for kind in ["single-redis", "redlock", "etcd-lease"] {
        let path = scratch(&format!("spin-{kind}.toml"));
        common::write_whole(&path, &spinning(kind));
        let p = path.to_str().unwrap();
        let o = locksim_within(Duration::from_secs(60), &["run", p, "--timeline", "none"]);
        refused(
            &o,
            &[
                p,
                "seed 0: simulated time stopped advancing at 0.000 s: 100000 events at one instant",
                "protocol.work_ms = 0 (line 6), protocol.think_ms = 0 (line 7), network.latency_min_ms = 0 (line 10)",
            ],
        );
        // Exploration reports the seed instead of spinning on it.
        let o = locksim_within(Duration::from_secs(60), &["explore", p, "--seeds", "2", "--jobs", "1"]);
        refused(
            &o,
            &[p, "seed 0 of the exploration", "simulated time stopped advancing"],
        );
    }
}

#[test]
fn the_event_budget_stops_run_replay_and_explore_and_can_be_raised() {
    let scenario = "scenarios/single-redis/kleppmann-gc-pause.toml";
    let budget_of_1000 = "the run reached its budget of 1000 events at";
    let raise = "raise it with --max-events N (the default is 10000000)";
    let o = locksim_within(SECONDS_10, &["run", scenario, "--max-events", "1000"]);
    refused(&o, &[scenario, "seed ", budget_of_1000, raise]);
    let o = locksim_within(SECONDS_10, &["run", scenario, "--max-events", "0"]);
    refused(&o, &["--max-events"]);

    let trace = scratch("budget.trace.json");
    let t = trace.to_str().unwrap();
    let o = locksim_within(SECONDS_10, &["run", scenario, "--trace", t, "--timeline", "none"]);
    assert_ne!(o.status.code(), Some(2), "{}", common::stderr(&o));
    let o = locksim_within(SECONDS_10, &["replay", t, "--max-events", "1000"]);
    refused(&o, &[t, "the embedded scenario stopped", budget_of_1000]);
    let o = locksim_within(SECONDS_10, &["replay", t, "--max-events", "10000000"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));

    let o = locksim_within(
        SECONDS_10,
        &["explore", scenario, "--seeds", "3", "--max-events", "1000"],
    );
    refused(&o, &[scenario, "seed 0 of the exploration", budget_of_1000]);
}

const TEN_YEARS_MS: i64 = 10 * 365 * 24 * 3_600_000;

/// Runs `locksim run` on scenario `text` and checks it is refused with each of `says`.
fn run_refuses(name: &str, text: &str, says: &[&str]) {
    let path = scratch(name);
    common::write_whole(&path, text);
    let p = path.to_str().unwrap();
    let o = locksim_within(SECONDS_10, &["run", p, "--timeline", "none"]);
    refused(&o, &[&[p][..], says].concat());
}

/// Clock jumps of ten years each (the most one may be) added up past what an `i64` of
/// nanoseconds holds: a debug build panicked, a release build wrapped the wall clock.
#[test]
fn a_clock_that_would_overflow_is_refused_naming_it() {
    for sign in [1, -1] {
        let jumps: Vec<String> = (1..=30)
            .map(|at| format!("  {{ at_ms = {at}, by_ms = {} }},", sign * TEN_YEARS_MS))
            .collect();
        run_refuses(
            &format!("clock-jumps-{sign}.toml"),
            &format!(
                "name = \"clock\"\nduration_ms = 1000\n\n[protocol]\nkind = \"single-redis\"\n\n\
                 [[clock]]\nnode = \"client-0\"\noffset_ms = {}\njumps = [\n{}\n]\n",
                sign * TEN_YEARS_MS,
                jumps.join("\n")
            ),
            &[
                ":19:",
                "key `clock[0].jumps[8].by_ms`",
                "the wall clock of client-0 could get more than 100 years from its epoch",
            ],
        );
    }
    // A `[[fault]]` clock jump is counted too, and named by its own key and line.
    let faults: String = (0..1100)
        .map(|_| "[[fault]]\nkind = \"clock_jump\"\nnode = \"server-0\"\nat_ms = 1\nby_ms = 2592000000\n\n")
        .collect();
    run_refuses(
        "fault-jumps.toml",
        &format!(
            "name = \"clock\"\nduration_ms = 1000\n\n[protocol]\nkind = \"single-redis\"\n\n\
             [[clock]]\nnode = \"server-0\"\noffset_ms = {}\njumps = [{{ at_ms = 1, by_ms = {} }}]\n\n{faults}",
            -TEN_YEARS_MS, -TEN_YEARS_MS,
        ),
        &["key `fault[", "].by_ms`", "the wall clock of server-0"],
    );
}

/// A `[[fault]]` table of 5 lines; the scenario's header is 6 lines.
const PAUSE: &str = "[[fault]]\nkind = \"pause\"\nnode = \"client-0\"\nat_ms = 500\nduration_ms = 1\n\n";
const HEADER: &str = "name = \"f\"\nduration_ms = 1000\n\n[protocol]\nkind = \"single-redis\"\n\n";

/// 233,000 faults (a 16 MiB file) took 780 MB and then stalled at their instant: a plan
/// holds at most 10,000 entries, `[[fault]]` tables and `[[clock]]` jumps together.
#[test]
fn a_fault_plan_over_10000_entries_is_refused_at_the_first_one_past() {
    run_refuses(
        "10001-faults.toml",
        &format!("{HEADER}{}", PAUSE.repeat(10_001)),
        &[
            &format!(":{}:", 7 + 6 * 10_000),
            "key `fault[10000]`",
            "the fault plan has 10001 entries ([[fault]] tables and [[clock]] jumps); at most 10000 are taken",
        ],
    );
    run_refuses(
        "9999-faults-2-jumps.toml",
        &format!(
            "{HEADER}[[clock]]\nnode = \"server-0\"\njumps = [\n  {{ at_ms = 1, by_ms = 5 }},\n  {{ at_ms = 2, by_ms = 5 }},\n]\n\n{}",
            PAUSE.repeat(9_999)
        ),
        &[
            ":11:",
            "key `clock[0].jumps[1].by_ms`",
            "the fault plan has 10001 entries",
        ],
    );
}

/// A scheduler with a 1 ms period is overloaded: thousands of slots stay outstanding, each
/// re-sent every `retry_ms`, so its events grow with the square of its length (that is the
/// system modelled). Each instance scanned every outstanding slot on every fire and retry, so the
/// cost of each event grew too: 24 simulated seconds took 138 s. With the slots indexed by
/// when they were sent it takes seconds; the limit here is far above that and far below the
/// old cost.
#[test]
fn an_overloaded_scheduler_costs_per_event_what_a_quiet_one_does() {
    let path = scratch("overloaded-scheduler.toml");
    common::write_whole(
        &path,
        "name = \"overloaded\"\nseed = 1\nduration_ms = 24000\n\n[protocol]\nkind = \"scheduler\"\nschedulers = 3\n\
         clients = 2\nperiod_ms = 1\nretry_ms = 3000\ndedup = \"same-tx\"\n",
    );
    let o = locksim_within(
        Duration::from_secs(100),
        &["run", path.to_str().unwrap(), "--timeline", "none", "--format", "json"],
    );
    let err = common::stderr(&o);
    assert!(matches!(o.status.code(), Some(0 | 1)), "a judged run: {err}");
    let result: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON result");
    assert_eq!(result["events"], 1_262_480, "the same run as before the index");
}
