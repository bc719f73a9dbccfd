//! The example's lock client: takes the lock on the Redis server (`SET lock <lease> NX PX
//! ttl`), *then* asks the counter service for the next token, reads the protected counter,
//! works, checks its lease deadline and writes with its token; it releases by
//! compare-and-delete. It records the lock facts (`LockObs`) the lock checkers judge.

use locksim::protocols::lock::LockObs;
use locksim::protocols::lock::obs::Deadline;
use locksim::protocols::lock::resource::{ResourceOp, ResourceReply};
use locksim::protocols::redis::cmd::{Cmd, Key, Reply, Value};
use locksim::protocols::redis::msg::Msg;
use locksim::sim::rng::uniform;
use locksim::sim::time::NS_PER_MS;
use locksim::sim::{NodeId, TimerTag};

use crate::world::{Wire, WireCtx};

/// How long a lease lasts: the Redis key's `PX` and the client's deadline.
pub const TTL_MS: u64 = 5_000;

/// The events the client records: what a fault's `after` on it may name.
pub const CLIENT_EVENTS: &[&str] = &[
    "acquire_started",
    "acquire_failed",
    "acquired",
    "read_done",
    "deadline_checked",
    "write_sent",
    "write_accepted",
    "write_rejected",
    "write_timed_out",
    "released",
    "lock_lost",
];

/// The one step timer (start, backoff, work, think) and the request timeout.
const STEP: TimerTag = 0;
const TIMEOUT: TimerTag = 1;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Thinking,
    Backoff,
    Acquiring,
    Fetching,
    Reading,
    Working,
    Writing,
    Releasing,
}

/// Where the client's peers are.
#[derive(Copy, Clone)]
pub struct Peers {
    pub redis: NodeId,
    pub counter: NodeId,
    pub resource: NodeId,
}

/// acquire (`SET NX PX`, retry with backoff) -> token from the counter -> read -> work ->
/// check the deadline -> write with the token -> release (compare-and-delete) -> think.
pub struct TokenLeaseClient {
    index: u64,
    peers: Peers,
    // Volatile: a crash forgets all of it.
    phase: Phase,
    next_req: u64,
    req: u64,
    lease: u64,
    attempt: u32,
    sent_mono_ns: u64,
    deadline_mono_ns: u64,
    token: Option<u64>,
    read_value: u64,
}

impl TokenLeaseClient {
    pub fn new(index: u64, peers: Peers) -> Self {
        TokenLeaseClient {
            index,
            peers,
            phase: Phase::Thinking,
            next_req: 0,
            req: 0,
            lease: 0,
            attempt: 0,
            sent_mono_ns: 0,
            deadline_mono_ns: 0,
            token: None,
            read_value: 0,
        }
    }

    pub fn on_start(&mut self, ctx: &mut WireCtx<'_>) {
        *self = TokenLeaseClient::new(self.index, self.peers);
        ctx.set_timer(STEP, self.index * 3 * NS_PER_MS);
    }

    fn request(&mut self, ctx: &mut WireCtx<'_>, to: NodeId, msg: impl FnOnce(u64) -> Wire) {
        self.next_req += 1;
        self.req = self.next_req;
        ctx.send(to, msg(self.req));
        ctx.set_timer(TIMEOUT, 500 * NS_PER_MS);
    }

    fn redis(&mut self, ctx: &mut WireCtx<'_>, cmd: Cmd) {
        let redis = self.peers.redis;
        self.request(ctx, redis, |req| Wire::Lock(Msg::Redis { req, cmd }));
    }

    fn resource(&mut self, ctx: &mut WireCtx<'_>, op: ResourceOp) {
        let resource = self.peers.resource;
        self.request(ctx, resource, |req| Wire::Lock(Msg::Resource { req, op }));
    }

    pub fn on_timer(&mut self, ctx: &mut WireCtx<'_>, tag: TimerTag) {
        match (tag, self.phase) {
            (STEP, Phase::Thinking) => {
                self.lease = uniform(ctx.rng(), 0, u64::MAX) | 1;
                self.attempt = 0;
                self.acquire(ctx);
            }
            (STEP, Phase::Backoff) => self.acquire(ctx),
            (STEP, Phase::Working) => self.write(ctx),
            (TIMEOUT, _) => {
                self.req = 0;
                match self.phase {
                    Phase::Acquiring => self.backoff(ctx),
                    Phase::Fetching | Phase::Reading => self.release(ctx),
                    Phase::Writing => {
                        ctx.record(LockObs::WriteTimedOut);
                        self.release(ctx);
                    }
                    Phase::Releasing => self.think(ctx),
                    _ => {}
                }
            }
            _ => {}
        }
    }

    pub fn on_msg(&mut self, ctx: &mut WireCtx<'_>, msg: Wire) {
        let req = match &msg {
            Wire::Lock(Msg::RedisReply { req, .. } | Msg::ResourceReply { req, .. }) | Wire::Token { req, .. } => *req,
            _ => return,
        };
        if req != self.req || req == 0 {
            return; // a late answer to an abandoned request
        }
        self.req = 0;
        ctx.cancel_timer(TIMEOUT);
        match (self.phase, msg) {
            (Phase::Acquiring, Wire::Lock(Msg::RedisReply { reply: Reply::Ok, .. })) => {
                self.deadline_mono_ns = self.sent_mono_ns + TTL_MS * NS_PER_MS;
                self.phase = Phase::Fetching;
                let counter = self.peers.counter;
                self.request(ctx, counter, |req| Wire::Next { req });
            }
            (Phase::Acquiring, _) => {
                ctx.record(LockObs::AcquireFailed {
                    lease: self.lease,
                    why: "the key is held".into(),
                    validity_ns: 0,
                });
                self.backoff(ctx);
            }
            (Phase::Fetching, Wire::Token { token, .. }) => {
                self.token = Some(token);
                ctx.record(LockObs::Acquired {
                    lease: self.lease,
                    token: self.token,
                    validity_ns: self.remaining_ns(ctx),
                    deadline_mono_ns: Deadline::Mono(self.deadline_mono_ns),
                    servers: 1,
                });
                self.phase = Phase::Reading;
                self.resource(ctx, ResourceOp::Read);
            }
            (
                Phase::Reading,
                Wire::Lock(Msg::ResourceReply {
                    reply: ResourceReply::Value(v),
                    ..
                }),
            ) => {
                self.read_value = v;
                ctx.record(LockObs::ReadDone { value: v });
                self.phase = Phase::Working;
                ctx.set_timer(STEP, 500 * NS_PER_MS);
            }
            (Phase::Writing, Wire::Lock(Msg::ResourceReply { reply, .. })) => {
                match reply {
                    ResourceReply::Rejected { max } => ctx.record(LockObs::WriteRejected { token: self.token, max }),
                    _ => ctx.record(LockObs::WriteAccepted {
                        value: self.read_value + 1,
                    }),
                }
                self.release(ctx);
            }
            (Phase::Releasing, _) => self.think(ctx),
            _ => {}
        }
    }

    fn acquire(&mut self, ctx: &mut WireCtx<'_>) {
        self.attempt += 1;
        self.token = None;
        ctx.record(LockObs::AcquireStarted {
            lease: self.lease,
            attempt: self.attempt,
        });
        self.phase = Phase::Acquiring;
        // The lease's validity counts from the moment the acquire is sent.
        self.sent_mono_ns = ctx.mono_ns();
        let cmd = Cmd::SetNxPx {
            key: Key::Lock,
            value: Value::Lease(self.lease),
            px_ms: TTL_MS,
        };
        self.redis(ctx, cmd);
    }

    fn remaining_ns(&self, ctx: &WireCtx<'_>) -> i64 {
        self.deadline_mono_ns as i64 - ctx.mono_ns() as i64
    }

    fn write(&mut self, ctx: &mut WireCtx<'_>) {
        let remaining_ns = self.remaining_ns(ctx);
        ctx.record(LockObs::DeadlineChecked {
            remaining_ns,
            ok: remaining_ns > 0,
        });
        if remaining_ns <= 0 {
            ctx.record(LockObs::LockLost {
                why: "its lease deadline passed before the write".into(),
            });
            return self.release(ctx);
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
        self.resource(ctx, op);
    }

    fn release(&mut self, ctx: &mut WireCtx<'_>) {
        ctx.cancel_timer(STEP);
        ctx.record(LockObs::Released { lease: self.lease });
        self.phase = Phase::Releasing;
        let cmd = Cmd::DelIfEq {
            key: Key::Lock,
            value: Value::Lease(self.lease),
        };
        self.redis(ctx, cmd);
    }

    fn think(&mut self, ctx: &mut WireCtx<'_>) {
        self.phase = Phase::Thinking;
        ctx.set_timer(STEP, 200 * NS_PER_MS);
    }

    fn backoff(&mut self, ctx: &mut WireCtx<'_>) {
        self.phase = Phase::Backoff;
        let jitter = uniform(ctx.rng(), 0, 50);
        ctx.set_timer(STEP, (100 + jitter) * NS_PER_MS);
    }
}
