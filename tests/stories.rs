//! The single-Redis stories, checked event by event: not only the verdicts but the facts that
//! make them true (who wrote, with which token, what the clocks said), so a model that reached
//! the right verdict for the wrong reason fails here.

mod common;

use common::story::{Run, run_scenario, run_story, t};
use locksim::load::parse_scenario;
use locksim::protocols::lock::check::{
    FENCING_ORDER, LIVENESS, LOST_UPDATE, MUTUAL_EXCLUSION, STALE_WRITE, TOKEN_MONOTONIC,
};
use locksim::sim::{Invariant, Status};
use serde_json::Value;

fn mono(e: &Value) -> u64 {
    e["mono_ns"].as_u64().unwrap()
}

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

#[test]
fn no_faults_every_invariant_held_and_the_counter_counts_every_accepted_write() {
    for seed in 0..10 {
        let r = run_story("single-redis/no-faults.toml", seed);
        for (i, status) in &r.verdicts {
            assert!(matches!(status, Status::Held(_)), "seed {seed}: {i} {status:?}");
        }
        let writes: Vec<&Value> = r.events.iter().filter(|e| e["kind"] == "write_applied").collect();
        assert!(writes.len() >= 30, "a busy minute: {} writes", writes.len());
        let last = writes.last().unwrap()["value"].as_u64().unwrap();
        assert_eq!(
            last,
            writes.len() as u64,
            "seed {seed}: final counter = accepted writes"
        );
        let clients: std::collections::BTreeSet<&str> = r
            .events
            .iter()
            .filter(|e| e["kind"] == "acquired")
            .map(|e| e["node"].as_str().unwrap())
            .collect();
        assert_eq!(clients.len(), 3, "all three clients got the lock");
    }
}

#[test]
fn gc_pause_without_fencing_the_late_write_lands_after_the_next_holder() {
    let r = run_story("single-redis/kleppmann-gc-pause.toml", 1);
    let stale = r.violated_at(STALE_WRITE);
    assert_eq!(stale["kind"], "write_applied");
    assert!(stale["text"].as_str().unwrap().contains("from client-0"));
    let pause = r.first("client-0", "pause");
    let resume = r.first("client-0", "resume");
    assert_eq!(t(resume) - t(pause), 15 * S);
    assert!(t(stale) > t(resume), "client-0 wrote after waking");
    let next = r
        .all("client-1", "acquired")
        .into_iter()
        .find(|a| t(a) > t(pause))
        .unwrap();
    assert!(t(next) < t(resume), "client-1 acquired during the pause");
    assert_eq!(
        r.violated_at(LOST_UPDATE),
        stale,
        "the stale write is also the lost update"
    );
    assert!(matches!(r.status(MUTUAL_EXCLUSION), Status::Held(_)));
}

#[test]
fn gc_pause_with_fencing_the_old_token_is_rejected_below_the_max() {
    for seed in 0..10 {
        let r = run_story("single-redis/kleppmann-gc-pause-fenced.toml", seed);
        let refused = r.first("resource", "write_refused");
        assert!(refused["text"].as_str().unwrap().contains("from client-0"));
        let (token, max) = (refused["token"].as_u64().unwrap(), refused["max"].as_u64().unwrap());
        assert!(token < max, "seed {seed}: token {token} below max {max}");
        let rejected = r.first("client-0", "write_rejected");
        assert!(
            rejected["text"]
                .as_str()
                .unwrap()
                .contains(&format!("token {token} < max {max}"))
        );
        for i in [FENCING_ORDER, STALE_WRITE, LOST_UPDATE] {
            assert!(matches!(r.status(i), Status::Held(_)), "seed {seed}: {i}");
        }
    }
}

#[test]
fn fencing_orders_writes_but_accepts_a_stale_one_the_resource_cannot_know_about() {
    let r = run_story("single-redis/fencing-is-ordering.toml", 1);
    let stale = r.violated_at(STALE_WRITE);
    assert_eq!(stale["client"], 0, "client-0's write");
    assert_eq!(stale["token"], 1);
    let holder = r
        .all("client-1", "acquired")
        .into_iter()
        .find(|a| a["token"] == 2)
        .unwrap();
    assert!(
        t(holder) < t(stale),
        "client-1 held token 2 before client-0's token-1 write was accepted"
    );
    let lost = r.violated_at(LOST_UPDATE);
    assert_eq!((lost["client"].as_u64(), lost["token"].as_u64()), (Some(1), Some(2)));
    assert!(t(lost) > t(stale));
    assert!(matches!(r.status(FENCING_ORDER), Status::Held(_)));
}

#[test]
fn a_pause_before_the_check_is_caught_after_the_check_it_is_not() {
    let caught = run_story("single-redis/gc-pause-caught-by-deadline-check.toml", 1);
    let check = caught
        .all("client-0", "deadline_checked")
        .into_iter()
        .find(|c| c["ok"] == false);
    assert!(check.is_some(), "client-0 found its deadline passed");
    assert!(caught.all("client-0", "lock_lost").len() == 1);
    let missed = run_story("single-redis/check-then-write-pause.toml", 1);
    let first_check = missed.first("client-0", "deadline_checked");
    assert_eq!(first_check["ok"], true);
    assert!(matches!(missed.status(STALE_WRITE), Status::Violated(_)));
}

/// `deadline_check = "never"`: the client trusts the lock from acquisition to release, so the
/// same pause the twin catches goes unnoticed — not because a check was fooled (vm-suspend) or
/// came too early (kleppmann-gc-pause), but because there is none. A model that checked anyway
/// and happened to write late would meet the `[expect]` for the wrong reason; this catches it.
#[test]
fn a_client_that_never_checks_its_deadline_writes_after_the_pause_unchecked() {
    for seed in 0..10 {
        let r = run_story("single-redis/gc-pause-never-checked.toml", seed);
        let checks = r.all("client-0", "deadline_checked");
        assert!(
            checks.is_empty(),
            "seed {seed}: client-0 checked its deadline {} times, first at {} ns",
            checks.len(),
            t(checks[0])
        );
        assert!(
            r.all("client-0", "lock_lost").is_empty(),
            "seed {seed}: nothing told it"
        );
        let stale = r.violated_at(STALE_WRITE);
        assert_eq!(stale["client"], 0, "seed {seed}: client-0's write");
        assert!(
            t(stale) > t(r.first("client-0", "resume")),
            "seed {seed}: written after waking"
        );
    }
    let caught = run_story("single-redis/gc-pause-caught-by-deadline-check.toml", 1);
    assert!(
        !caught.all("client-0", "deadline_checked").is_empty(),
        "the twin does check"
    );
}

/// `retry_ms` is the base delay after a failed acquire (doubling per attempt, plus up to half
/// of it as jitter): client-1 starts while client-0 holds the lock, fails once, and retries no
/// sooner than `retry_ms` later and no later than 1.5 x `retry_ms`. A knob that were read but
/// not used — or used for another wait — would leave the two gaps alike.
#[test]
fn a_larger_retry_ms_delays_the_retry_after_a_failed_acquire() {
    let first_retry_gap = |retry_ms: u64| -> u64 {
        let text = format!(
            "name = \"retry\"\nduration_ms = 5000\n\n[protocol]\nkind = \"single-redis\"\n\
             clients = 2\nttl_ms = 10000\nwork_ms = 3000\nretry_ms = {retry_ms}\n"
        );
        let r = run_scenario(&parse_scenario("retry.toml", &text).unwrap(), 1);
        let failed = r.first("client-1", "acquire_failed");
        let retry = r
            .all("client-1", "acquire_started")
            .into_iter()
            .find(|e| t(e) > t(failed))
            .unwrap_or_else(|| panic!("retry_ms {retry_ms}: client-1 retried"));
        assert_eq!(retry["attempt"], 2, "retry_ms {retry_ms}: the retry of the same round");
        // Perfect clocks: the monotonic gap is the true one.
        mono(retry) - mono(failed)
    };
    let short = first_retry_gap(100);
    let long = first_retry_gap(1000);
    assert!(
        (100 * MS..=150 * MS).contains(&short),
        "retry_ms 100: retried after {short} ns"
    );
    assert!(
        (1000 * MS..=1500 * MS).contains(&long),
        "retry_ms 1000: retried after {long} ns"
    );
}

#[test]
fn vm_suspend_stops_the_monotonic_clock_and_fools_the_check() {
    let r = run_story("single-redis/vm-suspend.toml", 1);
    let resume = r.first("client-0", "resume");
    let check = r
        .all("client-0", "deadline_checked")
        .into_iter()
        .find(|c| t(c) > t(resume))
        .unwrap();
    assert_eq!(check["ok"], true, "the check passes");
    assert!(t(check) > 15 * S, "in true time the lease is long gone");
    assert!(
        check["mono_ns"].as_u64().unwrap() < 2 * S,
        "but the monotonic clock says ~1 s passed"
    );
    assert!(
        check["wall_ns"].as_i64().unwrap() > 15 * S as i64,
        "while the wall clock kept running"
    );
    assert!(matches!(r.status(MUTUAL_EXCLUSION), Status::Violated(_)));
    // The twin: the same pause without suspend is caught.
    let twin = run_story("single-redis/gc-pause-caught-by-deadline-check.toml", 1);
    assert!(matches!(twin.status(MUTUAL_EXCLUSION), Status::Held(_)));
}

#[test]
fn plain_del_deletes_another_clients_key_compare_and_delete_does_not() {
    let r = run_story("single-redis/plain-del-release.toml", 1);
    let deleted = r
        .events
        .iter()
        .find(|e| e["kind"] == "key_deleted" && e["cause"] == "plain_del")
        .unwrap();
    let lease = &deleted["lease"];
    let owner = r
        .events
        .iter()
        .find(|e| e["kind"] == "acquired" && &e["lease"] == lease)
        .unwrap();
    let releaser = r
        .events
        .iter()
        .rfind(|e| e["kind"] == "released" && t(e) <= t(deleted))
        .unwrap();
    assert_ne!(
        owner["node"], releaser["node"],
        "the DEL came from someone else than the key's owner"
    );
    // The story's "a third client acquires": for every seed, the acquisition that breaks mutual
    // exclusion follows a plain DEL of another client's key, and the acquirer is neither that
    // key's owner nor the client whose DEL removed it (re-acquiring after its own DEL would be
    // a different, weaker story).
    for seed in 0..100 {
        let r = run_story("single-redis/plain-del-release.toml", seed);
        let second = r.violated_at(MUTUAL_EXCLUSION);
        let at = r.events.iter().position(|e| std::ptr::eq(e, second)).unwrap();
        let del = r.events[..at]
            .iter()
            .rposition(|e| e["kind"] == "key_deleted" && e["cause"] == "plain_del")
            .unwrap_or_else(|| panic!("seed {seed}: a plain DEL came before the second holder"));
        // The server records the deletion in the step that handles the DEL's delivery.
        let delivered = &r.events[del - 1];
        assert_eq!(
            (delivered["kind"].as_str(), delivered["msg"].as_str()),
            (Some("deliver"), Some("DEL lock")),
            "seed {seed}"
        );
        let deleter = &delivered["from"];
        let owner = &r
            .events
            .iter()
            .find(|e| e["kind"] == "acquired" && e["lease"] == r.events[del]["lease"])
            .unwrap()["node"];
        assert_ne!(owner, deleter, "seed {seed}: the DEL removed another client's key");
        assert_ne!(
            &second["node"], owner,
            "seed {seed}: the acquirer is not the key's owner"
        );
        assert_ne!(
            &second["node"], deleter,
            "seed {seed}: the acquirer is a third client, not the deleter re-acquiring"
        );
    }
    let fixed = run_story("single-redis/plain-del-release-fixed.toml", 1);
    assert!(
        fixed
            .events
            .iter()
            .all(|e| e["kind"] != "key_deleted" || e["cause"] == "release")
    );
    let late = fixed.events.iter().filter(|e| e["kind"] == "lock_lost").count();
    assert!(
        late > 5,
        "late releases happen in the fixed twin too ({late}), they just remove nothing"
    );
}

#[test]
fn a_paused_holders_checked_renewal_notices_a_blind_one_extends_the_next_holders_key() {
    let checked = run_story("single-redis/renewal-pause-checked.toml", 1);
    let resume = checked.first("client-0", "resume");
    let lost = checked.first("client-0", "lock_lost");
    assert!(t(lost) >= t(resume));
    assert!(
        checked
            .all("client-0", "renewed")
            .iter()
            .all(|r| t(r) < t(resume) || t(r) > t(lost))
    );
    let blind = run_story("single-redis/renewal-pause-blind.toml", 1);
    let bad = blind.violated_at(MUTUAL_EXCLUSION);
    assert_eq!(
        (bad["node"].as_str(), bad["kind"].as_str()),
        (Some("client-0"), Some("renewed"))
    );
    let extended = blind
        .events
        .iter()
        .rfind(|e| e["kind"] == "key_extended" && t(e) <= t(bad))
        .unwrap();
    let holder = blind.all("client-1", "acquired").into_iter().next().unwrap();
    assert_eq!(
        extended["lease"], holder["lease"],
        "the key client-0 extended was client-1's"
    );
}

#[test]
fn setnx_then_expire_crash_leaks_a_key_without_ttl() {
    let r = run_story("single-redis/setnx-then-expire-crash.toml", 1);
    let set = r.first("server-0", "key_set");
    assert!(set["expiry"].is_null(), "SETNX leaves no TTL");
    let crash = r.first("client-0", "crash");
    assert!(r.events.iter().all(|e| e["kind"] != "acquired" || t(e) <= t(crash)));
    assert!(
        r.events.iter().all(|e| e["kind"] != "key_extended"),
        "EXPIRE never arrived"
    );
    let twin = run_story("single-redis/set-nx-px-crash.toml", 1);
    assert!(twin.first("server-0", "key_set")["expiry"].is_object());
    assert!(matches!(twin.status(LIVENESS), Status::Held(_)));
}

/// Claims that are part of a story but not of a protection, so they have no twin and live here
/// rather than in `[expect]` (see tests/twins.rs) — checked for every seed all the same.
#[test]
fn the_stories_other_verdicts_hold_for_seeds_0_to_100() {
    let claims: &[(&str, Invariant, &str)] = &[
        // A GC pause breaks the write, not mutual exclusion: the holder's interval ends at its own deadline.
        ("single-redis/kleppmann-gc-pause.toml", MUTUAL_EXCLUSION, "held"),
        ("single-redis/kleppmann-gc-pause-fenced.toml", MUTUAL_EXCLUSION, "held"),
        ("single-redis/check-then-write-pause.toml", MUTUAL_EXCLUSION, "held"),
        // Fencing keeps its order even as a stale write gets in.
        ("single-redis/fencing-is-ordering.toml", FENCING_ORDER, "held"),
        // The same pause, caught before the write: everything holds.
        (
            "single-redis/gc-pause-caught-by-deadline-check.toml",
            MUTUAL_EXCLUSION,
            "held",
        ),
        ("single-redis/gc-pause-caught-by-deadline-check.toml", LIVENESS, "held"),
        ("single-redis/set-nx-px-crash.toml", MUTUAL_EXCLUSION, "held"),
        // antirez: a pause during acquisition is caught; Kleppmann: after it, only the write is late.
        ("redlock/pause-during-acquisition.toml", MUTUAL_EXCLUSION, "held"),
        ("redlock/pause-after-acquisition.toml", MUTUAL_EXCLUSION, "held"),
        ("redlock/pause-after-acquisition-fenced.toml", MUTUAL_EXCLUSION, "held"),
        ("redlock/delayed-packet.toml", MUTUAL_EXCLUSION, "held"),
    ];
    common::story::claims_hold_for_seeds_0_to_100(claims);
}

#[test]
fn clock_jump_gives_two_clients_a_majority_each() {
    let r = run_story("redlock/clock-jump.toml", 1);
    let first = r.first("client-0", "acquired");
    assert_eq!(first["servers"], 0b00111, "client-0 holds {{0,1,2}}");
    // The Redis documentation's validity, from the trace's own clocks: elapsed runs on
    // client-0's monotonic clock from sending the SETs (acquire_started) to deciding
    // (acquired); server-3 and server-4 never answer, so it waits out the 50 ms per-node
    // timeout. ttl 10000 ms, drift 10000 / 100 + 2 = 102 ms: 10000 - 50 - 102 = 9848 ms.
    let started = r
        .all("client-0", "acquire_started")
        .into_iter()
        .rfind(|e| t(e) <= t(first))
        .unwrap();
    let elapsed_ns = mono(first) - mono(started);
    assert_eq!(elapsed_ns, 50 * MS, "elapsed is the per-node timeout");
    let (ttl_ns, drift_ns) = (10_000 * MS, 10_000 * MS / 100 + 2 * MS);
    assert_eq!(first["validity_ns"].as_u64(), Some(ttl_ns - elapsed_ns - drift_ns));
    assert_eq!(first["validity_ns"], 9_848_000_000u64);
    assert_eq!(
        first["deadline_mono_ns"].as_u64(),
        Some(mono(started) + ttl_ns - drift_ns)
    );
    let jump = r.first("server-2", "clock_jump");
    let expired = r.first("server-2", "key_expired");
    assert_eq!(t(expired), t(jump), "the forward jump expires the key at once");
    let second = r.violated_at(MUTUAL_EXCLUSION);
    assert_eq!(
        (second["node"].as_str(), second["servers"].as_u64()),
        (Some("client-1"), Some(0b11100))
    );
    let twin = run_story("redlock/clock-jump-monotonic.toml", 1);
    assert!(
        twin.all("server-2", "key_expired").iter().all(|e| t(e) > 9 * S),
        "no early expiry"
    );
}

/// Step 5 of the Redis documentation's Redlock ("it will try to unlock all the instances (even
/// the instances it believed it was not able to lock)"), as redlock-py's `lock()` does after
/// any failed attempt. Every SET of client-0's first attempt lands, but each reply arrives
/// after the 50 ms per-node timeout: the client counts no grant. Unlocking every instance
/// frees its keys, so its retry, a few hundred ms later, gets them; without that unlock the
/// keys would lock it out until their 10 s TTL.
#[test]
fn a_failed_redlock_attempt_unlocks_every_instance_even_those_it_counted_no_grant_from() {
    let mut text = String::from(
        "name = \"late-replies\"\nduration_ms = 15000\n\n[protocol]\nkind = \"redlock\"\n\
         clients = 1\nservers = 3\nttl_ms = 10000\n",
    );
    for i in 0..3 {
        text += &format!(
            "\n[[fault]]\nkind = \"delay\"\nfrom = \"server-{i}\"\nto = \"client-0\"\n\
             after = \"client-0:acquire_started\"\nwindow_ms = 20\nextra_ms = 200\n"
        );
    }
    let s = parse_scenario("late-replies.toml", &text).unwrap();
    for seed in 0..100 {
        let r = run_scenario(&s, seed);
        let failed = r.first("client-0", "acquire_failed");
        assert_eq!(failed["why"], "no quorum", "seed {seed}");
        assert_eq!(r.first("client-0", "acquire_replies")["granted"], 0, "seed {seed}");
        let landed = r.kind("key_set").into_iter().filter(|e| t(e) < t(failed)).count();
        assert_eq!(landed, 3, "seed {seed}: every SET landed");
        let acquired = r.first("client-0", "acquired");
        assert!(
            t(acquired) < S,
            "seed {seed}: acquired at {} ms, not on a retry",
            t(acquired) / MS
        );
        assert_eq!(
            acquired["lease"], failed["lease"],
            "seed {seed}: the same round's retry"
        );
    }
}

/// `elapsed_clock`: the wall clock (redlock-py's `time.time()`) counts a 10 s backward step
/// during the acquisition as -10 s elapsed, and the validity grows by 10 s past the keys' TTL;
/// the monotonic clock does not see the step. Facts from the trace, not only verdicts.
#[test]
fn a_wall_clock_step_during_acquisition_inflates_the_validity_only_on_the_wall_clock() {
    let (ttl_ns, drift_ns) = (10_000 * MS, 10_000 * MS / 100 + 2 * MS);
    for seed in 0..100 {
        let wall = run_story("redlock/elapsed-wall-clock-jump.toml", seed);
        let mono_run = run_story("redlock/elapsed-monotonic-clock-jump.toml", seed);
        for (r, step_ns) in [(&wall, 10 * S), (&mono_run, 0)] {
            let first = r.first("client-0", "acquired");
            let started = r.first("client-0", "acquire_started");
            let elapsed_ns = mono(first) - mono(started);
            assert!(elapsed_ns < 50 * MS, "seed {seed}: every instance answered at once");
            assert_eq!(
                first["validity_ns"].as_u64(),
                Some(ttl_ns + step_ns - elapsed_ns - drift_ns),
                "seed {seed}: validity with a {step_ns} ns step counted"
            );
            assert_eq!(
                first["deadline_mono_ns"].as_u64(),
                Some(mono(started) + ttl_ns + step_ns - drift_ns),
                "seed {seed}"
            );
        }
        let check = wall
            .all("client-0", "deadline_checked")
            .into_iter()
            .find(|c| t(c) > 10 * S)
            .unwrap();
        assert_eq!(
            check["ok"], true,
            "seed {seed}: the inflated lease looks valid after 10 s"
        );
        let taken = wall.violated_at(MUTUAL_EXCLUSION);
        assert_eq!(taken["node"], "client-1", "seed {seed}");
        assert!(t(taken) < t(check), "seed {seed}: client-1 took the expired keys first");
        let check = mono_run
            .all("client-0", "deadline_checked")
            .into_iter()
            .find(|c| t(c) > 10 * S)
            .unwrap();
        assert_eq!(check["ok"], false, "seed {seed}: the honest lease is over");
    }
}

#[test]
fn a_pause_before_the_validity_computation_makes_the_validity_negative() {
    let r = run_story("redlock/pause-during-acquisition.toml", 1);
    let replies = r.first("client-0", "acquire_replies");
    assert_eq!(replies["granted"], 0b11111, "all five said yes");
    let failed = r.first("client-0", "acquire_failed");
    assert_eq!(failed["why"], "quorum, but no validity left");
    assert!(t(failed) >= t(replies) + 12 * S, "decided only after the pause");
    let acquired = r.all("client-0", "acquired");
    assert!(
        acquired.iter().all(|a| t(a) > t(failed)),
        "the paused attempt never counted as held"
    );
}

#[test]
fn fenced_redlock_rejects_the_late_write_and_a_delayed_packet() {
    for rel in [
        "redlock/pause-after-acquisition-fenced.toml",
        "redlock/delayed-packet-fenced.toml",
    ] {
        let r = run_story(rel, 1);
        let refused = r.first("resource", "write_refused");
        assert_eq!(refused["client"], 0, "{rel}: client-0's write");
        assert!(refused["token"].as_u64() < refused["max"].as_u64(), "{rel}");
        let tokens: Vec<u64> = r
            .all("counter", "token_issued")
            .iter()
            .map(|e| e["token"].as_u64().unwrap())
            .collect();
        assert!(
            tokens.windows(2).all(|w| w[0] < w[1]) && tokens.len() > 3,
            "{rel}: counter tokens"
        );
    }
    let unfenced = run_story("redlock/delayed-packet.toml", 1);
    let late = unfenced.violated_at(STALE_WRITE);
    let sent = unfenced.first("client-0", "write_sent");
    assert!(t(late) >= t(sent) + 90 * S, "the write arrived 90 s after it was sent");
}

#[test]
fn failover_loses_the_unreplicated_lock_and_grants_a_token_twice() {
    let r = run_story("failover/failover-tokens.toml", 1);
    let promoted = r
        .all("replica-0", "role_changed")
        .into_iter()
        .find(|e| e["authoritative"] == true)
        .unwrap();
    let first = r.first("client-0", "acquired");
    assert!(t(promoted) >= t(first));
    let issued: Vec<&Value> = r.events.iter().filter(|e| e["kind"] == "token_issued").collect();
    assert_eq!(issued[0]["node"], "server-0");
    let again = issued.iter().find(|e| e["node"] == "replica-0").unwrap();
    assert!(
        again["token"].as_u64() <= issued[0]["token"].as_u64(),
        "the new primary's counter lagged"
    );
    let second = r.violated_at(MUTUAL_EXCLUSION);
    assert_eq!(second["node"], "client-1");
    assert!(matches!(r.status(TOKEN_MONOTONIC), Status::Violated(_)));
}

#[test]
fn a_delayed_restart_keeps_the_server_out_longer_than_the_ttl() {
    let r = run_story("redlock/crash-delayed-restart.toml", 1);
    let roles = r.all("server-2", "role_changed");
    assert_eq!(roles.len(), 2, "unavailable, then available again");
    assert_eq!(roles[0]["authoritative"], false);
    assert!(t(roles[1]) - t(roles[0]) >= 15 * S);
    let acquired_by_1 = r.all("client-1", "acquired");
    assert!(
        acquired_by_1
            .iter()
            .all(|a| a["servers"].as_u64().unwrap() & 0b100 == 0 || t(a) > t(roles[1]))
    );
}

/// Split brain under a partition: the old primary, alive and cut off with client-0, keeps
/// granting after replica-0's promotion; the demotion it missed is sent again until it lands
/// (Sentinel's 10 s polling), so after the heal server-0 is demoted and grants nothing more.
#[test]
fn a_partitioned_primary_grants_until_the_heal_then_is_demoted() {
    const DEMOTION: &str = "+switch-master: the sender is the primary now";
    for seed in 0..100 {
        let r = run_story("failover/failover-partitioned-primary.toml", seed);
        let promoted = r
            .all("replica-0", "role_changed")
            .into_iter()
            .find(|e| e["authoritative"] == true)
            .unwrap_or_else(|| panic!("seed {seed}: replica-0 is promoted"));
        let heal = r.first("network", "heal");
        assert_eq!((t(promoted), t(heal)), (5 * S, 30 * S), "seed {seed}");
        // Both primaries grant during the partition.
        let old_grants: Vec<&Value> = r.all("server-0", "key_set");
        assert!(
            old_grants.iter().any(|e| t(e) > t(promoted) && t(e) < t(heal)),
            "seed {seed}: server-0 still grants after the promotion"
        );
        assert!(
            r.all("replica-0", "key_set")
                .iter()
                .any(|e| t(e) > t(promoted) && t(e) < t(heal)),
            "seed {seed}: the promoted replica grants too"
        );
        let overlap = r.violated_at(MUTUAL_EXCLUSION);
        assert!(
            t(overlap) < t(heal),
            "seed {seed}: the two holders are the split brain's, not the heal's"
        );
        // After the heal server-0 takes the demotion, and grants nothing afterwards.
        let demoted = r.all("server-0", "role_changed");
        assert_eq!(demoted.len(), 1, "seed {seed}: demoted once");
        let demoted = demoted[0];
        assert_eq!(demoted["authoritative"], false);
        assert!(
            t(demoted) > t(heal) && t(demoted) < t(heal) + 11 * S,
            "seed {seed}: demoted within one re-send period of the heal, at {}",
            t(demoted)
        );
        assert!(
            r.events.iter().all(|e| e["node"] != "server-0"
                || !["key_set", "key_extended"].contains(&e["kind"].as_str().unwrap())
                || t(e) < t(demoted)),
            "seed {seed}: server-0 grants nothing once demoted"
        );
        // The demotion went out at the promotion and every 10 s after it, and stopped once
        // server-0 answered.
        let resent: Vec<u64> = r
            .all("replica-0", "send")
            .iter()
            .filter(|e| e["to"] == "server-0" && e["msg"] == DEMOTION)
            .map(|e| t(e))
            .collect();
        let expected: Vec<u64> = (0..4).map(|i| t(promoted) + i * 10 * S).collect();
        assert_eq!(resent, expected, "seed {seed}: re-sent until acknowledged");
        // client-0 missed `+switch-master` behind the partition; refused `READONLY` by the
        // demoted server-0, it learns the new primary and holds the lock there again.
        let leases_on_new: Vec<&Value> = r
            .all("replica-0", "key_set")
            .into_iter()
            .filter(|e| t(e) > t(demoted))
            .collect();
        assert!(
            r.all("client-0", "acquired")
                .iter()
                .any(|a| t(a) > t(demoted) && leases_on_new.iter().any(|k| k["lease"] == a["lease"])),
            "seed {seed}: client-0 acquires on replica-0 after server-0's demotion"
        );
    }
}

/// `min-replicas-to-write 1` bounds the partitioned primary's split brain: server-0 hears no
/// replica ack from the partition's start (0 s), counts its replicas good while the last ack
/// is at most 10 whole seconds old, and refreshes that count once a second — so it grants until
/// 11 s and answers NOREPLICAS from then on, where its twin grants until the demotion after the
/// heal. The window before the lag is noticed still has two holders; the promoted replica-0,
/// followed and acked by replica-1, serves client-1 throughout.
#[test]
fn min_replicas_stops_the_partitioned_primary_after_max_lag_but_not_before() {
    const NOREPLICAS: &str = "(error) NOREPLICAS Not enough good replicas to write.";
    let grants = |r: &Run, node: &str| -> Vec<u64> {
        r.events
            .iter()
            .filter(|e| e["node"] == node && ["key_set", "key_extended"].contains(&e["kind"].as_str().unwrap()))
            .map(t)
            .collect()
    };
    for seed in 0..100 {
        let r = run_story("failover/failover-partitioned-primary-min-replicas.toml", seed);
        let heal = t(r.first("network", "heal"));
        let old = grants(&r, "server-0");
        assert!(
            old.iter().all(|&g| g < 11 * S) && old.iter().any(|&g| g > 5 * S),
            "seed {seed}: server-0 grants after the failover, and only until 11 s: {old:?}"
        );
        let refused: Vec<u64> = r
            .all("server-0", "send")
            .iter()
            .filter(|e| e["msg"] == NOREPLICAS)
            .map(|e| t(e))
            .collect();
        assert!(
            refused.first().is_some_and(|&f| f >= 11 * S && f < heal),
            "seed {seed}: NOREPLICAS from 11 s on, during the partition: {refused:?}"
        );
        assert!(
            grants(&r, "replica-0").iter().any(|&g| g > 5 * S && g < 11 * S),
            "seed {seed}: the promoted replica grants meanwhile"
        );
        let overlap = r.violated_at(MUTUAL_EXCLUSION);
        assert!(
            t(overlap) < 11 * S,
            "seed {seed}: two holders before the lag is noticed"
        );
        let unbounded = run_story("failover/failover-partitioned-primary.toml", seed);
        assert!(
            grants(&unbounded, "server-0").iter().any(|&g| g > 12 * S && g < heal),
            "seed {seed}: without the setting server-0 grants on into the partition"
        );
    }
}

/// What `min-replicas-to-write` does not change: replication stays asynchronous. In
/// failover-race with two replicas, each acking every second, the primary acknowledges
/// client-0's lock (its replicas are good) and crashes before streaming it; the promoted
/// replica, followed by the other, grants the lock again.
#[test]
fn min_replicas_does_not_save_a_lock_lost_in_asynchronous_replication() {
    let text = std::fs::read_to_string(common::scenario("failover/failover-race.toml"))
        .unwrap()
        .replace("replicas = 1\n", "replicas = 2\nmin_replicas_to_write = 1\n");
    assert!(text.contains("min_replicas_to_write"));
    let s = parse_scenario("race-min-replicas.toml", &text).unwrap();
    for seed in 0..100 {
        let r = run_scenario(&s, seed);
        let second = r.violated_at(MUTUAL_EXCLUSION);
        assert_eq!(second["node"], "client-1", "seed {seed}");
        assert!(
            r.all("replica-0", "key_set")
                .iter()
                .any(|k| k["lease"] == second["lease"]),
            "seed {seed}: granted by the promoted replica"
        );
    }
}

/// `everysec` forgets only what the last second wrote: the key client-0 set just before the
/// crash is lost (crash-persistence-everysec), but the same crash three seconds later finds
/// it on disk — where `persistence = "none"` loses it all the same.
#[test]
fn everysec_loses_the_last_second_and_keeps_what_was_synced() {
    let rel = "redlock/crash-persistence-everysec.toml";
    let text = std::fs::read_to_string(common::scenario(rel)).unwrap();
    let lost_in_crash = |r: &Run| {
        r.all("server-2", "key_deleted")
            .iter()
            .filter(|e| e["cause"] == "crash")
            .count()
    };
    let r = run_story(rel, 1);
    let crash = r.first("server-2", "crash");
    let set = r.first("server-2", "key_set");
    assert!(t(crash) - t(set) < S, "the crash comes within the second after the SET");
    assert_eq!(lost_in_crash(&r), 1, "the unsynced key is lost");
    let later = text.replace("after = \"client-0:acquired\"", "after = \"client-0:deadline_checked\"");
    for (persistence, lost) in [("everysec", 0), ("none", 1)] {
        let variant = later.replace("\"everysec\"", &format!("{persistence:?}"));
        let s = parse_scenario("variant.toml", &variant).unwrap();
        let r = run_scenario(&s, 1);
        let crash = r.first("server-2", "crash");
        assert!(t(crash) - t(r.first("server-2", "key_set")) > 2 * S, "{persistence}");
        assert_eq!(
            lost_in_crash(&r),
            lost,
            "{persistence}: key lost in a crash 3 s after the SET"
        );
    }
}

/// `locksim list` documents Redlock, its knobs and their values, the replica knobs of the
/// single-Redis model and the `failover` fault — each in its own section.
#[test]
fn list_shows_redlock_its_knobs_the_replica_and_the_failover_fault() {
    let out = common::locksim(&["list"]);
    assert!(out.status.success());
    let text = common::stdout(&out);
    // A protocol's section: its name line (two spaces in) and the lines below it indented
    // further, up to the next protocol's name line.
    let section = |name: &str| -> String {
        let heading = format!("  {name}");
        let mut lines = text.lines().skip_while(|l| *l != heading);
        assert!(lines.next().is_some(), "`locksim list` lacks the {name} kind");
        lines
            .take_while(|l| l.starts_with("   "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let redlock = section("redlock");
    for needle in [
        "validity = ttl - elapsed - (ttl * drift_factor + 2 ms)",
        "servers              integer 1..=31  (default 5)",
        "clock_drift_factor   decimal 0..=1  (default 0.01)",
        "per_node_timeout_ms  integer 1..=3600000  (default 50)",
        "retry_count          integer 0..=1000000  (default 3)",
        "retry_delay_ms",
        "persistence          \"none\" | \"everysec\" | \"always\"  (default \"none\")",
        "server_clock         \"wall\" | \"monotonic\"  (default \"wall\")",
        "delayed_restart_ms   integer 0..=",
        "fencing_tokens       \"none\" | \"counter\"",
        "elapsed_clock        \"monotonic\" | \"wall\"  (default \"monotonic\")",
    ] {
        assert!(
            redlock.contains(needle),
            "redlock's section lacks {needle:?}:\n{redlock}"
        );
    }
    assert!(!redlock.contains("replication_lag_ms"), "Redlock has no replicas");
    let single = section("single-redis");
    for needle in [
        "replicas             integer 0..=2  (default 0)",
        "min_replicas_to_write integer 0..=2  (default 0)",
        "min_replicas_max_lag integer 0..=3600  (default 10)",
        "replication_lag_ms   integer 0..=",
    ] {
        assert!(
            single.contains(needle),
            "single-redis's section lacks {needle:?}:\n{single}"
        );
    }
    assert!(!single.contains("per_node_timeout_ms"), "{single}");
    assert!(!single.contains("elapsed_clock"), "{single}");
    assert!(
        text.contains("\n  failover    node: promote the replica"),
        "`locksim list` lacks the failover fault"
    );
}

/// A primary refusing writes with `NOREPLICAS` can grant, extend or release nothing: it says it
/// does not serve the lock, and a key it keeps is no rival. With the failover at 25 s, long
/// after server-0 started refusing (~11 s), the promoted replica's holders write while server-0
/// still has a key or none: nothing is stale, and there is no split brain at all.
#[test]
fn a_primary_refusing_writes_for_want_of_replicas_serves_nobody() {
    let text = std::fs::read_to_string(common::scenario(
        "failover/failover-partitioned-primary-min-replicas.toml",
    ))
    .unwrap()
    .replace("at_ms = 5000\n", "at_ms = 25000\n");
    assert!(text.contains("at_ms = 25000"));
    let s = parse_scenario("late-failover-min-replicas.toml", &text).unwrap();
    for seed in 0..100 {
        let r = run_scenario(&s, seed);
        let refusing = r
            .all("server-0", "role_changed")
            .into_iter()
            .find(|e| e["text"].as_str().unwrap_or_default().contains("NOREPLICAS"))
            .unwrap_or_else(|| panic!("seed {seed}: server-0 says it refuses writes"));
        assert!(
            (11 * S..25 * S).contains(&t(refusing)),
            "seed {seed}: from ~11 s: {refusing}"
        );
        let later_writes = r.kind("write_applied").iter().filter(|e| t(e) > 25 * S).count();
        assert!(later_writes > 0, "seed {seed}: the promoted replica's holders write");
        for i in [MUTUAL_EXCLUSION, STALE_WRITE, LOST_UPDATE] {
            assert!(r.held(i), "seed {seed}: {i} {:?}", r.status(i));
        }
    }
}
