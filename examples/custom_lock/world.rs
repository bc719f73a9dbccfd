//! The model's world: its message type ([`Wire`]), its own counter service, and the node type
//! that puts the example's clients, locksim's Redis server, the counter and locksim's fenced
//! resource into one simulation.
//!
//! locksim's Redis server speaks the Redis world's messages (`Msg`), which have no word for
//! the counter's `NEXT`; rather than extend a type the model does not own, the server runs
//! here through a small adapter ([`redis_world_step`]): a step of it runs against a context of
//! its own message type, and its effects are replayed, in order, as this world's. The
//! resource serves through `Resource::serve`, answering in this world's messages, as it does
//! in the built-in worlds.

use std::fmt;

use locksim::protocols::lock::LockObs;
use locksim::protocols::lock::resource::Resource;
use locksim::protocols::redis::msg::Msg;
use locksim::protocols::redis::server::RedisServer;
use locksim::sim::{Ctx, Effect, Node, NodeId, TimerTag};

use crate::client::TokenLeaseClient;
use crate::model::CounterDurability;

/// This world's messages: the Redis world's (Redis commands and replies, resource requests
/// and replies), plus the counter service's.
#[derive(Clone, Debug)]
pub enum Wire {
    Lock(Msg),
    Next { req: u64 },
    Token { req: u64, token: u64 },
}

impl fmt::Display for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wire::Lock(m) => write!(f, "{m}"),
            Wire::Next { .. } => f.write_str("NEXT token"),
            Wire::Token { token, .. } => write!(f, "token {token}"),
        }
    }
}

pub type WireCtx<'a> = Ctx<'a, Wire, LockObs>;

/// Runs one step of a node written for the Redis world's messages (`Msg`) inside this world:
/// against a context of its own, whose effects are then replayed here in order — so a fault
/// triggered after one of its records still holds back (or loses) what it did next.
fn redis_world_step(ctx: &mut WireCtx<'_>, step: impl FnOnce(&mut Ctx<'_, Msg, LockObs>)) {
    let mut effects = Vec::new();
    let (me, wall_ns, mono_ns) = (ctx.me(), ctx.wall_ns(), ctx.mono_ns());
    step(&mut Ctx::new(me, wall_ns, mono_ns, ctx.rng(), &mut effects));
    for effect in effects {
        match effect {
            Effect::Send { to, msg } => ctx.send(to, Wire::Lock(msg)),
            Effect::SetTimer { tag, after_ns } => ctx.set_timer(tag, after_ns),
            Effect::CancelTimer { tag } => ctx.cancel_timer(tag),
            Effect::Record(obs) => ctx.record(obs),
        }
    }
}

/// The events the counter service records: what a fault's `after` on it may name.
pub const COUNTER_EVENTS: &[&str] = &["token_issued"];

/// Hands out tokens 1, 2, 3... A durable counter has each new count on disk before it is
/// answered, so a crash loses nothing; a volatile one keeps it in memory, and a restart begins
/// at 1 again.
pub struct CounterService {
    durability: CounterDurability,
    count: u64,
}

impl CounterService {
    pub fn new(durability: CounterDurability) -> Self {
        CounterService { durability, count: 0 }
    }

    fn on_msg(&mut self, ctx: &mut WireCtx<'_>, from: NodeId, msg: Wire) {
        if let Wire::Next { req } = msg {
            self.count += 1;
            ctx.record(LockObs::TokenIssued {
                token: self.count,
                lease: None,
            });
            ctx.send(from, Wire::Token { req, token: self.count });
        }
    }

    fn on_crash(&mut self) {
        if self.durability == CounterDurability::Volatile {
            self.count = 0;
        }
    }
}

/// Every node of this world.
pub enum TokenLeaseNode {
    Client(TokenLeaseClient),
    /// Boxed: a Redis server is by far the largest node.
    Redis(Box<RedisServer>),
    Counter(CounterService),
    Resource(Resource),
}

impl Node for TokenLeaseNode {
    type Msg = Wire;
    type Obs = LockObs;

    fn on_start(&mut self, ctx: &mut WireCtx<'_>) {
        match self {
            TokenLeaseNode::Client(c) => c.on_start(ctx),
            TokenLeaseNode::Redis(r) => redis_world_step(ctx, |c| r.on_start(c)),
            TokenLeaseNode::Counter(_) | TokenLeaseNode::Resource(_) => {}
        }
    }

    fn on_msg(&mut self, ctx: &mut WireCtx<'_>, from: NodeId, msg: Wire) {
        match (self, msg) {
            (TokenLeaseNode::Client(c), msg) => c.on_msg(ctx, msg),
            (TokenLeaseNode::Redis(r), Wire::Lock(msg)) => redis_world_step(ctx, |c| r.on_msg(c, from, msg)),
            (TokenLeaseNode::Counter(n), msg) => n.on_msg(ctx, from, msg),
            (TokenLeaseNode::Resource(r), Wire::Lock(Msg::Resource { req, op })) => {
                r.serve(ctx, from, op, |reply| Wire::Lock(Msg::ResourceReply { req, reply }));
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut WireCtx<'_>, tag: TimerTag) {
        match self {
            TokenLeaseNode::Client(c) => c.on_timer(ctx, tag),
            TokenLeaseNode::Redis(r) => redis_world_step(ctx, |c| r.on_timer(c, tag)),
            TokenLeaseNode::Counter(_) | TokenLeaseNode::Resource(_) => {}
        }
    }

    fn on_crash(&mut self, ctx: &mut WireCtx<'_>) {
        match self {
            TokenLeaseNode::Client(_) => {} // on_start begins afresh
            TokenLeaseNode::Redis(r) => redis_world_step(ctx, |c| r.on_crash(c)),
            TokenLeaseNode::Counter(n) => n.on_crash(),
            TokenLeaseNode::Resource(r) => r.crash_in(ctx),
        }
    }

    fn on_clock_jump(&mut self, ctx: &mut WireCtx<'_>) {
        if let TokenLeaseNode::Redis(r) = self {
            redis_world_step(ctx, |c| r.on_clock_jump(c));
        }
    }
}
