//! The Snowflake stories (`scenarios/ids/`), checked event by event: not only the verdicts but
//! the facts behind them — which IDs were issued in which millisecond, which were refused and
//! when, which IDs collided and who issued them, which node ID went to whom — so a model that
//! reached the right verdict for the wrong reason fails here.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::story::{Run, run_story, t};
use locksim::load::parse_scenario;
use locksim::protocols::ids::{ID_MONOTONIC, UNIQUE_IDS};
use locksim::protocols::run;
use locksim::sim::time::NS_PER_MS;
use locksim::sim::trace::TraceEvent;
use locksim::sim::{Recording, Status};
use serde_json::Value;

const S: u64 = 1_000_000_000;

/// One issued ID, from its `id_issued` event.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Issued {
    t_ns: u64,
    node: String,
    id: u64,
    ms: u64,
    node_id: u64,
    seq: u64,
    note: String,
}

impl Run {
    /// Every ID `node` issued, in order.
    fn issued(&self, node: &str) -> Vec<Issued> {
        self.all(node, "id_issued").into_iter().map(issued).collect()
    }
}

fn issued(e: &Value) -> Issued {
    let n = |k: &str| e[k].as_u64().unwrap_or_else(|| panic!("{k} in {e}"));
    Issued {
        t_ns: n("t_ns"),
        node: e["node"].as_str().unwrap().to_string(),
        id: n("id"),
        ms: n("ms"),
        node_id: n("node_id"),
        seq: n("seq"),
        note: e["note"]["kind"].as_str().unwrap().to_string(),
    }
}

/// The 41/10/12 layout, from the number alone.
fn fields(id: u64) -> (u64, u64, u64) {
    (id >> 22, (id >> 12) & 1023, id & 4095)
}

fn strictly_increasing(ids: &[u64]) -> bool {
    ids.windows(2).all(|w| w[0] < w[1])
}

#[test]
fn layout_4096_distinct_increasing_ids_in_one_ms_then_a_wait_for_the_next() {
    for seed in 0..3 {
        let r = run_story("ids/sequence-4096-per-ms.toml", seed);
        let mut first_of_ms_10 = BTreeSet::new();
        for (i, node) in ["client-0", "client-1"].into_iter().enumerate() {
            let ids = r.issued(node);
            assert_eq!(ids.len(), 5000, "seed {seed}: {node} answers the whole burst");
            let in_10: Vec<&Issued> = ids.iter().filter(|x| x.ms == 10).collect();
            assert_eq!(in_10.len(), 4096, "seed {seed}: {node} fills ms 10 exactly");
            assert!(
                ids[..4096].iter().all(|x| x.ms == 10),
                "the first 4096 are all in ms 10"
            );
            let numbers: Vec<u64> = in_10.iter().map(|x| x.id).collect();
            assert!(strictly_increasing(&numbers), "{node}: increasing, hence distinct");
            let seqs: Vec<u64> = in_10.iter().map(|x| x.seq).collect();
            assert_eq!(seqs, (0..4096).collect::<Vec<u64>>(), "sequence 0..4095 in order");
            for x in &ids {
                assert_eq!(fields(x.id), (x.ms, x.node_id, x.seq), "the number encodes its fields");
                assert_eq!(x.node_id, i as u64, "{node} is node {i}");
            }
            // No 4097th in ms 10: it waited, and the rest went to ms 11 from sequence 0.
            let wait = r.first(node, "id_waiting");
            assert_eq!(wait["why"]["reason"], "sequence_exhausted");
            assert_eq!(wait["why"]["ms"], 10);
            assert_eq!(wait["requests"], 904);
            assert_eq!(t(wait), ids[4095].t_ns, "it waits right after the 4096th");
            let rest = &ids[4096..];
            assert!(rest.iter().all(|x| x.ms == 11 && x.t_ns >= 11 * NS_PER_MS));
            assert_eq!((rest[0].seq, rest[0].note.as_str()), (0, "after_wait"));
            assert_eq!(ids[4095].note, "last_of_ms");
            let all: Vec<u64> = ids.iter().map(|x| x.id).collect();
            assert!(strictly_increasing(&all));
            first_of_ms_10.insert(in_10[0].id);
        }
        assert_eq!(
            first_of_ms_10.len(),
            2,
            "same ms, same sequence, told apart by the node bits"
        );
        assert!(r.held(UNIQUE_IDS) && r.held(ID_MONOTONIC));
    }
}

/// `epoch_ms = 4`: each ID's 41-bit field is its generator's wall-clock ms less 4, so the ID
/// issued at wall 10 ms says ms 6; before wall 4 ms the generator refuses.
#[test]
fn epoch_ms_is_millisecond_0_of_the_ids() {
    let text = "name = \"epoch\"\nduration_ms = 20\n[protocol]\nkind = \"snowflake\"\nclients = 2\nepoch_ms = 4\n";
    let s = parse_scenario("epoch.toml", text).unwrap();
    let mut trace: Vec<TraceEvent> = Vec::new();
    run(&s, 1, Recording::Traced(&mut trace));
    let events: Vec<Value> = trace.iter().map(|e| serde_json::from_str(&e.json).unwrap()).collect();
    let mut at_10 = 0;
    for node in ["client-0", "client-1"] {
        let ids: Vec<&Value> = events
            .iter()
            .filter(|e| e["node"] == node && e["kind"] == "id_issued")
            .collect();
        assert!(ids.len() >= 9, "{node}: {} IDs", ids.len());
        for e in ids {
            let wall_ms = e["wall_ns"].as_u64().unwrap() / NS_PER_MS;
            let (ms, _, _) = fields(e["id"].as_u64().unwrap());
            assert_eq!(ms as i64, wall_ms as i64 - 4, "{node}: {e}");
            if wall_ms == 10 {
                assert_eq!(ms, 6);
                at_10 += 1;
            }
        }
    }
    assert_eq!(at_10, 2, "both generators issue at wall 10 ms");
    let refused: Vec<(i64, i64)> = events
        .iter()
        .filter(|e| e["kind"] == "id_refused")
        .map(|e| {
            assert_eq!(
                (e["node"].as_str(), e["why"]["reason"].as_str()),
                (Some("client-0"), Some("before_epoch"))
            );
            (
                e["wall_ns"].as_i64().unwrap() / NS_PER_MS as i64,
                e["why"]["wall_ms"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(refused, [(0, -4), (1, -3), (2, -2), (3, -1)]);
}

#[test]
fn wrap_reissues_the_first_904_ids_of_the_millisecond() {
    let r = run_story("ids/sequence-wrap.toml", 1);
    for node in ["client-0", "client-1"] {
        let ids = r.issued(node);
        assert_eq!(ids.len(), 5000);
        assert!(ids.iter().all(|x| x.ms == 10), "{node}: all in ms 10, no wait");
        assert!(r.all(node, "id_waiting").is_empty());
        assert_eq!(ids[4096].note, "wrapped");
        let originals: Vec<u64> = ids[..904].iter().map(|x| x.id).collect();
        let repeats: Vec<u64> = ids[4096..].iter().map(|x| x.id).collect();
        assert_eq!(repeats, originals, "{node}: requests 4097..5000 get IDs 1..904 again");
    }
    let dup = issued(r.violated_at(UNIQUE_IDS));
    assert_eq!((dup.ms, dup.seq, dup.note.as_str()), (10, 0, "wrapped"));
    assert_eq!(issued(r.violated_at(ID_MONOTONIC)), dup);
}

/// The rollback stories: client-0 issues one ID per ms; at 0.5 s its wall clock steps back 5
/// ms (to ms 495), its last ID being from ms 499.
const JUMP_NS: u64 = 500 * NS_PER_MS;

#[test]
fn rollback_reject_refuses_until_the_clock_is_back_and_the_refusals_show() {
    for seed in 0..3 {
        let r = run_story("ids/rollback-reject.toml", seed);
        let ids = r.issued("client-0");
        let last_before = ids.iter().rfind(|x| x.t_ns < JUMP_NS).unwrap();
        assert_eq!(last_before.ms, 499);
        let refusals = r.all("client-0", "id_refused");
        let behind: Vec<(u64, u64)> = refusals
            .iter()
            .map(|e| {
                assert_eq!(e["why"]["reason"], "clock_behind");
                (
                    e["why"]["now_ms"].as_u64().unwrap(),
                    e["why"]["last_ms"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(behind, [(495, 499), (496, 499), (497, 499), (498, 499)], "seed {seed}");
        assert!(
            refusals
                .iter()
                .all(|e| e["requests"] == 1 && e["salience"] == "salient")
        );
        let after: Vec<&Issued> = ids.iter().filter(|x| x.t_ns >= JUMP_NS).collect();
        assert_eq!(after[0].t_ns, JUMP_NS + 4 * NS_PER_MS, "nothing issued while refusing");
        assert_eq!((after[0].ms, after[0].seq), (499, 1), "goes on in ms 499");
        assert_eq!(after[0].note, "after_refusing");
        assert!(after.iter().all(|x| x.ms >= 499));
        assert!(r.held(UNIQUE_IDS) && r.held(ID_MONOTONIC));
    }
    // The refusals are in the compact timeline.
    let out = common::locksim(&["run", "scenarios/ids/rollback-reject.toml"]);
    let text = common::stdout(&out);
    assert_eq!(text.matches("REFUSES 1 request").count(), 4, "{text}");
    assert!(out.status.success());
}

#[test]
fn rollback_wait_holds_the_requests_and_answers_them_from_the_last_ms() {
    let r = run_story("ids/rollback-wait.toml", 1);
    let wait = r.first("client-0", "id_waiting");
    assert_eq!(t(wait), JUMP_NS);
    assert_eq!(wait["why"]["reason"], "clock_behind");
    assert_eq!(
        (wait["why"]["now_ms"].as_u64(), wait["why"]["last_ms"].as_u64()),
        (Some(495), Some(499))
    );
    assert_eq!(wait["wait_ns"], 4 * NS_PER_MS);
    assert!(r.all("client-0", "id_refused").is_empty(), "nothing refused");
    let ids = r.issued("client-0");
    let after: Vec<&Issued> = ids.iter().filter(|x| x.t_ns >= JUMP_NS).collect();
    let released: Vec<(u64, u64)> = after
        .iter()
        .take_while(|x| x.t_ns == JUMP_NS + 4 * NS_PER_MS)
        .map(|x| (x.ms, x.seq))
        .collect();
    // The request of 0.500 s and those of 0.501..0.504 s, answered together in ms 499.
    assert_eq!(released, [(499, 1), (499, 2), (499, 3), (499, 4), (499, 5)]);
    assert_eq!(ids.len(), 1001, "every request answered, none refused");
    assert!(r.held(UNIQUE_IDS) && r.held(ID_MONOTONIC));
}

#[test]
fn rollback_ignored_reissues_the_ids_of_ms_495_to_499() {
    let r = run_story("ids/rollback-ignore.toml", 1);
    let ids = r.issued("client-0");
    let mut first: BTreeMap<u64, &Issued> = BTreeMap::new();
    let mut repeated = Vec::new();
    for x in &ids {
        if let Some(orig) = first.get(&x.id) {
            assert!(orig.t_ns < JUMP_NS && x.t_ns >= JUMP_NS);
            repeated.push((x.ms, x.seq));
        } else {
            first.insert(x.id, x);
        }
    }
    // ms 495..498 while behind, and ms 499 again: its last ms is now 498, so 499 starts at 0.
    assert_eq!(repeated, [(495, 0), (496, 0), (497, 0), (498, 0), (499, 0)]);
    let dup = issued(r.violated_at(UNIQUE_IDS));
    assert_eq!((dup.t_ns, dup.ms, dup.note.as_str()), (JUMP_NS, 495, "behind"));
    assert_eq!(r.violated_at(UNIQUE_IDS)["note"]["last_ms"], 499);
    assert!(matches!(r.status(ID_MONOTONIC), Status::Violated(_)));
}

/// The restart stories: crash at 1.0 s (last ID in ms 999), the wall clock stepped back 500 ms
/// while down, restart at 1.1 s reading ms 600.
const RESTART_NS: u64 = 1_100 * NS_PER_MS;

#[test]
fn restart_behind_without_the_last_ms_reissues_ms_600_to_999() {
    let r = run_story("ids/restart-behind.toml", 1);
    let restarted = r.first("client-0", "generator_restarted");
    assert_eq!(
        (t(restarted), restarted["persisted"].as_bool()),
        (RESTART_NS, Some(false))
    );
    assert!(restarted["last_ms"].is_null());
    let ids = r.issued("client-0");
    let before: BTreeSet<u64> = ids.iter().filter(|x| x.t_ns < S).map(|x| x.id).collect();
    assert_eq!(ids.iter().filter(|x| x.t_ns < S).map(|x| x.ms).max(), Some(999));
    let again: Vec<u64> = ids
        .iter()
        .filter(|x| x.t_ns >= RESTART_NS && before.contains(&x.id))
        .map(|x| x.ms)
        .collect();
    assert_eq!(
        again,
        (600..1000).collect::<Vec<u64>>(),
        "every ms from 600 to 999 again"
    );
    let dup = issued(r.violated_at(UNIQUE_IDS));
    assert_eq!((dup.t_ns, dup.ms, dup.seq), (RESTART_NS, 600, 0));
    assert!(matches!(r.status(ID_MONOTONIC), Status::Violated(_)));
}

#[test]
fn restart_behind_with_the_last_ms_on_disk_waits_until_past_it() {
    let r = run_story("ids/restart-behind-persisted.toml", 1);
    let restarted = r.first("client-0", "generator_restarted");
    assert_eq!(restarted["last_ms"], 999);
    let waits = r.all("client-0", "id_waiting");
    assert_eq!(waits.len(), 2);
    assert_eq!(
        (waits[0]["why"]["reason"].as_str(), waits[0]["why"]["now_ms"].as_u64()),
        (Some("clock_behind"), Some(600))
    );
    assert_eq!(waits[0]["wait_ns"], 399 * NS_PER_MS);
    assert_eq!(
        (waits[1]["why"]["reason"].as_str(), waits[1]["why"]["ms"].as_u64()),
        (Some("sequence_unknown"), Some(999)),
        "ms 999's sequence was not saved: it is skipped"
    );
    let after: Vec<Issued> = r
        .issued("client-0")
        .into_iter()
        .filter(|x| x.t_ns >= RESTART_NS)
        .collect();
    assert_eq!((after[0].ms, after[0].seq), (1000, 0));
    assert_eq!(after[0].t_ns, RESTART_NS + 400 * NS_PER_MS);
    assert!(r.held(UNIQUE_IDS) && r.held(ID_MONOTONIC));
}

/// The leased node-ID stories: 3 generators, a pool of 2, TTL 3 s; client-1 stopped at 3.5 s
/// for 5 s.
const PAUSE_NS: u64 = 3_500 * NS_PER_MS;
const RESUME_NS: u64 = 8_500 * NS_PER_MS;

/// Facts both leased stories share: who got which ID first, who waited, and node ID 1 passing
/// from client-1 to client-2 when its lease expires by server-0's clock.
fn node_id_1_passes_to_the_waiting_generator(r: &Run, seed: u64) -> u64 {
    let leased = |node| r.first(node, "node_id_leased")["node_id"].as_u64().unwrap();
    assert_eq!((leased("client-0"), leased("client-1")), (0, 1), "seed {seed}");
    let waiting = r.first("client-2", "node_id_waiting");
    assert_eq!(waiting["pool"], 2);
    assert!(t(waiting) < S, "client-2 waits from the start");
    let expired = r.first("server-0", "node_id_expired");
    assert_eq!(
        (expired["node_id"].as_u64(), expired["holder"].as_u64()),
        (Some(1), Some(1))
    );
    // Its last renewal reached server-0 just after 3.0 s; 3 s later the lease runs out.
    assert!(
        (6 * S..6_100 * NS_PER_MS).contains(&t(expired)),
        "seed {seed}: expired at {}",
        t(expired)
    );
    let reused = r
        .all("server-0", "node_id_granted")
        .into_iter()
        .find(|g| g["to"] == 2)
        .unwrap();
    assert_eq!(
        (reused["node_id"].as_u64(), reused["previous"].as_u64()),
        (Some(1), Some(1))
    );
    assert!(
        t(reused) >= t(expired) && t(reused) < t(expired) + 400 * NS_PER_MS,
        "at client-2's next poll"
    );
    let got = r.first("client-2", "node_id_leased");
    assert_eq!(got["node_id"], 1);
    let c2 = r.issued("client-2");
    assert!(!c2.is_empty() && c2.iter().all(|x| x.node_id == 1 && x.t_ns >= t(got)));
    // Each generator's own IDs still increase, in both stories.
    assert!(r.held(ID_MONOTONIC), "seed {seed}");
    t(got)
}

#[test]
fn leased_gc_pause_is_caught_by_the_monotonic_recheck() {
    for seed in 0..10 {
        let r = run_story("ids/leased-gc-pause.toml", seed);
        node_id_1_passes_to_the_waiting_generator(&r, seed);
        let c1 = r.issued("client-1");
        assert!(
            c1.iter().all(|x| x.node_id == 1 && x.t_ns < PAUSE_NS),
            "nothing after the pause"
        );
        let lost = r.first("client-1", "node_id_lost");
        assert_eq!(t(lost), RESUME_NS, "caught on waking, before issuing anything");
        assert_eq!(lost["why"]["reason"], "deadline_passed");
        let by_ns = lost["why"]["by_ns"].as_u64().unwrap();
        assert!(
            (2_400 * NS_PER_MS..2_500 * NS_PER_MS).contains(&by_ns),
            "2.5 s past, less the latency: {by_ns}"
        );
        assert_eq!(lost["mono_ns"].as_u64(), Some(RESUME_NS), "the monotonic clock ran on");
        assert!(
            t(r.first("client-1", "node_id_waiting")) > RESUME_NS,
            "it waits for an ID again"
        );
        assert!(r.held(UNIQUE_IDS), "seed {seed}");
    }
}

#[test]
fn leased_vm_suspend_fools_the_recheck_and_two_generators_issue_the_same_ids() {
    for seed in 0..10 {
        let r = run_story("ids/leased-vm-suspend.toml", seed);
        node_id_1_passes_to_the_waiting_generator(&r, seed);
        let resume = r.first("client-1", "resume");
        assert_eq!(t(resume), RESUME_NS);
        assert_eq!(
            resume["mono_ns"].as_u64(),
            Some(PAUSE_NS),
            "its monotonic clock stood still"
        );
        let lost = r.first("client-1", "node_id_lost");
        assert_eq!(lost["why"]["reason"], "server_says_gone", "only the server tells it");
        // Its next renewal was due 1 s after the last one, on a clock that lost 5 s.
        assert!(
            (9 * S..9_100 * NS_PER_MS).contains(&t(lost)),
            "seed {seed}: {}",
            t(lost)
        );
        let late: Vec<Issued> = r
            .issued("client-1")
            .into_iter()
            .filter(|x| x.t_ns >= RESUME_NS)
            .collect();
        assert!(late.iter().all(|x| x.node_id == 1 && x.t_ns < t(lost)));
        let theirs: BTreeSet<u64> = r.issued("client-2").iter().map(|x| x.id).collect();
        let collided: Vec<&Issued> = late.iter().filter(|x| theirs.contains(&x.id)).collect();
        // Both issue sequence 0 of every millisecond from 8.5 s until client-1 hears it lost.
        assert!(collided.len() >= 500, "seed {seed}: {} collisions", collided.len());
        assert!(collided.iter().all(|x| x.ms >= 8_500 && x.seq == 0));
        let dup = issued(r.violated_at(UNIQUE_IDS));
        assert!(["client-1", "client-2"].contains(&dup.node.as_str()));
        assert_eq!(
            (dup.node_id, dup.ms),
            (1, 8_500),
            "seed {seed}: the first ms after the resume"
        );
    }
}

#[test]
fn list_shows_the_snowflake_kind_its_knobs_and_events() {
    let out = common::locksim(&["list"]);
    let text = common::stdout(&out);
    assert!(out.status.success());
    for needle in [
        "  snowflake\n",
        "rate_per_ms",
        "burst_at_ms",
        "epoch_ms",
        "\"reject\" | \"wait\" | \"ignore\"",
        "persist_last_ms",
        "\"wait\" | \"wrap\"",
        "\"static\" | \"leased\"",
        "node_lease_ttl_ms",
        "node_id_pool         integer 1..=1024  (default 1024)",
        "id_issued, id_refused, id_waiting",
        "node_id_granted, node_id_expired",
    ] {
        assert!(text.contains(needle), "`locksim list` lacks {needle:?}");
    }
}

#[test]
fn bad_snowflake_knobs_name_the_key() {
    let cases = [
        ("node_id_pool = 2", "protocol.node_id_pool", "node IDs are static"),
        ("rate_per_ms = 0", "protocol.rate_per_ms", "no requests at all"),
        ("burst_at_ms = 5", "protocol.burst_at_ms", "there is no burst"),
        ("rollback = \"retry\"", "protocol.rollback", "unknown value \"retry\""),
        (
            "node_ids = \"leased\"\nnode_lease_ttl_ms = 5",
            "protocol.node_lease_ttl_ms",
            "between 10",
        ),
    ];
    for (knob, key, message) in cases {
        let text = format!("name = \"x\"\n[protocol]\nkind = \"snowflake\"\n{knob}\n");
        let e = parse_scenario("x.toml", &text).unwrap_err();
        assert_eq!(e.key.as_deref(), Some(key), "{knob}: {e}");
        assert!(e.message.contains(message), "{knob}: {e}");
    }
    // A fault after an event the generators do not record is named with the events they do.
    let text = "name = \"x\"\n[protocol]\nkind = \"snowflake\"\n[[fault]]\nkind = \"pause\"\nnode = \"client-0\"\nafter = \"acquired\"\nduration_ms = 5\n";
    let e = parse_scenario("x.toml", text).unwrap_err();
    assert!(e.message.contains("id_issued"), "{e}");
}
