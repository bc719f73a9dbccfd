//! A lease client (`client-<i>`) on one connection to the database: seed 000's loop — claim
//! the lease row, read the counter, work, guard (`SELECT ... FOR UPDATE` of the lease row at
//! its epoch, unexpired), write the counter, release, think, again. The client trusts the
//! database's answers and judges no deadline of its own; where its guard runs (inside the
//! write's transaction or in one of its own) is the model's `guard` knob.

use locksim_sim::rng::uniform;
use locksim_sim::{Ctx, NodeId, TimerTag};

use super::msg::PgMsg;
use super::obs::{PgEvent, PgObs};
use crate::lock::LockObs;
use crate::lock::obs::Deadline;

/// Start the next round (claim).
const NEXT: TimerTag = 0;
/// The work between reading and guarding is done.
const WORK: TimerTag = 1;
/// The outstanding request went unanswered.
const TIMEOUT: TimerTag = 2;

/// Where the guard runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Seed 000: `BEGIN`, the guard `FOR UPDATE`, the business `UPDATE`, one `COMMIT`.
    SameTx,
    /// Wrong: the guard commits on its own, the write follows in a transaction of its own.
    SeparateTx,
}

/// Where the transaction that holds the guard begins.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Begin {
    /// Seed 000: `BEGIN` just before the guard, after the work.
    AtGuard,
    /// `BEGIN` before reading the counter: the transaction stays open through the work, so
    /// its `now()` is the moment before the work, not the guard's.
    BeforeRead,
}

/// What the client locks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LockKind {
    /// Seed 000's lease row.
    LeaseRow,
    /// A session-level advisory lock (`pg_try_advisory_lock`): no TTL, no guard; the client
    /// holds it until it unlocks or its session ends.
    Advisory,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ClientConfig {
    pub lock: LockKind,
    pub ttl_ns: u64,
    pub work_ns: u64,
    pub think_ns: u64,
    pub retry_ns: u64,
    pub request_timeout_ns: u64,
    pub start_stagger_ns: u64,
    pub guard: Guard,
    pub begin: Begin,
}

/// A lease the client holds: its value and epoch. Its deadline (the claim's send + TTL on the
/// client's monotonic clock, DESIGN 4b) is recorded with `acquired` for the checkers; the
/// client itself leaves the judging of expiry to the database.
#[derive(Copy, Clone, Debug)]
struct Held {
    lease: u64,
    epoch: u64,
}

#[derive(Copy, Clone, Debug)]
enum Step {
    Claim { lease: u64, sent_mono_ns: u64 },
    Read,
    Check,
    Write { value: u64 },
}

pub struct PgClient {
    cfg: ClientConfig,
    index: u64,
    server: NodeId,
    /// The connection: a server backend knows a client only by it. Drawn anew on each
    /// (re)connect.
    session: u64,
    next_req: u64,
    attempt: u32,
    held: Option<Held>,
    read_value: u64,
    waiting: Option<(u64, Step)>,
}

type PgCtx<'a> = Ctx<'a, PgMsg, PgObs>;

impl PgClient {
    pub fn new(cfg: ClientConfig, index: u64, server: NodeId) -> Self {
        PgClient {
            cfg,
            index,
            server,
            session: 0,
            next_req: 1,
            attempt: 0,
            held: None,
            read_value: 0,
            waiting: None,
        }
    }

    pub fn on_start(&mut self, ctx: &mut PgCtx<'_>) {
        self.session = uniform(ctx.rng(), 1, u64::MAX);
        ctx.set_timer(NEXT, self.index * self.cfg.start_stagger_ns);
    }

    /// Every request goes out the same way: numbered, awaited, timed.
    fn request(&mut self, ctx: &mut PgCtx<'_>, step: Step, msg: impl FnOnce(u64, u64) -> PgMsg) {
        let req = self.next_req;
        self.next_req += 1;
        ctx.send(self.server, msg(req, self.session));
        self.waiting = Some((req, step));
        ctx.set_timer(TIMEOUT, self.cfg.request_timeout_ns);
    }

    fn claim(&mut self, ctx: &mut PgCtx<'_>) {
        let lease = uniform(ctx.rng(), 1, u64::MAX);
        self.attempt += 1;
        ctx.record(PgObs::Lock(LockObs::AcquireStarted {
            lease,
            attempt: self.attempt,
        }));
        let step = Step::Claim {
            lease,
            sent_mono_ns: ctx.mono_ns(),
        };
        let client_wall_ns = ctx.wall_ns();
        match self.cfg.lock {
            LockKind::LeaseRow => self.request(ctx, step, |req, session| PgMsg::Claim {
                req,
                session,
                lease,
                client_wall_ns,
            }),
            LockKind::Advisory => self.request(ctx, step, |req, session| PgMsg::TryLock { req, session, lease }),
        }
    }

    /// The next claim after a failure: the retry delay doubled per failure up to 4x, plus up
    /// to half of it as jitter.
    fn retry(&mut self, ctx: &mut PgCtx<'_>) {
        let factor = 1u64 << self.attempt.clamp(1, 3).saturating_sub(1);
        let base = self.cfg.retry_ns * factor;
        let jitter = uniform(ctx.rng(), 0, base / 2);
        ctx.set_timer(NEXT, base + jitter);
    }

    /// A new connection: the old one's transaction, if the server still has it, is no longer
    /// this client's to finish.
    fn reconnect(&mut self, ctx: &mut PgCtx<'_>) {
        self.session = uniform(ctx.rng(), 1, u64::MAX);
    }

    /// The client stops acting on its lease (`why`) and starts over after a retry delay.
    fn give_up(&mut self, ctx: &mut PgCtx<'_>, why: &'static str) {
        if self.held.take().is_some() {
            ctx.record(PgObs::Lock(LockObs::LockLost { why: why.into() }));
        }
        self.waiting = None;
        ctx.cancel_timer(TIMEOUT);
        ctx.cancel_timer(WORK);
        self.retry(ctx);
    }

    pub fn on_msg(&mut self, ctx: &mut PgCtx<'_>, msg: PgMsg) {
        if let PgMsg::KeepaliveProbe { session } = msg {
            // The kernel answers, whatever the process is doing.
            let reply = if session == self.session {
                PgMsg::KeepaliveAck { session }
            } else {
                PgMsg::KeepaliveReset { session }
            };
            ctx.send(self.server, reply);
            return;
        }
        if let PgMsg::Terminated { session } = msg {
            if session == self.session {
                self.reconnect(ctx);
                self.give_up(ctx, "the server terminated the session (idle-in-transaction timeout)");
            }
            return;
        }
        let Some((req, step)) = self.waiting else { return };
        let answers = match &msg {
            PgMsg::Claimed { req, .. }
            | PgMsg::Locked { req, .. }
            | PgMsg::Value { req, .. }
            | PgMsg::Checked { req, .. }
            | PgMsg::Committed { req }
            | PgMsg::Failed { req, .. } => *req,
            _ => return,
        };
        if answers != req {
            return;
        }
        self.waiting = None;
        ctx.cancel_timer(TIMEOUT);
        match (step, msg) {
            (Step::Claim { lease, sent_mono_ns }, PgMsg::Claimed { epoch, why, .. }) => {
                self.claimed(ctx, lease, sent_mono_ns, epoch, why)
            }
            (Step::Claim { lease, .. }, PgMsg::Locked { ok, .. }) => self.locked(ctx, lease, ok),
            (Step::Read, PgMsg::Value { value, .. }) => {
                self.read_value = value;
                ctx.record(PgObs::Lock(LockObs::ReadDone { value }));
                ctx.set_timer(WORK, self.cfg.work_ns);
            }
            (Step::Check, PgMsg::Checked { ok, why, .. }) => self.checked(ctx, ok, why),
            (Step::Write { value }, PgMsg::Committed { .. }) => {
                ctx.record(PgObs::Lock(LockObs::WriteAccepted { value }));
                self.release(ctx);
            }
            (_, PgMsg::Failed { why, .. }) => {
                self.reconnect(ctx);
                self.give_up(ctx, why);
            }
            _ => {}
        }
    }

    fn claimed(&mut self, ctx: &mut PgCtx<'_>, lease: u64, sent_mono_ns: u64, epoch: Option<u64>, why: &'static str) {
        let Some(epoch) = epoch else {
            ctx.record(PgObs::Lock(LockObs::AcquireFailed {
                lease,
                why: why.into(),
                validity_ns: 0,
            }));
            self.retry(ctx);
            return;
        };
        self.attempt = 0;
        self.held = Some(Held { lease, epoch });
        ctx.record(PgObs::Lock(LockObs::Acquired {
            lease,
            token: Some(epoch),
            validity_ns: self.cfg.ttl_ns as i64,
            deadline_mono_ns: Deadline::Mono(sent_mono_ns + self.cfg.ttl_ns),
            servers: 1,
        }));
        self.read(ctx);
    }

    /// Reads the counter, opening the write's transaction first under `begin = "before-read"`.
    fn read(&mut self, ctx: &mut PgCtx<'_>) {
        let begin = self.begun();
        self.request(ctx, Step::Read, |req, session| PgMsg::Read { req, session, begin });
    }

    /// Whether the round's transaction is opened before the read.
    fn begun(&self) -> bool {
        self.cfg.begin == Begin::BeforeRead
    }

    /// `pg_try_advisory_lock` answered: the client holds the lock until it unlocks, with no
    /// deadline and no token.
    fn locked(&mut self, ctx: &mut PgCtx<'_>, lease: u64, ok: bool) {
        if !ok {
            ctx.record(PgObs::Lock(LockObs::AcquireFailed {
                lease,
                why: "pg_try_advisory_lock: another session holds it".into(),
                validity_ns: 0,
            }));
            self.retry(ctx);
            return;
        }
        self.attempt = 0;
        self.held = Some(Held { lease, epoch: 0 });
        ctx.record(PgObs::Lock(LockObs::Acquired {
            lease,
            token: None,
            validity_ns: 0,
            deadline_mono_ns: Deadline::Untracked,
            servers: 1,
        }));
        self.read(ctx);
    }

    fn checked(&mut self, ctx: &mut PgCtx<'_>, ok: bool, why: &'static str) {
        let Some(held) = self.held else { return };
        let hold = self.cfg.guard == Guard::SameTx;
        ctx.record(PgObs::Pg(PgEvent::LeaseChecked {
            epoch: held.epoch,
            ok,
            row_locked: ok && hold,
            why,
        }));
        if !ok {
            self.give_up(ctx, "the guard found the lease row no longer mine");
            return;
        }
        self.write(ctx, held.lease, Some(held.epoch), hold);
    }

    /// The counter's `UPDATE`: in the guard's transaction (`in_tx`) or on its own.
    fn write(&mut self, ctx: &mut PgCtx<'_>, lease: u64, token: Option<u64>, in_tx: bool) {
        let value = self.read_value + 1;
        ctx.record(PgObs::Lock(LockObs::WriteSent { token, value }));
        let based_on = self.read_value;
        self.request(ctx, Step::Write { value }, |req, session| PgMsg::Write {
            req,
            session,
            lease,
            token,
            value,
            based_on,
            in_tx,
        });
    }

    fn release(&mut self, ctx: &mut PgCtx<'_>) {
        if let Some(held) = self.held.take() {
            ctx.record(PgObs::Lock(LockObs::Released { lease: held.lease }));
            let session = self.session;
            let msg = match self.cfg.lock {
                LockKind::LeaseRow => PgMsg::Release {
                    session,
                    lease: held.lease,
                    epoch: held.epoch,
                },
                LockKind::Advisory => PgMsg::Unlock { session },
            };
            ctx.send(self.server, msg);
        }
        ctx.set_timer(NEXT, self.cfg.think_ns);
    }

    pub fn on_timer(&mut self, ctx: &mut PgCtx<'_>, tag: TimerTag) {
        match tag {
            NEXT => self.claim(ctx),
            WORK => {
                let Some(held) = self.held else { return };
                if self.cfg.lock == LockKind::Advisory {
                    return self.write(ctx, held.lease, None, false);
                }
                let hold = self.cfg.guard == Guard::SameTx;
                let client_wall_ns = ctx.wall_ns();
                let begun = self.begun();
                self.request(ctx, Step::Check, |req, session| PgMsg::Check {
                    req,
                    session,
                    lease: held.lease,
                    epoch: held.epoch,
                    client_wall_ns,
                    hold,
                    begun,
                });
            }
            TIMEOUT => {
                if matches!(self.waiting, Some((_, Step::Write { .. }))) {
                    ctx.record(PgObs::Lock(LockObs::WriteTimedOut));
                }
                // The driver closes a connection whose request timed out; the server reads
                // end-of-file, if the message gets there.
                ctx.send(self.server, PgMsg::Disconnect { session: self.session });
                self.reconnect(ctx);
                self.give_up(ctx, "a request timed out: connection closed");
            }
            _ => {}
        }
    }

    /// A crash loses everything; the server is not told (a dead host sends no FIN).
    pub fn on_crash(&mut self) {
        self.held = None;
        self.waiting = None;
        self.attempt = 0;
    }
}
