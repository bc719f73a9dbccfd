//! The PostgreSQL server (`server-0`): seed 000's `lease_lab.lease` row (owner, epoch,
//! `expires_at`) and `lease_lab.resource` row (the counter), with the one thing a database
//! adds to a lease: the row lock of an open transaction. Committed rows are durable (a crash
//! rolls back only what was open); the lease row is never expired by a timer — `expires_at`
//! is a column a statement compares with a clock.
//!
//! Every lease-row statement locks the row `NOWAIT`: one that finds it locked by another
//! session's transaction fails at once (`55P03 could not obtain lock on row`) instead of
//! queueing. The only transaction that stays open holding the row is a guard that passed
//! (its session is the lease's holder at its epoch), so a waiting claim would only have
//! waited for the holder's `COMMIT`; failing fast and retrying reaches the same state without
//! a queue of statements whose clients may have given up.

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::advisory::Advisory;
use super::begun::Begun;
pub use super::config::{ExpiryClock, ServerConfig};
use super::keepalive::{Due, Keepalive};
use super::msg::PgMsg;
use super::obs::{COMMIT, PgEvent, PgObs};
use crate::lock::LockObs;
use crate::lock::obs::{ClockKind, DeleteCause, Expiry};

/// The open transaction has been idle for `idle_in_transaction_session_timeout`.
pub const IDLE: TimerTag = 0;

/// The session whose open transaction holds the lease row.
#[derive(Copy, Clone, Debug)]
struct Holder {
    client: NodeId,
    session: u64,
    lease: u64,
}

pub struct PgServer {
    cfg: ServerConfig,
    /// The lease row: its owner's lease value, its epoch (the fencing token) and when it
    /// expires, in the terms of the clock `ts` reads.
    owner: Option<u64>,
    epoch: u64,
    expires_at_ns: i64,
    /// The resource row.
    value: u64,
    /// Volatile: a crash rolls back the open transaction.
    row_lock: Option<Holder>,
    /// Volatile: the transactions opened before the read, and their `now()`.
    begun: Begun,
    advisory: Advisory,
    keepalive: Keepalive,
}

type PgCtx<'a> = Ctx<'a, PgMsg, PgObs>;

const ROW_LOCKED: &str = "could not obtain lock on row: another transaction holds it (NOWAIT)";

impl PgServer {
    pub fn new(cfg: ServerConfig) -> Self {
        PgServer {
            cfg,
            owner: None,
            epoch: 0,
            expires_at_ns: 0,
            value: 0,
            row_lock: None,
            begun: Begun::default(),
            advisory: Advisory::new(cfg.pooler),
            keepalive: Keepalive::new(cfg.keepalive),
        }
    }

    /// `ts` of a lease statement from `from`'s `session`: `now()` is its open transaction's
    /// start, or this statement's if it opens its own.
    fn ts(&self, ctx: &PgCtx<'_>, from: NodeId, session: u64, client_wall_ns: i64) -> i64 {
        match self.cfg.expiry_clock {
            ExpiryClock::Database => ctx.wall_ns(),
            ExpiryClock::TransactionStart => self.begun.start_of(from, session).unwrap_or(ctx.wall_ns()),
            ExpiryClock::Client => client_wall_ns,
        }
    }

    /// Records a guard's `now()` that lags the server's clock: the moment its transaction
    /// began, not the guard's.
    fn note_stale_now(&self, ctx: &mut PgCtx<'_>, from: NodeId, session: u64) {
        if self.cfg.expiry_clock != ExpiryClock::TransactionStart {
            return;
        }
        let clock_ns = ctx.wall_ns();
        let now_ns = self.ts(ctx, from, session, 0);
        if now_ns < clock_ns {
            ctx.record(PgObs::Pg(PgEvent::NowIsTransactionStart {
                client: from,
                now_ns,
                clock_ns,
            }));
        }
    }

    /// Whether another session's transaction holds the lease row.
    fn locked_against(&self, from: NodeId, session: u64) -> bool {
        self.row_lock.is_some_and(|h| h.client != from || h.session != session)
    }

    /// Whether this session's transaction holds the lease row.
    fn holds(&self, from: NodeId, session: u64) -> bool {
        self.row_lock.is_some_and(|h| h.client == from && h.session == session)
    }

    /// The lease row's expiry as the lock checkers read it: a wall-clock time on this server
    /// (under `expiry_clock = "client"` the column holds a client's reading, compared here
    /// with the server's clock: what `clock_timestamp()` would make of it).
    fn expiry(&self) -> Option<Expiry> {
        Some(Expiry {
            clock: ClockKind::Wall,
            at_ns: self.expires_at_ns,
        })
    }

    /// `client`'s `session` holds something the server must end when its connection drops.
    fn watch(&mut self, ctx: &mut PgCtx<'_>, client: NodeId, session: u64) {
        if let Some((tag, after_ns)) = self.keepalive.watch(client, session, ctx.mono_ns()) {
            ctx.set_timer(tag, after_ns);
        }
    }

    /// The connection of `from`'s `session` is gone (`how`): its session ends, and what it
    /// held with it.
    fn drop_session(&mut self, ctx: &mut PgCtx<'_>, from: NodeId, session: u64, how: &'static str) {
        ctx.record(PgObs::Pg(PgEvent::ConnectionDropped { client: from, how }));
        self.advisory.disconnected(ctx, session);
        self.begun.end(from, session);
        if self.holds(from, session) {
            ctx.cancel_timer(IDLE);
            self.unlock_row(ctx, "rolled back: the connection was dropped");
        }
    }

    pub fn on_msg(&mut self, ctx: &mut PgCtx<'_>, from: NodeId, msg: PgMsg) {
        if let Some(session) = msg.session() {
            self.keepalive.heard(from, session, ctx.mono_ns());
        }
        match msg {
            PgMsg::Claim {
                req,
                session,
                lease,
                client_wall_ns,
            } => {
                let reply = self.claim(ctx, from, session, lease, client_wall_ns);
                ctx.send(
                    from,
                    PgMsg::Claimed {
                        req,
                        epoch: reply.0,
                        why: reply.1,
                    },
                );
            }
            PgMsg::Read { req, session, begin } => {
                if begin {
                    self.begun.begin(from, session, ctx.wall_ns());
                }
                ctx.send(from, PgMsg::Value { req, value: self.value });
            }
            PgMsg::Check {
                req,
                session,
                lease,
                epoch,
                client_wall_ns,
                hold,
                ..
            } => {
                self.note_stale_now(ctx, from, session);
                let (ok, why) = self.check(ctx, from, session, lease, epoch, client_wall_ns);
                if !(ok && hold) {
                    // Committed on its own, or rolled back by the client on 0 rows (seed 000:
                    // guardedStore "回滚并返回 false").
                    self.begun.end(from, session);
                }
                if ok && hold {
                    self.lock_row(
                        ctx,
                        Holder {
                            client: from,
                            session,
                            lease,
                        },
                    );
                }
                ctx.send(from, PgMsg::Checked { req, ok, why });
            }
            PgMsg::Write {
                req,
                session,
                lease,
                token,
                value,
                based_on,
                in_tx,
            } => {
                if in_tx {
                    self.begun.end(from, session);
                }
                if in_tx && !self.holds(from, session) {
                    let why = "no open transaction: it was rolled back";
                    ctx.send(from, PgMsg::Failed { req, why });
                    return;
                }
                let prev_value = self.value;
                self.value = value;
                ctx.record(PgObs::Lock(LockObs::WriteApplied {
                    client: from,
                    lease,
                    token,
                    value,
                    based_on,
                    prev_value,
                }));
                if in_tx {
                    ctx.cancel_timer(IDLE);
                    self.unlock_row(ctx, COMMIT);
                }
                ctx.send(from, PgMsg::Committed { req });
            }
            PgMsg::Release { session, lease, epoch }
                if !self.locked_against(from, session) && self.owner == Some(lease) && self.epoch == epoch =>
            {
                self.owner = None;
                ctx.record(PgObs::Lock(LockObs::KeyDeleted {
                    lease,
                    cause: DeleteCause::Release,
                }));
            }
            PgMsg::TryLock { req, session, lease } => {
                let ok = self.advisory.try_lock(ctx, session, lease);
                if self.advisory.held_by(session) {
                    self.watch(ctx, from, session);
                }
                ctx.send(from, PgMsg::Locked { req, ok });
            }
            PgMsg::Unlock { session } => self.advisory.unlock(ctx, session),
            PgMsg::KeepaliveReset { session } => {
                self.drop_session(ctx, from, session, "its host reset the connection (keepalive probe)");
            }
            PgMsg::Disconnect { session } => {
                self.advisory.disconnected(ctx, session);
                self.begun.end(from, session);
                if self.holds(from, session) {
                    ctx.cancel_timer(IDLE);
                    self.unlock_row(ctx, "rolled back: the client closed its connection");
                }
            }
            _ => {}
        }
    }

    /// The claim: the epoch granted, or why not.
    fn claim(
        &mut self,
        ctx: &mut PgCtx<'_>,
        from: NodeId,
        session: u64,
        lease: u64,
        client_wall_ns: i64,
    ) -> (Option<u64>, &'static str) {
        if self.locked_against(from, session) {
            return (None, ROW_LOCKED);
        }
        let ts = self.ts(ctx, from, session, client_wall_ns);
        if self.owner.is_some() && self.expires_at_ns > ts {
            return (None, "the lease row has an owner and has not expired");
        }
        self.epoch += 1;
        self.owner = Some(lease);
        self.expires_at_ns = ts.saturating_add(self.cfg.ttl_ns as i64);
        ctx.record(PgObs::Lock(LockObs::TokenIssued {
            token: self.epoch,
            lease: Some(lease),
        }));
        ctx.record(PgObs::Lock(LockObs::KeySet {
            lease,
            expiry: self.expiry(),
        }));
        (Some(self.epoch), "granted")
    }

    /// The guard: whether the row is still `lease`'s at `epoch`, unexpired by `ts`. PostgreSQL
    /// tests the `WHERE` on the row's last committed version before it tries the lock, so a
    /// row that does not qualify answers 0 rows even while another transaction holds it; only
    /// a qualifying row meets `NOWAIT` (tests/conformance_postgres.rs checks both).
    fn check(
        &self,
        ctx: &PgCtx<'_>,
        from: NodeId,
        session: u64,
        lease: u64,
        epoch: u64,
        client_wall_ns: i64,
    ) -> (bool, &'static str) {
        if self.epoch != epoch {
            (false, "the epoch moved on: the lease was claimed again")
        } else if self.owner != Some(lease) {
            (false, "the lease row has no owner: released")
        } else if self.expires_at_ns <= self.ts(ctx, from, session, client_wall_ns) {
            (false, "expires_at has passed")
        } else if self.locked_against(from, session) {
            (false, ROW_LOCKED)
        } else {
            (true, "the lease row is mine")
        }
    }

    /// The guard's transaction stays open holding the row: the lease stands, whatever
    /// `expires_at` says, until it ends (the key has no expiry meanwhile).
    fn lock_row(&mut self, ctx: &mut PgCtx<'_>, holder: Holder) {
        self.row_lock = Some(holder);
        self.watch(ctx, holder.client, holder.session);
        ctx.record(PgObs::Pg(PgEvent::RowLocked {
            client: holder.client,
            lease: holder.lease,
        }));
        ctx.record(PgObs::Lock(LockObs::KeyExtended {
            lease: holder.lease,
            expiry: None,
        }));
        if self.cfg.idle_timeout_ns > 0 {
            ctx.set_timer(IDLE, self.cfg.idle_timeout_ns);
        }
    }

    /// The open transaction ended (`how`): the lease row's expiry rules again.
    fn unlock_row(&mut self, ctx: &mut PgCtx<'_>, how: &'static str) {
        let Some(h) = self.row_lock.take() else { return };
        ctx.record(PgObs::Pg(PgEvent::RowUnlocked {
            client: h.client,
            lease: h.lease,
            how,
        }));
        ctx.record(PgObs::Lock(LockObs::KeyExtended {
            lease: h.lease,
            expiry: self.expiry(),
        }));
    }

    /// `idle_in_transaction_session_timeout` passed: the backend ends the session, which rolls
    /// its transaction back, and tells the client so.
    pub fn on_timer(&mut self, ctx: &mut PgCtx<'_>, tag: TimerTag) {
        if Keepalive::is_keepalive(tag) {
            return self.keepalive_due(ctx, tag);
        }
        if let Some(h) = self.row_lock {
            self.begun.end(h.client, h.session);
            self.unlock_row(ctx, "rolled back: idle-in-transaction timeout, session terminated");
            ctx.send(h.client, PgMsg::Terminated { session: h.session });
        }
    }

    fn keepalive_due(&mut self, ctx: &mut PgCtx<'_>, tag: TimerTag) {
        let (advisory, row_lock) = (&self.advisory, self.row_lock);
        let holds =
            |c: NodeId, s: u64| advisory.held_by(s) || row_lock.is_some_and(|h| h.client == c && h.session == s);
        let due = self.keepalive.due(tag, ctx.mono_ns(), holds);
        match due {
            Due::Rearm(tag, after_ns) => ctx.set_timer(tag, after_ns),
            Due::Probe(client, session, tag, after_ns) => {
                ctx.send(client, PgMsg::KeepaliveProbe { session });
                ctx.set_timer(tag, after_ns);
            }
            Due::Dead(client, session) => {
                self.drop_session(ctx, client, session, "TCP keepalive: every probe went unanswered");
            }
            Due::Idle => {}
        }
    }

    /// A crash rolls back the open transaction and ends every session; committed rows survive.
    pub fn on_crash(&mut self, ctx: &mut PgCtx<'_>) {
        self.keepalive.clear();
        self.unlock_row(ctx, "rolled back: the server crashed");
        self.begun.clear();
        self.advisory.crash(ctx);
    }
}
