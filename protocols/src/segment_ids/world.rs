//! The segment-ID world: the node type that puts processes and the allocator database (and
//! its replica) into one simulation.

use locksim_sim::{Node, NodeId, TimerTag};

use super::allocator::Allocator;
use super::msg::{Msg, SegCtx};
use super::obs::SegObs;
use super::process::Process;

/// Every role of a segment-ID world.
pub enum SegNode {
    Process(Box<Process>),
    Allocator(Allocator),
}

impl Node for SegNode {
    type Msg = Msg;
    type Obs = SegObs;

    fn on_start(&mut self, ctx: &mut SegCtx<'_>) {
        match self {
            SegNode::Process(p) => p.on_start(ctx),
            SegNode::Allocator(a) => a.on_start(ctx),
        }
    }

    fn on_msg(&mut self, ctx: &mut SegCtx<'_>, from: NodeId, msg: Msg) {
        match self {
            SegNode::Process(p) => p.on_msg(ctx, from, msg),
            SegNode::Allocator(a) => a.on_msg(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut SegCtx<'_>, tag: TimerTag) {
        match self {
            SegNode::Process(p) => p.on_timer(ctx, tag),
            SegNode::Allocator(a) => a.on_timer(ctx, tag),
        }
    }

    fn on_crash(&mut self, ctx: &mut SegCtx<'_>) {
        match self {
            SegNode::Process(p) => p.on_crash(ctx),
            SegNode::Allocator(a) => a.on_crash(),
        }
    }

    fn on_failover(&mut self, ctx: &mut SegCtx<'_>, primary: NodeId) {
        if let SegNode::Allocator(a) = self {
            a.on_failover(ctx, primary);
        }
    }
}
