//! Every Mermaid diagram the catalogue produces (each scenario at its own seed), plus one
//! synthetic diagram with every construct the renderer can emit, parses with Mermaid's OWN
//! parser: `mermaid.parse()` of the `mermaid` npm package, version 11, run by Node
//! (`tests/mermaid/parse.mjs`). Mermaid is what GitHub draws ```mermaid blocks with, so a
//! diagram that passes here renders on a GitHub page as it is.
//!
//! Mermaid is a Node package, not a Rust one, so this test needs it installed somewhere:
//!
//! ```sh
//! mkdir -p /tmp/locksim-mermaid && cd /tmp/locksim-mermaid && npm install --no-audit --no-fund mermaid@11
//! LOCKSIM_MERMAID_DIR=/tmp/locksim-mermaid cargo test --test mermaid_parse -- --nocapture
//! ```
//!
//! Without `LOCKSIM_MERMAID_DIR` the test says it skipped and passes; `.ci/run` sets it, so CI
//! always parses. A variable that is set but points at no `node_modules/mermaid` is an error,
//! not a skip: a misconfigured CI must not pass silently.

mod common;

use std::path::Path;
use std::process::Command;

use locksim::load::load_file;
use locksim::protocols::Role;
use locksim::protocols::lock::obs::{Deadline, LockObs};
use locksim::render::{Cast, Marks, mermaid};
use locksim::run_result::RunResult;
use locksim::sim::Salience;
use locksim::sim::history::DropReason;
use locksim::sim::trace::{Happening, Observed, Stamp, TraceEvent};
use serde_json::Value;

/// What the renderer put in a diagram, counted the way Mermaid's parser reports it.
fn counts(diagram: &str) -> (Vec<String>, usize, usize) {
    let mut participants = Vec::new();
    let (mut arrows, mut notes) = (0, 0);
    for line in diagram.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("participant ") {
            participants.push(rest.split_once(" as ").map_or(rest, |(_, name)| name).to_string());
        } else if line.starts_with("Note over ") {
            notes += 1;
        } else if line
            .split_once(": ")
            .is_some_and(|(head, _)| ["->>", "-x", "-)"].iter().any(|op| head.contains(op)))
        {
            arrows += 1;
        }
    }
    (participants, arrows, notes)
}

fn ev(index: usize, t_ms: u64, node: &str, what: Happening, salience: Salience, text: &str) -> TraceEvent {
    let at = Stamp {
        t_ns: t_ms * 1_000_000,
        node: node.into(),
        wall_ns: t_ms as i64 * 1_000_000 - 2_000_000_000,
        mono_ns: t_ms * 1_000_000,
    };
    TraceEvent::new(index, at, what, text.into(), salience)
}

/// A model's event, with fields no renderer reads.
fn obs(event: &str) -> Happening {
    Happening::Observe(Observed {
        event: event.into(),
        fields: Default::default(),
    })
}

fn send(msg_id: u64, msg: &str) -> Happening {
    Happening::Send {
        msg: msg.into(),
        msg_id,
        to: "end".into(),
    }
}

/// Every construct at once: a network note over everyone, a failover over its primary, a
/// delivered, a dropped and an in-flight arrow, text with `; # < > : { } "`, merged notes,
/// both highlights, a negative local clock, a node named like a keyword, and a fold.
fn synthetic() -> (Vec<TraceEvent>, Cast, Marks) {
    use Salience::{Chatter, Routine, Salient};
    let partition = Happening::Partition {
        fault: 0,
        groups: vec!["{client-0}".into(), "{end}".into()],
        one_way: false,
    };
    let cut = Happening::Drop {
        from: "client-0".into(),
        msg: "cut".into(),
        msg_id: 2,
        reason: DropReason::Partition,
        to: "end".into(),
    };
    let delivered = Happening::Deliver {
        from: "client-0".into(),
        msg: "SET k; #2 <i> -> x".into(),
        msg_id: 1,
    };
    let failover = Happening::Failover { primary: "end".into() };
    let mut events = vec![
        ev(0, 0, "client-0", Happening::Start, Chatter, "starts"),
        ev(1, 0, "end", Happening::Start, Chatter, "starts"),
        ev(2, 0, "network", partition, Salient, "PARTITION: {client-0} | {end}"),
        ev(
            3,
            1,
            "client-0",
            obs("write_sent"),
            Routine,
            "sends \"x\"; #1 <b>bold</b> a: b {c}",
        ),
        ev(4, 1, "client-0", send(1, "SET k; #2 <i> -> x"), Chatter, ""),
        ev(5, 1, "client-0", send(2, "cut"), Chatter, ""),
        ev(6, 1, "client-0", cut, Chatter, ""),
        ev(7, 1, "client-0", send(3, "never arrives"), Chatter, ""),
        ev(8, 2, "end", delivered, Chatter, ""),
        ev(
            9,
            2,
            "end",
            obs("write_refused"),
            Salient,
            "REJECTED write (token 1 < max 2)",
        ),
        ev(10, 2, "end", obs("key_expired"), Salient, "lock key EXPIRED"),
        ev(
            11,
            3,
            "network",
            failover,
            Salient,
            "FAILOVER: end's replica is promoted",
        ),
    ];
    let mut i = events.len();
    for k in 0..40 {
        events.push(ev(i, 10 + k, "client-0", obs("read_done"), Routine, "read counter = 0"));
        i += 1;
    }
    let acquired = Happening::Observe(Observed::of(&LockObs::Acquired {
        lease: 1,
        token: None,
        validity_ns: -5,
        deadline_mono_ns: Deadline::Mono(0),
        servers: 3,
    }));
    events.push(ev(i, 100, "client-0", acquired, Salient, "ACQUIRED"));
    let mut marks = Marks::default();
    marks.add(i, "mutual_exclusion");
    marks.add(i, "stale_write");
    let cast = Cast::new(
        vec![("client-0".into(), Role::Client), ("end".into(), Role::Server)],
        vec!["end".into()],
    );
    (events, cast, marks)
}

#[test]
fn every_catalogue_diagram_parses_with_mermaids_own_parser() {
    let Some(dir) = std::env::var_os("LOCKSIM_MERMAID_DIR") else {
        eprintln!(
            "skipped: set LOCKSIM_MERMAID_DIR to a folder where `npm install mermaid@11` ran \
             (see tests/mermaid_parse.rs) to parse every catalogue diagram with Mermaid"
        );
        return;
    };
    let mermaid_dir = Path::new(&dir);
    assert!(
        mermaid_dir.join("node_modules/mermaid/package.json").is_file(),
        "LOCKSIM_MERMAID_DIR={} has no node_modules/mermaid: run `npm install mermaid@11` there",
        mermaid_dir.display()
    );

    let root = common::root();
    let out = common::scratch_dir("mermaid-parse");
    let mut diagrams = Vec::new();
    for path in common::catalogue() {
        let rel = path.strip_prefix(&root).unwrap();
        let loaded = load_file(rel).unwrap_or_else(|e| panic!("{e}"));
        let mut events = Vec::new();
        let report = RunResult::run_into(&loaded, None, &mut events);
        let cast = Cast::of(&loaded.scenario);
        let text = mermaid(&events, &cast, &Marks::from_verdicts(&report.outcome.verdicts));
        let name = rel.with_extension("mmd").to_string_lossy().replace(['/', '\\'], "__");
        diagrams.push((out.join(name), text));
    }
    let (events, cast, marks) = synthetic();
    diagrams.push((
        out.join("synthetic-every-construct.mmd"),
        mermaid(&events, &cast, &marks),
    ));
    for (file, text) in &diagrams {
        std::fs::write(file, text).unwrap();
    }

    let script = root.join("tests/mermaid/parse.mjs");
    let output = Command::new("node")
        .arg(&script)
        .args(diagrams.iter().map(|(f, _)| f))
        .env("LOCKSIM_MERMAID_DIR", mermaid_dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `node` (needed with LOCKSIM_MERMAID_DIR set): {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let results: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("parse.mjs printed {l:?}: {e}\n{stderr}")))
        .collect();
    assert_eq!(
        results.len(),
        diagrams.len(),
        "one result per diagram\n{stdout}\n{stderr}"
    );

    let mut failures = Vec::new();
    for ((file, text), result) in diagrams.iter().zip(&results) {
        let name = file.file_name().unwrap().to_string_lossy();
        if result["ok"] != Value::Bool(true) {
            failures.push(format!("{name}: {}", result["error"].as_str().unwrap_or("?")));
            continue;
        }
        // Mermaid read what the renderer meant: every participant, arrow and note.
        let (participants, arrows, notes) = counts(text);
        let parsed: Vec<String> = result["participants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect();
        if result["type"] != "sequence"
            || parsed != participants
            || result["arrows"] != arrows
            || result["notes"] != notes
        {
            failures.push(format!(
                "{name}: Mermaid read {result}, the renderer wrote participants {participants:?}, {arrows} arrows, {notes} notes"
            ));
        }
    }
    assert!(
        failures.is_empty() && output.status.success(),
        "{} of {} diagrams fail Mermaid's parser (kept in {}):\n{}\n{stderr}",
        failures.len(),
        diagrams.len(),
        out.display(),
        failures.join("\n")
    );
    let version = results[0]["mermaid"].as_str().unwrap_or("?");
    eprintln!(
        "parsed {} diagrams ({} catalogue + 1 synthetic) with mermaid {version}",
        diagrams.len(),
        diagrams.len() - 1
    );
    std::fs::remove_dir_all(&out).unwrap();
}
