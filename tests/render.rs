//! The renderers on real runs: the lane timeline and the Mermaid diagram show every node, draw
//! only real messages, make a rejected write and a violation visible, print the same bytes from
//! a live run and from its trace file, and keep `run`'s exit codes.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::mermaid::{arrows, flat, participants, unescape};
use locksim::load::load_file;
use locksim::render::{Cast, Marks, lanes, mermaid, svg};
use locksim::run_result::RunResult;
use locksim::sim::trace::{Happening, TraceEvent};
use locksim::trace_file;
use locksim::trace_write::TraceWriter;

/// The events and marks of a catalogue scenario run at its own seed.
fn live(rel: &str) -> (Vec<TraceEvent>, Cast, Marks) {
    let loaded = load_file(&common::scenario(rel)).unwrap_or_else(|e| panic!("{e}"));
    let mut events = Vec::new();
    let report = RunResult::run_into(&loaded, None, &mut events);
    let marks = Marks::from_verdicts(&report.outcome.verdicts);
    (events, Cast::of(&loaded.scenario), marks)
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
        let (events, cast, marks) = live(&rel);
        let diagram = mermaid(&events, &cast, &marks);
        assert!(diagram.contains("%%\nsequenceDiagram\n    title "), "{rel}");
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
            match &e.what {
                Happening::Deliver { from, msg, .. } => {
                    delivered.insert((from.clone(), e.node.clone(), msg.clone()));
                }
                Happening::Drop { from, msg, to, .. } => {
                    dropped.insert((from.clone(), to.clone(), msg.clone()));
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
    let (events, cast, marks) = live("single-redis/kleppmann-gc-pause-fenced.toml");
    let diagram = mermaid(&events, &cast, &marks);
    // The late write travels, and the resource refuses it, highlighted.
    assert!(
        diagram.contains("    client_0->>resource: WRITE counter := 1 token 1\n"),
        "{diagram}"
    );
    let diagram = flat(&diagram);
    let refusal = diagram
        .find("REJECTED write from client-0 (token 1 #lt; max ")
        .expect("the refusal note");
    let before = &diagram[..refusal];
    assert!(before.ends_with("    rect rgb(255, 236, 179)\n        Note over resource: 16.015 s "));
    assert!(!diagram.contains("VIOLATES"), "nothing is violated");
    // The pause and the resume, and the expiry in between.
    let pause = diagram.find("PAUSED for 15 s").unwrap();
    let expiry = diagram.find("lock key (lease caa5) EXPIRED").unwrap();
    let resume = diagram.find("Note over client_0: 15.012 s resumes").unwrap();
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
    let (events, cast, marks) = live("single-redis/kleppmann-gc-pause.toml");
    assert!(!marks.is_empty());
    let diagram = mermaid(&events, &cast, &marks);
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
    let (a, cast_a, marks_a) = live("redlock/clock-jump.toml");
    let (b, cast_b, marks_b) = live("redlock/clock-jump.toml");
    assert_eq!(mermaid(&a, &cast_a, &marks_a), mermaid(&b, &cast_b, &marks_b));
    assert_eq!(lanes(&a, &marks_a), lanes(&b, &marks_b));
}

/// The Redlock clock-jump story (or, while it is missing, the fenced GC pause) shows each
/// acquisition as a note over its client, with token, validity and — for Redlock — the servers
/// that granted it: two clients, each on a majority.
#[test]
fn acquisitions_are_notes() {
    // Kleppmann's clock jump: client-0 holds servers 0-2, server-2's clock jumps, client-1
    // takes servers 2-4 while client-0 still holds — two majorities, drawn as two notes, the
    // second marked, both before client-0's late write is acknowledged (its release is routine
    // traffic the story view folds).
    let (events, cast, marks) = live("redlock/clock-jump.toml");
    let diagram = flat(&mermaid(&events, &cast, &marks));
    let lines: Vec<&str> = diagram.lines().map(str::trim).collect();
    let find = |who: &str, what: &[&str]| {
        lines
            .iter()
            .position(|l| l.starts_with(&format!("Note over {who}:")) && what.iter().all(|w| l.contains(w)))
            .unwrap_or_else(|| panic!("no note over {who} with {what:?}:\n{diagram}"))
    };
    let first = find(
        "client_0",
        &[
            "ACQUIRED lease ",
            " · validity 9.848 s",
            "on server-0, server-1, server-2 (3 of 5)",
        ],
    );
    let second = find(
        "client_1",
        &[
            "ACQUIRED lease ",
            "on server-2, server-3, server-4 (3 of 5)",
            "VIOLATES mutual_exclusion",
        ],
    );
    let acknowledged = find("client_0", &["write of 1 acknowledged"]);
    assert!(
        first < second && second < acknowledged,
        "{first} {second} {acknowledged}"
    );
    assert!(!lines[first].contains("VIOLATES"), "the first majority is legitimate");
}

#[test]
fn an_etcd_acquisition_note_shows_its_session_deadline_and_names_no_servers() {
    // An etcd client holds by the leader's word alone (no server set): the note must not print
    // "on  (0 of 3)". Even a client that never checks its deadline tracks one (DESIGN 5: it is
    // judged to hold until then), and the note shows it; leader-failover's clients are such.
    let (events, cast, marks) = live("etcd/leader-failover.toml");
    let diagram = mermaid(&events, &cast, &marks);
    let acquired: Vec<&str> = diagram.lines().filter(|l| l.contains("ACQUIRED")).collect();
    assert!(!acquired.is_empty(), "the etcd diagram shows acquisitions");
    for line in acquired {
        assert!(line.contains("· validity "), "{line}");
        assert!(!line.contains("9223372036") && !line.contains(" of 3)"), "{line}");
    }
    // A Redlock acquisition still shows its validity and its majority.
    let (events, cast, marks) = live("redlock/clock-jump.toml");
    let diagram = mermaid(&events, &cast, &marks);
    assert!(diagram.contains("validity 9.848 s") && diagram.contains("(3 of 5)"));
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
    let trace = dir.join("run.trace.json");
    // Through the command line, every view: `run --render` and `render TRACE` print the same.
    for rel in ["single-redis/kleppmann-gc-pause.toml", "redlock/clock-jump.toml"] {
        let scenario = common::scenario(rel);
        for format in ["mermaid", "text", "svg"] {
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
        assert!(
            stdout.starts_with("%%{init: ") && stdout.contains("\nsequenceDiagram\n") && stdout.contains("VIOLATES")
        );
    }
    // Every catalogue scenario, in process: the trace file alone gives back the same events
    // and marks, so every view of it is the live run's.
    for scenario in common::catalogue() {
        let loaded = load_file(&scenario).unwrap_or_else(|e| panic!("{e}"));
        // The file streamed as the run went, beside the events kept whole.
        let mut live = Vec::new();
        let mut writer = TraceWriter::begin(Vec::new(), &loaded, loaded.scenario.seed).unwrap();
        let report = RunResult::run_into(&loaded, None, &mut (&mut writer, &mut live));
        let live_marks = Marks::from_verdicts(&report.outcome.verdicts);
        std::fs::write(&trace, writer.finish(&report.json()).unwrap()).unwrap();
        let file = trace_file::read(&trace).unwrap_or_else(|e| panic!("{e}"));
        let (cast, marks) = (file.cast().unwrap(), Marks::from_result(&file.result).unwrap());
        let events = file.timeline_events(&cast).unwrap_or_else(|e| panic!("{e}"));
        let live = &live;
        // The run's cast knows the file it was loaded from, as `run` names it in a caption.
        let live_cast = Cast::of(&loaded.scenario).from_file(&loaded.file);
        let rel = scenario.display();
        // The same typed events (their JSON lines included) and the same roles: no view can
        // tell a trace file from the run it recorded.
        assert_eq!(&events, live, "{rel} events");
        assert_eq!(cast, live_cast, "{rel} cast");
        assert_eq!(lanes(&events, &marks), lanes(live, &live_marks), "{rel} text");
        // The lane view selected from the file's stream, as `render` draws it, is the same.
        assert_eq!(
            locksim::trace_view::trace_lanes(&file, &cast, &marks).unwrap(),
            lanes(live, &live_marks),
            "{rel} streamed text"
        );
        assert_eq!(
            mermaid(&events, &cast, &marks),
            mermaid(live, &live_cast, &live_marks),
            "{rel} mermaid"
        );
        assert_eq!(
            svg(&events, &cast, &marks),
            svg(live, &live_cast, &live_marks),
            "{rel} svg"
        );
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
    assert!(
        stdout.starts_with("%%{init: ") && stdout.contains("\nsequenceDiagram\n"),
        "{stdout}"
    );
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

/// The lock servers a grant set numbers are the layout's server group: a Redis replica and
/// Redlock's token counter are servers that grant no lock.
#[test]
fn the_casts_lock_servers_are_the_layouts_server_group() {
    let cast_of = |protocol: &str| {
        let text = format!("name = \"c\"\nduration_ms = 1000\n[protocol]\n{protocol}\n");
        Cast::of(&locksim::load::parse_scenario("cast.toml", &text).unwrap_or_else(|e| panic!("{e}")))
    };
    let single = cast_of("kind = \"single-redis\"\nclients = 1\nreplicas = 1");
    assert_eq!(single.lock_servers(), ["server-0"], "a replica grants nothing");
    assert_eq!(single.role("replica-0"), Some(locksim::protocols::Role::Server));
    let redlock = cast_of("kind = \"redlock\"\nservers = 3\nfencing_tokens = \"counter\"");
    assert_eq!(
        redlock.lock_servers(),
        ["server-0", "server-1", "server-2"],
        "nor does a token counter"
    );
    assert_eq!(redlock.role("counter"), Some(locksim::protocols::Role::Server));
    assert_eq!(redlock.role("nobody"), None);
}
