//! A scenario, validated and resolved: what `World::new` needs plus the expected verdicts.
//! Built from a TOML file by the CLI's loader, or directly in Rust by a user's test.

use locksim_sim::{ClockSpec, FaultPlan, Invariant, NetworkConfig, NodeId};

use crate::redis::SingleRedis;
use crate::redlock::Redlock;
use crate::resource::ResourceConfig;

/// What a scenario expects of an invariant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    Held,
    Violated,
    NotApplicable,
}

impl Expected {
    pub fn word(self) -> &'static str {
        match self {
            Expected::Held => "held",
            Expected::Violated => "violated",
            Expected::NotApplicable => "not_applicable",
        }
    }
}

/// What a node is, which decides the events a fault can wait for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    Client,
    Server,
    Resource,
}

impl Role {
    pub fn events(self) -> &'static [&'static str] {
        use locksim_sim::lock_obs::{CLIENT_EVENTS, RESOURCE_EVENTS, SERVER_EVENTS};
        match self {
            Role::Client => CLIENT_EVENTS,
            Role::Server => SERVER_EVENTS,
            Role::Resource => RESOURCE_EVENTS,
        }
    }
}

/// A protocol model with its knobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolConfig {
    SingleRedis(SingleRedis),
    Redlock(Redlock),
}

impl ProtocolConfig {
    pub fn kind(&self) -> &'static str {
        match self {
            ProtocolConfig::SingleRedis(_) => "single-redis",
            ProtocolConfig::Redlock(_) => "redlock",
        }
    }

    /// The world's nodes in `NodeId` order, with their roles.
    pub fn topology(&self) -> Vec<(String, Role)> {
        match self {
            ProtocolConfig::SingleRedis(p) => p.topology(),
            ProtocolConfig::Redlock(p) => p.topology(),
        }
    }

    /// The nodes a `failover` fault may name: primaries that have a replica.
    pub fn failover_targets(&self) -> Vec<String> {
        match self {
            ProtocolConfig::SingleRedis(p) => p.failover_targets(),
            ProtocolConfig::Redlock(_) => Vec::new(),
        }
    }

    /// Whether the lock service hands out fencing tokens a resource could check.
    pub fn issues_tokens(&self) -> bool {
        match self {
            ProtocolConfig::SingleRedis(p) => p.issues_tokens(),
            ProtocolConfig::Redlock(p) => p.issues_tokens(),
        }
    }
}

/// A runnable scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    /// The seed used when none is given on the command line.
    pub seed: u64,
    pub duration_ns: u64,
    pub protocol: ProtocolConfig,
    pub resource: ResourceConfig,
    pub network: NetworkConfig,
    pub clocks: Vec<(NodeId, ClockSpec)>,
    pub faults: FaultPlan,
    /// Expected verdicts, in invariant order.
    pub expect: Vec<(Invariant, Expected)>,
    /// The catalogue scenarios this one is paired with: the same story without its protection,
    /// expecting `violated` where this one expects `held` (tests/twins.rs checks the pairing).
    pub twins: Vec<String>,
}

impl Scenario {
    /// The clock spec of node `index` (default: exact, offset 0).
    pub fn clock_of(&self, node: NodeId) -> ClockSpec {
        self.clocks
            .iter()
            .rev()
            .find(|(n, _)| *n == node)
            .map_or(ClockSpec::default(), |(_, c)| *c)
    }
}
