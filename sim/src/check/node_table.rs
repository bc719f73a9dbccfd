//! Per-node values for a checker's bookkeeping.

use crate::ids::NodeId;

/// Per-node values, indexed by node: what a checker keeps per node when it only looks values
/// up (a `BTreeMap<NodeId, T>` costs a tree walk, and an allocation per insert, on every
/// fact). It grows to the nodes it is asked about; a node never written reads as the default.
#[derive(Default)]
pub struct NodeTable<T>(Vec<T>);

impl<T: Default> NodeTable<T> {
    pub fn new() -> Self {
        NodeTable(Vec::new())
    }

    pub fn get_mut(&mut self, node: NodeId) -> &mut T {
        let i = node.index();
        if self.0.len() <= i {
            self.0.resize_with(i + 1, T::default);
        }
        &mut self.0[i]
    }

    /// Every node's value, in node order (nodes never written included, with the default).
    pub fn into_entries(self) -> impl Iterator<Item = (NodeId, T)> {
        self.0.into_iter().enumerate().map(|(i, v)| (NodeId(i as u32), v))
    }
}

impl<T: Default + Copy> NodeTable<T> {
    pub fn get(&self, node: NodeId) -> T {
        self.0.get(node.index()).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_never_written_reads_as_the_default_and_entries_come_in_node_order() {
        let mut t: NodeTable<u32> = NodeTable::new();
        *t.get_mut(NodeId(2)) = 7;
        assert_eq!((t.get(NodeId(0)), t.get(NodeId(2)), t.get(NodeId(9))), (0, 7, 0));
        let entries: Vec<(NodeId, u32)> = t.into_entries().collect();
        assert_eq!(entries, [(NodeId(0), 0), (NodeId(1), 0), (NodeId(2), 7)]);
    }
}
