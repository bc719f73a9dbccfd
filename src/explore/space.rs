//! The fault space a scenario is explored in (`[explore]`): which fault kinds are on, how many
//! entries a plan may have, and per kind which nodes it may strike and how hard. A scenario
//! without `[explore]` gets its protocol's defaults: every kind that applies, on the nodes
//! where it means something.

use std::collections::BTreeMap;
use std::fmt;

use locksim_protocols::knobs::{KnobError, KnobValue, Knobs};
use locksim_protocols::{ProtocolConfig, Role};
use locksim_sim::NodeId;

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

    /// What `max` limits, for errors and `locksim list`.
    pub fn max_key(self) -> &'static str {
        match self {
            FaultKind::Drift => "max_ppm",
            FaultKind::Loss => "max_ppm",
            FaultKind::Failover => "max_ms",
            _ => "max_ms",
        }
    }

    /// The default limit: long enough to outlast a lease, or to matter to a clock.
    fn default_max(self) -> u64 {
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

/// The nodes a kind strikes by default, by role.
fn default_nodes(kind: FaultKind, topology: &[(String, Role)], failover: &[String]) -> Vec<NodeId> {
    topology
        .iter()
        .enumerate()
        .filter(|(_, (name, role))| match kind {
            FaultKind::Failover => failover.contains(name),
            FaultKind::Delay => *role == Role::Client,
            FaultKind::Pause | FaultKind::Suspend | FaultKind::ClockJump | FaultKind::Drift => *role != Role::Resource,
            FaultKind::Crash | FaultKind::Partition | FaultKind::Loss => true,
        })
        .map(|(i, _)| NodeId(i as u32))
        .collect()
}

impl FaultSpace {
    /// The protocol's default space: every kind with a node to strike.
    pub fn defaults(protocol: &ProtocolConfig) -> Self {
        let topology = protocol.topology();
        let failover = protocol.failover_targets();
        let kinds = FaultKind::ALL
            .into_iter()
            .filter_map(|kind| {
                let nodes = default_nodes(kind, &topology, &failover);
                (!nodes.is_empty()).then(|| {
                    (
                        kind,
                        KindLimits {
                            nodes,
                            max: kind.default_max(),
                        },
                    )
                })
            })
            .collect();
        FaultSpace { kinds, max_faults: 3 }
    }

    /// Reads `[explore]` over the protocol's defaults. `resolve` turns a node name into its id
    /// (or an error naming the key).
    pub fn parse(
        k: &mut Knobs,
        protocol: &ProtocolConfig,
        resolve: &dyn Fn(&Knobs, &str, &str) -> Result<NodeId, KnobError>,
    ) -> Result<Self, KnobError> {
        let mut space = FaultSpace::defaults(protocol);
        let topology = protocol.topology();
        let failover = protocol.failover_targets();
        let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
        if let Some(value) = k.raw(
            "faults",
            "array of fault kinds",
            "the kinds a plan may contain (default: all that apply)",
        ) {
            let KnobValue::List(items) = value else {
                return Err(k.error(
                    "faults",
                    format!("must be an array of fault kinds ({})", names.join(", ")),
                ));
            };
            let mut chosen = BTreeMap::new();
            for item in items {
                let KnobValue::Str(name) = item.value else {
                    return Err(k.error("faults", "fault kinds must be strings"));
                };
                let kind = FaultKind::ALL.into_iter().find(|f| f.name() == name).ok_or_else(|| {
                    k.error(
                        "faults",
                        format!("unknown fault kind \"{name}\"; known kinds: {}", names.join(", ")),
                    )
                })?;
                let nodes = default_nodes(kind, &topology, &failover);
                if nodes.is_empty() {
                    return Err(k.error("faults", format!("\"{name}\" has nothing to strike in this protocol")));
                }
                chosen.insert(
                    kind,
                    KindLimits {
                        nodes,
                        max: kind.default_max(),
                    },
                );
            }
            if chosen.is_empty() {
                return Err(k.error("faults", "the fault space is empty: name at least one fault kind"));
            }
            space.kinds = chosen;
        }
        space.max_faults = k.uint("max_faults", 3, 1, MAX_FAULTS, "the most fault entries a plan adds")? as u32;
        for kind in FaultKind::ALL {
            let Some(value) = k.raw(kind.name(), "table { nodes, max_ms | max_ppm }", "limits of one kind") else {
                continue;
            };
            let line = k.line_of(kind.name());
            let KnobValue::Table(entries) = value else {
                return Err(k.error(kind.name(), "must be a table ([explore.<kind>])"));
            };
            let Some(limits) = space.kinds.get_mut(&kind) else {
                return Err(k.error(kind.name(), format!("limits for \"{kind}\", which is not in `faults`")));
            };
            let mut kk = Knobs::new(format!("explore.{kind}"), line, entries);
            if let Some(KnobValue::List(items)) = kk.raw("nodes", "array of node names", "the nodes it may strike") {
                let mut nodes = Vec::new();
                for item in items {
                    let KnobValue::Str(name) = item.value else {
                        return Err(kk.error("nodes", "node names must be strings"));
                    };
                    nodes.push(resolve(&kk, "nodes", &name)?);
                }
                if nodes.is_empty() {
                    return Err(kk.error("nodes", "name at least one node"));
                }
                limits.nodes = nodes;
            }
            let (max_limit, doc) = match kind {
                FaultKind::Drift => (999_999, "largest clock rate error, ppm"),
                FaultKind::Loss => (1_000_000, "largest loss probability, ppm"),
                _ => (30 * 24 * 3_600_000, "largest duration or jump, ms"),
            };
            limits.max = kk.uint(kind.max_key(), limits.max, 1, max_limit, doc)?;
            kk.finish()?;
        }
        Ok(space)
    }
}
