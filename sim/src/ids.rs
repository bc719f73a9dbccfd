//! Node identities. A node is an index into the world's node table; its name
//! (`client-0`, `server-2`, `resource`) lives in [`Names`].

use serde::{Deserialize, Serialize};

use crate::escape::push_escaped;

/// Index of a simulated node. `NodeId::NET` stands for the network itself in history
/// events that belong to no single node (a partition starting, a link healing).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The network, for events that are not any node's.
    pub const NET: NodeId = NodeId(u32::MAX);
    /// The name the history gives the network's events' node.
    pub const NET_NAME: &'static str = "network";

    /// The index into per-node tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The names of a world's nodes, by index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    names: Vec<String>,
    /// Each name as the inside of a JSON string: escaped once here rather than in every trace
    /// line that names the node (most lines name one or two).
    json: Vec<String>,
}

impl Names {
    pub fn new(names: Vec<String>) -> Self {
        let json = names
            .iter()
            .map(|name| {
                let mut json = String::new();
                push_escaped(&mut json, name);
                json
            })
            .collect();
        Names { names, json }
    }

    /// The node's name; `network` for [`NodeId::NET`].
    pub fn of(&self, id: NodeId) -> &str {
        if id == NodeId::NET {
            NodeId::NET_NAME
        } else {
            &self.names[id.index()]
        }
    }

    /// [`Names::of`] escaped for a JSON string.
    pub(crate) fn json(&self, id: NodeId) -> &str {
        if id == NodeId::NET {
            NodeId::NET_NAME
        } else {
            &self.json[id.index()]
        }
    }

    /// The node called `name`, if there is one.
    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.names.iter().position(|n| n == name).map(|i| NodeId(i as u32))
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (NodeId, &str)> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, n)| (NodeId(i as u32), n.as_str()))
    }
}
