//! `exactly_once`, reading only the history: every `(job, slot)` that fired (some instance
//! recorded `slot_fired`) has exactly one committed effect (the store's `effect_applied`).
//!
//! Two ways to break it: a second effect of a slot (violated at that effect), or none at all
//! for a slot that fired at least `settle_ns` before the end of the run (violated at its first
//! firing) — `settle_ns` is how long its instances keep re-sending it, so a slot fired just
//! before the end is judged only for duplicates.

use std::collections::BTreeMap;

use locksim_sim::time::{fmt_duration, fmt_secs};
use locksim_sim::{History, Invariant, NodeId, Status, Verdict, Violation};

use super::obs::{SchedMsg, SchedObs};

type SchedHistory = History<SchedMsg, SchedObs>;

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
        invariant: Invariant::ExactlyOnce,
        status: exactly_once(h, settle_ns),
    }]
}

fn exactly_once(h: &SchedHistory, settle_ns: u64) -> Status {
    let mut fired: BTreeMap<(&str, i64), Fired> = BTreeMap::new();
    let mut effects: BTreeMap<(&str, i64), FirstEffect> = BTreeMap::new();
    let (mut firings, mut repeats_stopped) = (0, 0);
    let mut instances: Vec<NodeId> = Vec::new();
    let mut duplicate: Option<Violation> = None;
    for (index, e, o) in h.observations() {
        match o {
            SchedObs::SlotFired { job, slot, .. } => {
                firings += 1;
                if !instances.contains(&e.node) {
                    instances.push(e.node);
                }
                fired.entry((job, *slot)).or_insert(Fired {
                    index,
                    t_ns: e.t_ns,
                    by: e.node,
                });
            }
            SchedObs::EffectApplied { job, slot, worker, .. } => match effects.get(&(job, *slot)) {
                None => {
                    effects.insert(
                        (job, *slot),
                        FirstEffect {
                            t_ns: e.t_ns,
                            worker: *worker,
                        },
                    );
                }
                Some(first) if duplicate.is_none() => {
                    duplicate = Some(Violation {
                        event: index,
                        t_ns: e.t_ns,
                        why: format!(
                            "{} committed a second effect of {job} slot {slot} at {}; {} had committed one at {}",
                            h.names.of(*worker),
                            fmt_secs(e.t_ns),
                            h.names.of(first.worker),
                            fmt_secs(first.t_ns)
                        ),
                    });
                }
                Some(_) => {}
            },
            SchedObs::DuplicateSuppressed { .. } | SchedObs::MarkChecked { done: true, .. } => repeats_stopped += 1,
            _ => {}
        }
    }
    if fired.is_empty() {
        return Status::NotApplicable("no slot fired".into());
    }
    let settled_by = h.end_ns.saturating_sub(settle_ns);
    let missing = fired
        .iter()
        .find(|(key, f)| f.t_ns <= settled_by && !effects.contains_key(*key))
        .map(|((job, slot), f)| Violation {
            event: f.index,
            t_ns: f.t_ns,
            why: format!(
                "{job} slot {slot} fired at {} (first by {}) and no effect was committed by the end, {} later",
                fmt_secs(f.t_ns),
                h.names.of(f.by),
                fmt_duration(h.end_ns - f.t_ns)
            ),
        });
    let first = [duplicate, missing].into_iter().flatten().min_by_key(|v| v.event);
    if let Some(v) = first {
        return Status::Violated(v);
    }
    let unsettled = fired
        .iter()
        .filter(|(key, f)| f.t_ns > settled_by && !effects.contains_key(*key))
        .count();
    let mut held = format!(
        "{} slots fired ({firings} firings by {} instances), each with at most one committed effect",
        fired.len(),
        instances.len()
    );
    if unsettled == 0 {
        held = held.replace("at most one", "exactly one");
    } else {
        held.push_str(&format!(
            " ({unsettled} fired in the last {} and not yet run)",
            fmt_duration(settle_ns)
        ));
    }
    held.push_str(&format!("; {repeats_stopped} repeated deliveries ran nothing"));
    Status::Held(held)
}

#[cfg(test)]
mod tests {
    use locksim_sim::{ClockTrack, Event, Names, Stats, What};

    use super::*;
    use crate::scheduler::obs::JOB;

    const MS: u64 = 1_000_000;
    const WORKER: NodeId = NodeId(0);
    const SERVER: NodeId = NodeId(1);
    const STORE: NodeId = NodeId(2);

    fn history(end_ms: u64, obs: Vec<(u64, NodeId, SchedObs)>) -> SchedHistory {
        History {
            names: Names::new(vec!["client-0".into(), "server-0".into(), "resource".into()]),
            events: obs
                .into_iter()
                .map(|(ms, node, o)| Event {
                    t_ns: ms * MS,
                    node,
                    wall_ns: (ms * MS) as i64,
                    mono_ns: ms * MS,
                    what: What::Observe(o),
                })
                .collect(),
            clocks: vec![ClockTrack::default(); 3],
            end_ns: end_ms * MS,
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
        check_exactly_once(h, settle_ms * MS).remove(0).status
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
        assert_eq!((v.event, v.t_ns), (2, 13_005 * MS));
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
}
