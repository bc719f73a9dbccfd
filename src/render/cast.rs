//! Who is who in a diagram: each node's role, and which nodes are the lock servers, as the
//! scenario's protocol declares them in its layout. A trace file carries its scenario, so a
//! diagram drawn from one knows the same cast as the live run; no renderer guesses a node's
//! role from its name. The same scenario gives the diagram its caption ([`Caption`]).

use locksim_protocols::lock::SERVER_GROUP;
use locksim_protocols::{Role, Scenario};

use super::caption::Caption;

/// The nodes of a run, with their roles, in the protocol's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cast {
    nodes: Vec<(String, Role)>,
    /// The lock servers' names: bit i of a grant set is `lock_servers[i]`.
    lock_servers: Vec<String>,
    /// What the diagram is about: the scenario, and the seed of the run drawn.
    caption: Caption,
}

impl Cast {
    /// Each node's name and role, and the lock servers' names in grant-bit order.
    pub fn new(nodes: Vec<(String, Role)>, lock_servers: Vec<String>) -> Self {
        Cast {
            nodes,
            lock_servers,
            caption: Caption::default(),
        }
    }

    /// The cast of `scenario`'s protocol: the one place the renderers learn roles from.
    pub fn of(scenario: &Scenario) -> Self {
        let layout = scenario.protocol.layout();
        let nodes: Vec<(String, Role)> = layout.nodes().iter().map(|n| (n.name.clone(), n.role)).collect();
        let lock_servers = layout
            .group_members(SERVER_GROUP)
            .iter()
            .map(|id| nodes[id.index()].0.clone())
            .collect();
        Cast {
            nodes,
            lock_servers,
            caption: Caption::of(scenario, scenario.seed),
        }
    }

    /// The same cast for a run with `seed` (`--seed` overrides the scenario's own).
    pub fn seeded(mut self, seed: u64) -> Self {
        self.caption.seed = seed;
        self
    }

    /// The same cast for a run loaded from `file` (as named to `locksim`): its caption can then
    /// say how to run it again.
    pub fn from_file(mut self, file: &str) -> Self {
        self.caption.file = file.to_string();
        self
    }

    /// What the diagram is about.
    pub fn caption(&self) -> &Caption {
        &self.caption
    }

    /// The role of the node called `name`, if the cast has it.
    pub fn role(&self, name: &str) -> Option<Role> {
        self.nodes.iter().find(|(n, _)| n == name).map(|(_, role)| *role)
    }

    /// The servers an acquisition's `servers` set numbers, in bit order. A server outside it (a
    /// replica, a token counter) grants no lock.
    pub fn lock_servers(&self) -> &[String] {
        &self.lock_servers
    }
}
