//! A node's lifecycle faults: pause and resume, crash and restart.

use super::{Input, Life, World};
use crate::history::What;
use crate::ids::NodeId;
use crate::node::Node;
use crate::queue::Due;
use crate::record::Recorder;

impl<N: Node> World<N> {
    /// Pauses `node` for `duration_ns` (a pause during a pause ends at the later end); with
    /// `suspend` its monotonic clock stands still meanwhile.
    pub(super) fn pause(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        node: NodeId,
        duration_ns: u64,
        suspend: bool,
    ) {
        let now_ns = self.now_ns;
        let slot = &mut self.slots[node.index()];
        let until_ns = now_ns + duration_ns;
        slot.life = match slot.life {
            Life::Crashed => return,
            Life::Running => Life::Paused { until_ns },
            Life::Paused { until_ns: u } => Life::Paused {
                until_ns: u.max(until_ns),
            },
        };
        if suspend {
            self.clocks[node.index()].suspend(now_ns, until_ns);
        }
        self.push_event(rec, node, What::Pause { duration_ns, suspend });
        self.queue.push(until_ns, Due::Resume(node));
    }

    /// Ends a pause that is due now: the held rest of the interrupted step runs first, then
    /// what came due meanwhile.
    pub(super) fn resume(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, node: NodeId) {
        let slot = &mut self.slots[node.index()];
        match slot.life {
            Life::Paused { until_ns } if until_ns <= self.now_ns => slot.life = Life::Running,
            _ => return,
        }
        self.push_event(rec, node, What::Resume);
        let mut held = std::mem::take(&mut self.slots[node.index()].held);
        let readings = self.readings(node);
        self.apply(rec, node, &mut held, readings);
        self.run_pending(rec, node);
    }

    /// What came due during the pause is handled now, in arrival order, before anything else
    /// due at this instant: re-queuing it would let a later message on the same link overtake.
    fn run_pending(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, node: NodeId) {
        let mut pending = std::mem::take(&mut self.slots[node.index()].pending).into_iter();
        while let Some(due) = pending.next() {
            match self.slots[node.index()].life {
                Life::Running => self.dispatch(rec, due),
                Life::Paused { .. } => {
                    // Paused again by what it just handled: the rest waits for the next resume.
                    let slot = &mut self.slots[node.index()];
                    let later = std::mem::take(&mut slot.pending);
                    slot.pending = std::iter::once(due).chain(pending).chain(later).collect();
                    return;
                }
                Life::Crashed => {
                    // Crashed by what it just handled: the rest arrives at a dead process.
                    for due in std::iter::once(due).chain(pending) {
                        self.dispatch(rec, due);
                    }
                    return;
                }
            }
        }
    }

    /// Stops `node`: its timers, held effects and pending deliveries are lost (the deliveries
    /// recorded as drops), its handler for the crash runs, and a restart is queued if asked.
    pub(super) fn crash(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        node: NodeId,
        restart_after_ns: Option<u64>,
    ) {
        if self.slots[node.index()].life == Life::Crashed {
            return;
        }
        self.push_event(rec, node, What::Crash { restart_after_ns });
        let now_ns = self.now_ns;
        self.clocks[node.index()].end_suspension(now_ns);
        let slot = &mut self.slots[node.index()];
        slot.life = Life::Crashed;
        slot.started = false;
        slot.incarnation += 1;
        slot.held.clear();
        for timer in &mut slot.timers {
            timer.generation += 1;
            timer.live = None;
        }
        for due in std::mem::take(&mut slot.pending) {
            if let Due::Deliver {
                from, to, msg_id, msg, ..
            } = due
            {
                self.drop_at_down_node(rec, from, to, msg_id, msg);
            }
        }
        self.step(rec, node, Input::Crash, self.readings(node));
        if let Some(after_ns) = restart_after_ns {
            self.queue.push(self.now_ns + after_ns, Due::Restart(node));
        }
    }

    pub(super) fn restart(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, node: NodeId) {
        let slot = &mut self.slots[node.index()];
        if slot.life != Life::Crashed {
            return;
        }
        slot.life = Life::Running;
        slot.started = true;
        // Messages sent while it was down were addressed to no process: they must not reach
        // this one either.
        slot.incarnation += 1;
        let readings = self.readings(node);
        self.record(rec, node, readings, What::Restart);
        self.step(rec, node, Input::Start, readings);
    }
}
