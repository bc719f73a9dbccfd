//! The setting a model runs in: everything a scenario decides about a run besides the model
//! itself (how long, over which network, with which clocks, faults and protected resource).
//!
//! It is what [`Protocol::run`](crate::Protocol::run) receives, rather than the whole
//! [`Scenario`](crate::Scenario): a scenario holds its model, so a model that took the
//! scenario would depend on what depends on it. A [`Setting`] borrows the scenario's parts
//! (`Scenario::setting` lends it), so handing it to a model copies nothing.

use locksim_sim::{ClockSpec, FaultPlan, NetworkConfig, NodeId};

use crate::lock::resource::ResourceConfig;

/// One run's setting, borrowed from its scenario.
#[derive(Copy, Clone, Debug)]
pub struct Setting<'a> {
    pub duration_ns: u64,
    pub network: &'a NetworkConfig,
    /// Per-node clock specs; a node listed more than once takes its last.
    pub clocks: &'a [(NodeId, ClockSpec)],
    pub faults: &'a FaultPlan,
    pub resource: ResourceConfig,
    /// The most events the run may handle (the engine's budget).
    pub max_events: u64,
}

impl Setting<'_> {
    /// The clock spec of `node` (default: exact, offset 0).
    pub fn clock_of(&self, node: NodeId) -> ClockSpec {
        self.clocks
            .iter()
            .rev()
            .find(|(n, _)| *n == node)
            .map_or(ClockSpec::default(), |(_, c)| *c)
    }
}
