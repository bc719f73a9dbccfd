//! Checkers: observers of a finished history, one invariant per file (DESIGN section 5).
//! They read nothing but the history — never a model's internal state — so a second driver
//! that produces the same history is judged the same way.

mod fencing_order;
mod ids;
mod liveness;
mod lost_update;
mod mutual_exclusion;
mod plural;
mod stale_write;
#[cfg(test)]
mod test_history;
mod token_monotonic;

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::history::History;
use crate::ids::NodeId;
use crate::lock_obs::LockObs;
use crate::node::Observation;

pub use ids::check_ids;
pub use plural::count;

/// Stable invariant ids, as used in scenario files, JSON output and reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Invariant {
    MutualExclusion,
    FencingOrder,
    StaleWrite,
    LostUpdate,
    TokenMonotonic,
    Liveness,
    UniqueIds,
    IdMonotonic,
    SessionRevocation,
    SessionDeadline,
    ExactlyOnce,
}

impl Invariant {
    pub const ALL: &[Invariant] = &[
        Invariant::MutualExclusion,
        Invariant::FencingOrder,
        Invariant::StaleWrite,
        Invariant::LostUpdate,
        Invariant::TokenMonotonic,
        Invariant::Liveness,
        Invariant::UniqueIds,
        Invariant::IdMonotonic,
        Invariant::SessionRevocation,
        Invariant::SessionDeadline,
        Invariant::ExactlyOnce,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Invariant::MutualExclusion => "mutual_exclusion",
            Invariant::FencingOrder => "fencing_order",
            Invariant::StaleWrite => "stale_write",
            Invariant::LostUpdate => "lost_update",
            Invariant::TokenMonotonic => "token_monotonic",
            Invariant::Liveness => "liveness",
            Invariant::UniqueIds => "unique_ids",
            Invariant::IdMonotonic => "id_monotonic",
            Invariant::SessionRevocation => "session_revocation",
            Invariant::SessionDeadline => "session_deadline",
            Invariant::ExactlyOnce => "exactly_once",
        }
    }

    pub fn from_id(id: &str) -> Option<Invariant> {
        Invariant::ALL.iter().copied().find(|i| i.id() == id)
    }

    /// When it holds, in one line (for `locksim list`).
    pub fn meaning(self) -> &'static str {
        match self {
            Invariant::MutualExclusion => "no two clients' holding intervals overlap in true time",
            Invariant::FencingOrder => "the resource never accepts a token below the max it accepted before",
            Invariant::StaleWrite => {
                "every accepted write comes from the holder according to the lock service's own state"
            }
            Invariant::LostUpdate => "every accepted counter write was computed from the value current at acceptance",
            Invariant::TokenMonotonic => "fencing tokens are granted in strictly increasing order",
            Invariant::Liveness => "after the last fault ends, some client acquires within the liveness window",
            Invariant::UniqueIds => "no ID is issued twice",
            Invariant::IdMonotonic => "each generator's IDs strictly increase",
            Invariant::SessionRevocation => {
                "after a logout commits, no request is served as that session and no save revives it"
            }
            Invariant::SessionDeadline => {
                "no request is served after the session's idle or absolute deadline (store clock)"
            }
            Invariant::ExactlyOnce => "each (job, slot) that fired has exactly one committed effect",
        }
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The first event that broke an invariant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// Index into the history's events.
    pub event: usize,
    pub t_ns: u64,
    pub why: String,
}

/// The outcome of one checker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Held, with what was checked (so a reader can tell it was not vacuous).
    Held(String),
    Violated(Violation),
    /// The run has nothing this invariant speaks about, and why.
    NotApplicable(String),
}

impl Status {
    /// `held`, `violated` or `not_applicable`.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Held(_) => "held",
            Status::Violated(_) => "violated",
            Status::NotApplicable(_) => "not_applicable",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub invariant: Invariant,
    pub status: Status,
}

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
pub fn check_lock<M, O: Observation>(h: &History<M, O>, setup: &LockSetup) -> Vec<Verdict> {
    let facts = LockFacts::of(h);
    vec![
        Verdict {
            invariant: Invariant::MutualExclusion,
            status: mutual_exclusion::check(h, &facts, setup),
        },
        Verdict {
            invariant: Invariant::FencingOrder,
            status: fencing_order::check(h, &facts),
        },
        Verdict {
            invariant: Invariant::StaleWrite,
            status: stale_write::check(h, &facts, setup),
        },
        Verdict {
            invariant: Invariant::LostUpdate,
            status: lost_update::check(h, &facts),
        },
        Verdict {
            invariant: Invariant::TokenMonotonic,
            status: token_monotonic::check(h, &facts),
        },
        Verdict {
            invariant: Invariant::Liveness,
            status: liveness::check(h, &facts, setup),
        },
    ]
}

/// Per-node values, indexed by node: what a checker keeps per node when it only looks values
/// up (a `BTreeMap<NodeId, T>` costs a tree walk, and an allocation per insert, on every
/// fact). It grows to the nodes it is asked about; a node never written reads as the default.
pub(crate) struct NodeTable<T>(Vec<T>);

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
    fn of<M, O: Observation>(h: &'h History<M, O>) -> Self {
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
    fn every_invariant_id_round_trips_and_means_something_of_its_own() {
        let ids: BTreeSet<&str> = Invariant::ALL.iter().map(|i| i.id()).collect();
        let meanings: BTreeSet<&str> = Invariant::ALL.iter().map(|i| i.meaning()).collect();
        assert_eq!((ids.len(), meanings.len()), (11, 11), "distinct");
        for &i in Invariant::ALL {
            assert_eq!(Invariant::from_id(i.id()), Some(i));
            assert_eq!(i.to_string(), i.id());
            assert!(!i.meaning().is_empty());
        }
        assert_eq!(Invariant::from_id("mutual-exclusion"), None);
        assert_eq!(Invariant::MutualExclusion.id(), "mutual_exclusion");
    }

    #[test]
    fn a_status_reads_as_its_word() {
        let v = Violation {
            event: 0,
            t_ns: 0,
            why: String::new(),
        };
        let words = [
            Status::Held(String::new()),
            Status::Violated(v),
            Status::NotApplicable(String::new()),
        ];
        assert_eq!(words.map(|s| s.word()), ["held", "violated", "not_applicable"]);
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
                (Invariant::MutualExclusion, "held"),
                (Invariant::FencingOrder, "not_applicable"),
                (Invariant::StaleWrite, "not_applicable"),
                (Invariant::LostUpdate, "not_applicable"),
                (Invariant::TokenMonotonic, "not_applicable"),
                (Invariant::Liveness, "held"),
            ]
        );
    }
}
