//! What the PostgreSQL server is configured with: the lease's TTL, the clock its statements
//! compare `expires_at` with, `idle_in_transaction_session_timeout`, the pooler in front of it
//! and TCP keepalive.

use super::advisory::Pooler;
use super::keepalive::KeepaliveConfig;

/// Which clock `ts` in the lease statements reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExpiryClock {
    /// `clock_timestamp()`: the database server's clock when the statement runs.
    Database,
    /// `now()`: the start of the statement's transaction, the same for every statement in it
    /// (PostgreSQL manual, 9.9.5 "Current Date/Time"). In a transaction opened before the read
    /// (`begin = "before-read"`), a guard made after the work reads the moment of `BEGIN`.
    TransactionStart,
    /// Wrong: a timestamp the client sends from its own clock (`:now` bound by the app).
    Client,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    pub ttl_ns: u64,
    pub expiry_clock: ExpiryClock,
    /// `idle_in_transaction_session_timeout` (0: off, PostgreSQL's default).
    pub idle_timeout_ns: u64,
    pub pooler: Pooler,
    pub keepalive: KeepaliveConfig,
}
