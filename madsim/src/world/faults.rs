//! The fault plan, fired as DESIGN section 3 says: `at_ms` (queued by the supervisor) or
//! right after a node's `nth` event (watched here as facts are recorded). What changes the
//! world's record happens here at once, stamped with the instant the fault fired, and so do
//! madsim's pause and clog; what comes later or must not run inside the struck node's own task
//! (resume, kill, restart, heal) is asked of the supervisor. A pause holds the rest of the
//! struck node's step: its recording call or its server step waits behind `gate` until the
//! pause ends.

use locksim_sim::fault::{FaultAction, Trigger, Unfired};
use locksim_sim::{NodeId, What};

use super::World;

/// A fault waiting for the `nth` occurrence of a node's event.
pub(super) struct Watch {
    fault: u32,
    node: NodeId,
    event: String,
    remaining: u32,
}

/// The watches of a plan's `after` triggers.
pub(super) fn watches(plan: &locksim_sim::FaultPlan) -> Vec<Watch> {
    plan.entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.trigger {
            Trigger::After { node, event, nth } => Some(Watch {
                fault: i as u32,
                node: *node,
                event: event.clone(),
                remaining: (*nth).max(1),
            }),
            Trigger::At { .. } => None,
        })
        .collect()
}

/// What the supervisor does with madsim's handle.
#[derive(Debug)]
pub enum Action {
    /// `Handle::resume` at `until_ns` (unless a later pause extended it).
    Pause { node: NodeId, until_ns: u64 },
    /// `Handle::kill`, and `restart` at `restart_at_ns` if given.
    Kill { node: NodeId, restart_at_ns: Option<u64> },
    /// Each directed link (clogged when the fault fired) unclogged at `heal_at_ns`.
    Heal {
        fault: u32,
        links: Vec<(NodeId, NodeId)>,
        heal_at_ns: u64,
    },
    /// A hosted model set a timer: run it on its node when its clock reaches `target_mono_ns`.
    Timer {
        node: NodeId,
        tag: u32,
        generation: u64,
        target_mono_ns: u64,
    },
}

impl World {
    /// Counts a recorded event against the watches and fires each fault it completes.
    pub(super) fn watched(&mut self, node: NodeId, kind: &str) {
        for w in 0..self.watches.len() {
            let watch = &mut self.watches[w];
            if watch.remaining > 0 && watch.node == node && watch.event == kind {
                watch.remaining -= 1;
                if watch.remaining == 0 {
                    let fault = watch.fault;
                    self.fire(fault);
                }
            }
        }
    }

    /// The plan's time-triggered entries: (entry, true time).
    pub fn timed_faults(&self) -> Vec<(u32, u64)> {
        self.plan
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e.trigger {
                Trigger::At { at_ns } => Some((i as u32, at_ns)),
                Trigger::After { .. } => None,
            })
            .collect()
    }

    pub(super) fn ask(&self, action: Action) {
        // The supervisor outlives every node task; after the run's end nothing is asked.
        let _ = self.actions.send(action);
    }

    /// Fires plan entry `fault` now.
    pub fn fire(&mut self, fault: u32) {
        if self.ended {
            return;
        }
        self.fired[fault as usize] = true;
        let now_ns = self.now_ns();
        match self.plan.entries[fault as usize].action.clone() {
            FaultAction::Pause {
                node,
                duration_ns,
                suspend,
            } => {
                let state = &mut self.nodes[node.index()];
                if state.crashed {
                    return;
                }
                let until_ns = (now_ns + duration_ns).max(state.paused_until_ns.unwrap_or(0));
                state.paused_until_ns = Some(until_ns);
                if suspend {
                    self.clocks[node.index()].suspend(now_ns, now_ns + duration_ns);
                }
                self.push(node, What::Pause { duration_ns, suspend });
                madsim::runtime::Handle::current().pause(self.ids[node.index()]);
                self.ask(Action::Pause { node, until_ns });
            }
            FaultAction::Crash { node, restart_after_ns } => {
                if self.nodes[node.index()].crashed {
                    return;
                }
                self.push(node, What::Crash { restart_after_ns });
                self.clocks[node.index()].end_suspension(now_ns);
                let state = &mut self.nodes[node.index()];
                state.crashed = true;
                state.paused_until_ns = None;
                self.crash_hosted(node);
                self.ask(Action::Kill {
                    node,
                    restart_at_ns: restart_after_ns.map(|after_ns| now_ns + after_ns),
                });
            }
            FaultAction::Partition {
                groups,
                one_way,
                heal_after_ns,
            } => self.partition(fault, groups, one_way, heal_after_ns),
            FaultAction::Isolate { node, heal_after_ns } => {
                let others = (0..self.nodes.len() as u32)
                    .map(NodeId)
                    .filter(|n| *n != node)
                    .collect();
                self.partition(fault, vec![vec![node], others], false, heal_after_ns)
            }
            FaultAction::ClockJump { node, by_ns } => {
                self.clocks[node.index()].jump(now_ns, by_ns);
                self.push(node, What::ClockJump { by_ns });
                self.jumped_hosted(node);
            }
            other => unreachable!("refused before the run: {}", other.kind()),
        }
    }

    fn partition(&mut self, fault: u32, groups: Vec<Vec<NodeId>>, one_way: bool, heal_after_ns: Option<u64>) {
        let mut links = Vec::new();
        for (i, from) in groups.iter().enumerate() {
            for (j, to) in groups.iter().enumerate() {
                if i != j && (!one_way || i == 0) {
                    links.extend(from.iter().flat_map(|&a| to.iter().map(move |&b| (a, b))));
                }
            }
        }
        // Clogged now, not by the supervisor a poll later: the struck node's next write in
        // this very step already meets the cut (data written before it is in flight: madsim
        // delivers it).
        let net = madsim::net::NetSim::current();
        for &(a, b) in &links {
            net.clog_link(self.ids[a.index()], self.ids[b.index()]);
        }
        self.push(NodeId::NET, What::Partition { fault, groups, one_way });
        if let Some(after_ns) = heal_after_ns {
            let heal_at_ns = self.now_ns() + after_ns;
            self.ask(Action::Heal {
                fault,
                links,
                heal_at_ns,
            });
        }
    }

    /// A pause ends at `until_ns` unless a later one extended it; says whether it ended.
    pub fn resume(&mut self, node: NodeId, until_ns: u64) -> bool {
        let state = &mut self.nodes[node.index()];
        if state.crashed || state.paused_until_ns != Some(until_ns) {
            return false;
        }
        state.paused_until_ns = None;
        state.resumed_at_ns = Some(until_ns);
        self.push(node, What::Resume);
        true
    }

    /// A crashed node comes back (madsim runs its `init` again).
    pub fn restart(&mut self, node: NodeId) {
        self.nodes[node.index()].crashed = false;
        self.push(node, What::Restart);
    }

    pub fn heal(&mut self, fault: u32) {
        self.push(NodeId::NET, What::Heal { fault });
    }

    /// The plan entries that never fired, in plan order.
    pub fn unfired(&self) -> Vec<Unfired> {
        (0..self.plan.entries.len())
            .filter(|&i| !self.fired[i])
            .map(|i| {
                let fault = i as u32;
                let seen = match &self.plan.entries[i].trigger {
                    Trigger::At { .. } => 0,
                    Trigger::After { nth, .. } => {
                        let left = self
                            .watches
                            .iter()
                            .find(|w| w.fault == fault)
                            .map_or(0, |w| w.remaining);
                        (*nth).max(1) - left
                    }
                };
                Unfired { fault, seen }
            })
            .collect()
    }
}
