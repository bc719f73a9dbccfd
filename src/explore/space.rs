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

use std::collections::BTreeMap;
use std::fmt;

use locksim_protocols::knobs::{KnobError, KnobValue, Knobs};
use locksim_protocols::{Protocol, Role};
use locksim_sim::NodeId;

use super::shape::PlanShape;

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

    /// The default space of a plan shape — a scenario's, or one built by hand for a protocol
    /// defined outside the crates: every kind with a node to strike, by the nodes' roles,
    /// exactly as [`FaultSpace::defaults`] does for a built-in protocol.
    pub fn defaults_for(shape: &PlanShape) -> Self {
        let topology: Vec<(String, Role)> = shape.nodes.iter().map(|n| (n.name.clone(), n.role)).collect();
        Self::defaults_over(&topology, &shape.failover_targets)
    }

    /// Every kind with a node to strike in `topology`, at its default limit.
    fn defaults_over(topology: &[(String, Role)], failover: &[String]) -> Self {
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
        protocol: &dyn Protocol,
        resolve: &dyn Fn(&Knobs, &str, &str) -> Result<NodeId, KnobError>,
    ) -> Result<Self, KnobError> {
        let mut space = FaultSpace::defaults(protocol);
        let topology = topology(protocol);
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
                if chosen.contains_key(&kind) {
                    return Err(k.error("faults", format!("\"{name}\" is listed twice")));
                }
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
        match k.raw(
            "fix",
            "table of scenario tables",
            "a bug's fix, e.g. [explore.fix.protocol]: read by the bug catalogue, not here",
        ) {
            None | Some(KnobValue::Table(_)) => {}
            Some(other) => {
                return Err(k.error(
                    "fix",
                    format!(
                        "must be a table of scenario tables ([explore.fix.protocol] ...), not {}",
                        other.type_name()
                    ),
                ));
            }
        }
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
            match kk.raw("nodes", "array of node names", "the nodes it may strike") {
                None => {}
                Some(KnobValue::List(items)) => {
                    let mut nodes = Vec::new();
                    for item in items {
                        let KnobValue::Str(name) = item.value else {
                            return Err(kk.error("nodes", "node names must be strings"));
                        };
                        let node = resolve(&kk, "nodes", &name)?;
                        let role = topology[node.index()].1;
                        if let Some(why) = cannot_strike(kind, &name, role, &topology, &failover) {
                            return Err(kk.error("nodes", format!("{kind} cannot strike {name}: {why}")));
                        }
                        nodes.push(node);
                    }
                    if nodes.is_empty() {
                        return Err(kk.error("nodes", "name at least one node"));
                    }
                    limits.nodes = nodes;
                }
                Some(other) => {
                    return Err(kk.error(
                        "nodes",
                        format!(
                            "must be an array of node names (nodes = [\"client-0\"]), not {}",
                            other.type_name()
                        ),
                    ));
                }
            }
            if kind == FaultKind::Failover {
                if kk.has("max_ms") {
                    return Err(kk.error(
                        "max_ms",
                        "a failover has no magnitude (it promotes the replica at once): only `nodes` applies",
                    ));
                }
                kk.finish()?;
                continue;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{LoadError, parse_with_space};

    const BASE: &str = "name = \"s\"\n[protocol]\nkind = \"single-redis\"\nclients = 2\n";

    fn space(explore: &str) -> Result<FaultSpace, LoadError> {
        parse_with_space("s.toml", &format!("{BASE}{explore}")).map(|(_, space)| space)
    }

    fn refused(explore: &str, key: &str, needles: &[&str]) {
        let e = space(explore).expect_err(explore);
        assert_eq!(e.key.as_deref(), Some(key), "{e}");
        for needle in needles {
            assert!(e.message.contains(needle), "{explore}: {needle:?} in {e}");
        }
    }

    #[test]
    fn nodes_must_be_an_array() {
        refused(
            "[explore]\nfaults = [\"pause\"]\n[explore.pause]\nnodes = \"client-0\"\n",
            "explore.pause.nodes",
            &["array of node names", "a string"],
        );
        let ok = space("[explore]\nfaults = [\"pause\"]\n[explore.pause]\nnodes = [\"client-1\"]\n").expect("loads");
        assert_eq!(ok.kinds[&FaultKind::Pause].nodes, [NodeId(1)]);
    }

    #[test]
    fn nodes_are_checked_by_the_rules_of_the_default_space() {
        let replicated = |explore: &str| parse_with_space("s.toml", &format!("{BASE}replicas = 1\n{explore}"));
        let e = replicated("[explore]\nfaults = [\"failover\"]\n[explore.failover]\nnodes = [\"client-0\"]\n")
            .expect_err("a client has no replica");
        assert_eq!(e.key.as_deref(), Some("explore.failover.nodes"), "{e}");
        assert!(
            e.message.contains("failover promotes a replica, and client-0 has none"),
            "{e}"
        );
        refused(
            "[explore]\nfaults = [\"delay\"]\n[explore.delay]\nnodes = [\"server-0\"]\n",
            "explore.delay.nodes",
            &["server-0", "is a server"],
        );
        refused(
            "[explore.pause]\nnodes = [\"client-0\", \"resource\"]\n",
            "explore.pause.nodes",
            &["resource", "reads no clock"],
        );
        let (_, ok) = replicated("[explore]\nfaults = [\"failover\"]\n[explore.failover]\nnodes = [\"server-0\"]\n")
            .expect("server-0 has a replica");
        assert_eq!(ok.kinds[&FaultKind::Failover].nodes.len(), 1);
        // Crashes strike anything, including the resource.
        space("[explore]\nfaults = [\"crash\"]\n[explore.crash]\nnodes = [\"resource\"]\n").expect("loads");
    }

    #[test]
    fn a_kind_listed_twice_is_refused() {
        refused(
            "[explore]\nfaults = [\"pause\", \"crash\", \"pause\"]\n",
            "explore.faults",
            &["\"pause\" is listed twice"],
        );
    }

    #[test]
    fn failover_has_no_magnitude() {
        let replicated =
            format!("{BASE}replicas = 1\n[explore]\nfaults = [\"failover\"]\n[explore.failover]\nmax_ms = 5000\n");
        let e = parse_with_space("s.toml", &replicated).expect_err("max_ms refused");
        assert_eq!(e.key.as_deref(), Some("explore.failover.max_ms"), "{e}");
        assert!(e.message.contains("no magnitude"), "{e}");
        assert_eq!(FaultKind::Failover.max_key(), "max_ms");
    }

    #[test]
    fn fix_is_skipped_but_must_be_a_table() {
        let ok = space("[explore]\nfaults = [\"pause\"]\n[explore.fix.protocol]\nrenew = \"checked\"\nanything = 1\n")
            .expect("fix is not interpreted here");
        assert_eq!(ok.kinds.keys().collect::<Vec<_>>(), [&FaultKind::Pause]);
        space("[explore.fix]\nprotocol = { deadline_check = \"checked\" }\n").expect("an inline table is a table");
        refused(
            "[explore]\nfix = \"checked\"\n",
            "explore.fix",
            &["must be a table", "a string"],
        );
    }
}
