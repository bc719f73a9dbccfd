//! The Redis-family world: the node type that puts lock clients, Redis servers and the fenced
//! resource into one simulation (a Single Redis or Redlock world), and its run.

use locksim_sim::{Ctx, Level, Node, NodeId, NodeSetup, TimerTag};

use super::client::LockClient;
use super::msg::Msg;
use super::server::RedisServer;
use crate::lock::resource::Resource;
use crate::lock::{LockJudge, LockObs, LockSetup};
use crate::outcome::Outcome;
use crate::runner::run_world;
use crate::setting::Setting;

/// Runs a Redis-family world and judges it with the generic lock checkers.
pub fn run_redis_world(
    nodes: Vec<NodeSetup<RedisWorldNode>>,
    setup: LockSetup,
    setting: Setting<'_>,
    seed: u64,
    level: Level,
) -> Outcome {
    run_world(nodes, setting, seed, level, LockJudge::new(setup))
}

/// Every role of a Redis-family world.
pub enum RedisWorldNode {
    Client(LockClient),
    Redis(RedisServer),
    Resource(Resource),
}

type WorldCtx<'a> = Ctx<'a, Msg, LockObs>;

impl Node for RedisWorldNode {
    type Msg = Msg;
    type Obs = LockObs;

    fn on_start(&mut self, ctx: &mut WorldCtx<'_>) {
        match self {
            RedisWorldNode::Client(n) => n.on_start(ctx),
            RedisWorldNode::Redis(n) => n.on_start(ctx),
            RedisWorldNode::Resource(_) => {}
        }
    }

    fn on_msg(&mut self, ctx: &mut WorldCtx<'_>, from: NodeId, msg: Msg) {
        match self {
            RedisWorldNode::Client(n) => match msg {
                Msg::SwitchMaster { primary } => n.switch_primary(ctx, primary),
                msg => n.on_msg(ctx, from, msg),
            },
            RedisWorldNode::Redis(n) => n.on_msg(ctx, from, msg),
            RedisWorldNode::Resource(n) => {
                if let Msg::Resource { req, op } = msg {
                    n.serve(ctx, from, op, |reply| Msg::ResourceReply { req, reply });
                }
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut WorldCtx<'_>, tag: TimerTag) {
        match self {
            RedisWorldNode::Client(n) => n.on_timer(ctx, tag),
            RedisWorldNode::Redis(n) => n.on_timer(ctx, tag),
            RedisWorldNode::Resource(_) => {}
        }
    }

    fn on_crash(&mut self, ctx: &mut WorldCtx<'_>) {
        match self {
            RedisWorldNode::Client(n) => n.on_crash(),
            RedisWorldNode::Redis(n) => n.on_crash(ctx),
            RedisWorldNode::Resource(n) => n.crash_in(ctx),
        }
    }

    fn on_clock_jump(&mut self, ctx: &mut WorldCtx<'_>) {
        if let RedisWorldNode::Redis(n) = self {
            n.on_clock_jump(ctx);
        }
    }

    fn on_failover(&mut self, ctx: &mut WorldCtx<'_>, primary: NodeId) {
        if let RedisWorldNode::Redis(n) = self {
            n.on_failover(ctx, primary);
        }
    }
}
