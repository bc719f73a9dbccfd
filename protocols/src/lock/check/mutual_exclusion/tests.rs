use crate::lock::check::MUTUAL_EXCLUSION;
use crate::lock::check::test_history::*;
use crate::lock::obs::LockObs;
use locksim_sim::What;

fn judged(h: &LockHistory) -> locksim_sim::check::Status {
    judge(h, &setup(&[S0], 1), MUTUAL_EXCLUSION)
}

fn released(h: Hist, t_ns: u64, client: locksim_sim::NodeId) -> Hist {
    h.obs(t_ns, client, LockObs::Released { lease: 0 })
}

/// DESIGN 5: a client holds from its acquire *until* the release is sent, its deadline
/// passes, or loss is detected — at that instant it no longer holds. Intervals are
/// half-open, so one that ends at t and one that starts at t do not overlap: the lock
/// passed from hand to hand, which is what a lock is for.
#[test]
fn touching_intervals_do_not_overlap_one_nanosecond_more_does() {
    let h = released(Hist::new().acquired(0, C0, 1, 10 * S), 5 * S, C0)
        .acquired(5 * S, C1, 2, 15 * S)
        .build();
    assert_eq!(held(judged(&h)), "2 holding intervals of 2 clients, none overlapping");
    let h = Hist::new().acquired(0, C0, 1, 10 * S).acquired(5 * S, C1, 2, 15 * S);
    let h = released(h, 5 * S + 1, C0).build();
    let v = violated(judged(&h));
    assert_eq!((v.event, v.t_ns), (3, 5 * S));
    assert_eq!(
        v.why,
        "client-1 acquired the lock at 5.000 s while client-0 still held it (since 0.000 s, until 5.000 s)"
    );
}

#[test]
fn the_local_deadline_ends_a_holding_exactly_when_the_clock_reaches_it() {
    let h = Hist::new()
        .acquired(0, C0, 1, 10 * S)
        .acquired(10 * S, C1, 2, 20 * S)
        .build();
    assert!(held(judged(&h)).starts_with("2 holding intervals"));
    let h = Hist::new()
        .acquired(0, C0, 1, 10 * S)
        .acquired(10 * S - 1, C1, 2, 20 * S)
        .build();
    let v = violated(judged(&h));
    assert_eq!((v.event, v.t_ns), (3, 10 * S - 1), "at client-1's acquired");
    assert!(v.why.ends_with("until 10.000 s)"), "{}", v.why);
}

#[test]
fn a_suspended_clock_reaches_the_deadline_later_in_true_time() {
    let mut h = Hist::new()
        .acquired(0, C0, 1, 10 * S)
        .acquired(12 * S, C1, 2, 30 * S)
        .build();
    h.clocks[C0.index()].suspend(2 * S, 5 * S);
    let v = violated(judged(&h));
    assert!(v.why.ends_with("until 13.000 s)"), "{}", v.why);
}

#[test]
fn loss_and_crash_end_a_holding_at_their_instant() {
    let lost = LockObs::LockLost {
        why: "lease revoked".into(),
    };
    let h = Hist::new()
        .acquired(0, C0, 1, 10 * S)
        .obs(3 * S, C0, lost)
        .acquired(3 * S, C1, 2, 20 * S)
        .build();
    assert!(held(judged(&h)).starts_with("2 holding"));
    let crash = What::Crash {
        restart_after_ns: Some(S),
    };
    let h = Hist::new()
        .acquired(0, C0, 1, 10 * S)
        .at(3 * S, C0, crash)
        .acquired(3 * S, C1, 2, 20 * S)
        .build();
    assert!(held(judged(&h)).starts_with("2 holding"));
}

#[test]
fn a_holding_with_no_deadline_lasts_to_the_end_of_the_run() {
    let h = Hist::new()
        .acquired_untracked(0, C0, 1)
        .acquired(90 * S, C1, 2, 95 * S)
        .end(100 * S)
        .build();
    let v = violated(judged(&h));
    assert!(v.why.ends_with("(since 0.000 s, until 100.000 s)"), "{}", v.why);
}

#[test]
fn a_renewal_by_a_client_that_lost_the_lock_overlaps_the_new_holder() {
    let h = Hist::new()
        .acquired(0, C0, 1, 10 * S)
        .acquired(10 * S, C1, 2, 30 * S)
        .obs(
            12 * S,
            C0,
            LockObs::Renewed {
                deadline_mono_ns: 22 * S,
            },
        )
        .build();
    let v = violated(judged(&h));
    assert_eq!(
        v.why,
        "client-0 renewed the lock at 12.000 s while client-1 still held it (since 10.000 s, until 30.000 s)"
    );
    // A client's own renewals overlap its own holding, which is no violation.
    let h = Hist::new()
        .acquired(0, C0, 1, 10 * S)
        .obs(
            8 * S,
            C0,
            LockObs::Renewed {
                deadline_mono_ns: 18 * S,
            },
        )
        .build();
    assert_eq!(held(judged(&h)), "2 holding intervals of 1 client, none overlapping");
}

#[test]
fn two_acquisitions_at_one_instant_overlap() {
    let h = Hist::new()
        .acquired(S, C1, 2, 10 * S)
        .acquired(S, C0, 1, 10 * S)
        .build();
    let v = violated(judged(&h));
    assert!(
        v.why
            .starts_with("client-0 acquired the lock at 1.000 s while client-1"),
        "{}",
        v.why
    );
}

#[test]
fn only_clients_hold_and_an_empty_holding_is_none() {
    // A server recording an acquisition (no model does) is not a client.
    let h = Hist::new().acquired(0, S0, 1, 10 * S).build();
    assert_eq!(not_applicable(judged(&h)), "no client ever held the lock");
    // Released the instant it was acquired: held nothing.
    let h = released(Hist::new().acquired(S, C0, 1, 10 * S), S, C0).build();
    assert_eq!(not_applicable(judged(&h)), "no client ever held the lock");
    let h = released(Hist::new().acquired(S, C0, 1, 10 * S), S + 1, C0).build();
    assert_eq!(held(judged(&h)), "1 holding interval of 1 client, none overlapping");
}
