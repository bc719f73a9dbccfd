//! A model's nodes, declared once. The declaration gives each node its name, its role and the
//! events it records, and hands back the ids it assigned, so the world a model builds and the
//! names a scenario's faults resolve against cannot drift apart.

use locksim_sim::{ClockSpec, Names, NodeId, NodeSetup};

/// What a node is: faults and `explore` pick their targets by role.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    Client,
    Server,
    Resource,
}

/// One node of a world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeDecl {
    pub name: String,
    pub role: Role,
    /// What a fault's `after` may name on this node.
    pub events: &'static [&'static str],
}

/// The nodes of a world in `NodeId` order (a node's id is its position).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    nodes: Vec<NodeDecl>,
    /// The events of each role, as first declared — also by a group of no nodes, so that
    /// `locksim list` documents the events of a role the default knobs leave out.
    role_events: Vec<(Role, &'static [&'static str])>,
    /// Each group's prefix and members, as declared: a model's vocabulary can say which group
    /// it numbers (a lock grant's bit i is the i-th member of the lock servers' group).
    groups: Vec<(String, Vec<NodeId>)>,
}

impl Layout {
    /// Declares `count` nodes `<prefix>-0`, `<prefix>-1`, ... and returns their ids.
    pub fn group(&mut self, prefix: &str, count: u32, role: Role, events: &'static [&'static str]) -> Vec<NodeId> {
        self.note_role(role, events);
        let members: Vec<NodeId> = (0..count)
            .map(|i| self.push(format!("{prefix}-{i}"), role, events))
            .collect();
        self.groups.push((prefix.to_string(), members.clone()));
        members
    }

    /// The members of the group declared with `prefix`, in order (none if there is no such
    /// group).
    pub fn group_members(&self, prefix: &str) -> &[NodeId] {
        self.groups
            .iter()
            .find(|(p, _)| p == prefix)
            .map_or(&[], |(_, members)| members.as_slice())
    }

    /// Declares one node called `name` and returns its id.
    pub fn one(&mut self, name: &str, role: Role, events: &'static [&'static str]) -> NodeId {
        self.note_role(role, events);
        self.push(name.to_string(), role, events)
    }

    fn note_role(&mut self, role: Role, events: &'static [&'static str]) {
        if !self.role_events.iter().any(|(r, _)| *r == role) {
            self.role_events.push((role, events));
        }
    }

    fn push(&mut self, name: String, role: Role, events: &'static [&'static str]) -> NodeId {
        self.nodes.push(NodeDecl { name, role, events });
        NodeId(self.nodes.len() as u32 - 1)
    }

    /// The nodes, in id order.
    pub fn nodes(&self) -> &[NodeDecl] {
        &self.nodes
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node called `name`.
    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.name == name).map(|i| NodeId(i as u32))
    }

    /// The nodes' names, in id order (what a history names nodes by).
    pub fn names(&self) -> Names {
        Names::new(self.nodes.iter().map(|n| n.name.clone()).collect())
    }

    /// The events nodes of `role` record, as the model declared them (empty for a role it has
    /// no group of).
    pub fn role_events(&self, role: Role) -> &'static [&'static str] {
        self.role_events
            .iter()
            .find(|(r, _)| *r == role)
            .map_or(&[], |(_, events)| *events)
    }

    /// Starts the world's node setups: each takes its name from this layout and its clock
    /// from `clock_of` (`Setting::clock_of`).
    pub fn setups<N, C: Fn(NodeId) -> ClockSpec>(&self, clock_of: C) -> Setups<'_, N, C> {
        Setups {
            layout: self,
            clock_of,
            nodes: Vec::with_capacity(self.nodes.len()),
        }
    }
}

/// A world's node setups being filled in, in layout order.
pub struct Setups<'a, N, C> {
    layout: &'a Layout,
    clock_of: C,
    nodes: Vec<NodeSetup<N>>,
}

impl<N, C: Fn(NodeId) -> ClockSpec> Setups<'_, N, C> {
    /// Adds the model of node `id`, named as the layout says.
    /// Nodes come in id order: anything else is a bug in the model's `build`.
    pub fn add(&mut self, id: NodeId, model: N) {
        assert_eq!(id.index(), self.nodes.len(), "nodes are set up in layout order");
        self.nodes.push(NodeSetup {
            name: self.layout.nodes[id.index()].name.clone(),
            clock: (self.clock_of)(id),
            model,
        });
    }

    /// The setups, once every declared node has one.
    pub fn finish(self) -> Vec<NodeSetup<N>> {
        assert_eq!(self.nodes.len(), self.layout.len(), "every declared node is set up");
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_positions_and_groups_are_numbered_from_zero() {
        let mut layout = Layout::default();
        let clients = layout.group("client", 2, Role::Client, &["a"]);
        let none = layout.group("replica", 0, Role::Server, &["b"]);
        let server = layout.one("server-0", Role::Server, &["c"]);
        assert_eq!(clients, [NodeId(0), NodeId(1)]);
        assert!(none.is_empty());
        assert_eq!(server, NodeId(2));
        assert_eq!(layout.find("client-1"), Some(NodeId(1)));
        assert_eq!(layout.find("replica-0"), None);
        // The first declaration of a role gives its events, even with no node.
        assert_eq!(layout.role_events(Role::Server), ["b"]);
        assert_eq!(layout.role_events(Role::Resource), [] as [&str; 0]);
    }
}
