//! The lock checkers: observers of a finished lock history, one invariant per file (DESIGN
//! section 5). Every lock protocol records [`LockObs`] facts, so these judge single Redis,
//! Redlock, the etcd-style lease and a user's own lock alike. They read nothing but the
//! history — never a model's internal state — so a second driver that produces the same
//! history is judged the same way.

mod fencing_order;
mod liveness;
mod lost_update;
mod mutual_exclusion;
mod stale_write;
#[cfg(test)]
mod test_history;
mod token_monotonic;

use std::cell::OnceCell;
use std::collections::BTreeMap;

use locksim_sim::check::{Invariant, Verdict};
use locksim_sim::{History, NodeId};

use super::{AsLock, LockObs};

pub const MUTUAL_EXCLUSION: Invariant = Invariant::new(
    "mutual_exclusion",
    "no two clients' holding intervals overlap in true time",
);
pub const FENCING_ORDER: Invariant = Invariant::new(
    "fencing_order",
    "the resource never accepts a token below the max it accepted before",
);
pub const STALE_WRITE: Invariant = Invariant::new(
    "stale_write",
    "every accepted write comes from the holder according to the lock service's own state",
);
pub const LOST_UPDATE: Invariant = Invariant::new(
    "lost_update",
    "every accepted counter write was computed from the value current at acceptance",
);
pub const TOKEN_MONOTONIC: Invariant = Invariant::new(
    "token_monotonic",
    "fencing tokens are granted in strictly increasing order",
);
pub const LIVENESS: Invariant = Invariant::new(
    "liveness",
    "after the last fault ends, some client acquires within the liveness window",
);

/// What [`check_lock`] judges, in its verdicts' order.
pub const LOCK_INVARIANTS: &[Invariant] = &[
    MUTUAL_EXCLUSION,
    FENCING_ORDER,
    STALE_WRITE,
    LOST_UPDATE,
    TOKEN_MONOTONIC,
    LIVENESS,
];

/// What the lock checkers need to know about the world's shape.
#[derive(Clone, Debug)]
pub struct LockSetup {
    pub clients: Vec<NodeId>,
    /// The lock service's nodes whose key state defines "the holder".
    pub servers: Vec<NodeId>,
    /// How many of `servers` must agree (1 for a single server, a majority for Redlock).
    pub quorum: usize,
    /// Whether a server that starts serving the lock retires every other one: true of a Raft
    /// leader under majority commit, whose election means no earlier leader can commit (grant,
    /// extend or delete) anything any more, even one paused or cut off before it could say it
    /// stepped down. False where old and new can both serve (Redis failover's split brain, a
    /// store that acknowledges before replicating).
    pub newest_serves_alone: bool,
    pub liveness_window_ns: u64,
}

/// Runs every lock checker over a history.
pub fn check_lock<M, O: AsLock>(h: &History<M, O>, setup: &LockSetup) -> Vec<Verdict> {
    let facts = LockFacts::of(h);
    vec![
        Verdict {
            invariant: MUTUAL_EXCLUSION,
            status: mutual_exclusion::check(h, &facts, setup),
        },
        Verdict {
            invariant: FENCING_ORDER,
            status: fencing_order::check(h, &facts),
        },
        Verdict {
            invariant: STALE_WRITE,
            status: stale_write::check(h, &facts, setup),
        },
        Verdict {
            invariant: LOST_UPDATE,
            status: lost_update::check(h, &facts),
        },
        Verdict {
            invariant: TOKEN_MONOTONIC,
            status: token_monotonic::check(h, &facts),
        },
        Verdict {
            invariant: LIVENESS,
            status: liveness::check(h, &facts, setup),
        },
    ]
}

/// A lock fact with where and when it happened.
pub(crate) struct Fact<'h> {
    pub index: usize,
    pub t_ns: u64,
    pub node: NodeId,
    pub obs: &'h LockObs,
}

/// The lock facts of a history, in order, and who owns each lease value.
pub(crate) struct LockFacts<'h> {
    pub all: Vec<Fact<'h>>,
    /// Built on first use: only a violation's or an objection's message names an owner, and
    /// most runs never ask, while building it costs a sort of every acquisition attempt.
    lease_owner: OnceCell<BTreeMap<u64, NodeId>>,
}

impl<'h> LockFacts<'h> {
    fn of<M, O: AsLock>(h: &'h History<M, O>) -> Self {
        let all: Vec<Fact<'h>> = h
            .observations()
            .filter_map(|(index, e, o)| {
                o.as_lock().map(|obs| Fact {
                    index,
                    t_ns: e.t_ns,
                    node: e.node,
                    obs,
                })
            })
            .collect();
        LockFacts {
            all,
            lease_owner: OnceCell::new(),
        }
    }

    /// "client-1", or "an unknown owner" for a lease no client started.
    pub fn owner_name<'n, M, O>(&self, h: &'n History<M, O>, lease: u64) -> &'n str {
        let owners = self.lease_owner.get_or_init(|| {
            self.all
                .iter()
                .filter_map(|f| match f.obs {
                    LockObs::AcquireStarted { lease, .. } => Some((*lease, f.node)),
                    _ => None,
                })
                .collect()
        });
        owners.get(&lease).map_or("an unknown owner", |n| h.names.of(*n))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::test_history::*;
    use super::*;

    #[test]
    fn every_lock_invariant_has_an_id_and_a_meaning_of_its_own() {
        let ids: BTreeSet<&str> = LOCK_INVARIANTS.iter().map(|i| i.id()).collect();
        let meanings: BTreeSet<&str> = LOCK_INVARIANTS.iter().map(|i| i.meaning()).collect();
        assert_eq!((ids.len(), meanings.len()), (6, 6), "distinct");
        assert_eq!(MUTUAL_EXCLUSION.id(), "mutual_exclusion");
    }

    #[test]
    fn check_lock_judges_every_lock_invariant_in_order() {
        let h = Hist::new().acquired(0, C0, 1, 10 * S).build();
        let judged: Vec<(Invariant, &str)> = check_lock(&h, &setup(&[S0], 1))
            .iter()
            .map(|v| (v.invariant, v.status.word()))
            .collect();
        assert_eq!(
            judged,
            [
                (MUTUAL_EXCLUSION, "held"),
                (FENCING_ORDER, "not_applicable"),
                (STALE_WRITE, "not_applicable"),
                (LOST_UPDATE, "not_applicable"),
                (TOKEN_MONOTONIC, "not_applicable"),
                (LIVENESS, "held"),
            ]
        );
        let order: Vec<Invariant> = judged.iter().map(|(i, _)| *i).collect();
        assert_eq!(order, LOCK_INVARIANTS);
    }
}
