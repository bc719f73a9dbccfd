//! Striking a fault-plan entry, and ending the network faults that have a window.

use super::{Input, World};
use crate::fault::FaultAction;
use crate::history::What;
use crate::ids::NodeId;
use crate::node::Node;
use crate::queue::Due;
use crate::record::Recorder;

impl<N: Node> World<N> {
    /// Fires plan entry `fault` now: its trigger came (its time, or a node's `nth` event).
    pub(super) fn fire(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, fault: u32) {
        self.fired[fault as usize] = true;
        match self.plan.entries[fault as usize].action.clone() {
            FaultAction::Pause {
                node,
                duration_ns,
                suspend,
            } => self.pause(rec, node, duration_ns, suspend),
            FaultAction::Crash { node, restart_after_ns } => self.crash(rec, node, restart_after_ns),
            FaultAction::Partition { heal_after_ns, .. } | FaultAction::Isolate { heal_after_ns, .. } => {
                self.partition(rec, fault, heal_after_ns)
            }
            FaultAction::ClockJump { node, by_ns } => self.jump_clock(rec, node, by_ns),
            FaultAction::Delay {
                from,
                to,
                window_ns,
                extra_ns,
            } => self.delay(rec, fault, (from, to), window_ns, extra_ns),
            FaultAction::Failover { node: primary } => self.fail_over(rec, primary),
            FaultAction::Loss {
                from,
                to,
                ppm,
                window_ns,
                duplicate,
            } => self.make_lossy(rec, fault, (from, to), ppm, window_ns, duplicate),
        }
    }

    /// The groups a partition or isolation fault cuts.
    fn cut_groups(&self, fault: u32) -> (Vec<Vec<NodeId>>, bool) {
        match &self.plan.entries[fault as usize].action {
            FaultAction::Partition { groups, one_way, .. } => (groups.clone(), *one_way),
            FaultAction::Isolate { node, .. } => {
                let others = (0..self.slots.len() as u32).map(NodeId).filter(|n| n != node).collect();
                (vec![vec![*node], others], false)
            }
            other => panic!("fault {fault} is not a partition: {other:?}"),
        }
    }

    fn partition(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, fault: u32, heal_after_ns: Option<u64>) {
        let (groups, one_way) = self.cut_groups(fault);
        self.net.cut(&groups, one_way, true);
        self.push_event(rec, NodeId::NET, What::Partition { fault, groups, one_way });
        if let Some(after_ns) = heal_after_ns {
            self.queue.push(self.now_ns + after_ns, Due::Heal(fault));
        }
    }

    pub(super) fn heal(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, fault: u32) {
        let (groups, one_way) = self.cut_groups(fault);
        self.net.cut(&groups, one_way, false);
        self.push_event(rec, NodeId::NET, What::Heal { fault });
    }

    /// Steps `node`'s wall clock; the node hears of it (on resume, if paused).
    fn jump_clock(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, node: NodeId, by_ns: i64) {
        self.clocks[node.index()].jump(self.now_ns, by_ns);
        self.push_event(rec, node, What::ClockJump { by_ns });
        self.step_or_hold(rec, node, Input::ClockJump, Due::ClockJumped(node));
    }

    fn delay(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        fault: u32,
        (from, to): (NodeId, NodeId),
        window_ns: u64,
        extra_ns: u64,
    ) {
        let now_ns = self.now_ns;
        self.net.add_delay(fault, from, to, now_ns + window_ns, extra_ns);
        let what = What::Delay {
            fault,
            from,
            to,
            window_ns,
            extra_ns,
        };
        self.push_event(rec, NodeId::NET, what);
        self.queue.push(now_ns + window_ns, Due::WindowEnd(fault));
    }

    /// The operator's failover tool replaces `primary`: every running node hears it now, a
    /// paused one on resume.
    fn fail_over(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, primary: NodeId) {
        self.push_event(rec, NodeId::NET, What::Failover { primary });
        for i in 0..self.slots.len() {
            let node = NodeId(i as u32);
            self.step_or_hold(rec, node, Input::Failover(primary), Due::FailedOver(node, primary));
        }
    }

    fn make_lossy(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        fault: u32,
        (from, to): (Option<NodeId>, Option<NodeId>),
        ppm: u32,
        window_ns: Option<u64>,
        duplicate: bool,
    ) {
        let now_ns = self.now_ns;
        let until_ns = window_ns.map_or(u64::MAX, |w| now_ns + w);
        self.net.add_loss(fault, (from, to), until_ns, ppm, duplicate);
        let what = What::Lossy {
            fault,
            from,
            to,
            ppm,
            duplicate,
        };
        self.push_event(rec, NodeId::NET, what);
        if let Some(w) = window_ns {
            self.queue.push(now_ns + w, Due::WindowEnd(fault));
        }
    }

    pub(super) fn end_window(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, fault: u32) {
        self.net.end_window(fault);
        self.push_event(rec, NodeId::NET, What::WindowEnd { fault });
    }
}
