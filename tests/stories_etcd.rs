//! The etcd stories, checked event by event: lease expiry by the leader's clock, the waiter bug
//! and its fix, failover without loss and with lease extension, a minority leader that
//! acknowledges nothing.

mod common;

use locksim::load::load_file;
use locksim::protocols::run;
use locksim::sim::{Invariant, Level, Status};
use serde_json::Value;

struct Run {
    verdicts: Vec<(Invariant, Status)>,
    events: Vec<Value>,
}

fn run_story(rel: &str, seed: u64) -> Run {
    let s = load_file(&common::scenario(rel)).unwrap().scenario;
    let o = run(&s, seed, Level::Full);
    Run {
        verdicts: o.verdicts.into_iter().map(|v| (v.invariant, v.status)).collect(),
        events: o.trace.iter().map(|e| serde_json::from_str(&e.json).unwrap()).collect(),
    }
}

impl Run {
    fn status(&self, i: Invariant) -> &Status {
        &self.verdicts.iter().find(|(x, _)| *x == i).unwrap().1
    }

    fn violated_at(&self, i: Invariant) -> &Value {
        match self.status(i) {
            Status::Violated(v) => &self.events[v.event],
            other => panic!("{i} not violated: {other:?}"),
        }
    }

    fn all(&self, node: &str, kind: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["node"] == node && e["kind"] == kind)
            .collect()
    }

    fn kind(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["kind"] == kind).collect()
    }

    fn first(&self, node: &str, kind: &str) -> &Value {
        self.all(node, kind)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{node} never recorded {kind}"))
    }
}

fn t(e: &Value) -> u64 {
    e["t_ns"].as_u64().unwrap()
}

const S: u64 = 1_000_000_000;

#[test]
fn a_paused_holders_lease_expires_at_the_leader_and_its_late_write_lands() {
    let r = run_story("etcd/holder-pause.toml", 1);
    let lease = r.first("client-0", "acquired")["lease"].clone();
    let expired = r
        .all("server-0", "lease_expired")
        .into_iter()
        .find(|e| e["lease"] == lease)
        .expect("the leader expired client-0's lease");
    assert_eq!(expired["keys"], 1, "its lock key went with it, in one revision");
    let pause = r.first("client-0", "pause");
    assert!(
        t(expired) > t(pause) && t(expired) < t(pause) + 15 * S,
        "during the pause"
    );
    let next = r
        .all("client-1", "acquired")
        .into_iter()
        .find(|a| t(a) > t(expired))
        .unwrap();
    let late = r.violated_at(Invariant::StaleWrite);
    assert_eq!(late["client"], 0);
    assert!(t(late) > t(next));
}

#[test]
fn revision_tokens_and_the_in_store_transaction_both_stop_the_late_write() {
    let fenced = run_story("etcd/holder-pause-fenced.toml", 1);
    let refused = fenced.first("resource", "write_refused");
    assert_eq!(refused["client"], 0);
    assert!(refused["token"].as_u64() < refused["max"].as_u64());
    let tokens: Vec<u64> = fenced
        .kind("token_issued")
        .iter()
        .map(|e| e["token"].as_u64().unwrap())
        .collect();
    assert!(tokens.windows(2).all(|w| w[0] < w[1]), "create revisions only grow");
    let txn = run_story("etcd/holder-pause-txn.toml", 1);
    let refused = txn.events.iter().find(|e| e["kind"] == "write_refused").unwrap();
    assert!(
        refused["node"].as_str().unwrap().starts_with("server-"),
        "the store itself refused it"
    );
    assert_eq!(
        (refused["client"].as_u64(), refused["lock_rev"].as_i64()),
        (Some(0), Some(2))
    );
    let resume = txn.first("client-0", "resume");
    let with_old_key = txn
        .kind("write_applied")
        .into_iter()
        .filter(|w| w["client"] == 0 && w["token"] == 2);
    assert!(
        with_old_key.into_iter().all(|w| t(w) < t(resume)),
        "nothing written under the old key after the pause"
    );
}

#[test]
fn the_waiter_bug_grants_an_expired_waiter_the_fix_makes_it_start_over() {
    let r = run_story("etcd/waiter-bug.toml", 1);
    assert!(r.kind("pause").is_empty(), "no pause anywhere");
    let waiter_lease = r.first("client-1", "acquire_started")["lease"].clone();
    let expired = r
        .kind("lease_expired")
        .into_iter()
        .find(|e| e["lease"] == waiter_lease)
        .unwrap();
    let granted = r.violated_at(Invariant::MutualExclusion);
    assert_eq!(
        (granted["node"].as_str(), &granted["lease"]),
        (Some("client-1"), &waiter_lease)
    );
    assert!(t(granted) > t(expired), "granted on a lease that had expired");
    let fixed = run_story("etcd/waiter-bug-fixed.toml", 1);
    let gave_up = fixed.first("client-1", "acquire_failed");
    assert!(gave_up["why"].as_str().unwrap().contains("own key is gone"));
    assert!(
        fixed
            .all("client-1", "acquired")
            .iter()
            .all(|a| a["lease"] != waiter_lease)
    );
}

#[test]
fn failover_keeps_every_acknowledged_write() {
    for seed in [1, 2, 3] {
        let r = run_story("etcd/leader-failover.toml", seed);
        let lease = r.first("client-0", "acquired")["lease"].clone();
        let elected = r
            .kind("leader_elected")
            .into_iter()
            .find(|e| e["node"] != "server-0")
            .expect("another member leads");
        let owner = r
            .events
            .iter()
            .find(|e| e["kind"] == "key_set" && e["node"] == elected["node"] && t(e) >= t(elected))
            .unwrap();
        assert_eq!(
            owner["lease"], lease,
            "seed {seed}: the new leader has client-0's key: nothing acknowledged was lost"
        );
        assert!(
            r.kind("lease_expired").iter().all(|e| e["lease"] != lease),
            "seed {seed}: client-0 keeps its lease"
        );
        let wrote = r.all("client-0", "write_accepted");
        assert!(
            !wrote.is_empty() && t(wrote[0]) > t(elected),
            "seed {seed}: and finishes its work"
        );
    }
    let lost = run_story("etcd/leader-failover-leader-only.toml", 1);
    let again = lost.violated_at(Invariant::TokenMonotonic);
    assert_eq!(again["node"], "client-1");
}

#[test]
fn a_new_leader_extends_a_lease_that_would_have_expired_during_the_election() {
    for seed in [1, 2, 3, 4, 5] {
        let r = run_story("etcd/lease-extension.toml", seed);
        let lease = r.first("client-0", "acquired")["lease"].clone();
        let old_expiry = r.first("server-0", "key_set")["expiry"]["at_ns"].as_u64().unwrap();
        let elected = r
            .kind("leader_elected")
            .into_iter()
            .find(|e| e["node"] != "server-0")
            .expect("another member leads");
        assert!(
            t(elected) > old_expiry,
            "seed {seed}: the lease would have expired during the election"
        );
        assert!(elected["leases_extended"].as_u64().unwrap() >= 1);
        let extended = r
            .events
            .iter()
            .find(|e| e["kind"] == "key_set" && e["node"] == elected["node"] && t(e) >= t(elected))
            .unwrap();
        assert_eq!(
            extended["lease"], lease,
            "seed {seed}: client-0's key survived the election"
        );
        assert!(
            extended["expiry"]["at_ns"].as_u64().unwrap() > t(elected),
            "seed {seed}: with a fresh TTL"
        );
        assert!(
            r.kind("lease_expired").iter().all(|e| e["lease"] != lease),
            "seed {seed}: and never expired"
        );
        assert!(
            matches!(r.status(Invariant::MutualExclusion), Status::Held(_)),
            "seed {seed}"
        );
        assert!(
            !r.all("client-0", "write_accepted").is_empty(),
            "seed {seed}: client-0 finished its work"
        );
    }
}

#[test]
fn a_leader_cut_off_in_a_minority_acknowledges_nothing() {
    let r = run_story("etcd/minority-leader.toml", 1);
    let cut = r.kind("partition")[0];
    let heal = r.kind("heal")[0];
    // Requests go through the log: none is answered. (Lease keep-alives are not writes; the
    // leader answers them until CheckQuorum makes it step down, an election timeout later.)
    let acknowledged: Vec<&Value> = r
        .all("client-0", "deliver")
        .into_iter()
        .filter(|e| t(e) > t(cut) + 100_000_000 && t(e) < t(heal) && e["from"] == "server-0")
        .filter(|e| {
            let msg = e["msg"].as_str().unwrap();
            !(msg == "not the leader" || msg.starts_with("kept alive") || msg.starts_with("lease not found"))
        })
        .collect();
    assert!(acknowledged.is_empty(), "server-0 acknowledged {acknowledged:?}");
    let stepped_down = r
        .all("server-0", "role_changed")
        .into_iter()
        .find(|e| t(e) > t(cut))
        .expect("CheckQuorum: the cut-off leader steps down");
    assert!(t(stepped_down) < t(cut) + 2 * S + 200_000_000);
    let majority_leader = r
        .kind("leader_elected")
        .into_iter()
        .find(|e| t(e) > t(cut) && t(e) < t(heal))
        .expect("the majority elects a leader");
    assert_ne!(majority_leader["node"], "server-0");
    assert!(
        r.all("client-1", "acquired")
            .iter()
            .any(|a| t(a) > t(majority_leader) && t(a) < t(heal))
    );
    let split = run_story("etcd/minority-leader-leader-only.toml", 1);
    assert!(matches!(split.status(Invariant::MutualExclusion), Status::Violated(_)));
}

/// Claims that belong to the stories but have no twin (see tests/twins.rs), for every seed.
#[test]
fn the_etcd_stories_other_verdicts_hold_for_seeds_0_to_100() {
    let claims: &[(&str, Invariant, &str)] = &[
        ("etcd/leader-failover.toml", Invariant::MutualExclusion, "held"),
        ("etcd/lease-extension.toml", Invariant::MutualExclusion, "held"),
        ("etcd/holder-pause-fenced.toml", Invariant::TokenMonotonic, "held"),
        ("etcd/minority-leader.toml", Invariant::TokenMonotonic, "not_applicable"),
    ];
    for (rel, invariant, expected) in claims {
        let s = load_file(&common::scenario(rel)).unwrap().scenario;
        for seed in 0..100 {
            let o = run(&s, seed, Level::Facts);
            let got = o
                .verdicts
                .iter()
                .find(|v| v.invariant == *invariant)
                .unwrap()
                .status
                .word();
            assert_eq!(got, *expected, "{rel} seed {seed}: {invariant}");
        }
    }
}
