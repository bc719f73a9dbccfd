//! The scenario's node names, resolved against its protocol's topology.

use locksim_protocols::Role;
use locksim_protocols::knobs::{KnobError, Knobs};
use locksim_sim::NodeId;

pub struct Topology(Vec<(String, Role)>);

impl Topology {
    pub fn new(nodes: Vec<(String, Role)>) -> Self {
        Topology(nodes)
    }

    fn list(&self) -> String {
        self.0.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
    }

    /// The node called `name`, or an error at `key` listing the nodes there are.
    pub fn resolve(&self, k: &Knobs, key: &str, name: &str) -> Result<(NodeId, Role), KnobError> {
        self.0
            .iter()
            .position(|(n, _)| n == name)
            .map(|i| (NodeId(i as u32), self.0[i].1))
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
        self.0.len()
    }

    pub fn name(&self, node: NodeId) -> &str {
        &self.0[node.index()].0
    }
}
