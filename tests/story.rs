//! The story view on the catalogue's three teaching stories: what a class must see in each
//! Mermaid diagram (the pieces the story turns on, the routine traffic folded), every reply
//! with its request, a crashed participant's lifeline ended, and each kind of fault in its own
//! colour.

mod common;

use locksim::load::load_file;
use locksim::render::{Cast, Marks, mermaid};
use locksim::run_result::RunResult;

use common::mermaid::flat;

/// The Mermaid diagram of a catalogue scenario run at its own seed, its line breaks read as
/// spaces (a note's phrase may straddle one).
fn diagram(rel: &str) -> String {
    flat(&drawn(rel))
}

/// The Mermaid diagram of a catalogue scenario run at its own seed, as drawn.
fn drawn(rel: &str) -> String {
    let loaded = load_file(&common::scenario(rel)).unwrap_or_else(|e| panic!("{e}"));
    let mut events = Vec::new();
    let report = RunResult::run_into(&loaded, None, &mut events);
    let marks = Marks::from_verdicts(&report.outcome.verdicts);
    mermaid(&events, &Cast::of(&loaded.scenario), &marks)
}

/// The position of `needle` in `text`, which must hold it.
fn at(text: &str, needle: &str) -> usize {
    text.find(needle)
        .unwrap_or_else(|| panic!("missing {needle:?} in\n{text}"))
}

/// The line after the one holding `needle`, trimmed.
fn line_after<'a>(text: &'a str, needle: &str) -> &'a str {
    let mut lines = text.lines().skip_while(|l| !l.contains(needle));
    lines.next();
    lines.next().unwrap_or("").trim()
}

#[test]
fn the_clock_jump_story_is_whole_and_its_routine_traffic_folded() {
    let d = diagram("redlock/clock-jump.toml");
    // The premise: client-0's requests to server-3 and server-4, cut by the partition, drawn
    // in the colour of a loss.
    let cut = at(
        &d,
        "client_0-xserver_3: SET lock caa5 NX PX 10000 (cut by the partition)",
    );
    at(
        &d,
        "client_0-xserver_4: SET lock caa5 NX PX 10000 (cut by the partition)",
    );
    assert!(
        d[..cut].ends_with("    rect rgb(254, 215, 170)\n        "),
        "a loss's band"
    );
    // client-1's first attempt: a partial grant, refused by the servers client-0 holds, and
    // its outcome.
    let partial = at(&d, "answers in: granted by {3,4}, answered by {0,1,2,3,4}");
    let no_quorum = at(&d, "did not acquire (lease 2257): no quorum");
    let first = at(&d, "ACQUIRED lease caa5");
    let jump = at(&d, "wall clock JUMPS by 20.000 s");
    let expired = at(&d, "lock key (lease caa5) EXPIRED");
    let second = at(&d, "ACQUIRED lease 2257");
    let late = at(
        &d,
        "ACCEPTED write 0 -#gt; 1 from client-0 (no token) VIOLATES stale_write",
    );
    assert!(cut < partial && partial < no_quorum && no_quorum < first && first < jump);
    assert!(jump < expired && expired < second && second < late);
    at(&d, "on server-2, server-3, server-4 (3 of 5) VIOLATES mutual_exclusion");
    // Every refusal drawn comes with its request: no `(nil)` without its SET.
    for (i, line) in d.lines().enumerate().filter(|(_, l)| l.ends_with(": (nil)")) {
        let (server, client) = line.trim().split_once(": ").unwrap().0.split_once("->>").unwrap();
        let request = format!("{client}->>{server}: SET lock ");
        assert!(
            d.lines().take(i).any(|l| l.trim().starts_with(&request)),
            "{line} without its request"
        );
    }
    // A release is routine traffic: no compare-and-delete reaches a server on the page, and
    // the servers' "released by its owner" notes are folded.
    assert!(!d.contains("->>server_0: EVAL compare-and-delete"), "{d}");
    assert!(!d.contains("released by its owner"), "{d}");
    // The clock jump and the expiry each in its own colour.
    assert_eq!(
        line_after(&drawn("redlock/clock-jump.toml"), "    rect rgb(237, 233, 254)"),
        format!("Note over server_2: 0.050 s · wall 20.050 s<br>wall clock JUMPS by<br>20.000 s")
    );
    assert!(line_after(&d, "    rect rgb(217, 249, 157)").ends_with("lock key (lease caa5) EXPIRED"));
}

#[test]
fn the_gc_pause_story_colours_the_pause_and_the_expiry_apart() {
    let d = diagram("single-redis/kleppmann-gc-pause.toml");
    assert!(
        line_after(&d, "    rect rgb(219, 234, 254)").contains("PAUSED for 15 s"),
        "{d}"
    );
    assert!(
        line_after(&d, "    rect rgb(217, 249, 157)").ends_with("lock key (lease caa5) EXPIRED"),
        "{d}"
    );
    let pause = at(&d, "PAUSED for 15 s");
    let expired = at(&d, "EXPIRED");
    let second = at(&d, "ACQUIRED lease 2257");
    let resume = at(&d, "resumes");
    let late = at(&d, "VIOLATES stale_write, lost_update");
    assert!(pause < expired && expired < second && second < resume && resume < late);
    // The caption: title, description and seed.
    assert!(
        d.contains("\nsequenceDiagram\n    title kleppmann-gc-pause, seed 1\n    accDescr: "),
        "{d}"
    );
    at(&d, " seed 1 (--seed 1 draws this run again)");
}

#[test]
fn the_failover_race_ends_the_crashed_primarys_lifeline() {
    let d = diagram("failover/failover-race.toml");
    let crash = at(&d, "CRASHED (never restarts)");
    assert!(d[..crash].ends_with("    rect rgb(212, 212, 212)\n        Note over server_0: 0.004 s "));
    let destroy = at(&d, "        destroy server_0\n");
    assert!(crash < destroy, "the lifeline ends after the crash");
    // Mermaid ends a lifeline at the message right after `destroy`: one to or from it.
    let next = line_after(&d, "destroy server_0");
    assert!(next.contains("-xserver_0: ") || next.starts_with("server_0-"), "{next}");
    assert_eq!(d.matches("destroy ").count(), 1);
    assert!(
        line_after(&d, "    rect rgb(252, 231, 243)").contains("FAILOVER"),
        "{d}"
    );
}

#[test]
fn a_restarted_node_keeps_its_lifeline() {
    let d = diagram("redlock/crash-restart-empty.toml");
    assert!(d.contains("CRASHED"), "{d}");
    assert!(!d.contains("destroy "), "{d}");
}
