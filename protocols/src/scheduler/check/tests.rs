use locksim_sim::{History, Stats};

use super::*;
use crate::judge::judge_history;
use crate::scheduler::obs::JOB;

use locksim_sim::time::NS_PER_MS;
const WORKER: NodeId = NodeId(0);
const SERVER: NodeId = NodeId(1);
const STORE: NodeId = NodeId(2);

type SchedHistory = History<SchedMsg, SchedObs>;

fn history(end_ms: u64, obs: Vec<(u64, NodeId, SchedObs)>) -> SchedHistory {
    History {
        names: Names::new(vec!["client-0".into(), "server-0".into(), "resource".into()]),
        events: obs
            .into_iter()
            .map(|(ms, node, o)| Event {
                t_ns: ms * NS_PER_MS,
                node,
                wall_ns: (ms * NS_PER_MS) as i64,
                mono_ns: ms * NS_PER_MS,
                what: What::Observe(o),
            })
            .collect(),
        clocks: vec![ClockTrack::default(); 3],
        end_ns: end_ms * NS_PER_MS,
        stats: Stats::default(),
    }
}

fn fired(ms: u64, slot: i64) -> (u64, NodeId, SchedObs) {
    let obs = SchedObs::SlotFired {
        job: JOB,
        slot,
        worker: WORKER,
    };
    (ms, SERVER, obs)
}

fn effect(ms: u64, slot: i64, nth: u32) -> (u64, NodeId, SchedObs) {
    let obs = SchedObs::EffectApplied {
        job: JOB,
        slot,
        worker: WORKER,
        nth,
        counter: 0,
    };
    (ms, STORE, obs)
}

fn status(h: &SchedHistory, settle_ms: u64) -> Status {
    judge_history(ExactlyOnceJudge::new(settle_ms * NS_PER_MS), h)
        .remove(0)
        .status
}

#[test]
fn a_second_effect_is_violated_at_that_effect() {
    let h = history(
        60_000,
        vec![fired(10_000, 1), effect(10_005, 1, 1), effect(13_005, 1, 2)],
    );
    let Status::Violated(v) = status(&h, 5_000) else {
        panic!()
    };
    assert_eq!((v.event, v.t_ns), (2, 13_005 * NS_PER_MS));
}

#[test]
fn a_settled_slot_without_an_effect_is_violated_an_unsettled_one_is_not_judged() {
    let h = history(60_000, vec![fired(10_000, 1), effect(10_005, 1, 1), fired(50_000, 5)]);
    let Status::Violated(v) = status(&h, 5_000) else {
        panic!("slot 5 had 10 s to run")
    };
    assert_eq!(v.event, 2);
    assert!(v.why.contains("slot 5 fired at 50.000 s"), "{}", v.why);
    let Status::Held(why) = status(&h, 15_000) else {
        panic!("slot 5 is still within its retry window")
    };
    assert!(
        why.contains("at most one") && why.contains("1 fired in the last 15 s"),
        "{why}"
    );
    let h = history(60_000, vec![effect(10_005, 1, 1)]);
    assert!(matches!(status(&h, 5_000), Status::NotApplicable(_)));
}

#[test]
fn a_slot_fired_exactly_settle_before_the_end_is_judged_for_its_effect() {
    // Fired at 55 s, settle 5 s, end 60 s: its instances had their whole retry window.
    let h = history(60_000, vec![fired(55_000, 1)]);
    let Status::Violated(v) = status(&h, 5_000) else {
        panic!("settled at the end")
    };
    assert_eq!(
        v.why,
        "settle slot 1 fired at 55.000 s (first by server-0) and no effect was committed by the end, 5 s later"
    );
    let h = history(60_000, vec![fired(55_001, 1)]);
    let Status::Held(why) = status(&h, 5_000) else {
        panic!("not settled yet")
    };
    assert!(why.contains("(1 fired in the last 5 s and not yet run)"), "{why}");
    // Fired as late, but run: nothing is left unsettled.
    let h = history(60_000, vec![fired(55_001, 1), effect(55_005, 1, 1)]);
    let Status::Held(why) = status(&h, 5_000) else { panic!() };
    assert!(why.contains("exactly one") && !why.contains("not yet run"), "{why}");
}

#[test]
fn the_held_verdict_counts_slots_firings_instances_and_stopped_repeats() {
    let suppressed = SchedObs::DuplicateSuppressed {
        job: JOB,
        slot: 1,
        worker: WORKER,
    };
    let h = history(
        60_000,
        vec![
            fired(10_000, 1),
            (
                10_001,
                WORKER,
                SchedObs::SlotFired {
                    job: JOB,
                    slot: 1,
                    worker: WORKER,
                },
            ),
            effect(10_005, 1, 1),
            (10_006, STORE, suppressed),
            (10_007, WORKER, SchedObs::MarkChecked { slot: 1, done: true }),
            (10_008, WORKER, SchedObs::MarkChecked { slot: 1, done: false }),
        ],
    );
    let Status::Held(why) = status(&h, 5_000) else { panic!() };
    assert_eq!(
        why,
        "1 slot fired (2 firings by 2 instances), each with exactly one committed effect; 2 repeated deliveries ran nothing"
    );
    let h = history(
        60_000,
        vec![
            fired(10_000, 1),
            effect(10_005, 1, 1),
            fired(20_000, 2),
            effect(20_005, 2, 1),
        ],
    );
    let Status::Held(why) = status(&h, 5_000) else { panic!() };
    assert_eq!(
        why,
        "2 slots fired (2 firings by 1 instance), each with exactly one committed effect; 0 repeated deliveries ran nothing"
    );
}

#[test]
fn the_earliest_of_a_duplicate_and_a_missing_effect_is_reported() {
    // Slot 2 fired (event 1) before slot 1's second effect (event 3).
    let h = history(
        60_000,
        vec![
            fired(10_000, 1),
            fired(11_000, 2),
            effect(12_000, 1, 1),
            effect(13_000, 1, 2),
        ],
    );
    let Status::Violated(v) = status(&h, 5_000) else {
        panic!()
    };
    assert_eq!(v.event, 1, "{}", v.why);
    // The second effect (event 2) before slot 2 fired (event 3); a third effect adds nothing.
    let h = history(
        60_000,
        vec![
            fired(10_000, 1),
            effect(12_000, 1, 1),
            effect(13_000, 1, 2),
            fired(14_000, 2),
            effect(15_000, 1, 3),
        ],
    );
    let Status::Violated(v) = status(&h, 5_000) else {
        panic!()
    };
    assert_eq!((v.event, v.t_ns), (2, 13_000 * NS_PER_MS));
}

#[test]
fn a_slot_whose_effect_was_seen_before_its_firing_counts_once_as_fired_and_run() {
    let h = history(60_000, vec![effect(10_005, 1, 1), fired(10_010, 1), fired(10_020, 1)]);
    let Status::Held(why) = status(&h, 5_000) else { panic!() };
    assert_eq!(
        why,
        "1 slot fired (2 firings by 1 instance), each with exactly one committed effect; 0 repeated deliveries ran nothing"
    );
}

#[test]
fn effects_committed_out_of_slot_order_are_all_found_again() {
    let h = history(
        60_000,
        vec![
            fired(10_000, 1),
            fired(20_000, 2),
            effect(20_005, 2, 1),
            effect(20_006, 1, 1),
            effect(20_007, 2, 2),
        ],
    );
    let Status::Violated(v) = status(&h, 5_000) else {
        panic!()
    };
    assert_eq!(
        (v.event, v.why.as_str()),
        (
            4,
            "client-0 committed a second effect of settle slot 2 at 20.007 s; client-0 had committed one at 20.005 s"
        )
    );
}
