use std::collections::BTreeSet;

use locksim_sim::What;

use super::test_history::*;
use super::*;
use crate::lock::obs::{ClockKind, Expiry};

#[test]
fn every_lock_invariant_has_an_id_and_a_meaning_of_its_own() {
    let ids: BTreeSet<&str> = LOCK_INVARIANTS.iter().map(|i| i.id()).collect();
    let meanings: BTreeSet<&str> = LOCK_INVARIANTS.iter().map(|i| i.meaning()).collect();
    assert_eq!((ids.len(), meanings.len()), (6, 6), "distinct");
    assert_eq!(MUTUAL_EXCLUSION.id(), "mutual_exclusion");
}

#[test]
fn the_lock_judge_judges_every_lock_invariant_in_order() {
    let h = Hist::new().acquired(0, C0, 1, 10 * S).build();
    let judged: Vec<(Invariant, &str)> = verdicts(&h, &setup(&[S0], 1))
        .iter()
        .map(|v| (v.invariant, v.status.word()))
        .collect();
    assert_eq!(
        judged,
        [
            (MUTUAL_EXCLUSION, "held"),
            (FENCING_ORDER, "not_applicable"),
            (STALE_WRITE, "not_applicable"),
            (LOST_UPDATE, "not_applicable"),
            (TOKEN_MONOTONIC, "not_applicable"),
            (LIVENESS, "held"),
        ]
    );
    let order: Vec<Invariant> = judged.iter().map(|(i, _)| *i).collect();
    assert_eq!(order, LOCK_INVARIANTS);
}

/// A write is judged once its instant has passed: a clock jump recorded later in that instant
/// is in the server's wall clock at the write, as when the whole history is read back.
#[test]
fn a_write_is_judged_with_a_clock_jump_later_in_its_instant() {
    const L0: u64 = 0xa000 << 48;
    let expiry = Some(Expiry {
        clock: ClockKind::Wall,
        at_ns: 10 * S as i64,
    });
    let h = Hist::new()
        .obs(0, C0, LockObs::AcquireStarted { lease: L0, attempt: 1 })
        .obs(S, S0, LockObs::KeySet { lease: L0, expiry })
        .write_under(5 * S, C0, L0)
        .at(5 * S, S0, What::ClockJump { by_ns: 10 * S as i64 });
    let mut h = h.build();
    let before_jump = h.clocks.clone();
    h.clocks[S0.index()].jump(5 * S, 10 * S as i64);
    let setup = setup(&[S0], 1);
    let as_recorded = verdicts_as_recorded(
        &h,
        &setup,
        |i| if i < 3 { before_jump.clone() } else { h.clocks.clone() },
    );
    let why = violated(as_recorded[2].status.clone()).why;
    assert!(
        why.ends_with("server-0 has its key expired (at 10.000 s, its clock reads 15.000 s)"),
        "{why}"
    );
    assert_eq!(as_recorded, verdicts(&h, &setup), "as the whole history reads");
}

/// A holding is judged once its instant has passed: a release later in that instant ends the
/// other client's holding there, and holdings that touch do not overlap.
#[test]
fn a_release_later_in_the_same_instant_ends_the_holding_before_a_new_one() {
    let h = Hist::new()
        .acquired(0, C0, 1, 10 * S)
        .acquired(5 * S, C1, 2, 15 * S)
        .obs(5 * S, C0, LockObs::Released { lease: 1 })
        .build();
    let status = judge(&h, &setup(&[S0], 1), MUTUAL_EXCLUSION);
    assert_eq!(held(status), "2 holding intervals of 2 clients, none overlapping");
}

/// Two clients taking turns for 10,000 rounds, renewing once each time: the judge keeps a handful of holdings, writes and keys, not the rounds.
#[test]
fn a_long_run_keeps_what_is_open_not_what_happened() {
    const ROUNDS: u64 = 10_000;
    let mut h = Hist::new();
    for round in 0..ROUNDS {
        let (t, client, lease) = (round * 10 * S, [C0, C1][round as usize % 2], round + 1);
        h = h
            .acquired(t, client, lease, t + 5 * S)
            .obs(t + S, S0, LockObs::KeySet { lease, expiry: None })
            .obs(
                t + 2 * S,
                client,
                LockObs::Renewed {
                    deadline_mono_ns: t + 8 * S,
                },
            )
            .write_under(t + 3 * S, client, lease)
            .obs(
                t + 4 * S,
                S0,
                LockObs::KeyDeleted {
                    lease,
                    cause: crate::lock::obs::DeleteCause::Release,
                },
            )
            .obs(t + 4 * S, client, LockObs::Released { lease });
    }
    let h = h.end(ROUNDS * 10 * S).build();
    let setup = setup(&[S0], 1);
    let mut judge = LockJudge::new(setup);
    let mut most = 0;
    for (index, e) in h.events.iter().enumerate() {
        Judge::<(), LockObs>::see(&mut judge, index, e, &h.clocks);
        most = most.max(judge.kept());
    }
    assert!(most <= 12, "kept {most}");
    let verdicts = Judge::<(), LockObs>::verdicts(judge, &run_end(&h));
    let words: Vec<&str> = verdicts.iter().map(|v| v.status.word()).collect();
    assert_eq!(
        words,
        ["held", "not_applicable", "held", "held", "not_applicable", "held"]
    );
    assert_eq!(
        held(verdicts[0].status.clone()),
        "20000 holding intervals of 2 clients, none overlapping"
    );
}
