//! The fault plan: data, not code (DESIGN section 3). Each entry fires at a true time or right
//! after a node records an event (its `nth` occurrence), and does one thing to the world.

use crate::ids::NodeId;

/// When a fault fires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// At this true time, before any node step at the same instant.
    At { at_ns: u64 },
    /// Right after `node` records its `nth` (1-based) event named `event`; whatever that node
    /// emits after it in the same step is held back (pause) or lost (crash).
    After { node: NodeId, event: String, nth: u32 },
}

/// What a fault does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultAction {
    /// Runs nothing for `duration_ns`; with `suspend` the node's monotonic clock stands still.
    Pause {
        node: NodeId,
        duration_ns: u64,
        suspend: bool,
    },
    /// Stops the node; volatile state is lost; restarts after `restart_after_ns` if given.
    Crash {
        node: NodeId,
        restart_after_ns: Option<u64>,
    },
    /// Cuts every link between nodes of different groups (only from the first group to the
    /// others when `one_way`), until healed.
    Partition {
        groups: Vec<Vec<NodeId>>,
        one_way: bool,
        heal_after_ns: Option<u64>,
    },
    /// Cuts every link to and from `node`.
    Isolate { node: NodeId, heal_after_ns: Option<u64> },
    /// Steps `node`'s wall clock.
    ClockJump { node: NodeId, by_ns: i64 },
    /// Messages from `from` to `to` sent within `window_ns` get `extra_ns` more latency.
    Delay {
        from: NodeId,
        to: NodeId,
        window_ns: u64,
        extra_ns: u64,
    },
    /// Messages on matching links (any end when `None`) are lost, or duplicated when
    /// `duplicate`, with probability `ppm` / 10^6, within `window_ns` (or for ever).
    Loss {
        from: Option<NodeId>,
        to: Option<NodeId>,
        ppm: u32,
        window_ns: Option<u64>,
        duplicate: bool,
    },
    /// A replicated store promotes the replica of `node`; what it had not received is lost.
    Failover { node: NodeId },
}

impl FaultAction {
    /// The fault kind as a scenario file names it (`kind = "..."`).
    pub fn kind(&self) -> &'static str {
        match self {
            FaultAction::Pause { .. } => "pause",
            FaultAction::Crash { .. } => "crash",
            FaultAction::Partition { .. } => "partition",
            FaultAction::Isolate { .. } => "isolate",
            FaultAction::ClockJump { .. } => "clock_jump",
            FaultAction::Delay { .. } => "delay",
            FaultAction::Loss { duplicate: true, .. } => "duplicate",
            FaultAction::Loss { .. } => "loss",
            FaultAction::Failover { .. } => "failover",
        }
    }

    /// The node the fault strikes, for the kinds that strike one.
    pub fn node(&self) -> Option<NodeId> {
        match self {
            FaultAction::Pause { node, .. }
            | FaultAction::Crash { node, .. }
            | FaultAction::Isolate { node, .. }
            | FaultAction::ClockJump { node, .. }
            | FaultAction::Failover { node } => Some(*node),
            _ => None,
        }
    }
}

/// One fault plan entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultEntry {
    pub trigger: Trigger,
    pub action: FaultAction,
}

/// A run's faults, in the order they were written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultPlan {
    pub entries: Vec<FaultEntry>,
}

/// A plan entry whose trigger never came before the run ended: nothing it would have done
/// happened, so a verdict over the run says nothing about it (a scenario that meant to test it
/// must not pass unnoticed).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Unfired {
    /// The entry's index in the plan.
    pub fault: u32,
    /// For an `after` trigger, how many times its node recorded the event (fewer than `nth`);
    /// 0 for a time trigger.
    pub seen: u32,
}
