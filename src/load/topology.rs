//! The scenario's node names, resolved against its protocol's layout.

use locksim_protocols::knobs::{KnobError, Knobs, did_you_mean};
use locksim_protocols::{Layout, Protocol};
use locksim_sim::NodeId;

pub struct Topology {
    layout: Layout,
    /// Primaries with a replica: what a `failover` may name.
    failover_targets: Vec<String>,
}

impl Topology {
    pub fn of(protocol: &dyn Protocol) -> Self {
        Topology {
            layout: protocol.layout(),
            failover_targets: protocol.failover_targets(),
        }
    }

    /// No nodes at all (for documenting sections that name none).
    pub fn empty() -> Self {
        Topology {
            layout: Layout::default(),
            failover_targets: Vec::new(),
        }
    }

    /// The events `node` records.
    pub fn events(&self, node: NodeId) -> &'static [&'static str] {
        self.layout.nodes()[node.index()].events
    }

    fn list(&self) -> String {
        self.layout
            .nodes()
            .iter()
            .map(|n| n.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether a `failover` can promote a replica of `node`.
    pub fn can_fail_over(&self, node: NodeId) -> bool {
        self.failover_targets.iter().any(|t| t == self.name(node))
    }

    /// The node called `name`, or an error at `key` listing the nodes there are.
    pub fn resolve(&self, k: &Knobs, key: &str, name: &str) -> Result<NodeId, KnobError> {
        self.layout.find(name).ok_or_else(|| {
            k.error(
                key,
                format!(
                    "unknown node \"{name}\"; this scenario's nodes are {}{}",
                    self.list(),
                    did_you_mean(name, self.layout.nodes().iter().map(|n| n.name.as_str()))
                ),
            )
        })
    }

    /// Reads a required node-name knob.
    pub fn node(&self, k: &mut Knobs, key: &str, doc: &'static str) -> Result<NodeId, KnobError> {
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
        self.node(k, key, doc).map(Some)
    }

    pub fn len(&self) -> usize {
        self.layout.len()
    }

    pub fn name(&self, node: NodeId) -> &str {
        &self.layout.nodes()[node.index()].name
    }
}
