//! What the PostgreSQL lease world records: the lock world's facts (so the lock checkers judge
//! it: the lease row is the lock key, its epoch the fencing token, the business row the
//! protected counter) plus what only a database has — a client's guard answered, the lease row
//! locked by a transaction and unlocked when it ends.

use locksim_sim::time::fmt_signed_secs;
use locksim_sim::{Names, NodeId, Observation, Salience};
use serde::Serialize;

use crate::lock::obs::short_lease;
use crate::lock::{AsLock, LockObs};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum PgObs {
    Lock(LockObs),
    Pg(PgEvent),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum PgEvent {
    /// A client's guard answered: the row is (`ok`) still its lease at `epoch`, unexpired;
    /// `row_locked`: the answer came inside the write's transaction, which now holds the row.
    LeaseChecked {
        epoch: u64,
        ok: bool,
        row_locked: bool,
        why: &'static str,
    },
    /// A transaction of `client` holds the lease row (`FOR UPDATE`): until it ends, every
    /// claim finds the row locked, whatever `expires_at` says.
    RowLocked { client: NodeId, lease: u64 },
    /// A guard of `client` compared `expires_at` with `now()`, its transaction's start
    /// (`now_ns`, this server's wall clock), earlier than the server's clock (`clock_ns`,
    /// what `clock_timestamp()` would have read): `expiry_clock = "transaction-start"` in a
    /// transaction opened before the work.
    NowIsTransactionStart { client: NodeId, now_ns: i64, clock_ns: i64 },
    /// The server dropped `client`'s connection (`how`): its session ended.
    ConnectionDropped { client: NodeId, how: &'static str },
    /// That transaction ended: committed, or rolled back (`how`).
    RowUnlocked {
        client: NodeId,
        lease: u64,
        how: &'static str,
    },
}

pub const CLIENT_EVENTS: &[&str] = &[
    "acquire_started",
    "acquire_failed",
    "acquired",
    "read_done",
    "lease_checked",
    "write_sent",
    "write_accepted",
    "write_timed_out",
    "released",
    "lock_lost",
];

pub const SERVER_EVENTS: &[&str] = &[
    "key_set",
    "key_extended",
    "key_deleted",
    "token_issued",
    "row_locked",
    "now_is_transaction_start",
    "connection_dropped",
    "row_unlocked",
    "write_applied",
];

impl From<LockObs> for PgObs {
    fn from(o: LockObs) -> Self {
        PgObs::Lock(o)
    }
}

impl From<PgEvent> for PgObs {
    fn from(e: PgEvent) -> Self {
        PgObs::Pg(e)
    }
}

impl AsLock for PgObs {
    fn as_lock(&self) -> Option<&LockObs> {
        match self {
            PgObs::Lock(o) => Some(o),
            PgObs::Pg(_) => None,
        }
    }
}

impl Observation for PgObs {
    fn kind(&self) -> &'static str {
        match self {
            PgObs::Lock(o) => o.kind(),
            PgObs::Pg(PgEvent::LeaseChecked { .. }) => "lease_checked",
            PgObs::Pg(PgEvent::RowLocked { .. }) => "row_locked",
            PgObs::Pg(PgEvent::NowIsTransactionStart { .. }) => "now_is_transaction_start",
            PgObs::Pg(PgEvent::ConnectionDropped { .. }) => "connection_dropped",
            PgObs::Pg(PgEvent::RowUnlocked { .. }) => "row_unlocked",
        }
    }

    /// A failed guard and a transaction ended by the server are the story; a lock taken and
    /// committed is the normal round.
    fn salience(&self) -> Salience {
        match self {
            PgObs::Lock(o) => o.salience(),
            PgObs::Pg(PgEvent::LeaseChecked { ok: false, .. }) => Salience::Salient,
            PgObs::Pg(PgEvent::NowIsTransactionStart { .. } | PgEvent::ConnectionDropped { .. }) => Salience::Salient,
            PgObs::Pg(PgEvent::RowUnlocked { how, .. }) if *how != COMMIT => Salience::Salient,
            PgObs::Pg(_) => Salience::Routine,
        }
    }

    fn describe(&self, names: &Names) -> String {
        match self {
            PgObs::Lock(o) => o.describe(names),
            PgObs::Pg(e) => match e {
                PgEvent::LeaseChecked {
                    epoch,
                    ok: true,
                    row_locked,
                    ..
                } => {
                    let locked = if *row_locked {
                        ", row locked until COMMIT"
                    } else {
                        ", in a transaction of its own (row unlocked again)"
                    };
                    format!("guard: the lease row is still mine at epoch {epoch}{locked}")
                }
                PgEvent::LeaseChecked { epoch, why, .. } => {
                    format!("GUARD FAILED at epoch {epoch}: {why}; writes nothing")
                }
                PgEvent::RowLocked { client, lease } => format!(
                    "lease row locked FOR UPDATE by {}'s transaction (lease {}): claims fail until it ends",
                    names.of(*client),
                    short_lease(*lease)
                ),
                PgEvent::NowIsTransactionStart {
                    client,
                    now_ns,
                    clock_ns,
                } => format!(
                    "{}'s guard compares expires_at with now() = wall {}, its transaction's start, not clock_timestamp() = wall {}",
                    names.of(*client),
                    fmt_signed_secs(*now_ns),
                    fmt_signed_secs(*clock_ns)
                ),
                PgEvent::ConnectionDropped { client, how } => {
                    format!("CONNECTION DROPPED: {}'s session ends: {how}", names.of(*client))
                }
                PgEvent::RowUnlocked { client, lease, how } => format!(
                    "{}'s transaction (lease {}) ended: {how}; lease row unlocked",
                    names.of(*client),
                    short_lease(*lease)
                ),
            },
        }
    }
}

/// How a transaction that held the lease row ended normally.
pub const COMMIT: &str = "COMMIT";
