//! The PostgreSQL lease world's wire: what a client's connection sends (each message one round
//! trip of statements, as a driver pipelines them) and what the server answers. Every request
//! names the client's session (its connection), because the row lock of an open transaction
//! belongs to the session, not to the client: a client that reconnects is someone else to the
//! server.

use std::fmt;

/// Requests carry the client's request number; replies echo it.
#[derive(Clone, Debug)]
pub enum PgMsg {
    /// Seed 000's claim, one transaction: take the lease row (`FOR UPDATE NOWAIT`), and if it
    /// has no owner or has expired by `ts`, make it ours with the next epoch until `ts + ttl`.
    /// `client_wall_ns` is the client's clock, which the server uses as `ts` only under
    /// `expiry_clock = "client"`.
    Claim {
        req: u64,
        session: u64,
        lease: u64,
        client_wall_ns: i64,
    },
    /// `SELECT value FROM resource WHERE id = 1`; `begin`: after a `BEGIN` that opens the
    /// write's transaction here, before the work (`begin = "before-read"`), so that its
    /// `now()` is this moment.
    Read {
        req: u64,
        session: u64,
        begin: bool,
    },
    /// Seed 000's guard: `SELECT owner FROM lease WHERE id = 1 AND epoch = :epoch AND
    /// expires_at > ts FOR UPDATE NOWAIT`. `hold`: inside the write's transaction (`BEGIN`
    /// first, the row stays locked until `COMMIT`); otherwise a transaction of its own.
    /// `begun`: the transaction was opened before the read, so the guard runs inside it (and,
    /// without `hold`, commits it).
    Check {
        req: u64,
        session: u64,
        lease: u64,
        epoch: u64,
        client_wall_ns: i64,
        hold: bool,
        begun: bool,
    },
    /// `UPDATE resource SET value = :value WHERE id = 1`, then `COMMIT` of the guard's
    /// transaction (`in_tx`) or on its own.
    Write {
        req: u64,
        session: u64,
        lease: u64,
        /// The lease row's epoch, which the server records as the write's token; none under
        /// an advisory lock.
        token: Option<u64>,
        value: u64,
        based_on: u64,
        in_tx: bool,
    },
    /// `UPDATE lease SET owner = NULL WHERE id = 1 AND epoch = :epoch AND owner = :lease`.
    Release {
        session: u64,
        lease: u64,
        epoch: u64,
    },
    /// `SELECT pg_try_advisory_lock(k)`.
    TryLock {
        req: u64,
        session: u64,
        lease: u64,
    },
    /// `SELECT pg_advisory_unlock(k)`.
    Unlock {
        session: u64,
    },
    /// A TCP keepalive probe on `session`'s connection (sent by the server's kernel).
    KeepaliveProbe {
        session: u64,
    },
    /// The client's kernel answers a probe: an ACK for its current connection.
    KeepaliveAck {
        session: u64,
    },
    /// The client's kernel answers a probe for a connection it no longer has: a reset.
    KeepaliveReset {
        session: u64,
    },
    /// The client closed its connection (a driver does after a request timed out): the server
    /// reads end-of-file and rolls back whatever the session had open.
    Disconnect {
        session: u64,
    },

    Claimed {
        req: u64,
        epoch: Option<u64>,
        why: &'static str,
    },
    Value {
        req: u64,
        value: u64,
    },
    /// `pg_try_advisory_lock`'s answer.
    Locked {
        req: u64,
        ok: bool,
    },
    Checked {
        req: u64,
        ok: bool,
        why: &'static str,
    },
    Committed {
        req: u64,
    },
    /// The statement failed and its transaction is gone.
    Failed {
        req: u64,
        why: &'static str,
    },
    /// `FATAL: terminating connection due to idle-in-transaction timeout`.
    Terminated {
        session: u64,
    },
}

impl PgMsg {
    /// The session (connection) a client's message travels on.
    pub fn session(&self) -> Option<u64> {
        match self {
            PgMsg::Claim { session, .. }
            | PgMsg::Read { session, .. }
            | PgMsg::Check { session, .. }
            | PgMsg::Write { session, .. }
            | PgMsg::Release { session, .. }
            | PgMsg::TryLock { session, .. }
            | PgMsg::Unlock { session }
            | PgMsg::KeepaliveAck { session }
            | PgMsg::KeepaliveReset { session }
            | PgMsg::Disconnect { session } => Some(*session),
            _ => None,
        }
    }
}

impl fmt::Display for PgMsg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgMsg::Claim { .. } => f.write_str(
                "BEGIN; SELECT lease FOR UPDATE NOWAIT; UPDATE lease SET owner, epoch + 1, expires_at = ts + ttl WHERE owner IS NULL OR expires_at <= ts; COMMIT",
            ),
            PgMsg::Read { begin: false, .. } => f.write_str("SELECT value FROM resource"),
            PgMsg::Read { begin: true, .. } => f.write_str("BEGIN; SELECT value FROM resource"),
            PgMsg::Check {
                epoch,
                hold: true,
                begun: false,
                ..
            } => write!(
                f,
                "BEGIN; SELECT owner FROM lease WHERE epoch = {epoch} AND expires_at > ts FOR UPDATE NOWAIT"
            ),
            PgMsg::Check {
                epoch,
                hold: false,
                begun: false,
                ..
            } => write!(
                f,
                "SELECT owner FROM lease WHERE epoch = {epoch} AND expires_at > ts FOR UPDATE NOWAIT (own transaction)"
            ),
            PgMsg::Check {
                epoch,
                hold: true,
                begun: true,
                ..
            } => write!(
                f,
                "SELECT owner FROM lease WHERE epoch = {epoch} AND expires_at > ts FOR UPDATE NOWAIT (in the open transaction)"
            ),
            PgMsg::Check {
                epoch,
                hold: false,
                begun: true,
                ..
            } => write!(
                f,
                "SELECT owner FROM lease WHERE epoch = {epoch} AND expires_at > ts FOR UPDATE NOWAIT; COMMIT"
            ),
            PgMsg::Write { value, in_tx: true, .. } => write!(f, "UPDATE resource SET value = {value}; COMMIT"),
            PgMsg::Write { value, in_tx: false, .. } => write!(f, "UPDATE resource SET value = {value} (autocommit)"),
            PgMsg::Release { epoch, .. } => write!(f, "UPDATE lease SET owner = NULL WHERE epoch = {epoch}"),
            PgMsg::TryLock { .. } => f.write_str("SELECT pg_try_advisory_lock(1)"),
            PgMsg::Unlock { .. } => f.write_str("SELECT pg_advisory_unlock(1)"),
            PgMsg::Disconnect { .. } => f.write_str("close connection"),
            PgMsg::KeepaliveProbe { .. } => f.write_str("TCP keepalive probe"),
            PgMsg::KeepaliveAck { .. } => f.write_str("TCP ACK (keepalive)"),
            PgMsg::KeepaliveReset { .. } => f.write_str("TCP RST: no such connection"),
            PgMsg::Locked { ok, .. } => write!(f, "pg_try_advisory_lock = {}", if *ok { "t" } else { "f" }),
            PgMsg::Claimed { epoch: Some(e), .. } => write!(f, "claimed: epoch {e}"),
            PgMsg::Claimed { epoch: None, why, .. } => write!(f, "not claimed: {why}"),
            PgMsg::Value { value, .. } => write!(f, "value = {value}"),
            PgMsg::Checked { ok: true, .. } => f.write_str("1 row"),
            PgMsg::Checked { ok: false, why, .. } => write!(f, "0 rows: {why}"),
            PgMsg::Committed { .. } => f.write_str("COMMIT"),
            PgMsg::Failed { why, .. } => write!(f, "ERROR: {why}"),
            PgMsg::Terminated { .. } => {
                f.write_str("FATAL: terminating connection due to idle-in-transaction timeout")
            }
        }
    }
}
