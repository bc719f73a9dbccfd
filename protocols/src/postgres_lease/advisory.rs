//! A session-level advisory lock (`pg_try_advisory_lock(k)`, `pg_advisory_unlock(k)`): held
//! by a server session (a backend), re-entrant within it, released by an unlock from the same
//! session or when the session ends — which the server learns when the connection closes, or,
//! for a host that crashed or was cut off, when TCP keepalive gives up on it (`keepalive.rs`). Behind a transaction-mode pooler (PgBouncer) a client has
//! no session of its own: each statement runs on whichever server connection the pool lends
//! it, here a pool of one, so every client's `pg_try_advisory_lock` runs in the session that
//! already holds the lock, and succeeds (PgBouncer's documentation: session-level advisory
//! locks are not compatible with transaction pooling; tests/conformance_postgres.rs shows it).

use locksim_sim::Ctx;

use super::msg::PgMsg;
use super::obs::PgObs;
use crate::lock::LockObs;
use crate::lock::obs::DeleteCause;

/// What stands between the clients and the server.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pooler {
    /// Each client's connection is its own server session.
    None,
    /// Wrong for session locks: PgBouncer with `pool_mode = transaction` and one server
    /// connection in the pool.
    Transaction,
}

/// The lock's holder: its server session, how many times it took the lock, and the lease of
/// the client that took it last.
#[derive(Copy, Clone, Debug)]
struct Held {
    backend: u64,
    count: u32,
    lease: u64,
}

pub struct Advisory {
    pooler: Pooler,
    held: Option<Held>,
}

type PgCtx<'a> = Ctx<'a, PgMsg, PgObs>;

/// The pool's one server connection.
const POOLED_BACKEND: u64 = 0;

impl Advisory {
    pub fn new(pooler: Pooler) -> Self {
        Advisory { pooler, held: None }
    }

    /// The server session a client's statement runs in.
    fn backend(&self, session: u64) -> u64 {
        match self.pooler {
            Pooler::None => session,
            Pooler::Transaction => POOLED_BACKEND,
        }
    }

    /// `pg_try_advisory_lock`: whether the statement's session now holds the lock.
    pub fn try_lock(&mut self, ctx: &mut PgCtx<'_>, session: u64, lease: u64) -> bool {
        let backend = self.backend(session);
        let count = match self.held {
            None => 1,
            Some(h) if h.backend == backend => h.count + 1,
            Some(_) => return false,
        };
        self.held = Some(Held { backend, count, lease });
        ctx.record(PgObs::Lock(LockObs::KeySet { lease, expiry: None }));
        true
    }

    /// Whether the client connection `session` holds the lock in a server session of its own
    /// (behind the pooler the server session is the pooler's, whose connection lives on).
    pub fn held_by(&self, session: u64) -> bool {
        self.pooler == Pooler::None && self.held.is_some_and(|h| h.backend == session)
    }

    /// `pg_advisory_unlock`: from the holding session, one level of the lock goes.
    pub fn unlock(&mut self, ctx: &mut PgCtx<'_>, session: u64) {
        let backend = self.backend(session);
        let Some(h) = self.held.filter(|h| h.backend == backend) else {
            return;
        };
        if h.count > 1 {
            self.held = Some(Held {
                count: h.count - 1,
                ..h
            });
        } else {
            self.release(ctx, DeleteCause::Release);
        }
    }

    /// The client's connection closed: its session ends, and with it its locks. Behind the
    /// pooler the server connection lives on, lock and all.
    pub fn disconnected(&mut self, ctx: &mut PgCtx<'_>, session: u64) {
        if self.pooler == Pooler::None && self.held.is_some_and(|h| h.backend == session) {
            self.release(ctx, DeleteCause::Release);
        }
    }

    /// A crash ends every session.
    pub fn crash(&mut self, ctx: &mut PgCtx<'_>) {
        self.release(ctx, DeleteCause::Crash);
    }

    fn release(&mut self, ctx: &mut PgCtx<'_>, cause: DeleteCause) {
        if let Some(h) = self.held.take() {
            ctx.record(PgObs::Lock(LockObs::KeyDeleted { lease: h.lease, cause }));
        }
    }
}
