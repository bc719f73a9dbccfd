//! Who is who in a diagram: each node's role, as the scenario's protocol declares it. A trace
//! file carries its scenario, so a diagram drawn from one knows the same roles as the live run;
//! no renderer guesses a node's role from its name.

use locksim_protocols::{Role, Scenario};

/// The nodes of a run, with their roles, in the protocol's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cast {
    nodes: Vec<(String, Role)>,
}

impl Cast {
    /// Each node's name and role.
    pub fn new(nodes: Vec<(String, Role)>) -> Self {
        Cast { nodes }
    }

    /// The cast of `scenario`'s protocol: the one place the renderers learn roles from.
    pub fn of(scenario: &Scenario) -> Self {
        Cast::new(
            scenario
                .protocol
                .layout()
                .nodes()
                .iter()
                .map(|n| (n.name.clone(), n.role))
                .collect(),
        )
    }

    /// The role of the node called `name`, if the cast has it.
    pub fn role(&self, name: &str) -> Option<Role> {
        self.nodes.iter().find(|(n, _)| n == name).map(|(_, role)| *role)
    }

    /// How many lock servers an acquisition's `servers` set counts from: the lock vocabulary
    /// numbers them (bit i is the server named `server-i`, see `LockObs::Acquired`), so they
    /// are the cast's servers with those names, from `server-0` on. A server outside that set
    /// (a replica, a token counter) grants no lock.
    pub(crate) fn lock_servers(&self) -> usize {
        (0..)
            .take_while(|i| self.role(&lock_server_name(*i)) == Some(Role::Server))
            .count()
    }
}

/// The name the lock vocabulary gives the server of bit `i` of a grant set.
pub(crate) fn lock_server_name(i: usize) -> String {
    format!("server-{i}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cast(nodes: &[(&str, Role)]) -> Cast {
        Cast::new(nodes.iter().map(|(n, r)| (n.to_string(), *r)).collect())
    }

    #[test]
    fn lock_servers_are_the_numbered_servers() {
        use Role::{Client, Resource, Server};
        let sentinel = cast(&[
            ("client-0", Client),
            ("server-0", Server),
            ("replica-0", Server),
            ("resource", Resource),
        ]);
        assert_eq!(sentinel.lock_servers(), 1, "a replica grants nothing");
        let redlock = cast(&[
            ("client-0", Client),
            ("server-0", Server),
            ("server-1", Server),
            ("server-2", Server),
            ("counter", Server),
        ]);
        assert_eq!(redlock.lock_servers(), 3, "nor does a token counter");
        assert_eq!(cast(&[("server-0", Client)]).lock_servers(), 0, "a role, not a name");
        assert_eq!(redlock.role("counter"), Some(Server));
        assert_eq!(redlock.role("nobody"), None);
    }
}
