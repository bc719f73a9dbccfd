//! Issue 12, point 1: a trace is read as a stream, not held whole. A trace longer than any
//! input file read whole (16 MiB) replays and renders as text; a trace laid out differently
//! from the one `run --trace` writes (pretty-printed, the result first) reads the same; the
//! diagrams, which need every event at once, refuse a trace too long for them by its count.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("streamed-trace").join(name)
}

fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// One simulated hour of the no-faults single-Redis story: about 270,000 events, 65 MB.
#[test]
fn an_hour_long_trace_replays_and_renders_as_text() {
    let source = std::fs::read_to_string(common::scenario("single-redis/no-faults.toml")).unwrap();
    let scenario = scratch("hour.toml");
    common::write_whole(
        &scenario,
        &source
            .replace("name = \"no-faults\"", "name = \"hour\"")
            .replace("duration_ms = 60000", "duration_ms = 3600000"),
    );
    let trace = scratch("hour.trace.json");
    let o = common::run_writing_trace(&scenario, &trace);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let bytes = std::fs::metadata(&trace).unwrap().len();
    assert!(bytes > 16 * 1024 * 1024, "{bytes} bytes: longer than a file read whole");

    let replayed = common::locksim(&["replay", text(&trace)]);
    assert_eq!(replayed.status.code(), Some(0), "{}", common::stderr(&replayed));
    assert!(
        common::stdout(&replayed).starts_with(&format!("identical: {}: ", text(&trace))),
        "{}",
        common::stdout(&replayed)
    );

    // The lane view of the file is the live run's.
    let rendered = common::locksim(&["render", text(&trace)]);
    assert_eq!(rendered.status.code(), Some(0), "{}", common::stderr(&rendered));
    let live = common::locksim(&["run", text(&scenario), "--render", "text"]);
    assert_eq!(common::stdout(&rendered), common::stdout(&live));

    for format in ["mermaid", "svg", "html"] {
        let o = common::locksim(&["render", text(&trace), "--format", format]);
        assert_eq!(o.status.code(), Some(2));
        let err = common::stderr(&o);
        assert!(
            err.contains(&format!("the {format} diagram holds every event at once"))
                && err.contains("at most 100000")
                && err.contains("--view text"),
            "{err}"
        );
        assert!(common::stdout(&o).is_empty());
    }
    std::fs::remove_file(&trace).unwrap();
}

/// A trace of a story with violations, as `run --trace` writes it, and parsed.
fn violating_trace(name: &str) -> (PathBuf, Value) {
    let trace = scratch(name);
    let o = common::run_writing_trace(&common::scenario("single-redis/kleppmann-gc-pause.toml"), &trace);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    assert!(!doc["result"]["violations"].as_array().unwrap().is_empty());
    (trace, doc)
}

/// Writes the keys of `doc` in `order`, each value pretty-printed.
fn laid_out(doc: &Value, order: &[&str]) -> String {
    let keys: Vec<String> = order
        .iter()
        .map(|k| format!("  \"{k}\": {}", serde_json::to_string_pretty(&doc[k]).unwrap()))
        .collect();
    format!("{{\n{}\n}}\n", keys.join(",\n"))
}

#[test]
fn a_reformatted_trace_replays_and_renders_the_same() {
    let (trace, doc) = violating_trace("as-written.trace.json");
    let as_written: Vec<_> = ["text", "mermaid", "svg"]
        .iter()
        .map(|f| common::stdout(&common::locksim(&["render", text(&trace), "--format", f])))
        .collect();
    let order = [
        "result",
        "scenario",
        "events",
        "seed",
        "scenario_file",
        "engine",
        "version",
        "format",
    ];
    let layouts = [
        ("pretty.trace.json", laid_out(&doc, &order)),
        ("one-line.trace.json", doc.to_string()),
    ];
    for (name, layout) in layouts {
        let other = scratch(name);
        common::write_whole(&other, &layout);
        let o = common::locksim(&["replay", text(&other)]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", common::stderr(&o));
        assert!(common::stdout(&o).starts_with("identical: "), "{name}");
        for (format, expected) in ["text", "mermaid", "svg"].iter().zip(&as_written) {
            let o = common::locksim(&["render", text(&other), "--format", format]);
            assert_eq!(&common::stdout(&o), expected, "{name} {format}");
        }
        std::fs::remove_file(&other).unwrap();
    }
    std::fs::remove_file(&trace).unwrap();
}

/// One event fewer or one more than the replay gives: the first index where one side has
/// none, whichever side is read from the stream.
#[test]
fn a_trace_with_an_event_missing_or_added_diverges_there() {
    let (trace, doc) = violating_trace("count.trace.json");
    let events = doc["events"].as_array().unwrap().clone();
    let n = events.len();
    let cases = [
        (n - 1, format!("diverges at event #{} of", n - 1), "replayed: {"),
        (n + 1, format!("diverges at event #{n} of"), "replayed: (none)"),
    ];
    for (count, at, says) in cases {
        let mut edited = doc.clone();
        let mut list = events.clone();
        list.resize(count, events[n - 1].clone());
        edited["events"] = Value::Array(list);
        let other = scratch("edited.trace.json");
        common::write_whole(&other, &edited.to_string());
        let o = common::locksim(&["replay", text(&other)]);
        assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
        let out = common::stdout(&o);
        assert!(out.starts_with(&at) && out.contains(says), "{out}");
        std::fs::remove_file(&other).unwrap();
    }
    std::fs::remove_file(&trace).unwrap();
}

#[test]
fn events_twice_or_not_an_array_are_refused_naming_the_key() {
    let (trace, doc) = violating_trace("keys.trace.json");
    let whole = doc.to_string();
    let twice = whole.replacen("{", "{\"events\": [],", 1);
    let cases = [
        (twice, "key `events`: appears twice in the trace"),
        (
            whole
                .replacen("{", "{\"events\": 7,", 1)
                .replace(",\"events\":[", ",\"ignored\":["),
            "key `events`: must be an array",
        ),
        (
            laid_out(
                &doc,
                &[
                    "format",
                    "version",
                    "engine",
                    "scenario_file",
                    "seed",
                    "scenario",
                    "result",
                ],
            ),
            "key `events`: missing from the trace",
        ),
    ];
    for (layout, says) in cases {
        let other = scratch("bad.trace.json");
        common::write_whole(&other, &layout);
        for command in ["replay", "render"] {
            let o = common::locksim(&[command, text(&other)]);
            assert_eq!(o.status.code(), Some(2));
            assert_eq!(common::stderr(&o), format!("error: {}: {says}\n", text(&other)));
        }
        std::fs::remove_file(&other).unwrap();
    }
    std::fs::remove_file(&trace).unwrap();
}

/// The diagrams' limit is on the count, read before any event is: 100,001 null events are
/// refused for it at once, and the text view names the first null event.
#[test]
fn a_diagram_of_too_many_events_is_refused_before_they_are_read() {
    let (trace, mut doc) = violating_trace("many.trace.json");
    doc["events"] = Value::Array(vec![Value::Null; 100_001]);
    let other = scratch("many-nulls.trace.json");
    common::write_whole(&other, &doc.to_string());
    let o = common::locksim(&["render", text(&other), "--format", "svg"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("100001 events: the svg diagram"),
        "{}",
        common::stderr(&o)
    );
    let o = common::locksim(&["render", text(&other)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        common::stderr(&o),
        format!(
            "error: {}: key `events[0]`: must be an event (a JSON object), not null\n",
            text(&other)
        )
    );
    std::fs::remove_file(&other).unwrap();
    std::fs::remove_file(&trace).unwrap();
}
