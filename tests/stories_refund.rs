//! The refund stories of seed 004 9.10, checked event by event across seeds 0..100: who paid
//! out, who wrote a ledger row, and which protection refused what — so a model that reached
//! the right verdict for the wrong reason fails here.

mod common;

use common::story::{Run, run_story, t};
use locksim::protocols::refund::check::{SINGLE_CHARGE, SINGLE_LEDGER_ROW};
use serde_json::Value;

const SEEDS: u64 = 100;
const CLIENT_0: u64 = 0;
const CLIENT_1: u64 = 1;

fn story(name: &str, seed: u64) -> Run {
    run_story(&format!("refund/{name}.toml"), seed)
}

fn by(events: Vec<&Value>, worker: u64) -> Vec<&Value> {
    events.into_iter().filter(|e| e["worker"] == worker).collect()
}

#[test]
fn the_lock_expires_during_the_call_and_the_second_worker_pays_and_writes_again() {
    for seed in 0..SEEDS {
        let run = story("lock-expires-during-psp-call", seed);
        let second = run.violated_at(SINGLE_CHARGE);
        assert_eq!(second["worker"], CLIENT_1, "seed {seed}: client-1 is paid out second");
        // It took the lock after the 30 s TTL, while client-0 still waited for the provider.
        let lock = run.first("client-1", "lock_acquired");
        assert_eq!(lock["token"], 2, "seed {seed}");
        assert!(t(lock) >= 30_000_000_000, "seed {seed}: after the TTL");
        assert!(t(lock) < t(run.first("client-0", "psp_answered")), "seed {seed}");
        // Rows: client-1's (token 2) first, then client-0's late one (token 1).
        let rows = run.kind("row_inserted");
        let tokens: Vec<u64> = rows.iter().map(|r| r["token"].as_u64().unwrap()).collect();
        assert_eq!(tokens, [2, 1], "seed {seed}");
        assert_eq!(run.violated_at(SINGLE_LEDGER_ROW)["worker"], CLIENT_0, "seed {seed}");
    }
}

#[test]
fn each_protection_alone_stops_only_its_own_repeat() {
    for seed in 0..SEEDS {
        for (name, why) in [("fence-only", "stale fence"), ("unique-index-only", "duplicate key")] {
            let run = story(name, seed);
            assert_eq!(run.kind("charge_made").len(), 2, "seed {seed} {name}: two payouts");
            let refused = run.first("ledger", "insert_refused");
            assert_eq!(refused["worker"], CLIENT_0, "seed {seed} {name}: client-0's late row");
            assert_eq!(refused["token"], 1, "seed {seed} {name}");
            assert!(
                refused["why"].as_str().unwrap().contains(why),
                "seed {seed} {name}: {refused}"
            );
        }
        let keyed = story("idempotency-key-only", seed);
        assert_eq!(keyed.kind("charge_made").len(), 1, "seed {seed}: one payout");
        assert_eq!(
            by(keyed.kind("charge_replayed"), CLIENT_1).len(),
            1,
            "seed {seed}: client-1's call is a replay"
        );
        assert_eq!(keyed.kind("row_inserted").len(), 2, "seed {seed}: two rows");

        let all = story("all-three", seed);
        assert_eq!(all.kind("charge_made").len(), 1, "seed {seed}");
        assert_eq!(all.kind("charge_replayed").len(), 1, "seed {seed}");
        assert_eq!(all.kind("row_inserted").len(), 1, "seed {seed}");
        assert_eq!(all.kind("insert_refused").len(), 1, "seed {seed}");
    }
}

#[test]
fn a_strict_fence_refuses_the_holders_own_retry_and_a_new_token_passes_it() {
    for seed in 0..SEEDS {
        let same = story("ledger-retry-same-token", seed);
        let refused = same.first("ledger", "insert_refused");
        let row = same.first("ledger", "row_inserted");
        assert_eq!(refused["token"], row["token"], "seed {seed}: its own token, refused");
        assert!(refused["why"].as_str().unwrap().contains("stale fence"), "seed {seed}");
        assert!(
            t(same.first("client-0", "ledger_timed_out")) < t(refused),
            "seed {seed}"
        );

        let new = story("ledger-retry-new-token", seed);
        let second = new.violated_at(SINGLE_LEDGER_ROW);
        assert_eq!(second["token"], 2, "seed {seed}: the re-locked token passes the fence");
        assert_eq!(
            new.kind("charge_made").len(),
            1,
            "seed {seed}: the provider is not called again"
        );

        let unique = story("ledger-retry-new-token-unique", seed);
        let refused = unique.first("ledger", "insert_refused");
        assert_eq!(refused["token"], 2, "seed {seed}");
        assert!(
            refused["why"].as_str().unwrap().contains("duplicate key"),
            "seed {seed}"
        );
    }
}

#[test]
fn a_provider_retry_under_a_new_intent_pays_again_and_the_same_intent_replays() {
    for seed in 0..SEEDS {
        let new = story("psp-retry-new-intent", seed);
        let second = new.violated_at(SINGLE_CHARGE);
        assert_eq!(second["worker"], CLIENT_0, "seed {seed}: the same worker's retry");
        assert_ne!(second["intent"], 1, "seed {seed}: under a made-up intent");
        assert!(t(new.first("client-0", "psp_timed_out")) <= t(second), "seed {seed}");

        let same = story("psp-retry-same-intent", seed);
        let replay = same.first("psp", "charge_replayed");
        assert_eq!(replay["intent"], 1, "seed {seed}");
        assert_eq!(same.kind("charge_made").len(), 1, "seed {seed}");
    }
}
