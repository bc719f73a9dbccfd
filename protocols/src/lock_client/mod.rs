//! The lock client's loop (DESIGN section 4b): acquire (retrying with backoff and jitter) ->
//! read the counter -> work -> check the lease deadline -> write value+1 with the token ->
//! release -> think -> again. Every step records an event a fault can be placed `after`.
//!
//! The lease deadline counts on the client's monotonic clock from the moment it *sent* the
//! successful acquire (or renewal): its validity starts before the server's TTL does, as in
//! the Redis documentation's algorithm. A release is sent whatever happened — lost lock,
//! failed check, timed-out write — because real code releases in a `finally` block.

pub mod config;

use locksim_sim::rng::uniform;
use locksim_sim::{Ctx, LockObs, NodeId, TimerTag};

use crate::lock_world::Msg;
use crate::redis::cmd::{Cmd, Key, Reply, Value};
use crate::resource::{ResourceOp, ResourceReply};
pub use config::{Acquire, ClientConfig, DeadlineCheck, FencingTokens, Release, Renew};

/// The step timer: start, backoff, work, think (one at a time).
const STEP: TimerTag = 0;
/// The timeout of the outstanding request.
const TIMEOUT: TimerTag = 1;
/// The renewal watchdog's period.
const RENEW: TimerTag = 2;
/// The timeout of the outstanding renewal.
const RENEW_TIMEOUT: TimerTag = 3;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Starting,
    Acquiring,
    /// `SETNX` succeeded; `EXPIRE` is on its way.
    Expiring,
    Backoff,
    Reading,
    Working,
    Writing,
    Releasing,
    Thinking,
}

pub struct LockClient {
    cfg: ClientConfig,
    server: NodeId,
    resource: NodeId,
    index: u64,
    // Everything below is volatile: a crash resets it.
    phase: Phase,
    next_req: u64,
    /// The outstanding request of the loop (0: none).
    req: u64,
    /// The outstanding renewal (0: none).
    renew_req: u64,
    renew_sent_mono_ns: u64,
    lease: u64,
    attempt: u32,
    acquire_sent_mono_ns: u64,
    deadline_mono_ns: u64,
    token: Option<u64>,
    read_value: u64,
    holding: bool,
}

type ClientCtx<'a> = Ctx<'a, Msg, LockObs>;

impl LockClient {
    /// Client number `index` of the world, using `server` for the lock and `resource`.
    pub fn new(cfg: ClientConfig, index: u64, server: NodeId, resource: NodeId) -> Self {
        LockClient {
            cfg,
            server,
            resource,
            index,
            phase: Phase::Starting,
            next_req: 0,
            req: 0,
            renew_req: 0,
            renew_sent_mono_ns: 0,
            lease: 0,
            attempt: 0,
            acquire_sent_mono_ns: 0,
            deadline_mono_ns: 0,
            token: None,
            read_value: 0,
            holding: false,
        }
    }

    pub fn on_start(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Starting;
        ctx.set_timer(STEP, self.index * self.cfg.start_stagger_ns);
    }

    /// A crash forgets the round: the process starts over on restart.
    pub fn on_crash(&mut self) {
        *self = LockClient::new(self.cfg, self.index, self.server, self.resource);
    }

    pub fn on_timer(&mut self, ctx: &mut ClientCtx<'_>, tag: TimerTag) {
        match (tag, self.phase) {
            (STEP, Phase::Starting | Phase::Thinking) => self.begin_round(ctx),
            (STEP, Phase::Backoff) => self.try_acquire(ctx),
            (STEP, Phase::Working) => self.finish_work(ctx),
            (TIMEOUT, _) => self.on_timeout(ctx),
            (RENEW, _) if self.holding => self.renew(ctx),
            (RENEW_TIMEOUT, _) if self.holding => {
                // Unanswered: try again at the next period.
                self.renew_req = 0;
                ctx.set_timer(RENEW, self.cfg.renew_every_ns);
            }
            _ => {}
        }
    }

    pub fn on_msg(&mut self, ctx: &mut ClientCtx<'_>, msg: Msg) {
        match msg {
            Msg::RedisReply { req, reply } if req == self.renew_req && req != 0 => self.on_renew_reply(ctx, reply),
            Msg::RedisReply { req, reply } if req == self.req && req != 0 => {
                self.req = 0;
                ctx.cancel_timer(TIMEOUT);
                match self.phase {
                    Phase::Acquiring => self.on_acquire_reply(ctx, reply),
                    Phase::Expiring => self.after_acquired(ctx),
                    Phase::Releasing => self.think(ctx),
                    _ => {}
                }
            }
            Msg::ResourceReply { req, reply } if req == self.req && req != 0 => {
                self.req = 0;
                ctx.cancel_timer(TIMEOUT);
                match (self.phase, reply) {
                    (Phase::Reading, ResourceReply::Value(v)) => {
                        self.read_value = v;
                        ctx.record(LockObs::ReadDone { value: v });
                        self.phase = Phase::Working;
                        ctx.set_timer(STEP, self.cfg.work_ns);
                    }
                    (Phase::Writing, ResourceReply::Accepted) => {
                        ctx.record(LockObs::WriteAccepted {
                            value: self.read_value + 1,
                        });
                        self.release(ctx);
                    }
                    (Phase::Writing, ResourceReply::Rejected { max }) => {
                        ctx.record(LockObs::WriteRejected { token: self.token, max });
                        self.release(ctx);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn request(&mut self, ctx: &mut ClientCtx<'_>, to: NodeId, msg: impl FnOnce(u64) -> Msg) {
        self.next_req += 1;
        self.req = self.next_req;
        ctx.send(to, msg(self.req));
        ctx.set_timer(TIMEOUT, self.cfg.request_timeout_ns);
    }

    fn redis(&mut self, ctx: &mut ClientCtx<'_>, cmd: Cmd) {
        let server = self.server;
        self.request(ctx, server, |req| Msg::Redis { req, cmd });
    }

    fn begin_round(&mut self, ctx: &mut ClientCtx<'_>) {
        // A fresh random lease per round (never 0, which means "no lease" to the checkers).
        self.lease = uniform(ctx.rng(), 0, u64::MAX) | 1;
        self.attempt = 0;
        self.token = None;
        self.try_acquire(ctx);
    }

    fn try_acquire(&mut self, ctx: &mut ClientCtx<'_>) {
        self.attempt += 1;
        ctx.record(LockObs::AcquireStarted {
            lease: self.lease,
            attempt: self.attempt,
        });
        self.acquire_sent_mono_ns = ctx.mono_ns();
        self.phase = Phase::Acquiring;
        let (key, value) = (Key::Lock, Value::Lease(self.lease));
        let px_ms = self.cfg.ttl_ns / 1_000_000;
        let cmd = match (self.cfg.fencing_tokens, self.cfg.acquire) {
            (FencingTokens::None, Acquire::SetNxPx) => Cmd::SetNxPx { key, value, px_ms },
            (FencingTokens::None, Acquire::SetNxThenExpire) => Cmd::SetNx { key, value },
            (FencingTokens::Incr, acquire) => Cmd::AcquireWithToken {
                key,
                value,
                px_ms: (acquire == Acquire::SetNxPx).then_some(px_ms),
                fence: Key::Fence,
            },
        };
        self.redis(ctx, cmd);
    }

    fn on_acquire_reply(&mut self, ctx: &mut ClientCtx<'_>, reply: Reply) {
        let granted = match (self.cfg.fencing_tokens, reply) {
            (FencingTokens::Incr, Reply::Int(token)) => Some(Some(token as u64)),
            (FencingTokens::None, Reply::Ok | Reply::Int(1)) => Some(None),
            _ => None,
        };
        let Some(token) = granted else {
            ctx.record(LockObs::AcquireFailed {
                lease: self.lease,
                why: "the key is held",
            });
            return self.backoff(ctx);
        };
        self.token = token;
        self.holding = true;
        self.deadline_mono_ns = self.acquire_sent_mono_ns + self.cfg.ttl_ns;
        ctx.record(LockObs::Acquired {
            lease: self.lease,
            token,
            validity_ns: self.remaining_ns(ctx),
            deadline_mono_ns: self.deadline_mono_ns,
            servers: 1,
        });
        if self.cfg.renew_every_ns > 0 {
            ctx.set_timer(RENEW, self.cfg.renew_every_ns);
        }
        if self.cfg.acquire == Acquire::SetNxThenExpire {
            self.phase = Phase::Expiring;
            let ms = self.cfg.ttl_ns / 1_000_000;
            return self.redis(ctx, Cmd::PExpire { key: Key::Lock, ms });
        }
        self.after_acquired(ctx);
    }

    fn after_acquired(&mut self, ctx: &mut ClientCtx<'_>) {
        if self.cfg.deadline_check == DeadlineCheck::Once && !self.check_deadline(ctx) {
            return self.lose(ctx, "its lease deadline had passed when it checked");
        }
        self.phase = Phase::Reading;
        let resource = self.resource;
        self.request(ctx, resource, |req| Msg::Resource {
            req,
            op: ResourceOp::Read,
        });
    }

    fn finish_work(&mut self, ctx: &mut ClientCtx<'_>) {
        if self.cfg.deadline_check == DeadlineCheck::BeforeWrite && !self.check_deadline(ctx) {
            return self.lose(ctx, "its lease deadline passed before the write");
        }
        let value = self.read_value + 1;
        ctx.record(LockObs::WriteSent {
            token: self.token,
            value,
        });
        self.phase = Phase::Writing;
        let op = ResourceOp::Write {
            token: self.token,
            value,
            based_on: self.read_value,
            lease: self.lease,
        };
        let resource = self.resource;
        self.request(ctx, resource, |req| Msg::Resource { req, op });
    }

    fn remaining_ns(&self, ctx: &ClientCtx<'_>) -> i64 {
        self.deadline_mono_ns as i64 - ctx.mono_ns() as i64
    }

    /// Records the check; true while the lease is still valid by the monotonic clock.
    fn check_deadline(&mut self, ctx: &mut ClientCtx<'_>) -> bool {
        let remaining_ns = self.remaining_ns(ctx);
        let ok = remaining_ns > 0;
        ctx.record(LockObs::DeadlineChecked { remaining_ns, ok });
        ok
    }

    fn lose(&mut self, ctx: &mut ClientCtx<'_>, why: &'static str) {
        ctx.record(LockObs::LockLost { why });
        self.release(ctx);
    }

    fn release(&mut self, ctx: &mut ClientCtx<'_>) {
        self.holding = false;
        self.renew_req = 0;
        ctx.cancel_timer(RENEW);
        ctx.cancel_timer(RENEW_TIMEOUT);
        ctx.cancel_timer(STEP);
        ctx.record(LockObs::Released { lease: self.lease });
        self.phase = Phase::Releasing;
        let cmd = match self.cfg.release {
            Release::CompareAndDelete => Cmd::DelIfEq {
                key: Key::Lock,
                value: Value::Lease(self.lease),
            },
            Release::PlainDel => Cmd::Del { key: Key::Lock },
        };
        self.redis(ctx, cmd);
    }

    fn think(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Thinking;
        ctx.set_timer(STEP, self.cfg.think_ns);
    }

    fn backoff(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Backoff;
        let base = self.cfg.retry_ns;
        let doubled = base << (self.attempt.saturating_sub(1)).min(2);
        let jitter = uniform(ctx.rng(), 0, base / 2);
        ctx.set_timer(STEP, doubled + jitter);
    }

    fn on_timeout(&mut self, ctx: &mut ClientCtx<'_>) {
        self.req = 0;
        match self.phase {
            Phase::Acquiring => {
                ctx.record(LockObs::AcquireFailed {
                    lease: self.lease,
                    why: "no reply in time",
                });
                self.backoff(ctx);
            }
            Phase::Expiring | Phase::Reading => self.release(ctx),
            Phase::Writing => {
                ctx.record(LockObs::WriteTimedOut);
                self.release(ctx);
            }
            Phase::Releasing => self.think(ctx),
            _ => {}
        }
    }

    fn renew(&mut self, ctx: &mut ClientCtx<'_>) {
        let ms = self.cfg.ttl_ns / 1_000_000;
        let cmd = match self.cfg.renew {
            Renew::Checked => {
                if self.remaining_ns(ctx) <= 0 {
                    return self.lose(ctx, "its lease deadline passed before it could renew");
                }
                Cmd::PExpireIfEq {
                    key: Key::Lock,
                    value: Value::Lease(self.lease),
                    ms,
                }
            }
            Renew::Blind => Cmd::PExpire { key: Key::Lock, ms },
        };
        self.next_req += 1;
        self.renew_req = self.next_req;
        self.renew_sent_mono_ns = ctx.mono_ns();
        ctx.send(
            self.server,
            Msg::Redis {
                req: self.renew_req,
                cmd,
            },
        );
        ctx.set_timer(RENEW_TIMEOUT, self.cfg.request_timeout_ns);
    }

    fn on_renew_reply(&mut self, ctx: &mut ClientCtx<'_>, reply: Reply) {
        self.renew_req = 0;
        ctx.cancel_timer(RENEW_TIMEOUT);
        if !self.holding {
            return;
        }
        if reply == Reply::Int(1) {
            self.deadline_mono_ns = self.renew_sent_mono_ns + self.cfg.ttl_ns;
            ctx.record(LockObs::Renewed {
                deadline_mono_ns: self.deadline_mono_ns,
            });
            ctx.set_timer(RENEW, self.cfg.renew_every_ns);
        } else {
            self.lose(ctx, "a renewal found the key no longer ours");
        }
    }
}
