//! The etcd stories, checked event by event: lease expiry by the leader's clock, the waiter bug
//! and its fix, failover without loss and with lease extension, a minority leader that
//! acknowledges nothing.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::story::{Run, run_scenario, run_story, t};
use locksim::Scenario;
use locksim::load::{load_file, parse_scenario};
use locksim::protocols::lock::check::{LIVENESS, LOST_UPDATE, MUTUAL_EXCLUSION, STALE_WRITE, TOKEN_MONOTONIC};
use locksim::protocols::run;
use locksim::sim::Recording;
use locksim::sim::{Invariant, Status};
use serde_json::Value;

impl Run {
    /// The messages `from` sent `to` (a `send` event: the sender's node, the receiver in `to`).
    fn sent(&self, from: &str, to: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["kind"] == "send" && e["node"] == from && e["to"] == to)
            .collect()
    }

    /// The first key whose create revision is not above a revision some event had already
    /// reported before that key's lease was even granted: the store's revision went back.
    ///
    /// No event carries the store's revision as such, but several report one the store had
    /// reached: a key's create revision (`acquired` with revision tokens, `queued`'s `my_rev`),
    /// its predecessor's (`behind_rev`) and an expiry's (`lease_expired`). A client puts its key
    /// only after its lease is granted, so if revisions never go backwards that key's create
    /// revision exceeds everything reported before the grant — across a failover too.
    fn revision_went_back(&self) -> Option<String> {
        let mut seen = 0i64;
        let mut lease_of: BTreeMap<&str, u64> = BTreeMap::new();
        let mut bound: BTreeMap<u64, i64> = BTreeMap::new();
        for e in &self.events {
            let node = e["node"].as_str().unwrap();
            let created = match e["kind"].as_str().unwrap() {
                "acquire_started" => {
                    lease_of.insert(node, e["lease"].as_u64().unwrap());
                    None
                }
                "lease_granted" => {
                    bound.entry(e["lease"].as_u64().unwrap()).or_insert(seen);
                    None
                }
                "queued" => {
                    seen = seen.max(e["behind_rev"].as_i64().unwrap());
                    Some((lease_of[node], e["my_rev"].as_i64().unwrap()))
                }
                "acquired" => e["token"].as_i64().map(|token| (e["lease"].as_u64().unwrap(), token)),
                "lease_expired" => {
                    seen = seen.max(e["revision"].as_i64().unwrap());
                    None
                }
                _ => None,
            };
            if let Some((lease, rev)) = created {
                let before = bound[&lease];
                if rev <= before {
                    return Some(format!(
                        "event #{}: {node}'s key has create revision {rev}, but revision {before} was reported before its lease was granted",
                        e["i"]
                    ));
                }
                seen = seen.max(rev);
            }
        }
        None
    }
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
    let late = r.violated_at(STALE_WRITE);
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
    let granted = r
        .all("client-1", "acquired")
        .into_iter()
        .find(|a| a["lease"] == waiter_lease)
        .expect("client-1 is told it holds on its first lease");
    assert!(t(granted) > t(expired), "granted on a lease that had expired");
    assert!(
        granted["deadline_mono_ns"].as_u64().unwrap() < granted["mono_ns"].as_u64().unwrap(),
        "by its own deadline client-1 no longer holds: the harm is its write"
    );
    let stale = r.violated_at(STALE_WRITE);
    assert_eq!((stale["client"].as_u64(), &stale["lease"]), (Some(1), &waiter_lease));
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
        // Raft: terms only grow, and a term has at most one leader.
        let terms: Vec<u64> = r
            .kind("leader_elected")
            .iter()
            .map(|e| e["term"].as_u64().unwrap())
            .collect();
        assert!(terms.len() >= 2, "seed {seed}: an election after the failover");
        assert!(
            terms.windows(2).all(|w| w[0] < w[1]),
            "seed {seed}: terms of successive leaders {terms:?}"
        );
        assert_eq!(
            terms.iter().collect::<BTreeSet<_>>().len(),
            terms.len(),
            "seed {seed}: one leader per term"
        );
        // The store's revision never goes backwards: each grant's token (its key's create
        // revision) is above the one before, and above every revision reported before it.
        let tokens: Vec<u64> = r
            .kind("acquired")
            .iter()
            .map(|e| e["token"].as_u64().unwrap())
            .collect();
        assert!(tokens.windows(2).all(|w| w[0] < w[1]), "seed {seed}: tokens {tokens:?}");
        assert!(
            r.kind("acquired").iter().any(|a| t(a) > t(elected)),
            "seed {seed}: some grant after the election"
        );
        assert_eq!(r.revision_went_back(), None, "seed {seed}");
    }
    let lost = run_story("etcd/leader-failover-leader-only.toml", 1);
    // The check above can fail: a leader that acknowledged before replicating lost writes, and
    // its successor hands out revisions clients were already told about.
    assert!(
        lost.revision_went_back().is_some(),
        "the leader-only store's revisions go back"
    );
    let again = lost.violated_at(TOKEN_MONOTONIC);
    let first = lost.first("client-0", "acquired");
    assert_eq!(
        again["token"], first["token"],
        "the new leader never had client-0's key and grants its revision again"
    );
    assert!(t(again) > t(first), "after client-0 was granted it");
}

/// The leader-failover layout with server-0 crashing instead of stepping down, right as
/// client-1 queues: client-1's watch was set on server-0 (or is on its way there) and dies
/// with it. Not a catalogue scenario: it protects nothing that has a knob to switch off, so it
/// could have no twin; it pins the model's fix instead.
fn leader_crash_while_a_waiter_queues() -> Scenario {
    let text = std::fs::read_to_string(common::scenario("etcd/leader-failover.toml")).unwrap();
    let edited = text
        .replace("twins = [\"leader-failover-leader-only\"]\n", "")
        .replace("kind = \"failover\"", "kind = \"crash\"")
        .replace(
            "after = \"client-1:queued\"",
            "restart_after_ms = 5000\nafter = \"client-1:queued\"",
        );
    assert!(edited.contains("kind = \"crash\"") && edited.contains("restart_after_ms"));
    parse_scenario("leader-crash.toml", &edited).unwrap()
}

/// Regression for the lost watch: a watch lives on the member that serves the client's
/// connection. Before the fix, client-1 went on waiting for a deletion the crashed member
/// would never report, client-0 queued behind it, and nobody acquired again (with the re-watch
/// in `follow` removed, `liveness` is violated on every seed here). Now client-1 sets the same
/// watch again on the member it moves to.
#[test]
fn a_waiter_sets_its_watch_again_on_the_member_it_moves_to() {
    let s = leader_crash_while_a_waiter_queues();
    for seed in 0..20 {
        let r = run_scenario(&s, seed);
        assert!(r.held(LIVENESS), "seed {seed}: {:?}", r.status(LIVENESS));
        assert!(r.held(MUTUAL_EXCLUSION), "seed {seed}");
        let crash = r.first("server-0", "crash");
        let watches: Vec<&Value> = r
            .events
            .iter()
            .filter(|e| {
                e["kind"] == "send" && e["node"] == "client-1" && e["msg"].as_str().unwrap().starts_with("Watch ")
            })
            .collect();
        let first = watches
            .first()
            .unwrap_or_else(|| panic!("seed {seed}: client-1 never watched"));
        assert_eq!(
            first["to"], "server-0",
            "seed {seed}: the first watch is on the member that crashes"
        );
        let fired = r
            .all("client-1", "watch_fired")
            .into_iter()
            .find(|e| t(e) > t(crash))
            .unwrap_or_else(|| panic!("seed {seed}: client-1's watch never fired after the crash"));
        let again = watches
            .iter()
            .find(|w| w["msg"] == first["msg"] && w["to"] != first["to"] && w["i"].as_u64() < fired["i"].as_u64())
            .unwrap_or_else(|| panic!("seed {seed}: client-1 never set its watch on another member"));
        assert!(t(again) >= t(crash), "seed {seed}");
        assert!(
            r.all("client-1", "acquired").iter().any(|a| t(a) > t(fired)),
            "seed {seed}: client-1 acquires after its watch fired"
        );
    }
}

#[test]
fn a_new_leader_extends_a_lease_that_would_have_expired_during_the_election() {
    for seed in 0..100 {
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
        // etcd `lessor.Promote(electionTimeout)`: now + election timeout (1 s) + TTL (2 s).
        assert_eq!(
            extended["expiry"]["at_ns"].as_u64().unwrap(),
            elected["mono_ns"].as_u64().unwrap() + 3 * S,
            "seed {seed}: extended by the election timeout and the TTL"
        );
        assert!(
            r.kind("lease_expired").iter().all(|e| e["lease"] != lease),
            "seed {seed}: and never expired"
        );
        assert!(matches!(r.status(MUTUAL_EXCLUSION), Status::Held(_)), "seed {seed}");
        assert!(
            !r.all("client-0", "write_accepted").is_empty(),
            "seed {seed}: client-0 finished its work"
        );
    }
}

/// Whether a message is a store request (it goes through the Raft log), not a lease
/// keep-alive or a watch, which a member serves on its own.
fn is_store_request(msg: &str) -> bool {
    !(msg.starts_with("LeaseKeepAlive") || msg.starts_with("Watch "))
}

/// Whether an answer from a member says a store request succeeded. Failures are "not the
/// leader" and "lease not found"; "kept alive" answers a keep-alive, not a request.
fn is_success_answer(msg: &str) -> bool {
    [
        "granted,",
        "revoked",
        "my key at rev",
        "wait for",
        "no predecessor",
        "counter =",
        "txn succeeded",
    ]
    .iter()
    .any(|p| msg.starts_with(p))
}

/// What the cut-off server-0 did for client-0: the store requests from client-0 it received
/// between the partition and its step-down (or the heal, if it never steps down), and the
/// success answers it sent client-0 between the partition and the heal.
fn minority_leader_served(r: &Run) -> (Vec<&Value>, Vec<&Value>) {
    let i = |e: &Value| e["i"].as_u64().unwrap();
    let cut = i(r.kind("partition")[0]);
    let heal = i(r.kind("heal")[0]);
    let led_until = r
        .all("server-0", "role_changed")
        .into_iter()
        .map(i)
        .find(|&e| e > cut)
        .map_or(heal, |e| e.min(heal));
    let requests = r
        .all("server-0", "deliver")
        .into_iter()
        .filter(|e| e["from"] == "client-0" && is_store_request(e["msg"].as_str().unwrap()))
        .filter(|e| i(e) > cut && i(e) < led_until)
        .collect();
    let acknowledged = r
        .sent("server-0", "client-0")
        .into_iter()
        .filter(|e| i(e) > cut && i(e) < heal && is_success_answer(e["msg"].as_str().unwrap()))
        .collect();
    (requests, acknowledged)
}

#[test]
fn a_leader_cut_off_in_a_minority_acknowledges_nothing() {
    // The partition falls as client-0 releases, so its LeaseRevoke goes to server-0 while it
    // still leads: not vacuous for any of these seeds.
    for seed in 0..10 {
        let r = run_story("etcd/minority-leader.toml", seed);
        let cut = r.kind("partition")[0];
        let stepped_down = r
            .all("server-0", "role_changed")
            .into_iter()
            .find(|e| t(e) > t(cut))
            .expect("CheckQuorum: the cut-off leader steps down");
        assert!(t(stepped_down) < t(cut) + 2 * S + 200_000_000, "seed {seed}");
        // Requests go through the log: none is acknowledged. (Lease keep-alives are not
        // writes; the leader answers them until CheckQuorum makes it step down.)
        let (requests, acknowledged) = minority_leader_served(&r);
        assert!(
            !requests.is_empty(),
            "seed {seed}: no store request from client-0 reached server-0 while it led the minority"
        );
        assert!(
            acknowledged.is_empty(),
            "seed {seed}: server-0 acknowledged {acknowledged:?}"
        );
    }
    let r = run_story("etcd/minority-leader.toml", 1);
    let cut = r.kind("partition")[0];
    let heal = r.kind("heal")[0];
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
    assert!(matches!(split.status(MUTUAL_EXCLUSION), Status::Violated(_)));
    // The same check catches a leader that acknowledges before replicating.
    let (requests, acknowledged) = minority_leader_served(&split);
    assert!(!requests.is_empty() && !acknowledged.is_empty());
}

/// Claims that belong to the stories but have no twin (see tests/twins.rs), for every seed.
#[test]
fn the_etcd_stories_other_verdicts_hold_for_seeds_0_to_100() {
    let claims: &[(&str, Invariant, &str)] = &[
        ("etcd/leader-failover.toml", MUTUAL_EXCLUSION, "held"),
        ("etcd/lease-extension.toml", MUTUAL_EXCLUSION, "held"),
        ("etcd/holder-pause-fenced.toml", TOKEN_MONOTONIC, "held"),
        ("etcd/minority-leader.toml", TOKEN_MONOTONIC, "not_applicable"),
    ];
    common::story::claims_hold_for_seeds_0_to_100(claims);
}

/// `locksim list` is where a scenario writer finds the kind: its knobs, their values, and the
/// events a fault can follow.
#[test]
fn list_shows_the_etcd_lease_kind_its_knobs_and_events() {
    let out = common::locksim(&["list"]);
    let text = common::stdout(&out);
    assert!(out.status.success());
    for needle in [
        "  etcd-lease\n",
        "waiter_recheck       true | false  (default true)",
        "session_deadline     \"from-send\" | \"clientv3\"  (default \"from-send\")",
        "keepalive_every_ms   integer 1..=3600000",
        "commit               \"majority\" | \"leader-only\"  (default \"majority\")",
        "fencing_tokens       \"none\" | \"revision\"",
        "kind                 \"counter\" | \"etcd-txn\"",
        "lease_expired",
        "leader_elected",
        "queued, watch_fired, lease_lost",
    ] {
        assert!(text.contains(needle), "`locksim list` lacks {needle:?}");
    }
    // The etcd events are listed under etcd-lease, not under another kind.
    let etcd = text
        .split("events a fault can follow")
        .nth(1)
        .and_then(|events| events.split("  etcd-lease\n").nth(1))
        .and_then(|rest| rest.split("\n  snowflake").next())
        .expect("an etcd-lease section among the events");
    assert!(etcd.contains("lease_expired, leader_elected"), "{etcd}");
}

/// A catalogue scenario's text with edits, as a scenario of its own (not a catalogue entry:
/// these pin the model's behaviour over seeds, they protect nothing a twin could switch off).
fn edited(rel: &str, edits: &[(&str, &str)]) -> Scenario {
    let mut text = std::fs::read_to_string(common::scenario(rel)).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{rel} has no {from:?}");
        text = text.replace(from, to);
    }
    parse_scenario(rel, &text).unwrap()
}

/// etcdserver `applyEntryNormal`: a new leader promotes its lessor when it applies the first
/// (empty) entry of its term, when everything committed before it is applied too. Failing over
/// right after client-0's key was acknowledged, the followers have the key but may not know
/// it is committed: a leader that spoke for the lock at its election named no owner (the key
/// came only with its first entry) and, on some seeds, judged client-0's write stale.
#[test]
fn a_new_leader_speaks_for_the_lock_only_with_the_committed_state() {
    let s = edited(
        "etcd/failover-after-read.toml",
        &[
            ("twins = [\"failover-after-read-leader-only\"]\n", ""),
            ("after = \"client-0:read_done\"", "after = \"client-0:acquired\""),
        ],
    );
    for seed in 0..100 {
        let r = run_scenario(&s, seed);
        let lease = &r.first("client-0", "acquired")["lease"];
        let failover = r.first("network", "failover");
        let speaks = r
            .kind("role_changed")
            .into_iter()
            .find(|e| e["authoritative"] == true && t(e) > t(failover))
            .unwrap_or_else(|| panic!("seed {seed}: a new leader"));
        let owner = r
            .events
            .iter()
            .find(|e| e["kind"] == "key_set" && e["node"] == speaks["node"] && t(e) >= t(speaks))
            .unwrap();
        assert_eq!(
            (t(owner), &owner["lease"]),
            (t(speaks), lease),
            "seed {seed}: the new leader names client-0 as it starts to speak for the lock"
        );
        assert!(r.held(STALE_WRITE), "seed {seed}: {:?}", r.status(STALE_WRITE));
    }
}

/// The issue's own layouts: one failover right after client-0's read, with the default second
/// of work (the write lands during the election), and two leader changes in a few seconds
/// (server-1 cut off so that server-2 wins, then server-2 stepping down as soon as it leads).
/// The holder's key and lease are committed on every member and survive: no stale write.
#[test]
fn elections_while_the_holder_works_leave_its_write_current() {
    let one = edited(
        "etcd/failover-after-read.toml",
        &[
            ("twins = [\"failover-after-read-leader-only\"]\n", ""),
            ("work_ms = 3000\n", ""),
            ("deadline_check = \"never\"", "deadline_check = \"before_write\""),
        ],
    );
    let two = edited(
        "etcd/failover-after-read.toml",
        &[
            ("twins = [\"failover-after-read-leader-only\"]\n", ""),
            (
                "[resource]",
                "[[fault]]\nkind = \"partition\"\ngroups = [[\"server-1\"], [\"server-0\", \"server-2\", \"client-0\", \"client-1\", \"resource\"]]\nafter = \"client-0:read_done\"\nheal_after_ms = 3000\n\n[[fault]]\nkind = \"failover\"\nnode = \"server-2\"\nafter = \"server-2:leader_elected\"\n\n[resource]",
            ),
        ],
    );
    for seed in 0..100 {
        let r = run_scenario(&one, seed);
        assert!(
            r.held(STALE_WRITE),
            "one failover, seed {seed}: {:?}",
            r.status(STALE_WRITE)
        );
        // The holder's write lands while no member leads: the case the old checker called stale.
        let failover = t(r.first("network", "failover"));
        let elected = r.kind("leader_elected").into_iter().map(t).find(|&at| at > failover);
        let written = r.kind("write_applied").into_iter().map(t).find(|&at| at > failover);
        assert!(
            written.is_some_and(|w| elected.is_none_or(|e| w < e)),
            "one failover, seed {seed}: the write lands during the election ({written:?} before {elected:?})"
        );
        let r = run_scenario(&two, seed);
        let failover = r.first("network", "failover");
        let leaders = r
            .kind("leader_elected")
            .into_iter()
            .filter(|e| t(e) > t(failover))
            .count();
        assert!(leaders >= 2, "seed {seed}: two leader changes, got {leaders}");
        assert!(
            r.held(STALE_WRITE),
            "two changes, seed {seed}: {:?}",
            r.status(STALE_WRITE)
        );
    }
}

/// DESIGN 5, `token_monotonic`: judged where the token is granted. client-0 is paused right
/// after the leader committed its key (create revision 2) and reads the answer 15 s later,
/// after client-1's keys took revisions up to about 20: the store still granted 2 first.
#[test]
fn a_revision_token_is_issued_where_the_store_commits_the_key() {
    let s = edited(
        "etcd/holder-pause-fenced.toml",
        &[
            ("twins = [\"holder-pause\", \"holder-pause-unchecked\"]\n", ""),
            ("work_ms = 1000", "work_ms = 1000\nstart_stagger_ms = 100"),
            ("after = \"deadline_checked\"", "after = \"server-0:key_set\""),
        ],
    );
    for seed in 0..100 {
        let r = run_scenario(&s, seed);
        assert!(r.held(TOKEN_MONOTONIC), "seed {seed}: {:?}", r.status(TOKEN_MONOTONIC));
        let issued = r.kind("token_issued");
        assert!(
            issued
                .iter()
                .all(|e| e["node"].as_str().unwrap().starts_with("server-")),
            "seed {seed}: the store issues revision tokens"
        );
        assert_eq!(issued[0]["token"], 2, "seed {seed}: client-0's key first");
        let late = r
            .all("client-0", "acquired")
            .into_iter()
            .find(|a| a["token"] == 2)
            .unwrap_or_else(|| panic!("seed {seed}: client-0 reads its answer"));
        assert!(
            r.kind("acquired")
                .iter()
                .any(|a| t(a) < t(late) && a["token"].as_u64() > Some(2)),
            "seed {seed}: after others read newer tokens"
        );
    }
}

/// The same application on single Redis and on etcd — pause 15 s after reading, never check —
/// gets the same verdicts, seed for seed: a `never` client is judged to hold until its own
/// deadline on both, and on both it goes on to write.
#[test]
fn a_never_checking_client_is_judged_alike_on_redis_and_etcd() {
    let redis = load_file(&common::scenario("single-redis/gc-pause-never-checked.toml"))
        .unwrap()
        .scenario;
    let etcd = load_file(&common::scenario("etcd/gc-pause-never-checked.toml"))
        .unwrap()
        .scenario;
    for seed in 0..100 {
        let (a, b) = (run(&redis, seed, Recording::Facts), run(&etcd, seed, Recording::Facts));
        for i in [MUTUAL_EXCLUSION, STALE_WRITE, LOST_UPDATE] {
            let word =
                |o: &locksim::protocols::Outcome| o.verdicts.iter().find(|v| v.invariant == i).unwrap().status.word();
            assert_eq!(word(&a), word(&b), "seed {seed}: {i}");
        }
    }
}

/// A token is recorded wherever a leader commits the key, promoted or not. Failing over right
/// after client-1's lease grant, client-0's key (revision 2) may be committed by the new
/// leader together with its first entry, before its promotion: the grant is still recorded,
/// once or — when the old leader had applied it too — announced twice for the same key, which
/// `token_monotonic` knows for one grant.
#[test]
fn a_token_the_new_leader_commits_before_its_promotion_is_recorded() {
    let s = edited(
        "etcd/failover-after-read.toml",
        &[
            ("twins = [\"failover-after-read-leader-only\"]\n", ""),
            ("after = \"client-0:read_done\"", "after = \"client-1:lease_granted\""),
        ],
    );
    let mut twice = 0;
    for seed in 0..100 {
        let r = run_scenario(&s, seed);
        let acquired = r.first("client-0", "acquired");
        let token = acquired["token"].as_u64().expect("a revision token");
        let grants = r
            .kind("token_issued")
            .into_iter()
            .filter(|e| e["token"].as_u64() == Some(token))
            .count();
        assert!(grants >= 1, "seed {seed}: client-0's token {token} was never recorded");
        twice += usize::from(grants > 1);
        assert!(r.held(TOKEN_MONOTONIC), "seed {seed}: {:?}", r.status(TOKEN_MONOTONIC));
    }
    assert!(twice > 0, "some seed announces a grant twice, and it is one grant");
}
