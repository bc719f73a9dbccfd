//! The segment-ID stories (`scenarios/ids/segment-*`), checked event by event: which segment
//! went to whom, which IDs a crash left as a gap, which IDs a resumed segment or a lost update
//! issued twice, what a promoted replica knew — so a model that reached the right verdict for
//! the wrong reason fails here.

mod common;

use std::collections::BTreeSet;

use common::story::{Run, run_story, t};
use locksim::load::parse_scenario;
use locksim::protocols::ids::{ID_GLOBAL_ORDER, ID_MONOTONIC, UNIQUE_IDS};
use locksim::sim::time::NS_PER_MS;
use serde_json::Value;

fn ids(r: &Run, node: &str) -> Vec<(u64, u64)> {
    r.all(node, "id_issued")
        .into_iter()
        .map(|e| (t(e), e["id"].as_u64().unwrap()))
        .collect()
}

fn segment(v: &Value) -> (u64, u64) {
    (v["from_exclusive"].as_u64().unwrap(), v["to"].as_u64().unwrap())
}

/// Every segment the allocator `node` granted, with whom to (a node's index: client-i is i).
fn granted(r: &Run, node: &str) -> Vec<(u64, (u64, u64))> {
    r.all(node, "segment_granted")
        .into_iter()
        .map(|e| (e["to"].as_u64().unwrap(), segment(&e["segment"])))
        .collect()
}

const CRASH_NS: u64 = 500 * NS_PER_MS;

#[test]
fn segments_are_handed_out_in_order_and_prefetched_at_10_percent() {
    for seed in 0..3 {
        let r = run_story("ids/segment-adjacent-order.toml", seed);
        let g = granted(&r, "server-0");
        assert_eq!(g[0], (0, (10_000, 11_000)), "seed {seed}: 10000 -> 11000 to client-0");
        assert_eq!(g[1], (1, (11_000, 12_000)), "seed {seed}: the next one to client-1");
        // The double buffer: client-0 asks for its next segment once 100 of 1000 IDs are used,
        // and never runs dry after its first segment arrived.
        let requests = r.all("client-0", "segment_requested");
        assert_eq!(requests[1]["prefetch"], true);
        let issued_before = ids(&r, "client-0")
            .iter()
            .filter(|(at, _)| *at <= t(requests[1]))
            .count();
        assert_eq!(issued_before, 100, "seed {seed}");
        assert_eq!(
            r.all("client-0", "starved").len(),
            1,
            "seed {seed}: only before the first segment"
        );
    }
}

#[test]
fn adjacent_segments_a_smaller_id_issued_later_is_no_bug() {
    let r = run_story("ids/segment-adjacent-order.toml", 1);
    assert!(r.held(UNIQUE_IDS) && r.held(ID_MONOTONIC));
    let low = r.violated_at(ID_GLOBAL_ORDER);
    assert_eq!(low["node"], "client-0");
    let low_id = low["id"].as_u64().unwrap();
    let higher_before = ids(&r, "client-1").into_iter().find(|(_, id)| *id > low_id).unwrap();
    assert!(higher_before.0 <= t(low), "client-1's larger ID came first");
}

#[test]
fn a_crash_leaves_the_rest_of_both_segments_as_a_gap() {
    for seed in 0..3 {
        let r = run_story("ids/segment-crash-gap.toml", seed);
        let issued = ids(&r, "client-0");
        let before: Vec<u64> = issued.iter().filter(|(at, _)| *at <= CRASH_NS).map(|x| x.1).collect();
        let last = *before.last().unwrap();
        assert_eq!(
            before,
            (10_001..=last).collect::<Vec<_>>(),
            "seed {seed}: one after another"
        );
        let abandoned = r.first("client-0", "ids_abandoned");
        assert_eq!(segment(&abandoned["rest"]), (last, 11_000), "seed {seed}");
        assert_eq!(segment(&abandoned["prefetched"]), (11_000, 12_000), "seed {seed}");
        let after: Vec<u64> = issued.iter().filter(|(at, _)| *at > CRASH_NS).map(|x| x.1).collect();
        assert_eq!(after[0], 12_001, "seed {seed}: a new segment after the restart");
        let all: BTreeSet<u64> = issued.iter().map(|x| x.1).collect();
        assert!((last + 1..=12_000).all(|id| !all.contains(&id)), "seed {seed}: the gap");
    }
}

#[test]
fn resuming_the_segment_after_a_crash_reissues_what_was_issued_before() {
    for seed in 0..3 {
        let r = run_story("ids/segment-crash-resume.toml", seed);
        let restarted = r.first("client-0", "process_restarted");
        assert_eq!(segment(&restarted["resumed"]), (10_000, 11_000), "seed {seed}");
        let issued = ids(&r, "client-0");
        let last_before = issued.iter().rfind(|(at, _)| *at <= CRASH_NS).unwrap().1;
        let dup = r.violated_at(UNIQUE_IDS);
        assert_eq!(
            (dup["id"].as_u64(), dup["resumed"].as_bool()),
            (Some(10_001), Some(true))
        );
        let again = issued
            .iter()
            .filter(|(at, id)| *at > CRASH_NS && *id <= last_before)
            .count() as u64;
        assert_eq!(
            again,
            last_before - 10_000,
            "seed {seed}: every ID issued before, again"
        );
    }
}

#[test]
fn read_then_write_loses_an_update_and_two_processes_take_one_segment() {
    for seed in 0..3 {
        let r = run_story("ids/segment-read-then-write.toml", seed);
        let writes = r.all("server-0", "max_written_by");
        let lost = writes
            .iter()
            .find(|w| w["max"] == w["was"])
            .unwrap_or_else(|| panic!("seed {seed}: a lost update"));
        assert_eq!(
            (lost["by"].as_u64(), lost["max"].as_u64()),
            (Some(0), Some(11_000)),
            "client-0"
        );
        for node in ["client-0", "client-1"] {
            let first = r.first(node, "segment_received");
            assert_eq!(segment(&first["segment"]), (10_000, 11_000), "seed {seed}: {node}");
        }
        // The atomic twin under the same pause: two segments.
        let atomic = run_story("ids/segment-atomic-allocation.toml", seed);
        let g: Vec<(u64, u64)> = granted(&atomic, "server-0").into_iter().take(2).map(|x| x.1).collect();
        assert_eq!(g, [(10_000, 11_000), (11_000, 12_000)], "seed {seed}");
    }
}

#[test]
fn a_failover_to_an_async_replica_grants_a_segment_twice_and_semi_sync_does_not() {
    for seed in 0..3 {
        let r = run_story("ids/segment-async-failover.toml", seed);
        let promoted = r.first("replica-0", "promoted_with");
        assert_eq!(promoted["max"], 10_000, "seed {seed}: nothing was shipped in 150 ms");
        let before: BTreeSet<(u64, u64)> = granted(&r, "server-0").into_iter().map(|x| x.1).collect();
        assert_eq!(before.len(), 4, "seed {seed}: two segments each, with the prefetch");
        let again = granted(&r, "replica-0")[0].1;
        assert_eq!(again, (10_000, 11_000), "seed {seed}");
        assert!(before.contains(&again), "seed {seed}: handed out before the failover");
        assert_eq!(r.violated_at(UNIQUE_IDS)["id"], 10_001);

        let safe = run_story("ids/segment-semi-sync-failover.toml", seed);
        let max = safe.first("replica-0", "promoted_with")["max"].as_u64().unwrap();
        let highest = granted(&safe, "server-0").iter().map(|x| x.1.1).max().unwrap();
        assert_eq!(max, highest, "seed {seed}: the replica has every granted segment's max");
        assert!(granted(&safe, "replica-0").iter().all(|x| x.1.0 >= highest));
        assert!(safe.first("server-0", "stepped_down").is_object());
    }
}

#[test]
fn list_shows_the_segment_ids_kind_and_its_knobs() {
    let out = common::locksim(&["list"]);
    let text = common::stdout(&out);
    assert!(out.status.success());
    for needle in [
        "  segment-ids\n",
        "prefetch_at_percent",
        "\"atomic\" | \"read_then_write\"",
        "\"new_segment\" | \"resume_segment\"",
        "\"none\" | \"async\" | \"semi_sync\"",
        "segment_granted, max_read_by, max_written_by",
    ] {
        assert!(text.contains(needle), "`locksim list` lacks {needle:?}");
    }
}

#[test]
fn bad_segment_ids_knobs_name_the_key() {
    let cases = [
        (
            "replication_lag_ms = 50",
            "protocol.replication_lag_ms",
            "not asynchronous",
        ),
        ("prefetch_at_percent = 0", "protocol.prefetch_at_percent", "between 1"),
        ("step = 0", "protocol.step", "between 1"),
        ("allocation = \"cas\"", "protocol.allocation", "unknown value \"cas\""),
    ];
    for (knob, key, message) in cases {
        let text = format!("name = \"x\"\n[protocol]\nkind = \"segment-ids\"\n{knob}\n");
        let e = parse_scenario("x.toml", &text).unwrap_err();
        assert_eq!(e.key.as_deref(), Some(key), "{knob}: {e}");
        assert!(e.message.contains(message), "{knob}: {e}");
    }
    // A failover needs a replica.
    let text = "name = \"x\"\n[protocol]\nkind = \"segment-ids\"\n[[fault]]\nkind = \"failover\"\nnode = \"server-0\"\nat_ms = 5\n";
    let e = parse_scenario("x.toml", text).unwrap_err();
    assert!(e.message.contains("failover"), "{e}");
}
