//! The lock world: the messages every lock protocol's nodes exchange and the node type that
//! puts clients, lock servers and the resource into one simulation.

use std::fmt;

use locksim_sim::{Ctx, Level, Node, NodeId, NodeSetup, TimerTag};

use crate::lock::{LockObs, LockSetup, check_lock};
use crate::registry::{Outcome, run_world};
use crate::scenario::{Role, Scenario};

use crate::lock_client::LockClient;
use crate::redis::cmd::{Cmd, Key, Reply};
use crate::redis::server::RedisServer;
use crate::redis::store::Entry;
use crate::resource::{Resource, ResourceOp, ResourceReply};

/// A request carries the sender's request id; the reply echoes it, so late replies to
/// abandoned requests are recognised and ignored.
#[derive(Clone, Debug)]
pub enum Msg {
    Redis {
        req: u64,
        cmd: Cmd,
    },
    RedisReply {
        req: u64,
        reply: Reply,
    },
    Resource {
        req: u64,
        op: ResourceOp,
    },
    ResourceReply {
        req: u64,
        reply: ResourceReply,
    },
    /// A primary's replication stream: `key` is now `entry` (absent: deleted).
    Replicate {
        key: Key,
        entry: Option<Entry>,
    },
    /// Sentinel's `+switch-master`: `primary` now serves. Sent to the old primary it stands for
    /// Sentinel's `REPLICAOF`, which demotes it.
    SwitchMaster {
        primary: NodeId,
    },
    /// A replica's `REPLCONF ACK`, once a second: the primary counts it for
    /// `min-replicas-to-write`.
    ReplAck,
    /// The old primary's answer to a demotion: it now reports `role:slave` in its `INFO`,
    /// which is how Sentinel learns that the reconfiguration took and stops sending it.
    DemotionAck,
}

impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Msg::Redis { cmd, .. } => write!(f, "{cmd}"),
            Msg::RedisReply { reply, .. } => write!(f, "{reply}"),
            Msg::Resource { op, .. } => write!(f, "{op}"),
            Msg::ResourceReply { reply, .. } => write!(f, "{reply}"),
            Msg::Replicate { key, entry: Some(e) } => write!(f, "REPLICATE {key} := {}", e.value),
            Msg::Replicate { key, entry: None } => write!(f, "REPLICATE DEL {key}"),
            Msg::SwitchMaster { .. } => f.write_str("+switch-master: the sender is the primary now"),
            Msg::ReplAck => f.write_str("REPLCONF ACK"),
            Msg::DemotionAck => f.write_str("role:replica (the demotion took)"),
        }
    }
}

/// The events each role of a lock world records (what a fault's `after` may name).
pub fn lock_events(role: Role) -> &'static [&'static str] {
    use crate::lock::obs::{CLIENT_EVENTS, RESOURCE_EVENTS, SERVER_EVENTS};
    match role {
        Role::Client => CLIENT_EVENTS,
        Role::Server => SERVER_EVENTS,
        Role::Resource => RESOURCE_EVENTS,
    }
}

/// Runs a lock world and judges it with the generic lock checkers.
pub fn run_lock_world(
    nodes: Vec<NodeSetup<LockNode>>,
    setup: LockSetup,
    s: &Scenario,
    seed: u64,
    level: Level,
) -> Outcome {
    run_world(nodes, s, seed, level, |h| check_lock(h, &setup))
}

/// Every role of a lock world.
pub enum LockNode {
    Client(LockClient),
    Redis(RedisServer),
    Resource(Resource),
}

type LockCtx<'a> = Ctx<'a, Msg, LockObs>;

impl Node for LockNode {
    type Msg = Msg;
    type Obs = LockObs;

    fn on_start(&mut self, ctx: &mut LockCtx<'_>) {
        match self {
            LockNode::Client(n) => n.on_start(ctx),
            LockNode::Redis(n) => n.on_start(ctx),
            LockNode::Resource(_) => {}
        }
    }

    fn on_msg(&mut self, ctx: &mut LockCtx<'_>, from: NodeId, msg: Msg) {
        match self {
            LockNode::Client(n) => match msg {
                Msg::SwitchMaster { primary } => n.switch_primary(ctx, primary),
                msg => n.on_msg(ctx, from, msg),
            },
            LockNode::Redis(n) => n.on_msg(ctx, from, msg),
            LockNode::Resource(n) => {
                if let Msg::Resource { req, op } = msg {
                    let (reply, obs) = n.handle(from, op);
                    if let Some(obs) = obs {
                        ctx.record(obs);
                    }
                    ctx.send(from, Msg::ResourceReply { req, reply });
                }
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut LockCtx<'_>, tag: TimerTag) {
        match self {
            LockNode::Client(n) => n.on_timer(ctx, tag),
            LockNode::Redis(n) => n.on_timer(ctx, tag),
            LockNode::Resource(_) => {}
        }
    }

    fn on_crash(&mut self, ctx: &mut LockCtx<'_>) {
        match self {
            LockNode::Client(n) => n.on_crash(),
            LockNode::Redis(n) => n.on_crash(ctx),
            LockNode::Resource(n) => {
                if let Some(obs) = n.crash() {
                    ctx.record(obs);
                }
            }
        }
    }

    fn on_clock_jump(&mut self, ctx: &mut LockCtx<'_>) {
        if let LockNode::Redis(n) = self {
            n.on_clock_jump(ctx);
        }
    }

    fn on_failover(&mut self, ctx: &mut LockCtx<'_>, primary: NodeId) {
        if let LockNode::Redis(n) = self {
            n.on_failover(ctx, primary);
        }
    }
}
