//! The lock client's loop (DESIGN section 4b): acquire (retrying with backoff and jitter) ->
//! read the counter -> work -> check the lease deadline -> write value+1 with the token ->
//! release -> think -> again. Every step records an event a fault can be placed `after`.
//!
//! One loop serves every Redis-based lock: a single Redis is a [`LockService`] of one server
//! with quorum 1 and no drift allowance; Redlock is N servers, a majority quorum and
//! `drift = ttl * factor + 2 ms`. An attempt sends the acquire to every server at once and
//! collects the answers until all arrived or the per-node timeout passed; then, in a step of its
//! own (so a pause placed `after = "acquire_replies"` really does come before it), it computes
//! `validity = ttl - elapsed - drift` (`elapsed` on the monotonic clock, or on the wall clock
//! with Redlock's `elapsed_clock = "wall"`) and holds only with a quorum and validity > 0.
//! Otherwise it releases on every server (Redlock: even those that said no) and retries.
//!
//! The lease deadline is `now + validity` on the monotonic clock, which is `start + ttl -
//! drift`, `start` being when the acquire was *sent*, unless the wall clock measured the
//! elapsed time and stepped meanwhile: the client's validity starts before any server's TTL
//! does, as in the Redis documentation's algorithm; a renewal moves it to `sent + ttl`. A release is sent whatever happened — lost
//! lock, failed check, timed-out write — because real code releases in a `finally` block.

mod acquire;
mod hold;

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::cmd::{Cmd, Reply};
use super::msg::Msg;
use crate::lock::LockObs;
use crate::lock::knobs::{ClientConfig, ElapsedClock, FencingTokens};
use crate::lock::resource::ResourceReply;
pub use acquire::{drift_allowance_ns, validity_ns};

/// The step timer: start, backoff, work, think (one at a time).
const STEP: TimerTag = 0;
/// The timeout of the outstanding request (for an acquire: the per-node timeout).
const TIMEOUT: TimerTag = 1;
/// The renewal watchdog's period.
const RENEW: TimerTag = 2;
/// The timeout of the outstanding renewal.
const RENEW_TIMEOUT: TimerTag = 3;
/// The acquire's decision, a step after the last answer.
const DECIDE: TimerTag = 4;

/// How a client reaches its lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockService {
    /// The lock servers (a single Redis: its primary, which a failover replaces).
    pub servers: Vec<NodeId>,
    pub quorum: u32,
    /// Validity allowance for clock drift (Redlock's `ttl * factor + 2 ms`; 0 for one Redis).
    pub drift_ns: u64,
    /// How long an acquire waits for the servers' answers.
    pub per_node_timeout_ns: u64,
    /// Failed attempts before the round gives up and starts over with a new lease (0: never).
    pub retry_count: u32,
    /// After a failed attempt, unlock every server, not only those that said yes: Redlock's
    /// step 5. A SET whose reply came after the per-node timeout may well have set the key,
    /// and only the unlock frees it before its TTL.
    pub unlock_all_after_failure: bool,
    /// The clock the acquisition's elapsed time is measured on.
    pub elapsed_clock: ElapsedClock,
    /// The counter Redis, with `fencing_tokens = "counter"`.
    pub counter: Option<NodeId>,
    pub resource: NodeId,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Starting,
    Acquiring,
    Deciding,
    /// Taking a token from the counter.
    Fetching,
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
    service: LockService,
    index: u64,
    // Everything below is volatile: a crash resets it.
    phase: Phase,
    next_req: u64,
    /// The outstanding request of the loop; for an acquire or a release, the first of one
    /// request per server (`req + i` went to server i).
    req: u64,
    /// Servers that answered the outstanding multi-server request (bit i: server i).
    answered: u32,
    granted: u32,
    /// The outstanding renewal (0: none).
    renew_req: u64,
    renew_sent_mono_ns: u64,
    lease: u64,
    attempt: u32,
    acquire_sent_mono_ns: u64,
    /// The wall clock when the acquire was sent, for `elapsed_clock = "wall"`.
    acquire_sent_wall_ns: i64,
    deadline_mono_ns: u64,
    token: Option<u64>,
    read_value: u64,
    holding: bool,
}

type ClientCtx<'a> = Ctx<'a, Msg, LockObs>;

impl LockClient {
    /// Client number `index` of the world.
    pub fn new(cfg: ClientConfig, index: u64, service: LockService) -> Self {
        LockClient {
            cfg,
            service,
            index,
            phase: Phase::Starting,
            next_req: 0,
            req: 0,
            answered: 0,
            granted: 0,
            renew_req: 0,
            renew_sent_mono_ns: 0,
            lease: 0,
            attempt: 0,
            acquire_sent_mono_ns: 0,
            acquire_sent_wall_ns: 0,
            deadline_mono_ns: 0,
            token: None,
            read_value: 0,
            holding: false,
        }
    }

    fn all_servers(&self) -> u32 {
        (1u32 << self.service.servers.len()) - 1
    }

    pub fn on_start(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Starting;
        ctx.set_timer(STEP, self.index * self.cfg.start_stagger_ns);
    }

    /// A crash forgets the round: the process starts over on restart.
    pub fn on_crash(&mut self) {
        *self = LockClient::new(self.cfg, self.index, self.service.clone());
    }

    /// Sentinel announced a new primary: talk to it from now on. The connection to the old one
    /// is dropped, so a request still waiting on it fails now rather than at its timeout.
    pub fn switch_primary(&mut self, ctx: &mut ClientCtx<'_>, primary: NodeId) {
        if self.service.servers.len() != 1 || self.service.servers[0] == primary {
            return;
        }
        self.service.servers[0] = primary;
        if self.req != 0 && matches!(self.phase, Phase::Acquiring | Phase::Releasing) {
            ctx.cancel_timer(TIMEOUT);
            self.on_timeout(ctx);
        }
    }

    pub fn on_timer(&mut self, ctx: &mut ClientCtx<'_>, tag: TimerTag) {
        match (tag, self.phase) {
            (STEP, Phase::Starting | Phase::Thinking) => self.begin_round(ctx),
            (STEP, Phase::Backoff) => self.try_acquire(ctx),
            (STEP, Phase::Working) => self.finish_work(ctx),
            (DECIDE, Phase::Deciding) => self.decide(ctx),
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

    pub fn on_msg(&mut self, ctx: &mut ClientCtx<'_>, from: NodeId, msg: Msg) {
        match msg {
            Msg::RedisReply { req, reply } if req == self.renew_req && req != 0 => self.on_renew_reply(ctx, reply),
            Msg::RedisReply { req, reply } if self.req != 0 && req >= self.req => {
                let i = (req - self.req) as usize;
                match self.phase {
                    Phase::Acquiring | Phase::Releasing if self.service.servers.get(i) == Some(&from) => {
                        self.on_server_reply(ctx, i, reply)
                    }
                    Phase::Fetching | Phase::Expiring if req == self.req => {
                        self.req = 0;
                        ctx.cancel_timer(TIMEOUT);
                        if self.phase == Phase::Fetching {
                            self.on_token(ctx, reply);
                        } else {
                            self.after_acquired(ctx);
                        }
                    }
                    _ => {}
                }
            }
            Msg::ResourceReply { req, reply } if req == self.req && req != 0 => {
                self.req = 0;
                ctx.cancel_timer(TIMEOUT);
                self.on_resource_reply(ctx, reply);
            }
            _ => {}
        }
    }

    /// An answer from server `i` to the outstanding acquire or release.
    fn on_server_reply(&mut self, ctx: &mut ClientCtx<'_>, i: usize, reply: Reply) {
        let bit = 1 << i;
        if self.answered & bit != 0 {
            return;
        }
        self.answered |= bit;
        if self.phase == Phase::Acquiring {
            let granted = match (self.cfg.fencing_tokens, reply) {
                (FencingTokens::Incr, Reply::Int(token)) => {
                    self.token = Some(token as u64);
                    true
                }
                (FencingTokens::None | FencingTokens::Counter, Reply::Ok | Reply::Int(1)) => true,
                _ => false,
            };
            if granted {
                self.granted |= bit;
            }
        }
        if self.answered == self.all_servers() {
            self.req = 0;
            ctx.cancel_timer(TIMEOUT);
            match self.phase {
                Phase::Acquiring => self.collected(ctx),
                _ => self.think(ctx),
            }
        }
    }

    fn on_resource_reply(&mut self, ctx: &mut ClientCtx<'_>, reply: ResourceReply) {
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

    /// Sends one request to `to`, with the request timeout.
    fn request(&mut self, ctx: &mut ClientCtx<'_>, to: NodeId, msg: impl FnOnce(u64) -> Msg) {
        self.next_req += 1;
        self.req = self.next_req;
        ctx.send(to, msg(self.req));
        ctx.set_timer(TIMEOUT, self.cfg.request_timeout_ns);
    }

    /// Sends `cmd` to every lock server (request `req + i` to server i), collecting answers.
    fn broadcast(&mut self, ctx: &mut ClientCtx<'_>, cmd: Cmd, timeout_ns: u64) {
        self.req = self.next_req + 1;
        self.answered = 0;
        self.granted = 0;
        self.send_to_all(ctx, cmd);
        ctx.set_timer(TIMEOUT, timeout_ns);
    }

    /// Sends `cmd` to every lock server, each under a request id of its own.
    fn send_to_all(&mut self, ctx: &mut ClientCtx<'_>, cmd: Cmd) {
        for &server in &self.service.servers {
            self.next_req += 1;
            ctx.send(
                server,
                Msg::Redis {
                    req: self.next_req,
                    cmd,
                },
            );
        }
    }

    fn on_timeout(&mut self, ctx: &mut ClientCtx<'_>) {
        self.req = 0;
        match self.phase {
            Phase::Acquiring => self.collected(ctx),
            Phase::Fetching | Phase::Expiring | Phase::Reading => self.release(ctx),
            Phase::Writing => {
                ctx.record(LockObs::WriteTimedOut);
                self.release(ctx);
            }
            Phase::Releasing => self.think(ctx),
            _ => {}
        }
    }
}
