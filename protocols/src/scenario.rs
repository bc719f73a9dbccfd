//! A scenario, validated and resolved: what `World::new` needs plus the expected verdicts.
//! Built from a TOML file by the CLI's loader, or directly in Rust by a user's test.

use locksim_sim::{ClockSpec, FaultPlan, Invariant, Names, NetworkConfig, NodeId};

use crate::etcd::EtcdLease;
use crate::protocol::Protocol;
use crate::redis::SingleRedis;
use crate::redlock::Redlock;
use crate::resource::ResourceConfig;
use crate::scheduler::Scheduler;
use crate::session::SessionCas;
use crate::snowflake::Snowflake;

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

/// What a node is: the loader resolves a fault's `after` against the events the protocol says
/// a node of that role records.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    Client,
    Server,
    Resource,
}

/// A protocol model with its knobs. Everything about it goes through [`Protocol`]; this enum
/// only makes the configurations comparable and clonable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolConfig {
    SingleRedis(SingleRedis),
    Redlock(Redlock),
    EtcdLease(EtcdLease),
    Snowflake(Snowflake),
    SessionCas(SessionCas),
    Scheduler(Scheduler),
}

impl ProtocolConfig {
    /// The model behind the configuration.
    pub fn model(&self) -> &dyn Protocol {
        match self {
            ProtocolConfig::SingleRedis(p) => p,
            ProtocolConfig::Redlock(p) => p,
            ProtocolConfig::EtcdLease(p) => p,
            ProtocolConfig::Snowflake(p) => p,
            ProtocolConfig::SessionCas(p) => p,
            ProtocolConfig::Scheduler(p) => p,
        }
    }

    pub fn kind(&self) -> &'static str {
        self.model().kind()
    }

    pub fn topology(&self) -> Vec<(String, Role)> {
        self.model().topology()
    }

    pub fn events(&self, role: Role) -> &'static [&'static str] {
        self.model().events(role)
    }

    pub fn failover_targets(&self) -> Vec<String> {
        self.model().failover_targets()
    }

    pub fn has_resource(&self) -> bool {
        self.model().has_resource()
    }

    pub fn has_store_resource(&self) -> bool {
        self.model().has_store_resource()
    }

    pub fn issues_tokens(&self) -> bool {
        self.model().issues_tokens()
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
    /// Its nodes' names, in node order (what a fault plan's node ids refer to).
    pub fn names(&self) -> Names {
        Names::new(self.protocol.topology().into_iter().map(|(n, _)| n).collect())
    }

    /// The clock spec of node `index` (default: exact, offset 0).
    pub fn clock_of(&self, node: NodeId) -> ClockSpec {
        self.clocks
            .iter()
            .rev()
            .find(|(n, _)| *n == node)
            .map_or(ClockSpec::default(), |(_, c)| *c)
    }
}
