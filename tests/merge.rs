//! `locksim merge` through the binary: the shards of an exploration, merged, are the
//! unsharded run (counts, first seeds, never_violated, the breakdown by fault kind), in JSON
//! and text; and each way shards can fail to add up is refused with exit 2, naming the file.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("merge").join(name)
}

/// Kleppmann's GC pause explored under pauses and partitions besides its own pause: some
/// invariants are violated in most seeds, some in none.
fn gc_pause_space() -> PathBuf {
    let text = std::fs::read_to_string(common::scenario("single-redis/kleppmann-gc-pause.toml")).expect("read");
    let path = scratch("gc-pause-space.toml");
    common::write_whole(
        &path,
        &format!("{text}\n[explore]\nfaults = [\"pause\", \"partition\"]\n"),
    );
    path
}

/// `explore` with `args` as JSON, written to `name` in the scratch folder; its exit code.
fn explore_to(scenario: &Path, name: &str, args: &[&str]) -> (PathBuf, Option<i32>) {
    let mut all = vec!["explore", s(scenario), "--format", "json"];
    all.extend_from_slice(args);
    let run = common::locksim(&all);
    let path = scratch(name);
    common::write_whole(&path, &common::stdout(&run));
    (path, run.status.code())
}

fn shards(scenario: &Path, tag: &str, seeds: u64, n: u64) -> Vec<PathBuf> {
    (0..n)
        .map(|k| {
            let seeds = seeds.to_string();
            let shard = format!("{k}/{n}");
            let args = ["--seeds", &seeds, "--shard", &shard, "--keep-going"];
            explore_to(scenario, &format!("{tag}-{k}-of-{n}.json"), &args).0
        })
        .collect()
}

fn merge(files: &[PathBuf], extra: &[&str]) -> std::process::Output {
    let mut args = vec!["merge"];
    args.extend(files.iter().map(|f| s(f)));
    args.extend_from_slice(extra);
    common::locksim(&args)
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_str(&common::stdout(out)).unwrap_or_else(|e| panic!("{e}: {}", common::stderr(out)))
}

#[test]
fn the_merge_of_n_shards_is_the_unsharded_run() {
    let scenario = gc_pause_space();
    let (whole, code) = explore_to(&scenario, "whole.json", &["--seeds", "24", "--keep-going"]);
    assert_eq!(code, Some(1), "the GC pause is found");
    let whole: Value = serde_json::from_str(&std::fs::read_to_string(whole).unwrap()).unwrap();
    assert!(whole["violations"].as_object().is_some_and(|v| !v.is_empty()));
    for n in [2, 3, 5] {
        let mut files = shards(&scenario, "gc", 24, n);
        files.reverse(); // any order
        let merged = merge(&files, &["--format", "json"]);
        assert_eq!(merged.status.code(), Some(1), "a finding: exit 1");
        assert_eq!(json(&merged), whole, "{n} shards merged");
    }
}

#[test]
fn a_merge_without_findings_exits_0_and_unites_what_was_judged() {
    let scenario = common::root().join("tests/bug_catalogue/correct-single-redis.toml");
    let (whole, code) = explore_to(&scenario, "correct-whole.json", &["--seeds", "6", "--keep-going"]);
    assert_eq!(code, Some(0));
    let whole: Value = serde_json::from_str(&std::fs::read_to_string(whole).unwrap()).unwrap();
    let merged = merge(&shards(&scenario, "correct", 6, 3), &["--format", "json"]);
    assert_eq!(merged.status.code(), Some(0), "{}", common::stderr(&merged));
    let merged = json(&merged);
    assert_eq!(merged, whole);
    assert!(
        merged["never_violated"].as_array().is_some_and(|a| a.len() >= 4),
        "{merged}"
    );
}

#[test]
fn the_text_merge_has_the_unsharded_findings_and_how_to_shrink_the_first() {
    let scenario = gc_pause_space();
    let whole = common::locksim(&["explore", s(&scenario), "--seeds", "12", "--keep-going"]);
    let merged = merge(&shards(&scenario, "text", 12, 2), &[]);
    let (whole, text) = (common::stdout(&whole), common::stdout(&merged));
    assert_eq!(merged.status.code(), Some(1));
    let findings = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.contains("VIOLATED") || l.contains("never violated") || l.starts_with("    "))
            .map(String::from)
            .collect()
    };
    assert_eq!(findings(&text), findings(&whole), "{text}\n---\n{whole}");
    assert!(text.starts_with("merge kleppmann-gc-pause ("), "{text}");
    assert!(
        text.contains("12 seeds explored, the 2 shards of --seeds 12 together"),
        "{text}"
    );
    let first = json(&common::locksim(&[
        "explore",
        s(&scenario),
        "--seeds",
        "12",
        "--format",
        "json",
    ]))["first_failing_seed"]
        .as_u64()
        .expect("a failing seed");
    let hint = format!(
        "shrink seed {first}: locksim explore {} --seeds {} --out DIR",
        s(&scenario),
        first + 1
    );
    assert!(text.contains(&hint), "{text}");
}

/// `merge files` fails with exit 2 and an error containing each of `needles`.
fn assert_refused(files: &[PathBuf], needles: &[&str]) {
    let out = merge(files, &[]);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}{}", common::stdout(&out));
    assert!(common::stdout(&out).is_empty());
    for needle in needles {
        assert!(err.contains(needle), "{needle:?} in {err}");
    }
}

/// A copy of the summary `from` with `edit` applied, as `name`.
fn edited(from: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(from).unwrap()).unwrap();
    edit(&mut doc);
    let path = scratch(name);
    common::write_whole(&path, &serde_json::to_string_pretty(&doc).unwrap());
    path
}

#[test]
fn shards_that_do_not_add_up_are_refused() {
    let scenario = gc_pause_space();
    let three = shards(&scenario, "refuse", 9, 3);
    let name = |p: &PathBuf| p.display().to_string();

    // Seeds left out: shard 1/3 missing.
    assert_refused(
        &[three[0].clone(), three[2].clone()],
        &["seeds left out", "shard 1/3", "given: 0/3, 2/3"],
    );
    // Overlap: shard 2/3 twice.
    let copy = edited(&three[2], "copy-of-2.json", |_| {});
    assert_refused(
        &[three[0].clone(), three[1].clone(), three[2].clone(), copy.clone()],
        &[&name(&copy), "overlap", &name(&three[2])],
    );
    // Without --keep-going.
    let (stopped, _) = explore_to(&scenario, "stopped.json", &["--seeds", "9", "--shard", "1/3"]);
    assert_refused(
        &[three[0].clone(), stopped.clone(), three[2].clone()],
        &[&name(&stopped), "without --keep-going"],
    );
    // Another scenario: the same story with one more comment line is another text.
    let other = scratch("other.toml");
    common::write_whole(
        &other,
        &format!("{}# edited\n", std::fs::read_to_string(&scenario).unwrap()),
    );
    let (other_shard, _) = explore_to(
        &other,
        "other-1.json",
        &["--seeds", "9", "--shard", "1/3", "--keep-going"],
    );
    assert_refused(
        &[three[0].clone(), other_shard.clone(), three[2].clone()],
        &[&name(&other_shard), "not the same exploration", "scenario text"],
    );
    // Another fault space, seed count, shard count, hunt, version.
    for (tag, key, value, needle) in [
        (
            "space",
            "fault_space",
            serde_json::json!({"kinds": ["pause"], "max_faults": 3}),
            "fault space is pause (up to 3)",
        ),
        (
            "seeds",
            "seeds_requested",
            serde_json::json!(10),
            "--seeds is 10, not 9",
        ),
        (
            "hunt",
            "hunting",
            serde_json::json!("stale_write"),
            "--invariant is stale_write",
        ),
        (
            "version",
            "locksim_version",
            serde_json::json!("0.0.1"),
            "locksim version is 0.0.1",
        ),
    ] {
        let bad = edited(&three[1], &format!("bad-{tag}.json"), |d| d[key] = value);
        assert_refused(
            &[three[0].clone(), bad.clone(), three[2].clone()],
            &[&name(&bad), needle],
        );
    }
    let halves = shards(&scenario, "halves", 9, 2);
    assert_refused(
        &[three[0].clone(), halves[1].clone()],
        &["shard count N of K/N is 2, not 3"],
    );
    // A summary that counts fewer seeds than its shard has.
    let short = edited(&three[1], "short.json", |d| d["seeds"] = serde_json::json!(2));
    assert_refused(
        &[three[0].clone(), short, three[2].clone()],
        &["has 3 seeds, but the summary counts 2"],
    );
    // Not a summary: another JSON document, and an older summary without the identity fields.
    let trace = scratch("not-a-summary.json");
    common::write_whole(&trace, "{\"events\": []}");
    assert_refused(
        std::slice::from_ref(&trace),
        &[&name(&trace), "not a summary", "missing field"],
    );
    let old = edited(&three[0], "old.json", |d| {
        d.as_object_mut().unwrap().remove("scenario_sha256");
    });
    assert_refused(
        std::slice::from_ref(&old),
        &[&name(&old), "missing field `scenario_sha256`"],
    );
    let missing = scratch("absent.json");
    assert_refused(std::slice::from_ref(&missing), &[&name(&missing), "cannot read"]);
}

#[test]
fn explore_breaks_its_findings_down_by_fault_kind() {
    let scenario = gc_pause_space();
    let (path, _) = explore_to(&scenario, "by-kind.json", &["--seeds", "16", "--keep-going"]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let kinds = doc["by_fault_kind"].as_object().expect("by_fault_kind");
    assert_eq!(kinds.keys().collect::<Vec<_>>(), ["partition", "pause"]);
    let plans: u64 = kinds.values().map(|k| k["plans"].as_u64().unwrap()).sum();
    assert!(plans >= 16, "every plan draws at least one entry: {doc}");
    let failing: u64 = kinds.values().map(|k| k["failing"].as_u64().unwrap()).sum();
    let failing_seeds = doc["violations"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v["count"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!(failing >= failing_seeds, "{doc}");
    let firsts: Vec<u64> = kinds
        .values()
        .filter_map(|k| k["first_failing_seed"].as_u64())
        .collect();
    assert_eq!(
        firsts.iter().min().copied(),
        doc["first_failing_seed"].as_u64(),
        "{doc}"
    );
    // One kind alone: every seed's plan drew it, and every failing seed failed under it.
    let text = std::fs::read_to_string(&scenario)
        .unwrap()
        .replace("\"pause\", \"partition\"", "\"pause\"");
    let alone = scratch("pause-alone.toml");
    common::write_whole(&alone, &text);
    let (path, _) = explore_to(&alone, "pause-alone.json", &["--seeds", "8", "--keep-going"]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let pause = &doc["by_fault_kind"]["pause"];
    assert_eq!(pause["plans"], 8, "{doc}");
    assert_eq!(pause["first_failing_seed"], doc["first_failing_seed"], "{doc}");
    let out = common::locksim(&["explore", s(&alone), "--seeds", "8", "--keep-going"]);
    let text = common::stdout(&out);
    let failing = pause["failing"].as_u64().unwrap();
    assert!(text.contains("by fault kind (seeds whose plan drew it):"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("pause") && l.contains(&format!("8 plans, {failing} failing"))),
        "{text}"
    );
}
