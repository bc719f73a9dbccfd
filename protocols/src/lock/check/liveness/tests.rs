use locksim_sim::NodeId;
use locksim_sim::What;
use locksim_sim::check::Status;

use crate::lock::check::LIVENESS;
use crate::lock::check::LockSetup;
use crate::lock::check::test_history::*;
use crate::lock::obs::{ClockKind, Expiry, LockObs};

fn judged(h: Hist, setup: &LockSetup) -> Status {
    judge(&h.build(), setup, LIVENESS)
}

/// One server, quorum 1.
fn single(h: Hist) -> Status {
    judged(h, &setup(&[S0], 1))
}

fn jump(h: Hist, t_ns: u64) -> Hist {
    h.at(t_ns, C1, What::ClockJump { by_ns: 1 })
}

fn crash_for_good(h: Hist, t_ns: u64, node: NodeId) -> Hist {
    h.at(t_ns, node, What::Crash { restart_after_ns: None })
}

fn role(h: Hist, t_ns: u64, node: NodeId, authoritative: bool) -> Hist {
    let role = if authoritative {
        "promoted to primary"
    } else {
        "replica"
    };
    h.obs(
        t_ns,
        node,
        LockObs::RoleChanged {
            authoritative,
            role: role.into(),
        },
    )
}

#[test]
fn with_no_fault_the_window_runs_from_the_start_and_says_so() {
    let h = Hist::new().acquired(4 * NS_PER_MS, C0, 1, 10 * S);
    assert_eq!(held(single(h)), "client-0 acquired at 0.004 s, no fault fired");
    let v = violated(single(Hist::new().acquired(31 * S, C0, 1, 40 * S)));
    assert_eq!(
        v.why,
        "no fault fired, and no client acquired the lock within 30 s from the start"
    );
    let h = Hist::new().end(29 * S);
    assert_eq!(
        not_applicable(single(h)),
        "no fault fired, and the run ends at 29.000 s, before the liveness window (30 s from the start) closes"
    );
}

#[test]
fn a_window_closing_exactly_at_the_end_is_judged() {
    // The run includes its last instant, so the whole window was seen.
    let v = violated(single(jump(Hist::new(), 10 * S).end(40 * S)));
    assert_eq!((v.event, v.t_ns), (0, 40 * S));
    assert_eq!(
        v.why,
        "no client acquired the lock within 30 s after the faults ended at 10.000 s"
    );
    let why = not_applicable(single(jump(Hist::new(), 10 * S).end(40 * S - 1)));
    assert_eq!(
        why,
        "the run ends at 39.999 s, before the liveness window (30 s after the faults ended at 10.000 s) closes"
    );
}

#[test]
fn an_acquisition_counts_from_the_end_of_the_fault_to_the_close_of_the_window() {
    let h = jump(Hist::new(), 10 * S).acquired(40 * S, C0, 1, 50 * S);
    assert_eq!(
        held(single(h)),
        "client-0 acquired at 40.000 s, 30 s after the faults ended"
    );
    let h = jump(Hist::new(), 10 * S).acquired(40 * S + 1, C0, 1, 50 * S);
    let v = violated(single(h));
    assert_eq!(
        (v.event, v.t_ns),
        (0, 40 * S),
        "the last event before the window closed"
    );
    // At the fault's instant: only after its event.
    let h = jump(Hist::new().acquired(10 * S, C0, 1, 20 * S), 10 * S);
    assert!(matches!(single(h), Status::Violated(_)), "acquired before the fault");
    let h = jump(Hist::new(), 10 * S).acquired(10 * S, C0, 1, 20 * S);
    assert_eq!(
        held(single(h)),
        "client-0 acquired at 10.000 s, 0 ms after the faults ended"
    );
}

#[test]
fn the_last_fault_to_end_starts_the_window() {
    // A delay window's last messages are in flight until window + extra.
    let delay = What::Delay {
        fault: 0,
        from: C0,
        to: S0,
        window_ns: 5 * S,
        extra_ns: S,
    };
    let h = jump(Hist::new().at(S, S0, delay.clone()), 3 * S).acquired(7 * S - 1, C0, 1, 20 * S);
    let v = violated(single(h));
    assert!(v.why.ends_with("after the faults ended at 7.000 s"), "{}", v.why);
    let h = jump(Hist::new().at(S, S0, delay), 3 * S).acquired(7 * S, C0, 1, 20 * S);
    assert!(held(single(h)).ends_with("0 ms after the faults ended"));
    // Each closing event ends its fault.
    let ends = [
        (
            What::Pause {
                duration_ns: S,
                suspend: false,
            },
            What::Resume,
        ),
        (
            What::Crash {
                restart_after_ns: Some(S),
            },
            What::Restart,
        ),
        (
            What::Partition {
                fault: 1,
                groups: vec![vec![C0], vec![S0]],
                one_way: false,
            },
            What::Heal { fault: 1 },
        ),
        (
            What::Lossy {
                fault: 2,
                from: None,
                to: None,
                ppm: 1,
                duplicate: false,
            },
            What::WindowEnd { fault: 2 },
        ),
    ];
    for (open, close) in ends {
        let h = Hist::new()
            .at(S, C0, open)
            .at(4 * S, C0, close)
            .acquired(4 * S, C1, 2, 9 * S);
        assert_eq!(
            held(single(h)),
            "client-1 acquired at 4.000 s, 0 ms after the faults ended"
        );
    }
    let h = Hist::new()
        .at(S, S0, What::Failover { primary: S0 })
        .acquired(2 * S, C1, 2, 9 * S);
    assert!(held(single(h)).ends_with("1 s after the faults ended"));
}

#[test]
fn a_fault_still_open_at_the_end_makes_liveness_not_applicable() {
    let cases = [
        (
            What::Pause {
                duration_ns: S,
                suspend: true,
            },
            "client-0 is still paused when the run ends",
        ),
        (
            What::Crash {
                restart_after_ns: Some(S),
            },
            "client-0 has not restarted when the run ends",
        ),
        (
            What::Partition {
                fault: 1,
                groups: vec![vec![C0], vec![S0]],
                one_way: true,
            },
            "a partition never heals",
        ),
        (
            What::Lossy {
                fault: 2,
                from: Some(C0),
                to: None,
                ppm: 1,
                duplicate: true,
            },
            "message loss never ends",
        ),
    ];
    for (open, why) in cases {
        let h = Hist::new().at(S, C0, open).acquired(2 * S, C1, 2, 9 * S);
        assert_eq!(not_applicable(single(h)), why);
    }
}

#[test]
fn a_client_crashing_for_good_is_a_fault_that_ends_at_the_crash() {
    let h = crash_for_good(Hist::new(), S, C0).acquired(2 * S, C1, 2, 9 * S);
    assert_eq!(
        held(single(h)),
        "client-1 acquired at 2.000 s, 1 s after the faults ended"
    );
}

#[test]
fn a_server_crashing_for_good_blocks_liveness_only_when_nobody_else_serves_the_lock() {
    let primary_and_replica = setup(&[S0, S1], 1);
    // The replica never serves: nobody can be granted the lock.
    let h = role(Hist::new(), 0, S1, false);
    let h = crash_for_good(h, S, S0).acquired(2 * S, C1, 2, 9 * S);
    assert_eq!(
        not_applicable(judged(h, &primary_and_replica)),
        "server-0 crashed and never restarts, and no other server serves the lock"
    );
    // The failover-race: the replica is promoted and serves; liveness is judged.
    let h = role(Hist::new(), 0, S1, false);
    let h = role(crash_for_good(h, S, S0), S, S1, true).acquired(2 * S, C1, 2, 9 * S);
    assert_eq!(
        held(judged(h, &primary_and_replica)),
        "client-1 acquired at 2.000 s, 1 s after the faults ended"
    );
    // Promoted, then demoted again: it does not serve at the end.
    let h = role(role(Hist::new(), 0, S1, false), S, S1, true);
    let h = role(crash_for_good(h, 2 * S, S0), 3 * S, S1, false);
    assert!(matches!(judged(h, &primary_and_replica), Status::NotApplicable(_)));
}

#[test]
fn redlock_stays_live_while_the_servers_left_make_a_quorum() {
    let three = setup(&[S0, S1, S2], 2);
    let h = crash_for_good(Hist::new(), S, S0).acquired(2 * S, C1, 2, 9 * S);
    assert!(held(judged(h, &three)).starts_with("client-1 acquired at 2.000 s"));
    let h = crash_for_good(crash_for_good(Hist::new(), S, S2), S, S0).acquired(2 * S, C1, 2, 9 * S);
    assert_eq!(
        not_applicable(judged(h, &three)),
        "server-2 crashed and never restarts: 1 server serves the lock, fewer than the quorum of 2"
    );
    // Unavailable (a delayed restart that never ends) counts for nobody either.
    let h = role(crash_for_good(Hist::new(), S, S0), S, S1, false);
    assert_eq!(
        not_applicable(judged(h, &three)),
        "server-0 crashed and never restarts: 1 server serves the lock, fewer than the quorum of 2"
    );
    let five = setup(&[S0, S1, S2, C0, C1], 4);
    let h = crash_for_good(crash_for_good(Hist::new(), S, S1), S, S0);
    assert!(not_applicable(judged(h, &five)).ends_with(": 3 servers serve the lock, fewer than the quorum of 4"));
}

#[test]
fn a_violation_names_a_key_leaked_without_expiry() {
    let leaked = LockObs::KeySet { lease: 1, expiry: None };
    let h = jump(Hist::new().acquired_untracked(0, C0, 1).obs(0, S0, leaked), S);
    let v = violated(single(h));
    assert_eq!(
        v.why,
        "no client acquired the lock within 30 s after the faults ended at 1.000 s: server-0's lock key for client-0 has no expiry"
    );
    // A key with an expiry, or one deleted before the window closes, is no leak.
    let expiring = Some(Expiry {
        clock: ClockKind::Wall,
        at_ns: 200 * S as i64,
    });
    let h = jump(Hist::new().obs(0, S0, LockObs::KeySet { lease: 1, expiry: None }), S).obs(
        2 * S,
        S0,
        LockObs::KeyExtended {
            lease: 1,
            expiry: expiring,
        },
    );
    assert!(violated(single(h)).why.ends_with("1.000 s"));
    let gone = LockObs::KeyDeleted {
        lease: 1,
        cause: crate::lock::obs::DeleteCause::PlainDel,
    };
    let h = jump(Hist::new().obs(0, S0, LockObs::KeySet { lease: 1, expiry: None }), S).obs(31 * S, S0, gone);
    assert!(violated(single(h)).why.ends_with("1.000 s"));
    let h = jump(Hist::new().obs(0, S0, LockObs::KeySet { lease: 7, expiry: None }), S);
    assert!(
        violated(single(h))
            .why
            .ends_with("lock key for an unknown owner has no expiry")
    );
    let gone = LockObs::KeyExpired { lease: 1 };
    let h = jump(Hist::new().obs(0, S0, LockObs::KeySet { lease: 1, expiry: None }), S).obs(31 * S, S0, gone);
    assert!(violated(single(h)).why.ends_with("1.000 s"));
    let gone = LockObs::KeyExpired { lease: 1 };
    let h = jump(Hist::new().obs(0, S0, LockObs::KeySet { lease: 1, expiry: None }), S).obs(32 * S, S0, gone);
    assert!(
        violated(single(h)).why.ends_with("has no expiry"),
        "deleted after the window closed"
    );
}
