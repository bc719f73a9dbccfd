//! The UUIDv7 stories (`scenarios/ids/uuidv7-*`), checked event by event: the bits of every
//! UUID (version, variant, the millisecond against the node's wall clock), what the counter
//! did at a step back or an overflow, and which UUIDs collided — so a model that reached the
//! right verdict for the wrong reason fails here.

mod common;

use std::collections::BTreeMap;

use common::story::{Run, run_story, t};
use locksim::load::parse_scenario;
use locksim::protocols::ids::{ID_GLOBAL_ORDER, ID_MONOTONIC, UNIQUE_IDS};
use locksim::sim::time::NS_PER_MS;
use serde_json::Value;

/// One issued UUID, from its `id_issued` event.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Issued {
    t_ns: u64,
    wall_ns: i64,
    node: String,
    uuid: u128,
    ms: u64,
    counter: Option<u64>,
    note: String,
}

fn issued(e: &Value) -> Issued {
    let text = e["uuid"].as_str().unwrap_or_else(|| panic!("uuid in {e}"));
    assert_eq!(text.len(), 36, "canonical text: {text}");
    Issued {
        t_ns: t(e),
        wall_ns: e["wall_ns"].as_i64().unwrap(),
        node: e["node"].as_str().unwrap().to_string(),
        uuid: u128::from_str_radix(&text.replace('-', ""), 16).unwrap(),
        ms: e["ms"].as_u64().unwrap(),
        counter: e["counter"].as_u64(),
        note: e["note"]["kind"].as_str().unwrap().to_string(),
    }
}

fn all_issued(r: &Run, node: &str) -> Vec<Issued> {
    r.all(node, "id_issued").into_iter().map(issued).collect()
}

/// The step-back stories: client-0's wall clock steps back 5 ms at 0.5 s.
const JUMP_NS: u64 = 500 * NS_PER_MS;

#[test]
fn every_uuid_is_version_7_variant_10_with_its_nodes_wall_clock_millisecond() {
    for (story, counter_bits) in [
        ("ids/uuidv7-step-back-random.toml", 0),
        ("ids/uuidv7-skewed-clocks.toml", 12),
    ] {
        let r = run_story(story, 2);
        for node in ["client-0", "client-1"] {
            for x in all_issued(&r, node) {
                assert_eq!((x.uuid >> 76) & 0xf, 7, "{story}: version 7: {x:?}");
                assert_eq!((x.uuid >> 62) & 0b11, 0b10, "{story}: variant 10: {x:?}");
                assert_eq!((x.uuid >> 80) as u64, x.ms, "{story}: the top 48 bits are the ms");
                if x.note != "kept_timestamp" {
                    assert_eq!(x.ms as i64, x.wall_ns / NS_PER_MS as i64, "{story}: its own wall clock");
                }
                let counter = (x.uuid >> (64 + 12 - counter_bits)) & ((1 << counter_bits) - 1);
                assert_eq!(
                    x.counter,
                    (counter_bits > 0).then_some(counter as u64),
                    "{story}: {x:?}"
                );
            }
        }
    }
    // client-0's clock is 20 ms fast: its UUIDs carry ms 20 at true time 0.
    let r = run_story("ids/uuidv7-skewed-clocks.toml", 1);
    assert_eq!(all_issued(&r, "client-0")[0].ms, 20);
    assert_eq!(all_issued(&r, "client-1")[0].ms, 10);
}

#[test]
fn a_step_back_with_random_bits_reissues_timestamps_but_no_uuid() {
    for seed in 0..3 {
        let r = run_story("ids/uuidv7-step-back-random.toml", seed);
        let ids = all_issued(&r, "client-0");
        let mut seen_ms: BTreeMap<u64, u32> = BTreeMap::new();
        for x in &ids {
            *seen_ms.entry(x.ms).or_default() += 1;
        }
        let twice: Vec<u64> = seen_ms.iter().filter(|(_, n)| **n > 1).map(|(ms, _)| *ms).collect();
        assert_eq!(twice, [495, 496, 497, 498, 499], "seed {seed}: those ms are used twice");
        assert!(r.held(UNIQUE_IDS), "seed {seed}: 74 random bits tell them apart");
        let back = issued(r.violated_at(ID_MONOTONIC));
        assert_eq!((back.t_ns, back.ms, back.note.as_str()), (JUMP_NS, 495, "behind"));
    }
    // Without the random bits the same story repeats the UUIDs of ms 495..499 exactly.
    let r = run_story("ids/uuidv7-step-back-no-random.toml", 1);
    let dup = issued(r.violated_at(UNIQUE_IDS));
    assert_eq!((dup.t_ns, dup.ms), (JUMP_NS, 495));
    let first = all_issued(&r, "client-0").into_iter().find(|x| x.ms == 495).unwrap();
    assert_eq!((first.uuid, first.t_ns), (dup.uuid, 495 * NS_PER_MS));
}

#[test]
fn keep_reuses_the_last_timestamp_and_counts_on_until_the_clock_passes_it() {
    let r = run_story("ids/uuidv7-step-back-keep.toml", 1);
    let ids = all_issued(&r, "client-0");
    let kept: Vec<&Issued> = ids.iter().filter(|x| x.note == "kept_timestamp").collect();
    assert_eq!(kept.len(), 4, "clock ms 495..498 are behind the kept ms 499: {kept:?}");
    assert!(kept.iter().all(|x| x.ms == 499));
    let before = ids.iter().rfind(|x| x.t_ns < JUMP_NS).unwrap();
    let counters: Vec<u64> = kept.iter().map(|x| x.counter.unwrap()).collect();
    let from = before.counter.unwrap();
    assert_eq!(
        counters,
        (from + 1..from + 5).collect::<Vec<_>>(),
        "counting on from ms 499's"
    );
    // At clock ms 499 it is ms 499's next count, plainly; at ms 500 a new millisecond.
    let next: Vec<(u64, Option<u64>)> = ids
        .iter()
        .filter(|x| x.t_ns > JUMP_NS + 3 * NS_PER_MS)
        .take(2)
        .map(|x| (x.ms, x.counter))
        .collect();
    assert_eq!(next[0], (499, Some(from + 5)));
    assert_eq!(next[1].0, 500);
    assert!(ids.windows(2).all(|w| w[0].uuid < w[1].uuid), "in order throughout");
}

#[test]
fn wait_holds_the_requests_until_the_clock_is_back() {
    let r = run_story("ids/uuidv7-step-back-wait.toml", 1);
    let waits = r.all("client-0", "id_waiting");
    assert_eq!(waits.len(), 1, "one wait");
    assert_eq!(waits[0]["why"]["reason"], "clock_behind");
    assert_eq!((t(waits[0]), waits[0]["why"]["last_ms"].as_u64()), (JUMP_NS, Some(499)));
    let ids = all_issued(&r, "client-0");
    let after: Vec<&Issued> = ids.iter().filter(|x| x.t_ns >= JUMP_NS).take(2).collect();
    assert_eq!((after[0].ms, after[0].note.as_str()), (499, "after_wait"));
    assert_eq!(
        after[0].t_ns,
        JUMP_NS + 4 * NS_PER_MS,
        "the clock reads ms 499 4 ms later"
    );
}

#[test]
fn an_overflowing_counter_waits_runs_ahead_or_wraps() {
    for seed in 0..3 {
        let wait = run_story("ids/uuidv7-counter-wait.toml", seed);
        assert!(!wait.all("client-0", "id_waiting").is_empty(), "seed {seed}");
        assert!(
            wait.all("client-0", "id_waiting")
                .iter()
                .all(|w| w["why"]["reason"] == "counter_exhausted")
        );
        let ahead = run_story("ids/uuidv7-counter-advance.toml", seed);
        let ids = all_issued(&ahead, "client-0");
        assert!(ids.iter().any(|x| x.note == "advanced"), "seed {seed}");
        assert!(
            ids.iter().any(|x| x.ms as i64 > x.wall_ns / NS_PER_MS as i64),
            "ahead of the clock"
        );
        assert!(ahead.all("client-0", "id_waiting").is_empty(), "nobody waits");
        let wrap = run_story("ids/uuidv7-counter-wrap.toml", seed);
        let back = issued(wrap.violated_at(ID_MONOTONIC));
        assert_eq!((back.note.as_str(), back.counter), ("wrapped", Some(0)), "seed {seed}");
        assert!(wrap.held(UNIQUE_IDS), "70 random bits under the counter");
    }
}

#[test]
fn a_later_event_on_a_slow_clock_gets_the_smaller_uuid() {
    let r = run_story("ids/uuidv7-skewed-clocks.toml", 1);
    let low = issued(r.violated_at(ID_GLOBAL_ORDER));
    assert_eq!(low.node, "client-1");
    let earlier_higher = all_issued(&r, "client-0")
        .into_iter()
        .find(|x| x.uuid > low.uuid)
        .unwrap();
    assert!(
        earlier_higher.t_ns < low.t_ns,
        "client-0's larger UUID was issued first"
    );
    assert!(r.held(UNIQUE_IDS) && r.held(ID_MONOTONIC));
}

#[test]
fn a_short_random_tail_collides_across_nodes_in_one_millisecond() {
    for seed in 0..3 {
        let r = run_story("ids/uuidv7-short-random-collides.toml", seed);
        let again = issued(r.violated_at(UNIQUE_IDS));
        let other = if again.node == "client-0" {
            "client-1"
        } else {
            "client-0"
        };
        let first = all_issued(&r, other)
            .into_iter()
            .find(|x| x.uuid == again.uuid)
            .unwrap_or_else(|| panic!("seed {seed}: the other node issued it"));
        assert_eq!(first.ms, again.ms, "seed {seed}: same ms, same 4 random bits");
        assert!(again.uuid & 0xf == again.uuid & ((1 << 62) - 1), "only 4 random bits");
    }
}

#[test]
fn list_shows_the_uuidv7_kind_and_its_knobs() {
    let out = common::locksim(&["list"]);
    let text = common::stdout(&out);
    assert!(out.status.success());
    for needle in [
        "  uuidv7\n",
        "counter_bits",
        "random_bits",
        "\"wait\" | \"advance\" | \"wrap\"",
        "\"wait\" | \"keep\" | \"ignore\"",
        "id_global_order",
        "NOT promised by segment IDs or UUIDv7",
    ] {
        assert!(text.contains(needle), "`locksim list` lacks {needle:?}");
    }
}

#[test]
fn bad_uuidv7_knobs_name_the_key() {
    let cases = [
        ("random_bits = 70", "protocol.random_bits", "more than the 74 free bits"),
        ("counter_bits = 43", "protocol.counter_bits", "between 0"),
        ("rate_per_ms = 0", "protocol.rate_per_ms", "between 1"),
        (
            "clock_back = \"rewind\"",
            "protocol.clock_back",
            "unknown value \"rewind\"",
        ),
    ];
    for (knob, key, message) in cases {
        let text = format!("name = \"x\"\n[protocol]\nkind = \"uuidv7\"\n{knob}\n");
        let e = parse_scenario("x.toml", &text).unwrap_err();
        assert_eq!(e.key.as_deref(), Some(key), "{knob}: {e}");
        assert!(e.message.contains(message), "{knob}: {e}");
    }
    // 12 + 62 = 74: the widest tail under the default counter is accepted.
    let text = "name = \"x\"\n[protocol]\nkind = \"uuidv7\"\nrandom_bits = 62\n";
    assert!(parse_scenario("x.toml", text).is_ok());
}
