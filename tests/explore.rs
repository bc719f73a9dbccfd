//! `locksim explore` through the binary: findings independent of threads and shards, the
//! GC-pause counterexample shrunk to one pause that `run` replays, and bad input refused.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Kleppmann's GC pause (single Redis, no fencing) with its pause taken out: exploration has
/// to find it, under pauses and partitions.
fn gc_pause_space() -> PathBuf {
    let text = std::fs::read_to_string(common::scenario("single-redis/kleppmann-gc-pause.toml")).expect("read");
    let base = text.split("[[fault]]").next().expect("text before the fault");
    let scenario = format!("{base}[explore]\nfaults = [\"pause\", \"partition\"]\n");
    write("gc-pause-space.toml", &scenario)
}

fn write(name: &str, text: &str) -> PathBuf {
    let path = common::scratch_dir("explore").join(name);
    common::write_whole(&path, text);
    path
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// `locksim run` on a shrunk scenario meets its expectation: `invariant` violated.
fn assert_run_reproduces(scenario: &Path, invariant: &str) {
    let run = common::locksim(&["run", s(scenario), "--timeline", "none"]);
    let stdout = common::stdout(&run);
    assert_eq!(run.status.code(), Some(0), "{stdout}{}", common::stderr(&run));
    let violated = stdout.lines().any(|l| l.contains(invariant) && l.contains("VIOLATED"));
    assert!(violated, "{invariant} violated:\n{stdout}");
}

fn explore_json(scenario: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["explore", s(scenario), "--format", "json"];
    args.extend_from_slice(extra);
    let out = common::locksim(&args);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", common::stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", common::stdout(&out)))
}

#[test]
fn findings_do_not_depend_on_the_number_of_threads() {
    let scenario = gc_pause_space();
    for mode in [&["--keep-going"][..], &[][..]] {
        let one = explore_json(&scenario, &[&["--seeds", "300", "--jobs", "1"], mode].concat());
        let two = explore_json(&scenario, &[&["--seeds", "300", "--jobs", "2"], mode].concat());
        assert_eq!(one, two, "--jobs 1 and --jobs 2 disagree ({mode:?})");
        assert!(one["violations"].as_object().is_some_and(|v| !v.is_empty()), "{one}");
    }
}

#[test]
fn the_shards_together_are_the_unsharded_run() {
    let scenario = gc_pause_space();
    let all = explore_json(&scenario, &["--seeds", "300", "--keep-going"]);
    let halves = [
        explore_json(&scenario, &["--seeds", "300", "--keep-going", "--shard", "0/2"]),
        explore_json(&scenario, &["--seeds", "300", "--keep-going", "--shard", "1/2"]),
    ];
    assert_eq!(
        halves[0]["seeds"].as_u64().unwrap() + halves[1]["seeds"].as_u64().unwrap(),
        300
    );
    let violations = all["violations"].as_object().expect("violations");
    assert!(!violations.is_empty());
    let mut seen = 0;
    for (invariant, whole) in violations {
        let parts: Vec<&Value> = halves.iter().filter_map(|h| h["violations"].get(invariant)).collect();
        let count: u64 = parts.iter().map(|p| p["count"].as_u64().unwrap()).sum();
        let first = parts.iter().map(|p| p["first_seed"].as_u64().unwrap()).min();
        assert_eq!(count, whole["count"].as_u64().unwrap(), "{invariant}: counts");
        assert_eq!(first, whole["first_seed"].as_u64(), "{invariant}: first seed");
        seen += parts.len();
    }
    let in_halves: usize = halves.iter().map(|h| h["violations"].as_object().unwrap().len()).sum();
    assert_eq!(seen, in_halves, "a shard violated an invariant the whole run did not");
}

#[test]
fn the_gc_pause_shrinks_to_one_pause_that_run_replays() {
    let scenario = gc_pause_space();
    let out_dir = common::scratch_dir("explore-gc-pause-out");
    let json = explore_json(
        &scenario,
        &["--seeds", "500", "--invariant", "stale_write", "--out", s(&out_dir)],
    );
    let shrunk = PathBuf::from(json["shrunk"].as_str().expect("a shrunk scenario was written"));
    let text = std::fs::read_to_string(&shrunk).expect("read the shrunk scenario");
    let faults: Vec<&str> = text.lines().filter(|l| l.starts_with("[[")).collect();
    assert_eq!(faults, ["[[fault]]"], "one plan entry and nothing else:\n{text}");
    assert!(text.contains("kind = \"pause\""), "{text}");
    assert!(text.contains("stale_write = \"violated\""), "{text}");
    assert!(text.starts_with("# Shrunk by `locksim explore`"), "{text}");

    assert_run_reproduces(&shrunk, "stale_write");
    let trace = json["minimal"]["trace"].as_str().expect("the trace beside it");
    let replay = common::locksim(&["replay", trace]);
    assert_eq!(replay.status.code(), Some(0), "{}", common::stdout(&replay));
}

#[test]
fn bad_explore_input_is_refused_with_exit_2() {
    let scenario = gc_pause_space();
    let text = std::fs::read_to_string(&scenario).expect("read");
    let empty = write(
        "empty-space.toml",
        &text.replace("faults = [\"pause\", \"partition\"]", "faults = []"),
    );
    let unknown = write("unknown-kind.toml", &text.replace("\"partition\"]", "\"meteor\"]"));
    let cases: [(&[&str], &str); 4] = [
        (&["explore", s(&scenario), "--seeds", "0"], "seeds"),
        (
            &["explore", s(&scenario), "--seeds", "10", "--shard", "3/2"],
            "--shard 3/2",
        ),
        (&["explore", s(&empty), "--seeds", "10"], "faults"),
        (&["explore", s(&unknown), "--seeds", "10"], "meteor"),
    ];
    for (args, needle) in cases {
        let out = common::locksim(args);
        let err = common::stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: the message names {needle:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let err = common::stderr(&common::locksim(&["explore", s(&unknown), "--seeds", "10"]));
    assert!(
        err.contains("unknown-kind.toml:") && err.contains("explore"),
        "file, line and key: {err}"
    );
}

/// The fenced GC pause written with inline `protocol` and `resource` tables, explored under
/// pauses: a fenced single Redis still loses updates (tokens order writes, not reads).
fn inline_fenced_space() -> PathBuf {
    let scenario = r#"# Fenced GC pause, every table inline.
name = "inline-fenced"
description = "client-0 pauses; its late write is fenced."
seed = 1
duration_ms = 60000
twins = ["kleppmann-gc-pause"]
protocol = { kind = "single-redis", clients = 2, ttl_ms = 10000, work_ms = 1000, deadline_check = "once", fencing_tokens = "incr" }
resource = { fencing = "strict" } # the fence: dropping it changes every verdict
expect = { stale_write = "held" }
explore = { faults = ["pause"] }
"#;
    // Its twin is a scenario file beside it, as the loader requires.
    let twin = std::fs::read_to_string(common::scenario("single-redis/kleppmann-gc-pause.toml")).expect("read");
    write("kleppmann-gc-pause.toml", &twin);
    write("inline-fenced.toml", scenario)
}

#[test]
fn inline_tables_survive_shrinking_and_the_file_reproduces() {
    let scenario = inline_fenced_space();
    let out_dir = common::scratch_dir("explore-inline-out");
    let json = explore_json(
        &scenario,
        &["--seeds", "1000", "--invariant", "lost_update", "--out", s(&out_dir)],
    );
    let shrunk = PathBuf::from(
        json["shrunk"]
            .as_str()
            .unwrap_or_else(|| panic!("a shrunk scenario: {json}")),
    );
    let text = std::fs::read_to_string(&shrunk).expect("read the shrunk scenario");
    let seed = json["first_failing_seed"].as_u64().expect("a failing seed");
    for kept in [
        "protocol = { kind = \"single-redis\", clients = 2,",
        "resource = { fencing = \"strict\" } # the fence: dropping it changes every verdict",
        "explore = { faults = [\"pause\"] }",
        "# Fenced GC pause, every table inline.",
        "lost_update = \"violated\"",
        &format!("seed = {seed}\n"),
        &format!(
            "description = \"Minimal counterexample of lost_update found by locksim explore in inline-fenced (seed {seed}); \
             originally: client-0 pauses; its late write is fenced.\""
        ),
    ] {
        assert!(text.contains(kept), "{kept:?} in:\n{text}");
    }
    assert!(!text.contains("twins") && !text.contains("stale_write"), "{text}");
    assert_run_reproduces(&shrunk, "lost_update");
}

fn explore_text(scenario: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let mut args = vec!["explore", s(scenario)];
    args.extend_from_slice(extra);
    let out = common::locksim(&args);
    (out.status.code(), common::stdout(&out), common::stderr(&out))
}

#[test]
fn an_invariant_the_protocol_never_judges_is_refused() {
    let scenario = gc_pause_space();
    let (code, _, err) = explore_text(&scenario, &["--seeds", "10", "--invariant", "unique_ids"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--invariant unique_ids") && err.contains("never judges"),
        "{err}"
    );
    // Judged by the protocol, but with no fencing tokens, never applicable.
    let (code, _, err) = explore_text(&scenario, &["--seeds", "10", "--invariant", "fencing_order"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not applicable in any of the 10 seeds"), "{err}");
}

#[test]
fn an_empty_shard_is_refused() {
    let (code, _, err) = explore_text(&gc_pause_space(), &["--seeds", "5", "--shard", "7/10"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("shard 7/10 of 5 seeds is empty"), "{err}");
}

#[test]
fn the_summary_says_it_stopped_early_only_when_it_did() {
    let scenario = gc_pause_space();
    // Other invariants fail, the hunted one never does: every seed runs.
    let (code, out, err) = explore_text(&scenario, &["--seeds", "60", "--invariant", "mutual_exclusion"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("60 seeds explored") && out.contains("VIOLATED"), "{out}");
    assert!(!out.contains("stopped after"), "{out}");
    let (code, out, err) = explore_text(&scenario, &["--seeds", "300"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(out.contains("(stopped after the first failing seed"), "{out}");
}

#[test]
fn a_huge_seed_count_is_not_listed_in_memory() {
    let json = explore_json(&gc_pause_space(), &["--seeds", &u64::MAX.to_string(), "--jobs", "3"]);
    let first = json["first_failing_seed"].as_u64().expect("a failing seed");
    assert_eq!(json["seeds"].as_u64(), Some(first + 1), "{json}");
}

#[test]
fn jobs_are_capped_at_the_seeds_of_the_shard() {
    let (_, out, err) = explore_text(&gc_pause_space(), &["--seeds", "4", "--shard", "1/2", "--jobs", "64"]);
    assert!(out.contains("2 seeds explored (shard 1/2, 2 jobs)"), "{out}{err}");
}

#[test]
fn explore_limits_are_checked_like_faults() {
    let scenario = gc_pause_space();
    let text = std::fs::read_to_string(&scenario).expect("read");
    let cases = [
        (
            "string-nodes.toml",
            "[explore.pause]\nnodes = \"client-0\"\n",
            "explore.pause.nodes",
        ),
        (
            "resource-pause.toml",
            "[explore.pause]\nnodes = [\"resource\"]\n",
            "reads no clock",
        ),
        ("twice.toml", "", "\"pause\" is listed twice"),
        (
            "pause-bridge.toml",
            "[explore.pause]\nbridge = true\n",
            "explore.pause.bridge`: unknown key",
        ),
        (
            "bridge-string.toml",
            "[explore.partition]\nbridge = \"yes\"\n",
            "explore.partition.bridge",
        ),
    ];
    for (name, extra, needle) in cases {
        let body = if extra.is_empty() {
            text.replace(
                "faults = [\"pause\", \"partition\"]",
                "faults = [\"pause\", \"partition\", \"pause\"]",
            )
        } else {
            format!("{text}{extra}")
        };
        let path = write(name, &body);
        let (code, _, err) = explore_text(&path, &["--seeds", "10"]);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(err.contains(needle), "{name}: {needle:?} in {err}");
    }
}

/// A plan entry that never fires changes nothing in the run, and `locksim run` fails a file
/// whose faults do not all fire (issue 10, point 9): the written minimal scenario leaves such
/// entries out even when shrinking had no budget to drop them.
#[test]
fn the_written_scenario_has_no_fault_that_never_fires() {
    let text = std::fs::read_to_string(gc_pause_space()).expect("read");
    // No fencing tokens, so no write is ever rejected: this pause never fires.
    let scenario = write(
        "never-fires.toml",
        &text.replace(
            "[explore]",
            "[[fault]]\nkind = \"pause\"\nnode = \"client-0\"\nafter = \"write_rejected\"\nduration_ms = 1000\n\n[explore]",
        ),
    );
    let out_dir = common::scratch_dir("explore-never-fires-out");
    let json = explore_json(
        &scenario,
        &["--seeds", "200", "--shrink-budget", "0", "--out", s(&out_dir)],
    );
    let shrunk = PathBuf::from(json["shrunk"].as_str().expect("a finding, written"));
    let written = std::fs::read_to_string(&shrunk).expect("read the shrunk scenario");
    assert!(!written.contains("write_rejected"), "{written}");
    let run = common::locksim(&["run", s(&shrunk), "--timeline", "none"]);
    assert_eq!(run.status.code(), Some(0), "{}", common::stdout(&run));
}
