//! Issue 15, point 6, through the binary: a near-miss key, value, kind, node or invariant gets
//! a suggestion; `locksim list` lists every key a scenario file may have (the top level and
//! `[explore]` too) and which way a one-way partition cuts; the view flag has one name in
//! `run` and `render`, the old names accepted as aliases.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const GC_PAUSE: &str = "single-redis/kleppmann-gc-pause.toml";

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The GC-pause scenario with `from` replaced by `to`, written as `name`.
fn variant(name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(common::scenario(GC_PAUSE)).expect("read");
    assert!(text.contains(from), "{from:?} in the scenario");
    let path = common::scratch_dir("friction").join(name);
    common::write_whole(&path, &text.replacen(from, to, 1));
    path
}

fn refused(args: &[&str]) -> String {
    let out = common::locksim(args);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    err
}

#[test]
fn near_misses_get_a_suggestion() {
    for (name, from, to, says) in [
        (
            "key.toml",
            "ttl_ms =",
            "ttl_msec =",
            "key `protocol.ttl_msec`: unknown key; did you mean \"ttl_ms\"?",
        ),
        (
            "top.toml",
            "duration_ms =",
            "duraton_ms =",
            "key `duraton_ms`: unknown key; did you mean \"duration_ms\"?",
        ),
        (
            "fault-kind.toml",
            "kind = \"pause\"",
            "kind = \"paus\"",
            "did you mean \"pause\"?",
        ),
        (
            "protocol-kind.toml",
            "\"single-redis\"",
            "\"single-reds\"",
            "did you mean \"single-redis\"?",
        ),
        (
            "value.toml",
            "deadline_check = \"once\"",
            "deadline_check = \"onse\"",
            "did you mean \"once\"?",
        ),
        (
            "node.toml",
            "node = \"client-0\"",
            "node = \"clinet-0\"",
            "did you mean \"client-0\"?",
        ),
        (
            "invariant.toml",
            "stale_write =",
            "stale_writes =",
            "unknown invariant; known invariants: ",
        ),
        (
            "explore-kind.toml",
            "[expect]",
            "[explore]\nfaults = [\"partiton\"]\n[expect]",
            "unknown fault kind \"partiton\"",
        ),
    ] {
        let path = variant(name, from, to);
        let err = refused(&["run", s(&path), "--timeline", "none"]);
        assert!(err.contains(says), "{name}: {says:?} in {err}");
        assert!(err.contains("did you mean"), "{name}: {err}");
    }
    let resource = std::fs::read_to_string(common::scenario("single-redis/kleppmann-gc-pause-fenced.toml")).unwrap();
    let path = common::scratch_dir("friction").join("resorce.toml");
    common::write_whole(&path, &resource.replacen("[resource]", "[resorce]", 1));
    let err = refused(&["run", s(&path)]);
    assert!(
        err.contains("key `resorce`: unknown key; did you mean \"resource\"?"),
        "{err}"
    );
    let err = refused(&[
        "explore",
        s(&common::scenario(GC_PAUSE)),
        "--seeds",
        "1",
        "--invariant",
        "stale_writ",
    ]);
    assert!(err.contains("did you mean \"stale_write\"?"), "{err}");
    // A key far from every known one gets no guess.
    let err = refused(&["run", s(&variant("far.toml", "ttl_ms =", "zzzzzz ="))]);
    assert!(err.contains("unknown key") && !err.contains("did you mean"), "{err}");
}

/// The lines of `list` from the heading that starts with `heading` to the next blank line.
fn block(list: &str, heading: &str) -> String {
    let start = list
        .find(&format!("\n{heading}"))
        .unwrap_or_else(|| panic!("{heading:?} in list"));
    let rest = &list[start + 1..];
    rest[..rest.find("\n\n").unwrap_or(rest.len())].to_string()
}

/// The keys listed in a block (`      key   values  (default ...)`).
fn listed_keys(block: &str) -> BTreeSet<String> {
    block
        .lines()
        .filter(|l| l.starts_with("      ") && !l.starts_with("       "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect()
}

/// Every key used at the top level and in `[explore]` by the catalogue and the bug catalogue.
fn keys_in_use() -> (BTreeSet<String>, BTreeSet<String>) {
    let mut files = common::catalogue();
    let bugs = common::root().join("tests/bug_catalogue");
    files.extend(std::fs::read_dir(bugs).unwrap().map(|e| e.unwrap().path()));
    let (mut top, mut explore) = (BTreeSet::new(), BTreeSet::new());
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "toml")) {
        let text = std::fs::read_to_string(f).unwrap();
        let doc = toml::de::DeTable::parse(&text).unwrap();
        for (key, value) in doc.get_ref() {
            top.insert(key.get_ref().to_string());
            if let (true, toml::de::DeValue::Table(e)) = (key.get_ref() == "explore", value.get_ref()) {
                explore.extend(e.keys().map(|k| k.get_ref().to_string()));
            }
        }
    }
    (top, explore)
}

#[test]
fn list_has_every_key_a_scenario_file_uses() {
    let out = common::locksim(&["list"]);
    assert_eq!(out.status.code(), Some(0));
    let list = format!("\n{}", common::stdout(&out));
    let top = listed_keys(&block(&list, "scenario file"));
    let explore_block = block(&list, "explore ([explore]");
    let explore = listed_keys(&explore_block);
    let (top_used, explore_used) = keys_in_use();
    assert!(
        explore_used.contains("fix") && top_used.contains("twins"),
        "the catalogue uses them"
    );
    let kinds: Vec<&str> = [
        "pause",
        "suspend",
        "crash",
        "partition",
        "clock_jump",
        "drift",
        "delay",
        "loss",
        "failover",
    ]
    .to_vec();
    for key in &top_used {
        assert!(top.contains(key), "top-level key {key} listed: {top:?}");
    }
    for key in &explore_used {
        let as_kind = format!("    {key:<11} ");
        let listed = explore.contains(key) || (kinds.contains(&key.as_str()) && explore_block.contains(&as_kind));
        assert!(listed, "[explore] key {key} listed:\n{explore_block}");
    }
    for kind in kinds {
        assert!(
            explore_block.contains(&format!("\n    {kind:<11} ")),
            "{kind}:\n{explore_block}"
        );
    }
    assert!(
        explore_block.contains("pause       max_ms (default 20000)"),
        "{explore_block}"
    );
    assert!(
        explore_block.contains("partition   max_ms (default 20000), bridge = true|false"),
        "the partition's bridge key:\n{explore_block}"
    );
    assert!(
        list.contains("one_way (default false; true drops only what the first group sends to the others, while they still reach it)"),
        "one_way's direction:\n{list}"
    );
}

#[test]
fn the_view_flag_has_one_name_and_the_old_ones_as_aliases() {
    let scenario = common::scenario(GC_PAUSE);
    let view = common::locksim(&["run", s(&scenario), "--view", "mermaid"]);
    let render = common::locksim(&["run", s(&scenario), "--render", "mermaid"]);
    assert!(
        common::stdout(&view).contains("\nsequenceDiagram\n"),
        "{}",
        common::stderr(&view)
    );
    assert_eq!(common::stdout(&view), common::stdout(&render));
    assert_eq!(view.status.code(), render.status.code());

    let trace = common::scratch_dir("friction").join("gc.trace.json");
    assert_eq!(common::run_writing_trace(&scenario, &trace).status.code(), Some(0));
    let view = common::locksim(&["render", s(&trace), "--view", "svg"]);
    let format = common::locksim(&["render", s(&trace), "--format", "svg"]);
    assert!(common::stdout(&view).contains("<svg"), "{}", common::stderr(&view));
    assert_eq!(common::stdout(&view), common::stdout(&format));
    for command in ["run", "render"] {
        let help = common::stdout(&common::locksim(&[command, "--help"]));
        assert!(help.contains("--view <VIEW>"), "{command} --help:\n{help}");
    }
}
