//! The fault space a scenario is explored in (`[explore]`): which fault kinds are on, how many
//! entries a plan may have, and per kind which nodes it may strike and how hard. A scenario
//! without `[explore]` gets its protocol's defaults: every kind that applies, on the nodes
//! where it means something.
//!
//! ```toml
//! [explore]
//! faults = ["pause", "crash"]       # each kind once (default: every kind with a node to strike)
//! max_faults = 3                    # entries a plan adds (1 to 32)
//! [explore.pause]
//! nodes = ["client-0"]              # an array, each node one the kind can strike
//! max_ms = 20000                    # drift and loss: max_ppm; failover has no magnitude
//! [explore.partition]
//! bridge = true                     # half the cuts leave one node hearing both sides
//! [explore.fix.protocol]            # not read here: the bug catalogue's fixed twin
//! deadline_check = "before_write"
//! ```
//!
//! A kind strikes the nodes where it means something, by role: pauses, suspends, clock jumps
//! and drift strike clients and servers (the resource keeps no lease and reads no clock), a
//! delay holds back what a client sends, a failover needs a primary with a replica, partitions,
//! delays and loss need a second node, and crashes strike anything. `nodes` may only narrow
//! that: a node the kind cannot strike is an error naming the key, the node and why (rather
//! than a space of no-op faults).
//!
//! `fix` is a table of scenario tables (`[explore.fix.protocol]`, `[explore.fix.resource]`...)
//! that exploration itself does not read: `crate::report::bugs` merges it into the scenario to get a
//! bug's fixed twin, and runs both under the same plans. Here it only has to be a table.
//!
//! The space is part of what a scenario file describes, so it lives below both the loader
//! (which reads `[explore]` with the rest of the file, [`FaultSpace::parse`]) and exploration
//! (which draws plans from it): neither has to import the other for it.

use std::collections::BTreeMap;
use std::fmt;

use locksim_protocols::{Protocol, Role};
use locksim_sim::NodeId;

mod parse;

/// A kind of fault a plan can contain. `Suspend` is a pause that stops the monotonic clock;
/// `Drift` sets a node's clock rate for the whole run.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultKind {
    Pause,
    Suspend,
    Crash,
    Partition,
    ClockJump,
    Drift,
    Delay,
    Loss,
    Failover,
}

impl FaultKind {
    pub const ALL: [FaultKind; 9] = [
        FaultKind::Pause,
        FaultKind::Suspend,
        FaultKind::Crash,
        FaultKind::Partition,
        FaultKind::ClockJump,
        FaultKind::Drift,
        FaultKind::Delay,
        FaultKind::Loss,
        FaultKind::Failover,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Pause => "pause",
            FaultKind::Suspend => "suspend",
            FaultKind::Crash => "crash",
            FaultKind::Partition => "partition",
            FaultKind::ClockJump => "clock_jump",
            FaultKind::Drift => "drift",
            FaultKind::Delay => "delay",
            FaultKind::Loss => "loss",
            FaultKind::Failover => "failover",
        }
    }

    /// What `max` limits, for errors and `locksim list` (a failover has no magnitude, and no
    /// such key).
    pub fn max_key(self) -> &'static str {
        match self {
            FaultKind::Drift | FaultKind::Loss => "max_ppm",
            _ => "max_ms",
        }
    }

    /// The default limit: long enough to outlast a lease, or to matter to a clock.
    pub fn default_max(self) -> u64 {
        match self {
            FaultKind::Pause | FaultKind::Suspend | FaultKind::Crash | FaultKind::Partition => 20_000,
            FaultKind::ClockJump => 30_000,
            FaultKind::Drift => 200_000,
            FaultKind::Delay => 90_000,
            FaultKind::Loss => 500_000,
            FaultKind::Failover => 0,
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where and how hard one kind may strike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindLimits {
    /// The nodes it may strike (for a partition: the nodes it may cut off; for a delay: the
    /// senders; for loss: either end).
    pub nodes: Vec<NodeId>,
    /// The largest duration (ms) — pause, downtime, cut, jump, extra latency, loss window —
    /// or, for drift and loss probability, the largest parts per million.
    pub max: u64,
    /// Partitions only: whether half the cuts drawn are bridges, leaving one node connected
    /// to both sides (Jepsen's `bridge` nemesis). A partial partition is what a follower
    /// that still hears its leader while voting for a challenger needs, which no clean cut
    /// into two sides can make.
    pub bridge: bool,
}

/// A scenario's fault space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultSpace {
    pub kinds: BTreeMap<FaultKind, KindLimits>,
    /// The most entries a plan adds to the scenario's own.
    pub max_faults: u32,
}

/// The most entries a plan may add ("put a limit on everything").
pub const MAX_FAULTS: u64 = 32;

/// Why `kind` cannot strike the node `name` of `role` in `topology`, or `None` if it can: the
/// per-role rules of the default space, which `[explore.<kind>] nodes` may only narrow.
fn cannot_strike(
    kind: FaultKind,
    name: &str,
    role: Role,
    topology: &[(String, Role)],
    failover: &[String],
) -> Option<String> {
    let networked = matches!(kind, FaultKind::Partition | FaultKind::Delay | FaultKind::Loss);
    if networked && topology.len() < 2 {
        return Some(format!(
            "{name} is the only node: there is no link to cut, delay or lose"
        ));
    }
    let role_name = match role {
        Role::Client => "a client",
        Role::Server => "a server",
        Role::Resource => "the resource",
    };
    match kind {
        FaultKind::Failover if !failover.iter().any(|f| f == name) => Some(format!(
            "failover promotes a replica, and {name} has none (single-redis: set replicas = 1)"
        )),
        FaultKind::Delay if role != Role::Client => Some(format!(
            "a delay holds back what a client sends (a late request or write), and {name} is {role_name}"
        )),
        FaultKind::Pause | FaultKind::Suspend | FaultKind::ClockJump | FaultKind::Drift if role == Role::Resource => {
            Some(format!(
                "{name} is the protected resource, which holds no lease and reads no clock: a {kind} there tests nothing of the lock"
            ))
        }
        _ => None,
    }
}

/// The nodes a kind strikes by default, by role.
fn default_nodes(kind: FaultKind, topology: &[(String, Role)], failover: &[String]) -> Vec<NodeId> {
    topology
        .iter()
        .enumerate()
        .filter(|(_, (name, role))| cannot_strike(kind, name, *role, topology, failover).is_none())
        .map(|(i, _)| NodeId(i as u32))
        .collect()
}

/// The protocol's nodes' names and roles, in node order: what picks a fault's targets.
fn topology(protocol: &dyn Protocol) -> Vec<(String, Role)> {
    protocol
        .layout()
        .nodes()
        .iter()
        .map(|n| (n.name.clone(), n.role))
        .collect()
}

impl FaultSpace {
    /// The protocol's default space: every kind with a node to strike.
    pub fn defaults(protocol: &dyn Protocol) -> Self {
        Self::defaults_over(&topology(protocol), &protocol.failover_targets())
    }

    /// Every kind with a node to strike in `topology`, at its default limit (also the default
    /// space of a hand-built plan shape, `FaultSpace::defaults_for` in `explore`).
    pub(crate) fn defaults_over(topology: &[(String, Role)], failover: &[String]) -> Self {
        let kinds = FaultKind::ALL
            .into_iter()
            .filter_map(|kind| {
                let nodes = default_nodes(kind, topology, failover);
                (!nodes.is_empty()).then(|| {
                    (
                        kind,
                        KindLimits {
                            nodes,
                            max: kind.default_max(),
                            bridge: false,
                        },
                    )
                })
            })
            .collect();
        FaultSpace { kinds, max_faults: 3 }
    }
}
