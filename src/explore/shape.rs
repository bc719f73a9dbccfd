//! What exploration needs to know about a world: its nodes with their roles and the events
//! each records, the failover targets, the run's length and the faults every plan starts with.
//! Both the default fault space ([`FaultSpace::defaults_for`](FaultSpace::defaults_for))
//! and the plan strategies ([`plans`](super::plans)) read it, so it lives apart from both.

use locksim_protocols::{Role, Scenario};
use locksim_sim::time::NS_PER_MS;
use locksim_sim::{Names, NodeId};

use crate::fault_space::FaultSpace;

use super::plan::Plan;

/// One node of a [`PlanShape`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeNode {
    pub name: String,
    /// Decides which kinds strike it by default ([`FaultSpace::defaults_for`](FaultSpace::defaults_for)).
    pub role: Role,
    /// The events it records: what a fault's `after` on it may name. A node that records
    /// none is struck `after` a client's event instead.
    pub events: Vec<String>,
}

/// What a plan strategy needs to know about a world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanShape {
    /// The world's nodes, in `NodeId` order.
    pub nodes: Vec<ShapeNode>,
    /// The nodes a `failover` may name (primaries with a replica).
    pub failover_targets: Vec<String>,
    /// The run's length: time triggers fall in its first three quarters.
    pub duration_ms: u64,
    /// The entries every plan starts with (a scenario's own `[[fault]]`s).
    pub base: Plan,
}

impl PlanShape {
    /// The shape of a scenario: its protocol's nodes and events, and its own faults as the
    /// start of every plan.
    pub fn of(s: &Scenario) -> Self {
        PlanShape {
            nodes: s
                .protocol
                .layout()
                .nodes()
                .iter()
                .map(|n| ShapeNode {
                    name: n.name.clone(),
                    role: n.role,
                    events: n.events.iter().map(|e| e.to_string()).collect(),
                })
                .collect(),
            failover_targets: s.protocol.failover_targets(),
            duration_ms: s.duration_ns / NS_PER_MS,
            base: Plan::of(s),
        }
    }

    /// An empty shape for a run of `duration_ms`, to add nodes to.
    pub fn new(duration_ms: u64) -> Self {
        PlanShape {
            nodes: Vec::new(),
            failover_targets: Vec::new(),
            duration_ms,
            base: Plan::default(),
        }
    }

    /// Adds the next node (its `NodeId` is its position).
    pub fn node(mut self, name: &str, role: Role, events: &[&str]) -> Self {
        self.nodes.push(ShapeNode {
            name: name.to_string(),
            role,
            events: events.iter().map(|e| e.to_string()).collect(),
        });
        self
    }

    /// The node called `name`.
    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.name == name).map(|i| NodeId(i as u32))
    }

    /// The nodes' names, for rendering plans ([`Plan::to_toml`]).
    pub fn names(&self) -> Names {
        Names::new(self.nodes.iter().map(|n| n.name.clone()).collect())
    }
}

impl FaultSpace {
    /// The default space of a plan shape — a scenario's, or one built by hand for a protocol
    /// defined outside the crates: every kind with a node to strike, by the nodes' roles,
    /// exactly as [`FaultSpace::defaults`] does for a built-in protocol.
    pub fn defaults_for(shape: &PlanShape) -> Self {
        let topology: Vec<(String, Role)> = shape.nodes.iter().map(|n| (n.name.clone(), n.role)).collect();
        Self::defaults_over(&topology, &shape.failover_targets)
    }
}
