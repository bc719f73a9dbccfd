//! The protocol registry: every model's kind, its summary, its knob parser, and how to run a
//! scenario of it. The CLI, `locksim list` and the tests find protocols here only.

use locksim_sim::trace::{TraceEvent, erase};
use locksim_sim::{History, Invariant, Level, Node, NodeSetup, Stats, Unfired, Verdict, World, WorldConfig};

use crate::etcd::EtcdLease;
use crate::ids::ID_INVARIANTS;
use crate::knobs::{KnobError, Knobs};
use crate::lock::check::LOCK_INVARIANTS;
use crate::redis::SingleRedis;
use crate::redlock::Redlock;
use crate::scenario::{ProtocolConfig, Scenario};
use crate::scheduler::Scheduler;
use crate::scheduler::check::SCHEDULER_INVARIANTS;
use crate::session::SessionCas;
use crate::session::check::SESSION_INVARIANTS;
use crate::snowflake::Snowflake;

/// One protocol model.
pub struct ProtocolSpec {
    pub kind: &'static str,
    pub summary: &'static str,
    pub parse: fn(&mut Knobs) -> Result<ProtocolConfig, KnobError>,
}

pub const PROTOCOLS: &[ProtocolSpec] = &[
    ProtocolSpec {
        kind: "single-redis",
        summary: "one Redis (optionally with async replicas, failover and min-replicas-to-write): SET NX PX lock, compare-and-delete release, optional renewal and INCR fencing tokens",
        parse: SingleRedis::parse,
    },
    ProtocolSpec {
        kind: "redlock",
        summary: "N independent Redis masters, majority quorum, validity = ttl - elapsed - (ttl * drift_factor + 2 ms); no fencing of its own",
        parse: Redlock::parse,
    },
    ProtocolSpec {
        kind: "etcd-lease",
        summary: "a Raft-replicated store with leases: the clientv3 Mutex recipe, revision fencing tokens, an optional counter inside the store (etcd-txn)",
        parse: EtcdLease::parse,
    },
    ProtocolSpec {
        kind: "snowflake",
        summary: "Snowflake ID generators: 41-bit ms since epoch_ms (own wall clock), 10-bit node ID (static or leased from server-0), 12-bit sequence; rollback, overflow and restart policies",
        parse: Snowflake::parse,
    },
    ProtocolSpec {
        kind: "session-cas",
        summary: "a shared session store (server-0) and app servers that read, work and save it; save by version CAS or last-write-wins, logout = revoke + version bump, idle refresh capped at the absolute deadline or not, expiry checked at read or left to a lazy cleanup",
        parse: SessionCas::parse,
    },
    ProtocolSpec {
        kind: "scheduler",
        summary: "scheduler instances firing (job, slot) by their own clocks, workers running the effect against a job store; dedup by the (job, slot) key in the effect's transaction, a done-mark written after it, or none",
        parse: Scheduler::parse,
    },
];

pub fn find(kind: &str) -> Option<&'static ProtocolSpec> {
    PROTOCOLS.iter().find(|p| p.kind == kind)
}

/// A finished run, with message and observation types erased.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub verdicts: Vec<Verdict>,
    /// Every event, erased for traces and timelines — with `Level::Full` only: building it
    /// costs several times the simulation itself, and exploration wants verdicts alone.
    pub trace: Vec<TraceEvent>,
    pub stats: Stats,
    pub end_ns: u64,
    /// The plan entries whose trigger never came (an `after` event that did not happen often
    /// enough): what the verdicts do not cover.
    pub unfired_faults: Vec<Unfired>,
}

/// Runs `s` with `seed` and judges it.
pub fn run(s: &Scenario, seed: u64, level: Level) -> Outcome {
    s.protocol.model().run(s, seed, level)
}

/// Runs a world built from `s` and judges its history with `check`: what every model's
/// `Protocol::run` does.
pub fn run_world<N: Node>(
    nodes: Vec<NodeSetup<N>>,
    s: &Scenario,
    seed: u64,
    level: Level,
    check: impl FnOnce(&History<N::Msg, N::Obs>) -> Vec<Verdict>,
) -> Outcome {
    let cfg = WorldConfig {
        seed,
        end_ns: s.duration_ns,
        network: s.network.clone(),
        faults: s.faults.clone(),
        level,
    };
    let (history, unfired_faults) = World::new(nodes, cfg).run_reporting_unfired();
    Outcome {
        verdicts: check(&history),
        trace: if level == Level::Full {
            erase(&history)
        } else {
            Vec::new()
        },
        stats: history.stats,
        end_ns: history.end_ns,
        unfired_faults,
    }
}

/// Every invariant a registered model judges, each once, in registry order: the ids a
/// scenario's `[expect]` and `explore --invariant` may name, and the order `locksim list`
/// shows them in.
pub fn invariants() -> Vec<Invariant> {
    let declared = [
        LOCK_INVARIANTS, // single-redis, redlock, etcd-lease
        ID_INVARIANTS,   // snowflake
        SESSION_INVARIANTS,
        SCHEDULER_INVARIANTS,
    ];
    let mut all: Vec<Invariant> = Vec::new();
    for &i in declared.iter().flat_map(|d| d.iter()) {
        if !all.contains(&i) {
            all.push(i);
        }
    }
    all
}

/// The registered invariant with this id.
pub fn invariant(id: &str) -> Option<Invariant> {
    invariants().into_iter().find(|i| i.id() == id)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn the_known_invariants_come_in_registry_order_each_once_with_a_meaning_of_its_own() {
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
            ]
        );
        let meanings: BTreeSet<&str> = invariants().iter().map(|i| i.meaning()).collect();
        assert_eq!(meanings.len(), ids.len(), "distinct");
        assert!(!meanings.contains(""));
        for i in invariants() {
            assert_eq!(invariant(i.id()), Some(i));
        }
        assert_eq!(invariant("mutual-exclusion"), None);
    }
}
