//! The election stories, checked event by event across seeds 0..25: that the stale read is
//! served by the deposed leader after a write at its successor returned, that it comes from
//! the lease and not some other path, and that the late resource write is the old leader's —
//! so a model that reached the right verdict for the wrong reason fails here.

mod common;

use locksim::load::load_file;
use locksim::protocols::election::check::{LINEARIZABLE, NO_DEPOSED_WRITE, ONE_LEADER_PER_TERM};
use locksim::protocols::run;
use locksim::sim::trace::TraceEvent;
use locksim::sim::{Invariant, Recording, Status};
use serde_json::Value;

const SEEDS: u64 = 25;

/// server-0's node id in a fact's JSON (the clients come first in the layout).
const SERVER_0: u64 = 2;

struct Run {
    seed: u64,
    statuses: Vec<(Invariant, Status)>,
    events: Vec<Value>,
}

fn run_story(rel: &str, seed: u64) -> Run {
    let s = load_file(&common::scenario(rel)).unwrap().scenario;
    let mut trace: Vec<TraceEvent> = Vec::new();
    let o = run(&s, seed, Recording::Traced(&mut trace));
    Run {
        seed,
        statuses: o.verdicts.into_iter().map(|v| (v.invariant, v.status)).collect(),
        events: trace.iter().map(|e| serde_json::from_str(&e.json).unwrap()).collect(),
    }
}

impl Run {
    fn status(&self, inv: Invariant) -> &Status {
        &self.statuses.iter().find(|(i, _)| *i == inv).unwrap().1
    }

    fn violation(&self, inv: Invariant) -> (usize, &Value) {
        match self.status(inv) {
            Status::Violated(v) => (v.event, &self.events[v.event]),
            other => panic!("seed {}: {inv} not violated: {other:?}", self.seed),
        }
    }

    /// The `-> value` reply that the client recorded at `returned_at`: the last delivery to
    /// that client before it.
    fn answered_by(&self, returned_at: usize) -> &str {
        let client = &self.events[returned_at]["node"];
        self.events[..returned_at]
            .iter()
            .rev()
            .find(|e| e["kind"] == "deliver" && &e["node"] == client)
            .and_then(|e| e["from"].as_str())
            .unwrap()
    }
}

/// The stale read: served by server-0 (the deposed leader) from its lease, right after a
/// lease check that passed, and older than a write client-0 got an answer for at server-1 or
/// server-2 before the read began.
fn assert_stale_lease_read(r: &Run) {
    let (at, ret) = r.violation(LINEARIZABLE);
    assert_eq!(ret["kind"], "returned", "seed {}", r.seed);
    assert_eq!(ret["node"], "client-1", "seed {}", r.seed);
    assert_eq!(r.answered_by(at), "server-0", "seed {}", r.seed);
    let check = r.events[..at]
        .iter()
        .rev()
        .find(|e| e["kind"] == "lease_checked" && e["node"] == "server-0")
        .unwrap();
    assert_eq!(check["ok"], true, "seed {}: served from a valid-looking lease", r.seed);
    let term2 = r.events[..at]
        .iter()
        .any(|e| e["kind"] == "became_leader" && e["term"] == 2 && e["node"] != "server-0");
    assert!(term2, "seed {}: a successor led term 2 before the read", r.seed);
}

#[test]
fn lease_outside_the_drift_condition_serves_a_stale_read_from_the_old_leader() {
    for seed in 0..SEEDS {
        assert_stale_lease_read(&run_story("election/lease-read-drift-outside.toml", seed));
        let inside = run_story("election/lease-read-drift-inside.toml", seed);
        assert!(matches!(inside.status(LINEARIZABLE), Status::Held(_)), "seed {seed}");
        // Inside the condition the old leader's lease is over before term 2 begins: every
        // lease check after the new leader's election fails.
        let elected = inside
            .events
            .iter()
            .position(|e| e["kind"] == "became_leader" && e["term"] == 2)
            .expect("a new leader");
        let late_ok = inside.events[elected..]
            .iter()
            .filter(|e| e["kind"] == "lease_checked" && e["node"] == "server-0" && e["ok"] == true)
            .count();
        assert_eq!(late_ok, 0, "seed {seed}");
    }
}

#[test]
fn a_suspended_leader_wakes_with_its_lease_a_paused_one_without() {
    for seed in 0..SEEDS {
        assert_stale_lease_read(&run_story("election/lease-read-vm-suspend.toml", seed));
        let paused = run_story("election/lease-read-gc-pause.toml", seed);
        assert!(matches!(paused.status(LINEARIZABLE), Status::Held(_)), "seed {seed}");
        let woke = paused
            .events
            .iter()
            .position(|e| e["kind"] == "resume")
            .expect("a resume");
        let after: Vec<&Value> = paused.events[woke..]
            .iter()
            .filter(|e| e["kind"] == "lease_checked" && e["node"] == "server-0")
            .collect();
        assert!(after.iter().all(|e| e["ok"] == false), "seed {seed}: {after:?}");
    }
}

#[test]
fn the_late_write_is_the_old_leaders_and_only_the_fence_stops_it() {
    for seed in 0..SEEDS {
        let unfenced = run_story("election/deposed-leader-unfenced.toml", seed);
        let (_, late) = unfenced.violation(NO_DEPOSED_WRITE);
        assert_eq!(late["leader"], SERVER_0, "seed {seed}");
        assert_eq!(late["term"], 1, "seed {seed}");
        let fenced = run_story("election/deposed-leader-fenced.toml", seed);
        assert!(
            matches!(fenced.status(NO_DEPOSED_WRITE), Status::Held(_)),
            "seed {seed}"
        );
        let refused = fenced
            .events
            .iter()
            .find(|e| e["kind"] == "act_refused")
            .expect("the fence refused the late write");
        assert_eq!(
            (&refused["leader"], &refused["term"]),
            (&Value::from(SERVER_0), &Value::from(1))
        );
    }
}

/// A bully world has no clients: server-i is node i.
const BULLY_SERVER_1: u64 = 1;
const BULLY_SERVER_2: u64 = 2;

/// Bully's partition, over seeds 0..100: server-1 announces epoch 2 while server-2, cut off,
/// never steps down (two coordinators at once); the unfenced resource accepts server-2's
/// epoch-1 write after server-1's, the fenced one refuses exactly those.
#[test]
fn a_bully_partition_leaves_two_coordinators_and_only_the_epoch_fence_orders_their_writes() {
    for seed in 0..100 {
        let unfenced = run_story("election/bully-partition-unfenced.toml", seed);
        let fenced = run_story("election/bully-partition-fenced.toml", seed);
        for r in [&unfenced, &fenced] {
            let led: Vec<(&Value, &Value)> = r
                .events
                .iter()
                .filter(|e| e["kind"] == "became_leader")
                .map(|e| (&e["node"], &e["term"]))
                .collect();
            assert_eq!(
                led,
                [
                    (&Value::from("server-2"), &Value::from(1)),
                    (&Value::from("server-1"), &Value::from(2))
                ],
                "seed {seed}"
            );
            let stepped = r.events.iter().any(|e| e["kind"] == "stepped_down");
            assert!(!stepped, "seed {seed}: server-2 never hears of epoch 2");
            let late = r.events.iter().rev().find(|e| e["kind"] == "act_sent").unwrap();
            assert_eq!(late["node"], "server-2", "seed {seed}: server-2 writes to the end");
        }
        let (_, late) = unfenced.violation(NO_DEPOSED_WRITE);
        assert_eq!(
            (&late["leader"], &late["term"]),
            (&Value::from(BULLY_SERVER_2), &Value::from(1)),
            "seed {seed}"
        );
        assert!(
            matches!(fenced.status(NO_DEPOSED_WRITE), Status::Held(_)),
            "seed {seed}"
        );
        let refused: Vec<&Value> = fenced.events.iter().filter(|e| e["kind"] == "act_refused").collect();
        assert!(!refused.is_empty(), "seed {seed}");
        assert!(
            refused.iter().all(|e| e["leader"] == BULLY_SERVER_2 && e["term"] == 1),
            "seed {seed}: {refused:?}"
        );
    }
}

/// The coordinator crashes while a partition separates the other two: each announces epoch 2,
/// and the epoch fence, which refuses only older epochs, accepts both sides' writes.
#[test]
fn bully_gives_one_epoch_two_coordinators_and_an_epoch_fence_takes_both() {
    for seed in 0..100 {
        let r = run_story("election/bully-two-coordinators-one-epoch.toml", seed);
        let (_, second) = r.violation(ONE_LEADER_PER_TERM);
        assert_eq!(second["kind"], "became_leader", "seed {seed}");
        assert_eq!(second["term"], 2, "seed {seed}");
        let writers: std::collections::BTreeSet<u64> = r
            .events
            .iter()
            .filter(|e| e["kind"] == "act_accepted" && e["term"] == 2)
            .map(|e| e["leader"].as_u64().unwrap())
            .collect();
        assert_eq!(writers, [0, BULLY_SERVER_1].into(), "seed {seed}");
        assert!(matches!(r.status(NO_DEPOSED_WRITE), Status::Held(_)), "seed {seed}");
    }
}

/// A leader on an external lease cut off from its store, over seeds 0..100: server-0 steps
/// down (its renewals unanswered) before server-1 takes the key as epoch 2. Stopping in role
/// only, it writes epoch 1 on after that — accepted unfenced, refused fenced — and stopping
/// for real, its last write is sent before epoch 2 begins.
#[test]
fn a_leader_that_steps_down_in_role_only_keeps_writing_and_only_the_epoch_fence_stops_it() {
    let step_down_and_successor = |r: &Run| {
        let down = r
            .events
            .iter()
            .position(|e| e["kind"] == "stepped_down" && e["node"] == "server-0")
            .unwrap_or_else(|| panic!("seed {}: server-0 steps down", r.seed));
        assert_eq!(r.events[down]["why"], "lease ran out unrenewed", "seed {}", r.seed);
        let next = r
            .events
            .iter()
            .position(|e| e["kind"] == "became_leader" && e["term"] == 2)
            .unwrap_or_else(|| panic!("seed {}: a leader of epoch 2", r.seed));
        assert!(down < next, "seed {}: the old leader stepped down first", r.seed);
        next
    };
    let sends_after = |r: &Run, at: usize| {
        r.events[at..]
            .iter()
            .filter(|e| e["kind"] == "act_sent" && e["node"] == "server-0")
            .count()
    };
    for seed in 0..100 {
        let unfenced = run_story("election/lease-role-only-unfenced.toml", seed);
        let next = step_down_and_successor(&unfenced);
        assert!(
            sends_after(&unfenced, next) > 0,
            "seed {seed}: the role-only leader writes on"
        );
        let (_, late) = unfenced.violation(NO_DEPOSED_WRITE);
        assert_eq!(
            (&late["leader"], &late["term"]),
            (&Value::from(0), &Value::from(1)),
            "seed {seed}"
        );

        let fenced = run_story("election/lease-role-only-fenced.toml", seed);
        step_down_and_successor(&fenced);
        assert!(
            matches!(fenced.status(NO_DEPOSED_WRITE), Status::Held(_)),
            "seed {seed}"
        );
        let refused = fenced.events.iter().filter(|e| e["kind"] == "act_refused");
        assert!(refused.clone().count() > 0, "seed {seed}");
        assert!(
            refused.clone().all(|e| e["leader"] == 0 && e["term"] == 1),
            "seed {seed}"
        );

        let real = run_story("election/lease-real-stop-unfenced.toml", seed);
        let next = step_down_and_successor(&real);
        assert_eq!(sends_after(&real, next), 0, "seed {seed}: a real stop writes no more");
        assert!(matches!(real.status(NO_DEPOSED_WRITE), Status::Held(_)), "seed {seed}");
    }
}

/// CheckQuorum, over seeds 0..100: off, server-1 — which still hears server-0 — votes for
/// server-2, and server-0's lease serves client-1 a stale read after a write at server-2;
/// on, no leader of a later term is elected until every lease read server-0 serves is done.
#[test]
fn without_check_quorum_a_follower_that_hears_its_leader_votes_and_breaks_lease_reads() {
    for seed in 0..100 {
        let off = run_story("election/check-quorum-off.toml", seed);
        assert_stale_lease_read(&off);
        let on = run_story("election/check-quorum-on.toml", seed);
        assert!(matches!(on.status(LINEARIZABLE), Status::Held(_)), "seed {seed}");
        let last_ok = on
            .events
            .iter()
            .rposition(|e| e["kind"] == "lease_checked" && e["node"] == "server-0" && e["ok"] == true)
            .expect("server-0 served lease reads");
        let successor = on
            .events
            .iter()
            .position(|e| e["kind"] == "became_leader" && e["term"].as_u64() > Some(1))
            .expect("a later leader, once the lease is over");
        assert!(
            last_ok < successor,
            "seed {seed}: no later leader while the lease served"
        );
    }
}
