//! The partitions in force. Each is kept as the side every node is on (one entry per node),
//! not as the links it cuts: splitting 1,000 nodes in two cuts 500,000 links, and a table per
//! pair of nodes would cost n² memory in every run, cut or not.

use crate::ids::NodeId;

/// A node in none of a partition's groups.
const OUTSIDE: u32 = u32::MAX;

/// One partition in force.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Cut {
    /// Per node, the index of its group, or [`OUTSIDE`].
    side: Vec<u32>,
    one_way: bool,
}

impl Cut {
    /// The link `from -> to` is cut when its ends are in different groups (and, one way, when
    /// it leaves the first group).
    fn severs(&self, from: NodeId, to: NodeId) -> bool {
        let (a, b) = (self.side[from.index()], self.side[to.index()]);
        a != OUTSIDE && b != OUTSIDE && a != b && (!self.one_way || a == 0)
    }
}

/// Every partition in force, in the order they started.
#[derive(Clone, Debug, Default)]
pub(super) struct Cuts {
    nodes: usize,
    active: Vec<Cut>,
}

impl Cuts {
    pub(super) fn new(nodes: usize) -> Self {
        Cuts {
            nodes,
            active: Vec::new(),
        }
    }

    /// The partition of these `groups`, which are disjoint (the loader refuses a node in two
    /// groups; a node listed twice counts in its last group).
    fn cut_of(&self, groups: &[Vec<NodeId>], one_way: bool) -> Cut {
        let mut side = vec![OUTSIDE; self.nodes];
        for (g, group) in groups.iter().enumerate() {
            for n in group {
                side[n.index()] = g as u32;
            }
        }
        Cut { side, one_way }
    }

    /// Starts cutting the links between `groups`.
    pub(super) fn add(&mut self, groups: &[Vec<NodeId>], one_way: bool) {
        let cut = self.cut_of(groups, one_way);
        self.active.push(cut);
    }

    /// Heals one partition of these `groups`; links another partition also cuts stay cut.
    pub(super) fn remove(&mut self, groups: &[Vec<NodeId>], one_way: bool) {
        let cut = self.cut_of(groups, one_way);
        if let Some(i) = self.active.iter().position(|c| *c == cut) {
            self.active.remove(i);
        }
    }

    /// Whether no partition is in force: then no link is cut.
    pub(super) fn is_empty(&self) -> bool {
        self.active.is_empty()
    }

    /// Whether any partition in force cuts `from -> to`.
    pub(super) fn severs(&self, from: NodeId, to: NodeId) -> bool {
        self.active.iter().any(|c| c.severs(from, to))
    }
}
