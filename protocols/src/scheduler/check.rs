//! `exactly_once`, judged as the run goes: every `(job, slot)` that fired (some instance
//! recorded `slot_fired`) has exactly one committed effect (the store's `effect_applied`).
//!
//! Two ways to break it: a second effect of a slot (violated at that effect), or none at all
//! for a slot that fired at least `settle_ns` before the end of the run (violated at its first
//! firing) — `settle_ns` is how long its instances keep re-sending it, so a slot fired just
//! before the end is judged only for duplicates.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use locksim_sim::check::count;
use locksim_sim::time::{fmt_duration, fmt_secs};
use locksim_sim::{ClockTrack, Event, Invariant, Names, NodeId, RunEnd, Status, Verdict, Violation, What};

use super::obs::{SchedMsg, SchedObs};
use crate::judge::Judge;

pub const EXACTLY_ONCE: Invariant = Invariant::new(
    "exactly_once",
    "each (job, slot) that fired has exactly one committed effect",
);

/// What [`ExactlyOnceJudge`] judges, in its verdicts' order.
pub const SCHEDULER_INVARIANTS: &[Invariant] = &[EXACTLY_ONCE];

/// A slot: its job and number.
type Slot = (&'static str, i64);

/// A slot's first firing.
struct Fired {
    index: usize,
    t_ns: u64,
    by: NodeId,
}

/// A slot's first committed effect.
struct FirstEffect {
    t_ns: u64,
    worker: NodeId,
    /// Whether the slot had fired by then or has since (it counts among the slots fired).
    fired: bool,
}

/// A second effect of a slot.
struct Duplicate {
    index: usize,
    t_ns: u64,
    slot: Slot,
    worker: NodeId,
    first_ns: u64,
    first_worker: NodeId,
}

/// `exactly_once`, fed one event at a time.
///
/// What it keeps: the slots that fired and have no effect yet, with their first firing (in a
/// healthy run only those whose job is in flight: a few per retry window; a slot that never
/// gets its effect stays, as the violation it may turn out to be); every slot that committed
/// an effect, with the time and worker of its first, 24 bytes each (a second effect may come
/// at any later time, and its message names the first), so this grows with the slots run, one
/// per period, and not with the events of each; the first second effect; and the counts the
/// verdict reports.
pub struct ExactlyOnceJudge {
    settle_ns: u64,
    pending: BTreeMap<Slot, Fired>,
    /// Per job, its slots' first effects sorted by slot. Slots commit in about increasing
    /// order, so an insertion is nearly always a push: a flat vector, not a map's nodes.
    effects: Vec<(&'static str, Vec<(i64, FirstEffect)>)>,
    slots_fired: usize,
    firings: usize,
    repeats_stopped: usize,
    instances: Vec<NodeId>,
    duplicate: Option<Duplicate>,
}

impl ExactlyOnceJudge {
    /// A judge for a scheduler whose instances keep re-sending a slot for `settle_ns`.
    pub fn new(settle_ns: u64) -> Self {
        ExactlyOnceJudge {
            settle_ns,
            pending: BTreeMap::new(),
            effects: Vec::new(),
            slots_fired: 0,
            firings: 0,
            repeats_stopped: 0,
            instances: Vec::new(),
            duplicate: None,
        }
    }

    fn on_fired(&mut self, index: usize, t_ns: u64, slot: Slot, by: NodeId) {
        self.firings += 1;
        if !self.instances.contains(&by) {
            self.instances.push(by);
        }
        let effects = slots_of(&mut self.effects, slot.0);
        match effects.binary_search_by_key(&slot.1, |(s, _)| *s) {
            Ok(i) if !effects[i].1.fired => {
                effects[i].1.fired = true;
                self.slots_fired += 1;
            }
            Ok(_) => {}
            Err(_) => {
                if let Entry::Vacant(v) = self.pending.entry(slot) {
                    v.insert(Fired { index, t_ns, by });
                    self.slots_fired += 1;
                }
            }
        }
    }

    /// Keeps a slot's first effect; a later one is the violation (only the first is kept).
    fn on_effect(&mut self, index: usize, t_ns: u64, slot: Slot, worker: NodeId) {
        let effects = slots_of(&mut self.effects, slot.0);
        match effects.binary_search_by_key(&slot.1, |(s, _)| *s) {
            Err(i) => {
                let fired = self.pending.remove(&slot).is_some();
                effects.insert(i, (slot.1, FirstEffect { t_ns, worker, fired }));
            }
            Ok(i) if self.duplicate.is_none() => {
                let first = &effects[i].1;
                self.duplicate = Some(Duplicate {
                    index,
                    t_ns,
                    slot,
                    worker,
                    first_ns: first.t_ns,
                    first_worker: first.worker,
                });
            }
            Ok(_) => {}
        }
    }

    fn status(&self, end: &RunEnd) -> Status {
        if self.slots_fired == 0 {
            return Status::NotApplicable("no slot fired".into());
        }
        let duplicate = self.duplicate.as_ref().map(|d| d.violation(&end.names));
        let first = [duplicate, self.first_missing_effect(end)]
            .into_iter()
            .flatten()
            .min_by_key(|v| v.event);
        match first {
            Some(v) => Status::Violated(v),
            None => Status::Held(self.held()),
        }
    }

    /// The first slot (in key order) that fired at least `settle_ns` before the end and has
    /// no effect.
    fn first_missing_effect(&self, end: &RunEnd) -> Option<Violation> {
        let settled_by = end.end_ns.saturating_sub(self.settle_ns);
        self.pending
            .iter()
            .find(|(_, f)| f.t_ns <= settled_by)
            .map(|((job, slot), f)| Violation {
                event: f.index,
                t_ns: f.t_ns,
                why: format!(
                    "{job} slot {slot} fired at {} (first by {}) and no effect was committed by the end, {} later",
                    fmt_secs(f.t_ns),
                    end.names.of(f.by),
                    fmt_duration(end.end_ns - f.t_ns)
                ),
            })
    }

    /// What the verdict says when nothing broke: every slot still without an effect fired
    /// within the last `settle_ns`.
    fn held(&self) -> String {
        let unsettled = self.pending.len();
        let mut held = format!(
            "{} fired ({} by {}), each with at most one committed effect",
            count(self.slots_fired, "slot"),
            count(self.firings, "firing"),
            count(self.instances.len(), "instance")
        );
        if unsettled == 0 {
            held = held.replace("at most one", "exactly one");
        } else {
            held.push_str(&format!(
                " ({unsettled} fired in the last {} and not yet run)",
                fmt_duration(self.settle_ns)
            ));
        }
        held.push_str(&format!(
            "; {} ran nothing",
            count(self.repeats_stopped, "repeated delivery")
        ));
        held
    }
}

/// `job`'s slots among `effects`.
fn slots_of<'a, T>(effects: &'a mut Vec<(&'static str, Vec<T>)>, job: &'static str) -> &'a mut Vec<T> {
    let at = match effects.iter().position(|(j, _)| *j == job) {
        Some(at) => at,
        None => {
            effects.push((job, Vec::new()));
            effects.len() - 1
        }
    };
    &mut effects[at].1
}

impl Judge<SchedMsg, SchedObs> for ExactlyOnceJudge {
    fn see(&mut self, index: usize, e: &Event<SchedMsg, SchedObs>, _clocks: &[ClockTrack]) {
        let What::Observe(o) = &e.what else { return };
        match o {
            SchedObs::SlotFired { job, slot, .. } => self.on_fired(index, e.t_ns, (*job, *slot), e.node),
            SchedObs::EffectApplied { job, slot, worker, .. } => self.on_effect(index, e.t_ns, (*job, *slot), *worker),
            SchedObs::DuplicateSuppressed { .. } | SchedObs::MarkChecked { done: true, .. } => {
                self.repeats_stopped += 1
            }
            _ => {}
        }
    }

    fn verdicts(self, end: &RunEnd) -> Vec<Verdict> {
        vec![Verdict {
            invariant: EXACTLY_ONCE,
            status: self.status(end),
        }]
    }
}

impl Duplicate {
    fn violation(&self, names: &Names) -> Violation {
        let (job, slot) = self.slot;
        Violation {
            event: self.index,
            t_ns: self.t_ns,
            why: format!(
                "{} committed a second effect of {job} slot {slot} at {}; {} had committed one at {}",
                names.of(self.worker),
                fmt_secs(self.t_ns),
                names.of(self.first_worker),
                fmt_secs(self.first_ns)
            ),
        }
    }
}

#[cfg(test)]
mod tests;
