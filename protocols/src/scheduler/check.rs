//! `exactly_once`, reading only the history: every `(job, slot)` that fired (some instance
//! recorded `slot_fired`) has exactly one committed effect (the store's `effect_applied`).
//!
//! Two ways to break it: a second effect of a slot (violated at that effect), or none at all
//! for a slot that fired at least `settle_ns` before the end of the run (violated at its first
//! firing) — `settle_ns` is how long its instances keep re-sending it, so a slot fired just
//! before the end is judged only for duplicates.

use std::collections::BTreeMap;

use locksim_sim::check::count;
use locksim_sim::time::{fmt_duration, fmt_secs};
use locksim_sim::{History, Invariant, NodeId, Status, Verdict, Violation};

use super::obs::{SchedMsg, SchedObs};

type SchedHistory = History<SchedMsg, SchedObs>;

pub const EXACTLY_ONCE: Invariant = Invariant::new(
    "exactly_once",
    "each (job, slot) that fired has exactly one committed effect",
);

/// What [`check_exactly_once`] judges, in its verdicts' order.
pub const SCHEDULER_INVARIANTS: &[Invariant] = &[EXACTLY_ONCE];

struct Fired {
    index: usize,
    t_ns: u64,
    by: NodeId,
}

struct FirstEffect {
    t_ns: u64,
    worker: NodeId,
}

pub fn check_exactly_once(h: &SchedHistory, settle_ns: u64) -> Vec<Verdict> {
    vec![Verdict {
        invariant: EXACTLY_ONCE,
        status: exactly_once(h, settle_ns),
    }]
}

fn exactly_once(h: &SchedHistory, settle_ns: u64) -> Status {
    let mut slots = Slots::read(h);
    if slots.fired.is_empty() {
        return Status::NotApplicable("no slot fired".into());
    }
    let missing = slots.first_missing_effect(h, settle_ns);
    let first = [slots.duplicate.take(), missing]
        .into_iter()
        .flatten()
        .min_by_key(|v| v.event);
    if let Some(v) = first {
        return Status::Violated(v);
    }
    Status::Held(slots.held(settle_ns))
}

/// One pass over the history: each slot's first firing and first effect, the first second
/// effect, and the counts the verdict reports.
struct Slots<'h> {
    fired: BTreeMap<(&'h str, i64), Fired>,
    effects: BTreeMap<(&'h str, i64), FirstEffect>,
    firings: usize,
    repeats_stopped: usize,
    instances: Vec<NodeId>,
    duplicate: Option<Violation>,
}

impl<'h> Slots<'h> {
    fn read(h: &'h SchedHistory) -> Self {
        let mut slots = Slots {
            fired: BTreeMap::new(),
            effects: BTreeMap::new(),
            firings: 0,
            repeats_stopped: 0,
            instances: Vec::new(),
            duplicate: None,
        };
        for (index, e, o) in h.observations() {
            match o {
                SchedObs::SlotFired { job, slot, .. } => {
                    slots.firings += 1;
                    if !slots.instances.contains(&e.node) {
                        slots.instances.push(e.node);
                    }
                    slots.fired.entry((job, *slot)).or_insert(Fired {
                        index,
                        t_ns: e.t_ns,
                        by: e.node,
                    });
                }
                SchedObs::EffectApplied { job, slot, worker, .. } => {
                    slots.on_effect(h, index, e.t_ns, (job, *slot), *worker)
                }
                SchedObs::DuplicateSuppressed { .. } | SchedObs::MarkChecked { done: true, .. } => {
                    slots.repeats_stopped += 1
                }
                _ => {}
            }
        }
        slots
    }

    /// Keeps a slot's first effect; a later one is the violation (only the first is kept).
    fn on_effect(&mut self, h: &SchedHistory, index: usize, t_ns: u64, key: (&'h str, i64), worker: NodeId) {
        match self.effects.get(&key) {
            None => {
                self.effects.insert(key, FirstEffect { t_ns, worker });
            }
            Some(first) if self.duplicate.is_none() => {
                let (job, slot) = key;
                self.duplicate = Some(Violation {
                    event: index,
                    t_ns,
                    why: format!(
                        "{} committed a second effect of {job} slot {slot} at {}; {} had committed one at {}",
                        h.names.of(worker),
                        fmt_secs(t_ns),
                        h.names.of(first.worker),
                        fmt_secs(first.t_ns)
                    ),
                });
            }
            Some(_) => {}
        }
    }

    /// The first slot (in key order) that fired at least `settle_ns` before the end and has
    /// no effect.
    fn first_missing_effect(&self, h: &SchedHistory, settle_ns: u64) -> Option<Violation> {
        let settled_by = h.end_ns.saturating_sub(settle_ns);
        self.fired
            .iter()
            .find(|(key, f)| f.t_ns <= settled_by && !self.effects.contains_key(*key))
            .map(|((job, slot), f)| Violation {
                event: f.index,
                t_ns: f.t_ns,
                why: format!(
                    "{job} slot {slot} fired at {} (first by {}) and no effect was committed by the end, {} later",
                    fmt_secs(f.t_ns),
                    h.names.of(f.by),
                    fmt_duration(h.end_ns - f.t_ns)
                ),
            })
    }

    /// What the verdict says when nothing broke: every slot still without an effect fired
    /// within the last `settle_ns`.
    fn held(&self, settle_ns: u64) -> String {
        let unsettled = self.fired.keys().filter(|key| !self.effects.contains_key(*key)).count();
        let mut held = format!(
            "{} fired ({} by {}), each with at most one committed effect",
            count(self.fired.len(), "slot"),
            count(self.firings, "firing"),
            count(self.instances.len(), "instance")
        );
        if unsettled == 0 {
            held = held.replace("at most one", "exactly one");
        } else {
            held.push_str(&format!(
                " ({unsettled} fired in the last {} and not yet run)",
                fmt_duration(settle_ns)
            ));
        }
        held.push_str(&format!(
            "; {} ran nothing",
            count(self.repeats_stopped, "repeated delivery")
        ));
        held
    }
}

#[cfg(test)]
mod tests {
    use locksim_sim::{ClockTrack, Event, Names, Stats, What};

    use super::*;
    use crate::scheduler::obs::JOB;

    use locksim_sim::time::NS_PER_MS;
    const WORKER: NodeId = NodeId(0);
    const SERVER: NodeId = NodeId(1);
    const STORE: NodeId = NodeId(2);

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
        check_exactly_once(h, settle_ms * NS_PER_MS).remove(0).status
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
}
