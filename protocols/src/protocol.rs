//! What every protocol model offers the loader, the registry and `locksim list`. A model is a
//! configuration (its parsed knobs) that knows its nodes, the events they record, and how to
//! run and judge a scenario; adding a model means implementing this and listing it in
//! `registry::PROTOCOLS` and `ProtocolConfig`.

use std::fmt::Debug;

use locksim_sim::Level;

use crate::registry::Outcome;
use crate::scenario::{Role, Scenario};

pub trait Protocol: Debug {
    /// `kind` in `[protocol]`.
    fn kind(&self) -> &'static str;
    /// The world's nodes in `NodeId` order, with their roles.
    fn topology(&self) -> Vec<(String, Role)>;
    /// The events a node of `role` records: what a fault's `after` may name.
    fn events(&self, role: Role) -> &'static [&'static str];
    /// The nodes a `failover` fault may name: primaries that have a replica.
    fn failover_targets(&self) -> Vec<String> {
        Vec::new()
    }
    /// Whether the scenario may configure a fenced resource (`[resource]`).
    fn has_resource(&self) -> bool {
        false
    }
    /// Whether the protocol's own store can hold the protected counter (`kind = "etcd-txn"`).
    fn has_store_resource(&self) -> bool {
        false
    }
    /// Whether the lock service hands out fencing tokens a resource could check.
    fn issues_tokens(&self) -> bool {
        false
    }
    /// Runs `s` with `seed` and judges it.
    fn run(&self, s: &Scenario, seed: u64, level: Level) -> Outcome;
}
