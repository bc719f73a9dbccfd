//! The protocol registry: one line per model. The CLI, the loader, `locksim list` and the
//! tests find protocols here; nothing in the models imports it.

use locksim_sim::Invariant;

use crate::protocol::ProtocolSpec;

/// The built-in models, in the order `locksim list` shows them. A model is registered by its
/// line here (and its `pub mod` in lib.rs), and nowhere else.
pub static PROTOCOLS: &[&ProtocolSpec] = &[
    &crate::redis::SPEC,
    &crate::redlock::SPEC,
    &crate::etcd::SPEC,
    &crate::snowflake::SPEC,
    &crate::session::SPEC,
    &crate::scheduler::SPEC,
    &crate::zookeeper::SPEC,
    &crate::election::SPEC,
    &crate::segment_ids::SPEC,
    &crate::uuidv7::SPEC,
    &crate::postgres_lease::SPEC,
    &crate::refund::SPEC,
];

/// The built-in model of `kind`.
pub fn find(kind: &str) -> Option<&'static ProtocolSpec> {
    Registry::builtin().find(kind)
}

/// Every invariant a built-in model judges, in registry order.
pub fn invariants() -> Vec<Invariant> {
    Registry::builtin().invariants()
}

/// The invariant a built-in model judges with id `id`.
pub fn invariant(id: &str) -> Option<Invariant> {
    Registry::builtin().invariant(id)
}

/// The models a scenario's `kind` resolves against: the built-ins, plus a user's own.
#[derive(Clone)]
pub struct Registry {
    specs: Vec<&'static ProtocolSpec>,
}

impl Registry {
    /// The built-in models.
    pub fn builtin() -> Self {
        Registry {
            specs: PROTOCOLS.to_vec(),
        }
    }

    /// These models and `spec` after them.
    pub fn with(mut self, spec: &'static ProtocolSpec) -> Self {
        self.specs.push(spec);
        self
    }

    /// The models, in registration order.
    pub fn specs(&self) -> &[&'static ProtocolSpec] {
        &self.specs
    }

    /// The registered kinds, in order.
    pub fn kinds(&self) -> Vec<&'static str> {
        self.specs.iter().map(|p| p.kind).collect()
    }

    /// The model of `kind`.
    pub fn find(&self, kind: &str) -> Option<&'static ProtocolSpec> {
        self.specs.iter().copied().find(|p| p.kind == kind)
    }

    /// Every invariant some model judges, once each, in registration order (each model's in
    /// its verdict order).
    pub fn invariants(&self) -> Vec<Invariant> {
        let mut all: Vec<Invariant> = Vec::new();
        for &i in self.specs.iter().flat_map(|p| p.invariants) {
            if !all.contains(&i) {
                all.push(i);
            }
        }
        all
    }

    /// The invariant with id `id`, if some model judges it.
    pub fn invariant(&self, id: &str) -> Option<Invariant> {
        self.invariants().into_iter().find(|i| i.id() == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_invariants_are_the_models_in_registry_order() {
        let ids: Vec<&str> = invariants().iter().map(|i| i.id()).collect();
        assert_eq!(
            ids,
            [
                "mutual_exclusion",
                "fencing_order",
                "stale_write",
                "lost_update",
                "token_monotonic",
                "liveness",
                "unique_ids",
                "id_monotonic",
                "session_revocation",
                "session_deadline",
                "exactly_once",
                "one_leader_per_term",
                "linearizable",
                "no_deposed_write",
                "id_global_order",
                "single_charge",
                "single_ledger_row",
            ]
        );
        let meanings: std::collections::BTreeSet<&str> = invariants().iter().map(|i| i.meaning()).collect();
        assert_eq!(meanings.len(), ids.len(), "each invariant means something of its own");
        assert!(!meanings.contains(""));
        for i in invariants() {
            assert_eq!(invariant(i.id()), Some(i));
        }
        assert_eq!(invariant("mutual-exclusion"), None);
    }
}
