//! The event queue: a binary heap keyed by `(true_time_ns, class, seq)`. `seq` is a global
//! insertion counter, so events at the same instant run in the order they were scheduled and
//! the run never depends on heap internals. Fault bookkeeping (`class` 0) goes before node
//! steps (`class` 1) at the same instant: a fault `at_ms = 0` is in force before nodes start.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::ids::NodeId;
use crate::node::TimerTag;

/// What happens when an item comes due.
#[derive(Clone, Debug)]
pub(crate) enum Due<M> {
    Start(NodeId),
    Deliver {
        from: NodeId,
        to: NodeId,
        msg_id: u64,
        /// The receiver's incarnation when it was sent: a restart in between resets it.
        incarnation: u32,
        msg: M,
    },
    Timer {
        node: NodeId,
        tag: TimerTag,
        generation: u32,
        target_mono_ns: u64,
    },
    /// A paused node's wall clock was stepped; it learns on resume.
    ClockJumped(NodeId),
    /// A paused node hears of a failover on resume: (node, the replaced primary).
    FailedOver(NodeId, NodeId),
    Fault(u32),
    Resume(NodeId),
    Restart(NodeId),
    Heal(u32),
    WindowEnd(u32),
}

impl<M> Due<M> {
    /// Fault bookkeeping runs before node steps at the same instant.
    fn class(&self) -> u64 {
        match self {
            Due::Fault(_) | Due::Resume(_) | Due::Restart(_) | Due::Heal(_) | Due::WindowEnd(_) => 0,
            _ => 1,
        }
    }
}

struct Item<M> {
    key: u128,
    due: Due<M>,
}

impl<M> PartialEq for Item<M> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<M> Eq for Item<M> {}
impl<M> PartialOrd for Item<M> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<M> Ord for Item<M> {
    /// Reversed: the heap pops the smallest key first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

pub(crate) struct Queue<M> {
    heap: BinaryHeap<Item<M>>,
    seq: u64,
}

impl<M> Queue<M> {
    pub(crate) fn new() -> Self {
        Queue {
            heap: BinaryHeap::with_capacity(64),
            seq: 0,
        }
    }

    pub(crate) fn push(&mut self, t_ns: u64, due: Due<M>) {
        self.seq += 1;
        let key = (u128::from(t_ns) << 64) | (u128::from(due.class()) << 63) | u128::from(self.seq);
        self.heap.push(Item { key, due });
    }

    /// The next item due at or before `end_ns`, with its time.
    pub(crate) fn pop_until(&mut self, end_ns: u64) -> Option<(u64, Due<M>)> {
        let t_ns = (self.heap.peek()?.key >> 64) as u64;
        if t_ns > end_ns {
            return None;
        }
        self.heap.pop().map(|item| (t_ns, item.due))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_class_then_insertion() {
        let mut q: Queue<()> = Queue::new();
        q.push(5, Due::Start(NodeId(0)));
        q.push(5, Due::Start(NodeId(1)));
        q.push(5, Due::Fault(9));
        q.push(1, Due::Start(NodeId(2)));
        let order: Vec<String> = std::iter::from_fn(|| q.pop_until(10))
            .map(|(t, d)| format!("{t}:{d:?}"))
            .collect();
        assert_eq!(
            order,
            [
                "1:Start(NodeId(2))",
                "5:Fault(9)",
                "5:Start(NodeId(0))",
                "5:Start(NodeId(1))"
            ]
        );
        q.push(11, Due::Start(NodeId(0)));
        assert!(q.pop_until(10).is_none());
    }
}
