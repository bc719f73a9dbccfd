//! The Snowflake world: the node type that puts generators and the node-ID lease server into
//! one simulation.

use locksim_sim::{Node, NodeId, TimerTag};

use super::generator::Generator;
use super::msg::{IdCtx, Msg};
use super::node_lease::NodeLeaseServer;
use super::obs::IdObs;

/// Every role of a Snowflake world.
pub enum IdNode {
    Generator(Box<Generator>),
    LeaseServer(NodeLeaseServer),
}

impl Node for IdNode {
    type Msg = Msg;
    type Obs = IdObs;

    fn on_start(&mut self, ctx: &mut IdCtx<'_>) {
        match self {
            IdNode::Generator(g) => g.on_start(ctx),
            IdNode::LeaseServer(s) => s.on_start(ctx),
        }
    }

    fn on_msg(&mut self, ctx: &mut IdCtx<'_>, from: NodeId, msg: Msg) {
        match self {
            IdNode::Generator(g) => g.on_msg(ctx, msg),
            IdNode::LeaseServer(s) => s.on_msg(ctx, from, msg),
        }
    }

    /// Inlined into the engine's step, and a generator's tick with it (see
    /// `Generator::on_timer`): as a call it cost ~10 instructions a tick.
    #[inline(always)]
    fn on_timer(&mut self, ctx: &mut IdCtx<'_>, tag: TimerTag) {
        match self {
            IdNode::Generator(g) => g.on_timer(ctx, tag),
            IdNode::LeaseServer(s) => s.on_timer(ctx, tag),
        }
    }

    fn on_crash(&mut self, _ctx: &mut IdCtx<'_>) {
        match self {
            IdNode::Generator(g) => g.on_crash(),
            // The lease table is durable (as in etcd or ZooKeeper): a crash loses only time.
            IdNode::LeaseServer(_) => {}
        }
    }
}
