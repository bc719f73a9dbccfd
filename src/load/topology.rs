//! The scenario's node names, resolved against its protocol's topology.

use locksim_protocols::knobs::{KnobError, Knobs};
use locksim_protocols::{ProtocolConfig, Role};
use locksim_sim::NodeId;

pub struct Topology {
    nodes: Vec<(String, Role)>,
    /// Primaries with a replica: what a `failover` may name.
    failover_targets: Vec<String>,
    /// The events each role records, in `Role` order (client, server, resource).
    events: [&'static [&'static str]; 3],
}

impl Topology {
    pub fn of(protocol: &ProtocolConfig) -> Self {
        Topology {
            nodes: protocol.topology(),
            failover_targets: protocol.failover_targets(),
            events: [Role::Client, Role::Server, Role::Resource].map(|r| protocol.events(r)),
        }
    }

    /// No nodes at all (for documenting sections that name none).
    pub fn empty() -> Self {
        Topology {
            nodes: Vec::new(),
            failover_targets: Vec::new(),
            events: [&[]; 3],
        }
    }

    /// The events a node of `role` records.
    pub fn events(&self, role: Role) -> &'static [&'static str] {
        self.events[role as usize]
    }

    fn list(&self) -> String {
        self.nodes
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether a `failover` can promote a replica of `node`.
    pub fn can_fail_over(&self, node: NodeId) -> bool {
        self.failover_targets.iter().any(|t| *t == self.nodes[node.index()].0)
    }

    /// The node called `name`, or an error at `key` listing the nodes there are.
    pub fn resolve(&self, k: &Knobs, key: &str, name: &str) -> Result<(NodeId, Role), KnobError> {
        self.nodes
            .iter()
            .position(|(n, _)| n == name)
            .map(|i| (NodeId(i as u32), self.nodes[i].1))
            .ok_or_else(|| {
                k.error(
                    key,
                    format!("unknown node \"{name}\"; this scenario's nodes are {}", self.list()),
                )
            })
    }

    /// Reads a required node-name knob.
    pub fn node(&self, k: &mut Knobs, key: &str, doc: &'static str) -> Result<(NodeId, Role), KnobError> {
        if !k.has(key) {
            return Err(k.error(
                key,
                format!("missing: this entry needs `{key}` (one of {})", self.list()),
            ));
        }
        let name = k.text(key, "", doc)?;
        self.resolve(k, key, &name)
    }

    /// Reads an optional node-name knob.
    pub fn optional_node(&self, k: &mut Knobs, key: &str, doc: &'static str) -> Result<Option<NodeId>, KnobError> {
        if !k.has(key) {
            return Ok(None);
        }
        self.node(k, key, doc).map(|(n, _)| Some(n))
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn name(&self, node: NodeId) -> &str {
        &self.nodes[node.index()].0
    }
}
