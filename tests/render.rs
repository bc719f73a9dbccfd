//! The renderers on real runs: the lane timeline and the Mermaid diagram show every node, draw
//! only real messages, make a rejected write and a violation visible, print the same bytes from
//! a live run and from its trace file, and keep `run`'s exit codes.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use locksim::load::load_file;
use locksim::render::{Marks, lanes, mermaid};
use locksim::report::RunReport;
use locksim::sim::trace::TraceEvent;
use serde_json::Value;

/// The events and marks of a catalogue scenario run at its own seed.
fn live(rel: &str) -> (Vec<TraceEvent>, Marks) {
    let loaded = load_file(&common::scenario(rel)).unwrap_or_else(|e| panic!("{e}"));
    let report = RunReport::run(&loaded, None);
    let marks = Marks::from_verdicts(&report.outcome.verdicts);
    (report.outcome.trace, marks)
}

/// `participant id as name` lines: id -> name.
fn participants(diagram: &str) -> Vec<(String, String)> {
    diagram
        .lines()
        .filter_map(|l| l.trim().strip_prefix("participant "))
        .map(|rest| {
            let (id, name) = rest.split_once(" as ").expect("participant id as name");
            (id.to_string(), name.to_string())
        })
        .collect()
}

/// Arrow lines: (from id, operator, to id, text).
fn arrows(diagram: &str) -> Vec<(String, &'static str, String, String)> {
    let mut out = Vec::new();
    for line in diagram.lines().map(str::trim) {
        if line.starts_with("Note ") {
            continue;
        }
        let Some((head, text)) = line.split_once(": ") else {
            continue;
        };
        for op in ["->>", "-x", "-)"] {
            if let Some((from, to)) = head.split_once(op) {
                out.push((from.to_string(), op, to.to_string(), text.to_string()));
                break;
            }
        }
    }
    out
}

fn json(e: &TraceEvent) -> Value {
    serde_json::from_str(&e.json).unwrap()
}

/// Undoes the diagram's entity codes, for comparing with the simulator's text.
fn unescape(text: &str) -> String {
    text.replace("#59;", ";")
        .replace("#lt;", "<")
        .replace("#gt;", ">")
        .replace("#35;", "#")
}

#[test]
fn every_catalogue_diagram_has_every_node_and_only_real_messages() {
    let root = common::root();
    for path in common::catalogue() {
        let rel = path
            .strip_prefix(root.join("scenarios"))
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let (events, marks) = live(&rel);
        let diagram = mermaid(&events, &marks);
        assert!(diagram.starts_with("sequenceDiagram\n"), "{rel}");
        let declared = participants(&diagram);
        let nodes: Vec<&str> = {
            let mut seen: Vec<&str> = Vec::new();
            for e in &events {
                if e.node != "network" && !seen.contains(&e.node.as_str()) {
                    seen.push(&e.node);
                }
            }
            seen
        };
        let names: Vec<&str> = declared.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(names, nodes, "{rel}: a participant per node, in order of appearance");
        let name_of = |id: &str| {
            declared
                .iter()
                .find(|(i, _)| i == id)
                .map(|(_, n)| n.clone())
                .unwrap_or_else(|| panic!("{rel}: arrow end {id} is not a participant"))
        };
        // Every arrow is a message the run sent, between the nodes it names.
        let mut delivered = BTreeSet::new();
        let mut dropped = BTreeSet::new();
        for e in &events {
            let v = json(e);
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            match e.kind.as_str() {
                "deliver" => {
                    delivered.insert((s("from"), e.node.clone(), s("msg")));
                }
                "drop" => {
                    dropped.insert((s("from"), s("to"), s("msg")));
                }
                _ => {}
            }
        }
        let drawn = arrows(&diagram);
        for (from, op, to, text) in &drawn {
            let (from, to) = (name_of(from), name_of(to));
            let text = unescape(text);
            let matches = |set: &BTreeSet<(String, String, String)>, text: &str| {
                set.iter().any(|(f, t, m)| {
                    *f == from && *t == to && (m == text || text.strip_suffix('…').is_some_and(|p| m.starts_with(p)))
                })
            };
            match *op {
                "->>" => assert!(
                    matches(&delivered, &text),
                    "{rel}: no such delivery: {from} -> {to}: {text}"
                ),
                "-x" => {
                    let msg = text.rsplit_once(" (").map_or(text.as_str(), |(m, _)| m);
                    assert!(matches(&dropped, msg), "{rel}: no such drop: {from} -> {to}: {text}");
                }
                _ => {}
            }
        }
        // A run without a single message (Snowflake generators with static node IDs talk to
        // nobody) draws none; any other run draws some.
        let sent_any = !delivered.is_empty() || !dropped.is_empty();
        assert!(!drawn.is_empty() || !sent_any, "{rel}: no message drawn");
        // Each violated invariant is marked, in red, once per first violating event.
        for ids in events.iter().map(|e| marks.of(e.index)).filter(|ids| !ids.is_empty()) {
            let mark = format!("VIOLATES {}", ids.join(", "));
            assert!(diagram.contains(&mark), "{rel}: {mark} missing");
        }
        assert_eq!(
            diagram.matches("rect rgb(255, 204, 204)").count(),
            events.iter().filter(|e| marks.contains(e.index)).count(),
            "{rel}"
        );
        assert_eq!(
            diagram.matches("\n    rect ").count(),
            diagram.matches("\n    end\n").count()
        );
        assert!(diagram.len() < 50_000, "{rel}: {} characters", diagram.len());
    }
}

#[test]
fn the_fenced_gc_pause_shows_the_rejected_late_write() {
    let (events, marks) = live("single-redis/kleppmann-gc-pause-fenced.toml");
    let diagram = mermaid(&events, &marks);
    // The late write travels, and the resource refuses it, highlighted.
    assert!(
        diagram.contains("    client_0->>resource: WRITE counter := 1 token 1\n"),
        "{diagram}"
    );
    let refusal = diagram
        .find("REJECTED write from client-0 (token 1 #lt; max ")
        .expect("the refusal note");
    let before = &diagram[..refusal];
    assert!(before.ends_with("    rect rgb(255, 236, 179)\n        Note over resource: 16.015 s<br>"));
    assert!(!diagram.contains("VIOLATES"), "nothing is violated");
    // The pause and the resume, and the expiry in between.
    let pause = diagram.find("PAUSED for 15 s").unwrap();
    let expiry = diagram.find("lock key (lease caa5) EXPIRED").unwrap();
    let resume = diagram.find("Note over client_0: 15.012 s<br>resumes").unwrap();
    assert!(pause < expiry && expiry < resume);

    let text = lanes(&events, &marks);
    let line = text.lines().find(|l| l.contains("REJECTED write")).unwrap();
    assert!(line.contains("REJECTED write from client-0 (token 1 < max "), "{line}");
    // client-0's lane is dotted while it is paused, and it acts again when it resumes.
    let expired = text.lines().find(|l| l.contains("EXPIRED")).unwrap();
    assert!(expired.contains("   :  |  *  |   server-0"), "{expired}");
    let resumed = text.lines().find(|l| l.ends_with("resumes")).unwrap();
    assert!(resumed.contains("   *  |  |  |   client-0"), "{resumed}");
    assert!(text.starts_with("lanes: c0 client-0, c1 client-1, s0 server-0, re resource"));
}

#[test]
fn the_unfenced_gc_pause_marks_its_violations() {
    let (events, marks) = live("single-redis/kleppmann-gc-pause.toml");
    assert!(!marks.is_empty());
    let diagram = mermaid(&events, &marks);
    let text = lanes(&events, &marks);
    let line = text.lines().find(|l| l.contains("<== VIOLATES stale_write")).unwrap();
    assert!(line.contains('!'), "{line}");
    assert!(line.contains("ACCEPTED write"), "{line}");
    let at = diagram.find("<br>VIOLATES stale_write").unwrap();
    let note_start = diagram[..at].rfind("rect rgb(255, 204, 204)\n        Note over resource: ");
    assert!(note_start.is_some(), "{diagram}");
}

#[test]
fn rendering_is_deterministic() {
    let (a, marks_a) = live("redlock/clock-jump.toml");
    let (b, marks_b) = live("redlock/clock-jump.toml");
    assert_eq!(mermaid(&a, &marks_a), mermaid(&b, &marks_b));
    assert_eq!(lanes(&a, &marks_a), lanes(&b, &marks_b));
}

/// The Redlock clock-jump story (or, while it is missing, the fenced GC pause) shows each
/// acquisition as a note over its client, with token, validity and — for Redlock — the servers
/// that granted it: two clients, each on a majority.
#[test]
fn acquisitions_are_notes() {
    let redlock = common::scenario("redlock/clock-jump.toml");
    let rel = if redlock.exists() {
        "redlock/clock-jump.toml"
    } else {
        "single-redis/kleppmann-gc-pause-fenced.toml"
    };
    let (events, marks) = live(rel);
    let diagram = mermaid(&events, &marks);
    let notes: Vec<&str> = diagram
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("Note over client_") && l.contains("ACQUIRED lease "))
        .collect();
    let holders: BTreeSet<&str> = notes.iter().map(|l| &l[10..18]).collect();
    assert_eq!(holders.len(), 2, "{rel}: both clients acquire: {notes:#?}");
    for note in &notes {
        assert!(note.contains(" · validity "), "{note}");
        assert!(note.contains("token"), "{note}");
    }
    if redlock.exists() {
        // Two clients each hold a majority of the five servers at some point.
        for holder in &holders {
            let majority = notes.iter().any(|n| {
                n[10..18] == **holder
                    && n.split("<br>on ")
                        .nth(1)
                        .and_then(|rest| rest.split(" (").nth(1))
                        .and_then(|k| k.split(' ').next())
                        .and_then(|k| k.parse::<u32>().ok())
                        .is_some_and(|k| k >= 3)
            });
            assert!(majority, "{holder} never holds a majority: {notes:#?}");
        }
    }
}

fn temp_dir(name: &str) -> PathBuf {
    common::scratch_dir(&format!("render-{name}"))
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_trace_file_renders_exactly_as_the_live_run() {
    let dir = temp_dir("trace");
    for rel in ["single-redis/kleppmann-gc-pause.toml", "redlock/clock-jump.toml"] {
        let scenario = common::scenario(rel);
        if !scenario.exists() {
            continue;
        }
        let trace = dir.join("run.trace.json");
        for format in ["mermaid", "text"] {
            let live = common::locksim(&[
                "run",
                path_str(&scenario),
                "--trace",
                path_str(&trace),
                "--render",
                format,
            ]);
            assert_eq!(live.status.code(), Some(0), "{}", common::stderr(&live));
            let rendered = common::locksim(&["render", path_str(&trace), "--format", format]);
            assert_eq!(rendered.status.code(), Some(0), "{}", common::stderr(&rendered));
            assert_eq!(common::stdout(&rendered), common::stdout(&live), "{rel} {format}");
            assert!(common::stderr(&rendered).is_empty());
        }
        let stdout = common::stdout(&common::locksim(&["render", path_str(&trace), "--format", "mermaid"]));
        assert!(stdout.starts_with("sequenceDiagram\n") && stdout.contains("VIOLATES"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_render_prints_only_the_view_and_keeps_runs_exit_codes() {
    let dir = temp_dir("exit");
    // A violation the scenario does not expect: exit 1, the diagram alone on stdout.
    let scenario = dir.join("unexpected.toml");
    std::fs::write(
        &scenario,
        r#"name = "unexpected"
seed = 1
duration_ms = 20000

[protocol]
kind = "single-redis"
clients = 2
ttl_ms = 10000
deadline_check = "once"

[[fault]]
kind = "pause"
node = "client-0"
after = "read_done"
duration_ms = 15000

[expect]
stale_write = "held"
"#,
    )
    .unwrap();
    let o = common::locksim(&["run", path_str(&scenario), "--render", "mermaid"]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let stdout = common::stdout(&o);
    assert!(stdout.starts_with("sequenceDiagram\n"), "{stdout}");
    assert!(!stdout.contains("verdicts"));
    assert!(stdout.contains("VIOLATES stale_write"));
    assert!(common::stderr(&o).contains("reproduce: locksim run"));
    let o = common::locksim(&["run", path_str(&scenario), "--render", "text"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(common::stdout(&o).starts_with("lanes: c0 client-0, c1 client-1, s0 server-0, re resource"));

    // As expected: exit 0.
    let fenced = common::scenario("single-redis/kleppmann-gc-pause-fenced.toml");
    let o = common::locksim(&["run", path_str(&fenced), "--render", "mermaid"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(common::stderr(&o).is_empty());

    // Bad input: exit 2, with a message that names the file.
    let o = common::locksim(&["render", path_str(&dir.join("missing.json"))]);
    assert_eq!(o.status.code(), Some(2));
    assert!(common::stderr(&o).contains("missing.json: cannot read the trace"));
    let o = common::locksim(&["render", path_str(&scenario)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(common::stderr(&o).contains("not a JSON trace"));
    let o = common::locksim(&["run", path_str(&fenced), "--render", "mermaid", "--format", "json"]);
    assert_eq!(o.status.code(), Some(2), "--render and --format exclude each other");
    std::fs::remove_dir_all(&dir).unwrap();
}
