//! Determinism is the product: the same scenario and seed give byte-identical traces — in one
//! process, across threads, across processes — and `replay` proves it or names the first event
//! that differs.

mod common;

use std::path::PathBuf;

use locksim::load::load_file;
use locksim::protocols::run;
use locksim::sim::Level;
use locksim::sim::trace::sha256_hex;

fn trace_lines(rel: &str, seed: u64) -> Vec<String> {
    let s = load_file(&common::scenario(rel)).unwrap().scenario;
    run(&s, seed, Level::Full).trace.into_iter().map(|e| e.json).collect()
}

fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("determinism").join(name)
}

#[test]
fn same_seed_same_trace_for_every_catalogue_scenario() {
    for path in common::catalogue() {
        let rel = path
            .strip_prefix(common::root().join("scenarios"))
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let a = trace_lines(&rel, 3);
        let b = trace_lines(&rel, 3);
        assert!(a.len() > 20, "{rel}: a real run");
        assert_eq!(a, b, "{rel}");
    }
}

#[test]
fn different_seeds_give_different_runs() {
    let a = trace_lines("single-redis/no-faults.toml", 1);
    let b = trace_lines("single-redis/no-faults.toml", 2);
    assert_ne!(a, b);
}

#[test]
fn threads_agree_with_each_other_and_with_the_main_thread() {
    let hash = |seed| {
        sha256_hex(
            trace_lines("single-redis/kleppmann-gc-pause-fenced.toml", seed)
                .iter()
                .map(String::as_str),
        )
    };
    let here: Vec<String> = (0..4).map(hash).collect();
    let handles: Vec<_> = (0..2)
        .map(|_| std::thread::spawn(move || (0..4).map(hash).collect::<Vec<String>>()))
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), here);
    }
}

#[test]
fn two_processes_write_byte_identical_traces() {
    let scenario = "scenarios/single-redis/vm-suspend.toml";
    let (a, b) = (scratch("a.json"), scratch("b.json"));
    for out in [&a, &b] {
        let o = common::locksim(&[
            "run",
            scenario,
            "--seed",
            "9",
            "--trace",
            out.to_str().unwrap(),
            "--timeline",
            "none",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    }
    let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(a.len() > 10_000);
    assert!(a == b, "traces differ between processes");
    let json = |seed: &str| {
        let o = common::locksim(&["run", scenario, "--seed", seed, "--format", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["trace_sha256"].as_str().unwrap().to_string()
    };
    assert_eq!(json("9"), json("9"));
    assert_ne!(json("9"), json("10"));
}

#[test]
fn replay_of_a_saved_trace_is_identical() {
    let trace = scratch("replay-ok.json");
    let o = common::locksim(&[
        "run",
        "scenarios/single-redis/fencing-is-ordering.toml",
        "--trace",
        trace.to_str().unwrap(),
        "--timeline",
        "none",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let o = common::locksim(&["replay", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", common::stdout(&o), common::stderr(&o));
    assert!(common::stdout(&o).starts_with("identical:"), "{}", common::stdout(&o));
}

#[test]
fn replay_names_the_edited_event() {
    let trace = scratch("replay-edit.json");
    let o = common::locksim(&[
        "run",
        "scenarios/single-redis/kleppmann-gc-pause.toml",
        "--trace",
        trace.to_str().unwrap(),
        "--timeline",
        "none",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = std::fs::read_to_string(&trace).unwrap();
    let target = "{\"i\":120,";
    assert!(text.contains(target), "event 120 is on its own line");
    let edited: String = text
        .lines()
        .map(|line| {
            if line.starts_with(target) {
                // Shift the event's true time by 1 ns: the smallest possible edit.
                let v: serde_json::Value = serde_json::from_str(line.trim_end_matches(',')).unwrap();
                let t = v["t_ns"].as_u64().unwrap();
                line.replacen(&format!("\"t_ns\":{t},"), &format!("\"t_ns\":{},", t + 1), 1)
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(edited, text);
    std::fs::write(&trace, edited).unwrap();
    let o = common::locksim(&["replay", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stdout(&o));
    assert!(
        common::stdout(&o).starts_with("diverges at event #120"),
        "{}",
        common::stdout(&o)
    );
}
