//! `locksim run`'s contract with scripts and CI (DESIGN section 6): the exit status of a
//! scenario without `[expect]` (0 when nothing was violated, 1 otherwise), and the keys of the
//! JSON result. The catalogue always carries `[expect]`, so without these tests a user's own
//! scenario file could exit 0 on a violation, or a JSON consumer lose a key, unnoticed.

mod common;

use std::path::PathBuf;

use serde_json::Value;

/// Kleppmann's GC pause with no `[expect]`; `check` is the client's `deadline_check`.
fn unexpecting(check: &str) -> PathBuf {
    let text = format!(
        r#"name = "no-expect"
duration_ms = 60000

[protocol]
kind = "single-redis"
clients = 2
ttl_ms = 10000
work_ms = 1000
deadline_check = "{check}"

[[fault]]
kind = "pause"
node = "client-0"
after = "read_done"
duration_ms = 15000
"#
    );
    let path = common::scratch_dir("run-cli").join(format!("no-expect-{check}.toml"));
    common::write_whole(&path, &text);
    path
}

/// Without `[expect]` a violation is a failure (exit 1, with the command that reproduces it),
/// and a run that violates nothing succeeds (exit 0) — in text and in JSON alike.
#[test]
fn without_expect_a_violation_exits_1_and_a_clean_run_exits_0() {
    let violating = unexpecting("once");
    let holding = unexpecting("before_write");
    for format in ["text", "json"] {
        let o = common::locksim(&["run", violating.to_str().unwrap(), "--format", format]);
        assert_eq!(o.status.code(), Some(1), "{format}: {}", common::stdout(&o));
        if format == "text" {
            assert!(common::stdout(&o).contains("VIOLATED"), "{}", common::stdout(&o));
            assert!(
                common::stderr(&o).contains("reproduce: locksim run"),
                "{}",
                common::stderr(&o)
            );
        }
        let o = common::locksim(&["run", holding.to_str().unwrap(), "--format", format]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{format}: {}{}",
            common::stdout(&o),
            common::stderr(&o)
        );
        if format == "text" {
            assert!(!common::stdout(&o).contains("VIOLATED"), "{}", common::stdout(&o));
        }
    }
}

/// DESIGN 6, "JSON result": `scenario`, `seed`, `protocol`, `verdicts` (id -> held | violated |
/// not_applicable), `violations` (id, true time, event index, why), `events`, `trace_sha256` —
/// each present, of the right type, and consistent with the others.
#[test]
fn run_format_json_has_the_design_keys() {
    let o = common::locksim(&[
        "run",
        "scenarios/single-redis/kleppmann-gc-pause.toml",
        "--seed",
        "7",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("stdout is one JSON document");
    assert_eq!(v["scenario"], "kleppmann-gc-pause");
    assert_eq!(v["seed"], 7);
    assert_eq!(v["protocol"], "single-redis");
    let events = v["events"].as_u64().expect("events is a count");
    assert!(events > 100, "a real run: {events} events");
    let sha = v["trace_sha256"].as_str().expect("trace_sha256 is a string");
    assert!(
        sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
        "trace_sha256: {sha}"
    );
    let verdicts = v["verdicts"].as_object().expect("verdicts is an object");
    for id in [
        "mutual_exclusion",
        "fencing_order",
        "stale_write",
        "lost_update",
        "token_monotonic",
        "liveness",
    ] {
        let word = verdicts.get(id).and_then(Value::as_str);
        assert!(
            matches!(word, Some("held" | "violated" | "not_applicable")),
            "verdicts.{id}: {word:?}"
        );
    }
    assert_eq!(verdicts["stale_write"], "violated");
    assert_eq!(verdicts["mutual_exclusion"], "held");
    let violations = v["violations"].as_array().expect("violations is a list");
    let violated: Vec<&str> = verdicts
        .iter()
        .filter(|(_, w)| *w == "violated")
        .map(|(id, _)| id.as_str())
        .collect();
    assert_eq!(violations.len(), violated.len(), "one violation per violated verdict");
    for x in violations {
        let id = x["invariant"].as_str().expect("a violation names its invariant");
        assert!(violated.contains(&id), "{id} is violated in `verdicts`");
        assert!(x["t_ns"].as_u64().is_some_and(|t| t > 15_000_000_000), "{x}");
        assert!(x["event"].as_u64().is_some_and(|i| i < events), "{x}");
        assert!(x["why"].as_str().is_some_and(|w| !w.is_empty()), "{x}");
    }
}

/// A scenario whose `[[fault]]` (at `fault_line`) is `trigger`, expecting what the run gives
/// with or without the fault: only whether the fault fired can fail it.
fn with_trigger(name: &str, trigger: &str) -> (PathBuf, usize) {
    let text = format!(
        r#"name = "{name}"
duration_ms = 60000

[protocol]
kind = "single-redis"
clients = 2
ttl_ms = 10000
deadline_check = "before_write"

[[fault]]
kind = "pause"
node = "client-0"
{trigger}
duration_ms = 15000

[expect]
mutual_exclusion = "held"
stale_write = "held"
"#
    );
    let path = common::scratch_dir("run-cli").join(format!("{name}.toml"));
    common::write_whole(&path, &text);
    (path, 10)
}

/// Issue 10, point 9: a fault whose trigger never comes — an event the run never records, or
/// an occurrence it never reaches — fails the run (exit 1) with a line naming the fault by
/// its place in the file, in text and in JSON (`unfired_faults`), instead of "every
/// expectation met" over a run that did not test what the file says.
#[test]
fn a_fault_that_never_fires_fails_the_run_and_is_named() {
    for (name, trigger, seen) in [
        (
            "never-rejected",
            "after = \"client-0:write_rejected\"",
            "recorded 0 times",
        ),
        ("nth-too-large", "after = \"read_done\"\nnth = 1000000", "times"),
    ] {
        let (path, line) = with_trigger(name, trigger);
        let file = path.to_str().unwrap();
        let o = common::locksim(&["run", file, "--timeline", "none"]);
        let text = common::stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {text}{}", common::stderr(&o));
        assert!(!text.contains("every expectation met"), "{name}: {text}");
        let label = format!("fault[0] (line {line})");
        assert!(
            text.contains(&format!("{label}  NEVER FIRED: pause of client-0 after the ")),
            "{name}: {text}"
        );
        assert!(text.contains(seen), "{name}: {text}");
        assert!(
            text.contains(&format!("=> NOT AS EXPECTED: {label} never fired")),
            "{name}: {text}"
        );
        assert!(common::stderr(&o).contains("reproduce: locksim run"), "{name}");
        // Liveness counts fired faults only: with none fired, it does not speak of their end.
        let liveness = text.lines().find(|l| l.trim_start().starts_with("liveness")).unwrap();
        assert!(!liveness.contains("after the faults ended"), "{name}: {liveness}");
        assert!(liveness.contains("no fault fired"), "{name}: {liveness}");

        let o = common::locksim(&["run", file, "--format", "json"]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", common::stdout(&o));
        let v: Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
        assert_eq!(v["as_expected"], false, "{name}");
        let unfired = v["unfired_faults"].as_array().expect("unfired_faults is a list");
        assert_eq!(unfired.len(), 1, "{name}: {unfired:?}");
        let u = &unfired[0];
        assert_eq!(u["index"], 0, "{name}: {u}");
        assert_eq!(u["line"], line, "{name}: {u}");
        assert_eq!(u["kind"], "pause", "{name}: {u}");
        assert_eq!(u["node"], "client-0", "{name}: {u}");
        assert!(
            u["trigger"]["after"]
                .as_str()
                .is_some_and(|a| a.starts_with("client-0:")),
            "{name}: {u}"
        );
    }
}

/// The same file with a trigger the run reaches passes, and says so: `unfired_faults` is
/// there, and empty.
#[test]
fn a_fault_that_fires_leaves_unfired_faults_empty() {
    let (path, _) = with_trigger("fires", "after = \"read_done\"\nnth = 3");
    let o = common::locksim(&["run", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stdout(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(v["unfired_faults"], serde_json::json!([]));
    assert_eq!(v["as_expected"], true);
    let o = common::locksim(&["run", path.to_str().unwrap(), "--timeline", "none"]);
    assert!(
        common::stdout(&o).contains("every expectation met"),
        "{}",
        common::stdout(&o)
    );
    assert!(!common::stdout(&o).contains("NEVER FIRED"), "{}", common::stdout(&o));
}

/// Every way `run` streams its trace states the same run: the text without any trace line
/// (`--timeline none`), the text with a timeline, JSON (lines hashed as they pass) and the
/// trace file (written as the run goes, its result after its events).
#[test]
fn every_output_of_run_states_the_same_count_and_hash() {
    let scenario = common::scenario("single-redis/kleppmann-gc-pause.toml");
    let scenario = scenario.to_str().unwrap();
    let json = common::locksim(&["run", scenario, "--format", "json"]);
    let result: serde_json::Value = serde_json::from_str(&common::stdout(&json)).unwrap();
    let events = result["events"].as_u64().unwrap();
    assert!(events > 0);
    for timeline in ["none", "compact"] {
        let text = common::stdout(&common::locksim(&["run", scenario, "--timeline", timeline]));
        assert!(text.contains(&format!(" simulated, {events} events (")), "{text}");
    }
    let trace = common::scratch_dir("run-streams").join("run.trace.json");
    let o = common::run_writing_trace(std::path::Path::new(scenario), &trace);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let text = std::fs::read_to_string(&trace).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["events"].as_array().unwrap().len() as u64, events);
    assert_eq!(file["result"], result);
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.iter().position(|l| *l == "\"events\": [").unwrap() + 1;
    let body: Vec<&str> = lines[first..first + events as usize]
        .iter()
        .map(|l| l.trim_end_matches(','))
        .collect();
    assert_eq!(
        locksim::sim::trace::sha256_hex(body),
        result["trace_sha256"].as_str().unwrap()
    );
    assert!(text.ends_with("}\n"));
}
