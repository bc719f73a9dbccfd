//! The history: every observable event of a run, in true-time order, with the node's local
//! clock readings. Checkers read only this; traces and timelines are rendered from it.

use serde::{Deserialize, Serialize};

use crate::clock::ClockTrack;
use crate::ids::{Names, NodeId};

/// How much of the run is written down. `Facts` keeps observations and faults (all that
/// checkers read) and skips per-message entries, node starts and timer firings: exploration
/// runs thousands of seeds and only wants verdicts. Counters in [`Stats`] are kept either way.
/// Event indices (a [`crate::Violation`]'s `event`) therefore refer to the history of the level
/// that was run; a trace is always `Full`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Level {
    Full,
    Facts,
}

/// Why a message did not arrive.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// A partition or isolation cut the link when it was sent.
    Partition,
    /// A `loss` fault drew it.
    Loss,
    /// The receiver was down, or had restarted since it was sent (connection reset).
    Down,
}

/// What happened.
#[derive(Clone, Debug)]
pub enum What<M, O> {
    Start,
    Send {
        to: NodeId,
        msg_id: u64,
        msg: M,
    },
    Deliver {
        from: NodeId,
        msg_id: u64,
        msg: M,
    },
    Drop {
        from: NodeId,
        to: NodeId,
        msg_id: u64,
        msg: M,
        reason: DropReason,
    },
    Timer {
        tag: u32,
    },
    Pause {
        duration_ns: u64,
        suspend: bool,
    },
    Resume,
    Crash {
        restart_after_ns: Option<u64>,
    },
    Restart,
    ClockJump {
        by_ns: i64,
    },
    /// Links cut: every link from a node of `groups[i]` to a node of `groups[j]` (i != j), or
    /// only from `groups[0]` to the others when `one_way`.
    Partition {
        fault: u32,
        groups: Vec<Vec<NodeId>>,
        one_way: bool,
    },
    Heal {
        fault: u32,
    },
    /// Messages from `from` to `to` sent from now until `window_ns` later get `extra_ns` more.
    Delay {
        fault: u32,
        from: NodeId,
        to: NodeId,
        window_ns: u64,
        extra_ns: u64,
    },
    /// Messages on matching links are lost (or duplicated) with probability `ppm` / 10^6.
    Lossy {
        fault: u32,
        from: Option<NodeId>,
        to: Option<NodeId>,
        ppm: u32,
        duplicate: bool,
    },
    /// A delay or loss window closed.
    WindowEnd {
        fault: u32,
    },
    /// The failover tool replaced `primary` by its replica.
    Failover {
        primary: NodeId,
    },
    Observe(O),
}

/// One history entry.
#[derive(Clone, Debug)]
pub struct Event<M, O> {
    pub t_ns: u64,
    pub node: NodeId,
    /// The node's wall clock at `t_ns` (0 for network events).
    pub wall_ns: i64,
    /// The node's monotonic clock at `t_ns` (0 for network events).
    pub mono_ns: u64,
    pub what: What<M, O>,
}

/// Engine counters, counted the way the madsim peer counts: messages sent, messages delivered
/// to a running node, timers fired.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub sent: u64,
    pub delivered: u64,
    pub timers: u64,
}

impl Stats {
    pub fn events(&self) -> u64 {
        self.sent + self.delivered + self.timers
    }
}

/// A finished run.
#[derive(Clone, Debug)]
pub struct History<M, O> {
    pub names: Names,
    pub events: Vec<Event<M, O>>,
    /// Each node's clock over the whole run, for checkers that evaluate clocks at any instant.
    pub clocks: Vec<ClockTrack>,
    pub end_ns: u64,
    pub stats: Stats,
}

impl<M, O> History<M, O> {
    pub fn clock(&self, node: NodeId) -> &ClockTrack {
        &self.clocks[node.index()]
    }

    /// The true time at which `node`'s monotonic clock reaches `mono_ns`, capped at the end
    /// of the run.
    pub fn when_mono(&self, node: NodeId, mono_ns: u64) -> u64 {
        self.clock(node).true_time_of_mono(mono_ns).min(self.end_ns)
    }

    /// Observations, with their event index.
    pub fn observations(&self) -> impl Iterator<Item = (usize, &Event<M, O>, &O)> {
        self.events.iter().enumerate().filter_map(|(i, e)| match &e.what {
            What::Observe(o) => Some((i, e, o)),
            _ => None,
        })
    }
}
