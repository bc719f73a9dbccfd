//! Faults triggered by time (queued up front) or by the `nth` occurrence of a node's event
//! (watched as observations are recorded), and the report of those that never came.

use super::World;
use crate::fault::{Trigger, Unfired};
use crate::history::What;
use crate::ids::NodeId;
use crate::node::{Node, Observation};
use crate::queue::Due;
use crate::record::Recorder;

/// A fault waiting for the `nth` occurrence of a node's event.
pub(super) struct Watch {
    fault: u32,
    node: NodeId,
    event: String,
    remaining: u32,
}

impl<N: Node> World<N> {
    /// Queues each timed fault and watches for each event-triggered one.
    pub(super) fn arm_triggers(&mut self) {
        for (i, entry) in self.plan.entries.iter().enumerate() {
            match &entry.trigger {
                Trigger::At { at_ns } => self.queue.push(*at_ns, Due::Fault(i as u32)),
                Trigger::After { node, event, nth } => {
                    self.watching += 1;
                    self.watches.push(Watch {
                        fault: i as u32,
                        node: *node,
                        event: event.clone(),
                        remaining: (*nth).max(1),
                    })
                }
            }
        }
    }

    /// Records an observation, stamped with the node's clock `readings`, and fires each fault
    /// whose watched event it completes; says whether one fired (only then can the node's
    /// lifecycle and clocks have changed).
    pub(super) fn observe(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        node: NodeId,
        obs: N::Obs,
        readings: (i64, u64),
    ) -> bool {
        if self.watching == 0 {
            // Most runs watch for nothing, or their watches are spent early: most records
            // skip the walk (and the event name).
            self.record(rec, node, readings, What::Observe(obs));
            return false;
        }
        let kind = obs.kind();
        let mut fired = false;
        self.record(rec, node, readings, What::Observe(obs));
        for w in 0..self.watches.len() {
            let watch = &mut self.watches[w];
            if watch.remaining > 0 && watch.node == node && watch.event == kind {
                watch.remaining -= 1;
                if watch.remaining == 0 {
                    self.watching -= 1;
                    let fault = watch.fault;
                    self.fire(rec, fault);
                    fired = true;
                }
            }
        }
        fired
    }

    /// The plan entries that never fired, in plan order, with how many of the awaited events
    /// were seen.
    pub(super) fn unfired(&self) -> Vec<Unfired> {
        (0..self.plan.entries.len())
            .filter(|&i| !self.fired[i])
            .map(|i| {
                let fault = i as u32;
                let seen = match &self.plan.entries[i].trigger {
                    Trigger::At { .. } => 0,
                    Trigger::After { nth, .. } => {
                        let remaining = self
                            .watches
                            .iter()
                            .find(|w| w.fault == fault)
                            .map_or(0, |w| w.remaining);
                        (*nth).max(1) - remaining
                    }
                };
                Unfired { fault, seen }
            })
            .collect()
    }
}
