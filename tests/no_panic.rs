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

/// A catalogue run's trace, as JSON, for a case to edit.
fn trace_of(scenario: &str) -> serde_json::Value {
    let path = common::scratch_dir("no-panic").join(format!("{scenario}.trace.json"));
    let scenario = common::scenario(&format!("single-redis/{scenario}.toml"));
    let o = common::run_writing_trace(&scenario, &path);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// `render` of `trace` exits 2, naming the file and saying each of `says`, with no panic.
fn render_refuses(name: &str, trace: &serde_json::Value, says: &[&str]) {
    let path = common::scratch_dir("no-panic").join(format!("{name}.json"));
    common::write_whole(&path, &trace.to_string());
    let o = common::locksim(&["render", path.to_str().unwrap()]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{name}: exit 2; stderr: {err}");
    assert!(!err.contains("panicked"), "{name}: no panic: {err}");
    assert!(err.contains(path.to_str().unwrap()), "{name}: names the file: {err}");
    for s in says {
        assert!(err.contains(s), "{name}: says {s:?}: {err}");
    }
}

/// `render` drew edited traces as if they were runs: events out of true-time order, on a node
/// the embedded scenario does not have, numbered out of order; a null event was refused with
/// serde's words for an internal type ("expected struct LineIn").
#[test]
fn render_validates_the_events_it_draws() {
    let trace = trace_of("fencing-is-ordering");
    let edit = |f: &dyn Fn(&mut Vec<serde_json::Value>)| {
        let mut t = trace.clone();
        f(t["events"].as_array_mut().unwrap());
        t
    };
    let late = edit(&|events| events[2]["t_ns"] = 10_000_000_000u64.into());
    render_refuses(
        "out-of-order",
        &late,
        &["events[3]", "`t_ns` 0 is before the previous event's 10000000000"],
    );
    let stranger = edit(&|events| events[3]["node"] = "client-\u{1b}[31m9".into());
    render_refuses(
        "unknown-node",
        &stranger,
        &["events[3]", r#""client-\u{1b}[31m9" is not a node"#],
    );
    let null = edit(&|events| events[3] = serde_json::Value::Null);
    render_refuses(
        "null-event",
        &null,
        &["events[3]", "must be an event (a JSON object), not null"],
    );
    let renumbered = edit(&|events| events[3]["i"] = 7.into());
    render_refuses(
        "renumbered",
        &renumbered,
        &["events[3]", "`i` is 7: events are numbered in order"],
    );
    // The unedited trace renders.
    let path = common::scratch_dir("no-panic").join("as-recorded.json");
    common::write_whole(&path, &trace.to_string());
    assert_eq!(
        common::locksim(&["render", path.to_str().unwrap()]).status.code(),
        Some(0)
    );
}

/// Control characters in a scenario's description or a trace's event text reached the terminal
/// raw (an escape sequence could clear it or recolour it); stdout now shows them escaped.
#[test]
fn control_characters_are_escaped_on_the_terminal() {
    let source = std::fs::read_to_string(common::scenario("single-redis/fencing-is-ordering.toml")).unwrap();
    let description = source
        .lines()
        .find(|l| l.starts_with("description"))
        .expect("a description");
    let hostile = source.replace(description, "description = \"bell\\u0007 and clear\\u001b[2J\\r\"");
    let path = common::scratch_dir("no-panic").join("fencing-is-ordering.toml");
    common::write_whole(&path, &hostile);
    let o = common::locksim(&["run", path.to_str().unwrap()]);
    let text = common::stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(!text.contains(['\u{7}', '\u{1b}', '\r']), "{text}");
    assert!(text.contains(r"bell\u{7} and clear\u{1b}[2J\u{d}"), "{text}");

    let mut trace = trace_of("fencing-is-ordering");
    let events = trace["events"].as_array_mut().unwrap();
    let salient = events
        .iter_mut()
        .find(|e| e["salience"] == "salient")
        .expect("a salient event");
    salient["text"] = "starts\u{1b}]0;owned\u{7}".into();
    let path = common::scratch_dir("no-panic").join("hostile-text.json");
    common::write_whole(&path, &trace.to_string());
    let o = common::locksim(&["render", path.to_str().unwrap()]);
    let text = common::stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(!text.contains(['\u{7}', '\u{1b}']), "{text}");
    assert!(text.contains(r"starts\u{1b}]0;owned\u{7}"), "{text}");
}

/// Error messages name the file, the key and the value: on stderr too, control characters in
/// them are escaped rather than written raw to the terminal.
#[test]
fn control_characters_are_escaped_in_error_messages() {
    let o = common::locksim(&["run", "missing\u{1b}[2J\u{7}.toml"]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains(['\u{7}', '\u{1b}']), "{err}");
    assert!(err.contains(r"missing\u{1b}[2J\u{7}.toml"), "{err}");
}

/// The explorer library (here under `report`, which has no progress thread) panicked when the
/// system refused a worker thread; it now explores on the calling thread, with the same
/// findings.
#[test]
fn exploring_goes_on_when_no_worker_thread_starts() {
    let dir = common::scratch_dir("no-panic").join("report");
    let catalogue = dir.join("catalogue");
    std::fs::create_dir_all(&catalogue).unwrap();
    let entry = common::root().join("tests/bug_catalogue/correct-single-redis.toml");
    std::fs::copy(&entry, catalogue.join("correct-single-redis.toml")).unwrap();
    let out = dir.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(["report", "--seeds", "3", "--out", out.to_str().unwrap()])
        .args(["--catalogue", catalogue.to_str().unwrap()])
        .env("RUST_MIN_STACK", "1000000000000000")
        .current_dir(common::root())
        .output()
        .expect("the locksim binary runs");
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(0), "exit 0; stderr: {err}");
    let matrix = std::fs::read_to_string(out.join("matrix.md")).unwrap();
    assert!(
        matrix.contains("| correct-single-redis | single-redis | - |"),
        "{matrix}"
    );
}
