//! The lock checkers: observers of a lock run's events, one invariant per file (DESIGN
//! section 5). Every lock protocol records [`LockObs`] facts, so these judge single Redis,
//! Redlock, the etcd-style lease and a user's own lock alike. They read nothing but the
//! events — never a model's internal state — so a second driver that produces the same
//! history is judged the same way.
//!
//! [`LockJudge`] hands each event, in one pass as the run records it, to the checkers that
//! read its kind, so a long run is judged in memory that does not grow with its length: each
//! checker's doc says what it keeps and what bounds it. Two things grow with the number of
//! acquisitions (never with the events in between): the owner of each lease ([`Owners`]) and
//! the keyed grants of `token_monotonic`; each file says why no smaller state gives the same
//! verdicts.

mod fencing_order;
mod liveness;
mod lost_update;
mod mutual_exclusion;
mod owners;
mod stale_write;
#[cfg(test)]
mod test_history;
mod token_monotonic;

use locksim_sim::check::{Invariant, Verdict};
use locksim_sim::{ClockTrack, Event, NodeId, RunEnd, What};

use super::{AsLock, LockObs};
use crate::judge::Judge;
use fencing_order::FencingOrder;
use liveness::Liveness;
use lost_update::LostUpdate;
use mutual_exclusion::MutualExclusion;
use owners::Owners;
use stale_write::StaleWrite;
use token_monotonic::TokenMonotonic;

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

/// What [`LockJudge`] judges, in its verdicts' order.
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

/// Judges a lock run as it is recorded: every lock checker, each keeping only what it needs.
/// Models pass it to `run_world` (`LockJudge::new(setup)`).
pub struct LockJudge {
    setup: LockSetup,
    owners: Owners,
    mutual_exclusion: MutualExclusion,
    fencing_order: FencingOrder,
    stale_write: StaleWrite,
    lost_update: LostUpdate,
    token_monotonic: TokenMonotonic,
    liveness: Liveness,
}

impl LockJudge {
    pub fn new(setup: LockSetup) -> Self {
        LockJudge {
            mutual_exclusion: MutualExclusion::new(&setup),
            liveness: Liveness::new(&setup),
            owners: Owners::default(),
            fencing_order: FencingOrder::default(),
            stale_write: StaleWrite::default(),
            lost_update: LostUpdate::default(),
            token_monotonic: TokenMonotonic::default(),
            setup,
        }
    }

    /// How many holdings, writes and keys the judge keeps now, besides the lease owners and
    /// keyed grants that grow with the acquisitions: what its tests bound.
    #[cfg(test)]
    fn kept(&self) -> usize {
        self.mutual_exclusion.kept() + self.stale_write.kept() + self.liveness.kept()
    }

    /// Hands a lock fact to the checkers that read its kind, and no other: most facts (replies,
    /// refusals, attempts that failed) concern none of them, so this sorting is inlined in
    /// the recorder and only the facts that matter make a call.
    #[inline]
    fn fact(&mut self, at: At, obs: &LockObs, clocks: &[ClockTrack]) {
        match obs {
            LockObs::AcquireStarted { lease, .. } => self.owners.started(*lease, at.node),
            LockObs::Acquired { .. }
            | LockObs::Renewed { .. }
            | LockObs::Released { .. }
            | LockObs::LockLost { .. } => self.holding(at, obs, clocks),
            LockObs::KeySet { .. }
            | LockObs::KeyExtended { .. }
            | LockObs::KeyDeleted { .. }
            | LockObs::KeyExpired { .. }
            | LockObs::RoleChanged { .. } => self.key(at, obs),
            LockObs::WriteApplied { .. } => self.write(at, obs),
            LockObs::TokenIssued { .. } => self.token_monotonic.fact(at, obs),
            _ => {}
        }
    }

    /// An observation: a lock fact is sorted to its checkers.
    #[inline(never)]
    fn observe<O: AsLock>(&mut self, at: At, o: &O, clocks: &[ClockTrack]) {
        if let Some(obs) = o.as_lock() {
            self.fact(at, obs, clocks);
        }
    }

    /// A holding began, went on or ended.
    #[inline(never)]
    fn holding(&mut self, at: At, obs: &LockObs, clocks: &[ClockTrack]) {
        self.mutual_exclusion.fact(at, obs, clocks);
        self.liveness.fact(at, obs);
    }

    /// A server's lock key changed, or its role.
    #[inline(never)]
    fn key(&mut self, at: At, obs: &LockObs) {
        self.stale_write.fact(at, obs, &self.setup);
        self.liveness.fact(at, obs);
    }

    /// A fault struck, or ended.
    #[inline(never)]
    fn fault<M, O>(&mut self, at: At, what: &What<M, O>, clocks: &[ClockTrack]) {
        self.mutual_exclusion.fault(at, what, clocks);
        self.stale_write.fault(at, what);
        self.liveness.fault(at, what, &self.setup);
    }

    /// The resource applied a write.
    #[inline(never)]
    fn write(&mut self, at: At, obs: &LockObs) {
        self.fencing_order.fact(at, obs);
        self.stale_write.fact(at, obs, &self.setup);
        self.lost_update.fact(at, obs);
    }
}

impl<M, O: AsLock> Judge<M, O> for LockJudge {
    /// Inlined into the recorder, and so where the world records: a message or a timer (most of
    /// a run's events) then costs a few compares in place, no call; what reads more is out of
    /// line.
    #[inline(always)]
    fn see(&mut self, index: usize, e: &Event<M, O>, clocks: &[ClockTrack]) {
        let at = At {
            index,
            t_ns: e.t_ns,
            node: e.node,
        };
        // Both look at every event's time: a write is judged once its instant has passed, and
        // liveness names the last event inside its window.
        self.stale_write.settle_before(e.t_ns, clocks, &self.setup);
        self.liveness.passing(at);
        match &e.what {
            What::Observe(o) => self.observe(at, o, clocks),
            // Messages and timers: no checker reads them (most of a run's events).
            What::Start | What::Send { .. } | What::Deliver { .. } | What::Drop { .. } | What::Timer { .. } => {}
            what => self.fault(at, what, clocks),
        }
    }

    fn verdicts(mut self, end: &RunEnd) -> Vec<Verdict> {
        self.stale_write.settle(&end.clocks, &self.setup);
        let names = &end.names;
        vec![
            Verdict {
                invariant: MUTUAL_EXCLUSION,
                status: self.mutual_exclusion.status(names, end),
            },
            Verdict {
                invariant: FENCING_ORDER,
                status: self.fencing_order.status(names),
            },
            Verdict {
                invariant: STALE_WRITE,
                status: self.stale_write.status(names, &self.owners, &self.setup),
            },
            Verdict {
                invariant: LOST_UPDATE,
                status: self.lost_update.status(names),
            },
            Verdict {
                invariant: TOKEN_MONOTONIC,
                status: self.token_monotonic.status(names),
            },
            Verdict {
                invariant: LIVENESS,
                status: self.liveness.status(names, end, &self.owners, &self.setup),
            },
        ]
    }
}

/// Where and when an event happened: what a checker keeps of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    pub index: usize,
    pub t_ns: u64,
    pub node: NodeId,
}

#[cfg(test)]
mod tests;
